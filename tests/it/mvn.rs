//! Multivariate normal CDFs, lin-ess and the SUN distribution against closed forms, finite
//! differences and Monte Carlo (`docs/papers/000-skew-gp.md`, section "Tests").
use std::f64::consts::PI;

use crate::common::*;
use burn_gp::mvn::{
    bvn_cdf, genz_log_cdf, gibbs_orthant, log_bvn_cdf, log_mvn_cdf, rejection_orthant, truncated_normal_above,
    ChainConfig, ChainStart, EllipticalSlice, LinEss, LinEssVariant, QmcPoints, Sun, TruncatedNormal,
};
use burn_gp::special::{log_ndtr, ndtri, ndtri_from_log, norm_cdf, norm_pdf};
use burn_gp::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;

fn identity(d: usize) -> Vec<f64> {
    (0..d * d).map(|k| if k / d == k % d { 1.0 } else { 0.0 }).collect()
}

fn equicorrelated(d: usize, rho: f64) -> Vec<f64> {
    (0..d * d).map(|k| if k / d == k % d { 1.0 } else { rho }).collect()
}

/// Differentiable `ln Φ̂` of one block, evaluated on the autodiff device.
fn tensor_log_cdf(a: &[f64], cov: &[f64], points: &QmcPoints) -> f64 {
    let d = a.len();
    let dev = device();
    let est = log_mvn_cdf(t2(a.to_vec(), 1, d, &dev), t3(cov.to_vec(), 1, d, d, &dev), points).unwrap();
    scalar(est.log_p)
}

#[test]
fn orthant_probabilities_of_independent_variables_are_exact() {
    let points = QmcPoints::lattice(39, 500, 10, 1).unwrap();
    for d in 1..=40 {
        let want = -(d as f64) * std::f64::consts::LN_2;
        let host = genz_log_cdf(&vec![0.0; d], &identity(d), &points).unwrap().log_p;
        let tens = tensor_log_cdf(&vec![0.0; d], &identity(d), &points);
        // relative error of Φ = 2^-d is |Δ ln Φ|
        assert!((host - want).abs() < 1e-12, "d {d}: host {host} vs {want}");
        assert!((tens - want).abs() < tol(1e-12, 1e-5), "d {d}: tensor {tens} vs {want}");
    }
}

#[test]
fn bivariate_and_trivariate_orthants_match_closed_forms() {
    let points = QmcPoints::lattice(2, 500, 10, 2).unwrap();
    let table = [(-0.9, 0.0717831), (-0.5, 0.1666667), (0.0, 0.25), (0.5, 0.3333333), (0.9, 0.4282169)];
    for (rho, want) in table {
        let exact = 0.25 + f64::asin(rho) / (2.0 * PI);
        assert!((exact - want).abs() < 1e-7);
        assert!((bvn_cdf(0.0, 0.0, rho) - exact).abs() < 1e-9, "bvn ρ {rho}");
        let genz = genz_log_cdf(&[0.0, 0.0], &[1.0, rho, rho, 1.0], &points).unwrap().log_p.exp();
        assert!((genz - exact).abs() < 1e-3, "genz ρ {rho}: {genz} vs {exact}");
    }
    let (r12, r13, r23) = (0.3_f64, 0.5_f64, -0.2_f64);
    let cov = [1.0, r12, r13, r12, 1.0, r23, r13, r23, 1.0];
    let want = 0.125 + (r12.asin() + r13.asin() + r23.asin()) / (4.0 * PI);
    assert!((want - 0.1748898).abs() < 1e-7);
    let genz = genz_log_cdf(&[0.0; 3], &cov, &points).unwrap().log_p.exp();
    assert!((genz - want).abs() < 1e-3, "{genz} vs {want}");
    assert!((burn_gp::mvn::trivariate_cdf(&[0.0; 3], &cov).unwrap() - want).abs() < 1e-12);
}

#[test]
fn equicorrelated_orthant_in_thirty_dimensions_is_one_over_31() {
    // Pr(all 30 exchangeable ρ = ½ normals ≤ 0) = 1/31; 5 000 points (500 × 10 shifts)
    let points = QmcPoints::lattice(29, 500, 10, 3).unwrap();
    let est = genz_log_cdf(&[0.0; 30], &equicorrelated(30, 0.5), &points).unwrap();
    let rel = (est.log_p.exp() * 31.0 - 1.0).abs();
    assert!(rel < 0.02, "relative error {rel} (se of ln P {})", est.std_err);
    let tens = tensor_log_cdf(&[0.0; 30], &equicorrelated(30, 0.5), &points);
    assert!((tens.exp() * 31.0 - 1.0).abs() < tol(0.02, 0.03));
}

