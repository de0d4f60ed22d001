//! One lifecycle for every model: built from its config, trained by `fit`, queried by `predict`,
//! saved and loaded (`burn_gp::saved`). A model loaded from its file predicts exactly (bit for
//! bit) what it predicted before saving, without the training data or a placeholder model; files
//! of another model type, damaged files (thousands of seeded mutations: `saved_mutation`) and
//! missing files are typed errors.
use crate::common::mlp::Mlp;
use crate::common::{by_cols, by_rows};
use crate::saved_mutation::assert_loads_survive_damage;
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::{ClassTable, Table};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::{Matern, Rbf};
use burn_gp::likelihoods::{BinaryHinge, Gaussian};
use burn_gp::models::{
    BayesianSvm, BayesianSvmConfig, DeepGp, DeepGpConfig, EpGpClassifier, EpGpClassifierConfig, OneVsRestBsvm, Svgp,
    SvgpConfig,
};
use burn_gp::models::{GaussianPredictive, Predictor};
use burn_gp::nets::{fit_hybrid, HybridConfig, HybridNet, MnistTrunk, MnistTrunkConfig, SoftmaxNet};
use burn_gp::saved::SavedModel;
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::TrainConfig;
use burn_gp::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

fn base() -> Device {
    burn_gp::device::default_device().unwrap()
}

/// A fresh path in the temporary directory.
fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("burn-gp-saved-{}-{name}", std::process::id()))
}

/// `n` points of three 2-D Gaussian blobs: rows and labels.
fn blobs(n: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 1.0).unwrap();
    let centres = [(0.0, 0.0), (3.0, 0.0), (1.5, 2.5)];
    let mut x = Vec::with_capacity(2 * n);
    let labels = (0..n).map(|i| i % 3).collect::<Vec<_>>();
    for &c in &labels {
        x.push(centres[c].0 + noise.sample(&mut rng));
        x.push(centres[c].1 + noise.sample(&mut rng));
    }
    (x, labels)
}

/// A few Adam epochs on a fresh multi-class Bayesian SVM.
fn trained_bsvm() -> (BayesianSvm, Vec<f64>) {
    let (x, labels) = blobs(90, 1);
    let train = base().autodiff();
    let model = BayesianSvmConfig::tabular(3).with_num_inducing(8).init(&by_cols(&x, 2, &train), &labels).unwrap();
    let config = TrainConfig { epochs: 5, batch_size: 30, progress: false, ..Default::default() };
    let (model, _) = model.fit(&matrix(x.clone(), 90, 2, &train).unwrap(), &labels, &config).unwrap();
    (model.valid(), x)
}

