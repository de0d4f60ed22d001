//! Adversarial-image detection with the hybrid network's uncertainty (Wistuba & Rawat 2018, §4.3.2):
//! FGSM images `x_adv = clip(x + ε·sign(∇ₓ(−ℓ*)), 0, 1)` made with Burn's autodiff with respect to
//! the input, then the variation ratio (VR) of the Bayesian SVM head separating adversarial from
//! clean test images (ROC-AUC, adversarial = positive).
//!
//! ```text
//! cargo run --release --example mnist_hybrid -- --save hybrid.bgp      # train once
//! cargo run --release --example adversarial -- --load hybrid.bgp
//! cargo run --release --example adversarial -- --train-size 10000 --epochs 1   # or train here
//! ```
//! The attacked loss is the head's per-image data term `−ℓ*_n` (the KL does not depend on x).
//! `--plot DIR` writes the ROC curves of the detection scores, one curve per ε:
//! `adversarial_roc_vr.svg` (sampled VR) and `adversarial_roc_maxp.svg` (`1 − max_c p_c`), and,
//! when the hybrid is trained here, `adversarial_curves.svg`.
//! With `--json` the last stdout line is
//! `{"example":"adversarial","dataset":"mnist","eps":[…],"accuracy":[…],"clean_accuracy":…,"vr_clean":…,"vr_adv":[…],"auc":[…],"auc_limit":[…],"test_size":…}`
//! (`auc`: ROC-AUC of the sampled VR; `auc_limit`: of its S → ∞ limit `1 − max_c p_c`).
use std::path::PathBuf;

use burn::module::Module;
use burn_gp::data::{data_root, load_mnist, ImageSet, MnistVariant, Subset};
use burn_gp::metrics::{roc_auc, roc_curve};
use burn_gp::nets::{image_batch, HybridNet, MnistTrunk, MnistTrunkConfig};
use burn_gp::saved::SavedModel;
use burn_gp::{Error, Result};

mod common;
#[path = "common/hybrid.rs"]
mod hybrid;

