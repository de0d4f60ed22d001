//! Random train/test division of row indices, for datasets published without splits.
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};

/// A uniformly random permutation of `0..n`.
pub(crate) fn permutation<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    order
}

/// Row indices of a train/test division, each part in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSplit {
    /// Training rows.
    pub train: Vec<usize>,
    /// Test rows.
    pub test: Vec<usize>,
}

/// Divides rows `0..n` at random (reproducibly, from `seed`) into `round(n · test_fraction)` test
/// rows and the rest for training. A fraction outside `(0, 1)`, or one that leaves either part
/// empty, is [`Error::InvalidArgument`].
pub fn random_split(n: usize, test_fraction: f64, seed: u64) -> Result<IndexSplit> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::invalid("test_fraction", format!("{test_fraction} is not in (0, 1)")));
    }
    let n_test = (n as f64 * test_fraction).round() as usize;
    if n_test == 0 || n_test >= n {
        return Err(Error::invalid(
            "test_fraction",
            format!("{test_fraction} of {n} rows leaves {n_test} test and {} training rows", n - n_test.min(n)),
        ));
    }
    let mut order = permutation(n, &mut StdRng::seed_from_u64(seed));
    let mut train = order.split_off(n_test);
    let mut test = order;
    train.sort_unstable();
    test.sort_unstable();
    Ok(IndexSplit { train, test })
}

/// Divides rows at random within each class (reproducibly, from `seed`): from every class
/// `round(count · test_fraction)` rows go to the test part, so both parts keep the class
/// proportions. Each class with at least two rows keeps at least one in each part.
pub fn stratified_split(labels: &[usize], test_fraction: f64, seed: u64) -> Result<IndexSplit> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::invalid("test_fraction", format!("{test_fraction} is not in (0, 1)")));
    }
    if labels.len() < 2 {
        return Err(Error::invalid("labels", format!("need at least 2 rows to split, got {}", labels.len())));
    }
    let classes = labels.iter().max().map_or(0, |&c| c + 1);
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for c in 0..classes {
        let mut rows: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == c).collect();
        rows.shuffle(&mut rng);
        let k = rows.len();
        let n_test = if k >= 2 { ((k as f64 * test_fraction).round() as usize).clamp(1, k - 1) } else { 0 };
        test.extend_from_slice(&rows[..n_test]);
        train.extend_from_slice(&rows[n_test..]);
    }
    if test.is_empty() {
        return Err(Error::invalid("test_fraction", format!("{test_fraction} leaves no test rows")));
    }
    train.sort_unstable();
    test.sort_unstable();
    Ok(IndexSplit { train, test })
}

#[cfg(test)]
mod tests {
    #[test]
    fn stratified_split_keeps_class_proportions() {
        let labels: Vec<usize> = (0..100).map(|i| if i < 80 { 0 } else { 1 + i % 2 }).collect();
        let s = stratified_split(&labels, 0.25, 3).unwrap();
        let count = |rows: &[usize], c: usize| rows.iter().filter(|&&i| labels[i] == c).count();
        assert_eq!((count(&s.test, 0), count(&s.test, 1), count(&s.test, 2)), (20, 3, 3));
        assert_eq!(s.train.len() + s.test.len(), 100);
        assert_eq!(stratified_split(&labels, 0.25, 3).unwrap(), s);
        assert!(stratified_split(&labels, 1.0, 3).is_err());
    }

    use super::*;

    #[test]
    fn parts_are_disjoint_cover_everything_and_are_reproducible() {
        let s = random_split(100, 0.1, 7).unwrap();
        assert_eq!((s.train.len(), s.test.len()), (90, 10));
        let mut all: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..100).collect::<Vec<_>>());
        assert!(s.train.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(random_split(100, 0.1, 7).unwrap(), s);
        assert_ne!(random_split(100, 0.1, 8).unwrap(), s);
    }

    #[test]
    fn rejects_fractions_that_empty_a_part() {
        for bad in [0.0, 1.0, -0.5, f64::NAN, 1.5] {
            assert!(matches!(random_split(10, bad, 0), Err(Error::InvalidArgument { .. })), "{bad}");
        }
        assert!(matches!(random_split(3, 0.1, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(random_split(3, 0.9, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(random_split(0, 0.5, 0), Err(Error::InvalidArgument { .. })));
    }
}