#[test]
fn sparse_variational_models_load_and_predict_bit_for_bit() {
    let dev = base();
    let (bsvm, x) = trained_bsvm();
    let xt = matrix(x.clone(), 90, 2, &dev).unwrap();
    let path = temp("bsvm");
    bsvm.save(&path).unwrap();
    assert_loads_survive_damage("bayesian-svm", &path, |p| BayesianSvm::<Rbf>::load(p, &dev));
    let loaded = BayesianSvm::<Rbf>::load(&path, &dev).unwrap();
    let (before, after) = (bsvm.predict(xt.clone()).unwrap(), loaded.predict(xt.clone()).unwrap());
    assert_eq!((before.mean, before.var), (after.mean, after.var));
    assert_eq!(loaded.num_data, 90);

    // Another model type or piece in the file: typed errors, not panics.
    let as_deep = DeepGp::load(&path, &dev);
    assert!(matches!(as_deep, Err(Error::ModelMismatch { .. })), "{as_deep:?}");
    let as_matern = Svgp::<Matern, InducingPoints, burn_gp::likelihoods::MultiClassHinge>::load(&path, &dev);
    assert!(matches!(as_matern, Err(Error::ModelMismatch { .. })), "{as_matern:?}");
    let as_binary = Svgp::<Rbf, InducingPoints, BinaryHinge>::load(&path, &dev);
    assert!(matches!(as_binary, Err(Error::ModelMismatch { .. })), "{as_binary:?}");

    // Damaged and missing files.
    let bytes = std::fs::read(&path).unwrap();
    let cut = temp("bsvm-cut");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(BayesianSvm::<Rbf>::load(&cut, &dev), Err(Error::BadFormat { .. })));
    std::fs::write(&cut, b"not a model").unwrap();
    assert!(matches!(BayesianSvm::<Rbf>::load(&cut, &dev), Err(Error::BadFormat { .. })));
    assert!(matches!(BayesianSvm::<Rbf>::load(temp("missing"), &dev), Err(Error::Io { .. })));

    // SVGP regression: the Gaussian likelihood's noise is a trained tensor.
    let y: Vec<f64> = x.chunks(2).map(|r| (r[0] - r[1]).sin()).collect();
    let train = dev.clone().autodiff();
    let kernel = Rbf::new(&[1.0, 1.0], 1.0, &train).unwrap();
    let inducing = InducingPoints::new(&x[..16], 8, 2, &train).unwrap();
    let svgp = SvgpConfig::new(90).init(kernel, inducing, Gaussian::new(0.3, &train).unwrap(), &train).unwrap();
    let (xa, ya) = (matrix(x.clone(), 90, 2, &train).unwrap(), matrix(y, 90, 1, &train).unwrap());
    let config = TrainConfig { epochs: 3, batch_size: 30, progress: false, ..Default::default() };
    let (svgp, _) =
        burn_gp::train::fit(svgp, 90, &config, |m, idx| m.minibatch_loss(&xa, &ya, idx), |_, _| Ok(vec![])).unwrap();
    let svgp = svgp.valid();
    svgp.save(&path).unwrap();
    assert_loads_survive_damage("svgp-regression", &path, |p| Svgp::<Rbf, InducingPoints, Gaussian>::load(p, &dev));
    let loaded = Svgp::<Rbf, InducingPoints, Gaussian>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(svgp.predict_y(xt.clone()).unwrap().1), to_vec(loaded.predict_y(xt.clone()).unwrap().1));

    // One-vs-rest: one binary model per class.
    let (x3, labels) = blobs(60, 2);
    let ovr =
        BayesianSvmConfig::tabular(3).with_num_inducing(6).init_one_vs_rest(&by_cols(&x3, 2, &dev), &labels).unwrap();
    ovr.save(&path).unwrap();
    assert_loads_survive_damage("one-vs-rest-bsvm", &path, |p| OneVsRestBsvm::<Rbf>::load(p, &dev));
    let loaded = OneVsRestBsvm::<Rbf>::load(&path, &dev).unwrap();
    assert_eq!(ovr.predict(xt.clone()).unwrap().mean, loaded.predict(xt).unwrap().mean);
    for p in [path, cut] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn networks_with_gp_heads_load_with_their_normaliser_and_head() {
    let dev = base();
    let train = dev.clone().autodiff();
    let (x, labels) = blobs(200, 3);
    let table =
        ClassTable::new(Table::new(x.clone(), labels, 2).unwrap(), vec!["a".into(), "b".into(), "c".into()]).unwrap();
    let recipe = HybridConfig::classes(3).with_init_samples(200);
    let net = recipe.init(Mlp::new(2, 16, 4, 0, &train), &table, &train).unwrap();
    let config = TrainConfig { epochs: 2, batch_size: 40, progress: false, ..Default::default() };
    let (net, _) = fit_hybrid(net, &table, &recipe, &config, |_, _| Ok(vec![])).unwrap();
    let net = net.valid();
    let xt = matrix(x, 200, 2, &dev).unwrap();
    let path = temp("mlp-hybrid");
    net.save(&path).unwrap();
    assert_loads_survive_damage("mlp-hybrid", &path, |p| HybridNet::<Mlp>::load(p, &dev));
    let loaded = HybridNet::<Mlp>::load(&path, &dev).unwrap();
    assert_eq!(net.predict(xt.clone()).unwrap().mean, loaded.predict(xt).unwrap().mean);

    // The paper's CNN with its head: loads without a placeholder feature sample.
    let images = Tensor::<4>::ones([3, 1, 28, 28], &dev).mul_scalar(0.3);
    let cnn = MnistTrunkConfig::new().with_out_dim(10).init(&dev);
    let head = burn_gp::nets::GpHeadConfig::new(10).with_num_inducing(5);
    let sample: Vec<f64> = (0..50).map(|v| (v as f64 * 0.37).sin()).collect();
    let norm = burn_gp::nets::FeatureNormalizer::new(burn_gp::nets::FeatureNorm::Batch, 10, &dev);
    let head = head.init::<burn_gp::likelihoods::MultiClassHinge>(&sample, 10, 100, &dev).unwrap();
    let hybrid = HybridNet::new(cnn, norm, head).unwrap();
    hybrid.save(&path).unwrap();
    assert_loads_survive_damage("mnist-hybrid", &path, |p| HybridNet::<MnistTrunk>::load(p, &dev));
    let loaded = HybridNet::<MnistTrunk>::load(&path, &dev).unwrap();
    assert_eq!(hybrid.predict(images.clone()).unwrap().mean, loaded.predict(images.clone()).unwrap().mean);
    assert!(matches!(HybridNet::<Mlp>::load(&path, &dev), Err(Error::ModelMismatch { .. })));

    // The softmax baseline on the same trunk.
    let soft = SoftmaxNet::new(MnistTrunkConfig::new().with_out_dim(10).init(&dev), 7, &dev);
    soft.save(&path).unwrap();
    assert_loads_survive_damage("mnist-softmax", &path, |p| SoftmaxNet::<MnistTrunk>::load(p, &dev));
    let loaded = SoftmaxNet::<MnistTrunk>::load(&path, &dev).unwrap();
    assert_eq!(loaded.classes(), 7);
    assert_eq!(to_vec(soft.logits(images.clone())), to_vec(loaded.logits(images)));
    assert!(matches!(HybridNet::<MnistTrunk>::load(&path, &dev), Err(Error::ModelMismatch { .. })));
    let _ = std::fs::remove_file(path);
}

