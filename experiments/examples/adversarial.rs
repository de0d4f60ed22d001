//! Adversarial-image detection with the hybrid network's uncertainty (Wistuba & Rawat 2018, §4.3.2):
//! FGSM images `x_adv = clip(x + ε·sign(∇ₓ loss), 0, 1)` made with Burn's autodiff with respect to
//! the input, then how well each uncertainty score separates adversarial from clean test images
//! (ROC-AUC, adversarial = positive). The softmax network with the same trunk is attacked the same
//! way (FGSM on its own cross-entropy, same images, same ε) as the baseline a user would try first.
//!
//! ```text
//! cargo run --release --example mnist_hybrid -- --save hybrid.bgp --save-softmax softmax.bgp  # train once
//! cargo run --release -p burn-gp-experiments --example adversarial -- --model hybrid.bgp --softmax-model softmax.bgp
//! cargo run --release -p burn-gp-experiments --example adversarial -- --train-size 10000 --epochs 1   # or train both here
//! cargo run --release -p burn-gp-experiments --example adversarial -- --dataset cifar10 --model h.bgp --softmax-model s.bgp  # CIFAR-10
//! ```
//! `--dataset cifar10` attacks the paper's CIFAR-10 networks (saved by `cifar_hybrid --save …
//! --save-softmax …`, or trained here by `cifar_hybrid`'s recipe) on CIFAR-10's test images.
//! The hybrid's attacked loss is the head's per-image data term `−ℓ*_n` (the KL does not depend on
//! x), or with `--attack-loss mean-softmax` the cross-entropy of `softmax(f̄)` over its mean
//! predictions. Scores of the hybrid: `vr`, the sampled variation ratio (the paper's eq. 13,
//! `--vr-samples` draws); `max_p`, `1 − max_c p_c` with the arg-max probabilities
//! `p_c = P(f_c is the largest)` (the VR's limit as S → ∞); `entropy` of those `p`;
//! `latent_var`, the head's latent variance averaged over classes; `mean_entropy`, the entropy of the paper's class probabilities
//! `softmax(f̄ / T)` over the mean predictions (§4.3.1; `T` = 1 without `--calibration`, else the
//! fitted temperature: the probabilities whose NLL is reported); `scaled_entropy`, the entropy of
//! the arg-max probabilities with the latent variances times the factor `variance_scale` fitted
//! on the held-out images (`VarianceScaling`; 1 without `--calibration`). Scores of the softmax
//! network: `1 − max_c p_c` and the entropy.
//! `--plot DIR` writes the ROC curves, one curve per ε: `adversarial_roc_vr.svg` (sampled VR) and
//! `adversarial_roc_maxp.svg` (`1 − max_c p_c`), and, when the hybrid is trained here,
//! `adversarial_curves.svg`. With `--calibration N` (the same N the networks were trained with:
//! the last N training images, not trained on) each network's temperature is fitted there.
//! With `--json` the last stdout line is
//! `{"example":"adversarial","dataset":"mnist","eps":[…],"accuracy":[…],"clean_accuracy":…,"vr_clean":…,"vr_adv":[…],"auc":[…],"auc_limit":[…],"test_size":…, …}`
//! (`auc`: ROC-AUC of the sampled VR; `auc_limit`: of `max_p`; also `auc_entropy`,
//! `auc_latent_var`, `auc_mean_entropy`, `auc_scaled_entropy`, `attack_loss`, `variance_scale`,
//! `latent_var_clean`, `latent_var_adv`, `nll`, `nll_calibrated`, `temperature`,
//! and for the softmax network, `null` without one: `softmax_clean_accuracy`, `softmax_accuracy`,
//! `softmax_auc_max_p`, `softmax_auc_entropy`, `softmax_nll`, `softmax_nll_calibrated`,
//! `softmax_temperature`, and the hybrid on the softmax network's FGSM images (a transferred
//! attack): `transfer_accuracy`, `transfer_auc` (VR), `transfer_auc_limit`, `transfer_auc_entropy`,
//! `transfer_auc_latent_var`, `transfer_auc_mean_entropy`, `transfer_auc_scaled_entropy`; the
//! per-ε keys are lists in the order of `eps`, the NLLs are on the clean test images used here).
use std::path::PathBuf;

