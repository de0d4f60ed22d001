//! Problems, models and gradient helpers shared by the EP classifier tests
//! (`tests/ep_classifier.rs`, `tests/ep_training.rs`).
#![allow(dead_code)]
use burn::tensor::{Device, Gradients, Tensor, TensorData};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::models::ep::{
    cavity, frozen_posterior, mills_and_gap, run_ep, EpGpClassifier, EpGpClassifierConfig, EpSites, Fitc,
    WhitenedPosterior,
};
use burn_gp::train::TrainConfig;

use crate::common::{host, uniform};

/// Toy A inputs and labels (`docs/papers/001-ep-classification.md`, section "Toy A and test coordinates").
pub fn toy_a() -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..20).map(|i| -3.0 + 6.0 * i as f64 / 19.0).collect();
    let y = x.iter().map(|&x| if (1.3 * x + 0.4f64).sin() > 0.0 { 1.0 } else { -1.0 }).collect();
    (x, y)
}

/// `model` with `schedule`'s EP schedule, and the paper's training settings for its mode with
/// `epochs` iterations (batch modes) or epochs (minibatch mode), without a progress bar.
pub fn scheduled(
    model: EpGpClassifier<Rbf>,
    schedule: &EpGpClassifierConfig,
    epochs: usize,
) -> (EpGpClassifier<Rbf>, TrainConfig) {
    let config = schedule.paper_train_config().with_epochs(epochs).with_progress(false);
    (model.with_ep_schedule(schedule).unwrap(), config)
}

/// Toy A's inducing inputs.
pub const TOY_Z: [f64; 5] = [-2.5, -1.2, 0.1, 1.3, 2.6];

/// A random `d`-dimensional problem: `n` points in [−2, 2]^d, labels from the sign of the smooth
/// `sin(1.5x₁) + 0.7x₂ + Σ_{j>2} ±0.4x_j` with 10 % flipped, `m` inducing inputs at random
/// locations (not at data points). Row-major inputs, ±1 labels, row-major inducing inputs.
pub fn random_problem_d(n: usize, m: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = uniform(d * n, seed).into_iter().map(|v| 2.0 * v).collect();
    let flip = uniform(n, seed + 1);
    let y = (0..n)
        .map(|i| {
            let row = &x[d * i..d * (i + 1)];
            let extra: f64 =
                row.iter().enumerate().skip(2).map(|(j, v)| if j % 2 == 0 { 0.4 * v } else { -0.4 * v }).sum();
            let f = (1.5 * row[0]).sin() + 0.7 * row[1] + extra;
            let s = if f > 0.0 { 1.0 } else { -1.0 };
            if flip[i] > 0.8 {
                -s
            } else {
                s
            }
        })
        .collect();
    let z = uniform(d * m, seed + 2).into_iter().map(|v| 1.8 * v).collect();
    (x, y, z)
}

/// [`random_problem_d`] in 2-D.
pub fn random_problem(n: usize, m: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    random_problem_d(n, m, 2, seed)
}

/// [`random_problem`] with its inputs also as a `[n, 2]` tensor on `dev`.
pub fn random_problem_on(n: usize, m: usize, seed: u64, dev: &Device) -> (Vec<f64>, Vec<f64>, Vec<f64>, Tensor<2>) {
    let (x, y, z) = random_problem(n, m, seed);
    let xt = rows(&x, 2, dev);
    (x, y, z, xt)
}

/// The Toy A classifier: σ² = 2, ℓ² = `ell2`, σ0² = `noise`, inducing inputs `z`, no jitter.
pub fn toy_model(z: &[f64], ell2: f64, noise: f64, dev: &Device) -> EpGpClassifier<Rbf> {
    let kernel = Rbf::new(&[ell2.sqrt()], 2.0, dev).unwrap();
    let inducing = InducingPoints::new(z, z.len(), 1, dev).unwrap();
    EpGpClassifier::new(kernel, inducing, noise, 0.0, dev).unwrap()
}

