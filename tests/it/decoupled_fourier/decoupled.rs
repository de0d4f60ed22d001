//! The decoupled ELBO (test ids of `docs/papers/002-decoupled-fourier-features.md`, section "Tests"):
//! golden values (T4), the Mγ = 0 and equal-bases limits (T5, T6), bounds (T7), the closed-form
//! optimum (T8), natural gradients (T9), gradients against finite differences (T10), and bad input.
use burn::module::Param;
use burn::tensor::{Device, Tensor};
use burn_gp::inducing::{FourierFeatures, InducingPoints, InducingVariables};
use burn_gp::kernels::{AdditiveMatern, Kernel, MaternNu};
use burn_gp::likelihoods::Gaussian;
use burn_gp::linalg::{cholesky, tri_inverse};
use burn_gp::models::{DecoupledGpConfig, ExactGpr, Sgpr, SvgpConfig};
use burn_gp::Error;

use super::support::*;
use crate::common::*;

const ELL: f64 = -45.4147872387107;
const KL_BETA: f64 = 1.39085028262373;
const KL_GAMMA: f64 = 0.0157538913679305;
const ELBO: f64 = -46.8213914127024;
const LOG_P: f64 = -8.89591398952459;
const ELBO_OPT: f64 = -27.4425961658252;
const A_GAMMA_OPT: [f64; 3] = [-0.00976487046134, 0.895854351907, -0.0714585674101];
const M_BETA_OPT: [f64; 5] = [0.446862487866, 0.319914777304, 2.75286975272, 0.765684089353, -1.27551835574];
const VFF_COLLAPSED: f64 = -28.0876713809714;
const NG_ONE: f64 = -28.5531308783212;
const NG_TENTH: f64 = -34.9489133251172;

