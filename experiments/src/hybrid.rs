//! Shared driver of the hybrid examples: a CNN trunk with a Bayesian SVM head, and the same trunk
//! with a softmax layer, trained in one run on an image data set.
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::calibration::{
    paired_nll_difference, Calibrated, ClassScores, LatentCalibrations, MeanFieldScaling, TemperatureScaling,
    VarianceScaling, ECE_BINS,
};
use burn_gp::data::{
    data_root, load_cifar10, load_cifar10_with_source, load_mnist, ImageAugmentation, ImageSet, MnistVariant, Subset,
};
use burn_gp::models::ClassPredictive;
use burn_gp::nets::{
    fit_hybrid, fit_hybrid_traced, image_batch, AugmentedImages, Cifar10TrunkConfig, FeatureNorm, FrozenStatistics,
    HybridConfig, HybridNet, HybridStep, ImageBatch, MnistTrunkConfig, SoftmaxNet, TrainingSet, Trunk,
};
use burn_gp::saved::{Blueprint, SavedModel};
use burn_gp::tensors::to_vec;
use burn_gp::train::{fit, History, TrainConfig};
use burn_gp::Result;

use crate::common::{print_table, CheckpointOptions, Devices, RunOptions};

/// The hybrid examples' defaults, the library's training recipe ([`HybridConfig::train_config`]):
/// batch 128, 3 epochs, Adam at 1e-3 annealed along half a cosine to 0, f32.
pub const HYBRID_DEFAULTS: &[(&str, &str)] =
    &[("batch", "128"), ("epochs", "3"), ("lr", "0.001"), ("lr_final_fraction", "0"), ("precision", "f32")];

/// Command line of the hybrid examples.
#[derive(clap::Parser, Debug)]
pub struct HybridArgs {
    /// Hybrid options: m, train-size, test-size, no-softmax, vr-samples, save, natural-step.
    #[command(flatten)]
    pub hybrid: HybridOptions,
    /// Shared options: batch, epochs, lr, seed, data, device, precision, csv, json, no-progress, plot.
    #[command(flatten)]
    pub run: RunOptions,
}

/// The image data sets the hybrid examples train on (each example uses one).
#[derive(Clone, Copy, Debug)]
pub enum ImageData {
    /// MNIST digits, `<data>/mnist/`.
    Mnist,
    /// Fashion-MNIST, `<data>/fashion-mnist/`.
    Fashion,
    /// CIFAR-10: the binary version, `<data>/cifar-10-batches-bin/`, or else the JPEG images,
    /// `<data>/cifar-10-jpeg/`.
    Cifar10,
}

impl ImageData {
    fn name(self) -> &'static str {
        match self {
            ImageData::Mnist => "mnist",
            ImageData::Fashion => "fashion-mnist",
            ImageData::Cifar10 => "cifar10",
        }
    }
}

/// Parses the command line (with the hybrids' defaults: batch 128, 3 epochs, lr 1e-3, f32), loads
/// `data` and runs the comparison; exits with status 1 and a one-line message on error.
pub fn main(example: &str, data: ImageData) {
    crate::common::keep_freed_memory();
    let args: HybridArgs = crate::common::parse_with_defaults(HYBRID_DEFAULTS);
    crate::common::exit_on_error((|| {
        let root = data_root(args.run.data.as_deref())?;
        match data {
            ImageData::Mnist | ImageData::Fashion => {
                if args.hybrid.augment {
                    return Err(burn_gp::Error::invalid(
                        "augment",
                        "the crop-and-flip augmentation is CIFAR-10's (a flipped digit is another digit)",
                    ));
                }
                let variant =
                    if matches!(data, ImageData::Mnist) { MnistVariant::Digits } else { MnistVariant::Fashion };
                let sets = (load_mnist(&root, variant, Subset::Train)?, load_mnist(&root, variant, Subset::Test)?);
                run(example, data.name(), sets, |d, _| Ok(MnistTrunkConfig::new().init(d)), &args.hybrid, &args.run)
            }
            ImageData::Cifar10 => {
                let mut opts = args.hybrid.clone();
                opts.lengthscale_factor.get_or_insert(HybridConfig::CIFAR10_LENGTHSCALE_FACTOR);
                let (train, source) = load_cifar10_with_source(&root, Subset::Train)?;
                eprintln!("{example}: read {source}");
                let sets = (train, load_cifar10(&root, Subset::Test)?);
                let augment = args.hybrid.augment;
                let trunk = move |d: &Device, train: &ImageSet| match augment {
                    true => Cifar10TrunkConfig::standardised_for(train).try_init(d),
                    false => Ok(Cifar10TrunkConfig::new().init(d)),
                };
                run(example, data.name(), sets, trunk, &opts, &args.run)
            }
        }
    })());
}

