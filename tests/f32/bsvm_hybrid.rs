//! Networks with GP heads: the paper-003 hybrid (a CNN trunk with a Bayesian SVM head) trained end
//! to end on synthetic images, one training step of the CIFAR-10 network on files in the CIFAR
//! binary format, a user-written MLP trunk with a Bayesian SVM head on a table and with an SVGP
//! regression head, the predictive types' metrics against closed forms, and typed errors for bad
//! input. Runs in f32, as the hybrid examples do.
use crate::common::mlp::Mlp;
use crate::common::tables::{blobs, sine};
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor};
use burn_gp::data::{load_cifar10, ImageSet, Subset};
use burn_gp::device::{device_with_precision, Precision};
use burn_gp::likelihoods::MultiClassHinge;
use burn_gp::models::{ClassPredictive, GaussianPredictive};
use burn_gp::nets::{
    fit_hybrid, fit_hybrid_traced, image_batch, Cifar10Trunk, Cifar10TrunkConfig, FeatureNorm, FeatureNormalizer,
    FrozenStatistics, GpHeadConfig, HybridConfig, HybridNet, HybridStep, MnistTrunkConfig, SoftmaxNet, Trunk,
};
use burn_gp::saved::SavedModel;
use burn_gp::tensors::to_vec;
use burn_gp::train::TrainConfig;
use burn_gp::Error;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

/// The f32 CPU device (these tests' only precision).
fn device() -> Device {
    device_with_precision(&burn_gp::device::default_backend_name(), Some(Precision::F32)).expect("device")
}

