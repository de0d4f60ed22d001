//! SVGP against the exact GP: equal at Z = X with the optimal q(u), a lower bound otherwise,
//! gradients equal finite differences, and training improves the bound.
use crate::common::*;
use burn::tensor::Tensor;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::{Matern, MaternNu, Rbf};
use burn_gp::likelihoods::{BernoulliProbit, Gaussian};
use burn_gp::models::{ExactGpr, SvgpConfig};
use burn_gp::Error;

struct Data {
    x: Vec<f64>,
    y: Vec<f64>,
    n: usize,
    d: usize,
}

fn toy(n: usize, d: usize, seed: u64) -> Data {
    let x: Vec<f64> = uniform(n * d, seed).iter().map(|v| v * 2.0).collect();
    let noise = uniform(n, seed + 1);
    let y = (0..n).map(|i| (x[i * d] * 2.0).sin() + 0.3 * x[i * d + d - 1] + 0.1 * noise[i]).collect();
    Data { x, y, n, d }
}

#[test]
fn svgp_with_z_equal_x_and_optimal_q_equals_exact_gp() {
    let dev = device();
    let data = toy(30, 2, 1);
    let x = t2(data.x.clone(), data.n, data.d, &dev);
    let y = t2(data.y.clone(), data.n, 1, &dev);
    let kernel = Rbf::new(&[0.8, 1.3], 1.5, &dev).unwrap();
    let gpr = ExactGpr::new(kernel.clone(), Gaussian::new(0.05, &dev).unwrap(), x.clone(), y.clone()).unwrap();
    let lml = scalar(gpr.log_marginal_likelihood().unwrap());
    let z = InducingPoints::new(&data.x, data.n, data.d, &dev).unwrap();
    let model = SvgpConfig::new(data.n)
        .with_jitter(0.0)
        .init(kernel, z, Gaussian::new(0.05, &dev).unwrap(), &dev)
        .unwrap()
        .with_optimal_q(x.clone(), y.clone())
        .unwrap();
    let elbo = scalar(model.elbo(x.clone(), y.clone()).unwrap());
    let rel = ((elbo - lml) / lml).abs();
    assert!(rel < tol(1e-6, 1e-3), "elbo {elbo} vs lml {lml}: rel {rel}");
    let xs = t2(uniform(12 * 2, 99), 12, 2, &dev);
    let (m_s, v_s) = model.predict_f(xs.clone()).unwrap();
    let (m_e, v_e) = gpr.predict_f(xs).unwrap();
    assert!(max_rel_err(&host(m_s), &host(m_e), 1e-3) < tol(1e-6, 1e-3));
    assert!(max_rel_err(&host(v_s), &host(v_e), 1e-3) < tol(1e-6, 1e-2));
}

#[test]
fn elbo_is_a_lower_bound_for_random_inducing_points() {
    let dev = device();
    let data = toy(40, 1, 3);
    let x = t2(data.x.clone(), data.n, data.d, &dev);
    let y = t2(data.y.clone(), data.n, 1, &dev);
    let kernel = Matern::new(MaternNu::FiveHalves, &[0.7], 1.0, &dev).unwrap();
    let gpr = ExactGpr::new(kernel.clone(), Gaussian::new(0.1, &dev).unwrap(), x.clone(), y.clone()).unwrap();
    let lml = scalar(gpr.log_marginal_likelihood().unwrap());
    for seed in 0..4u64 {
        let m = 3 + 3 * seed as usize;
        let zv: Vec<f64> = uniform(m, 50 + seed).iter().map(|v| v * 2.0).collect();
        let z = InducingPoints::new(&zv, m, 1, &dev).unwrap();
        let model = SvgpConfig::new(data.n).init(kernel.clone(), z, Gaussian::new(0.1, &dev).unwrap(), &dev).unwrap();
        // at the prior q and at the optimal q the bound holds
        let prior_elbo = scalar(model.elbo(x.clone(), y.clone()).unwrap());
        let opt = model.with_optimal_q(x.clone(), y.clone()).unwrap();
        let opt_elbo = scalar(opt.elbo(x.clone(), y.clone()).unwrap());
        assert!(prior_elbo < opt_elbo, "optimal q must improve the prior q: {prior_elbo} vs {opt_elbo}");
        assert!(opt_elbo <= lml + 1e-8, "m={m}: elbo {opt_elbo} > lml {lml}");
    }
}