/// Options of the hybrid examples.
#[derive(clap::Args, Debug, Clone)]
pub struct HybridOptions {
    /// Inducing points of the Bayesian SVM head (the library's recipe: 128; paper 003: 64).
    #[arg(long, default_value_t = HybridConfig::CLASSIFICATION_INDUCING)]
    pub m: usize,
    /// Use only the first N training images (0 = all).
    #[arg(long, default_value_t = 0)]
    pub train_size: usize,
    /// Use only the first N test images (0 = all).
    #[arg(long, default_value_t = 0)]
    pub test_size: usize,
    /// Skip the softmax baseline.
    #[arg(long)]
    pub no_softmax: bool,
    /// Monte Carlo samples for the variation ratio.
    #[arg(long, default_value_t = 100)]
    pub vr_samples: usize,
    /// Model file: --save FILE (the trained hybrid), --load FILE (evaluate a saved hybrid only:
    /// no training, and no softmax baseline unless --load-softmax names one).
    #[command(flatten)]
    pub file: crate::common::ModelFileOptions,
    /// Step size ρ of the natural-gradient updates of the head's q(u) after every Adam step
    /// (0 = train q(u) by Adam too, as the paper does).
    #[arg(long, default_value_t = 0.02)]
    pub natural_step: f64,
    /// Step size of the first natural-gradient update of q(u), falling as (τ+1)^-0.6 to
    /// --natural-step (default: constant at --natural-step).
    #[arg(long)]
    pub natural_step_start: Option<f64>,
    /// Factor on the learning rate of the head's parameters (kernel, inducing points) over the
    /// trunk's (the library's `HybridConfig::head_lr_factor`).
    #[arg(long, default_value_t = 1.0)]
    pub head_lr_factor: f64,
    /// The CIFAR-10 training recipe: every training batch cropped at random from a 4-pixel
    /// zero-padded image and flipped left to right with probability ½ (drawn from --seed, the
    /// same draws for both networks), and the trunk's input standardised per channel with the
    /// training images' moments (`burn_gp::data::ImageAugmentation`, `burn_gp::nets::AugmentedImages`,
    /// `Cifar10TrunkConfig::standardised_for`).
    #[arg(long)]
    pub augment: bool,
    /// How the trunk's features are normalised before the head.
    #[arg(long, value_enum, default_value_t = NormArg::Batch)]
    pub feature_norm: NormArg,
    /// Standardise the features by the minibatch for the first N training steps only, then freeze
    /// the normaliser's statistics and leave the features unstandardised (default: throughout).
    #[arg(long)]
    pub standardize_steps: Option<usize>,
    /// With --standardize-steps, freeze only the mean after the warm-up and keep dividing each
    /// feature by its spread in the minibatch (unit spread at the head).
    #[arg(long, requires = "standardize_steps")]
    pub freeze_mean_only: bool,
    /// Write one CSV row per training step of the hybrid (loss terms, feature spread, gradient
    /// norm, kernel and q(u) statistics) to this file.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Train the hybrid through burn-train's `Learner` (its metrics, dashboard and checkpoints,
    /// under --learner-dir) instead of the library's loop; same recipe (feature `learner`).
    #[arg(long)]
    pub learner: bool,
    /// Where the `Learner` writes its logs and checkpoints (default: <temp>/burn-gp-<example>).
    #[arg(long)]
    pub learner_dir: Option<PathBuf>,
    /// Hold out the last N training images (not trained on) to fit each network's temperature
    /// (`burn_gp::calibration`); the tables then add temperature-scaled NLL and ECE (0 = none).
    #[arg(long, default_value_t = 0)]
    pub calibration: usize,
    /// Save the trained softmax baseline to this file.
    #[arg(long)]
    pub save_softmax: Option<PathBuf>,
    /// Evaluate a softmax baseline saved by --save-softmax instead of training one (with --load,
    /// both saved networks are evaluated side by side).
    #[arg(long)]
    pub load_softmax: Option<PathBuf>,
    /// Initial diagonal of the head's whitened q(u) Cholesky factors.
    #[arg(long, default_value_t = 0.1)]
    pub q_sqrt_init: f64,
    /// Factor on the head's initial lengthscales (1 = the median distance between features).
    /// Default: the library's recipe for the data, 0.5 for MNIST and Fashion-MNIST
    /// (`HybridConfig::classes`, docs/results/bayesian_svm.md), 2 for CIFAR-10
    /// (`HybridConfig::cifar10`, docs/results/cifar10.md).
    #[arg(long)]
    pub lengthscale_factor: Option<f64>,
    /// Weight β on the head's data term (tempering; 1 = the untempered ELBO, below 1 a wider q(u)).
    #[arg(long, default_value_t = 1.0)]
    pub likelihood_weight: f64,
    /// Checkpoints: --checkpoint-dir DIR (the hybrid's `DIR/HybridNet.ckpt` and the softmax
    /// baseline's `DIR/SoftmaxNet.ckpt`, after every epoch), --resume.
    #[command(flatten)]
    pub checkpoint: crate::common::CheckpointOptions,
}