/// `n` noisy 28×28 images; class c has a bright 4×4 square at the c-th of 10 fixed positions.
fn squares(n: usize, seed: u64) -> ImageSet {
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 0.1).unwrap();
    let (mut pixels, mut labels) = (Vec::with_capacity(n * 784), Vec::with_capacity(n));
    for i in 0..n {
        let c = i % 10;
        let (r0, c0) = (2 + (c / 5) * 14, 2 + (c % 5) * 5);
        for r in 0..28 {
            for col in 0..28 {
                let on = (r0..r0 + 4).contains(&r) && (c0..c0 + 4).contains(&col);
                let v: f64 = if on { 1.0 } else { 0.0 } + noise.sample(&mut rng);
                pixels.push((v.clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        }
        labels.push(c as u8);
    }
    ImageSet::new(pixels, labels, [1, 28, 28], 10).unwrap()
}

/// A head for `trunk` by the library's recipe, but with P = 64 inducing points (the recipe's 128
/// costs these short tests time and tests nothing more) placed on the features of 200 images.
fn hybrid<T: Trunk<Input = Tensor<4>>>(trunk: T, set: &ImageSet, dev: &Device) -> HybridNet<T> {
    let head = GpHeadConfig::new(set.num_classes).with_num_inducing(64.min(set.n));
    HybridConfig::new(head).with_init_samples(200).init(trunk, set, dev).unwrap()
}

/// Accuracy of `net` (without autodiff) on every image of `set`.
fn accuracy<T: Trunk<Input = Tensor<4>>>(net: &HybridNet<T>, set: &ImageSet) -> f64 {
    let idx: Vec<usize> = (0..set.n).collect();
    let pred = net.predict(image_batch(set, &idx, &device()).unwrap().images).unwrap();
    pred.classes().iter().zip(set.labels_usize()).filter(|(a, b)| **a == *b).count() as f64 / set.n as f64
}

#[test]
fn hybrid_learns_synthetic_squares_end_to_end() {
    // The library's recipe (batch-standardised features, natural-gradient steps ρ = 0.02 on q(u),
    // Adam on the rest) at lr 5e-4, B = 32, 3 epochs.
    let dev = device().autodiff();
    let set = squares(1000, 1);
    let recipe = HybridConfig::classes(10).with_init_samples(200);
    let net = recipe.init(MnistTrunkConfig::new().init(&dev), &set, &dev).unwrap();
    let config = TrainConfig { epochs: 3, batch_size: 32, lr: 5e-4, seed: 0, progress: false, ..Default::default() };
    let (net, history) =
        fit_hybrid(net, &set, &recipe, &config, |m, _| Ok(vec![("acc".into(), accuracy(m, &set))])).unwrap();
    let losses: Vec<f64> = history.records.iter().map(|r| r.objective).collect();
    let train_acc: Vec<f64> = history.records.iter().map(|r| r.metrics[0].1).collect();
    eprintln!("epoch losses {losses:?}, training accuracies {train_acc:?}");
    assert!(losses.windows(2).all(|w| w[1] < w[0]), "loss must fall every epoch: {losses:?}");
    assert!(train_acc[2] >= 0.9, "epoch-3 training accuracy {train_acc:?}");
    let held_out = accuracy(&net.valid(), &squares(300, 2));
    assert!(held_out >= 0.9, "held-out accuracy {held_out}");
}

/// Writes `count` random CIFAR-format records (label byte + 3072 pixel bytes) per file.
fn write_cifar_dir(root: &std::path::Path, count: usize) {
    let dir = root.join("cifar-10-batches-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let uniform = rand_distr::Uniform::new(0u32, 256).unwrap();
    for (k, name) in ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"]
        .iter()
        .enumerate()
    {
        let mut bytes = Vec::with_capacity(count * 3073);
        for i in 0..count {
            bytes.push(((i + k) % 10) as u8);
            bytes.extend((0..3072).map(|_| uniform.sample(&mut rng) as u8));
        }
        std::fs::write(dir.join(format!("{name}.bin")), bytes).unwrap();
    }
}

#[test]
fn cifar_network_loads_binary_files_and_takes_a_training_step() {
    let root = std::env::temp_dir().join(format!("burn-gp-cifar-{}", std::process::id()));
    write_cifar_dir(&root, 8);
    let train = load_cifar10(&root, Subset::Train).unwrap();
    let test = load_cifar10(&root, Subset::Test).unwrap();
    assert_eq!((train.n, test.n, train.channels, train.height), (40, 8, 3, 32));
    let dev = device().autodiff();
    let trunk = Cifar10TrunkConfig::new().with_width(8).init(&dev);
    let net = hybrid(trunk, &train, &dev);
    let idx: Vec<usize> = (0..16).collect();
    let b = image_batch(&train, &idx, &dev).unwrap();
    let loss = net.loss(b.images.clone(), b.targets.clone()).unwrap();
    let before = loss.clone().into_scalar::<f64>();
    assert!(before.is_finite());
    let grads = GradientsParams::from_grads(loss.backward(), &net);
    let net = AdamConfig::new().init().step(1e-3, net, grads);
    let after = net.loss(b.images, b.targets).unwrap().into_scalar::<f64>();
    assert!(after.is_finite() && after != before, "one step should change the loss: {before} → {after}");
    let pred = net.valid().predict(image_batch(&test, &[0, 1, 2], &device()).unwrap().images).unwrap();
    assert_eq!((pred.n, pred.classes), (3, 10));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn bad_input_to_the_hybrid_gives_typed_errors() {
    let dev = device();
    let set = squares(40, 3);
    let net = hybrid(MnistTrunkConfig::new().init(&dev), &set, &dev);
    // Images of the wrong shape, an empty batch and a NaN pixel.
    let wrong = Tensor::<4>::zeros([2, 1, 20, 20], &dev);
    assert!(matches!(net.marginals(wrong), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(net.marginals(Tensor::<4>::zeros([0, 1, 28, 28], &dev)), Err(Error::Empty { .. })));
    let mut pixels = vec![0.5f32; 2 * 784];
    pixels[100] = f32::NAN;
    let nan = Tensor::<4>::from_data(burn::tensor::TensorData::new(pixels, [2, 1, 28, 28]), &dev);
    assert!(matches!(net.marginals(nan), Err(Error::NonFinite { .. })));
    // A head whose input width differs from the trunk's features.
    let trunk = MnistTrunkConfig::new().with_out_dim(50).init(&dev);
    let sample: Vec<f64> = (0..800).map(|v| v as f64).collect();
    let head = GpHeadConfig::new(10).with_num_inducing(4).init::<MultiClassHinge>(&sample, 100, 40, &dev).unwrap();
    let norm = FeatureNormalizer::new(FeatureNorm::Batch, 50, &dev);
    assert!(matches!(HybridNet::new(trunk, norm, head), Err(Error::ShapeMismatch { .. })));
    // The lengthscale factor scales the median-distance lengthscales; a non-positive one is an error.
    let ls = |f: f64| {
        let head = GpHeadConfig::new(10).with_num_inducing(4).with_lengthscale_factor(f);
        to_vec(head.init::<MultiClassHinge>(&sample, 100, 40, &dev).unwrap().kernel.params.lengthscales.value())
    };
    let (one, quarter) = (ls(1.0), ls(0.25));
    assert!(one.iter().zip(&quarter).all(|(a, b)| (b / a - 0.25).abs() < 1e-6), "{one:?} vs {quarter:?}");
    for bad in [0.0, -1.0, f64::NAN] {
        assert!(matches!(
            GpHeadConfig::new(10).with_lengthscale_factor(bad).init::<MultiClassHinge>(&sample, 100, 40, &dev),
            Err(Error::InvalidArgument { .. })
        ));
    }
    // The likelihood weight β builds the head for round(β · num_data) examples (the tempered ELBO);
    // a non-positive or non-finite one is an error.
    let tempered = |w: f64| {
        GpHeadConfig::new(10)
            .with_num_inducing(4)
            .with_likelihood_weight(w)
            .init::<MultiClassHinge>(&sample, 100, 40, &dev)
    };
    assert_eq!(tempered(1.0).unwrap().num_data, 40);
    assert_eq!(tempered(0.15).unwrap().num_data, 6);
    assert_eq!(tempered(1e-6).unwrap().num_data, 1);
    for bad in [0.0, -0.5, f64::INFINITY, f64::NAN] {
        assert!(matches!(tempered(bad), Err(Error::InvalidArgument { .. })), "likelihood weight {bad}");
    }
    // Fewer than two classes, and one-hot targets of the wrong width.
    assert!(matches!(
        GpHeadConfig::new(1).init::<MultiClassHinge>(&[0.0; 400], 100, 40, &dev),
        Err(Error::InvalidArgument { .. })
    ));
    let idx = [0usize, 1];
    let b = image_batch(&set, &idx, &dev).unwrap();
    let bad_targets = Tensor::<2>::zeros([2, 3], &dev);
    assert!(matches!(net.loss(b.images, bad_targets), Err(Error::ShapeMismatch { .. })));
}

/// Column means and variances (biased) of a row-major `[r, c]` matrix.
fn column_moments(x: &[f64], c: usize) -> (Vec<f64>, Vec<f64>) {
    let r = x.len() / c;
    let mean: Vec<f64> = (0..c).map(|j| (0..r).map(|i| x[i * c + j]).sum::<f64>() / r as f64).collect();
    let var = (0..c).map(|j| (0..r).map(|i| (x[i * c + j] - mean[j]).powi(2)).sum::<f64>() / r as f64).collect();
    (mean, var)
}

#[test]
fn feature_normaliser_standardises_batches_and_keeps_running_statistics() {
    let dev = device().autodiff();
    let (r, c) = (16, 5);
    let values: Vec<f32> = (0..r * c).map(|k| ((k * 37 % 23) as f32 - 7.0) * (1.0 + (k % c) as f32)).collect();
    let x = Tensor::<2>::from_data(burn::tensor::TensorData::new(values.clone(), [r, c]), &dev);
    let (mean, var) = column_moments(&values.iter().map(|&v| v as f64).collect::<Vec<_>>(), c);
    // Training mode: every column of the output has mean 0 and variance 1 (up to ε = 1e-5).
    let mut norm = FeatureNormalizer::new(FeatureNorm::Batch, c, &dev);
    let out = to_vec(norm.forward(x.clone()));
    let (m_out, v_out) = column_moments(&out, c);
    assert!(
        m_out.iter().all(|m| m.abs() < 1e-4) && v_out.iter().all(|v| (v - 1.0).abs() < 1e-3),
        "{m_out:?} {v_out:?}"
    );
    // The scale and shift of the default kind take no gradient; those of BatchAffine do.
    let grads = norm.forward(x.clone().require_grad()).powi_scalar(3).sum().backward();
    let params = burn::optim::GradientsParams::from_grads(grads, &norm);
    assert!(params.is_empty(), "FeatureNorm::Batch must have no trainable parameters");
    let affine = FeatureNormalizer::new(FeatureNorm::BatchAffine, c, &dev);
    let grads = affine.forward(x.clone().require_grad()).powi_scalar(3).sum().backward();
    assert_eq!(burn::optim::GradientsParams::from_grads(grads, &affine).len(), 2);
    // Started from a sample, inference uses that sample's statistics: (x − mean)/√(var + ε).
    let _ = norm.start_from_sample(x.clone());
    let inferred = to_vec(norm.valid().forward(x.clone().inner()));
    for (k, (&got, &v)) in inferred.iter().zip(&values).enumerate() {
        let want = (v as f64 - mean[k % c]) / (var[k % c] + 1e-5).sqrt();
        assert!((got - want).abs() < 1e-4 * (1.0 + want.abs()), "entry {k}: {got} vs {want}");
    }
    // Rows: each row standardised over its entries; Identity: unchanged.
    let rows = to_vec(FeatureNormalizer::new(FeatureNorm::Rows, c, &dev).forward(x.clone()));
    for row in rows.chunks(c) {
        let m = row.iter().sum::<f64>() / c as f64;
        assert!(m.abs() < 1e-4, "row mean {m}");
    }
    let same = to_vec(FeatureNormalizer::new(FeatureNorm::Identity, c, &dev).forward(x.clone()));
    assert!(same.iter().zip(&values).all(|(a, &b)| *a == b as f64), "identity changed the features");
    // Frozen, in training mode on the autodiff device: the running statistics map the batch, the
    // gradient of Σ out by x is 1/√(var + ε) per column, and the statistics no longer move.
    // The setting, unlike Burn's flag value, survives the switch to inference mode.
    assert!(norm.standardizes_batches() && norm.valid().standardizes_batches());
    let frozen = norm.freeze_statistics();
    assert!(!frozen.standardizes_batches() && !frozen.valid().standardizes_batches());
    let shifted = x.clone().add_scalar(3.0).require_grad();
    let out = frozen.forward(shifted.clone());
    let got = to_vec(out.clone());
    let grads = out.sum().backward();
    let dx = to_vec(shifted.grad(&grads).expect("gradient reaches the input"));
    for (k, &v) in values.iter().enumerate() {
        let sd = (var[k % c] + 1e-5).sqrt();
        let want = (v as f64 + 3.0 - mean[k % c]) / sd;
        assert!((got[k] - want).abs() < 1e-4 * (1.0 + want.abs()), "entry {k}: {} vs {want}", got[k]);
        assert!((dx[k] - 1.0 / sd).abs() < 1e-5 / sd, "gradient {k}: {} vs {}", dx[k], 1.0 / sd);
    }
    assert_eq!(to_vec(frozen.forward(x.clone())), to_vec(frozen.valid().forward(x.inner())));
}

#[test]
fn freezing_the_mean_divides_by_the_batch_spread_and_follows_it() {
    let dev = device().autodiff();
    let (r, c) = (16, 5);
    let values: Vec<f64> = (0..r * c).map(|k| ((k * 37 % 23) as f64 - 7.0) * (1.0 + (k % c) as f64)).collect();
    let x = burn_gp::tensors::matrix(values.clone(), r, c, &dev).unwrap();
    let (mean, var) = column_moments(&values, c);
    let mut norm = FeatureNormalizer::new(FeatureNorm::Batch, c, &dev);
    let _ = norm.start_from_sample(x.clone());
    let frozen = norm.freeze_mean();
    assert!(!frozen.standardizes_batches());
    // y = 2x + 3 maps to (y − m)/√(v_y + ε): m the running mean of x, v_y = 4v the batch variance,
    // and the gradient of Σ out by y_j is 1/s − (ȳ − m)(y_j − ȳ)/s³ with s = √(v_y + ε), the
    // spread's dependence on y included.
    let y = x.clone().mul_scalar(2.0).add_scalar(3.0).require_grad();
    let out = frozen.forward(y.clone());
    let got = to_vec(out.clone());
    let dy = to_vec(y.grad(&out.sum().backward()).expect("gradient reaches the input"));
    for (k, &v) in values.iter().enumerate() {
        let j = k % c;
        let (y_k, y_bar, s) = (2.0 * v + 3.0, 2.0 * mean[j] + 3.0, (4.0 * var[j] + 1e-5).sqrt());
        let want = (y_k - mean[j]) / s;
        assert!((got[k] - want).abs() < 1e-4 * (1.0 + want.abs()), "entry {k}: {} vs {want}", got[k]);
        let grad = 1.0 / s - (y_bar - mean[j]) * (y_k - y_bar) / s.powi(3);
        assert!((dy[k] - grad).abs() < 1e-4 * (1.0 + grad.abs()), "gradient {k}: {} vs {grad}", dy[k]);
    }
    // The running variance moved by momentum 0.1 towards 4v; the running mean stayed.
    let inferred = to_vec(frozen.valid().forward(x.clone().inner()));
    for (k, &v) in values.iter().enumerate() {
        let want = (v - mean[k % c]) / (1.3 * var[k % c] + 1e-5).sqrt();
        assert!((inferred[k] - want).abs() < 1e-4 * (1.0 + want.abs()), "entry {k}: {} vs {want}", inferred[k]);
    }
    // `Module::freeze` switches the batch spread off, as it does Burn's batch statistics.
    let fixed = frozen.freeze();
    assert_eq!(to_vec(fixed.forward(x.clone())), inferred);
}

#[test]
fn standardize_steps_freezes_the_normaliser_after_the_warm_up() {
    let dev = device().autodiff();
    let train = blobs(600, 1);
    // Fixed features of the trunk's width (8): the normaliser's map of them at inference depends
    // on its running statistics alone.
    let probe: Vec<f64> = (0..40).map(|k| ((k * 13 % 7) as f64 - 3.0) * 0.7).collect();
    let probe = burn_gp::tensors::matrix(probe, 5, 8, &device()).unwrap();
    let config = TrainConfig { epochs: 2, batch_size: 64, lr: 3e-3, seed: 0, progress: false, ..Default::default() };
    let run_freezing = |standardize: Option<usize>, frozen: FrozenStatistics| {
        let recipe = HybridConfig::classes(3)
            .with_init_samples(300)
            .with_standardize_steps(standardize)
            .with_frozen_statistics(frozen);
        let net = recipe.init(Mlp::new(2, 32, 8, 0, &dev), &train, &dev).unwrap();
        let (mut maps, mut spreads) = (Vec::new(), Vec::new());
        let mut trace = |net: &HybridNet<Mlp>, step: &HybridStep| {
            maps.push(to_vec(net.norm.clone().valid().forward(probe.clone())));
            spreads.push(step.head_spread);
        };
        let (net, _) = fit_hybrid_traced(net, &train, &recipe, &config, |_, _| Ok(vec![]), &mut trace).unwrap();
        (net, maps, spreads)
    };
    let run = |standardize| run_freezing(standardize, FrozenStatistics::MeanAndVariance);
    let (unfrozen, always, _) = run(None);
    let (net, frozen, spreads) = run(Some(3));
    assert!(unfrozen.norm.standardizes_batches() && !net.norm.standardizes_batches());
    assert_eq!(always.len(), 20, "600 examples in batches of 64 for 2 epochs");
    // The first 3 steps are the same run; after them the running statistics stop moving, where
    // without freezing they go on following the batches.
    assert_eq!(frozen[..3], always[..3]);
    assert!(frozen[3..].iter().all(|map| *map == frozen[2]), "the statistics moved after freezing");
    assert!(always[3..].iter().all(|map| *map != always[2]), "the statistics stopped without freezing");
    // While standardising, every feature the head sees has unit spread across the batch; after,
    // the spread is the trunk's to choose.
    assert!(spreads[..3].iter().all(|s| (s - 1.0).abs() < 1e-3), "{spreads:?}");
    assert!(spreads[3..].iter().any(|s| (s - 1.0).abs() > 1e-3), "{spreads:?}");
    // Freezing the mean only: the same first 3 steps, then the head's inputs keep unit spread.
    let (mean_only, mean_maps, mean_spreads) = run_freezing(Some(3), FrozenStatistics::Mean);
    assert!(!mean_only.norm.standardizes_batches());
    assert_eq!(mean_maps[..3], always[..3]);
    assert!(mean_spreads.iter().all(|s| (s - 1.0).abs() < 1e-3), "{mean_spreads:?}");
    assert!(mean_maps[3..] != always[3..], "freezing the mean changed nothing");
    // A saved network keeps its running statistics but not the freeze (Burn's records omit
    // flags): loaded, it standardises by the batch again, as `standardize_steps` documents.
    let path = std::env::temp_dir().join(format!("burn_gp_frozen_{}.bgp", std::process::id()));
    net.save(&path).unwrap();
    let loaded = HybridNet::<Mlp>::load(&path, &dev).unwrap();
    let map = to_vec(loaded.norm.clone().valid().forward(probe));
    let _ = std::fs::remove_file(&path);
    assert!(loaded.norm.standardizes_batches());
    assert_eq!(map, frozen[frozen.len() - 1]);
}

#[test]
fn a_saved_hybrid_loads_with_its_normaliser_statistics() {
    let dev = device();
    let set = squares(120, 4);
    let build = |set: &ImageSet| {
        let head = GpHeadConfig::new(10).with_num_inducing(16);
        HybridConfig::new(head).with_init_samples(120).init(
            MnistTrunkConfig::new().with_out_dim(20).init(&dev),
            set,
            &dev,
        )
    };
    let net = build(&set).unwrap().valid();
    let idx: Vec<usize> = (0..10).collect();
    let images = image_batch(&set, &idx, &dev).unwrap().images;
    let before = to_vec(net.marginals(images.clone()).unwrap().0);
    let path = std::env::temp_dir().join(format!("burn_gp_hybrid_{}.bpk", std::process::id()));
    net.save_file(&path).expect("save");
    // Another network (other weights, inducing points and running statistics) with the loaded record.
    let fresh = build(&squares(120, 9)).unwrap().valid();
    assert!(to_vec(fresh.marginals(images.clone()).unwrap().0) != before, "the fresh network must differ");
    let loaded = fresh.load_file(&path);
    // Burn reads the file's tensors lazily: remove it only after they are used.
    let after = to_vec(loaded.marginals(images).unwrap().0);
    let _ = std::fs::remove_file(&path);
    assert_eq!(after, before);
}

#[test]
fn a_bayesian_svm_head_on_a_user_mlp_learns_a_table() {
    let dev = device().autodiff();
    let (train, test) = (blobs(600, 1), blobs(300, 2));
    let recipe = HybridConfig::classes(3).with_init_samples(300);
    let net = recipe.init(Mlp::new(2, 32, 8, 0, &dev), &train, &dev).unwrap();
    let config = TrainConfig { epochs: 10, batch_size: 64, lr: 3e-3, seed: 0, progress: false, ..Default::default() };
    let (net, _) = fit_hybrid(net, &train, &recipe, &config, |_, _| Ok(vec![])).unwrap();
    let x = burn_gp::tensors::matrix(test.table.x.clone(), test.table.n, 2, &device()).unwrap();
    let pred = net.valid().predict(x).unwrap();
    let (acc, nll) = (pred.accuracy(test.labels()).unwrap(), pred.nll(test.labels()).unwrap());
    eprintln!("blobs: held-out accuracy {acc}, NLL {nll}");
    // Bayes-optimal accuracy for these blobs is about 0.96. (The hinge head's probabilities are
    // overconfident on the few points across a boundary, so its NLL is not a target here.)
    assert!(acc >= 0.92 && nll.is_finite(), "accuracy {acc}, NLL {nll}");
    // A table with 3 classes cannot train a 4-way head; labels outside 0..C are typed errors.
    let four = HybridConfig::classes(4).init(Mlp::new(2, 32, 8, 0, &dev), &train, &dev);
    assert!(matches!(four, Err(Error::InvalidArgument { .. })));
    // The recipe's 128 inducing points need 128 placement examples: fewer is a typed error.
    let few = HybridConfig::classes(3).with_init_samples(100).init(Mlp::new(2, 32, 8, 0, &dev), &train, &dev);
    assert!(matches!(few, Err(Error::InvalidArgument { ref name, .. }) if name == "num_inducing"));
    assert!(matches!(pred.accuracy(&vec![3; test.table.n]), Err(Error::LabelOutOfRange { .. })));
    assert!(matches!(pred.nll(&[0, 1]), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn an_svgp_head_on_a_user_mlp_regresses() {
    let dev = device().autodiff();
    let (train, test) = (sine(500, 3), sine(200, 4));
    let recipe = HybridConfig::regression(1).with_init_samples(500);
    let net = recipe.init_regression(Mlp::new(1, 32, 4, 0, &dev), &train, &dev).unwrap();
    let config = TrainConfig { epochs: 60, batch_size: 64, lr: 5e-3, seed: 0, progress: false, ..Default::default() };
    let (net, _) = fit_hybrid(net, &train, &recipe, &config, |_, _| Ok(vec![])).unwrap();
    let x = burn_gp::tensors::matrix(test.x.clone(), test.n, 1, &device()).unwrap();
    let pred = net.valid().predict(x).unwrap();
    let (rmse, ll) = (pred.rmse(&test.y).unwrap(), pred.mean_log_density(&test.y).unwrap());
    eprintln!("sine: held-out RMSE {rmse}, log density {ll}");
    // Noise σ = 0.1: the best RMSE is 0.1 and the best mean log density ln N(0; 0, 0.01) − ½ ≈ 0.88;
    // predicting the mean gives RMSE ≈ 0.71.
    assert!(rmse < 0.2 && ll > 0.2, "RMSE {rmse}, log density {ll}");
    // The Gaussian head has no natural-gradient step: asking for one is a typed error.
    let natural = HybridConfig::regression(1).with_natural_step(0.02);
    let net = natural.init_regression(Mlp::new(1, 32, 4, 0, &dev), &train, &dev).unwrap();
    let fitted = fit_hybrid(net, &train, &natural, &config, |_, _| Ok(vec![]));
    assert!(matches!(fitted, Err(Error::InvalidArgument { .. })));
}

#[test]
fn gaussian_predictive_metrics_match_closed_forms() {
    let (mean, var, y) = (vec![0.5, -1.0, 2.0], vec![0.25, 1.0, 4.0], vec![1.0, -1.5, 2.0]);
    let pred = GaussianPredictive::new(mean.clone(), var.clone(), 1).unwrap();
    let want = burn_gp::metrics::gaussian_log_likelihood(&mean, &var, &y).unwrap();
    assert!((pred.mean_log_density(&y).unwrap() - want).abs() < 1e-12);
    let by_hand = -0.5 * ((2.0 * std::f64::consts::PI * 0.25).ln() + 0.25 / 0.25);
    assert!((pred.log_density(&y).unwrap()[0] - by_hand).abs() < 1e-12);
    assert!((pred.rmse(&y).unwrap() - ((0.25 + 0.25 + 0.0) / 3.0f64).sqrt()).abs() < 1e-12);
    // Back to units y = 10 + 3·z: the density of each point falls by ln 3.
    let units = pred.unstandardised(10.0, 3.0).unwrap();
    let y_units: Vec<f64> = y.iter().map(|v| 10.0 + 3.0 * v).collect();
    let shift = pred.mean_log_density(&y).unwrap() - units.mean_log_density(&y_units).unwrap();
    assert!((shift - 3.0f64.ln()).abs() < 1e-12);
    // Two outputs per point: densities add over the outputs.
    let two = GaussianPredictive::new(vec![0.5, -1.0], vec![0.25, 1.0], 2).unwrap();
    let sum = pred.log_density(&y).unwrap()[..2].iter().sum::<f64>();
    assert!((two.log_density(&y[..2]).unwrap()[0] - sum).abs() < 1e-12);
    // Bad input.
    assert!(matches!(GaussianPredictive::new(vec![0.0], vec![0.0], 1), Err(Error::InvalidArgument { .. })));
    assert!(matches!(GaussianPredictive::new(vec![0.0; 3], vec![1.0; 2], 1), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(pred.rmse(&[1.0]), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(pred.log_density(&[f64::NAN, 0.0, 0.0]), Err(Error::NonFinite { .. })));
}

#[test]
fn class_predictive_nll_matches_the_two_class_closed_form() {
    // Two classes: P(class 1) = Φ((m₁ − m₀) / √(v₀ + v₁)).
    let (m, v) = (vec![0.3, -0.2, -1.0, 0.5], vec![0.5, 0.8, 0.2, 1.5]);
    let pred = ClassPredictive::new(m.clone(), v.clone(), 2).unwrap();
    let labels = [0usize, 1];
    let p1 = |i: usize| burn_gp::special::norm_cdf((m[2 * i + 1] - m[2 * i]) / (v[2 * i] + v[2 * i + 1]).sqrt());
    let want = -(((1.0 - p1(0)).ln()) + p1(1).ln()) / 2.0;
    assert!((pred.nll(&labels).unwrap() - want).abs() < 1e-4, "{} vs {want}", pred.nll(&labels).unwrap());
    assert_eq!(pred.accuracy(&labels).unwrap(), 1.0);
}

#[test]
fn a_standardised_cifar_trunk_saves_its_input_moments() {
    let root = std::env::temp_dir().join(format!("burn-gp-cifar-moments-{}", std::process::id()));
    write_cifar_dir(&root, 4);
    let train = load_cifar10(&root, Subset::Train).unwrap();
    let dev = device();
    let config = Cifar10TrunkConfig::standardised_for(&train).with_width(8);
    let (mean, std) = config.input_moments.clone().unwrap();
    assert!(mean.iter().chain(&std).all(|v| v.is_finite()) && std.iter().all(|s| *s > 0.0), "{mean:?} {std:?}");
    dev.seed(3);
    let net = SoftmaxNet::new(config.try_init(&dev).unwrap(), 10, &dev);
    let images = image_batch(&train, &[0, 1, 2], &dev).unwrap().images;
    let path = root.join("standardised.bgp");
    net.save(&path).unwrap();
    let loaded = SoftmaxNet::<Cifar10Trunk>::load(&path, &dev).unwrap();
    assert_eq!(to_vec(loaded.logits(images.clone())), to_vec(net.logits(images.clone())));
    // The same weights without the standardisation give other logits: the moments were saved.
    dev.seed(3);
    let plain = SoftmaxNet::new(Cifar10TrunkConfig::new().with_width(8).init(&dev), 10, &dev);
    assert_ne!(to_vec(plain.logits(images.clone())), to_vec(net.logits(images)));
    let bad = Cifar10TrunkConfig::new().with_input_moments(Some((vec![0.5; 3], vec![0.2, 0.0, 0.2])));
    assert!(bad.try_init(&dev).is_err());
    let _ = std::fs::remove_dir_all(&root);
}