#[test]
fn deep_gps_and_ep_classifiers_load_and_predict_bit_for_bit() {
    let dev = base();
    let train = dev.clone().autodiff();
    let (x, labels) = blobs(60, 4);
    let y: Vec<f64> = x.chunks(2).map(|r| r[0].sin() + 0.5 * r[1]).collect();
    let deep = DeepGpConfig::new(2).with_num_inducing(6).init(&by_cols(&x, 2, &dev), &by_rows(&y, 60, &dev)).unwrap();
    let xt = matrix(x.clone(), 60, 2, &dev).unwrap();
    let path = temp("deep");
    deep.save(&path).unwrap();
    assert_loads_survive_damage("deep-gp", &path, |p| DeepGp::load(p, &dev));
    let loaded = DeepGp::load(&path, &dev).unwrap();
    assert_eq!(deep.predict(xt.clone()).unwrap(), loaded.predict(xt.clone()).unwrap());
    let (before, after) = (deep.predict_moments(xt.clone()).unwrap(), loaded.predict_moments(xt.clone()).unwrap());
    assert_eq!((to_vec(before.0), to_vec(before.1)), (to_vec(after.0), to_vec(after.1)));
    // the shared trait: one signature for every model, the same numbers as the model's own methods
    let generic = mean_log_density(&deep, &xt, &y);
    let own = deep.predict_log_density(xt.clone(), matrix(y.clone(), 60, 1, &dev).unwrap()).unwrap();
    assert!((generic - own.iter().sum::<f64>() / 60.0).abs() < 1e-12, "{generic} vs {own:?}");
    let (f_mean, f_var) = Predictor::predict_f(&deep, &xt).unwrap();
    let (y_mean, y_var) = deep.predict_moments(xt.clone()).unwrap();
    assert_eq!(to_vec(f_mean), to_vec(y_mean));
    let noise = to_vec(deep.blocks.last().unwrap().gp.noise_variance())[0];
    for (f, y) in to_vec(f_var).iter().zip(to_vec(y_var)) {
        assert!((f + noise - y).abs() < 1e-12, "latent {f} + noise {noise} vs predictive {y}");
    }

    // EP: the sites and q(u) come back with the classifier.
    let binary: Vec<usize> = labels.iter().map(|&c| usize::from(c == 0)).collect();
    let kernel = Rbf::new(&[1.0, 1.0], 1.0, &train).unwrap();
    let inducing = InducingPoints::new(&x[..12], 6, 2, &train).unwrap();
    let model = EpGpClassifierConfig::new().init(kernel, inducing, &train).unwrap();
    let xp = matrix(x.clone(), 60, 2, &train).unwrap();
    // before a fit: saved and loaded untrained, predicting the prior
    model.save(&path).unwrap();
    let untrained = EpGpClassifier::<Rbf>::load(&path, &dev).unwrap();
    assert!(untrained.posterior().is_none() && untrained.log_marginal_likelihood().is_none());
    assert_eq!(model.predict_proba(&xp).unwrap(), untrained.predict_proba(&xp).unwrap());
    let config = EpGpClassifierConfig::new().paper_train_config().with_epochs(3).with_progress(false);
    let (fit, _history) = model.fit(&matrix(x, 60, 2, &train).unwrap(), &binary, &config).unwrap();
    fit.save(&path).unwrap();
    assert_loads_survive_damage("ep-fit", &path, |p| EpGpClassifier::<Rbf>::load(p, &dev));
    let loaded = EpGpClassifier::<Rbf>::load(&path, &dev).unwrap();
    assert_eq!(fit.predict_proba(&xp).unwrap(), loaded.predict_proba(&xp).unwrap());
    assert_eq!(fit.ep_state().unwrap().sites.nu, loaded.ep_state().unwrap().sites.nu);
    assert_eq!(fit.log_marginal_likelihood(), loaded.log_marginal_likelihood());
    assert!(fit.log_marginal_likelihood().is_some());
    assert_ne!(fit.predict_proba(&xp).unwrap(), untrained.predict_proba(&xp).unwrap());
    // through the predictive's probabilities; the model's own method uses the stable log-CDF
    let generic = Predictor::predict_log_density(&fit, &xp, &binary).unwrap();
    let own = fit.predict_log_density(&xp, &binary).unwrap();
    assert!(generic.iter().zip(&own).all(|(a, b)| (a - b).abs() < 1e-12), "{generic:?} vs {own:?}");
    assert!((-generic.iter().sum::<f64>() / 60.0 - fit.predict(&xp).unwrap().nll(&binary).unwrap()).abs() < 1e-12);
    assert!(matches!(BayesianSvm::<Rbf>::load(&path, &dev), Err(Error::ModelMismatch { .. })));
    let _ = std::fs::remove_file(path);
}

