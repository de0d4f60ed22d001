//! Synthetic data: exact draws of a 1-D Matérn-³⁄₂ Gaussian process.
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::error::{check_finite, Error, Result};

/// An exact draw of a zero-mean Matérn-³⁄₂ GP (variance `variance`, lengthscale `lengthscale`) at
/// the points `x`, in O(n log n) by its state-space form: with `λ = √3/ℓ` the state `(f, f′)` is
/// Markov, `s₀ ~ N(0, P∞)`, `P∞ = diag(σ², λ²σ²)`, and between sorted inputs `Δ` apart
/// `s ← A(Δ) s + q`, `A(Δ) = e^{−λΔ} [[1+λΔ, Δ], [−λ²Δ, 1−λΔ]]`, `q ~ N(0, P∞ − A P∞ Aᵀ)`.
pub fn matern32_draw<R: Rng + ?Sized>(x: &[f64], lengthscale: f64, variance: f64, rng: &mut R) -> Result<Vec<f64>> {
    if x.is_empty() {
        return Err(Error::Empty { context: "matern32_draw inputs".into() });
    }
    check_finite("matern32_draw inputs", x)?;
    if !(lengthscale > 0.0 && lengthscale.is_finite() && variance > 0.0 && variance.is_finite()) {
        return Err(Error::invalid(
            "lengthscale / variance",
            format!("must be positive, got {lengthscale} / {variance}"),
        ));
    }
    let lam = 3f64.sqrt() / lengthscale;
    let p = [variance, lam * lam * variance];
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    let mut normal = || -> f64 { StandardNormal.sample(rng) };
    let mut s = [p[0].sqrt() * normal(), p[1].sqrt() * normal()];
    let mut f = vec![0.0; x.len()];
    let mut prev = x[order[0]];
    for &i in &order {
        let dt = x[i] - prev;
        prev = x[i];
        if dt > 0.0 {
            let e = (-lam * dt).exp();
            let a = [[e * (1.0 + lam * dt), e * dt], [-e * lam * lam * dt, e * (1.0 - lam * dt)]];
            // Q = P∞ − A P∞ Aᵀ through its 2×2 Cholesky factor (clamped against round-off)
            let q00 = p[0] - (a[0][0] * a[0][0] * p[0] + a[0][1] * a[0][1] * p[1]);
            let q01 = -(a[0][0] * a[1][0] * p[0] + a[0][1] * a[1][1] * p[1]);
            let q11 = p[1] - (a[1][0] * a[1][0] * p[0] + a[1][1] * a[1][1] * p[1]);
            let l00 = q00.max(0.0).sqrt();
            let l10 = if l00 > 0.0 { q01 / l00 } else { 0.0 };
            let l11 = (q11 - l10 * l10).max(0.0).sqrt();
            let (z0, z1) = (normal(), normal());
            s = [a[0][0] * s[0] + a[0][1] * s[1] + l00 * z0, a[1][0] * s[0] + a[1][1] * s[1] + l10 * z0 + l11 * z1];
        }
        f[i] = s[0];
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn draws_have_the_matern32_covariance() {
        // Monte Carlo over 20,000 draws at three points: Var f = σ², Cov at lag r = σ²(1+λr)e^{−λr}.
        let (ls, var) = (0.3, 1.7);
        let x = [0.0, 0.1, 0.5];
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let reps = 20_000;
        let mut c = [[0.0; 3]; 3];
        for _ in 0..reps {
            let f = matern32_draw(&x, ls, var, &mut rng).unwrap();
            for i in 0..3 {
                for j in 0..3 {
                    c[i][j] += f[i] * f[j] / reps as f64;
                }
            }
        }
        let lam = 3f64.sqrt() / ls;
        let k = |r: f64| var * (1.0 + lam * r) * (-lam * r).exp();
        for i in 0..3 {
            for j in 0..3 {
                let want = k((x[i] - x[j]).abs());
                // standard error of a covariance estimate ≈ σ²√(2/reps) ≈ 0.017
                assert!((c[i][j] - want).abs() < 0.06, "({i},{j}): {} vs {want}", c[i][j]);
            }
        }
        assert!(matches!(matern32_draw(&[], ls, var, &mut rng), Err(Error::Empty { .. })));
        assert!(matches!(matern32_draw(&x, -1.0, var, &mut rng), Err(Error::InvalidArgument { .. })));
    }
}
