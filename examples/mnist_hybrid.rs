//! The main job: a CNN with a multi-class Bayesian SVM head on MNIST (Wistuba & Rawat 2018,
//! §4.2), next to the same CNN with a softmax layer trained with the same budget in the same run.
//!
//! ```text
//! cargo run --release --example mnist_hybrid
//! cargo run --release --example mnist_hybrid --features wgpu -- --device wgpu
//! ```
//! Data: <data>/mnist/ with the four IDX files (.gz or raw) from https://yann.lecun.com/exdb/mnist/;
//! `--data` or `BURN_GP_DATA` sets `<data>`.
//!
//! The workflow, in `run` below: load MNIST; build the library's recipe ([`HybridConfig`]: batch
//! 128, 3 epochs, Adam lr 1e-3 annealed along half a cosine to 0 for the network, kernel and
//! inducing points, natural-gradient steps (ρ = 0.02, `--natural-step`) for the head's q(u),
//! features standardised across the batch, P = 128 inducing points, `--m`) and its
//! [`TrainConfig`]; fit the hybrid and the softmax network; predict the test images in chunks;
//! with `--calibration N`, fit the calibrations of [`burn_gp::calibration`] on the last N
//! training images (held out); print a metrics table, and with `--json` one JSON line. f32 by
//! default (`--precision f64` for double). `--seed` seeds the network's initialisation too: the
//! same seed, backend and thread count repeat a run bit for bit on one machine (another CPU model
//! may differ in the last digits: `docs/results/hybrid_reliability.md`).
//!
//! With `--json` the last stdout line is
//! `{"example":"mnist_hybrid","accuracy":…,"nll":…,"ece":…,"epoch_s":…,"softmax_accuracy":…, …}`
//! (also `dataset`, `mean_vr`, `softmax_nll`, `softmax_ece`, `softmax_epoch_s`, `epochs`, `batch`,
//! `lr`, `m`, `train_size`, `backend`, `calibration_size`, `test_acc_by_epoch` and
//! `softmax_test_acc_by_epoch` (each network's test accuracy after every epoch, `null` for a
//! network not trained in the run), `augment` (always false here) and `lengthscale_factor`). With
//! `--calibration N` the line adds, for a temperature of each network (the hybrid's on its latent
//! means), `temperature`, `nll_calibrated`, `ece_calibrated`, `softmax_temperature`,
//! `softmax_nll_calibrated` and `softmax_ece_calibrated`; for the hybrid's own arg-max
//! probabilities with one fitted factor on its latent variances (`VarianceScaling`)
//! `variance_scale`, `nll_variance_scaled` and `ece_variance_scaled`; and for
//! `softmax(f̄_c / (T·√(1 + λ·v_c)))` with `T` and `λ` fitted together (`MeanFieldScaling`)
//! `mean_field_temperature`, `mean_field_weight`, `nll_mean_field` and `ece_mean_field`; with the
//! softmax network too, `nll_calibrated_minus_softmax` and `nll_calibrated_minus_softmax_se`, the
//! hybrid's temperature-scaled NLL minus the softmax network's, paired per test image, with its
//! standard error, and `nll_calibrated_minus_softmax_calibrated` and `_se`, the same against the
//! softmax network's temperature-scaled NLL (all `null` without it).
//! `--save FILE` / `--save-softmax FILE` keep both networks (for the `adversarial` driver);
//! `--load FILE` with `--load-softmax FILE` evaluates both saved networks again without training.
//!
//! The research flags of the same job (`--trace`, `--learner`, `--plot`, `--checkpoint-dir`,
//! `--feature-norm`, `--lengthscale-factor`, …) are the `mnist_hybrid_full` driver's
//! (`cargo run --release -p burn-gp-experiments --example mnist_hybrid_full -- --help`): with the
//! flags both take it prints the same numbers.
use std::path::PathBuf;
use std::time::Instant;