/// The training images and, with `--calibration N`, the last `N` of them held out (not trained
/// on) for fitting temperatures.
pub fn split_calibration(train: ImageSet, opts: &HybridOptions) -> Result<(ImageSet, Option<ImageSet>)> {
    let train = if opts.train_size > 0 { train.subset(0..opts.train_size.min(train.n))? } else { train };
    if opts.calibration == 0 {
        return Ok((train, None));
    }
    if opts.calibration >= train.n {
        return Err(burn_gp::Error::invalid(
            "calibration",
            format!("holding out {} of {} training images leaves none to train on", opts.calibration, train.n),
        ));
    }
    let cut = train.n - opts.calibration;
    Ok((train.subset(0..cut)?, Some(train.subset(cut..train.n)?)))
}

/// Each calibration of the hybrid (the library's [`LatentCalibrations`], flattened) and the
/// softmax network's temperature, fitted on the held-out images and scored on the test images.
pub struct Calibrations {
    /// The paper's `softmax(f̄ / T)`.
    pub temperature: Calibrated<TemperatureScaling>,
    /// The arg-max probabilities with the latent variances scaled.
    pub variance: Calibrated<VarianceScaling>,
    /// `softmax(f̄_c / (T·√(1 + λ·v_c)))`.
    pub mean_field: Calibrated<MeanFieldScaling>,
    /// The softmax network's temperature.
    pub softmax: Option<Calibrated<TemperatureScaling>>,
}

/// Fits every calibration on `held` and scores it on `test` (`pred`: the hybrid's test marginals).
pub fn calibrate<T: Trunk<Input = Tensor<4>>>(
    hybrid: &HybridNet<T>,
    softmax: Option<&SoftmaxNet<T>>,
    held: &ImageSet,
    (pred, test): (&ClassPredictive, &ImageSet),
    device: &Device,
) -> Result<Calibrations> {
    let (held_labels, test_labels) = (held.labels_usize(), test.labels_usize());
    let latent = LatentCalibrations::fit((&hybrid.predict_images(held, device)?, &held_labels), (pred, &test_labels))?;
    let softmax = match softmax {
        Some(net) => Some(Calibrated::temperature_of_scores(
            (&net.logits_of_images(held, device)?, &held_labels),
            (&net.logits_of_images(test, device)?, &test_labels),
            held.num_classes,
        )?),
        None => None,
    };
    let LatentCalibrations { temperature, variance, mean_field } = latent;
    Ok(Calibrations { temperature, variance, mean_field, softmax })
}

/// `--feature-norm` values (see [`FeatureNorm`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum NormArg {
    /// Each feature standardised across the batch (running statistics at inference).
    Batch,
    /// As batch, with a learned scale and shift.
    BatchAffine,
    /// Each feature vector standardised over its entries.
    Rows,
    /// No normalisation.
    None,
}

impl From<NormArg> for FeatureNorm {
    fn from(arg: NormArg) -> Self {
        match arg {
            NormArg::Batch => FeatureNorm::Batch,
            NormArg::BatchAffine => FeatureNorm::BatchAffine,
            NormArg::Rows => FeatureNorm::Rows,
            NormArg::None => FeatureNorm::Identity,
        }
    }
}

/// The test accuracy after each epoch of the network `name` among `curves` (`None` if it was not
/// trained in this run).
fn curve_of(curves: &[(&str, History)], name: &str) -> Option<Vec<f64>> {
    let (_, history) = curves.iter().find(|(n, _)| *n == name)?;
    Some(
        history
            .records
            .iter()
            .map(|r| r.metrics.iter().find(|(m, _)| m == "test_acc").map_or(f64::NAN, |m| m.1))
            .collect(),
    )
}

/// Test metrics of one trained network.
pub struct Scores {
    /// Test accuracy.
    pub accuracy: f64,
    /// Test negative log-likelihood (mean, nats).
    pub nll: f64,
    /// Expected calibration error (15 bins).
    pub ece: f64,
    /// Mean seconds per training epoch.
    pub epoch_s: f64,
    /// Mean variation ratio on test images (hybrid only).
    pub mean_vr: Option<f64>,
}