/// ELBO as a function of the inducing inputs Z, for finite differences.
fn elbo_of_z(zv: &[f64], m: usize, data: &Data, dev: &burn::tensor::Device, probit: bool) -> Tensor<1> {
    let x = t2(data.x.clone(), data.n, data.d, dev);
    let kernel = Rbf::new(&[0.9, 1.1], 1.2, dev).unwrap();
    let z = InducingPoints::new(zv, m, data.d, dev).unwrap();
    let cfg = SvgpConfig::new(data.n).with_jitter(1e-8);
    if probit {
        let y = t2(data.y.iter().map(|v| if *v > 0.0 { 1.0 } else { 0.0 }).collect(), data.n, 1, dev);
        let mut model = cfg.init(kernel, z, BernoulliProbit::default(), dev).unwrap();
        model.q_mu = burn::module::Param::from_tensor(t2(uniform(m, 77), 1, m, dev));
        model.elbo(x, y).unwrap()
    } else {
        let y = t2(data.y.clone(), data.n, 1, dev);
        let mut model = cfg.init(kernel, z, Gaussian::new(0.2, dev).unwrap(), dev).unwrap();
        model.q_mu = burn::module::Param::from_tensor(t2(uniform(m, 77), 1, m, dev));
        model.elbo(x, y).unwrap()
    }
}

#[test]
#[cfg_attr(
    any(feature = "wgpu", feature = "cuda"),
    ignore = "f64-only: finite differences or f64 tolerances; the GPU backends compute in f32"
)]
fn elbo_gradient_wrt_inducing_inputs_matches_finite_differences() {
    let data = toy(25, 2, 5);
    let m = 6;
    let zv = uniform(m * 2, 9);
    for probit in [false, true] {
        let ad = ad_device();
        let x = t2(data.x.clone(), data.n, data.d, &ad);
        let kernel = Rbf::new(&[0.9, 1.1], 1.2, &ad).unwrap();
        let z = InducingPoints::new(&zv, m, 2, &ad).unwrap();
        let cfg = SvgpConfig::new(data.n).with_jitter(1e-8);
        let grad_z = if probit {
            let y = t2(data.y.iter().map(|v| if *v > 0.0 { 1.0 } else { 0.0 }).collect(), data.n, 1, &ad);
            let mut model = cfg.init(kernel, z, BernoulliProbit::default(), &ad).unwrap();
            model.q_mu = burn::module::Param::from_tensor(t2(uniform(m, 77), 1, m, &ad));
            let g = model.elbo(x, y).unwrap().backward();
            host(model.inducing.z.grad(&g).expect("grad of Z"))
        } else {
            let y = t2(data.y.clone(), data.n, 1, &ad);
            let mut model = cfg.init(kernel, z, Gaussian::new(0.2, &ad).unwrap(), &ad).unwrap();
            model.q_mu = burn::module::Param::from_tensor(t2(uniform(m, 77), 1, m, &ad));
            let g = model.elbo(x, y).unwrap().backward();
            host(model.inducing.z.grad(&g).expect("grad of Z"))
        };
        let dev = device();
        let fd = fd_grad(&zv, 1e-6, |p| scalar(elbo_of_z(p, m, &data, &dev, probit)));
        let err = max_rel_err(&grad_z, &fd, 1e-2);
        assert!(err < 1e-6, "probit={probit}: relative error {err}\nauto {grad_z:?}\nfd {fd:?}");
    }
}

#[test]
fn adam_training_increases_the_elbo_and_approaches_the_exact_gp() {
    let dev = ad_device();
    let data = toy(200, 1, 11);
    let x = t2(data.x.clone(), data.n, 1, &dev);
    let y = t2(data.y.clone(), data.n, 1, &dev);
    let zv = burn_gp::inducing::inducing_subset(&data.x, data.n, 1, 15, 0).unwrap();
    let model = SvgpConfig::new(data.n)
        .init(
            Rbf::ard(1, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&zv, 15, 1, &dev).unwrap(),
            Gaussian::new(0.1, &dev).unwrap(),
            &dev,
        )
        .unwrap();
    let start = scalar(model.elbo(x.clone(), y.clone()).unwrap());
    let cfg = burn_gp::train::TrainConfig {
        epochs: 60,
        batch_size: 50,
        lr: 0.03,
        seed: 1,
        progress: false,
        ..Default::default()
    };
    let xi = x.clone();
    let yi = y.clone();
    let (model, hist) =
        burn_gp::train::fit(model, data.n, &cfg, |m, idx| m.minibatch_loss(&xi, &yi, idx), |_, _| Ok(vec![])).unwrap();
    assert_eq!(hist.records.len(), 60);
    let end = scalar(model.elbo(x.clone(), y.clone()).unwrap());
    assert!(end > start + 50.0, "ELBO {start} -> {end}");
    // noise estimate close to the true 0.1²/3 + small misfit; RMSE of the fit small
    let (mean, _) = model.predict_f(x).unwrap();
    let pred = host(mean);
    let rmse = (pred.iter().zip(&data.y).map(|(p, t)| (p - t).powi(2)).sum::<f64>() / data.n as f64).sqrt();
    assert!(rmse < 0.12, "train RMSE {rmse}");
}

