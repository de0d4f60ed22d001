//! Training behaviour of the Bayesian SVM (`docs/papers/003-bayesian-svm.md`, section "Tests"):
//! closed-form coordinate ascent (T11), the separable toy set and its off-distribution uncertainty
//! (T12, T13), C = 2 against the binary model (T15), iris and wine (T17), and typed errors for bad
//! input.
use crate::common::*;
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor};
use burn_gp::data::{load_iris, load_wine, stratified_split, Standardiser};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{one_hot, BinaryHinge, MultiClassHinge};
use burn_gp::models::{BayesianSvm, BayesianSvmConfig, ClassPredictive, InducingInit, SvgpConfig};
use burn_gp::train::{fit, TrainConfig};
use burn_gp::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

/// `per_class` points around each centre with standard deviation `sd` (seeded).
fn blobs(centres: &[[f64; 2]], per_class: usize, sd: f64, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, sd).unwrap();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (c, centre) in centres.iter().enumerate() {
        for _ in 0..per_class {
            x.push(centre[0] + noise.sample(&mut rng));
            x.push(centre[1] + noise.sample(&mut rng));
            y.push(c);
        }
    }
    (x, y)
}

const CENTRES: [[f64; 2]; 3] = [[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]];

/// T12's model: RBF σ² = 1, ℓ = 1.5 and P = 8 training points as Z, all fixed; q(u) at the prior.
fn toy_model(x: &[f64], n: usize, dev: &Device) -> BayesianSvm {
    let z = inducing_subset(x, n, 2, 8, 1).unwrap();
    let kernel = Rbf::ard(2, 1.5, 1.0, dev).unwrap().no_grad();
    let inducing = InducingPoints::new(&z, 8, 2, dev).unwrap().fixed();
    SvgpConfig::new(n)
        .with_num_latent(3)
        .with_q_mu_init_std(1e-3)
        .init(kernel, inducing, MultiClassHinge::default(), dev)
        .unwrap()
}

fn accuracy(model: &BayesianSvm, x: &[f64], y: &[usize], dev: &Device) -> f64 {
    let pred = model.predict(t2(x.to_vec(), y.len(), 2, dev)).unwrap().classes();
    pred.iter().zip(y).filter(|(a, b)| a == b).count() as f64 / y.len() as f64
}

#[test]
fn coordinate_ascent_never_decreases_the_objective_and_reaches_a_stationary_point() {
    // T11 on the toy set: every class update of a sweep (t fixed) raises O*, and at the fixed
    // point the gradient with respect to the whitened means vanishes.
    let dev = device();
    let (x, y) = blobs(&CENTRES, 20, 0.5, 7);
    let n = y.len();
    let xt = t2(x.clone(), n, 2, &dev);
    let yt = one_hot(&y, 3, &dev).unwrap();
    let mut model = toy_model(&x, n, &dev);
    // Within a sweep t is held fixed, and every class update must raise the objective evaluated
    // with that t (computed here from the marginals, independently of the likelihood code).
    let objective_with = |m: &BayesianSvm, t: &[usize]| -> f64 {
        let (mean, var) = m.predict_f(xt.clone()).unwrap();
        let (mean, var) = (host(mean), host(var));
        let data: f64 = (0..n)
            .map(|i| {
                let (yi, ti) = (y[i], t[i]);
                let b = 1.0 + mean[i * 3 + ti] - mean[i * 3 + yi];
                -b - (b * b + var[i * 3 + ti] + var[i * 3 + yi] + 1e-12).sqrt()
            })
            .sum();
        data - scalar(m.kl_divergence())
    };
    for sweep in 0..40 {
        let (mean, _) = model.predict_f(xt.clone()).unwrap();
        let t_tensor = MultiClassHinge::competitors(mean, yt.clone());
        let t: Vec<usize> = host(t_tensor.clone().float()).iter().map(|&v| v as usize).collect();
        let mut previous = objective_with(&model, &t);
        for j in 0..3 {
            model = model.update_class(xt.clone(), yt.clone(), t_tensor.clone(), j).unwrap();
            let now = objective_with(&model, &t);
            assert!(now >= previous - 1e-9, "sweep {sweep}, class {j}: O fell from {previous} to {now} (t fixed)");
            previous = now;
        }
    }
    // Holding one t, the sweeps converge to the maximiser of that t's objective: its gradient
    // (central differences in the whitened means) vanishes there.
    let (mean, _) = model.predict_f(xt.clone()).unwrap();
    let t_tensor = MultiClassHinge::competitors(mean, yt.clone());
    let t: Vec<usize> = host(t_tensor.clone().float()).iter().map(|&v| v as usize).collect();
    for _ in 0..600 {
        for j in 0..3 {
            model = model.update_class(xt.clone(), yt.clone(), t_tensor.clone(), j).unwrap();
        }
    }
    let m0 = host(model.q_mu.val());
    let grad = fd_grad(&m0, 1e-5, |m| {
        let mut probe = model.clone();
        probe.q_mu = Param::from_tensor(t2(m.to_vec(), 3, 8, &dev));
        objective_with(&probe, &t)
    });
    let worst = grad.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    assert!(worst < 1e-5, "max |∂O/∂m| at the fixed point of t: {worst}");
    assert_eq!(accuracy(&model, &x, &y, &dev), 1.0);
}

