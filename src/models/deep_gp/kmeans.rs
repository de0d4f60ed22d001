//! k-means with random-row starts for placing the deep GP's inducing inputs (the Lloyd steps are
//! the shared ones of [`crate::inducing`]).
use crate::error::{Error, Result};
use crate::inducing::{inducing_subset, kmeans::lloyd};

/// `k` cluster centres `[k, d]` (row-major) of the rows of `x` `[n, d]`: started at `k` distinct
/// random rows (seeded), then `iterations` Lloyd steps over every row; a cluster that empties
/// keeps its centre.
pub fn kmeans(x: &[f64], n: usize, d: usize, k: usize, iterations: usize, seed: u64) -> Result<Vec<f64>> {
    if x.len() != n * d {
        return Err(Error::shape("kmeans", [n, d], [x.len()]));
    }
    let mut centres = inducing_subset(x, n, d, k, seed)?;
    let rows: Vec<usize> = (0..n).collect();
    lloyd(x, d, &rows, &mut centres, iterations);
    Ok(centres)
}
