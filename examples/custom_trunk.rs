//! A GP head on your own Burn network: a two-layer MLP written here (not part of the library)
//! with (a) a Bayesian SVM classification head on a multi-class table, or (b) an SVGP regression
//! head on a UCI regression set, trained end to end by the library's recipe
//! ([`HybridConfig`], [`fit_hybrid`]).
//!
//! ```text
//! cargo run --release --example custom_trunk                                  # digits, Bayesian SVM head
//! cargo run --release --example custom_trunk -- --task regress                # kin8nm split 0, SVGP head
//! cargo run --release --example custom_trunk -- --task regress --dataset energy --epochs 200 --json
//! ```
//!
//! Classification sets: the scikit-learn sets `digits` (default), `iris`, `wine`,
//! `breast_cancer`, or any PMLB classification set by name; a stratified 80/20 split (`--seed`).
//! Regression sets: the UCI folders (`kin8nm` default, split `--split`). Features are z-scored
//! with the training statistics; regression targets too, and the metrics are reported in the
//! original units.
//!
//! `--json` prints one line:
//! `{"example":"custom_trunk","task":"classify"|"regress","dataset",…,"accuracy","nll"}` for
//! classification (`nll`: mean negative log probability of the test labels) or
//! `{…,"rmse","test_ll"}` for regression (`test_ll`: mean test log predictive density), plus
//! `n_train`, `n_test`, `epochs`, `train_s`. `--save FILE` writes the trained network with its
//! head; `--load FILE` evaluates a saved one instead of training (the MLP implements
//! `burn_gp::saved::Blueprint` for this: 11 lines). `--plot DIR` writes `custom_trunk_curves.svg`
//! (the training objective per epoch).
use std::time::Instant;

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::Tensor;
use burn_gp::data::{
    data_root, load_breast_cancer, load_digits, load_iris, load_pmlb_classification, load_uci, load_wine,
    stratified_split, ClassTable, Standardiser, Table, TargetStandardiser,
};
use burn_gp::kernels::Rbf;
use burn_gp::models::GaussianPredictive;
use burn_gp::nets::{
    fit_hybrid, GpHeadConfig, GpRegressionNet, HeadLikelihood, HybridConfig, HybridNet, TrainingSet, Trunk,
};
use burn_gp::saved::{Blueprint, SavedModel, Spec};
use burn_gp::tensors::matrix;
use burn_gp::train::TrainConfig;
use burn_gp::Result;
use serde_json::json;

use burn_gp_experiments::common;

use common::{print_table, Devices, RunOptions};

// ---- The user's network: everything a user writes to put a GP head on it. ----

/// A two-layer perceptron: `d → hidden → features`, ReLU in between.
#[derive(Module, Debug)]
struct Mlp {
    hidden: Linear,
    out: Linear,
}

impl Mlp {
    fn new(inputs: usize, hidden: usize, features: usize, device: &burn::tensor::Device) -> Self {
        Self {
            hidden: LinearConfig::new(inputs, hidden).init(device),
            out: LinearConfig::new(hidden, features).init(device),
        }
    }
}

impl Trunk for Mlp {
    type Input = Tensor<2>;
    fn out_dim(&self) -> usize {
        self.out.weight.dims()[1]
    }
    fn features(&self, x: Tensor<2>) -> Tensor<2> {
        self.out.forward(relu(self.hidden.forward(x)))
    }
}

/// Only for `--save` / `--load`: the MLP's widths go into the model file.
impl Blueprint for Mlp {
    fn describe(&self) -> Spec {
        let [inputs, hidden] = self.hidden.weight.dims();
        Spec::new("Mlp").sizes(&[inputs, hidden, self.out_dim()])
    }
    fn rebuild(spec: &Spec, device: &burn::tensor::Device) -> Result<Self> {
        spec.expect("Mlp", Some(3), Some(0), Some(0))?;
        Ok(Self::new(spec.sizes[0], spec.sizes[1], spec.sizes[2], device))
    }
}

// ---- The example's driver. ----

/// Which head.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Bayesian SVM head on a multi-class table.
    Classify,
    /// SVGP regression head on a UCI set.
    Regress,
}