/// The 2-D classifier of the random problems: ℓ = (0.9, 1.3), σ² = 1.5, σ0² = 1e-3, no jitter.
pub fn model_2d(z: &[f64], dev: &Device) -> EpGpClassifier<Rbf> {
    let kernel = Rbf::new(&[0.9, 1.3], 1.5, dev).unwrap();
    let inducing = InducingPoints::new(z, z.len() / 2, 2, dev).unwrap();
    EpGpClassifier::new(kernel, inducing, 1e-3, 0.0, dev).unwrap()
}

/// The classifier at test coordinates `ξ = (log σ², log σ0², log ℓ²_1..d, Z row-major)`, no jitter
/// (`docs/papers/001-ep-classification.md`, section "Toy A and test coordinates").
pub fn model_at(xi: &[f64], d: usize, dev: &Device) -> EpGpClassifier<Rbf> {
    let ell: Vec<f64> = xi[2..2 + d].iter().map(|v| (0.5 * v).exp()).collect();
    let z = &xi[2 + d..];
    let kernel = Rbf::new(&ell, xi[0].exp(), dev).unwrap();
    let inducing = InducingPoints::new(z, z.len() / d, d, dev).unwrap();
    EpGpClassifier::new(kernel, inducing, xi[1].exp(), 0.0, dev).unwrap()
}

/// `ξ` of `model` in test coordinates (the inverse of [`model_at`]).
pub fn test_coordinates(model: &EpGpClassifier<Rbf>) -> Vec<f64> {
    let mut xi = vec![host(model.kernel.params.variance.value())[0].ln(), host(model.log_noise.val())[0]];
    xi.extend(host(model.kernel.params.lengthscales.value()).iter().map(|l| 2.0 * l.ln()));
    xi.extend(host(model.inducing.z()));
    xi
}

/// A `[n, d]` tensor from row-major values.
pub fn rows(v: &[f64], d: usize, dev: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(v.to_vec(), [v.len() / d, d]), dev)
}

/// A `[n, 1]` tensor.
pub fn column(v: &[f64], dev: &Device) -> Tensor<2> {
    rows(v, 1, dev)
}

/// EP at fixed hyperparameters to (near) machine precision from zero sites.
pub fn converge(fitc: &Fitc, y: &[f64]) -> EpSites {
    converge_from(fitc, y, EpSites::zeros(fitc.len()), 1e-14)
}

/// EP at fixed hyperparameters to `tol`, warm-started from `sites`.
pub fn converge_from(fitc: &Fitc, y: &[f64], mut sites: EpSites, tol: f64) -> EpSites {
    let (passes, report) = run_ep(fitc, y, &mut sites, 0.5, tol, 5000).unwrap();
    assert!(report.max_change < tol, "EP did not converge in {passes} passes: {report:?}");
    sites
}

/// Gradients of `model`'s parameters (Burn's softplus-positive kernel parameters, `log σ0²`, `Z`)
/// converted to test coordinates `(log σ², log σ0², log ℓ²_1..d, Z)`; zero for frozen ones.
pub fn coordinates_gradient(model: &EpGpClassifier<Rbf>, grads: &Gradients) -> Vec<f64> {
    let sigmoid = |r: f64| 1.0 / (1.0 + (-r).exp());
    let var_raw = host(model.kernel.params.variance.raw())[0];
    let ell_raw = host(model.kernel.params.lengthscales.raw());
    let var = host(model.kernel.params.variance.value())[0];
    let ell = host(model.kernel.params.lengthscales.value());
    let g_var = host(model.kernel.params.variance.raw().grad(grads).unwrap())[0];
    let g_ell = host(model.kernel.params.lengthscales.raw().grad(grads).unwrap());
    let mut out = vec![var * g_var / sigmoid(var_raw)];
    out.push(model.log_noise.val().grad(grads).map_or(0.0, |g| host(g)[0]));
    // d/d log ℓ² = ½ ℓ d/dℓ
    out.extend(ell.iter().zip(&g_ell).zip(&ell_raw).map(|((l, g), r)| 0.5 * l * g / sigmoid(*r)));
    let z = model.inducing.z.val();
    let zeros = vec![0.0; z.shape().num_elements()];
    out.extend(z.grad(grads).map_or(zeros, host));
    out
}