use burn::module::Module;
use burn_gp::calibration::{paired_nll_difference, Calibrated, ClassScores, LatentCalibrations, TemperatureScaling};
use burn_gp::data::{data_root, load_mnist, ImageSet, MnistVariant, Subset};
use burn_gp::device::{device_with_precision, Precision};
use burn_gp::models::ClassPredictive;
use burn_gp::nets::{fit_hybrid, image_batch, HybridConfig, HybridNet, MnistTrunk, MnistTrunkConfig, SoftmaxNet};
use burn_gp::saved::SavedModel;
use burn_gp::train::{fit, History, TrainConfig};
use burn_gp::Result;
use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc; // keeps large tensor buffers mapped

/// Tells mimalloc to keep the memory it frees mapped (`mi_option_purge_delay`, index 15 of
/// mimalloc.h's options, set to −1): every step frees and reallocates buffers of the same sizes,
/// and pages handed back to the OS are zeroed again on first touch (docs/results/benchmarks.md).
fn keep_freed_memory() {
    unsafe { libmimalloc_sys::mi_option_set(15, -1) }
}

/// Command line (the defaults are the library's recipe).
#[derive(Parser, Debug)]
struct Args {
    /// Minibatch size.
    #[arg(long, default_value_t = 128)]
    batch: usize,
    /// Training epochs of each network.
    #[arg(long, default_value_t = 3)]
    epochs: usize,
    /// Adam learning rate (annealed along half a cosine to 0 at the last step).
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    /// Random seed (network initialisation, inducing points, minibatch order).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Inducing points of the Bayesian SVM head.
    #[arg(long, default_value_t = HybridConfig::CLASSIFICATION_INDUCING)]
    m: usize,
    /// Step size ρ of the natural-gradient updates of the head's q(u) after every Adam step
    /// (0 = train q(u) by Adam too, as the paper does).
    #[arg(long, default_value_t = 0.02)]
    natural_step: f64,
    /// Use only the first N training images (0 = all).
    #[arg(long, default_value_t = 0)]
    train_size: usize,
    /// Use only the first N test images (0 = all).
    #[arg(long, default_value_t = 0)]
    test_size: usize,
    /// Hold out the last N training images (not trained on) to fit the calibrations (0 = none).
    #[arg(long, default_value_t = 0)]
    calibration: usize,
    /// Skip the softmax network.
    #[arg(long)]
    no_softmax: bool,
    /// Monte Carlo samples for the variation ratio.
    #[arg(long, default_value_t = 100)]
    vr_samples: usize,
    /// Save the trained hybrid to this file.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Evaluate a hybrid saved by --save instead of training one (no softmax network unless
    /// --load-softmax names one).
    #[arg(long)]
    load: Option<PathBuf>,
    /// Save the trained softmax network to this file.
    #[arg(long)]
    save_softmax: Option<PathBuf>,
    /// Evaluate a softmax network saved by --save-softmax instead of training one.
    #[arg(long)]
    load_softmax: Option<PathBuf>,
    /// Data root (default: $BURN_GP_DATA, else ../shared/data).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Backend to run on (flex, ndarray, wgpu, cuda); default: the first compiled in.
    #[arg(long)]
    device: Option<String>,
    /// Float precision, f32 or f64.
    #[arg(long, default_value = "f32")]
    precision: String,
    /// Print one final JSON line.
    #[arg(long)]
    json: bool,
    /// Hide the progress bar (print progress lines instead).
    #[arg(long)]
    no_progress: bool,
}