#[test]
fn log_space_tails_stay_finite_and_accurate() {
    let want = -451.94995;
    assert!((30.0 * log_ndtr(-5.0) - want).abs() < 1e-5);
    assert!((log_ndtr(-5.0) + 15.0649984).abs() < 1e-7);
    let points = QmcPoints::lattice(29, 100, 4, 4).unwrap();
    let host = genz_log_cdf(&[-5.0; 30], &identity(30), &points).unwrap().log_p;
    assert!(((host - 30.0 * log_ndtr(-5.0)) / want).abs() < 1e-8, "{host}");
    let tens = tensor_log_cdf(&[-5.0; 30], &identity(30), &points);
    assert!(tens.is_finite() && ((tens - 30.0 * log_ndtr(-5.0)) / want).abs() < tol(1e-8, 1e-4), "{tens}");
    // correlated and far in the tail: still finite (e^{-450} underflows in linear space)
    let corr = genz_log_cdf(&[-5.0; 30], &equicorrelated(30, 0.3), &points).unwrap();
    assert!(corr.log_p.is_finite() && corr.log_p < -15.0 && corr.log_p > want, "{corr:?}");
    assert!(ndtri(1e-300).is_finite() && ndtri_from_log(-1000.0).is_finite() && log_ndtr(-40.0).is_finite());
}

/// A 4-variable problem with a clear greedy order (so a finite-difference step keeps it).
fn gradient_case() -> (Vec<f64>, Vec<f64>) {
    let a = vec![0.4, -0.9, 1.6, 0.1];
    let cov = vec![1.3, 0.4, 0.2, -0.3, 0.4, 1.0, 0.3, 0.1, 0.2, 0.3, 1.5, 0.25, -0.3, 0.1, 0.25, 0.9];
    (a, cov)
}

#[test]
fn genz_gradient_with_fixed_points_matches_finite_differences() {
    let (a, cov) = gradient_case();
    let d = a.len();
    let points = QmcPoints::lattice(3, 256, 4, 5).unwrap();
    let dev = ad_device();
    let at = t2(a.clone(), 1, d, &dev).require_grad();
    let ct = t3(cov.clone(), 1, d, d, &dev).require_grad();
    let est = log_mvn_cdf(at.clone(), ct.clone(), &points).unwrap();
    let grads = est.log_p.sum().backward();
    let (ga, gc) = (host(at.grad(&grads).unwrap()), host(ct.grad(&grads).unwrap()));
    let h = 1e-5;
    let fd_a = fd_grad(&a, h, |x| tensor_log_cdf(x, &cov, &points));
    assert!(max_rel_err(&ga, &fd_a, 1e-3) < 1e-4, "∂a: {ga:?} vs {fd_a:?}");
    // symmetric perturbations of Σ_ij = Σ_ji: the gradient is g_ij + g_ji off the diagonal
    for i in 0..d {
        for j in 0..=i {
            let f = |e: f64| {
                let mut c = cov.clone();
                c[i * d + j] += e;
                if i != j {
                    c[j * d + i] += e;
                }
                tensor_log_cdf(&a, &c, &points)
            };
            let fd = (f(h) - f(-h)) / (2.0 * h);
            let g = if i == j { gc[i * d + i] } else { gc[i * d + j] + gc[j * d + i] };
            assert!((g - fd).abs() < 1e-4 * fd.abs().max(1e-2), "Σ[{i},{j}]: {g} vs {fd}");
        }
    }
}

