//! The GPU code path (f32) agrees with the CPU reference (f64) on the same inputs.
//! Built only when a GPU backend and the flex backend are both compiled in
//! (`cargo test --features wgpu --test backend_agreement`).
#![cfg(all(feature = "flex", any(feature = "wgpu", feature = "cuda")))]
use crate::common::*;
use burn::tensor::Device;
use burn_gp::device::device_by_name;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{BernoulliProbit, Gaussian};
use burn_gp::linalg::{cholesky, logdet_from_cholesky, solve_triangular, Triangle};
use burn_gp::models::SvgpConfig;

fn gpu() -> Device {
    let name = if cfg!(feature = "cuda") { "cuda" } else { "wgpu" };
    device_by_name(name).expect("GPU device")
}

fn cpu() -> Device {
    device_by_name("flex").expect("flex device")
}

/// Relative tolerances for f32 against f64, stated once.
const TOL_FACTOR: f64 = 1e-5;
const TOL_SOLVE: f64 = 1e-4;
const TOL_ELBO: f64 = 1e-4;
const TOL_PRED: f64 = 1e-3;

#[test]
fn linalg_f32_gpu_agrees_with_f64_cpu() {
    let n = 40;
    let a = spd_host(&uniform(n * 50, 1), n, 50);
    let b = uniform(n * 7, 2);
    let run = |dev: &Device| {
        let l = cholesky(t2(a.clone(), n, n, dev)).unwrap();
        let x = solve_triangular(l.clone(), t2(b.clone(), n, 7, dev), Triangle::Lower, true).unwrap();
        let ld = logdet_from_cholesky(l.clone());
        (host(l), host(x), host(ld))
    };
    let (l64, x64, ld64) = run(&cpu());
    let (l32, x32, ld32) = run(&gpu());
    let e_l = max_rel_err(&l32, &l64, 1e-2);
    let e_x = max_rel_err(&x32, &x64, 1e-2);
    let e_ld = max_rel_err(&ld32, &ld64, 1.0);
    println!("cholesky {e_l:.2e}, solve {e_x:.2e}, logdet {e_ld:.2e}");
    assert!(e_l < TOL_FACTOR && e_x < TOL_SOLVE && e_ld < TOL_FACTOR);
}

#[test]
fn svgp_f32_gpu_agrees_with_f64_cpu() {
    let (n, d, m) = (120, 2, 16);
    let x: Vec<f64> = uniform(n * d, 3).iter().map(|v| 2.0 * v).collect();
    let y: Vec<f64> = (0..n).map(|i| (2.0 * x[i * d]).sin() + 0.5 * x[i * d + 1]).collect();
    let yb: Vec<f64> = y.iter().map(|v| if *v > 0.0 { 1.0 } else { 0.0 }).collect();
    let z: Vec<f64> = x[..m * d].to_vec();
    let xs = uniform(30 * d, 4);
    let run = |dev: &Device| {
        let xt = t2(x.clone(), n, d, dev);
        let yt = t2(y.clone(), n, 1, dev);
        let reg = SvgpConfig::new(n)
            .init(
                Rbf::new(&[0.7, 1.2], 1.0, dev).unwrap(),
                InducingPoints::new(&z, m, d, dev).unwrap(),
                Gaussian::new(0.1, dev).unwrap(),
                dev,
            )
            .unwrap()
            .with_optimal_q(xt.clone(), yt.clone())
            .unwrap();
        let elbo = scalar(reg.elbo(xt.clone(), yt).unwrap());
        let (mu, var) = reg.predict_f(t2(xs.clone(), 30, d, dev)).unwrap();
        let cls = SvgpConfig::new(n)
            .init(
                Rbf::new(&[0.7, 1.2], 1.0, dev).unwrap(),
                InducingPoints::new(&z, m, d, dev).unwrap(),
                BernoulliProbit::default(),
                dev,
            )
            .unwrap();
        let elbo_c = scalar(cls.elbo(xt, t2(yb.clone(), n, 1, dev)).unwrap());
        (elbo, host(mu), host(var), elbo_c)
    };
    let (e64, m64, v64, c64) = run(&cpu());
    let (e32, m32, v32, c32) = run(&gpu());
    let re = ((e32 - e64) / e64).abs();
    let rc = ((c32 - c64) / c64).abs();
    let rm = max_rel_err(&m32, &m64, 1e-1);
    let rv = max_rel_err(&v32, &v64, 1e-2);
    println!("elbo {re:.2e}, probit elbo {rc:.2e}, mean {rm:.2e}, var {rv:.2e}");
    assert!(re < TOL_ELBO && rc < TOL_ELBO && rm < TOL_PRED && rv < TOL_PRED);
}

