//! [`MiniBatches`]: reproducible shuffled minibatches of row indices, reshuffled every epoch.
use rand::rngs::StdRng;
use rand::SeedableRng;

use rand::seq::SliceRandom;

use crate::error::{Error, Result};

/// A uniformly random permutation of `0..n` as 32-bit indices (4 bytes a row: the run's one
/// N-sized index list), the same permutation `split::permutation` draws from the same stream.
fn permutation_u32(n: usize, rng: &mut StdRng) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(rng);
    order
}

/// An endless stream of minibatches of row indices `0..n`: each epoch is a fresh random
/// permutation cut into batches of `batch_size` (the last one smaller when `batch_size` does not
/// divide `n`). The same seed gives the same stream.
#[derive(Debug)]
pub struct MiniBatches {
    n: usize,
    batch_size: usize,
    rng: StdRng,
    order: Vec<u32>,
    pos: usize,
    epoch: usize,
}

impl MiniBatches {
    /// Batches over `n` rows. `n == 0` is [`Error::Empty`]; `batch_size == 0` is
    /// [`Error::InvalidArgument`]; a `batch_size` above `n` gives one full-data batch per epoch.
    pub fn new(n: usize, batch_size: usize, seed: u64) -> Result<Self> {
        if n == 0 {
            return Err(Error::Empty { context: "MiniBatches::new (n = 0 rows)".to_string() });
        }
        if batch_size == 0 {
            return Err(Error::invalid("batch_size", "must be at least 1"));
        }
        if u32::try_from(n).is_err() {
            return Err(Error::invalid("n", format!("{n} rows: minibatches index at most 2³² − 1 rows")));
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let order = permutation_u32(n, &mut rng);
        Ok(Self { n, batch_size: batch_size.min(n), rng, order, pos: 0, epoch: 0 })
    }

    /// Batches per epoch, `⌈n / batch_size⌉`.
    pub fn batches_per_epoch(&self) -> usize {
        self.n.div_ceil(self.batch_size)
    }

    /// The 0-based epoch the most recent batch came from (0 before the first batch).
    pub fn epoch(&self) -> usize {
        self.epoch
    }

    /// The next batch, starting a new epoch (with a new permutation) when the current one is done.
    pub fn next_batch(&mut self) -> Vec<usize> {
        if self.pos >= self.n {
            self.order = permutation_u32(self.n, &mut self.rng);
            self.pos = 0;
            self.epoch += 1;
        }
        let end = (self.pos + self.batch_size).min(self.n);
        let batch = self.order[self.pos..end].iter().map(|&i| i as usize).collect();
        self.pos = end;
        batch
    }

    /// The batches remaining in the current epoch: all of a new epoch when called at an epoch
    /// boundary (the usual case), so repeated calls give one epoch each.
    pub fn next_epoch(&mut self) -> Vec<Vec<usize>> {
        let mut batches = vec![self.next_batch()];
        while self.pos < self.n {
            batches.push(self.next_batch());
        }
        batches
    }
}

impl Iterator for MiniBatches {
    type Item = Vec<usize>;

    /// Always `Some`: the stream is endless (bound it with `take`).
    fn next(&mut self) -> Option<Vec<usize>> {
        Some(self.next_batch())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<usize>) -> Vec<usize> {
        v.sort_unstable();
        v
    }

    #[test]
    fn each_epoch_is_a_permutation_with_a_partial_last_batch() {
        let mut mb = MiniBatches::new(10, 4, 1).unwrap();
        assert_eq!(mb.batches_per_epoch(), 3);
        for expected_epoch in 0..3 {
            let epoch = mb.next_epoch();
            assert_eq!(mb.epoch(), expected_epoch);
            assert_eq!(epoch.iter().map(Vec::len).collect::<Vec<_>>(), vec![4, 4, 2]);
            assert_eq!(sorted(epoch.concat()), (0..10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn epochs_are_reshuffled_and_seeds_reproduce() {
        let mut a = MiniBatches::new(50, 50, 3).unwrap();
        let first = a.next_epoch();
        let second = a.next_epoch();
        assert_ne!(first, second);
        let mut b = MiniBatches::new(50, 50, 3).unwrap();
        assert_eq!(b.next_epoch(), first);
        assert_eq!(b.next_epoch(), second);
        let mut c = MiniBatches::new(50, 50, 4).unwrap();
        assert_ne!(c.next_epoch(), first);
    }

    #[test]
    fn iterator_crosses_epoch_boundaries() {
        let mut it = MiniBatches::new(5, 2, 9).unwrap();
        let batches: Vec<Vec<usize>> = it.by_ref().take(6).collect();
        assert_eq!(batches.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 2, 1, 2, 2, 1]);
        assert_eq!(sorted(batches[3..].concat()), (0..5).collect::<Vec<_>>());
        assert_eq!(it.epoch(), 1);
    }

    #[test]
    fn mid_epoch_next_epoch_returns_the_remainder() {
        let mut mb = MiniBatches::new(6, 2, 0).unwrap();
        let first = mb.next_batch();
        let rest = mb.next_epoch();
        assert_eq!(rest.len(), 2);
        assert_eq!(sorted([first, rest.concat()].concat()), (0..6).collect::<Vec<_>>());
    }

    /// The 32-bit order is the permutation `split::permutation` draws (so runs repeat the batches
    /// of the `usize` order they replaced, bit for bit).
    #[test]
    fn the_order_is_the_permutation_of_the_seeded_stream() {
        let mut rng = StdRng::seed_from_u64(5);
        let first = crate::data::split::permutation(1000, &mut rng);
        let second = crate::data::split::permutation(1000, &mut rng);
        let mut mb = MiniBatches::new(1000, 1000, 5).unwrap();
        assert_eq!(mb.next_batch(), first);
        assert_eq!(mb.next_batch(), second);
    }

    #[test]
    fn oversize_batch_and_errors() {
        let mut mb = MiniBatches::new(3, 100, 0).unwrap();
        assert_eq!(mb.batches_per_epoch(), 1);
        assert_eq!(sorted(mb.next_batch()), vec![0, 1, 2]);
        assert!(matches!(MiniBatches::new(3, 0, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(MiniBatches::new(0, 1, 0), Err(Error::Empty { .. })));
    }
}