use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::tensor::{Device, Tensor};
use burn_gp::calibration::{TemperatureScaling, VarianceScaling};
use burn_gp::data::{data_root, load_cifar10, load_mnist, ImageSet, MnistVariant, Subset};
use burn_gp::metrics::{accuracy, roc_auc, roc_curve};
use burn_gp::models::{entropy, ClassPredictive};
use burn_gp::nets::{
    fgsm, image_batch, Cifar10TrunkConfig, HybridConfig, HybridNet, MnistTrunkConfig, SoftmaxNet, Trunk,
};
use burn_gp::saved::Blueprint;
use burn_gp::saved::SavedModel;
use burn_gp::tensors::to_vec;
use burn_gp::Result;

use burn_gp_experiments::common;
use burn_gp_experiments::hybrid;

/// Command-line options.
#[derive(clap::Parser, Debug)]
#[command(about = "FGSM attack on the hybrid and its softmax twin; detection ROC-AUC of their uncertainty")]
struct Args {
    /// The images and the paper's network for them.
    #[arg(long, value_enum, default_value_t = Dataset::Mnist)]
    dataset: Dataset,
    /// A hybrid saved by `mnist_hybrid --save` (default: train one here with the hybrid options;
    /// `--load FILE` works too).
    #[arg(long)]
    model: Option<PathBuf>,
    /// A softmax network saved by `mnist_hybrid --save-softmax` (default: train one here when the
    /// hybrid is trained here, unless `--no-softmax`).
    #[arg(long)]
    softmax_model: Option<PathBuf>,
    /// The loss the FGSM attack on the hybrid ascends.
    #[arg(long, value_enum, default_value_t = AttackLoss::Hinge)]
    attack_loss: AttackLoss,
    /// Attack strengths ε (pixels in [0, 1]).
    #[arg(long, value_delimiter = ',', default_value = "0.05,0.1,0.15,0.2,0.25,0.3")]
    eps: Vec<f64>,
    /// Hybrid options (used when training here): m, train-size, test-size, vr-samples, …
    #[command(flatten)]
    hybrid: hybrid::HybridOptions,
    /// Shared options: batch, epochs, lr, seed, data, device, precision, json, plot, …
    #[command(flatten)]
    run: common::RunOptions,
}

/// `--dataset` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
enum Dataset {
    /// MNIST digits and `MnistTrunk` (`mnist_hybrid`'s networks).
    Mnist,
    /// CIFAR-10 and `Cifar10Trunk` (`cifar_hybrid`'s networks, without `--augment`).
    Cifar10,
}

impl Dataset {
    /// The name in the JSON.
    fn name(self) -> &'static str {
        match self {
            Dataset::Mnist => "mnist",
            Dataset::Cifar10 => "cifar10",
        }
    }
    /// The name in titles.
    fn title(self) -> &'static str {
        match self {
            Dataset::Mnist => "MNIST",
            Dataset::Cifar10 => "CIFAR-10",
        }
    }
    /// The training or test images.
    fn load(self, root: &std::path::Path, subset: Subset) -> Result<ImageSet> {
        match self {
            Dataset::Mnist => load_mnist(root, MnistVariant::Digits, subset),
            Dataset::Cifar10 => load_cifar10(root, subset),
        }
    }
}

/// `--attack-loss` values: the loss FGSM ascends on the hybrid.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
enum AttackLoss {
    /// The head's per-image data term `−ℓ*_n`, the training objective's.
    Hinge,
    /// The cross-entropy of the paper's class probabilities `softmax(f̄)` over the mean
    /// predictions (§4.3.1), as a softmax network is attacked.
    MeanSoftmax,
}

impl AttackLoss {
    /// The name on the command line and in the JSON.
    fn name(self) -> &'static str {
        match self {
            AttackLoss::Hinge => "hinge",
            AttackLoss::MeanSoftmax => "mean-softmax",
        }
    }
}

/// Images per attacked batch.
const CHUNK: usize = 250;

