//! SVGP classification on real data: binary (probit) or multi-class (robust-max / softmax).
//!
//! ```text
//! cargo run --release --example svgp_classify -- --dataset banana
//! cargo run --release --example svgp_classify -- --dataset mnist --train-size 10000 --m 100 --epochs 3
//! ```
//! `--dataset` is `mnist`, `fashion-mnist` (the standard train/test files) or a PMLB set name
//! (`banana`, `magic`, `twonorm`, …; a seeded 70/30 split). Two classes use a Bernoulli-probit
//! likelihood, more use `--likelihood robustmax` (default) or `softmax`.
//! `--plot DIR` writes `svgp_classify_curves.svg` (objective and test accuracy, NLL, ECE per epoch)
//! and `svgp_classify_reliability.svg` (reliability diagram of the test predictions, 10 bins).
//! With `--json` the last stdout line is
//! `{"example":"svgp_classify","dataset":…,"classes":…,"m":…,"epochs":…,"epoch_s":…,"accuracy":…,"nll":…,"ece":…,"backend":…}`.

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::{
    data_root, load_mnist, load_pmlb_classification, random_split, MnistVariant, Standardiser, Subset,
};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{one_hot, BernoulliProbit, Likelihood, RobustMax, Softmax};
use burn_gp::metrics;
use burn_gp::models::{Svgp, SvgpConfig};
use burn_gp::saved::{Blueprint, SavedModel};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{fit, EpochRecord, History, TrainConfig};
use burn_gp::{Error, Result};
use clap::{Parser, ValueEnum};
use common::plot::Figures;

use burn_gp_experiments::common;

/// Multi-class likelihoods.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum MultiClass {
    /// Robust-max with ε = 1e-3 (quadrature).
    Robustmax,
    /// Softmax (Monte Carlo).
    Softmax,
}

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "SVGP classification (Hensman et al. 2015) on MNIST / Fashion-MNIST / PMLB")]
struct Args {
    /// `mnist`, `fashion-mnist`, or a PMLB dataset name.
    #[arg(long, default_value = "banana")]
    dataset: String,
    /// Use only the first N training points (0 = all).
    #[arg(long, default_value_t = 0)]
    train_size: usize,
    /// Number of inducing points.
    #[arg(long, default_value_t = 64)]
    m: usize,
    /// Likelihood for more than two classes.
    #[arg(long, value_enum, default_value_t = MultiClass::Robustmax)]
    likelihood: MultiClass,
    /// Model file: --save FILE, --load FILE (evaluate only; same data options).
    #[command(flatten)]
    file: common::ModelFileOptions,
    /// Checkpoints: --checkpoint-dir DIR, --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// Shared options: batch, epochs, lr, seed, data, device, csv, json, no-progress, plot.
    #[command(flatten)]
    run: common::RunOptions,
}

/// Standardised features and class labels of a train/test split.
struct Split {
    x_train: Vec<f64>,
    y_train: Vec<usize>,
    x_test: Vec<f64>,
    y_test: Vec<usize>,
    d: usize,
    classes: usize,
}

fn load(args: &Args) -> Result<Split> {
    let root = data_root(args.run.data.as_deref())?;
    let (train, test, classes) = match args.dataset.as_str() {
        "mnist" | "fashion-mnist" => {
            let variant = if args.dataset == "mnist" { MnistVariant::Digits } else { MnistVariant::Fashion };
            let train = load_mnist(&root, variant, Subset::Train)?.to_table()?;
            let test = load_mnist(&root, variant, Subset::Test)?.to_table()?;
            (train, test, 10)
        }
        name => {
            let (data, labels) = load_pmlb_classification(&root, name)?;
            let split = random_split(data.table.n, 0.3, args.run.seed)?;
            let train = data.select_rows(&split.train)?.table;
            let test = data.select_rows(&split.test)?.table;
            (train, test, labels.num_classes())
        }
    };
    let keep = if args.train_size == 0 { train.n } else { args.train_size.min(train.n) };
    let train = train.select_rows(&(0..keep).collect::<Vec<_>>())?;
    let d = train.d;
    let scaler = Standardiser::fit(&train.x, train.n, d)?;
    Ok(Split {
        x_train: scaler.transform(&train.x)?,
        y_train: train.y,
        x_test: scaler.transform(&test.x)?,
        y_test: test.y,
        d,
        classes,
    })
}

/// Class-probability rows `[n, K]` (K = 2 for the binary model) for the test set.
fn class_probabilities<L: Likelihood>(
    model: &Svgp<Rbf, InducingPoints, L>,
    x: &Tensor<2>,
    k: usize,
) -> Result<Vec<f64>> {
    let (p, _) = model.predict_f_chunked(x.clone(), 1024).map(|(m, v)| model.likelihood.predict_mean_and_var(m, v))?;
    let p = to_vec(p);
    // the binary model has one latent GP: p(y = 1) per row
    if k == 2 {
        metrics::binary_probs(&p)
    } else {
        Ok(p)
    }
}