fn main() {
    keep_freed_memory();
    if let Err(e) = run(&Args::parse()) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// One trained (or loaded) network's test scores.
struct Evaluated {
    /// Accuracy, NLL and ECE of its class probabilities.
    scores: ClassScores,
    /// Its class probabilities of the test images, `[n, 10]`.
    probabilities: Vec<f64>,
    /// Mean seconds per training epoch (NaN for a loaded network).
    epoch_s: f64,
    /// Test accuracy after every epoch (`None` for a loaded network).
    curve: Option<Vec<f64>>,
}

fn run(args: &Args) -> Result<()> {
    // 1. Device (seeded: network initialisation draws from the backend's generator) and data.
    let backend = args.device.clone().unwrap_or_else(burn_gp::device::default_backend_name);
    let precision = match args.precision.as_str() {
        "f32" => Precision::F32,
        "f64" => Precision::F64,
        other => return Err(burn_gp::Error::invalid("precision", format!("f32 or f64, got `{other}`"))),
    };
    let device = device_with_precision(&backend, Some(precision))?;
    device.seed(args.seed);
    let train_device = device.clone().autodiff();
    let root = data_root(args.data.as_deref())?;
    let first = |set: ImageSet, n: usize| if n > 0 { set.subset(0..n.min(set.n)) } else { Ok(set) };
    let train = first(load_mnist(&root, MnistVariant::Digits, Subset::Train)?, args.train_size)?;
    let test = first(load_mnist(&root, MnistVariant::Digits, Subset::Test)?, args.test_size)?;
    let (train, held) = hold_out(train, args.calibration)?;
    let labels = test.labels_usize();
    eprintln!(
        "mnist_hybrid: mnist, {} train / {} held-out / {} test images, backend {backend} ({precision:?}), {} epochs, batch {}, lr {}",
        train.n,
        held.as_ref().map_or(0, |h| h.n),
        test.n,
        args.epochs,
        args.batch,
        args.lr
    );

    // 2. The recipe and the optimiser settings.
    let recipe = HybridConfig::classes(10).with_natural_step(args.natural_step);
    let recipe = HybridConfig { head: recipe.head.clone().with_num_inducing(args.m).with_seed(args.seed), ..recipe };
    let config = TrainConfig {
        batch_size: args.batch,
        lr: args.lr,
        progress: !args.no_progress && !args.json,
        ..recipe.train_config(args.epochs, args.seed)
    };

    // 3. The hybrid: trained (test accuracy after every epoch), or loaded.
    let t0 = Instant::now();
    let (hybrid, history) = match &args.load {
        Some(path) => (HybridNet::<MnistTrunk>::load(path, &device)?, None),
        None => {
            let net = recipe.init(MnistTrunkConfig::new().init(&train_device), &train, &train_device)?;
            let accuracy = |m: &HybridNet<MnistTrunk>, _epoch: usize| {
                Ok(vec![("test_acc".to_string(), class_accuracy(&m.predict_images(&test, &device)?, &labels))])
            };
            let (net, history) = fit_hybrid(net, &train, &recipe, &config, accuracy)?;
            (net.valid(), Some(history))
        }
    };
    let pred = hybrid.predict_images(&test, &device)?;
    let probabilities = pred.gh_probabilities(32);
    let hybrid_scores =
        ClassScores { accuracy: class_accuracy(&pred, &labels), ..ClassScores::of(&probabilities, 10, &labels)? };
    let vr = pred.variation_ratio(args.vr_samples, args.seed);
    let mean_vr = vr.iter().sum::<f64>() / vr.len().max(1) as f64;
    let h =
        Evaluated { scores: hybrid_scores, probabilities, epoch_s: epoch_s(&history), curve: test_accuracy(&history) };
    eprintln!("hybrid ready and evaluated in {:.1}s", t0.elapsed().as_secs_f64());
    if let Some(path) = &args.save {
        hybrid.save(path)?;
    }

    // 4. The softmax network: the same trunk, optimiser and budget (or loaded).
    let softmax = match &args.load_softmax {
        Some(path) => Some((SoftmaxNet::<MnistTrunk>::load(path, &device)?, None)),
        None if args.no_softmax || args.load.is_some() => None,
        None => {
            let net = SoftmaxNet::new(MnistTrunkConfig::new().init(&train_device), 10, &train_device);
            let loss = |m: &SoftmaxNet<MnistTrunk>, idx: &[usize]| {
                let batch = image_batch(&train, idx, &train_device)?;
                Ok(m.loss(batch.images, batch.labels))
            };
            let accuracy = |m: &SoftmaxNet<MnistTrunk>, _epoch: usize| {
                let probs = m.probabilities_of_images(&test, &device)?;
                Ok(vec![("test_acc".to_string(), ClassScores::of(&probs, 10, &labels)?.accuracy)])
            };
            let (net, history) = fit(net, train.n, &config, loss, accuracy)?;
            let net = net.valid();
            if let Some(path) = &args.save_softmax {
                net.save(path)?;
            }
            Some((net, Some(history)))
        }
    };
    let s = match &softmax {
        Some((net, history)) => {
            let probabilities = net.probabilities_of_images(&test, &device)?;
            let scores = ClassScores::of(&probabilities, 10, &labels)?;
            Some(Evaluated { scores, probabilities, epoch_s: epoch_s(history), curve: test_accuracy(history) })
        }
        None => None,
    };

    // 5. Calibrations fitted on the held-out images, scored on the test images.
    let calibrated = match &held {
        Some(held) => {
            let held_labels = held.labels_usize();
            let latent =
                LatentCalibrations::fit((&hybrid.predict_images(held, &device)?, &held_labels), (&pred, &labels))?;
            let softmax = match &softmax {
                Some((net, _)) => Some(Calibrated::temperature_of_scores(
                    (&net.logits_of_images(held, &device)?, &held_labels),
                    (&net.logits_of_images(&test, &device)?, &labels),
                    10,
                )?),
                None => None,
            };
            Some((latent, softmax))
        }
        None => None,
    };
    let gap = |other: &[f64]| -> Result<Option<(f64, f64)>> {
        match &calibrated {
            Some((latent, _)) => {
                Ok(Some(paired_nll_difference(&latent.temperature.probabilities, other, 10, &labels)?))
            }
            None => Ok(None),
        }
    };
    let gap_to_softmax = match &s {
        Some(s) => gap(&s.probabilities)?,
        None => None,
    };
    let softmax_calibrated: Option<&Calibrated<TemperatureScaling>> = calibrated.as_ref().and_then(|c| c.1.as_ref());
    let gap_to_softmax_calibrated = match softmax_calibrated {
        Some(c) => gap(&c.probabilities)?,
        None => None,
    };

    // 6. The metrics table and the JSON line.
    let m = hybrid.head.num_inducing(); // a loaded network's own P, whatever --m says
    let f = |v: f64| format!("{v:.4}");
    let mut rows = vec![
        ("hybrid accuracy", f(h.scores.accuracy)),
        ("hybrid NLL", f(h.scores.nll)),
        ("hybrid ECE", f(h.scores.ece)),
        ("hybrid mean variation ratio", f(mean_vr)),
        ("hybrid s/epoch", format!("{:.1}", h.epoch_s)),
    ];
    if let Some(s) = &s {
        rows.push(("softmax accuracy", f(s.scores.accuracy)));
        rows.push(("softmax NLL", f(s.scores.nll)));
        rows.push(("softmax ECE", f(s.scores.ece)));
        rows.push(("softmax s/epoch", format!("{:.1}", s.epoch_s)));
    }
    if let Some((c, softmax)) = &calibrated {
        let (v, t, mf) = (&c.variance, &c.temperature, &c.mean_field);
        rows.push(("hybrid variance factor", f(v.fitted.scale)));
        rows.push(("hybrid NLL, variance-scaled", f(v.scores.nll)));
        rows.push(("hybrid ECE, variance-scaled", f(v.scores.ece)));
        rows.push(("hybrid temperature", f(t.fitted.temperature)));
        rows.push(("hybrid NLL, temperature-scaled", f(t.scores.nll)));
        rows.push(("hybrid ECE, temperature-scaled", f(t.scores.ece)));
        rows.push(("hybrid mean-field temperature", f(mf.fitted.temperature)));
        rows.push(("hybrid mean-field variance weight", f(mf.fitted.variance_weight)));
        rows.push(("hybrid NLL, mean-field", f(mf.scores.nll)));
        rows.push(("hybrid ECE, mean-field", f(mf.scores.ece)));
        if let Some(st) = softmax {
            rows.push(("softmax temperature", f(st.fitted.temperature)));
            rows.push(("softmax NLL, temperature-scaled", f(st.scores.nll)));
            rows.push(("softmax ECE, temperature-scaled", f(st.scores.ece)));
        }
    }
    if let Some((d, se)) = gap_to_softmax {
        rows.push(("hybrid NLL (temperature-scaled) − softmax NLL", format!("{d:+.4} ± {se:.4}")));
    }
    if let Some((d, se)) = gap_to_softmax_calibrated {
        rows.push(("hybrid NLL − softmax NLL, both temperature-scaled", format!("{d:+.4} ± {se:.4}")));
    }
    println!("mnist_hybrid on mnist ({} epochs, P = {m})", args.epochs);
    println!("| metric | value |\n|---|---|");
    for (name, value) in &rows {
        println!("| {name} | {value} |");
    }
    if args.json {
        let latent = calibrated.as_ref().map(|c| &c.0);
        let line = serde_json::json!({
            "example": "mnist_hybrid",
            "dataset": "mnist",
            "accuracy": h.scores.accuracy,
            "nll": h.scores.nll,
            "ece": h.scores.ece,
            "epoch_s": h.epoch_s,
            "mean_vr": mean_vr,
            "test_acc_by_epoch": h.curve,
            "softmax_accuracy": s.as_ref().map(|s| s.scores.accuracy),
            "softmax_nll": s.as_ref().map(|s| s.scores.nll),
            "softmax_ece": s.as_ref().map(|s| s.scores.ece),
            "softmax_epoch_s": s.as_ref().map(|s| s.epoch_s),
            "softmax_test_acc_by_epoch": s.as_ref().and_then(|s| s.curve.clone()),
            "calibration_size": held.as_ref().map_or(0, |h| h.n),
            "temperature": latent.map(|c| c.temperature.fitted.temperature),
            "nll_calibrated": latent.map(|c| c.temperature.scores.nll),
            "ece_calibrated": latent.map(|c| c.temperature.scores.ece),
            "variance_scale": latent.map(|c| c.variance.fitted.scale),
            "nll_variance_scaled": latent.map(|c| c.variance.scores.nll),
            "ece_variance_scaled": latent.map(|c| c.variance.scores.ece),
            "mean_field_temperature": latent.map(|c| c.mean_field.fitted.temperature),
            "mean_field_weight": latent.map(|c| c.mean_field.fitted.variance_weight),
            "nll_mean_field": latent.map(|c| c.mean_field.scores.nll),
            "ece_mean_field": latent.map(|c| c.mean_field.scores.ece),
            "softmax_temperature": softmax_calibrated.map(|c| c.fitted.temperature),
            "softmax_nll_calibrated": softmax_calibrated.map(|c| c.scores.nll),
            "softmax_ece_calibrated": softmax_calibrated.map(|c| c.scores.ece),
            "nll_calibrated_minus_softmax": gap_to_softmax.map(|g| g.0),
            "nll_calibrated_minus_softmax_se": gap_to_softmax.map(|g| g.1),
            "nll_calibrated_minus_softmax_calibrated": gap_to_softmax_calibrated.map(|g| g.0),
            "nll_calibrated_minus_softmax_calibrated_se": gap_to_softmax_calibrated.map(|g| g.1),
            "augment": false,
            "lengthscale_factor": recipe.head.lengthscale_factor,
            "epochs": args.epochs,
            "batch": args.batch,
            "lr": args.lr,
            "m": m,
            "train_size": train.n,
            "backend": backend,
        });
        println!("{line}");
    }
    Ok(())
}

/// The training images and, with `--calibration N > 0`, their last `N` held out.
fn hold_out(train: ImageSet, n: usize) -> Result<(ImageSet, Option<ImageSet>)> {
    if n == 0 {
        return Ok((train, None));
    }
    if n >= train.n {
        let why = format!("holding out {n} of {} training images leaves none to train on", train.n);
        return Err(burn_gp::Error::invalid("calibration", why));
    }
    let cut = train.n - n;
    Ok((train.subset(0..cut)?, Some(train.subset(cut..train.n)?)))
}

/// The fraction of points whose largest latent mean is the label (the Bayesian SVM's decision).
fn class_accuracy(pred: &ClassPredictive, labels: &[usize]) -> f64 {
    pred.classes().iter().zip(labels).filter(|(a, b)| a == b).count() as f64 / labels.len() as f64
}

/// Mean seconds per epoch of a training run (NaN for a loaded network).
fn epoch_s(history: &Option<History>) -> f64 {
    history.as_ref().map_or(f64::NAN, History::mean_epoch_s)
}

/// The test accuracy after every epoch of a training run.
fn test_accuracy(history: &Option<History>) -> Option<Vec<f64>> {
    let metric = |m: &[(String, f64)]| m.iter().find(|(name, _)| name == "test_acc").map_or(f64::NAN, |m| m.1);
    Some(history.as_ref()?.records.iter().map(|r| metric(&r.metrics)).collect())
}