fn elbo_of<M>(m: &M, f: impl Fn(&M) -> burn_gp::Result<Tensor<1>>) -> f64 {
    scalar(f(m).unwrap())
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn golden_elbo_kl_and_predictions() {
    let dev = device();
    let (x, y) = golden_data(&dev);
    let model = golden_model(&dev, true);
    let ell = scalar(model.expected_log_likelihood(x.clone(), y.clone()).unwrap());
    let kl = scalar(model.kl_divergence().unwrap());
    let elbo = scalar(model.elbo(x.clone(), y.clone()).unwrap());
    eprintln!("measured: ELL {ell:.15} KL {kl:.15} ELBO {elbo:.15} (rel {:.1e})", rel(elbo, ELBO));
    assert!(rel(ell, ELL) < 1e-10, "expected log-likelihood {ell}");
    assert!(rel(kl, KL_BETA + KL_GAMMA) < 1e-10, "KL {kl}");
    assert!(rel(elbo, ELBO) < 1e-10, "ELBO {elbo}");
    // KL_β alone: the same model with a_γ = 0 (m_β is stored, so it does not move)
    let zero = golden_model(&dev, true)
        .with_variational(
            Some(Tensor::zeros([3, 1], &dev)),
            t2(M_BETA.to_vec(), 5, 1, &dev),
            t2(golden_l_s(), 5, 5, &dev),
        )
        .unwrap();
    assert!(rel(scalar(zero.kl_divergence().unwrap()), KL_BETA) < 1e-10);
    let (m, v) = model.predict_f(t2(vec![1.0, 2.3], 2, 1, &dev)).unwrap();
    let (m, v) = (host(m), host(v));
    assert!(rel(m[0], 0.198443849735643) < 1e-10 && rel(v[0], 0.964509936872777) < 1e-10, "{m:?} {v:?}");
    assert!(rel(m[1], -0.000747667106080835) < 1e-9 && rel(v[1], 1.28456899325282) < 1e-10, "{m:?} {v:?}");
    // predict_y adds the noise; chunked prediction equals one pass
    let (_, vy) = model.predict_y(t2(vec![1.0], 1, 1, &dev)).unwrap();
    assert!(rel(host(vy)[0], 0.964509936872777 + NOISE) < 1e-10);
    let xs = t2(uniform(7, 3).iter().map(|u| 1.0 + 1.6 * u).collect(), 7, 1, &dev);
    let (m1, v1) = model.predict_f(xs.clone()).unwrap();
    let (m2, v2) = model.predict_f_chunked(xs, 3).unwrap();
    assert!(max_rel_err(&host(m1), &host(m2), 1e-6) < 1e-13 && max_rel_err(&host(v1), &host(v2), 1e-6) < 1e-13);
    // exact log marginal likelihood of the same prior
    let gpr =
        ExactGpr::new(golden_kernel(MaternNu::ThreeHalves, &dev), Gaussian::new(NOISE, &dev).unwrap(), x, y).unwrap();
    assert!(rel(scalar(gpr.log_marginal_likelihood().unwrap()), LOG_P) < 1e-10);
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn closed_form_optimum_and_collapsed_bounds() {
    let dev = device();
    let (x, y) = golden_data(&dev);
    let opt = golden_model(&dev, true).with_optimal_variational(x.clone(), y.clone()).unwrap();
    let elbo = scalar(opt.elbo(x.clone(), y.clone()).unwrap());
    eprintln!("measured: closed-form ELBO* {elbo:.15} (rel {:.1e})", rel(elbo, ELBO_OPT));
    assert!(rel(elbo, ELBO_OPT) < 1e-10, "ELBO* {elbo}");
    let a = host(opt.mean_basis.as_ref().unwrap().weights.val());
    let m = host(opt.m_beta.val());
    assert!(max_rel_err(&a, &A_GAMMA_OPT, 1e-3) < 1e-9, "a_γ* {a:?}");
    assert!(max_rel_err(&m, &M_BETA_OPT, 1e-3) < 1e-9, "m_β* {m:?}");
    // Mγ = 0 (VFF-SVGP) at its optimum: the collapsed Titsias bound with VFF features, three ways
    let kernel = golden_kernel(MaternNu::ThreeHalves, &dev);
    let vff = vff_svgp(&dev).with_optimal_variational(x.clone(), y.clone()).unwrap();
    let collapsed = scalar(vff.elbo(x.clone(), y.clone()).unwrap());
    eprintln!("measured: VFF-SVGP at optimum {collapsed:.15} (rel {:.1e})", rel(collapsed, VFF_COLLAPSED));
    assert!(rel(collapsed, VFF_COLLAPSED) < 1e-10, "VFF-SVGP at its optimum {collapsed}");
    let sgpr = Sgpr::new(
        kernel.clone(),
        golden_features(&kernel),
        Gaussian::new(NOISE, &dev).unwrap(),
        x.clone(),
        y.clone(),
        0.0,
    )
    .unwrap();
    assert!(rel(scalar(sgpr.elbo().unwrap()), VFF_COLLAPSED) < 1e-10, "SGPR with Fourier features");
    // the existing whitened SVGP takes Fourier features through the same inducing interface
    let svgp = SvgpConfig::new(8)
        .with_jitter(0.0)
        .init(kernel.clone(), golden_features(&kernel), Gaussian::new(NOISE, &dev).unwrap(), &dev)
        .unwrap()
        .with_optimal_q(x.clone(), y.clone())
        .unwrap();
    assert!(rel(scalar(svgp.elbo(x.clone(), y.clone()).unwrap()), VFF_COLLAPSED) < 1e-10, "Svgp with Fourier features");
    // Mγ = 0 with the same (m_β, S) as the full model's β-block: the VFF-SVGP ELBO
    let same =
        vff_svgp(&dev).with_variational(None, t2(M_BETA.to_vec(), 5, 1, &dev), t2(golden_l_s(), 5, 5, &dev)).unwrap();
    assert!(rel(scalar(same.kl_divergence().unwrap()), KL_BETA) < 1e-10);
    // ordering: VFF-only bound ≤ decoupled optimum ≤ log p(y)
    assert!(VFF_COLLAPSED + 1e-9 < elbo && elbo + 1e-9 < LOG_P);
    let sgpr_pred = host(sgpr.predict_f(t2(vec![0.4, 1.7], 2, 1, &dev)).unwrap().0);
    let vff_pred = host(vff.predict_f(t2(vec![0.4, 1.7], 2, 1, &dev)).unwrap().0);
    assert!(max_rel_err(&vff_pred, &sgpr_pred, 1e-6) < 1e-9, "SGPR and optimal VFF-SVGP means differ");
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn optimum_is_stationary_and_its_mean_is_the_dtc_mean_of_the_union() {
    // (i) autodiff gradient of the ELBO w.r.t. (a_γ, m_β, L_S) vanishes at the closed form
    let ad = ad_device();
    let (x, y) = golden_data(&ad);
    let opt = golden_model(&ad, false).with_optimal_variational(x.clone(), y.clone()).unwrap();
    let g = opt.elbo(x, y).unwrap().backward();
    let mut grads = host(opt.mean_basis.as_ref().unwrap().weights.val().grad(&g).unwrap());
    grads.extend(host(opt.m_beta.val().grad(&g).unwrap()));
    grads.extend(host(opt.l_s.val().grad(&g).unwrap()));
    let worst = grads.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    eprintln!("measured: max |∇ELBO| at the closed-form optimum {worst:.1e}");
    assert!(worst < 1e-6, "max |∇ELBO| at the optimum {worst:e}");
    // (ii) μ = K_*α (σ²K_α + K_αX K_Xα)⁻¹ K_αX y, computed here by Gaussian elimination
    let dev = device();
    let (x, y) = golden_data(&dev);
    let opt = golden_model(&dev, true).with_optimal_variational(x.clone(), y.clone()).unwrap();
    let xs = t2(vec![-0.4, 0.3, 1.1, 1.9, 2.6], 5, 1, &dev);
    let kern = &opt.kernel;
    let z = opt.mean_basis.as_ref().unwrap().points.z();
    let k_alpha = |p: Tensor<2>| {
        let (kg, kb) = (host(kern.k(p.clone(), z.clone())), host(opt.cov_basis.kfu(kern, p.clone())));
        let n = p.dims()[0];
        (0..n)
            .flat_map(|i| kg[i * 3..i * 3 + 3].iter().chain(&kb[i * 5..i * 5 + 5]).copied().collect::<Vec<_>>())
            .collect::<Vec<f64>>()
    };
    let kxa = k_alpha(x.clone()); // [8, 8]
    let kza = k_alpha(z.clone()); // [3, 8]: rows of K_α for γ
    let kb = host(opt.cov_basis.kuu(kern, 0.0));
    let kbz = host(opt.cov_basis.kuf(kern, z.clone())); // [5, 3]
    let mut ka = vec![0.0; 64];
    for i in 0..8 {
        for j in 0..8 {
            ka[i * 8 + j] = match (i < 3, j < 3) {
                (true, _) => kza[i * 8 + j],
                (false, true) => kbz[(i - 3) * 3 + j],
                (false, false) => kb[(i - 3) * 5 + (j - 3)],
            };
        }
    }
    // normal equations (K_αX K_Xα + σ² K_α) w = K_αX y, then μ = K_*α w
    fn dot(p: impl Iterator<Item = f64>, q: impl Iterator<Item = f64>) -> f64 {
        p.zip(q).map(|(a, b)| a * b).sum()
    }
    let kxa = &kxa;
    let col = |j: usize| (0..8).map(move |r| kxa[r * 8 + j]);
    let system: Vec<f64> = (0..64).map(|ij| dot(col(ij / 8), col(ij % 8)) + NOISE * ka[ij]).collect();
    let rhs: Vec<f64> = (0..8).map(|i| dot(col(i), Y.into_iter())).collect();
    let w = solve_dense(&system, 8, &rhs, 1);
    let dtc: Vec<f64> = k_alpha(xs.clone()).chunks(8).map(|row| dot(row.iter().copied(), w.iter().copied())).collect();
    let mean = host(opt.predict_f(xs.clone()).unwrap().0);
    assert!(max_rel_err(&mean, &dtc, 1e-3) < 1e-9, "{mean:?} vs DTC {dtc:?}");
    // (iii) with Z_γ = X the optimal mean is the exact GP posterior mean
    let kernel = golden_kernel(MaternNu::ThreeHalves, &dev);
    let full = DecoupledGpConfig::new(8)
        .init(
            kernel.clone(),
            Some(InducingPoints::new(&X, 8, 1, &dev).unwrap()),
            golden_features(&kernel),
            Gaussian::new(NOISE, &dev).unwrap(),
            &dev,
        )
        .unwrap()
        .with_optimal_variational(x.clone(), y.clone())
        .unwrap();
    let gpr = ExactGpr::new(kernel, Gaussian::new(NOISE, &dev).unwrap(), x, y).unwrap();
    let (mf, me) = (host(full.predict_f(xs.clone()).unwrap().0), host(gpr.predict_f(xs).unwrap().0));
    let err = mf.iter().zip(&me).fold(0.0f64, |a, (p, q)| a.max((p - q).abs()));
    eprintln!("measured: Z_γ = X, max |μ − μ_exact| = {err:.1e}");
    assert!(err < 1e-8, "Z_γ = X: max |μ − μ_exact| = {err:e}");
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn natural_gradient_steps_reach_the_golden_values() {
    let ad = ad_device();
    let (x, y) = golden_data(&ad);
    let (one, used) = golden_model(&ad, true).natural_gradient_step(x.clone(), y.clone(), 1.0).unwrap();
    assert_eq!(used, 1.0);
    let e1 = scalar(one.elbo(x.clone(), y.clone()).unwrap());
    eprintln!("measured: NG ρ=1 {e1:.15} (rel {:.1e})", rel(e1, NG_ONE));
    assert!(rel(e1, NG_ONE) < 1e-10, "ρ = 1: {e1}");
    let (two, _) = one.natural_gradient_step(x.clone(), y.clone(), 1.0).unwrap();
    let e2 = scalar(two.elbo(x.clone(), y.clone()).unwrap());
    assert!((e2 - e1).abs() < 1e-10, "second step moved the ELBO by {:e}", e2 - e1);
    let (tenth, _) = golden_model(&ad, true).natural_gradient_step(x.clone(), y.clone(), 0.1).unwrap();
    let e = scalar(tenth.elbo(x.clone(), y.clone()).unwrap());
    eprintln!(
        "measured: NG ρ=0.1 {e:.15} (rel {:.1e}); second ρ=1 step moved {:.1e}",
        rel(e, NG_TENTH),
        (e2 - e1).abs()
    );
    assert!(rel(e, NG_TENTH) < 1e-10, "ρ = 0.1: {e}");
    let at_opt = golden_model(&ad, true)
        .with_variational(
            Some(t2(A_GAMMA_OPT.to_vec(), 3, 1, &ad)),
            t2(M_BETA.to_vec(), 5, 1, &ad),
            t2(golden_l_s(), 5, 5, &ad),
        )
        .unwrap();
    let (joint, _) = at_opt.natural_gradient_step(x.clone(), y.clone(), 1.0).unwrap();
    let e = scalar(joint.elbo(x.clone(), y.clone()).unwrap());
    // a_γ* carries 12 significant digits, so the optimum is reached to about that precision
    eprintln!("measured: NG ρ=1 at a_γ* {e:.15} (rel {:.1e})", rel(e, ELBO_OPT));
    assert!(rel(e, ELBO_OPT) < 1e-10, "ρ = 1 at a_γ*: {e}");
    // the step needs an autodiff device, and ρ in (0, 1]
    let dev = device();
    let (xb, yb) = golden_data(&dev);
    assert!(matches!(golden_model(&dev, true).natural_gradient_step(xb, yb, 1.0), Err(Error::InvalidArgument { .. })));
    assert!(matches!(golden_model(&ad, true).natural_gradient_step(x, y, 1.5), Err(Error::InvalidArgument { .. })));
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn equal_bases_give_the_svgp_elbo_for_every_mean_weight() {
    let dev = device();
    let (x, y) = golden_data(&dev);
    let kernel = golden_kernel(MaternNu::ThreeHalves, &dev);
    let pts = [0.0, 0.5, 1.0, 1.5, 2.0];
    let l_s = t2(golden_l_s(), 5, 5, &dev);
    let m_beta = t2(M_BETA.to_vec(), 5, 1, &dev);
    let mut values = Vec::new();
    for draw in 0..10u64 {
        let model = DecoupledGpConfig::new(8)
            .init(
                kernel.clone(),
                Some(InducingPoints::new(&pts, 5, 1, &dev).unwrap()),
                InducingPoints::new(&pts, 5, 1, &dev).unwrap(),
                Gaussian::new(NOISE, &dev).unwrap(),
                &dev,
            )
            .unwrap()
            .with_variational(Some(t2(uniform(5, 100 + draw), 5, 1, &dev)), m_beta.clone(), l_s.clone())
            .unwrap();
        values.push(scalar(model.elbo(x.clone(), y.clone()).unwrap()));
    }
    // SVGP (whitened) with the same q(u): v = L⁻¹ m_β, L_v = L⁻¹ L_S
    let z = InducingPoints::new(&pts, 5, 1, &dev).unwrap();
    let l_inv = tri_inverse(cholesky(z.kuu(&kernel, 0.0)).unwrap());
    let mut svgp =
        SvgpConfig::new(8).with_jitter(0.0).init(kernel, z, Gaussian::new(NOISE, &dev).unwrap(), &dev).unwrap();
    svgp.q_mu = Param::from_tensor(l_inv.clone().matmul(m_beta).transpose());
    svgp.q_sqrt = Param::from_tensor(l_inv.matmul(l_s).unsqueeze::<3>());
    let reference = scalar(svgp.elbo(x, y).unwrap());
    let spread = values.iter().map(|v| rel(*v, reference)).fold(0.0f64, f64::max);
    eprintln!("measured: ODVGP(γ = β) vs SVGP ELBO, max rel diff over 10 a_γ {spread:.1e}");
    for v in &values {
        assert!(rel(*v, reference) < 1e-8, "ODVGP with γ = β: {v} vs SVGP {reference}");
    }
}

/// A random variational state for the golden problem.
fn random_state(seed: u64, dev: &Device) -> (Tensor<2>, Tensor<2>, Tensor<2>) {
    let u = uniform(3 + 5 + 25, seed);
    let mut l = vec![0.0; 25];
    for i in 0..5 {
        for j in 0..=i {
            l[i * 5 + j] = if i == j { 0.3 + 1.5 * u[8 + i * 5 + j].abs() } else { 0.5 * u[8 + i * 5 + j] };
        }
    }
    (t2(u[..3].to_vec(), 3, 1, dev), t2(u[3..8].iter().map(|v| 2.0 * v).collect(), 5, 1, dev), t2(l, 5, 5, dev))
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn elbo_is_below_the_exact_log_marginal_likelihood() {
    let dev = device();
    let (x, y) = golden_data(&dev);
    for seed in 0..100u64 {
        let (a, m, l) = random_state(seed, &dev);
        let model = golden_model(&dev, true).with_variational(Some(a), m, l).unwrap();
        let elbo = scalar(model.elbo(x.clone(), y.clone()).unwrap());
        assert!(elbo < LOG_P - 1e-9, "draw {seed}: ELBO {elbo} ≥ log p(y)");
        assert!(elbo < ELBO_OPT + 1e-9, "draw {seed}: ELBO {elbo} above the optimum");
    }
}

/// The golden problem as a function of its parameters (constrained values), for finite differences.
struct Params {
    var: f64,
    ls: f64,
    noise: f64,
    z: Vec<f64>,
    a: Vec<f64>,
    m: Vec<f64>,
    l: Vec<f64>,
}

impl Params {
    fn golden() -> Self {
        Self { var: VAR, ls: LS, noise: NOISE, z: Z.to_vec(), a: A_GAMMA.to_vec(), m: M_BETA.to_vec(), l: golden_l_s() }
    }
    fn flat(&self) -> Vec<f64> {
        let mut v = vec![self.var, self.ls, self.noise];
        v.extend(&self.z);
        v.extend(&self.a);
        v.extend(&self.m);
        v.extend((0..5).flat_map(|i| (0..=i).map(move |j| (i, j))).map(|(i, j)| self.l[i * 5 + j]));
        v
    }
    fn from_flat(p: &[f64]) -> Self {
        let mut l = vec![0.0; 25];
        for (k, (i, j)) in (0..5).flat_map(|i| (0..=i).map(move |j| (i, j))).enumerate() {
            l[i * 5 + j] = p[14 + k];
        }
        Self { var: p[0], ls: p[1], noise: p[2], z: p[3..6].to_vec(), a: p[6..9].to_vec(), m: p[9..14].to_vec(), l }
    }
    fn model(&self, nu: MaternNu, dev: &Device) -> burn_gp::models::Odvff<AdditiveMatern, Gaussian> {
        let kernel = AdditiveMatern::new(nu, &[self.ls], &[self.var], dev).unwrap();
        let beta = FourierFeatures::new(&kernel, &[(A, B)], F).unwrap();
        DecoupledGpConfig::new(8)
            .with_natural_gradients(false)
            .init(
                kernel,
                Some(InducingPoints::new(&self.z, 3, 1, dev).unwrap()),
                beta,
                Gaussian::new(self.noise, dev).unwrap(),
                dev,
            )
            .unwrap()
            .with_variational(
                Some(t2(self.a.clone(), 3, 1, dev)),
                t2(self.m.clone(), 5, 1, dev),
                t2(self.l.clone(), 5, 5, dev),
            )
            .unwrap()
    }
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn elbo_gradients_match_finite_differences() {
    let p0 = Params::golden();
    let dev = device();
    for nu in [MaternNu::Half, MaternNu::ThreeHalves, MaternNu::FiveHalves] {
        let ad = ad_device();
        let (x, y) = golden_data(&ad);
        let model = p0.model(nu, &ad);
        let g = model.elbo(x, y).unwrap().backward();
        // softplus chain rule: d value / d raw = 1 − exp(−value)
        let dsp = |v: f64| 1.0 - (-v).exp();
        let mut auto = vec![
            host(model.kernel.variances.raw().grad(&g).unwrap())[0] / dsp(p0.var),
            host(model.kernel.lengthscales.raw().grad(&g).unwrap())[0] / dsp(p0.ls),
            host(model.likelihood.variance.raw().grad(&g).unwrap())[0] / dsp(p0.noise),
        ];
        let basis = model.mean_basis.as_ref().unwrap();
        auto.extend(host(basis.points.z.val().grad(&g).unwrap()));
        auto.extend(host(basis.weights.val().grad(&g).unwrap()));
        auto.extend(host(model.m_beta.val().grad(&g).unwrap()));
        let gl = host(model.l_s.val().grad(&g).unwrap());
        auto.extend((0..5).flat_map(|i| (0..=i).map(move |j| (i, j))).map(|(i, j)| gl[i * 5 + j]));
        let (xb, yb) = golden_data(&dev);
        let fd = fd_grad(&p0.flat(), 1e-6, |p| {
            elbo_of(&Params::from_flat(p).model(nu, &dev), |m| m.elbo(xb.clone(), yb.clone()))
        });
        let err = max_rel_err(&auto, &fd, 1e-2);
        eprintln!("measured: ν={nu:?} ELBO gradient vs finite differences, max rel err {err:.1e}");
        assert!(err < 1e-5, "ν={nu:?}: relative error {err:e}\nauto {auto:?}\nfd   {fd:?}");
        // the masked upper triangle of L_S gets no gradient
        assert!((0..5).flat_map(|i| (i + 1..5).map(move |j| i * 5 + j)).all(|k| gl[k] == 0.0));
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    let dev = device();
    let kernel = golden_kernel(MaternNu::ThreeHalves, &dev);
    let cfg = DecoupledGpConfig::new(8);
    let lik = || Gaussian::new(NOISE, &dev).unwrap();
    // N = 0, negative jitter
    assert!(matches!(
        DecoupledGpConfig::new(0).init(kernel.clone(), None, golden_features(&kernel), lik(), &dev),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cfg.clone().with_jitter(-1.0).init(kernel.clone(), None, golden_features(&kernel), lik(), &dev),
        Err(Error::InvalidArgument { .. })
    ));
    // mean-basis points with the wrong number of columns
    let z2 = InducingPoints::new(&[0.0, 1.0, 2.0, 3.0], 2, 2, &dev).unwrap();
    assert!(matches!(
        cfg.init(kernel.clone(), Some(z2), golden_features(&kernel), lik(), &dev),
        Err(Error::ShapeMismatch { .. })
    ));
    let model = golden_model(&dev, true);
    // wrong target shape, empty batch, wrong input columns
    let (x, _) = golden_data(&dev);
    assert!(matches!(model.elbo(x.clone(), t2(vec![0.0; 7], 7, 1, &dev)), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(model.predict_f(Tensor::zeros([0, 1], &dev)), Err(Error::Empty { .. })));
    assert!(matches!(model.predict_f(Tensor::zeros([3, 2], &dev)), Err(Error::ShapeMismatch { .. })));
    // variational parameters of the wrong size
    assert!(matches!(
        golden_model(&dev, true).with_variational(None, Tensor::zeros([4, 1], &dev), Tensor::zeros([5, 5], &dev)),
        Err(Error::ShapeMismatch { .. })
    ));
}
