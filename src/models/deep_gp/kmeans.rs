//! k-means (Lloyd's algorithm) for placing inducing inputs.
use crate::error::{Error, Result};
use crate::inducing::inducing_subset;

/// `k` cluster centres `[k, d]` (row-major) of the rows of `x` `[n, d]`: started at `k` distinct
/// random rows (seeded), then `iterations` Lloyd steps; a cluster that empties keeps its centre.
pub fn kmeans(x: &[f64], n: usize, d: usize, k: usize, iterations: usize, seed: u64) -> Result<Vec<f64>> {
    if x.len() != n * d {
        return Err(Error::shape("kmeans", [n, d], [x.len()]));
    }
    let mut centres = inducing_subset(x, n, d, k, seed)?;
    let mut assign = vec![usize::MAX; n];
    for _ in 0..iterations {
        let mut changed = false;
        for i in 0..n {
            let row = &x[i * d..(i + 1) * d];
            let mut best = (f64::INFINITY, 0);
            for c in 0..k {
                let dist: f64 = row.iter().zip(&centres[c * d..(c + 1) * d]).map(|(a, b)| (a - b) * (a - b)).sum();
                if dist < best.0 {
                    best = (dist, c);
                }
            }
            if assign[i] != best.1 {
                assign[i] = best.1;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        let mut sums = vec![0.0; k * d];
        let mut counts = vec![0usize; k];
        for i in 0..n {
            let c = assign[i];
            counts[c] += 1;
            for j in 0..d {
                sums[c * d + j] += x[i * d + j];
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                for j in 0..d {
                    centres[c * d + j] = sums[c * d + j] / counts[c] as f64;
                }
            }
        }
    }
    Ok(centres)
}
