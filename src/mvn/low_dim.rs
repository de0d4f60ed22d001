//! Deterministic normal CDFs in one, two and three dimensions (host f64), and the gradient of
//! the bivariate one.
//!
//! `Φ₂(a, b; ρ) = ∫_{−∞}^{a} φ(x) Φ((b − ρx)/√(1 − ρ²)) dx` with `a ≤ b` (the CDF is symmetric),
//! by adaptive Gauss–Legendre with break points at the kink `x = b/ρ` of the inner `Φ`; the
//! integrand is positive, so the result keeps its relative accuracy (about 1e-14) in the tails
//! too, as long as it does not underflow. `Φ₃` conditions on its first variable the same way,
//! with `Φ₂` inside.
use super::quadrature::{breakpoints, integrate};
use crate::error::{Error, Result};
use crate::special::{log_ndtr, norm_cdf, norm_pdf};

/// Relative tolerance of the adaptive quadratures.
const REL_TOL: f64 = 1e-14;
/// Integration range below the smaller limit, in standard deviations.
const TAIL: f64 = 12.0;
/// Panel width of the initial subdivision.
const PANEL: f64 = 1.0;

/// `Φ₂(a, b; ρ) = Pr(X ≤ a, Y ≤ b)` for standard normals with correlation `ρ ∈ [−1, 1]`.
///
/// Infinite limits are allowed (`+∞` drops a variable, `−∞` gives 0); `ρ = ±1` is the degenerate
/// limit. NaN inputs give NaN.
pub fn bvn_cdf(a: f64, b: f64, rho: f64) -> f64 {
    if a.is_nan() || b.is_nan() || rho.is_nan() {
        return f64::NAN;
    }
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    if a == f64::NEG_INFINITY {
        return 0.0;
    }
    if b == f64::INFINITY {
        return norm_cdf(a);
    }
    if rho == 0.0 {
        return norm_cdf(a) * norm_cdf(b);
    }
    if rho >= 1.0 {
        return norm_cdf(a);
    }
    if rho <= -1.0 {
        return (norm_cdf(a) - norm_cdf(-b)).max(0.0);
    }
    let s = ((1.0 - rho) * (1.0 + rho)).sqrt();
    let lo = a.min(0.0) - TAIL;
    let kink = b / rho;
    let f = |x: f64| norm_pdf(x) * norm_cdf((b - rho * x) / s);
    integrate(f, &breakpoints(lo, a.min(40.0), &[kink, kink - 4.0 * s, kink + 4.0 * s], PANEL), REL_TOL)
}

/// Below this, [`log_bvn_cdf`] integrates in log space instead of taking the log of [`bvn_cdf`].
const LOG_SPACE_BELOW: f64 = 1e-200;
/// Grid points used to locate the maximum of the log integrand.
const LOG_GRID: usize = 400;

/// `ln Φ₂(a, b; ρ)`, finite wherever `Φ₂ > 0` mathematically: the log of [`bvn_cdf`] where that is
/// above `1e-200`, else the same integral `∫ exp(g(x)) dx`, `g(x) = ln φ(x) + ln Φ((b − ρx)/s)`,
/// scaled by the maximum of the (concave) `g` before integrating, so that it cannot underflow.
pub(crate) fn log_bvn_cdf(a: f64, b: f64, rho: f64) -> f64 {
    let p = bvn_cdf(a, b, rho);
    if p.is_nan() || p > LOG_SPACE_BELOW {
        return p.ln();
    }
    let (a, b) = if a <= b { (a, b) } else { (b, a) };
    if a == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if b == f64::INFINITY || rho >= 1.0 {
        return log_ndtr(a);
    }
    if rho == 0.0 {
        return log_ndtr(a) + log_ndtr(b);
    }
    if rho <= -1.0 {
        // Φ(a) − Φ(−b) = Φ(a)(1 − Φ(−b)/Φ(a)), positive only when a > −b
        let (la, lb) = (log_ndtr(a), log_ndtr(-b));
        return if la > lb { la + (-(lb - la).exp()).ln_1p() } else { f64::NEG_INFINITY };
    }
    log_space_integral(a, b, rho)
}

