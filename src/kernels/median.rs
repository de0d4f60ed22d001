//! The median heuristic for a stationary kernel's initial lengthscale.
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::error::{Error, Result};

/// Median Euclidean distance between distinct rows of `x` `[n, d]` (row-major).
///
/// At most `max_rows` rows (a seeded random subset) are used, so the cost is `O(max_rows² d)`.
/// Returns 1 when every pair coincides, so the result is always a usable lengthscale.
pub fn median_distance(x: &[f64], n: usize, d: usize, max_rows: usize, seed: u64) -> Result<f64> {
    if x.len() != n * d {
        return Err(Error::shape("median_distance", [n, d], [x.len()]));
    }
    if n < 2 {
        return Err(Error::invalid("n", format!("need at least 2 rows for pairwise distances, got {n}")));
    }
    crate::error::check_finite("median_distance input", x)?;
    let mut rows: Vec<usize> = (0..n).collect();
    if n > max_rows.max(2) {
        rows.shuffle(&mut StdRng::seed_from_u64(seed));
        rows.truncate(max_rows.max(2));
    }
    let mut dists = Vec::with_capacity(rows.len() * (rows.len() - 1) / 2);
    for (a, &i) in rows.iter().enumerate() {
        for &j in &rows[a + 1..] {
            let s: f64 = (0..d).map(|k| (x[i * d + k] - x[j * d + k]).powi(2)).sum();
            dists.push(s.sqrt());
        }
    }
    dists.sort_by(|a, b| a.total_cmp(b));
    let med = dists[dists.len() / 2];
    Ok(if med > 0.0 { med } else { 1.0 })
}