#[test]
fn skew_gp_posteriors_load_with_their_draws() {
    use burn_gp::models::{SkewGp, SkewGpConfig, SkewGpPosterior};
    let dev = base();
    let train = dev.clone().autodiff();
    let (x, labels) = blobs(40, 5);
    let x1: Vec<f64> = x.chunks(2).map(|r| r[0]).collect();
    let binary: Vec<usize> = labels.iter().map(|&c| usize::from(c == 1)).collect();
    let config = SkewGpConfig::new()
        .with_latent_dim(2)
        .with_block_size(20)
        .with_qmc_points(64)
        .with_qmc_shifts(2)
        .with_phase_screen_epochs(1)
        .with_samples(200)
        .with_burn_in(20);
    let xt = matrix(x1.clone(), 40, 1, &train).unwrap();
    let model = config.init(Rbf::new(&[1.0], 1.0, &train).unwrap(), &xt).unwrap();
    let path = temp("skew");
    // before a fit: the prior saves and loads, and predicting is a typed error
    model.save(&path).unwrap();
    let prior = SkewGp::<Rbf>::load(&path, &dev).unwrap();
    assert!(prior.posterior().is_none());
    assert!(matches!(prior.predict(&matrix(vec![0.0], 1, 1, &dev).unwrap()), Err(Error::InvalidArgument { .. })));
    let train_config = config.paper_train_config().with_epochs(3).with_progress(false);
    let (fit, _history) = model.fit(&xt, &binary, &train_config).unwrap();
    let posterior = fit.posterior().unwrap();
    posterior.save(&path).unwrap();
    assert_loads_survive_damage("skew-gp-posterior", &path, |p| SkewGpPosterior::<Rbf>::load(p, &dev));
    let loaded = SkewGpPosterior::<Rbf>::load(&path, &dev).unwrap();
    let test = matrix((0..15).map(|i| -3.0 + 0.4 * i as f64).collect(), 15, 1, &dev).unwrap();
    assert_eq!(posterior.predict_details(&test).unwrap().prob, loaded.predict_details(&test).unwrap().prob);
    assert_eq!(posterior.gamma_tilde(), loaded.gamma_tilde());
    // the fitted model saves its posterior with it and predicts bit for bit after a load
    fit.save(&path).unwrap();
    let model_back = SkewGp::<Rbf>::load(&path, &dev).unwrap();
    assert_eq!(fit.predict(&test).unwrap().probabilities(), model_back.predict(&test).unwrap().probabilities());
    assert_eq!(fit.predict_f(&test).unwrap().1.to_data(), model_back.predict_f(&test).unwrap().1.to_data());
    assert_eq!(loaded.labels(), binary);
    assert!(matches!(EpGpClassifier::<Rbf>::load(&path, &dev), Err(Error::ModelMismatch { .. })));
    let _ = std::fs::remove_file(path);
}