/// The hybrid's latent marginals on FGSM images of `set`, the attack ascending `loss` (for
/// `Hinge`, `−Σ_n ℓ*_n`). `net` is frozen (no parameter gradients, normaliser on its running
/// statistics) on the autodiff device.
fn attack_hybrid<T: Trunk<Input = Tensor<4>>>(
    net: &HybridNet<T>,
    set: &ImageSet,
    eps: f64,
    attack: AttackLoss,
    devices: &common::Devices,
) -> Result<ClassPredictive> {
    let valid = net.valid();
    let (mut means, mut vars) = (Vec::new(), Vec::new());
    for start in (0..set.n).step_by(CHUNK) {
        let idx: Vec<usize> = (start..(start + CHUNK).min(set.n)).collect();
        let b = image_batch(set, &idx, &devices.train)?;
        let images = b.images.require_grad();
        let loss = match attack {
            AttackLoss::MeanSoftmax => {
                let (mean, _) = net.marginals(images.clone())?;
                CrossEntropyLossConfig::new().init(&mean.device()).forward(mean, b.labels)
            }
            AttackLoss::Hinge => net.data_terms(images.clone(), b.targets)?.sum().neg(),
        };
        let (m, v) = valid.marginals(fgsm(images, loss, eps)?)?;
        means.extend(to_vec(m));
        vars.extend(to_vec(v));
    }
    ClassPredictive::new(means, vars, set.num_classes)
}

/// The softmax network's logits `[n, C]` on FGSM images of `set` (the attack ascends its
/// cross-entropy), and the hybrid's marginals on the same images (a transferred attack); both
/// networks frozen, `net` on the autodiff device.
fn attack_softmax<T: Trunk<Input = Tensor<4>>>(
    net: &SoftmaxNet<T>,
    hybrid: &HybridNet<T>,
    set: &ImageSet,
    eps: f64,
    devices: &common::Devices,
) -> Result<(Vec<f64>, ClassPredictive)> {
    let valid = net.valid();
    let (mut logits, mut means, mut vars) = (Vec::new(), Vec::new(), Vec::new());
    for start in (0..set.n).step_by(CHUNK) {
        let idx: Vec<usize> = (start..(start + CHUNK).min(set.n)).collect();
        let b = image_batch(set, &idx, &devices.train)?;
        let images = b.images.require_grad();
        let loss = net.loss(images.clone(), b.labels);
        let adv = fgsm(images, loss, eps)?;
        logits.extend(to_vec(valid.logits(adv.clone())));
        let (m, v) = hybrid.marginals(adv)?;
        means.extend(to_vec(m));
        vars.extend(to_vec(v));
    }
    Ok((logits, ClassPredictive::new(means, vars, set.num_classes)?))
}

/// The calibrations behind two of the hybrid's scores: the temperature of the paper's class
/// probabilities `softmax(f̄ / T)` and the factor on the latent variances of the arg-max
/// probabilities (both 1 uncalibrated).
struct ScoreCalibration {
    temperature: TemperatureScaling,
    variance: VarianceScaling,
}

/// The hybrid's detection scores (higher = more uncertain), in the order of [`HYBRID_SCORES`].
fn hybrid_scores(
    pred: &ClassPredictive,
    cal: &ScoreCalibration,
    vr_samples: usize,
    seed: u64,
) -> Result<[Vec<f64>; HYBRID_SCORES.len()]> {
    let k = pred.classes;
    let probs = pred.gh_probabilities(32);
    let max_p = probs.chunks(k).map(|p| 1.0 - p.iter().cloned().fold(0.0, f64::max)).collect();
    let latent_var = pred.var.chunks(k).map(|v| v.iter().sum::<f64>() / v.len() as f64).collect();
    Ok([
        pred.variation_ratio(vr_samples, seed),
        max_p,
        entropy(&probs, k),
        latent_var,
        entropy(&cal.temperature.probabilities(&pred.mean, k)?, k),
        entropy(&cal.variance.probabilities(pred), k),
    ])
}

/// Names of the hybrid's scores.
const HYBRID_SCORES: [&str; 6] =
    ["VR", "1 − max p", "entropy", "latent var", "softmax(f̄/T) entropy", "variance-scaled entropy"];

/// The softmax network's scores `[1 − max p, entropy]` and its probabilities, from logits.
fn softmax_scores(logits: &[f64], k: usize) -> Result<([Vec<f64>; 2], Vec<f64>)> {
    let probs = TemperatureScaling { temperature: 1.0 }.probabilities(logits, k)?;
    let max_p = probs.chunks(k).map(|p| 1.0 - p.iter().cloned().fold(0.0, f64::max)).collect();
    Ok(([max_p, entropy(&probs, k)], probs))
}