/// Trains one SVGP classifier and evaluates it after every epoch (with `--load`: evaluates the
/// saved one once); `--save` keeps the trained model.
fn train<L: Likelihood + Blueprint>(
    args: &Args,
    data: &Split,
    likelihood: L,
    targets: Tensor<2>,
    dev: &Device,
    base: &Device,
    figures: &Figures,
) -> Result<History> {
    let n = data.y_train.len();
    let d = data.d;
    let latent = targets.dims()[1];
    let x = matrix(data.x_train.clone(), n, d, dev)?;
    let x_eval = matrix(data.x_test.clone(), data.y_test.len(), d, base)?;
    let z = inducing_subset(&data.x_train, n, d, args.m, args.run.seed)?;
    let model = SvgpConfig::new(n).with_num_latent(latent).init(
        Rbf::ard(d, (d as f64).sqrt(), 1.0, dev)?,
        InducingPoints::new(&z, args.m, d, dev)?,
        likelihood,
        dev,
    )?;
    let config = TrainConfig { checkpoint: args.checkpoint.config(""), ..args.run.train_config() };
    let evaluate = |m: &Svgp<Rbf, InducingPoints, L>, _| -> Result<Vec<(String, f64)>> {
        let probs = class_probabilities(m, &x_eval, data.classes)?;
        Ok(vec![
            ("accuracy".into(), metrics::accuracy(&probs, data.classes, &data.y_test)?),
            ("nll".into(), metrics::nll(&probs, data.classes, &data.y_test)?),
            ("ece".into(), metrics::ece(&probs, data.classes, &data.y_test, 10)?),
        ])
    };
    let reliability = |m: &Svgp<Rbf, InducingPoints, L>| -> Result<()> {
        if !figures.enabled() {
            return Ok(());
        }
        let probs = class_probabilities(m, &x_eval, data.classes)?;
        let title = format!("SVGP on {}, test set", args.dataset);
        figures.reliability("reliability", &title, &probs, data.classes, &data.y_test, 10)
    };
    if let Some(path) = &args.file.load {
        let model = Svgp::<Rbf, InducingPoints, L>::load(path, base)?;
        let metrics = evaluate(&model, 0)?;
        reliability(&model)?;
        let record = EpochRecord { epoch: 0, objective: f64::NAN, epoch_s: f64::NAN, elapsed_s: 0.0, metrics };
        return Ok(History { records: vec![record] });
    }
    let (model, history) = fit(model, n, &config, |m, idx| m.minibatch_loss(&x, &targets, idx), evaluate)?;
    let model = model.valid();
    if let Some(path) = &args.file.save {
        model.save(path)?;
    }
    reliability(&model)?;
    Ok(history)
}

fn run(args: Args) -> Result<()> {
    let common::Devices { backend, base, train: dev } = args.run.devices()?;
    let figures = args.run.plot.figures("svgp_classify")?;
    let data = load(&args)?;
    if data.classes < 2 {
        return Err(Error::invalid("dataset", "needs at least two classes"));
    }
    let n = data.y_train.len();
    let history = if data.classes == 2 {
        let y: Vec<f64> = data.y_train.iter().map(|&c| c as f64).collect();
        train(&args, &data, BernoulliProbit::default(), matrix(y, n, 1, &dev)?, &dev, &base, &figures)?
    } else {
        let y = one_hot(&data.y_train, data.classes, &dev)?;
        match args.likelihood {
            MultiClass::Robustmax => train(&args, &data, RobustMax::default(), y, &dev, &base, &figures)?,
            MultiClass::Softmax => {
                if args.checkpoint.checkpoint_dir.is_some() {
                    eprintln!(
                        "svgp_classify: the softmax likelihood draws its Monte Carlo samples from the backend's \
                         generator, which a checkpoint does not hold: a resumed run goes on, but not bit for bit"
                    );
                }
                train(&args, &data, Softmax::default(), y, &dev, &base, &figures)?
            }
        }
    };
    args.run.write_curve(&history)?;
    figures.curves("curves", &format!("SVGP training on {}", args.dataset), &[("svgp", &history)])?;
    let metric = |k: &str| history.last_metric(k).unwrap_or(f64::NAN);
    let title = format!(
        "SVGP classification on {} (n_train={n}, n_test={}, d={}, K={}, M={}, backend={backend})",
        args.dataset,
        data.y_test.len(),
        data.d,
        data.classes,
        args.m
    );
    common::print_table(
        &title,
        &[
            ("s / epoch", format!("{:.4}", history.mean_epoch_s())),
            ("test accuracy", format!("{:.4}", metric("accuracy"))),
            ("test NLL", format!("{:.4}", metric("nll"))),
            ("test ECE (10 bins)", format!("{:.4}", metric("ece"))),
        ],
    );
    if args.run.json {
        let line = serde_json::json!({
            "example": "svgp_classify",
            "dataset": args.dataset,
            "classes": data.classes,
            "m": args.m,
            "epochs": args.run.epochs,
            "epoch_s": history.mean_epoch_s(),
            "accuracy": metric("accuracy"),
            "nll": metric("nll"),
            "ece": metric("ece"),
            "backend": backend,
        });
        println!("{line}");
    }
    Ok(())
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}