/// Command-line options.
#[derive(clap::Parser, Debug)]
#[command(about = "FGSM attack on the MNIST hybrid; variation-ratio detection ROC-AUC")]
struct Args {
    /// A hybrid saved by `mnist_hybrid --save` (default: train one here with the hybrid options;
    /// `--load FILE` works too).
    #[arg(long)]
    model: Option<PathBuf>,
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

/// FGSM images for rows `idx` of `set`, on the evaluation device. `net` is frozen (no parameter
/// gradients, normaliser on its running statistics) on the autodiff device.
fn fgsm(
    net: &HybridNet<MnistTrunk>,
    set: &ImageSet,
    idx: &[usize],
    eps: f64,
    devices: &common::Devices,
) -> Result<burn::tensor::Tensor<4>> {
    let b = image_batch(set, idx, &devices.train)?;
    let images = b.images.require_grad();
    let loss = net.data_terms(images.clone(), b.targets)?.sum().neg();
    let grads = loss.backward();
    let g = images.grad(&grads).ok_or_else(|| Error::invalid("fgsm", "no gradient reached the input images"))?;
    let x = images.inner();
    Ok((x + g.sign().mul_scalar(eps)).clamp(0.0, 1.0))
}

/// The variation ratio's large-sample limit `1 − max_c p_c`, with Gauss–Hermite class probabilities
/// (continuous, so it ranks the many images whose sampled VR is exactly 0).
fn vr_limit(pred: &burn_gp::models::ClassPredictive) -> Vec<f64> {
    pred.gh_probabilities(32).chunks(pred.classes).map(|p| 1.0 - p.iter().cloned().fold(0.0, f64::max)).collect()
}

fn main() {
    let args: Args = common::parse_with_defaults(hybrid::HYBRID_DEFAULTS);
    common::exit_on_error(run(&args));
}

fn run(args: &Args) -> Result<()> {
    let devices = args.run.devices()?;
    let figures = args.run.plot.figures("adversarial")?;
    let root = data_root(args.run.data.as_deref())?;
    let test = load_mnist(&root, MnistVariant::Digits, Subset::Test)?;
    let test_size = if args.hybrid.test_size > 0 { args.hybrid.test_size } else { 2000 };
    let test = test.subset(0..test_size.min(test.n))?;
    let net = match args.model.as_ref().or(args.hybrid.file.load.as_ref()) {
        Some(path) => HybridNet::<MnistTrunk>::load(path, &devices.train)?,
        None => {
            let train = load_mnist(&root, MnistVariant::Digits, Subset::Train)?;
            let train =
                if args.hybrid.train_size > 0 { train.subset(0..args.hybrid.train_size.min(train.n))? } else { train };
            let trunk = MnistTrunkConfig::new().init(&devices.train);
            let (net, history) = hybrid::train_hybrid(trunk, &train, &test, &args.hybrid, &args.run, &devices)?;
            figures.curves("curves", "MNIST hybrid: training", &[("hybrid", &history)])?;
            net
        }
    };
    let net = net.freeze();
    let valid = net.valid();
    let clean = hybrid::hybrid_predictive(&valid, &test, &devices.base)?;
    let vr_clean = clean.variation_ratio(args.hybrid.vr_samples, args.run.seed);
    let limit_clean = vr_limit(&clean);
    let labels = test.labels_usize();
    let acc =
        |classes: &[usize]| classes.iter().zip(&labels).filter(|(a, b)| a == b).count() as f64 / labels.len() as f64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mut rows = vec![("clean".to_string(), acc(&clean.classes()), mean(&vr_clean), f64::NAN, f64::NAN)];
    let (mut roc_vr, mut roc_maxp) = (Vec::new(), Vec::new());
    let chunk = 250;
    for &eps in &args.eps {
        let (mut means, mut vars) = (Vec::new(), Vec::new());
        for start in (0..test.n).step_by(chunk) {
            let idx: Vec<usize> = (start..(start + chunk).min(test.n)).collect();
            let x_adv = fgsm(&net, &test, &idx, eps, &devices)?;
            let (m, v) = valid.marginals(x_adv)?;
            means.extend(burn_gp::tensors::to_vec(m));
            vars.extend(burn_gp::tensors::to_vec(v));
        }
        let adv = burn_gp::models::ClassPredictive::new(means, vars, 10)?;
        let vr_adv = adv.variation_ratio(args.hybrid.vr_samples, args.run.seed + 1);
        let scores: Vec<f64> = vr_clean.iter().chain(&vr_adv).copied().collect();
        let is_adv: Vec<bool> = (0..2 * test.n).map(|i| i >= test.n).collect();
        let auc = roc_auc(&scores, &is_adv).unwrap_or(0.5);
        let limits: Vec<f64> = limit_clean.iter().chain(&vr_limit(&adv)).copied().collect();
        let auc_limit = roc_auc(&limits, &is_adv).unwrap_or(0.5);
        if figures.enabled() {
            roc_vr.push((format!("ε = {eps}"), roc_curve(&scores, &is_adv)?));
            roc_maxp.push((format!("ε = {eps}"), roc_curve(&limits, &is_adv)?));
        }
        eprintln!(
            "ε = {eps}: accuracy {:.4}, mean VR {:.4}, AUC {auc:.4} (S → ∞: {auc_limit:.4})",
            acc(&adv.classes()),
            mean(&vr_adv)
        );
        rows.push((format!("{eps}"), acc(&adv.classes()), mean(&vr_adv), auc, auc_limit));
    }
    let what = format!("FGSM images vs {} clean MNIST test images", test.n);
    let title = format!("{what}: variation ratio ({} samples)", args.hybrid.vr_samples);
    figures.roc("roc_vr", &title, &roc_vr)?;
    figures.roc("roc_maxp", &format!("{what}: 1 − max class probability"), &roc_maxp)?;
    println!("FGSM on the MNIST hybrid ({} test images, VR from {} samples)", test.n, args.hybrid.vr_samples);
    println!("| ε | accuracy | mean VR | VR ROC-AUC (adv vs clean) | ROC-AUC of 1 − max p (VR as S → ∞) |");
    println!("|---|---|---|---|---|");
    let cell = |v: f64| if v.is_nan() { "–".to_string() } else { format!("{v:.4}") };
    for (eps, a, vr, auc, limit) in &rows {
        println!("| {eps} | {a:.4} | {vr:.4} | {} | {} |", cell(*auc), cell(*limit));
    }
    if args.run.json {
        let adv = &rows[1..];
        println!(
            "{}",
            serde_json::json!({
                "example": "adversarial", "dataset": "mnist", "eps": args.eps,
                "accuracy": adv.iter().map(|r| r.1).collect::<Vec<_>>(), "clean_accuracy": rows[0].1,
                "vr_clean": rows[0].2, "vr_adv": adv.iter().map(|r| r.2).collect::<Vec<_>>(),
                "auc": adv.iter().map(|r| r.3).collect::<Vec<_>>(),
                "auc_limit": adv.iter().map(|r| r.4).collect::<Vec<_>>(), "test_size": test.n,
            })
        );
    }
    Ok(())
}