/// ∇L̃ (the surrogate, paper eq. 4) at the given sites, in test coordinates; `model` lives on an
/// autodiff device and `x` is row-major `[n, d]`.
pub fn surrogate_gradient(model: &EpGpClassifier<Rbf>, x: &[f64], d: usize, y: &[f64], sites: &EpSites) -> Vec<f64> {
    let ad = model.inducing.z().device();
    let fitc = model.fitc(&rows(x, d, &ad)).unwrap();
    let q = WhitenedPosterior::from_sites(&fitc, &sites.nu, &sites.mu).unwrap();
    let p = q.project(fitc.psi.as_ref());
    let cav: Vec<_> = (0..y.len()).map(|i| cavity(p.t_hat[i], p.v_hat[i], sites.nu[i], sites.mu[i])).collect();
    let frozen = frozen_posterior(&q, &fitc, &p, &cav);
    let loss = model.surrogate(rows(x, d, &ad), y, &frozen, 1.0).unwrap();
    coordinates_gradient(model, &loss.backward())
}

/// ∇ log Z_q(ξ) with the sites held fixed (autodiff of the tensor energy), in test coordinates.
pub fn fixed_site_gradient(
    model: &EpGpClassifier<Rbf>,
    x: &[f64],
    d: usize,
    y: &[f64],
    sites: &EpSites,
) -> (f64, Vec<f64>) {
    let ad = model.inducing.z().device();
    let energy = model.log_z_q_at_sites(rows(x, d, &ad), y, sites).unwrap();
    let value = energy.clone().into_scalar::<f64>();
    (value, coordinates_gradient(model, &energy.backward()))
}

/// Class indices of ±1 targets: −1 → 0, +1 → 1 (the classifiers' label convention).
#[allow(dead_code)]
pub fn classes(y: &[f64]) -> Vec<usize> {
    y.iter().map(|&v| usize::from(v > 0.0)).collect()
}

/// Dense inverse and log-determinant of a small SPD matrix (Gauss–Jordan; test reference only).
pub fn inverse_logdet(a: &[f64], m: usize) -> (Vec<f64>, f64) {
    let mut w = a.to_vec();
    let mut inv: Vec<f64> = (0..m * m).map(|k| if k / m == k % m { 1.0 } else { 0.0 }).collect();
    let mut logdet = 0.0;
    for col in 0..m {
        let piv = w[col * m + col];
        logdet += piv.ln();
        for j in 0..m {
            w[col * m + j] /= piv;
            inv[col * m + j] /= piv;
        }
        for r in 0..m {
            if r != col {
                let f = w[r * m + col];
                for j in 0..m {
                    w[r * m + j] -= f * w[col * m + j];
                    inv[r * m + j] -= f * inv[col * m + j];
                }
            }
        }
    }
    (inv, logdet)
}

