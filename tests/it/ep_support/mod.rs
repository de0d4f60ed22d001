//! Problems, models and gradient helpers shared by the EP classifier tests
//! (`tests/ep_classifier.rs`, `tests/ep_training.rs`).
#![allow(dead_code)]
use burn::tensor::{Device, Gradients, Tensor, TensorData};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::models::ep::{cavity, frozen_posterior, run_ep, EpGpClassifier, EpSites, Fitc, WhitenedPosterior};

use crate::common::{host, uniform};

/// Toy A inputs and labels (`docs/papers/001-ep-classification.md`, section "Toy A and test coordinates").
pub fn toy_a() -> (Vec<f64>, Vec<f64>) {
    let x: Vec<f64> = (0..20).map(|i| -3.0 + 6.0 * i as f64 / 19.0).collect();
    let y = x.iter().map(|&x| if (1.3 * x + 0.4f64).sin() > 0.0 { 1.0 } else { -1.0 }).collect();
    (x, y)
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