#[test]
fn regression_models_with_training_data_and_decoupled_bases_load_bit_for_bit() {
    use burn_gp::inducing::FourierFeatures;
    use burn_gp::kernels::{AdditiveMatern, MaternNu};
    use burn_gp::models::{DecoupledGpConfig, ExactGpr, Odvff, Odvgp, Sgpr};
    let dev = base();
    let (x, _) = blobs(30, 6);
    let y: Vec<f64> = x.chunks(2).map(|r| r[0].cos() - 0.3 * r[1]).collect();
    let (xt, yt) = (matrix(x.clone(), 30, 2, &dev).unwrap(), matrix(y, 30, 1, &dev).unwrap());
    let yt_copy = yt.clone();
    let test = matrix((0..20).map(|i| -2.0 + 0.25 * i as f64).collect(), 10, 2, &dev).unwrap();
    let path = temp("regression");
    let kernel = || Rbf::new(&[0.8, 1.3], 1.5, &dev).unwrap();
    let noise = || Gaussian::new(0.1, &dev).unwrap();

    // Exact GPR and SGPR hold their training data: the file carries it.
    let gpr = ExactGpr::new(kernel(), noise(), xt.clone(), yt.clone()).unwrap();
    gpr.save(&path).unwrap();
    assert_loads_survive_damage("exact-gpr-rbf", &path, |p| ExactGpr::<Rbf>::load(p, &dev));
    let loaded = ExactGpr::<Rbf>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(gpr.predict_f(test.clone()).unwrap().1), to_vec(loaded.predict_f(test.clone()).unwrap().1));
    // Every regression model's `predict` is the GaussianPredictive of y (noise included).
    let (pred, f_var) = (loaded.predict(test.clone()).unwrap(), to_vec(gpr.predict_f(test.clone()).unwrap().1));
    let s2 = gpr.likelihood.variance.to_vec()[0];
    assert!(pred.var.iter().zip(&f_var).all(|(v, f)| (v - f - s2).abs() < 1e-12));
    let z = InducingPoints::new(&x[..10], 5, 2, &dev).unwrap();
    let sgpr = Sgpr::new(kernel(), z, noise(), xt.clone(), yt.clone(), 1e-6).unwrap();
    sgpr.save(&path).unwrap();
    assert_loads_survive_damage("sgpr", &path, |p| Sgpr::<Rbf, InducingPoints>::load(p, &dev));
    let loaded = Sgpr::<Rbf, InducingPoints>::load(&path, &dev).unwrap();
    assert_eq!(sgpr.predict(test.clone()).unwrap(), loaded.predict(test.clone()).unwrap());
    assert_eq!(to_vec(sgpr.predict_y(test.clone()).unwrap().0), to_vec(loaded.predict_y(test.clone()).unwrap().0));
    // A non-stationary kernel: the arcsine (neural-network) kernel's three parameter sets travel too.
    use burn_gp::kernels::ArcSine;
    let arcsine = ArcSine::new(&[0.6, 1.7], 0.3, 1.2, &dev).unwrap();
    let gpr = ExactGpr::new(arcsine, noise(), xt.clone(), yt.clone()).unwrap();
    gpr.save(&path).unwrap();
    assert_loads_survive_damage("exact-gpr-arcsine", &path, |p| ExactGpr::<ArcSine>::load(p, &dev));
    let loaded = ExactGpr::<ArcSine>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(gpr.predict_f(test.clone()).unwrap().1), to_vec(loaded.predict_f(test.clone()).unwrap().1));
    assert!(matches!(ExactGpr::<Rbf>::load(&path, &dev), Err(Error::ModelMismatch { .. })));

    // ODVGP: inducing points for both bases, trained by the common `fit` (Adam + natural steps).
    let ad = dev.clone().autodiff();
    let mean_points = InducingPoints::new(&x[..14], 7, 2, &ad).unwrap();
    let cov_points = InducingPoints::new(&x[20..28], 4, 2, &ad).unwrap();
    let (kernel_ad, noise_ad) = (Rbf::new(&[0.8, 1.3], 1.5, &ad).unwrap(), Gaussian::new(0.1, &ad).unwrap());
    let odvgp: Odvgp<Rbf, Gaussian> = DecoupledGpConfig::new(30)
        .with_jitter(1e-6)
        .init(kernel_ad, Some(mean_points), cov_points, noise_ad, &ad)
        .unwrap();
    let config = TrainConfig { epochs: 3, batch_size: 10, progress: false, ..Default::default() };
    let (xa, ya) = (xt.clone().to_device(&ad), yt_copy.to_device(&ad));
    let (odvgp, history) = odvgp.fit(&xa, &ya, &config).unwrap();
    assert!(history.records.iter().all(|r| r.objective.is_finite()));
    let odvgp = odvgp.valid();
    odvgp.save(&path).unwrap();
    assert_loads_survive_damage("odvgp", &path, |p| Odvgp::<Rbf, Gaussian>::load(p, &dev));
    let loaded = Odvgp::<Rbf, Gaussian>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(odvgp.predict_f(test.clone()).unwrap().1), to_vec(loaded.predict_f(test.clone()).unwrap().1));

    // ODVFF: Fourier features of an additive Matérn kernel on a box.
    let additive = AdditiveMatern::new(MaternNu::ThreeHalves, &[0.7, 1.1], &[1.0, 0.5], &dev).unwrap();
    let features = FourierFeatures::new(&additive, &[(-4.0, 6.0), (-3.0, 5.0)], 3).unwrap();
    let odvff: Odvff<AdditiveMatern, Gaussian> = DecoupledGpConfig::new(30)
        .init(additive, Some(InducingPoints::new(&x[..6], 3, 2, &dev).unwrap()), features, noise(), &dev)
        .unwrap();
    odvff.save(&path).unwrap();
    assert_loads_survive_damage("odvff", &path, |p| Odvff::<AdditiveMatern, Gaussian>::load(p, &dev));
    let loaded = Odvff::<AdditiveMatern, Gaussian>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(odvff.predict_f(test.clone()).unwrap().0), to_vec(loaded.predict_f(test.clone()).unwrap().0));
    assert!(matches!(Odvgp::<Rbf, Gaussian>::load(&path, &dev), Err(Error::ModelMismatch { .. })));

    // Fourier features as the inducing variables of an SVGP (VFF-SVGP) and of SGPR.
    let additive = || AdditiveMatern::new(MaternNu::ThreeHalves, &[0.7, 1.1], &[1.0, 0.5], &dev).unwrap();
    let box_ = [(-4.0, 6.0), (-3.0, 5.0)];
    let features = FourierFeatures::new(&additive(), &box_, 3).unwrap();
    let vff: Svgp<AdditiveMatern, FourierFeatures, Gaussian> =
        SvgpConfig::new(30).init(additive(), features, noise(), &dev).unwrap();
    vff.save(&path).unwrap();
    assert_loads_survive_damage("vff-svgp", &path, |p| {
        Svgp::<AdditiveMatern, FourierFeatures, Gaussian>::load(p, &dev)
    });
    let loaded = Svgp::<AdditiveMatern, FourierFeatures, Gaussian>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(vff.predict_f(test.clone()).unwrap().1), to_vec(loaded.predict_f(test.clone()).unwrap().1));
    let features = FourierFeatures::new(&additive(), &box_, 3).unwrap();
    let vff_sgpr = Sgpr::new(additive(), features, noise(), xt.clone(), yt.clone(), 1e-6).unwrap();
    vff_sgpr.save(&path).unwrap();
    let loaded = Sgpr::<AdditiveMatern, FourierFeatures>::load(&path, &dev).unwrap();
    assert_eq!(vff_sgpr.predict(test.clone()).unwrap(), loaded.predict(test.clone()).unwrap());
    assert!(matches!(Sgpr::<Rbf, InducingPoints>::load(&path, &dev), Err(Error::ModelMismatch { .. })));
    let _ = std::fs::remove_file(path);
}

