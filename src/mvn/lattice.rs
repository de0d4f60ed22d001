//! Randomised rank-1 lattice points for quasi-Monte Carlo integration over `[0, 1]^dim`.
use std::sync::Arc;

use rand::{RngExt, SeedableRng};

use crate::error::{Error, Result};

/// Smallest and largest value a lattice coordinate takes (keeps `ln w` and `Φ⁻¹(w·e)` finite).
const W_EDGE: f64 = 1.0 / (1u64 << 53) as f64;

/// A set of quasi-random points in `[0, 1]^dim`: `shifts` independent random shifts of one
/// Richtmyer rank-1 lattice of `points_per_shift` points, tent-periodised.
///
/// Point `k` of shift `m` is `w_kj = |2·frac(k·z_j + Δ_mj) − 1|` with generating vector
/// `z_j = frac(√prime_j)` and shift `Δ_m ~ U[0, 1)^dim`; the tent map makes the integrand
/// periodic, which lattice rules need for their fast convergence. Coordinates are clamped into
/// `[2⁻⁵³, 1 − 2⁻⁵³]`. The points of one shift are contiguous: row `m·points_per_shift + k`.
/// Each shift gives an unbiased estimate of an integral; their spread is the standard error.
///
/// The points are fixed once drawn, so an estimate built from them is a smooth function of the
/// integrand's parameters (what autodiff of the Genz integrand needs). Cloning is cheap (shared).
#[derive(Clone, Debug)]
pub struct QmcPoints {
    values: Arc<[f64]>,
    dim: usize,
    points_per_shift: usize,
    shifts: usize,
}

impl QmcPoints {
    /// `shifts` random shifts (seeded by `seed`) of a `points_per_shift`-point lattice in `dim`
    /// dimensions. `dim` may be 0 (one empty point per row, for one-dimensional CDFs).
    pub fn lattice(dim: usize, points_per_shift: usize, shifts: usize, seed: u64) -> Result<Self> {
        if points_per_shift == 0 || shifts == 0 {
            return Err(Error::invalid(
                "qmc points",
                format!("need at least one point and one shift, got {points_per_shift} × {shifts}"),
            ));
        }
        let z: Vec<f64> = first_primes(dim).into_iter().map(|p| (p as f64).sqrt().fract()).collect();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut values = Vec::with_capacity(dim * points_per_shift * shifts);
        for _ in 0..shifts {
            let delta: Vec<f64> = (0..dim).map(|_| rng.random::<f64>()).collect();
            for k in 0..points_per_shift {
                let kf = k as f64;
                for j in 0..dim {
                    let t = (kf * z[j] + delta[j]).fract();
                    values.push((2.0 * t - 1.0).abs().clamp(W_EDGE, 1.0 - W_EDGE));
                }
            }
        }
        Ok(Self { values: values.into(), dim, points_per_shift, shifts })
    }

    /// Points given explicitly, row-major `[points_per_shift · shifts, dim]`, grouped by shift
    /// (for tests and for reusing points across calls). Values must lie in `(0, 1)`.
    pub fn from_values(values: Vec<f64>, dim: usize, points_per_shift: usize, shifts: usize) -> Result<Self> {
        if points_per_shift == 0 || shifts == 0 || values.len() != dim * points_per_shift * shifts {
            return Err(Error::shape("QmcPoints::from_values", dim * points_per_shift * shifts, values.len()));
        }
        if let Some(i) = values.iter().position(|v| !(*v > 0.0 && *v < 1.0)) {
            return Err(Error::invalid("qmc points", format!("value {} at {i} is outside (0, 1)", values[i])));
        }
        Ok(Self { values: values.into(), dim, points_per_shift, shifts })
    }

    /// Dimension of each point.
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// Points in each shift.
    pub fn points_per_shift(&self) -> usize {
        self.points_per_shift
    }
    /// Number of random shifts.
    pub fn shifts(&self) -> usize {
        self.shifts
    }
    /// Total number of points.
    pub fn len(&self) -> usize {
        self.points_per_shift * self.shifts
    }
    /// Never true (a lattice has at least one point).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Row-major values `[len, dim]`.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    /// Coordinate `j` of point `k`.
    pub fn get(&self, k: usize, j: usize) -> f64 {
        self.values[k * self.dim + j]
    }
}

/// The first `count` primes (2, 3, 5, …) by a sieve sized from the prime-counting bound.
pub(crate) fn first_primes(count: usize) -> Vec<u64> {
    if count == 0 {
        return Vec::new();
    }
    // p_n < n (ln n + ln ln n) for n ≥ 6
    let nf = count.max(6) as f64;
    let limit = (nf * (nf.ln() + nf.ln().ln())).ceil() as usize + 1;
    let mut composite = vec![false; limit + 1];
    let mut primes = Vec::with_capacity(count);
    for i in 2..=limit {
        if !composite[i] {
            primes.push(i as u64);
            if primes.len() == count {
                break;
            }
            let mut j = i * i;
            while j <= limit {
                composite[j] = true;
                j += i;
            }
        }
    }
    primes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_and_lattice_shape() {
        assert_eq!(first_primes(10), vec![2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
        assert_eq!(*first_primes(1000).last().unwrap(), 7919);
        let q = QmcPoints::lattice(5, 64, 3, 1).unwrap();
        assert_eq!((q.len(), q.dim(), q.values().len()), (192, 5, 960));
        assert!(q.values().iter().all(|&v| v > 0.0 && v < 1.0));
        // every coordinate of a tent-periodised lattice has mean ≈ ½
        for j in 0..5 {
            let mean = (0..q.len()).map(|k| q.get(k, j)).sum::<f64>() / q.len() as f64;
            assert!((mean - 0.5).abs() < 0.02, "dim {j}: mean {mean}");
        }
        assert!(QmcPoints::lattice(3, 0, 1, 0).is_err());
        assert!(QmcPoints::from_values(vec![0.5, 1.0], 1, 2, 1).is_err());
    }

    #[test]
    fn lattice_integrates_a_smooth_function_better_than_its_error_bound() {
        // ∫ Π_j (1 + (w_j − ½)) dw = 1 over [0,1]^8; a 4096-point lattice gets it to ~1e-4
        let q = QmcPoints::lattice(8, 4096, 1, 7).unwrap();
        let est = (0..q.len()).map(|k| (0..8).map(|j| 0.5 + q.get(k, j)).product::<f64>()).sum::<f64>() / 4096.0;
        assert!((est - 1.0).abs() < 2e-3, "{est}");
    }
}