/// Accuracy, NLL and ECE of class probabilities `[n, C]` of `set`'s images
/// ([`ClassScores::of`]).
pub fn score(probs: &[f64], set: &ImageSet) -> Result<ClassScores> {
    ClassScores::of(probs, set.num_classes, &set.labels_usize())
}

/// The paired NLL difference of two tables of class probabilities on `set`
/// ([`paired_nll_difference`]): its mean and standard error.
pub fn nll_difference(a: &[f64], b: &[f64], set: &ImageSet) -> Result<(f64, f64)> {
    paired_nll_difference(a, b, set.num_classes, &set.labels_usize())
}

/// Hybrid scores: the decision is the SVM's `argmax f̄`; `probs` are its class probabilities by
/// Gauss–Hermite (`pred.gh_probabilities(32)`).
pub fn hybrid_scores(
    pred: &ClassPredictive,
    probs: &[f64],
    set: &ImageSet,
    vr_samples: usize,
    seed: u64,
) -> Result<Scores> {
    let ClassScores { nll, ece, .. } = score(probs, set)?;
    let labels = set.labels_usize();
    let hits = pred.classes().iter().zip(&labels).filter(|(a, b)| a == b).count();
    let vr = pred.variation_ratio(vr_samples, seed);
    Ok(Scores {
        accuracy: hits as f64 / set.n as f64,
        nll,
        ece,
        epoch_s: 0.0,
        mean_vr: Some(vr.iter().sum::<f64>() / vr.len().max(1) as f64),
    })
}

/// The head's lengthscale factor: `--lengthscale-factor`, else the library's default
/// (`HybridConfig::classes`'s; CIFAR-10's is set in `main`).
fn lengthscale_factor(opts: &HybridOptions) -> f64 {
    opts.lengthscale_factor.unwrap_or(HybridConfig::classes(2).head.lengthscale_factor)
}

/// The recipe these options describe: the library's defaults with `--m`, `--natural-step`,
/// `--feature-norm`, `--standardize-steps`, `--freeze-mean-only`, the head's initial settings,
/// its likelihood weight and the seed.
pub fn recipe(num_classes: usize, opts: &HybridOptions, run: &RunOptions) -> HybridConfig {
    let recipe = HybridConfig::classes(num_classes);
    let head = recipe
        .head
        .with_num_inducing(opts.m)
        .with_q_sqrt_init(opts.q_sqrt_init)
        .with_lengthscale_factor(lengthscale_factor(opts))
        .with_likelihood_weight(opts.likelihood_weight)
        .with_seed(run.seed);
    HybridConfig { head, ..recipe }
        .with_natural_step(opts.natural_step)
        .with_natural_step_start(opts.natural_step_start)
        .with_head_lr_factor(opts.head_lr_factor)
        .with_feature_norm(opts.feature_norm.into())
        .with_standardize_steps(opts.standardize_steps)
        .with_frozen_statistics(match opts.freeze_mean_only {
            true => FrozenStatistics::Mean,
            false => FrozenStatistics::MeanAndVariance,
        })
}

/// Trains the hybrid on `train` by the library's recipe, evaluating on `test` after every epoch;
/// with `--trace FILE`, writes one CSV row per step (see [`TRACE_HEADER`]).
pub fn train_hybrid<T: Trunk<Input = Tensor<4>>>(
    trunk: T,
    train: &ImageSet,
    test: &ImageSet,
    opts: &HybridOptions,
    run: &RunOptions,
    devices: &Devices,
) -> Result<(HybridNet<T>, History)> {
    if opts.augment {
        let augmented = AugmentedImages::new(train.clone(), ImageAugmentation::cifar(), run.seed)?;
        train_hybrid_on(trunk, train, &augmented, test, opts, run, devices)
    } else {
        train_hybrid_on(trunk, train, train, test, opts, run, devices)
    }
}