/// Command-line options.
#[derive(clap::Parser, Debug)]
#[command(about = "A GP head (Bayesian SVM or SVGP) on a user-written Burn MLP, trained end to end")]
struct Args {
    /// Classification or regression.
    #[arg(long, value_enum, default_value_t = Task::Classify)]
    task: Task,
    /// Data set (default: digits for classification, kin8nm for regression).
    #[arg(long)]
    dataset: Option<String>,
    /// UCI split (regression).
    #[arg(long, default_value_t = 0)]
    split: usize,
    /// Hidden units of the MLP.
    #[arg(long, default_value_t = 64)]
    hidden: usize,
    /// Width of the MLP's features (the GP head's input).
    #[arg(long, default_value_t = 16)]
    features: usize,
    /// Inducing points of the head.
    #[arg(long, default_value_t = 64)]
    m: usize,
    /// Model file: --save FILE (the trained network with its head), --load FILE (evaluate only;
    /// same task, data set and seed).
    #[command(flatten)]
    file: common::ModelFileOptions,
    /// Checkpoints: --checkpoint-dir DIR, --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// Shared options: batch, epochs, lr, seed, data, device, precision, csv, json, no-progress, plot.
    #[command(flatten)]
    run: RunOptions,
}

/// Defaults of this example: the recipe's batch, rate and schedule; more epochs for small tables.
const DEFAULTS: &[(&str, &str)] = &[("batch", "128"), ("epochs", "100"), ("lr", "0.001"), ("lr_final_fraction", "0")];

fn main() {
    let args: Args = common::parse_with_defaults(DEFAULTS);
    common::exit_on_error(run(&args));
}

fn run(args: &Args) -> Result<()> {
    let devices = args.run.devices()?;
    // checks --plot before training
    args.run.plot.figures("custom_trunk")?;
    match args.task {
        Task::Classify => classify(args, &devices),
        Task::Regress => regress(args, &devices),
    }
}

/// Loads a classification table by name.
fn load_classes(root: &std::path::Path, name: &str) -> Result<ClassTable> {
    match name {
        "digits" => load_digits(root),
        "iris" => load_iris(root),
        "wine" => load_wine(root),
        "breast_cancer" => load_breast_cancer(root),
        other => Ok(load_pmlb_classification(root, other)?.0),
    }
}

/// z-scores the features of `train` and `test` with the statistics of `train`.
fn zscore<Y>(train: &mut Table<Y>, test: &mut Table<Y>) -> Result<()> {
    let s = Standardiser::fit(&train.x, train.n, train.d)?;
    train.x = s.transform(&train.x)?;
    test.x = s.transform(&test.x)?;
    Ok(())
}

fn classify(args: &Args, devices: &Devices) -> Result<()> {
    let dataset = args.dataset.clone().unwrap_or_else(|| "digits".into());
    let set = load_classes(&data_root(args.run.data.as_deref())?, &dataset)?;
    let split = stratified_split(set.labels(), 0.2, args.run.seed)?;
    let (mut train, mut test) = (set.select_rows(&split.train)?, set.select_rows(&split.test)?);
    let d = train.table.d;
    zscore(&mut train.table, &mut test.table)?;

    // Lengthscales from the median feature distance (factor 1), as docs/results/custom_trunk.md
    // measured; the library's default for image heads is 0.5.
    let head =
        GpHeadConfig::new(set.num_classes()).with_num_inducing(args.m.min(train.table.n)).with_lengthscale_factor(1.0);
    let recipe = HybridConfig::new(head.with_seed(args.run.seed));
    let (net, train_s): (HybridNet<Mlp>, f64) = trained(args, devices, &recipe, &train, d)?;

    let x_test = matrix(test.table.x.clone(), test.table.n, d, &devices.base)?;
    let pred = net.predict(x_test)?;
    let (accuracy, nll) = (pred.accuracy(test.labels())?, pred.nll(test.labels())?);
    report(args, &dataset, (train.table.n, test.table.n), train_s, [("accuracy", accuracy), ("nll", nll)]);
    Ok(())
}