#[test]
fn separable_toy_set_is_learned_by_adam_and_uncertainty_grows_off_distribution() {
    // T12 (Adam route) and T13.
    let dev = ad_device();
    let (x, y) = blobs(&CENTRES, 20, 0.5, 7);
    let n = y.len();
    let xt = t2(x.clone(), n, 2, &dev);
    let yt = one_hot(&y, 3, &dev).unwrap();
    let config = TrainConfig { epochs: 2000, batch_size: n, lr: 1e-2, seed: 0, progress: false, ..Default::default() };
    let (model, history) =
        fit(toy_model(&x, n, &dev), n, &config, |m, idx| m.minibatch_loss(&xt, &yt, idx), |_, _| Ok(vec![])).unwrap();
    let final_loss = history.records.last().unwrap().objective;
    assert!(final_loss < 0.6, "final −O*/N {final_loss} (reference ≈ 0.38–0.41)");
    let model = model.valid();
    let base = device();
    assert_eq!(accuracy(&model, &x, &y, &base), 1.0, "training accuracy");
    let (xs, ys) = blobs(&CENTRES, 200, 0.5, 99);
    assert_eq!(accuracy(&model, &xs, &ys, &base), 1.0, "held-out accuracy");
    // Far from the data the marginals return to the prior and the variation ratio to 1 − 1/C.
    let far = [20.0, 20.0, -15.0, 3.0, 10.0, -12.0];
    let (m, v) = model.predict_f(t2(far.to_vec(), 3, 2, &base)).unwrap();
    let pred = ClassPredictive::from_tensors(m, v).unwrap();
    assert!(pred.mean.iter().all(|f| f.abs() < 1e-3), "far means {:?}", pred.mean);
    assert!(pred.var.iter().all(|s| (s - 1.0).abs() < 1e-3), "far variances {:?}", pred.var);
    let vr = pred.variation_ratio(2000, 3);
    assert!(vr.iter().all(|&r| r >= 0.55), "far variation ratios {vr:?}");
    let (m, v) = model.predict_f(t2(xs.clone(), ys.len(), 2, &base)).unwrap();
    let inside = ClassPredictive::from_tensors(m, v).unwrap().variation_ratio(1000, 4);
    let mean_vr = inside.iter().sum::<f64>() / inside.len() as f64;
    assert!(mean_vr <= 0.15, "mean in-distribution variation ratio {mean_vr}");
}