/// Deep GP (paper 004, case T23 of `docs/papers/004-deep-gp-ep.md`): the approximate-EP energy of a DGP-2
/// and its predictions.
#[test]
fn deep_gp_f32_gpu_agrees_with_f64_cpu() {
    use burn_gp::models::DeepGpConfig;
    let (n, d) = (60, 2);
    let x: Vec<f64> = uniform(n * d, 5).iter().map(|v| 2.0 * v).collect();
    let y: Vec<f64> = (0..n).map(|i| (2.0 * x[i * d]).sin() * x[i * d + 1]).collect();
    let xs = uniform(20 * d, 6);
    let run = |dev: &Device| {
        let model = DeepGpConfig::new(d)
            .with_num_inducing(8)
            .init(&t2(x.clone(), n, d, dev), &t2(y.clone(), n, 1, dev))
            .unwrap();
        let energy = scalar(model.energy(t2(x.clone(), n, d, dev), t2(y.clone(), n, 1, dev)).unwrap());
        let (mean, var) = model.predict_moments(t2(xs.clone(), 20, d, dev)).unwrap();
        (energy, host(mean), host(var))
    };
    let (e64, m64, v64) = run(&cpu());
    let (e32, m32, v32) = run(&gpu());
    let re = ((e32 - e64) / e64).abs();
    let (rm, rv) = (max_rel_err(&m32, &m64, 1e-1), max_rel_err(&v32, &v64, 1e-2));
    println!("deep GP energy {re:.2e}, mean {rm:.2e}, var {rv:.2e}");
    assert!(re < TOL_PRED && rm < TOL_PRED && rv < TOL_PRED);
}

/// EP classifier (paper 001, its optional GPU-parity check): converged log Z_q and predictive probabilities
/// on Toy A (`docs/papers/001-ep-classification.md`, section "Toy A and test coordinates"; EP itself runs on
/// the host in f64; the kernel matrices come from the device).
#[test]
fn ep_classifier_f32_gpu_agrees_with_f64_cpu() {
    use burn_gp::models::ep::{log_z_q, run_ep, EpGpClassifier, EpSites, WhitenedPosterior};
    let x: Vec<f64> = (0..20).map(|i| -3.0 + 6.0 * i as f64 / 19.0).collect();
    let y: Vec<f64> = x.iter().map(|&x| if (1.3 * x + 0.4f64).sin() > 0.0 { 1.0 } else { -1.0 }).collect();
    let z = [-2.5, -1.2, 0.1, 1.3, 2.6];
    let run = |dev: &Device| {
        let kernel = Rbf::new(&[0.8f64.sqrt()], 2.0, dev).unwrap();
        let model = EpGpClassifier::new(kernel, InducingPoints::new(&z, 5, 1, dev).unwrap(), 1e-3, 0.0, dev).unwrap();
        let fitc = model.fitc(&t2(x.clone(), 20, 1, dev)).unwrap();
        let mut sites = EpSites::zeros(20);
        run_ep(&fitc, &y, &mut sites, 0.5, 1e-12, 2000).unwrap();
        let q = WhitenedPosterior::from_sites(&fitc, &sites.nu, &sites.mu).unwrap();
        let p = model.predict_proba_with(&t2(vec![-2.0, 0.0, 0.5, 2.5], 4, 1, dev), &q).unwrap();
        (log_z_q(&fitc, &y, &sites).unwrap(), p)
    };
    let (l64, p64) = run(&cpu());
    let (l32, p32) = run(&gpu());
    let rl = ((l32 - l64) / l64).abs();
    let rp = p32.iter().zip(&p64).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("EP log Z_q {rl:.2e}, probabilities {rp:.2e}");
    assert!(rl < 1e-3 && rp < 1e-3);
}