/// ROC-AUC of `clean` against `adv` scores (adversarial = positive).
fn auc(clean: &[f64], adv: &[f64]) -> f64 {
    let scores: Vec<f64> = clean.iter().chain(adv).copied().collect();
    let is_adv: Vec<bool> = (0..scores.len()).map(|i| i >= clean.len()).collect();
    roc_auc(&scores, &is_adv).unwrap_or(0.5)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn main() {
    let mut args: Args = common::parse_with_defaults(hybrid::HYBRID_DEFAULTS);
    common::exit_on_error(match args.dataset {
        Dataset::Mnist => run(&args, |d| MnistTrunkConfig::new().init(d)),
        Dataset::Cifar10 => {
            args.hybrid.lengthscale_factor.get_or_insert(HybridConfig::CIFAR10_LENGTHSCALE_FACTOR);
            run(&args, |d| Cifar10TrunkConfig::new().init(d))
        }
    });
}

/// One ε: accuracies and AUCs of both networks.
struct Row {
    eps: f64,
    accuracy: f64,
    vr: f64,
    latent_var: f64,
    auc: [f64; HYBRID_SCORES.len()],
    softmax: Option<SoftmaxRow>,
}

/// One ε of the softmax network's attack.
#[derive(Clone, Copy)]
struct SoftmaxRow {
    /// Its accuracy on its own FGSM images.
    accuracy: f64,
    /// ROC-AUC of its `1 − max p` and entropy.
    auc: [f64; 2],
    /// The hybrid's accuracy on the same images.
    transfer_accuracy: f64,
    /// ROC-AUC of the hybrid's scores on the same images.
    transfer_auc: [f64; HYBRID_SCORES.len()],
}

/// The attack on `args.dataset`'s networks, whose untrained trunk `make_trunk` builds.
fn run<T: Trunk<Input = Tensor<4>> + Blueprint>(args: &Args, make_trunk: impl Fn(&Device) -> T) -> Result<()> {
    let devices = args.run.devices()?;
    let figures = args.run.plot.figures("adversarial")?;
    let root = data_root(args.run.data.as_deref())?;
    let data = args.dataset;
    let test = data.load(&root, Subset::Test)?;
    let test_size = if args.hybrid.test_size > 0 { args.hybrid.test_size } else { 2000 };
    let test = test.subset(0..test_size.min(test.n))?;
    let hybrid_file = args.model.as_ref().or(args.hybrid.file.load.as_ref());
    let needs_train = hybrid_file.is_none() || args.hybrid.calibration > 0;
    let (train, held) = if needs_train {
        let (train, held) = hybrid::split_calibration(data.load(&root, Subset::Train)?, &args.hybrid)?;
        (Some(train), held)
    } else {
        (None, None)
    };
    let net = match (hybrid_file, &train) {
        (Some(path), _) => HybridNet::<T>::load(path, &devices.train)?,
        (None, Some(train)) => {
            let trunk = make_trunk(&devices.train);
            let (net, history) = hybrid::train_hybrid(trunk, train, &test, &args.hybrid, &args.run, &devices)?;
            figures.curves("curves", &format!("{} hybrid: training", data.title()), &[("hybrid", &history)])?;
            net
        }
        (None, None) => unreachable!("the training set is loaded when no hybrid file is given"),
    };
    let soft = match (&args.softmax_model, &train) {
        (Some(path), _) => Some(SoftmaxNet::<T>::load(path, &devices.train)?),
        (None, Some(train)) if hybrid_file.is_none() && !args.hybrid.no_softmax => {
            let trunk = make_trunk(&devices.train);
            Some(hybrid::train_softmax(trunk, (train, &test), &args.run, &args.hybrid.checkpoint, &devices, false)?.0)
        }
        _ => None,
    };
    let net = net.freeze();
    let soft = soft.map(|s| s.freeze());
    let (valid, soft_valid) = (net.valid(), soft.as_ref().map(|s| s.valid()));
    let labels = test.labels_usize();
    let k = test.num_classes;
    let acc =
        |classes: &[usize]| classes.iter().zip(&labels).filter(|(a, b)| a == b).count() as f64 / labels.len() as f64;

    let clean = valid.predict_images(&test, &devices.base)?;
    // Fitted on the held-out images, scored on the test images used here.
    let calibrations = match &held {
        Some(held) => Some(hybrid::calibrate(&valid, soft_valid.as_ref(), held, (&clean, &test), &devices.base)?),
        None => None,
    };
    let cal = match &calibrations {
        Some(c) => ScoreCalibration { temperature: c.temperature.fitted, variance: c.variance.fitted },
        None => ScoreCalibration {
            temperature: TemperatureScaling { temperature: 1.0 },
            variance: VarianceScaling { scale: 1.0 },
        },
    };
    let clean_scores = hybrid_scores(&clean, &cal, args.hybrid.vr_samples, args.run.seed)?;
    let nll = hybrid::score(&clean.gh_probabilities(32), &test)?.nll;
    let nll_calibrated = calibrations.as_ref().map(|c| c.temperature.scores.nll);
    let softmax_calibration = calibrations.as_ref().and_then(|c| c.softmax.as_ref());
    let soft_clean = match &soft_valid {
        Some(s) => {
            let logits = s.logits_of_images(&test, &devices.base)?;
            let (scores, probs) = softmax_scores(&logits, k)?;
            let nll_cal = softmax_calibration.map(|c| c.scores.nll);
            Some((scores, accuracy(&probs, k, &labels)?, hybrid::score(&probs, &test)?.nll, nll_cal))
        }
        None => None,
    };

    let mut rows = Vec::new();
    let (mut roc_vr, mut roc_maxp) = (Vec::new(), Vec::new());
    for &eps in &args.eps {
        let adv = attack_hybrid(&net, &test, eps, args.attack_loss, &devices)?;
        let adv_scores = hybrid_scores(&adv, &cal, args.hybrid.vr_samples, args.run.seed + 1)?;
        let aucs: [f64; HYBRID_SCORES.len()] = std::array::from_fn(|i| auc(&clean_scores[i], &adv_scores[i]));
        let softmax = match (&soft, &soft_clean) {
            (Some(s), Some((clean_s, ..))) => {
                let (logits, transferred) = attack_softmax(s, &valid, &test, eps, &devices)?;
                let (adv_s, probs) = softmax_scores(&logits, k)?;
                let t_scores = hybrid_scores(&transferred, &cal, args.hybrid.vr_samples, args.run.seed + 2)?;
                Some(SoftmaxRow {
                    accuracy: accuracy(&probs, k, &labels)?,
                    auc: [auc(&clean_s[0], &adv_s[0]), auc(&clean_s[1], &adv_s[1])],
                    transfer_accuracy: acc(&transferred.classes()),
                    transfer_auc: std::array::from_fn(|i| auc(&clean_scores[i], &t_scores[i])),
                })
            }
            _ => None,
        };
        if figures.enabled() {
            let curve = |i: usize| -> Result<Vec<(f64, f64)>> {
                let scores: Vec<f64> = clean_scores[i].iter().chain(&adv_scores[i]).copied().collect();
                let is_adv: Vec<bool> = (0..scores.len()).map(|j| j >= test.n).collect();
                roc_curve(&scores, &is_adv)
            };
            roc_vr.push((format!("ε = {eps}"), curve(0)?));
            roc_maxp.push((format!("ε = {eps}"), curve(1)?));
        }
        let row = Row {
            eps,
            accuracy: acc(&adv.classes()),
            vr: mean(&adv_scores[0]),
            latent_var: mean(&adv_scores[3]),
            auc: aucs,
            softmax,
        };
        eprintln!(
            "ε = {eps}: hybrid accuracy {:.4}, AUC VR {:.4} / 1 − max p {:.4} / entropy {:.4} / latent var {:.4} / softmax(f̄/T) entropy {:.4} / variance-scaled entropy {:.4}{}",
            row.accuracy,
            aucs[0],
            aucs[1],
            aucs[2],
            aucs[3],
            aucs[4],
            aucs[5],
            row.softmax.map_or(String::new(), |s| format!(
                "; softmax accuracy {:.4}, AUC 1 − max p {:.4} / entropy {:.4}; the hybrid on its images: accuracy {:.4}, AUC entropy {:.4}",
                s.accuracy, s.auc[0], s.auc[1], s.transfer_accuracy, s.transfer_auc[2]
            ))
        );
        rows.push(row);
    }
    let what = format!("FGSM images vs {} clean {} test images", test.n, data.title());
    let title = format!("{what}: variation ratio ({} samples)", args.hybrid.vr_samples);
    figures.roc("roc_vr", &title, &roc_vr)?;
    figures.roc("roc_maxp", &format!("{what}: 1 − max class probability"), &roc_maxp)?;

    println!(
        "FGSM ({} loss) on the {} hybrid and its softmax twin ({} test images; clean accuracy {:.4} / {}; VR from {} samples)",
        args.attack_loss.name(),
        data.title(),
        test.n,
        acc(&clean.classes()),
        soft_clean.as_ref().map_or("–".to_string(), |s| format!("{:.4}", s.1)),
        args.hybrid.vr_samples
    );
    println!(
        "ROC-AUC of each score, adversarial vs clean (hybrid: {}; softmax: 1 − max p, entropy)",
        HYBRID_SCORES.join(", ")
    );
    println!(
        "| ε | hybrid accuracy | VR | 1 − max p | entropy | latent var | softmax(f̄/T) entropy | variance-scaled entropy | softmax accuracy | 1 − max p | entropy |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let soft = r.softmax.map_or("– | – | –".to_string(), |s| {
            format!("{:.4} | {:.4} | {:.4}", s.accuracy, s.auc[0], s.auc[1])
        });
        println!(
            "| {} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {soft} |",
            r.eps, r.accuracy, r.auc[0], r.auc[1], r.auc[2], r.auc[3], r.auc[4], r.auc[5]
        );
    }
    if rows.iter().any(|r| r.softmax.is_some()) {
        println!("\nThe softmax network's FGSM images given to the hybrid (a transferred attack): ROC-AUC of the hybrid's scores");
        println!("| ε | hybrid accuracy | VR | 1 − max p | entropy | latent var | softmax(f̄/T) entropy | variance-scaled entropy |");
        println!("|---|---|---|---|---|---|---|---|");
        for r in &rows {
            if let Some(s) = r.softmax {
                let a = s.transfer_auc;
                println!(
                    "| {} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} |",
                    r.eps, s.transfer_accuracy, a[0], a[1], a[2], a[3], a[4], a[5]
                );
            }
        }
    }
    println!(
        "clean NLL: hybrid {nll:.4}{}; softmax {}",
        nll_calibrated.map_or(String::new(), |v| format!(" ({v:.4} temperature-scaled)")),
        soft_clean.as_ref().map_or("–".to_string(), |s| format!(
            "{:.4}{}",
            s.2,
            s.3.map_or(String::new(), |v| format!(" ({v:.4} temperature-scaled)"))
        ))
    );
    if args.run.json {
        let per = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).collect::<Vec<_>>();
        let soft_per = |f: &dyn Fn(&SoftmaxRow) -> f64| -> Option<Vec<f64>> {
            rows.iter().map(|r| r.softmax.as_ref().map(f)).collect()
        };
        println!(
            "{}",
            serde_json::json!({
                "example": "adversarial", "dataset": data.name(), "eps": args.eps, "attack_loss": args.attack_loss.name(), "test_size": test.n,
                "accuracy": per(&|r| r.accuracy), "clean_accuracy": acc(&clean.classes()),
                "vr_clean": mean(&clean_scores[0]), "vr_adv": per(&|r| r.vr),
                "latent_var_clean": mean(&clean_scores[3]), "latent_var_adv": per(&|r| r.latent_var),
                "auc": per(&|r| r.auc[0]), "auc_limit": per(&|r| r.auc[1]),
                "auc_entropy": per(&|r| r.auc[2]), "auc_latent_var": per(&|r| r.auc[3]),
                "auc_mean_entropy": per(&|r| r.auc[4]), "auc_scaled_entropy": per(&|r| r.auc[5]),
                "nll": nll, "nll_calibrated": nll_calibrated, "temperature": calibrations.as_ref().map(|c| c.temperature.fitted.temperature),
                "variance_scale": calibrations.as_ref().map(|c| c.variance.fitted.scale),
                "softmax_clean_accuracy": soft_clean.as_ref().map(|s| s.1),
                "softmax_accuracy": soft_per(&|s| s.accuracy),
                "softmax_auc_max_p": soft_per(&|s| s.auc[0]), "softmax_auc_entropy": soft_per(&|s| s.auc[1]),
                "transfer_accuracy": soft_per(&|s| s.transfer_accuracy),
                "transfer_auc": soft_per(&|s| s.transfer_auc[0]), "transfer_auc_limit": soft_per(&|s| s.transfer_auc[1]),
                "transfer_auc_entropy": soft_per(&|s| s.transfer_auc[2]),
                "transfer_auc_latent_var": soft_per(&|s| s.transfer_auc[3]),
                "transfer_auc_mean_entropy": soft_per(&|s| s.transfer_auc[4]),
                "transfer_auc_scaled_entropy": soft_per(&|s| s.transfer_auc[5]),
                "softmax_nll": soft_clean.as_ref().map(|s| s.2), "softmax_nll_calibrated": soft_clean.as_ref().and_then(|s| s.3),
                "softmax_temperature": softmax_calibration.map(|c| c.fitted.temperature),
            })
        );
    }
    Ok(())
}