#[test]
fn two_class_model_is_no_better_than_the_binary_model_and_decides_alike() {
    // T15: C = 2 against the binary BSVM with kernel 2k and the same Z, both at their optimum
    // (closed-form sweeps for the multi-class model, long full-batch Adam for the binary one).
    let dev = device();
    let (x, y) = blobs(&[[0.0, 0.0], [2.0, 1.0]], 40, 1.0, 11);
    let n = y.len();
    let z = inducing_subset(&x, n, 2, 10, 2).unwrap();
    let xt = t2(x.clone(), n, 2, &dev);
    let mc = SvgpConfig::new(n)
        .with_num_latent(2)
        .with_q_mu_init_std(1e-3)
        .init(
            Rbf::ard(2, 1.0, 1.0, &dev).unwrap(),
            InducingPoints::new(&z, 10, 2, &dev).unwrap(),
            MultiClassHinge::default(),
            &dev,
        )
        .unwrap()
        .coordinate_ascent(xt.clone(), one_hot(&y, 2, &dev).unwrap(), 60)
        .unwrap();
    let o_mc = scalar(mc.elbo(xt.clone(), one_hot(&y, 2, &dev).unwrap()).unwrap());
    let ad = ad_device();
    let binary = SvgpConfig::new(n)
        .init(
            Rbf::ard(2, 1.0, 2.0, &ad).unwrap().no_grad(),
            InducingPoints::new(&z, 10, 2, &ad).unwrap().fixed(),
            BinaryHinge::default(),
            &ad,
        )
        .unwrap();
    // Binary targets: 1 for class 0 (y′ = +1 ⇔ g = f₀ − f₁ > 0).
    let yb = t2(y.iter().map(|&c| if c == 0 { 1.0 } else { 0.0 }).collect(), n, 1, &ad);
    let xa = t2(x.clone(), n, 2, &ad);
    let config = TrainConfig { epochs: 3000, batch_size: n, lr: 2e-2, seed: 0, progress: false, ..Default::default() };
    let (binary, _) = fit(binary, n, &config, |m, idx| m.minibatch_loss(&xa, &yb, idx), |_, _| Ok(vec![])).unwrap();
    let binary = binary.valid();
    let o_bin = scalar(binary.elbo(xt.clone(), t2(host(yb.inner()), n, 1, &dev)).unwrap());
    assert!(o_mc <= o_bin + 1e-6, "O*_MC {o_mc} should not exceed O*_bin {o_bin}");
    let (xs, _) = blobs(&[[0.0, 0.0], [2.0, 1.0]], 200, 1.0, 12);
    let ns = xs.len() / 2;
    let (m, v) = mc.predict_f(t2(xs.clone(), ns, 2, &dev)).unwrap();
    let mc_class = ClassPredictive::from_tensors(m, v).unwrap().classes();
    let (g, _) = binary.predict_f(t2(xs, ns, 2, &dev)).unwrap();
    let bin_class: Vec<usize> = host(g).iter().map(|&g| if g > 0.0 { 0 } else { 1 }).collect();
    let agree = mc_class.iter().zip(&bin_class).filter(|(a, b)| a == b).count() as f64 / ns as f64;
    assert!(agree >= 0.98, "decision agreement {agree}");
}

/// T17: stratified 70/30 split, z-scored, P = 16 random training points, median-heuristic ARD
/// RBF, everything trained by Adam (lr 1e-2, B = 128, 300 epochs).
fn tabular_accuracy(table: burn_gp::data::ClassTable) -> f64 {
    let t = table.table;
    let (n, d) = (t.y.len(), t.d);
    let classes = table.class_names.len();
    let split = stratified_split(&t.y, 0.3, 0).unwrap();
    let rows = |idx: &[usize]| -> (Vec<f64>, Vec<usize>) {
        (idx.iter().flat_map(|&i| t.x[i * d..(i + 1) * d].to_vec()).collect(), idx.iter().map(|&i| t.y[i]).collect())
    };
    let (x_train, y_train) = rows(&split.train);
    let (x_test, y_test) = rows(&split.test);
    assert_eq!(split.train.len() + split.test.len(), n);
    let scaler = Standardiser::fit(&x_train, y_train.len(), d).unwrap();
    let (x_train, x_test) = (scaler.transform(&x_train).unwrap(), scaler.transform(&x_test).unwrap());
    let dev = ad_device();
    let model = BayesianSvmConfig::tabular(classes)
        .with_num_inducing(16)
        .with_inducing_init(InducingInit::Subset)
        .init(&by_cols(&x_train, d, &dev), &y_train)
        .unwrap();
    let nt = y_train.len();
    let xt = t2(x_train, nt, d, &dev);
    let yt = one_hot(&y_train, classes, &dev).unwrap();
    let config = TrainConfig { epochs: 300, batch_size: 128, lr: 1e-2, seed: 0, progress: false, ..Default::default() };
    let (model, _) = fit(model, nt, &config, |m, idx| m.minibatch_loss(&xt, &yt, idx), |_, _| Ok(vec![])).unwrap();
    let base = device();
    let (m, v) = model.valid().predict_f(t2(x_test, y_test.len(), d, &base)).unwrap();
    let pred = ClassPredictive::from_tensors(m, v).unwrap().classes();
    pred.iter().zip(&y_test).filter(|(a, b)| a == b).count() as f64 / y_test.len() as f64
}