#[test]
fn genz_gradient_matches_the_analytic_limit_derivative() {
    // ∂Φ_d/∂a_i = φ(a_i/σ_i)/σ_i · Φ_{d−1}(conditional); checked on ∂ ln Φ = ∂Φ / Φ
    let (a, cov) = gradient_case();
    let d = a.len();
    let points = QmcPoints::lattice(3, 2000, 10, 6).unwrap();
    let dev = ad_device();
    let at = t2(a.clone(), 1, d, &dev).require_grad();
    let est = log_mvn_cdf(at.clone(), t3(cov.clone(), 1, d, d, &dev), &points).unwrap();
    let p = scalar(est.log_p.clone()).exp();
    let ga = host(at.grad(&est.log_p.sum().backward()).unwrap());
    for i in 0..d {
        let sii = cov[i * d + i];
        let rest: Vec<usize> = (0..d).filter(|&k| k != i).collect();
        let cond_a: Vec<f64> = rest.iter().map(|&k| a[k] - cov[k * d + i] * a[i] / sii).collect();
        let cond_c: Vec<f64> = rest
            .iter()
            .flat_map(|&k| rest.iter().map(move |&l| (k, l)))
            .map(|(k, l)| cov[k * d + l] - cov[k * d + i] * cov[i * d + l] / sii)
            .collect();
        let inner = burn_gp::mvn::trivariate_cdf(&cond_a, &cond_c).unwrap();
        let analytic = norm_pdf(a[i] / sii.sqrt()) / sii.sqrt() * inner / p;
        assert!((ga[i] - analytic).abs() < 1e-2 * analytic.abs(), "a[{i}]: {} vs {analytic}", ga[i]);
    }
}

#[test]
fn bivariate_log_cdf_op_gradient_matches_finite_differences() {
    let dev = ad_device();
    let (h, k, r) = (vec![0.3, -1.2], vec![-0.4, 0.8], vec![0.6, -0.85]);
    let (ht, kt, rt) = (
        t2(h.clone(), 1, 2, &dev).require_grad(),
        t2(k.clone(), 1, 2, &dev).require_grad(),
        t2(r.clone(), 1, 2, &dev).require_grad(),
    );
    let out = log_bvn_cdf(ht.clone(), kt.clone(), rt.clone());
    let vals = host(out.clone());
    let grads = out.sum().backward();
    let (gh, gk, gr) = (host(ht.grad(&grads).unwrap()), host(kt.grad(&grads).unwrap()), host(rt.grad(&grads).unwrap()));
    let eps = 1e-6;
    for i in 0..2 {
        assert!((vals[i] - bvn_cdf(h[i], k[i], r[i]).ln()).abs() < 1e-12);
        let f = |dh: f64, dk: f64, dr: f64| bvn_cdf(h[i] + dh, k[i] + dk, r[i] + dr).ln();
        let fd = [
            (f(eps, 0.0, 0.0) - f(-eps, 0.0, 0.0)) / (2.0 * eps),
            (f(0.0, eps, 0.0) - f(0.0, -eps, 0.0)) / (2.0 * eps),
            (f(0.0, 0.0, eps) - f(0.0, 0.0, -eps)) / (2.0 * eps),
        ];
        for (g, want) in [(gh[i], fd[0]), (gk[i], fd[1]), (gr[i], fd[2])] {
            assert!((g - want).abs() < 1e-7 * want.abs().max(1.0), "{g} vs {want}");
        }
    }
}

