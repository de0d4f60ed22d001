//! Initial placements of inducing inputs.
use burn::config::Config;

use crate::error::Error;

/// `crate::Result` under another name: Burn's `Config` derive needs `Result` to be std's.
type GpResult<T> = crate::error::Result<T>;

/// How inducing inputs are placed on the training inputs at initialisation.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum InducingInit {
    /// A seeded random subset of the rows ([`inducing_subset`]).
    Subset,
    /// k-means++ seeding, then Lloyd iterations ([`inducing_kmeans`](super::inducing_kmeans)).
    KMeans,
    /// k-means started at random rows, then Lloyd iterations over every row
    /// ([`kmeans_random_start`](super::kmeans_random_start)): the deep GP paper's.
    KMeansRandomStart,
}

/// Inducing inputs initialised at `m` rows of `x` chosen uniformly without replacement (seeded).
pub fn inducing_subset(x: &[f64], n: usize, d: usize, m: usize, seed: u64) -> GpResult<Vec<f64>> {
    use rand::{seq::SliceRandom, SeedableRng};
    if m == 0 || m > n {
        return Err(Error::invalid("m", format!("need 1 ≤ m ≤ n = {n}, got {m}")));
    }
    if x.len() != n * d {
        return Err(Error::shape("inducing_subset", [n, d], [x.len()]));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    idx.shuffle(&mut rng);
    let mut z = Vec::with_capacity(m * d);
    for &i in &idx[..m] {
        z.extend_from_slice(&x[i * d..(i + 1) * d]);
    }
    Ok(z)
}