#[test]
fn full_batch_regression_models_fit_their_marginal_likelihood_bounds() {
    use burn_gp::models::{ExactGpr, Sgpr};
    let ad = base().autodiff();
    let (x, _) = blobs(40, 7);
    let y: Vec<f64> = x.chunks(2).map(|r| (1.5 * r[0]).sin() + 0.1 * r[1]).collect();
    let (xt, yt) = (matrix(x.clone(), 40, 2, &ad).unwrap(), matrix(y, 40, 1, &ad).unwrap());
    let config = TrainConfig { epochs: 60, lr: 0.05, progress: false, ..Default::default() };
    let kernel = || Rbf::new(&[3.0, 3.0], 0.3, &ad).unwrap();
    let gpr = ExactGpr::new(kernel(), Gaussian::new(1.0, &ad).unwrap(), xt.clone(), yt.clone()).unwrap();
    let before = gpr.log_marginal_likelihood().unwrap().into_scalar::<f64>();
    let (gpr, history) = gpr.fit(&config).unwrap();
    let after = gpr.log_marginal_likelihood().unwrap().into_scalar::<f64>();
    assert!(after > before + 5.0, "log p(y): {before} → {after}");
    assert!((history.records.last().unwrap().objective + after / 40.0).abs() < 0.05);
    let z = InducingPoints::new(&x[..12], 6, 2, &ad).unwrap();
    let sgpr = Sgpr::new(kernel(), z, Gaussian::new(1.0, &ad).unwrap(), xt, yt, 1e-6).unwrap();
    let before = sgpr.elbo().unwrap().into_scalar::<f64>();
    let (sgpr, _) = sgpr.fit(&config).unwrap();
    let after = sgpr.elbo().unwrap().into_scalar::<f64>();
    assert!(after > before + 5.0, "ELBO: {before} → {after}");
}