#[test]
fn bad_blocks_give_typed_errors_naming_the_block() {
    let dev = device();
    let points = QmcPoints::lattice(2, 64, 2, 0).unwrap();
    let good = [1.0, 0.2, 0.0, 0.2, 1.0, 0.1, 0.0, 0.1, 1.0];
    let indefinite = [1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let cov: Vec<f64> = good.iter().chain(&indefinite).copied().collect();
    let err = log_mvn_cdf(t2(vec![0.0; 6], 2, 3, &dev), t3(cov, 2, 3, 3, &dev), &points).unwrap_err();
    assert!(matches!(err, Error::NotPositiveDefinite { batch: 1, .. }), "{err}");
    let upper = vec![0.0, 0.0, 0.0, 0.1, f64::NAN, 0.0];
    let cov: Vec<f64> = good.iter().chain(&good).copied().collect();
    let err = log_mvn_cdf(t2(upper, 2, 3, &dev), t3(cov.clone(), 2, 3, 3, &dev), &points).unwrap_err();
    assert!(matches!(err, Error::NonFinite { index: 1, .. }), "{err}");
    // an estimate that is −∞ (upper limit −∞) names its block too
    let upper = vec![0.0, 0.0, 0.0, f64::NEG_INFINITY, 0.0, 0.0];
    let err = log_mvn_cdf(t2(upper, 2, 3, &dev), t3(cov.clone(), 2, 3, 3, &dev), &points).unwrap_err();
    assert!(matches!(err, Error::NonFinite { index: 1, ref context } if context.contains("block 1")), "{err}");
    let err =
        log_mvn_cdf(t2(vec![0.0; 6], 2, 3, &dev), t3(cov, 2, 3, 3, &dev), &QmcPoints::lattice(1, 8, 1, 0).unwrap());
    assert!(matches!(err, Err(Error::ShapeMismatch { .. })));
}

#[test]
fn lin_ess_never_breaks_a_constraint_and_gets_the_truncated_mean() {
    // N(0, 1) restricted to v > 0.5 (v + γ > 0 with γ = −0.5): mean φ(0.5)/(1 − Φ(0.5)) = 1.14108
    let want = norm_pdf(0.5) / (1.0 - norm_cdf(0.5));
    assert!((want - 1.14108).abs() < 1e-5);
    let dev = device();
    for variant in [LinEssVariant::ConnectedArc, LinEssVariant::FullUnion] {
        let target = TruncatedNormal::orthant(&[1.0], &[-0.5], &dev).unwrap();
        let config = ChainConfig { chains: 200, burn_in: 20, samples: 100_000, seed: 7 };
        let run = LinEss::new(target, variant).run(&config, None).unwrap();
        let v = host(run.samples);
        assert_eq!(v.len(), 100_000);
        assert_eq!(v.iter().filter(|x| x.is_nan() || **x <= 0.5).count(), 0, "{variant:?}: constraint violations");
        assert_eq!(run.proposals, 200 * (20 + 500));
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!((mean - want).abs() < 0.01, "{variant:?}: mean {mean} vs {want}");
    }
    // the plain ESS baseline gets it too, with more proposals per step
    let target = TruncatedNormal::orthant(&[1.0], &[-0.5], &dev).unwrap();
    let config = ChainConfig { chains: 200, burn_in: 20, samples: 40_000, seed: 8 };
    let run = EllipticalSlice::new(target).run(&config, None).unwrap();
    let v = host(run.samples);
    assert!(v.iter().all(|x| *x > 0.5));
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    assert!((mean - want).abs() < 0.02, "ESS mean {mean}");
    assert!(run.proposals > 200 * 220);
}

#[test]
fn lin_ess_with_a_general_constraint_matrix() {
    // x ~ N(0, I₂) on the half-plane x₁ + x₂ > 1: x₁ + x₂ ~ N(0, 2) truncated at 1
    let dev = device();
    let target = TruncatedNormal::new(&identity(2), Some(&[1.0, 1.0]), &[-1.0], &dev).unwrap();
    let config = ChainConfig { chains: 100, burn_in: 20, samples: 40_000, seed: 9 };
    let run = LinEss::new(target.clone(), LinEssVariant::FullUnion).run(&config, Some(&[1.0, 1.0])).unwrap();
    let v = host(run.samples);
    let sums: Vec<f64> = v.chunks(2).map(|p| p[0] + p[1]).collect();
    assert!(sums.iter().all(|s| *s > 1.0));
    let z = 1.0 / 2f64.sqrt();
    let want = 2f64.sqrt() * norm_pdf(z) / (1.0 - norm_cdf(z));
    let mean = sums.iter().sum::<f64>() / sums.len() as f64;
    assert!((mean - want).abs() < 0.02, "{mean} vs {want}");
    assert!(LinEss::new(target, LinEssVariant::FullUnion).run(&config, None).is_err(), "a general A needs a start");
}

/// A SUN_{1,2} with valid random-looking parameters.
fn sun12() -> Sun {
    Sun::new(&[0.3], &[1.8], &[0.5, -0.3], &[-0.2, 0.6], &[1.0, 0.25, 0.25, 1.0]).unwrap()
}

#[test]
fn sun_density_integrates_to_one_and_matches_its_cdf() {
    let sun = sun12();
    let points = QmcPoints::lattice(4, 100, 2, 0).unwrap();
    let sd = 1.8f64.sqrt();
    let pdf = |z: f64| sun.log_pdf(&[z], &points).unwrap().exp();
    let lo = 0.3 - 12.0 * sd;
    let breaks: Vec<f64> = (0..=48).map(|i| lo + i as f64 * 0.5 * sd).collect();
    let total = burn_gp::mvn::integrate(pdf, &breaks, 1e-13);
    assert!((total - 1.0).abs() < 1e-6, "∫ density = {total}");
    for z in [-1.5, -0.2, 0.3, 1.1, 2.5] {
        let cut: Vec<f64> = breaks.iter().copied().filter(|b| *b < z).chain(std::iter::once(z)).collect();
        let integral = burn_gp::mvn::integrate(pdf, &cut, 1e-13);
        let cdf = sun.log_cdf(&[z], &points).unwrap().exp();
        assert!((cdf - integral).abs() < 1e-5, "z {z}: CDF {cdf} vs ∫ density {integral}");
    }
}

#[test]
fn sun_additive_draws_match_its_cdf_and_mean() {
    let dev = device();
    let points = QmcPoints::lattice(4, 100, 2, 0).unwrap();
    let sun = sun12();
    let n = 1_000_000;
    let draws = sun.sample(n, 11, &dev).unwrap();
    for z in [-1.5, -0.2, 0.3, 1.1, 2.5] {
        let emp = draws.iter().filter(|d| **d <= z).count() as f64 / n as f64;
        let cdf = sun.log_cdf(&[z], &points).unwrap().exp();
        assert!((emp - cdf).abs() < 3e-3, "z {z}: empirical {emp} vs {cdf}");
    }
    // SUN_{1,1}(0.3, 2, 0.6, −0.5, 1): mean ξ + D Δ φ(γ)/Φ(γ) = 1.26824
    let sun = Sun::new(&[0.3], &[2.0], &[0.6], &[-0.5], &[1.0]).unwrap();
    let want = 0.3 + 2f64.sqrt() * 0.6 * norm_pdf(-0.5) / norm_cdf(-0.5);
    assert!((want - 1.26824).abs() < 1e-5);
    let draws = sun.sample(200_000, 12, &dev).unwrap();
    let mean = draws.iter().sum::<f64>() / draws.len() as f64;
    let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
    let se = sd / (draws.len() as f64).sqrt();
    assert!((mean - want).abs() < 4.0 * se, "mean {mean} vs {want} (se {se})");
}

#[test]
fn sun_rejects_an_invalid_joint_matrix() {
    // |Δ| too large for the correlation structure: M = [[1, 0.9, 0.9], [0.9, 1, −0.5], [0.9, −0.5, 1]] is not PD
    let err = Sun::new(&[0.0, 0.0], &[1.0, -0.5, -0.5, 1.0], &[0.9, 0.9], &[0.0], &[1.0]).unwrap_err();
    assert!(matches!(err, Error::NotPositiveDefinite { .. }), "{err}");
    assert!(matches!(Sun::new(&[0.0], &[1.0, 2.0], &[], &[], &[]), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn gibbs_orthant_matches_closed_forms_and_rejection_moments() {
    let mut rng = StdRng::seed_from_u64(3);
    // one-dimensional tail: E[x | x > 10] = φ(10)/Φ(−10) for x ~ N(0, 1)
    let draws: Vec<f64> = (0..20_000).map(|_| truncated_normal_above(0.0, 1.0, 10.0, &mut rng)).collect();
    assert!(draws.iter().all(|v| *v > 10.0));
    let want = norm_pdf(10.0) / norm_cdf(-10.0);
    let got = draws.iter().sum::<f64>() / draws.len() as f64;
    assert!((got - want).abs() < 0.005, "tail mean {got} vs {want}");
    // independent coordinates far in the tail (acceptance ≈ 8e-6): closed-form means
    let eye = faer::Mat::<f64>::identity(2, 2);
    let gamma = [-3.0, -2.5];
    let n = 20_000;
    let mut mean = [0.0; 2];
    for _ in 0..n {
        let v = gibbs_orthant(eye.as_ref(), &gamma, 5, &mut rng);
        assert!(v.iter().zip(&gamma).all(|(v, g)| v + g > 0.0));
        mean[0] += v[0] / n as f64;
        mean[1] += v[1] / n as f64;
    }
    for i in 0..2 {
        let want = norm_pdf(gamma[i]) / norm_cdf(gamma[i]);
        assert!((mean[i] - want).abs() < 0.01, "coordinate {i}: {} vs {want}", mean[i]);
    }
    // correlated (ρ = −0.6) with moderate acceptance: Gibbs (50 sweeps) against rejection
    let rho: f64 = -0.6;
    let l = faer::Mat::from_fn(2, 2, |i, j| match (i, j) {
        (0, 0) => 1.0,
        (1, 0) => rho,
        (1, 1) => (1.0 - rho * rho).sqrt(),
        _ => 0.0,
    });
    let gamma = [-0.8, -0.5];
    let reference = rejection_orthant(l.as_ref(), &gamma, n, &mut rng).unwrap();
    let mut gibbs = [0.0; 2];
    let mut second = [0.0; 2];
    for _ in 0..n {
        let v = gibbs_orthant(l.as_ref(), &gamma, 50, &mut rng);
        for i in 0..2 {
            gibbs[i] += v[i] / n as f64;
            second[i] += v[i] * v[i] / n as f64;
        }
    }
    for i in 0..2 {
        let r: Vec<f64> = reference.iter().skip(i).step_by(2).copied().collect();
        let rm = r.iter().sum::<f64>() / n as f64;
        let r2 = r.iter().map(|v| v * v).sum::<f64>() / n as f64;
        assert!((gibbs[i] - rm).abs() < 0.02, "mean {i}: Gibbs {} vs rejection {rm}", gibbs[i]);
        assert!((second[i] - r2).abs() < 0.04, "second moment {i}: Gibbs {} vs rejection {r2}", second[i]);
    }
}

#[test]
fn sequential_starts_are_feasible_and_exact_draws_where_ghk_is_exact() {
    let dev = device();
    let mut rng = StdRng::seed_from_u64(21);
    // One constraint: N(0, 1) on v > 0.5, the starts are exact draws (mean 1.14108).
    let target = TruncatedNormal::orthant(&[1.0], &[-0.5], &dev).unwrap();
    let v = target.starts(20_000, ChainStart::Sequential, &mut rng).unwrap().unwrap();
    assert!(v.iter().all(|x| *x > 0.5));
    let want = norm_pdf(0.5) / (1.0 - norm_cdf(0.5));
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    assert!((mean - want).abs() < 0.02, "mean {mean} vs {want}");
    // Independent coordinates with scales 1, 2, 0.5 and bounds 0.5, −1, 2: exact per coordinate.
    let l = [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.5];
    let b = [-0.5, 1.0, -2.0];
    let target = TruncatedNormal::orthant(&l, &b, &dev).unwrap();
    let v = target.starts(20_000, ChainStart::Sequential, &mut rng).unwrap().unwrap();
    for (i, sd) in [1.0, 2.0, 0.5].into_iter().enumerate() {
        let z = -b[i] / sd;
        let want = sd * norm_pdf(z) / (1.0 - norm_cdf(z));
        let mean = v.iter().skip(i).step_by(3).sum::<f64>() / 20_000.0;
        assert!((mean - want).abs() < 0.03 * sd, "coordinate {i}: mean {mean} vs {want}");
    }
    // 150 strongly correlated coordinates, each above 1: every start strictly feasible, and
    // lin-ess runs from them (one start per chain).
    let d = 150;
    let cov: Vec<f64> = (0..d * d)
        .map(|k| {
            let (i, j) = ((k / d) as f64, (k % d) as f64);
            (-(i - j).powi(2) / (2.0 * 15f64.powi(2))).exp() + if i == j { 1e-4 } else { 0.0 }
        })
        .collect();
    let (l, _) = burn_gp::linalg::host::cholesky_batch(&cov, 1, d).unwrap();
    let target = TruncatedNormal::orthant(&l, &vec![-1.0; d], &dev).unwrap();
    let starts = target.starts(8, ChainStart::Sequential, &mut rng).unwrap().unwrap();
    assert!(starts.iter().all(|x| *x > 1.0));
    let config = ChainConfig { chains: 8, burn_in: 5, samples: 80, seed: 3 };
    let run = LinEss::new(target.clone(), LinEssVariant::ConnectedArc).run(&config, Some(&starts)).unwrap();
    assert!(host(run.samples).iter().all(|x| *x > 1.0));
    assert_eq!(target.starts(8, ChainStart::Dispersed, &mut rng).unwrap(), None);
    // Wrong start lengths and a general A are typed errors.
    let err = LinEss::new(target, LinEssVariant::ConnectedArc).run(&config, Some(&starts[1..])).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { .. }), "{err}");
    let general = TruncatedNormal::new(&identity(2), Some(&[1.0, 1.0]), &[-1.0], &dev).unwrap();
    assert!(matches!(general.starts(2, ChainStart::Sequential, &mut rng), Err(Error::InvalidArgument { .. })));
}
