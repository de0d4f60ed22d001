//! Golden example G (`docs/papers/003-bayesian-svm.md`, section "Tests", cases T5/T6/T10): a 6-point,
//! 3-class problem with a fixed q(u), checked against values from an independent float64 reference.
use crate::common::*;
use burn::module::Param;
use burn::tensor::Tensor;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{one_hot, MultiClassHinge};
use burn_gp::linalg::{cholesky, solve_triangular, Triangle};
use burn_gp::models::{BayesianSvm, SvgpConfig};

const X: [f64; 12] = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, -1.0, 0.5];
const Y: [usize; 6] = [0, 1, 2, 0, 1, 2];
/// Non-whitened means μ_j (rows = classes) and lower factors R_j of Σ_j.
const MU: [f64; 9] = [0.5, -0.2, 0.1, -0.3, 0.8, 0.0, 0.1, 0.0, 0.6];
const R: [f64; 27] = [
    0.53, 0.0, 0.0, 0.12, 0.75, 0.0, 0.21, 0.24, 0.97, //
    0.515, 0.0, 0.0, 0.06, 0.675, 0.0, 0.105, 0.12, 0.835, //
    0.51, 0.0, 0.0, 0.04, 0.65, 0.0, 0.07, 0.08, 0.79,
];
/// The reference's whitened equivalents, rounded to 10 decimals.
const M_W: [f64; 9] =
    [0.5, -0.6329903002, -0.2556603337, -0.3, 1.2350754375, 0.2288621935, 0.1, -0.0762873978, 0.6783725352];
const R_W: [f64; 27] = [
    0.53,
    0.0,
    0.0,
    -0.2533912219,
    0.9433249162,
    0.0,
    -0.140192232,
    0.3018639732,
    1.2200335583, //
    0.515,
    0.0,
    0.0,
    -0.3174141056,
    0.8489924246,
    0.0,
    -0.2608146106,
    0.1509319866,
    1.0502350734, //
    0.51,
    0.0,
    0.0,
    -0.3387550668,
    0.8175482607,
    0.0,
    -0.3010220701,
    0.1006213244,
    0.9936355784,
];
const O_STAR: f64 = -16.873838650811642;
const O_STAR_ROUNDED_WHITENED: f64 = -16.873838650761993;

fn model(q_mu: Tensor<2>, q_sqrt: Tensor<3>, jitter: f64, dev: &burn::tensor::Device) -> BayesianSvm {
    let kernel = Rbf::ard(2, 1.0, 1.0, dev).unwrap();
    let z = InducingPoints::new(&X[..6], 3, 2, dev).unwrap();
    let mut m = SvgpConfig::new(6)
        .with_num_latent(3)
        .with_jitter(jitter)
        .init(kernel, z, MultiClassHinge::default(), dev)
        .unwrap();
    m.q_mu = Param::from_tensor(q_mu);
    m.q_sqrt = Param::from_tensor(q_sqrt);
    m
}

/// Whitened (m, R̃) from the non-whitened (μ, R): m_j = L⁻¹μ_j, R̃_j = L⁻¹R_j, L = chol(K_ZZ).
fn whiten(jitter: f64, dev: &burn::tensor::Device) -> (Tensor<2>, Tensor<3>) {
    let kernel = Rbf::ard(2, 1.0, 1.0, dev).unwrap();
    let z = t2(X[..6].to_vec(), 3, 2, dev);
    let kzz = burn_gp::kernels::Kernel::k(&kernel, z.clone(), z) + Tensor::<2>::eye(3, dev).mul_scalar(jitter);
    let l = cholesky(kzz).unwrap();
    let mu = t2(MU.to_vec(), 3, 3, dev);
    let m = solve_triangular(l.clone(), mu.transpose(), Triangle::Lower, false).unwrap().transpose();
    let r = t3(R.to_vec(), 3, 3, 3, dev);
    let linv = burn_gp::linalg::tri_inverse(l);
    let rw = linv.unsqueeze::<3>().repeat_dim(0, 3).matmul(r);
    (m, rw)
}

fn objective(model: &BayesianSvm, dev: &burn::tensor::Device) -> Tensor<1> {
    let x = t2(X.to_vec(), 6, 2, dev);
    let y = one_hot(&Y, 3, dev).unwrap();
    model.elbo(x, y).unwrap()
}

#[test]
fn golden_objective_non_whitened_inputs() {
    let dev = device();
    for (jitter, want) in [(0.0, O_STAR), (1e-6, -16.873832702782956)] {
        let (m, r) = whiten(jitter, &dev);
        let got = scalar(objective(&model(m, r, jitter, &dev), &dev));
        assert!((got - want).abs() < tol(1e-9, 1e-4 * want.abs()), "jitter {jitter}: O* {got} vs {want}");
    }
}

