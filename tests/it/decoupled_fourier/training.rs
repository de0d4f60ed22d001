//! Training end to end (fast CI versions of T16 and T17 of
//! `docs/papers/002-decoupled-fourier-features.md`, section "Tests"): minibatch Adam + natural
//! gradients on a 1-D regression problem against SGPR, and probit classification with Kronecker
//! features against SVGP.
use burn::module::Module;
use burn::tensor::Tensor;
use burn_gp::inducing::fourier::num_freq_for_budget;
use burn_gp::inducing::{inducing_kmeans, FourierFeatures, InducingPoints};
use burn_gp::kernels::{AdditiveMatern, MaternNu, SeparableMatern};
use burn_gp::likelihoods::{BernoulliProbit, Gaussian};
use burn_gp::models::{fit_decoupled, DecoupledGpConfig, Sgpr, SvgpConfig};
use burn_gp::train::{fit, TrainConfig};

use crate::common::*;

/// Standard normal numbers by Box–Muller from the deterministic uniforms.
fn normals(n: usize, seed: u64) -> Vec<f64> {
    let u = uniform(2 * n, seed);
    (0..n)
        .map(|i| {
            let (a, b) = (0.5 * (u[2 * i] + 1.0), 0.5 * (u[2 * i + 1] + 1.0));
            (-2.0 * a.max(1e-300).ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
        })
        .collect()
}

fn quiet(epochs: usize, batch_size: usize, lr: f64) -> TrainConfig {
    TrainConfig { epochs, batch_size, lr, seed: 0, progress: false, ..Default::default() }
}

/// Test log-likelihood and 95% coverage of Gaussian predictions.
fn ll_and_coverage(mean: &[f64], var: &[f64], y: &[f64]) -> (f64, f64) {
    let ll = burn_gp::metrics::gaussian_log_likelihood(mean, var, y).unwrap();
    let inside = mean.iter().zip(var).zip(y).filter(|((m, v), t)| (*t - *m).abs() <= 1.96 * v.sqrt()).count();
    (ll, inside as f64 / y.len() as f64)
}

/// Standardises `v` with the mean and standard deviation of its first `n` values.
fn standardise(v: &[f64], n: usize) -> Vec<f64> {
    let m = v[..n].iter().sum::<f64>() / n as f64;
    let s = (v[..n].iter().map(|x| (x - m).powi(2)).sum::<f64>() / n as f64).sqrt();
    v.iter().map(|x| (x - m) / s).collect()
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn odvff_trained_by_adam_and_natural_gradients_matches_sgpr() {
    // A CI-sized version of T16 (which is N = 5000, ℓ = 0.1, 2000 iterations; run by
    // `odvgp_synthetic`): a Matérn-3/2 GP draw (ℓ = 0.2) at N = 2000 + 500 uniform inputs, noise
    // sd 0.2; ODVFF |β| = 21 (ω_F ≈ 4λ), |γ| = 40, 600 iterations of minibatch 500, against SGPR
    // with 50 points.
    use rand::SeedableRng;
    let (n, nt) = (2000, 500);
    let xs: Vec<f64> = uniform(n + nt, 7).iter().map(|u| 0.5 * (u + 1.0)).collect();
    let f = burn_gp::data::matern32_draw(&xs, 0.2, 1.0, &mut rand::rngs::StdRng::seed_from_u64(7)).unwrap();
    let noise = normals(n + nt, 8);
    let ys: Vec<f64> = f.iter().zip(&noise).map(|(f, e)| f + 0.2 * e).collect();
    let (xs, ys) = (standardise(&xs, n), standardise(&ys, n));
    let (x_train, y_train, y_test) = (&xs[..n], &ys[..n], &ys[n..]);
    let ad = ad_device();
    let dev = device();
    let xt = t2(x_train.to_vec(), n, 1, &ad);
    let yt = t2(y_train.to_vec(), n, 1, &ad);
    let xe = t2(xs[n..].to_vec(), nt, 1, &dev);
    let kernel = AdditiveMatern::new(MaternNu::ThreeHalves, &[0.5], &[1.0], &ad).unwrap();
    let fq = num_freq_for_budget(21, 1, true).unwrap();
    let beta = FourierFeatures::for_data(&kernel, &xs, n + nt, fq, None).unwrap();
    let gamma = InducingPoints::new(&inducing_kmeans(x_train, n, 1, 40, 10, 0).unwrap(), 40, 1, &ad).unwrap();
    let model =
        DecoupledGpConfig::new(n).init(kernel, Some(gamma), beta, Gaussian::new(0.1, &ad).unwrap(), &ad).unwrap();
    let before = scalar(model.elbo(xt.clone(), yt.clone()).unwrap());
    let (model, hist) = fit_decoupled(model, &xt, &yt, &quiet(150, 500, 0.02), 0.1, |_, _| Ok(vec![])).unwrap();
    let model = model.valid();
    let after = scalar(model.elbo(t2(x_train.to_vec(), n, 1, &dev), t2(y_train.to_vec(), n, 1, &dev)).unwrap());
    assert!(after > before + 500.0, "training must raise the ELBO: {before} → {after}");
    assert!(hist.records.last().unwrap().objective < hist.records[0].objective);
    let (m, v) = model.predict_y(xe.clone()).unwrap();
    let (ll, cov) = ll_and_coverage(&host(m), &host(v), y_test);
    let kernel = AdditiveMatern::new(MaternNu::ThreeHalves, &[0.5], &[1.0], &ad).unwrap();
    let z = InducingPoints::new(&inducing_kmeans(x_train, n, 1, 50, 10, 0).unwrap(), 50, 1, &ad).unwrap();
    let sgpr = Sgpr::new(kernel, z, Gaussian::new(0.1, &ad).unwrap(), xt.clone(), yt.clone(), 1e-6).unwrap();
    let (sgpr, _) =
        fit(sgpr, n, &quiet(100, n, 0.03), |m, _| Ok(m.elbo()?.neg().div_scalar(n as f64)), |_, _| Ok(vec![])).unwrap();
    let (ms, vs) = sgpr.valid().predict_y(xe).unwrap();
    let (ll_s, _) = ll_and_coverage(&host(ms), &host(vs), y_test);
    eprintln!(
        "ODVFF test ll {ll:.4} coverage {cov:.3}; SGPR test ll {ll_s:.4} (ODVFF ℓ {:?})",
        model.kernel.lengthscales.to_vec()
    );
    assert!((ll - ll_s).abs() < 0.1, "ODVFF {ll} vs SGPR {ll_s}");
    assert!((0.92..=0.98).contains(&cov), "coverage {cov}");
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn probit_classification_with_kronecker_features_matches_svgp() {
    let n = 500;
    let u = uniform(2 * n, 21);
    let flip = uniform(n, 22);
    let x: Vec<f64> = u.iter().map(|v| 2.0 * v).collect();
    let label = |i: usize| {
        let (a, b) = (x[2 * i], x[2 * i + 1]);
        let clean = b > 0.8 * (2.0 * a).sin() - 0.3 * a;
        (clean != (flip[i] > 0.9)) as u8 as f64 // 5 % label noise
    };
    let y: Vec<f64> = (0..n).map(label).collect();
    let (ntr, nte) = (400, 100);
    let ad = ad_device();
    let dev = device();
    let xt = t2(x[..2 * ntr].to_vec(), ntr, 2, &ad);
    let yt = t2(y[..ntr].to_vec(), ntr, 1, &ad);
    let xe = t2(x[2 * ntr..].to_vec(), nte, 2, &dev);
    let accuracy = |p: Tensor<2>| {
        host(p).iter().zip(&y[ntr..]).filter(|(p, t)| (**p > 0.5) == (**t > 0.5)).count() as f64 / nte as f64
    };
    let z = inducing_kmeans(&x[..2 * ntr], ntr, 2, 12, 10, 0).unwrap();
    // ODVFF: separable Matérn-3/2, (2F+1)² = 25 tensor-product features, |γ| = 12
    let kernel = SeparableMatern::new(MaternNu::ThreeHalves, &[0.7, 0.7], 2.0, &ad).unwrap();
    let beta = FourierFeatures::for_data(&kernel, &x, n, 2, None).unwrap();
    let gamma = InducingPoints::new(&z, 12, 2, &ad).unwrap();
    let model = DecoupledGpConfig::new(ntr).init(kernel, Some(gamma), beta, BernoulliProbit::default(), &ad).unwrap();
    let (model, _) = fit_decoupled(model, &xt, &yt, &quiet(40, 100, 0.03), 0.1, |_, _| Ok(vec![])).unwrap();
    let acc = accuracy(model.valid().predict_y(xe.clone()).unwrap().0);
    // SVGP with 16 points, Adam on everything
    let kernel = SeparableMatern::new(MaternNu::ThreeHalves, &[0.7, 0.7], 2.0, &ad).unwrap();
    let z16 = inducing_kmeans(&x[..2 * ntr], ntr, 2, 16, 10, 0).unwrap();
    let svgp = SvgpConfig::new(ntr)
        .init(kernel, InducingPoints::new(&z16, 16, 2, &ad).unwrap(), BernoulliProbit::default(), &ad)
        .unwrap();
    let (svgp, _) =
        fit(svgp, ntr, &quiet(40, 100, 0.03), |m, idx| m.minibatch_loss(&xt, &yt, idx), |_, _| Ok(vec![])).unwrap();
    let acc_s = accuracy(svgp.valid().predict_y(xe).unwrap().0);
    eprintln!("probit accuracy: ODVFF {acc:.3}, SVGP {acc_s:.3}");
    assert!(acc >= acc_s - 0.02 && acc >= 0.8, "ODVFF {acc} vs SVGP {acc_s}");
}