/// `ln ∫_{−∞}^{a} exp(g(x)) dx` with `g(x) = ln φ(x) + ln Φ((b − ρx)/s)` (`= ln Φ₂(a, b; ρ)`) for
/// `a ≤ b`, `0 < |ρ| < 1`: `g` is concave, so its maximum over a grid scales the integrand to at
/// most about 1 before the adaptive rule of [`bvn_cdf`] integrates it.
fn log_space_integral(a: f64, b: f64, rho: f64) -> f64 {
    let s = ((1.0 - rho) * (1.0 + rho)).sqrt();
    let (lo, hi) = (a.min(0.0) - TAIL, a.min(40.0));
    let g = |x: f64| -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln() + log_ndtr((b - rho * x) / s);
    let top = (0..=LOG_GRID).map(|i| g(lo + (hi - lo) * i as f64 / LOG_GRID as f64)).fold(f64::NEG_INFINITY, f64::max);
    let kink = b / rho;
    let scaled = |x: f64| (g(x) - top).exp();
    top + integrate(scaled, &breakpoints(lo, hi, &[kink, kink - 4.0 * s, kink + 4.0 * s], PANEL), REL_TOL).ln()
}

/// The gradient `(∂/∂a, ∂/∂b, ∂/∂ρ)` of `ln Φ₂(a, b; ρ)` for `|ρ| < 1`, formed in log space
/// (each partial of [`bvn_cdf_grad`] divided by `Φ₂` as a difference of logs), so that it stays
/// finite where `Φ₂` underflows.
pub(crate) fn log_bvn_cdf_grad(a: f64, b: f64, rho: f64) -> (f64, f64, f64) {
    let lp = log_bvn_cdf(a, b, rho);
    let s2 = (1.0 - rho) * (1.0 + rho);
    let s = s2.sqrt();
    let ln_pdf = |x: f64| -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln();
    let da = (ln_pdf(a) + log_ndtr((b - rho * a) / s) - lp).exp();
    let db = (ln_pdf(b) + log_ndtr((a - rho * b) / s) - lp).exp();
    let q = (a * a - 2.0 * rho * a * b + b * b) / s2;
    let dr = (-0.5 * q - (2.0 * std::f64::consts::PI * s).ln() - lp).exp();
    (da, db, dr)
}

/// The gradient `(∂/∂a, ∂/∂b, ∂/∂ρ)` of `Φ₂(a, b; ρ)` for `|ρ| < 1`:
/// `φ(a)Φ((b − ρa)/s)`, `φ(b)Φ((a − ρb)/s)` and the bivariate density `φ₂(a, b; ρ)`, `s = √(1 − ρ²)`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn bvn_cdf_grad(a: f64, b: f64, rho: f64) -> (f64, f64, f64) {
    let s2 = (1.0 - rho) * (1.0 + rho);
    let s = s2.sqrt();
    let da = norm_pdf(a) * norm_cdf((b - rho * a) / s);
    let db = norm_pdf(b) * norm_cdf((a - rho * b) / s);
    let q = (a * a - 2.0 * rho * a * b + b * b) / s2;
    let dr = (-0.5 * q).exp() / (2.0 * std::f64::consts::PI * s);
    (da, db, dr)
}

