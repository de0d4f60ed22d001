//! [`gibbs_orthant`]: a Gibbs sampler for low-dimensional `N(0, Σ)` restricted to `v + γ > 0`,
//! for when rejection's acceptance rate is too low (route A's test-point draws, Theorem 2).
use faer::{Mat, MatRef};
use rand::rngs::StdRng;
use rand::RngExt;

use super::dense::solve_chol;
use crate::special::{log_ndtr, ndtri_from_log};

/// One draw of `x ~ N(μ, σ²)` restricted to `x > lo`, by the inverse CDF in log space (exact in
/// the far tail: `x = μ − σ Φ⁻¹(u Φ(−z))`, `z = (lo − μ)/σ`).
pub fn truncated_normal_above(mu: f64, sigma: f64, lo: f64, rng: &mut StdRng) -> f64 {
    let z = (lo - mu) / sigma;
    let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
    let x = mu - sigma * ndtri_from_log(u.ln() + log_ndtr(-z));
    // rounding at the boundary: stay strictly feasible
    if x > lo {
        x
    } else {
        lo + f64::EPSILON * lo.abs().max(1.0)
    }
}

/// A draw `[s]` of `N(0, L Lᵀ)` restricted to `v + γ > 0` after `sweeps` Gibbs sweeps, each
/// coordinate drawn from its exact one-dimensional truncated conditional
/// ([`truncated_normal_above`]), started at `vᵢ = max(−γᵢ, 0) + 0.5`. Every state is feasible, so
/// it works at any acceptance rate; the chain's bias after `sweeps` sweeps is what the caller
/// accepts (the tests check moments after 50 sweeps for `s = 2`).
pub fn gibbs_orthant(l: MatRef<'_, f64>, gamma: &[f64], sweeps: usize, rng: &mut StdRng) -> Vec<f64> {
    let s = gamma.len();
    let precision = solve_chol(l, Mat::<f64>::identity(s, s).as_ref());
    let mut v: Vec<f64> = gamma.iter().map(|g| (-g).max(0.0) + 0.5).collect();
    for _ in 0..sweeps {
        for i in 0..s {
            let qii = precision[(i, i)];
            let mean = -(0..s).filter(|&j| j != i).map(|j| precision[(i, j)] * v[j]).sum::<f64>() / qii;
            v[i] = truncated_normal_above(mean, qii.sqrt().recip(), -gamma[i], rng);
        }
    }
    v
}