/// [`train_hybrid`] drawing its minibatches from `batches` (the training images, augmented or
/// not); the head is placed on the plain images `train`.
fn train_hybrid_on<T: Trunk<Input = Tensor<4>>, S: TrainingSet<Input = Tensor<4>>>(
    trunk: T,
    train: &ImageSet,
    batches: &S,
    test: &ImageSet,
    opts: &HybridOptions,
    run: &RunOptions,
    devices: &Devices,
) -> Result<(HybridNet<T>, History)> {
    let recipe = recipe(train.num_classes, opts, run);
    let net = recipe.init(trunk, train, &devices.train)?;
    let config = TrainConfig { checkpoint: opts.checkpoint.config(""), ..run.train_config() };
    let base = devices.base.clone();
    let evaluate = |m: &HybridNet<T>, _epoch: usize| -> Result<Vec<(String, f64)>> {
        let pred = m.predict_images(test, &base)?;
        let labels = test.labels_usize();
        let hits = pred.classes().iter().zip(&labels).filter(|(a, b)| a == b).count();
        Ok(vec![("test_acc".to_string(), hits as f64 / test.n as f64)])
    };
    let Some(path) = &opts.trace else {
        return fit_hybrid(net, batches, &recipe, &config, evaluate);
    };
    let io = |e: std::io::Error| burn_gp::Error::invalid("trace", format!("{}: {e}", path.display()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    writeln!(out, "{TRACE_HEADER}").map_err(io)?;
    let mut failed = None;
    let mut write_row = |m: &HybridNet<T>, s: &HybridStep| {
        let variance = to_vec(m.head.kernel.params.variance.value())[0];
        let ls = to_vec(m.head.kernel.params.lengthscales.value());
        let q_mu = to_vec(m.head.q_mu.val());
        let q_sqrt = to_vec(m.head.q_sqrt.val());
        let p = m.head.num_inducing();
        let diag: Vec<f64> = (0..q_sqrt.len() / (p * p))
            .flat_map(|c| (0..p).map(move |i| (c, i)))
            .map(|(c, i)| q_sqrt[c * p * p + i * p + i].abs())
            .collect();
        let row = format!(
            "{},{},{:.6},{:.6},{:.6},{:.4},{:.6},{:.6},{:.6},{:.6e},{},{:.6},{:.6},{:.6},{:.6}",
            s.at.step,
            s.at.epoch,
            s.loss,
            s.data_per_image,
            s.kl_per_image,
            s.batch_accuracy,
            s.raw_spread,
            s.raw_offset,
            s.head_spread,
            s.trunk_grad_norm,
            s.natural_step,
            variance,
            ls.iter().sum::<f64>() / ls.len() as f64,
            (q_mu.iter().map(|v| v * v).sum::<f64>() / q_mu.len() as f64).sqrt(),
            diag.iter().sum::<f64>() / diag.len() as f64,
        );
        if let Err(e) = writeln!(out, "{row}") {
            failed.get_or_insert(e);
        }
    };
    let result = fit_hybrid_traced(net, batches, &recipe, &config, evaluate, &mut write_row)?;
    match failed {
        Some(e) => Err(io(e)),
        None => Ok(result),
    }
}

/// Trains the hybrid through burn-train's `Learner` by the same recipe (minibatches of `--batch`
/// shuffled by `--seed`, the optimiser and learning-rate schedule of the run, natural-gradient
/// steps of q(u) inside each optimisation step), validating on `test` after every epoch with
/// burn-train's accuracy and loss metrics; logs and checkpoints go to `dir`. Returns the network
/// and the mean seconds per epoch (validation included). Without the `learner` feature: an error
/// saying how to get it.
pub fn train_with_learner<T: Trunk<Input = Tensor<4>> + 'static>(
    trunk: T,
    train: &ImageSet,
    test: &ImageSet,
    opts: &HybridOptions,
    run: &RunOptions,
    devices: &Devices,
    dir: &std::path::Path,
) -> Result<(HybridNet<T>, f64)> {
    #[cfg(not(feature = "learner"))]
    {
        let _ = (trunk, train, test, opts, run, devices, dir);
        Err(burn_gp::Error::invalid("learner", "this build has no `learner` feature; rebuild with --features learner"))
    }
    #[cfg(feature = "learner")]
    {
        use burn_gp::nets::{head_loaders_after, LearnerNet};
        if opts.augment {
            return Err(burn_gp::Error::invalid(
                "augment",
                "the --learner path draws plain batches; drop --learner or --augment",
            ));
        }
        use burn_gp::train::ScheduledLr;
        use burn_train::metric::{AccuracyMetric, LossMetric};
        use burn_train::{Learner, SupervisedTraining};
        use std::sync::Arc;

        let recipe = recipe(train.num_classes, opts, run);
        let net = recipe.init(trunk, train, &devices.train)?;
        let config = run.train_config();
        // with --checkpoint-dir, burn-train's checkpoints go there; --resume goes on after the
        // last epoch checkpointed (burn-train restores the network, the optimiser and the
        // schedule, the loaders start at the next epoch's minibatches)
        let dir = opts.checkpoint.checkpoint_dir.as_deref().unwrap_or(dir);
        let done = match opts.checkpoint.resume {
            true => last_learner_epoch(dir).map(|e| e.min(config.epochs)),
            false => None,
        };
        let loaders = head_loaders_after(
            Arc::new(train.clone()),
            Arc::new(test.clone()),
            config.batch_size,
            config.seed,
            done.unwrap_or(0),
        )?;
        let learner = Learner::new(
            LearnerNet::new(net, &recipe)?,
            config.optimizer.init()?,
            ScheduledLr::new(&config, train.n.div_ceil(config.batch_size))?,
        );
        eprintln!("training through burn-train's Learner; logs and checkpoints in {}", dir.display());
        let t0 = Instant::now();
        let training = SupervisedTraining::new(dir, loaders.train, loaders.valid)
            .metrics((AccuracyMetric::new(), LossMetric::new()))
            .with_default_checkpointers()
            .num_epochs(config.epochs)
            .summary();
        let training = match done {
            Some(epoch) => {
                eprintln!("resuming after epoch {epoch} from {}", dir.display());
                training.checkpoint(epoch)
            }
            None => training,
        };
        let result = training.launch(learner);
        let epoch_s = t0.elapsed().as_secs_f64() / config.epochs.max(1) as f64;
        if let Some(e) = result.error {
            return Err(burn_gp::Error::invalid("learner", e.to_string()));
        }
        Ok((result.model.into_net()?, epoch_s))
    }
}

/// The last epoch whose model burn-train's default checkpointer wrote under `dir`
/// (`dir/checkpoint/model-<epoch>.bpk`), if any.
#[cfg(feature = "learner")]
fn last_learner_epoch(dir: &std::path::Path) -> Option<usize> {
    std::fs::read_dir(dir.join("checkpoint"))
        .ok()?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_prefix("model-")?.strip_suffix(".bpk")?.parse::<usize>().ok()
        })
        .max()
}