#[test]
fn shape_and_value_errors_are_typed() {
    let dev = device();
    let data = toy(10, 2, 2);
    let z = InducingPoints::new(&data.x[..6], 3, 2, &dev).unwrap();
    let model = SvgpConfig::new(10)
        .init(Rbf::ard(2, 1.0, 1.0, &dev).unwrap(), z, Gaussian::new(0.1, &dev).unwrap(), &dev)
        .unwrap();
    let x_bad = t2(vec![0.0; 30], 10, 3, &dev);
    let y = t2(vec![0.0; 10], 10, 1, &dev);
    assert!(matches!(model.elbo(x_bad, y.clone()), Err(Error::ShapeMismatch { .. })));
    let x = t2(data.x.clone(), 10, 2, &dev);
    let y_bad = t2(vec![0.0; 9], 9, 1, &dev);
    assert!(matches!(model.elbo(x, y_bad), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(InducingPoints::new(&[f64::NAN, 0.0], 1, 2, &dev), Err(Error::NonFinite { .. })));
    for bad in [0.0, -1.0, f64::NAN] {
        let z = InducingPoints::new(&data.x[..6], 3, 2, &dev).unwrap();
        let kernel = Rbf::ard(2, 1.0, 1.0, &dev).unwrap();
        let init = SvgpConfig::new(10).with_q_sqrt_init(bad).init(kernel, z, Gaussian::new(0.1, &dev).unwrap(), &dev);
        assert!(matches!(init, Err(Error::InvalidArgument { .. })), "q_sqrt_init {bad}");
    }
    // jitter and q_mu_init_std may be 0 but not negative, NaN or infinite.
    let init = |jitter: f64, spread: f64| {
        let z = InducingPoints::new(&data.x[..6], 3, 2, &dev).unwrap();
        let kernel = Rbf::ard(2, 1.0, 1.0, &dev).unwrap();
        let config = SvgpConfig::new(10).with_jitter(jitter).with_q_mu_init_std(spread);
        config.init(kernel, z, Gaussian::new(0.1, &dev).unwrap(), &dev)
    };
    assert!(init(0.0, 0.0).is_ok());
    for bad in [-1e-9, f64::NAN, f64::INFINITY] {
        for (name, r) in [("jitter", init(bad, 0.0)), ("q_mu_init_std", init(1e-6, bad))] {
            assert!(
                matches!(&r, Err(Error::InvalidArgument { name: n, .. }) if n == name),
                "{name} {bad}: {:?}",
                r.err()
            );
        }
    }
    assert!(matches!(Rbf::new(&[-1.0], 1.0, &dev), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        burn_gp::tensors::matrix(vec![1.0, f64::INFINITY], 1, 2, &dev),
        Err(Error::NonFinite { index: 1, .. })
    ));
}

#[test]
fn chunked_prediction_equals_full_prediction_and_history_writes_csv() {
    let dev = ad_device();
    let data = toy(60, 2, 21);
    let x = t2(data.x.clone(), data.n, data.d, &dev);
    let y = t2(data.y.clone(), data.n, 1, &dev);
    let zv = burn_gp::inducing::inducing_subset(&data.x, data.n, 2, 8, 3).unwrap();
    let model = SvgpConfig::new(data.n)
        .init(
            Rbf::ard(2, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&zv, 8, 2, &dev).unwrap(),
            Gaussian::new(0.1, &dev).unwrap(),
            &dev,
        )
        .unwrap();
    let cfg = burn_gp::train::TrainConfig {
        epochs: 3,
        batch_size: 16,
        lr: 0.05,
        seed: 2,
        progress: false,
        ..Default::default()
    };
    let (model, hist) = burn_gp::train::fit(
        model,
        data.n,
        &cfg,
        |m, idx| m.minibatch_loss(&x, &y, idx),
        |m, _| Ok(vec![("kl".to_string(), scalar(m.kl_divergence()))]),
    )
    .unwrap();
    let (m_full, v_full) = model.predict_f(x.clone()).unwrap();
    let (m_chunk, v_chunk) = model.predict_f_chunked(x, 7).unwrap();
    assert!(max_rel_err(&host(m_chunk), &host(m_full), 1e-6) < 1e-12);
    assert!(max_rel_err(&host(v_chunk), &host(v_full), 1e-6) < 1e-12);
    let path = std::env::temp_dir().join(format!("burn_gp_history_{}.csv", std::process::id()));
    hist.write_csv(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "epoch,objective,epoch_s,elapsed_s,kl");
    assert_eq!(lines.len(), 4);
    assert!(lines[3].starts_with("3,"));
    assert!(hist.last_metric("kl").unwrap() > 0.0);
    let _ = std::fs::remove_file(path);
}

#[test]
fn trained_model_round_trips_through_a_burnpack_file() {
    use burn::module::Module;
    let dev = ad_device();
    let data = toy(50, 2, 31);
    let x = t2(data.x.clone(), data.n, data.d, &dev);
    let y = t2(data.y.clone(), data.n, 1, &dev);
    let zv = burn_gp::inducing::inducing_subset(&data.x, data.n, 2, 6, 1).unwrap();
    let build = |dev: &burn::tensor::Device| {
        SvgpConfig::new(data.n)
            .init(
                Rbf::ard(2, 1.0, 1.0, dev).unwrap(),
                InducingPoints::new(&zv, 6, 2, dev).unwrap(),
                Gaussian::new(0.1, dev).unwrap(),
                dev,
            )
            .unwrap()
    };
    let cfg = burn_gp::train::TrainConfig {
        epochs: 5,
        batch_size: 10,
        lr: 0.05,
        seed: 4,
        progress: false,
        ..Default::default()
    };
    let (trained, _) =
        burn_gp::train::fit(build(&dev), data.n, &cfg, |m, idx| m.minibatch_loss(&x, &y, idx), |_, _| Ok(vec![]))
            .unwrap();
    let path = std::env::temp_dir().join(format!("burn_gp_svgp_{}.bpk", std::process::id()));
    let xs = t2(uniform(10, 5), 5, 2, &device());
    let trained = trained.valid();
    let (m0, v0) = trained.predict_y(xs.clone()).unwrap();
    trained.save_file(&path).expect("save");
    let fresh = build(&device());
    let (m_fresh, _) = fresh.predict_y(xs.clone()).unwrap();
    let loaded = fresh.load_file(&path);
    let (m1, v1) = loaded.predict_y(xs).unwrap();
    let (m0, v0, m1, v1) = (host(m0), host(v0), host(m1), host(v1));
    assert!(max_rel_err(&m1, &m0, 1e-9) < 1e-12 && max_rel_err(&v1, &v0, 1e-9) < 1e-12);
    assert!(max_rel_err(&host(m_fresh), &m0, 1e-9) > 1e-3, "training must have changed the model");
    let _ = std::fs::remove_file(path);
}

/// `fit` builds each minibatch's targets from its labels and checks every label first, in blocks
/// of 65 536 rows: a bad label past the first block is a typed error, not a panic or a target
/// tensor of garbage.
#[test]
fn a_bad_label_past_the_first_block_is_a_typed_error() {
    let dev = ad_device();
    let n = 70_000;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.001).sin()).collect();
    let mut labels: Vec<usize> = x.iter().map(|&v| usize::from(v > 0.0)).collect();
    labels[n - 3] = 2; // not a binary label
    let model = SvgpConfig::new(n)
        .init(
            Rbf::ard(1, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&[-0.5, 0.5], 2, 1, &dev).unwrap(),
            BernoulliProbit::default(),
            &dev,
        )
        .unwrap();
    let config = burn_gp::train::TrainConfig { epochs: 1, batch_size: 1000, progress: false, ..Default::default() };
    let result = model.fit(&t2(x, n, 1, &dev), &labels, &config);
    assert!(matches!(result, Err(Error::LabelOutOfRange { label: 2, .. })), "{:?}", result.err());
}