#[test]
fn golden_objective_whitened_inputs_and_parts() {
    let dev = device();
    let mdl = model(t2(M_W.to_vec(), 3, 3, &dev), t3(R_W.to_vec(), 3, 3, 3, &dev), 0.0, &dev);
    let got = scalar(objective(&mdl, &dev));
    assert!((got - O_STAR_ROUNDED_WHITENED).abs() < tol(1e-9, 2e-3), "O* {got}");
    let kl = scalar(mdl.kl_divergence());
    assert!((kl - 2.70675738134822).abs() < tol(1e-8, 1e-3), "KL {kl}");
    // Competitors, margins and α̂ per point.
    let x = t2(X.to_vec(), 6, 2, &dev);
    let y = one_hot(&Y, 3, &dev).unwrap();
    let (mean, var) = mdl.predict_f(x).unwrap();
    let t = MultiClassHinge::competitors(mean.clone(), y.clone());
    let t: Vec<i64> = t.into_data().convert::<i64>().try_into_vec::<i64>().unwrap();
    assert_eq!(t, vec![2, 2, 0, 1, 2, 0]);
    let (b, alpha) = MultiClassHinge::margins(mean, var, y);
    let b_want = [0.6, 0.2, 0.5, 1.8401811467, 0.9303876133, 1.1103773165];
    let a_want = [0.901, 0.923325, 1.928, 5.3891352778, 2.8684796958, 2.7968976595];
    assert!(max_rel_err(&host(b), &b_want, 1.0) < tol(1e-8, 1e-4));
    assert!(max_rel_err(&host(alpha), &a_want, 1.0) < tol(1e-8, 1e-4));
}

#[test]
fn golden_gradients_whitened() {
    let dev = ad_device();
    let mdl =
        model(t2(M_W.to_vec(), 3, 3, &dev).require_grad(), t3(R_W.to_vec(), 3, 3, 3, &dev).require_grad(), 0.0, &dev);
    let o = objective(&mdl, &dev);
    let grads = o.backward();
    let gm = host(mdl.q_mu.val().grad(&grads).unwrap());
    let want = [
        0.0760119338,
        1.9269687328,
        -0.4019866618,
        0.4016579796,
        -1.0007053056,
        -0.9550348812,
        -0.7776699134,
        -1.4520611667,
        0.7054471480,
    ];
    let err = gm.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(err < tol(1e-5, 1e-3), "∂O/∂m {gm:?}");
    // Kernel hyperparameters are softplus(raw): ∂O/∂θ = ∂O/∂raw / sigmoid(raw), and sigmoid(raw) =
    // 1 − e^{−θ} = 1 − e^{−1} at θ = 1. The isotropic ∂O/∂ℓ is the sum over the two ARD lengthscales.
    let dsp = 1.0 - (-1.0f64).exp();
    let gl: f64 = host(mdl.kernel.params.lengthscales.raw().grad(&grads).unwrap()).iter().sum::<f64>() / dsp;
    let gv = host(mdl.kernel.params.variance.raw().grad(&grads).unwrap())[0] / dsp;
    assert!((gl - -0.37125679555887).abs() < tol(1e-5, 1e-3), "∂O/∂ℓ {gl}");
    assert!((gv - -2.48038835313154).abs() < tol(1e-5, 1e-3), "∂O/∂σ² {gv}");
}

#[test]
fn minibatch_estimator_averages_to_the_full_objective() {
    // T10: the mean over a partition into equal batches of (N/B)Σ_B ℓ* − KL equals O*.
    let dev = device();
    let mdl = model(t2(M_W.to_vec(), 3, 3, &dev), t3(R_W.to_vec(), 3, 3, 3, &dev), 0.0, &dev);
    let x = t2(X.to_vec(), 6, 2, &dev);
    let y = one_hot(&Y, 3, &dev).unwrap();
    let full = scalar(mdl.elbo(x.clone(), y.clone()).unwrap());
    for b in [1usize, 2, 3] {
        let parts: Vec<f64> = (0..6 / b)
            .map(|k| {
                let idx: Vec<usize> = (k * b..(k + 1) * b).collect();
                -scalar(mdl.minibatch_loss(&x, &y, &idx).unwrap()) * 6.0
            })
            .collect();
        let avg = parts.iter().sum::<f64>() / parts.len() as f64;
        assert!((avg - full).abs() < tol(1e-10, 1e-4), "B = {b}: {avg} vs {full}");
    }
}