/// Columns of `--trace`: step, epoch, minibatch loss (−ELBO/N), mean data term, KL/N, batch
/// accuracy, spread and offset of the raw features, spread of the head's inputs, gradient norm over
/// the trunk, natural-gradient step, kernel variance, mean lengthscale, RMS of q(u)'s mean, mean
/// |diagonal| of q(u)'s Cholesky factor.
pub const TRACE_HEADER: &str = "step,epoch,loss,data_per_image,kl_per_image,batch_acc,raw_spread,raw_offset,head_spread,trunk_grad_norm,natural_step,kernel_variance,mean_lengthscale,q_mu_rms,q_sqrt_diag";

/// Trains the softmax baseline with the same trunk architecture, optimiser and budget.
/// With `augment`, the minibatches are augmented as the hybrid's are (the same draws); with
/// `--checkpoint-dir`, checkpointed to `DIR/SoftmaxNet.ckpt` (beside the hybrid's).
pub fn train_softmax<T: Trunk<Input = Tensor<4>>>(
    trunk: T,
    (train, test): (&ImageSet, &ImageSet),
    run: &RunOptions,
    checkpoint: &CheckpointOptions,
    devices: &Devices,
    augment: bool,
) -> Result<(SoftmaxNet<T>, History)> {
    let augmented = match augment {
        true => Some(AugmentedImages::new(train.clone(), ImageAugmentation::cifar(), run.seed)?),
        false => None,
    };
    let net = SoftmaxNet::new(trunk, train.num_classes, &devices.train);
    let base = devices.base.clone();
    let evaluate = |m: &SoftmaxNet<T>, _epoch: usize| -> Result<Vec<(String, f64)>> {
        let probs = m.probabilities_of_images(test, &base)?;
        Ok(vec![("test_acc".to_string(), score(&probs, test)?.accuracy)])
    };
    let dev = devices.train.clone();
    fit(
        net,
        train.n,
        &TrainConfig { checkpoint: checkpoint.config(""), ..run.train_config() },
        |m, idx| {
            let b: ImageBatch = match &augmented {
                Some(augmented) => augmented.image_batch(idx, &dev)?,
                None => image_batch(train, idx, &dev)?,
            };
            Ok(m.loss(b.images, b.labels))
        },
        evaluate,
    )
}