fn regress(args: &Args, devices: &Devices) -> Result<()> {
    let dataset = args.dataset.clone().unwrap_or_else(|| "kin8nm".into());
    let split = load_uci(&data_root(args.run.data.as_deref())?, &dataset, args.split)?;
    let (mut train, mut test) = (split.train, split.test);
    let d = train.d;
    zscore(&mut train, &mut test)?;
    let ys = TargetStandardiser::fit(&train.y)?;
    train.y = ys.transform(&train.y);

    let head = GpHeadConfig::new(1)
        .with_num_inducing(args.m.min(train.n))
        .with_seed(args.run.seed)
        .with_lengthscale_factor(1.0);
    let recipe = HybridConfig::new(head).with_natural_step(0.0);
    let (net, train_s): (GpRegressionNet<Mlp>, f64) = trained(args, devices, &recipe, &train, d)?;

    let x_test = matrix(test.x.clone(), test.n, d, &devices.base)?;
    let pred = predict_in_units(&net, x_test, &ys)?;
    let (rmse, test_ll) = (pred.rmse(&test.y)?, pred.mean_log_density(&test.y)?);
    report(args, &dataset, (train.n, test.n), train_s, [("rmse", rmse), ("test_ll", test_ll)]);
    Ok(())
}

/// The MLP with a GP head of likelihood `L`: loaded by `--load`, else trained on `train` by
/// `recipe`; saved by `--save`. Also returns the seconds it took.
fn trained<L, S>(
    args: &Args,
    devices: &Devices,
    recipe: &HybridConfig,
    train: &S,
    d: usize,
) -> Result<(HybridNet<Mlp, Rbf, L>, f64)>
where
    L: HeadLikelihood + Blueprint,
    S: TrainingSet<Input = Tensor<2>>,
{
    let start = Instant::now();
    let net = match &args.file.load {
        Some(path) => HybridNet::load(path, &devices.base)?,
        None => {
            let mlp = Mlp::new(d, args.hidden, args.features, &devices.train);
            let net = recipe.init_with(mlp, train, &devices.train)?;
            let config = TrainConfig { checkpoint: args.checkpoint.config(""), ..args.run.train_config() };
            let (net, history) = fit_hybrid(net, train, recipe, &config, |_, _| Ok(vec![]))?;
            args.run.write_curve(&history)?;
            let title = format!("GP head on a custom MLP ({:?}): training", args.task);
            args.run.plot.figures("custom_trunk")?.curves("curves", &title, &[("mlp + gp head", &history)])?;
            net.valid()
        }
    };
    if let Some(path) = &args.file.save {
        net.save(path)?;
    }
    Ok((net, start.elapsed().as_secs_f64()))
}

/// The regression head's predictive in the targets' original units.
fn predict_in_units(net: &GpRegressionNet<Mlp>, x: Tensor<2>, ys: &TargetStandardiser) -> Result<GaussianPredictive> {
    net.predict(x)?.unstandardised(ys.mean(), ys.std())
}

/// Prints the metrics table, or the JSON line with `--json`.
fn report(args: &Args, dataset: &str, (n_train, n_test): (usize, usize), train_s: f64, metrics: [(&str, f64); 2]) {
    let task = match args.task {
        Task::Classify => "classify",
        Task::Regress => "regress",
    };
    if args.run.json {
        let mut line = json!({
            "example": "custom_trunk", "task": task, "dataset": dataset,
            "n_train": n_train, "n_test": n_test, "epochs": args.run.epochs, "train_s": train_s,
        });
        for (name, value) in metrics {
            line[name] = json!(value);
        }
        println!("{line}");
        return;
    }
    let mut rows = vec![
        ("task", task.to_string()),
        ("dataset", dataset.to_string()),
        ("train / test rows", format!("{n_train} / {n_test}")),
        ("training seconds", format!("{train_s:.1}")),
    ];
    rows.extend(metrics.iter().map(|(name, value)| (*name, format!("{value:.4}"))));
    print_table(&format!("custom_trunk: MLP + GP head, {} epochs", args.run.epochs), &rows);
}