#[test]
fn sums_and_products_of_kernels_and_the_linear_kernel_load_bit_for_bit() {
    use burn_gp::kernels::{Linear, Product, Sum};
    use burn_gp::models::ExactGpr;
    type SumKernel = Sum<Rbf, Linear>;
    type ProductKernel = Product<Rbf, Linear>;
    let dev = base();
    let (x, _) = blobs(30, 8);
    let y: Vec<f64> = x.chunks(2).map(|r| 0.5 * r[0] - r[1].sin()).collect();
    let (xt, yt) = (matrix(x, 30, 2, &dev).unwrap(), matrix(y, 30, 1, &dev).unwrap());
    let test = matrix((0..20).map(|i| -2.0 + 0.3 * i as f64).collect(), 10, 2, &dev).unwrap();
    let path = temp("combined-kernels");
    let parts = || (Rbf::new(&[0.7, 1.2], 1.3, &dev).unwrap(), Linear::new(&[0.2, 0.4], &dev).unwrap());
    let noise = || Gaussian::new(0.1, &dev).unwrap();
    let (rbf, linear) = parts();
    let sum = ExactGpr::new(Sum::new(rbf, linear), noise(), xt.clone(), yt.clone()).unwrap();
    sum.save(&path).unwrap();
    assert_loads_survive_damage("exact-gpr-sum-kernel", &path, |p| ExactGpr::<SumKernel>::load(p, &dev));
    let loaded = ExactGpr::<SumKernel>::load(&path, &dev).unwrap();
    let (before, after) = (sum.predict_f(test.clone()).unwrap(), loaded.predict_f(test.clone()).unwrap());
    assert_eq!((to_vec(before.0), to_vec(before.1)), (to_vec(after.0), to_vec(after.1)));
    assert!(matches!(ExactGpr::<ProductKernel>::load(&path, &dev), Err(Error::ModelMismatch { .. })));
    let (rbf, linear) = parts();
    let product = ExactGpr::new(Product::new(rbf, linear), noise(), xt, yt).unwrap();
    product.save(&path).unwrap();
    let loaded = ExactGpr::<ProductKernel>::load(&path, &dev).unwrap();
    let (before, after) = (product.predict_f(test.clone()).unwrap(), loaded.predict_f(test).unwrap());
    assert_eq!((to_vec(before.0), to_vec(before.1)), (to_vec(after.0), to_vec(after.1)));
    let _ = std::fs::remove_file(path);
}

/// Mean test log density of any regression model, through the shared trait.
fn mean_log_density<M: Predictor<Predictive = GaussianPredictive>>(model: &M, x: &Tensor<2>, y: &[f64]) -> f64 {
    let per_row = model.predict_log_density(x, y).unwrap();
    per_row.iter().sum::<f64>() / per_row.len() as f64
}