/// Runs the whole comparison and prints the table and (with `--json`) the final JSON line.
pub fn run<T: Trunk<Input = Tensor<4>> + Blueprint + 'static>(
    example: &str,
    dataset: &str,
    (train, test): (ImageSet, ImageSet),
    make_trunk: impl Fn(&Device, &ImageSet) -> Result<T>,
    opts: &HybridOptions,
    run: &RunOptions,
) -> Result<()> {
    let devices = run.devices()?;
    let figures = run.plot.figures(example)?;
    let (train, held) = split_calibration(train, opts)?;
    let test = if opts.test_size > 0 { test.subset(0..opts.test_size.min(test.n))? } else { test };
    eprintln!(
        "{example}: {dataset}, {} train / {} held-out / {} test images, backend {} ({:?}), {} epochs, batch {}, lr {}",
        train.n,
        held.as_ref().map_or(0, |h| h.n),
        test.n,
        devices.backend,
        burn_gp::device::precision(&devices.base),
        run.epochs,
        run.batch,
        run.lr
    );
    let t0 = Instant::now();
    let mut curves = Vec::new();
    let (hybrid, epoch_s) = match &opts.file.load {
        Some(path) => (HybridNet::<T>::load(path, &devices.base)?, f64::NAN),
        None if opts.learner => {
            let dir =
                opts.learner_dir.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("burn-gp-{example}")));
            let (hybrid, epoch_s) =
                train_with_learner(make_trunk(&devices.train, &train)?, &train, &test, opts, run, &devices, &dir)?;
            (hybrid.valid(), epoch_s)
        }
        None => {
            let (hybrid, history) =
                train_hybrid(make_trunk(&devices.train, &train)?, &train, &test, opts, run, &devices)?;
            run.write_curve(&history)?;
            let epoch_s = history.mean_epoch_s();
            curves.push(("hybrid", history));
            (hybrid.valid(), epoch_s)
        }
    };
    let pred = hybrid.predict_images(&test, &devices.base)?;
    let probs = pred.gh_probabilities(32);
    let mut h = hybrid_scores(&pred, &probs, &test, opts.vr_samples, run.seed)?;
    h.epoch_s = epoch_s;
    eprintln!("hybrid ready and evaluated in {:.1}s", t0.elapsed().as_secs_f64());
    if let Some(path) = &opts.file.save {
        hybrid.save(path)?;
    }
    let soft_net = match &opts.load_softmax {
        Some(path) => Some((SoftmaxNet::<T>::load(path, &devices.base)?, f64::NAN)),
        None if opts.no_softmax || opts.file.load.is_some() => None,
        None => {
            let (net, history) = train_softmax(
                make_trunk(&devices.train, &train)?,
                (&train, &test),
                run,
                &opts.checkpoint,
                &devices,
                opts.augment,
            )?;
            let net = net.valid();
            if let Some(path) = &opts.save_softmax {
                net.save(path)?;
            }
            let epoch_s = history.mean_epoch_s();
            curves.push(("softmax", history));
            Some((net, epoch_s))
        }
    };
    let (soft, soft_probs) = match &soft_net {
        Some((net, epoch_s)) => {
            let probs = net.probabilities_of_images(&test, &devices.base)?;
            let ClassScores { accuracy, nll, ece } = score(&probs, &test)?;
            let title = format!("{example}: softmax baseline on {dataset}, test set");
            figures.reliability(
                "softmax_reliability",
                &title,
                &probs,
                test.num_classes,
                &test.labels_usize(),
                ECE_BINS,
            )?;
            (Some(Scores { accuracy, nll, ece, epoch_s: *epoch_s, mean_vr: None }), Some(probs))
        }
        None => (None, None),
    };
    let soft_net = soft_net.map(|(net, _)| net);
    let calibrated = match &held {
        Some(held) => Some(calibrate(&hybrid, soft_net.as_ref(), held, (&pred, &test), &devices.base)?),
        None => None,
    };
    // The hybrid's temperature-scaled NLL against the softmax network's own and against the
    // softmax network's temperature-scaled NLL (the same treatment), each paired per image.
    let nll_gap = match (&calibrated, &soft_probs) {
        (Some(c), Some(sp)) => Some(nll_difference(&c.temperature.probabilities, sp, &test)?),
        _ => None,
    };
    let nll_gap_calibrated = match calibrated.as_ref().and_then(|c| Some((c, c.softmax.as_ref()?))) {
        Some((c, s)) => Some(nll_difference(&c.temperature.probabilities, &s.probabilities, &test)?),
        None => None,
    };
    figures.curves("curves", &format!("{example} on {dataset}: training"), &curves)?;
    if figures.enabled() {
        let title = format!("{example}: hybrid on {dataset}, test set");
        figures.reliability("reliability", &title, &probs, test.num_classes, &test.labels_usize(), ECE_BINS)?;
    }
    let f = |v: f64| format!("{v:.4}");
    let mut rows = vec![
        ("hybrid accuracy", f(h.accuracy)),
        ("hybrid NLL", f(h.nll)),
        ("hybrid ECE", f(h.ece)),
        ("hybrid mean variation ratio", f(h.mean_vr.unwrap_or(f64::NAN))),
        ("hybrid s/epoch", format!("{:.1}", h.epoch_s)),
    ];
    if let Some(s) = &soft {
        rows.extend([
            ("softmax accuracy", f(s.accuracy)),
            ("softmax NLL", f(s.nll)),
            ("softmax ECE", f(s.ece)),
            ("softmax s/epoch", format!("{:.1}", s.epoch_s)),
        ]);
    }
    if let Some(c) = &calibrated {
        let (v, t, mf) = (&c.variance, &c.temperature, &c.mean_field);
        rows.extend([
            ("hybrid variance factor", f(v.fitted.scale)),
            ("hybrid NLL, variance-scaled", f(v.scores.nll)),
            ("hybrid ECE, variance-scaled", f(v.scores.ece)),
            ("hybrid temperature", f(t.fitted.temperature)),
            ("hybrid NLL, temperature-scaled", f(t.scores.nll)),
            ("hybrid ECE, temperature-scaled", f(t.scores.ece)),
            ("hybrid mean-field temperature", f(mf.fitted.temperature)),
            ("hybrid mean-field variance weight", f(mf.fitted.variance_weight)),
            ("hybrid NLL, mean-field", f(mf.scores.nll)),
            ("hybrid ECE, mean-field", f(mf.scores.ece)),
        ]);
        if let Some(s) = &c.softmax {
            rows.extend([
                ("softmax temperature", f(s.fitted.temperature)),
                ("softmax NLL, temperature-scaled", f(s.scores.nll)),
                ("softmax ECE, temperature-scaled", f(s.scores.ece)),
            ]);
        }
    }
    if let Some((gap, se)) = nll_gap {
        rows.push(("hybrid NLL (temperature-scaled) − softmax NLL", format!("{gap:+.4} ± {se:.4}")));
    }
    if let Some((gap, se)) = nll_gap_calibrated {
        rows.push(("hybrid NLL − softmax NLL, both temperature-scaled", format!("{gap:+.4} ± {se:.4}")));
    }
    // P of the network evaluated: a `--load`ed hybrid keeps its own, whatever `--m` says.
    let inducing = hybrid.head.num_inducing();
    print_table(&format!("{example} on {dataset} ({} epochs, P = {inducing})", run.epochs), &rows);
    if run.json {
        let line = serde_json::json!({
            "example": example,
            "dataset": dataset,
            "accuracy": h.accuracy,
            "nll": h.nll,
            "ece": h.ece,
            "epoch_s": h.epoch_s,
            "mean_vr": h.mean_vr,
            "softmax_accuracy": soft.as_ref().map(|s| s.accuracy),
            "softmax_nll": soft.as_ref().map(|s| s.nll),
            "softmax_epoch_s": soft.as_ref().map(|s| s.epoch_s),
            "softmax_ece": soft.as_ref().map(|s| s.ece),
            "calibration_size": held.as_ref().map_or(0, |h| h.n),
            "temperature": calibrated.as_ref().map(|c| c.temperature.fitted.temperature),
            "nll_calibrated": calibrated.as_ref().map(|c| c.temperature.scores.nll),
            "ece_calibrated": calibrated.as_ref().map(|c| c.temperature.scores.ece),
            "softmax_temperature": calibrated.as_ref().and_then(|c| c.softmax.as_ref().map(|s| s.fitted.temperature)),
            "softmax_nll_calibrated": calibrated.as_ref().and_then(|c| c.softmax.as_ref().map(|s| s.scores.nll)),
            "softmax_ece_calibrated": calibrated.as_ref().and_then(|c| c.softmax.as_ref().map(|s| s.scores.ece)),
            "variance_scale": calibrated.as_ref().map(|c| c.variance.fitted.scale),
            "nll_variance_scaled": calibrated.as_ref().map(|c| c.variance.scores.nll),
            "ece_variance_scaled": calibrated.as_ref().map(|c| c.variance.scores.ece),
            "mean_field_temperature": calibrated.as_ref().map(|c| c.mean_field.fitted.temperature),
            "mean_field_weight": calibrated.as_ref().map(|c| c.mean_field.fitted.variance_weight),
            "nll_mean_field": calibrated.as_ref().map(|c| c.mean_field.scores.nll),
            "ece_mean_field": calibrated.as_ref().map(|c| c.mean_field.scores.ece),
            "nll_calibrated_minus_softmax": nll_gap.map(|g| g.0),
            "nll_calibrated_minus_softmax_se": nll_gap.map(|g| g.1),
            "nll_calibrated_minus_softmax_calibrated": nll_gap_calibrated.map(|g| g.0),
            "nll_calibrated_minus_softmax_calibrated_se": nll_gap_calibrated.map(|g| g.1),
            "test_acc_by_epoch": curve_of(&curves, "hybrid"),
            "softmax_test_acc_by_epoch": curve_of(&curves, "softmax"),
            "augment": opts.augment,
            "lengthscale_factor": lengthscale_factor(opts),
            "epochs": run.epochs,
            "batch": run.batch,
            "lr": run.lr,
            "m": inducing,
            "train_size": train.n,
            "backend": devices.backend,
        });
        println!("{line}");
    }
    Ok(())
}
