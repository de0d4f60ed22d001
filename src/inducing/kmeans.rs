//! k-means placement of inducing inputs (k-means++ seeding, then Lloyd iterations).
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use crate::error::{Error, Result};

/// Largest number of rows k-means looks at; bigger inputs are subsampled (seeded) first.
const MAX_ROWS: usize = 20_000;

fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// `m` cluster centres of the rows of `x` `[n, d]` (row-major), as `[m, d]`.
///
/// Seeded k-means++ initialisation followed by at most `iterations` Lloyd steps on at most
/// 20,000 rows (a seeded subsample of larger inputs). An empty cluster keeps its previous centre.
pub fn inducing_kmeans(x: &[f64], n: usize, d: usize, m: usize, iterations: usize, seed: u64) -> Result<Vec<f64>> {
    if m == 0 || m > n {
        return Err(Error::invalid("m", format!("need 1 ≤ m ≤ n = {n}, got {m}")));
    }
    if x.len() != n * d {
        return Err(Error::shape("inducing_kmeans", [n, d], [x.len()]));
    }
    crate::error::check_finite("inducing_kmeans input", x)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut rows: Vec<usize> = (0..n).collect();
    if n > MAX_ROWS {
        rows.shuffle(&mut rng);
        rows.truncate(MAX_ROWS);
    }
    let row = |i: usize| &x[i * d..(i + 1) * d];
    // k-means++ seeding.
    let mut centres: Vec<f64> = Vec::with_capacity(m * d);
    centres.extend_from_slice(row(rows[rng.random_range(0..rows.len())]));
    let mut nearest: Vec<f64> = rows.iter().map(|&i| sq_dist(row(i), &centres[..d])).collect();
    while centres.len() < m * d {
        let total: f64 = nearest.iter().sum();
        let pick = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            let mut k = rows.len() - 1;
            for (j, w) in nearest.iter().enumerate() {
                if u < *w {
                    k = j;
                    break;
                }
                u -= w;
            }
            k
        } else {
            rng.random_range(0..rows.len()) // all remaining rows coincide with a centre
        };
        let start = centres.len();
        centres.extend_from_slice(row(rows[pick]));
        for (j, &i) in rows.iter().enumerate() {
            nearest[j] = nearest[j].min(sq_dist(row(i), &centres[start..start + d]));
        }
    }
    lloyd(x, d, &rows, &mut centres, iterations);
    Ok(centres)
}

/// `k` cluster centres `[k, d]` (row-major) of the rows of `x` `[n, d]` started at `k` distinct
/// random rows (seeded), then at most `iterations` Lloyd steps over every row; a cluster that
/// empties keeps its centre. The deep GP paper's initialisation of the first layer.
pub fn kmeans_random_start(x: &[f64], n: usize, d: usize, k: usize, iterations: usize, seed: u64) -> Result<Vec<f64>> {
    if x.len() != n * d {
        return Err(Error::shape("kmeans_random_start", [n, d], [x.len()]));
    }
    let mut centres = super::inducing_subset(x, n, d, k, seed)?;
    let rows: Vec<usize> = (0..n).collect();
    lloyd(x, d, &rows, &mut centres, iterations);
    Ok(centres)
}

/// At most `iterations` Lloyd steps on the rows `rows` of `x` (row-major, `d` columns), moving the
/// `centres` `[k, d]` in place: each row joins its nearest centre (the first on ties), each
/// centre moves to its rows' mean; a centre that loses all its rows stays; stops early when no
/// assignment changes.
pub(crate) fn lloyd(x: &[f64], d: usize, rows: &[usize], centres: &mut [f64], iterations: usize) {
    let k = centres.len() / d.max(1);
    let row = |i: usize| &x[i * d..(i + 1) * d];
    let mut assign = vec![usize::MAX; rows.len()];
    for _ in 0..iterations {
        let mut changed = false;
        for (j, &i) in rows.iter().enumerate() {
            let xi = row(i);
            let best = (0..k)
                .map(|c| (c, sq_dist(xi, &centres[c * d..(c + 1) * d])))
                .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
                .0;
            if assign[j] != best {
                assign[j] = best;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        let mut sums = vec![0.0; k * d];
        let mut counts = vec![0usize; k];
        for (j, &i) in rows.iter().enumerate() {
            let c = assign[j];
            counts[c] += 1;
            for (s, v) in sums[c * d..(c + 1) * d].iter_mut().zip(row(i)) {
                *s += v;
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                for t in 0..d {
                    centres[c * d + t] = sums[c * d + t] / counts[c] as f64;
                }
            }
        }
    }
}