/// Standard sequential EP (Rasmussen & Williams, Alg. 3.5) for the probit likelihood on the n-dim
/// prior `N(0, prior)`: site precisions `τ` and precision-means `ν`, to convergence.
pub fn full_ep(prior: &[f64], y: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = y.len();
    let (mut tau, mut nu) = (vec![0.0; n], vec![0.0; n]);
    let posterior = |tau: &[f64], nu: &[f64]| {
        // Σ = (K⁻¹ + diag τ)⁻¹, μ = Σν
        let (kinv, _) = inverse_logdet(prior, n);
        let p: Vec<f64> = (0..n * n).map(|k| kinv[k] + if k / n == k % n { tau[k / n] } else { 0.0 }).collect();
        let (sigma, _) = inverse_logdet(&p, n);
        let mu: Vec<f64> = (0..n).map(|r| (0..n).map(|c| sigma[r * n + c] * nu[c]).sum()).collect();
        (sigma, mu)
    };
    for _sweep in 0..200 {
        let mut change: f64 = 0.0;
        for i in 0..n {
            let (sigma, mu) = posterior(&tau, &nu);
            let (tau_c, nu_c) = (1.0 / sigma[i * n + i] - tau[i], mu[i] / sigma[i * n + i] - nu[i]);
            let (m_c, v_c) = (nu_c / tau_c, 1.0 / tau_c);
            let z = y[i] * m_c / (1.0 + v_c).sqrt();
            let (lambda, gap) = mills_and_gap(z);
            let m_hat = m_c + y[i] * v_c * lambda / (1.0 + v_c).sqrt();
            let v_hat = v_c - v_c * v_c * lambda * gap / (1.0 + v_c);
            let (t_new, n_new) = (1.0 / v_hat - tau_c, m_hat / v_hat - nu_c);
            change = change.max((t_new - tau[i]).abs()).max((n_new - nu[i]).abs());
            tau[i] = t_new;
            nu[i] = n_new;
        }
        if change < 1e-13 {
            break;
        }
    }
    (tau, nu)
}

/// Full-GP EP's latent predictive at one test point by dense algebra (R&W eqs. 3.60–3.61): prior
/// `kff` `[n, n]`, sites `τ`, `ν`, cross-covariances `ks` `[n]` and prior variance `kss`:
/// with `a = K⁻¹k*`, `m* = aᵀμ`, `s* = k** − k*ᵀa + aᵀΣa`.
pub fn full_gp_predict(kff: &[f64], tau: &[f64], nu: &[f64], ks: &[f64], kss: f64) -> (f64, f64) {
    let n = tau.len();
    let (kinv, _) = inverse_logdet(kff, n);
    let prec: Vec<f64> = (0..n * n).map(|i| kinv[i] + if i / n == i % n { tau[i / n] } else { 0.0 }).collect();
    let (sigma, _) = inverse_logdet(&prec, n);
    let mv = |m: &[f64], v: &[f64]| -> Vec<f64> { (0..n).map(|r| (0..n).map(|c| m[r * n + c] * v[c]).sum()).collect() };
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(p, q)| p * q).sum::<f64>();
    let (mu, a) = (mv(&sigma, nu), mv(&kinv, ks));
    (dot(&a, &mu), kss - dot(ks, &a) + dot(&a, &mv(&sigma, &a)))
}

/// Full-GP EP's `log Z` by dense algebra: `g(q) − g(prior) + Σ log s̃_i` with the n-dim posterior of
/// the sites `τ`, `ν` on the prior `N(0, prior)` and its 1-D cavities.
pub fn full_ep_log_z(prior: &[f64], y: &[f64], tau: &[f64], nu: &[f64]) -> f64 {
    let n = y.len();
    let (kinv, logdet_k) = inverse_logdet(prior, n);
    let prec: Vec<f64> = (0..n * n).map(|k| kinv[k] + if k / n == k % n { tau[k / n] } else { 0.0 }).collect();
    let (sigma, logdet_p) = inverse_logdet(&prec, n);
    let mean: Vec<f64> = (0..n).map(|r| (0..n).map(|c| sigma[r * n + c] * nu[c]).sum()).collect();
    let mut full_lz = -0.5 * logdet_p - 0.5 * logdet_k + 0.5 * mean.iter().zip(nu).map(|(a, b)| a * b).sum::<f64>();
    for i in 0..n {
        let var_cav = 1.0 / (1.0 / sigma[i * n + i] - tau[i]);
        let mean_cav = var_cav * (mean[i] / sigma[i * n + i] - nu[i]);
        let log_zi = burn_gp::special::log_ndtr(y[i] * mean_cav / (1.0 + var_cav).sqrt());
        full_lz += burn_gp::models::ep::log_site_scale(log_zi, tau[i], nu[i], mean_cav, var_cav);
    }
    full_lz
}