/// `Φ₃(a; Σ)` for a 3×3 covariance (row-major): the first variable is integrated out by adaptive
/// quadrature, with the conditional `Φ₂` of the other two inside.
pub fn trivariate_cdf(a: &[f64], cov: &[f64]) -> Result<f64> {
    if a.len() != 3 || cov.len() != 9 {
        return Err(Error::shape("trivariate_cdf", "a [3], cov [3, 3]", [a.len(), cov.len()]));
    }
    crate::error::check_finite("trivariate_cdf: cov", cov)?;
    let sd: Vec<f64> = (0..3).map(|i| cov[i * 4].sqrt()).collect();
    if sd.iter().any(|s| s.is_nan() || *s <= 0.0) {
        return Err(Error::NotPositiveDefinite { n: 3, jitter: 0.0, batch: 0 });
    }
    // standardise; put the smallest limit first (integrated over)
    let z: Vec<f64> = (0..3).map(|i| a[i] / sd[i]).collect();
    let r = |i: usize, j: usize| cov[i * 3 + j] / (sd[i] * sd[j]);
    let first = (0..3).min_by(|&i, &j| z[i].total_cmp(&z[j])).unwrap_or(0);
    let (p, q) = match first {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let (r1p, r1q, rpq) = (r(first, p), r(first, q), r(p, q));
    let (vp, vq) = (1.0 - r1p * r1p, 1.0 - r1q * r1q);
    if !(vp > 0.0 && vq > 0.0) {
        return Err(Error::NotPositiveDefinite { n: 3, jitter: 0.0, batch: 0 });
    }
    let (sp, sq) = (vp.sqrt(), vq.sqrt());
    let rho = (rpq - r1p * r1q) / (sp * sq);
    if rho.is_nan() || rho.abs() >= 1.0 {
        return Err(Error::NotPositiveDefinite { n: 3, jitter: 0.0, batch: 0 });
    }
    let x1 = z[first];
    if x1 == f64::NEG_INFINITY {
        return Ok(0.0);
    }
    let f = |x: f64| norm_pdf(x) * bvn_cdf((z[p] - r1p * x) / sp, (z[q] - r1q * x) / sq, rho);
    let lo = x1.min(0.0) - TAIL;
    let kinks: Vec<f64> = [(z[p], r1p), (z[q], r1q)].iter().filter(|(_, c)| *c != 0.0).map(|(zz, c)| zz / c).collect();
    Ok(integrate(f, &breakpoints(lo, x1.min(40.0), &kinks, PANEL), REL_TOL))
}

/// `ln Φ_d(a; Σ)` exactly (to quadrature accuracy) for `d ≤ 3`; `None` for larger `d`.
pub(crate) fn log_mvn_cdf_exact(a: &[f64], cov: &[f64]) -> Result<Option<f64>> {
    let d = a.len();
    if cov.len() != d * d {
        return Err(Error::shape("log_mvn_cdf_exact: cov", [d, d], [cov.len()]));
    }
    let sd = |i: usize| cov[i * d + i].sqrt();
    Ok(match d {
        0 => Some(0.0),
        1 => Some(log_ndtr(a[0] / sd(0))),
        2 => {
            let (s0, s1) = (sd(0), sd(1));
            Some(log_bvn_cdf(a[0] / s0, a[1] / s1, (cov[1] / (s0 * s1)).clamp(-1.0, 1.0)))
        }
        3 => Some(trivariate_cdf(a, cov)?.ln()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn bivariate_orthants_match_the_arcsine_law() {
        for rho in [-0.999_f64, -0.9, -0.5, 0.0, 0.3, 0.5, 0.9, 0.9999] {
            let want = 0.25 + rho.asin() / (2.0 * PI);
            let got = bvn_cdf(0.0, 0.0, rho);
            assert!((got - want).abs() < 1e-14, "ρ {rho}: {got} vs {want}");
        }
    }

    #[test]
    fn bivariate_limits_and_gradient() {
        assert!((bvn_cdf(1.3, 40.0, 0.6) - norm_cdf(1.3)).abs() < 1e-15);
        assert_eq!(bvn_cdf(f64::NEG_INFINITY, 0.0, 0.5), 0.0);
        assert!((bvn_cdf(0.4, -0.2, 0.0) - norm_cdf(0.4) * norm_cdf(-0.2)).abs() < 1e-16);
        // far tail keeps relative accuracy: Φ₂(−10, 40; ρ) = Φ(−10)
        let t = bvn_cdf(-10.0, 40.0, -0.7);
        assert!((t / norm_cdf(-10.0) - 1.0).abs() < 1e-12, "{t}");
        let h = 1e-6;
        for (a, b, r) in [(0.3, -0.8, 0.6), (-1.2, 0.5, -0.85), (2.0, 1.0, 0.97)] {
            let (da, db, dr) = bvn_cdf_grad(a, b, r);
            let fa = (bvn_cdf(a + h, b, r) - bvn_cdf(a - h, b, r)) / (2.0 * h);
            let fb = (bvn_cdf(a, b + h, r) - bvn_cdf(a, b - h, r)) / (2.0 * h);
            let fr = (bvn_cdf(a, b, r + h) - bvn_cdf(a, b, r - h)) / (2.0 * h);
            for (x, y) in [(da, fa), (db, fb), (dr, fr)] {
                assert!((x - y).abs() < 1e-9 + 1e-7 * y.abs(), "{x} vs {y}");
            }
        }
    }

    #[test]
    fn log_space_bivariate_matches_where_both_work_and_stays_finite_beyond() {
        // where Φ₂ is small but representable, the log-space integral equals ln Φ₂
        for &(a, b, rho) in &[(-6.0, -7.0, 0.3), (-1.7, -3.0, -0.9), (-9.0, -2.0, -0.5), (-12.0, -12.0, 0.8)] {
            let p = bvn_cdf(a, b, rho);
            assert!(p > 0.0 && p < 1e-5, "{p}");
            let (direct, via_log) = (p.ln(), log_space_integral(a.min(b), a.max(b), rho));
            assert!((via_log - direct).abs() < 1e-10 * direct.abs(), "({a}, {b}, {rho}): {via_log} vs {direct}");
        }
        // the case that made training fail: Φ₂ ≈ 1e-330 underflows, its log does not
        let (a, b, rho) = (-1.6929488400218782, -3.03531378297026, -0.9926985508802465);
        assert_eq!(bvn_cdf(a, b, rho), 0.0);
        let lp = log_bvn_cdf(a, b, rho);
        assert!(lp.is_finite() && lp < -700.0, "{lp}");
        let (ga, gb, gr) = log_bvn_cdf_grad(a, b, rho);
        let h = 1e-6;
        let fd = |da: f64, db: f64, dr: f64| {
            (log_bvn_cdf(a + da, b + db, rho + dr) - log_bvn_cdf(a - da, b - db, rho - dr)) / (2.0 * h)
        };
        for (g, f) in [(ga, fd(h, 0.0, 0.0)), (gb, fd(0.0, h, 0.0)), (gr, fd(0.0, 0.0, h))] {
            assert!(g.is_finite() && (g - f).abs() < 1e-5 * f.abs().max(1.0), "{g} vs {f}");
        }
    }

    #[test]
    fn trivariate_orthant_matches_the_closed_form() {
        let (r12, r13, r23): (f64, f64, f64) = (0.3, 0.5, -0.2);
        let cov = [1.0, r12, r13, r12, 1.0, r23, r13, r23, 1.0];
        let want = 0.125 + (r12.asin() + r13.asin() + r23.asin()) / (4.0 * PI);
        let got = trivariate_cdf(&[0.0; 3], &cov).unwrap();
        assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        // scaling the variables with the limits leaves it unchanged
        let s = [2.0, 0.5, 3.0];
        let scov: Vec<f64> = (0..9).map(|k| cov[k] * s[k / 3] * s[k % 3]).collect();
        let got = trivariate_cdf(&[0.0; 3], &scov).unwrap();
        assert!((got - want).abs() < 1e-13);
        assert!(trivariate_cdf(&[0.0; 3], &[1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0]).is_err());
    }
}