#[test]
fn iris_and_wine_are_classified_well() {
    let Some(root) = data_root_or_skip() else { return };
    let iris = tabular_accuracy(load_iris(&root).unwrap());
    let wine = tabular_accuracy(load_wine(&root).unwrap());
    assert!(iris >= 0.9 && wine >= 0.9, "test accuracy iris {iris}, wine {wine} (reference 0.978 / 0.981)");
}

#[test]
fn bad_input_gives_typed_errors() {
    let dev = device();
    let x = vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let cfg = BayesianSvmConfig::tabular(3).with_num_inducing(2);
    assert!(matches!(cfg.init(&by_cols(&x, 2, &dev), &[0, 1, 3]), Err(Error::LabelOutOfRange { label: 3, .. })));
    assert!(matches!(
        BayesianSvmConfig::tabular(1).init(&by_cols(&x, 2, &dev), &[0, 0, 0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(cfg.init(&by_cols(&x, 2, &dev), &[]), Err(Error::Empty { .. })));
    assert!(matches!(
        cfg.init(&by_cols(&[0.0, f64::NAN, 1.0, 2.0, 3.0, 4.0], 2, &dev), &[0, 1, 2]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        cfg.with_num_inducing(5).init(&by_cols(&x, 2, &dev), &[0, 1, 2]),
        Err(Error::InvalidArgument { .. })
    ));
    let model = BayesianSvmConfig::tabular(3).with_num_inducing(2).init(&by_cols(&x, 2, &dev), &[0, 1, 2]).unwrap();
    let wrong_width = t2(vec![0.0; 9], 3, 3, &dev);
    assert!(matches!(model.predict_f(wrong_width), Err(Error::ShapeMismatch { .. })));
    let empty = Tensor::<2>::zeros([0, 2], &dev);
    assert!(model.predict_f(empty).is_err());
}

/// One-vs-rest trains its C binary models one after another and reports one history: per epoch
/// the sum of their objectives, each model's objective as a metric.
#[test]
fn one_vs_rest_fit_reports_one_history_summing_its_models() {
    let dev = ad_device();
    let (x, y) = blobs(&[[-2.0, 0.0], [2.0, 0.0], [0.0, 2.5]], 20, 0.5, 41);
    let xt = by_cols(&x, 2, &dev);
    let ovr = BayesianSvmConfig::tabular(3).with_num_inducing(5).init_one_vs_rest(&xt, &y).unwrap();
    let config = TrainConfig { epochs: 3, batch_size: 20, progress: false, ..Default::default() };
    let (ovr, history) = ovr.fit(&xt, &y, &config).unwrap();
    assert_eq!(history.records.len(), 3);
    for r in &history.records {
        assert_eq!(r.metrics.len(), 3);
        let sum: f64 = r.metrics.iter().map(|m| m.1).sum();
        assert!((r.objective - sum).abs() <= 1e-12 * sum.abs(), "{} vs {sum}", r.objective);
    }
    let acc = ovr.valid().predict(by_cols(&x, 2, &device())).unwrap().accuracy(&y).unwrap();
    assert!(acc > 0.8, "training accuracy {acc}");
}
