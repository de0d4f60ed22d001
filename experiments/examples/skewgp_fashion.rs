//! The paper's Fashion-MNIST experiment (Benavoli, Azzimonti & Piga 2020, §7.2, Table 1 and
//! Fig. 11; `docs/papers/000-skew-gp.md`): SkewGP2 (`s = 2`) against GP-EP, both with an
//! isotropic RBF kernel or both with the arcsine ("NN") kernel (`--kernel arcsine`), on the 10
//! one-vs-rest binary problems; per-class accuracy and time, the one-vs-rest 10-class accuracy
//! (argmax of the 10 probabilities), and the calibration picture of Fig. 11: histograms of the
//! class-decision standard deviation of the misclassified test points.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example skewgp_fashion                     # the paper's 5 000 / 5 000 (slow)
//! cargo run --release -p burn-gp-experiments --example skewgp_fashion -- --train 1000 --test 1000 --csv hist.csv --plot figures
//! cargo run --release -p burn-gp-experiments --example skewgp_fashion -- --classes 8 --train 500 --test 500 --ep-inducing 200 --json
//! cargo run --release -p burn-gp-experiments --example skewgp_fashion -- --kernel arcsine --classes 8 --train 500 --test 500
//! ```
//!
//! Protocol: the official training and test images are pooled, `--train + --test` images are
//! drawn at random (seeded) and split into `--train` training and `--test` test images (the
//! paper: 10 000 drawn, 5 000 / 5 000). Pixels are scaled to `[0, 1]` (the paper does not say
//! how it scales them). For each class of `--classes`, labels are 1 for that class and 0 for the
//! rest. Both methods start from the same kernel: for `rbf`, σ² = 1 and one lengthscale for all
//! 784 pixels, the median pairwise distance of the training images; for `arcsine`, σ² = σ_b² = 1
//! and one weight variance σ_w² = 1 / (mean squared norm of the training images), so that a
//! typical image's `σ_w² ‖x‖²` starts at 1 (the paper gives no starting values). SkewGP2 trains
//! by Adam on the block-composite objective (`--epochs`, `--lr`, blocks of `--block-size`,
//! `--qmc-points` × `--qmc-shifts` lattice points per block, the 4 phase patterns screened for
//! `--phase-screen` epochs; pseudo-points started at 2 random training images, as in the paper), then predicts by
//! route B from `--samples` lin-ess draws (32 chains, `--burn-in` steps each, started at GHK draws
//! unless `--chain-start dispersed`). GP-EP trains by the batch SEP schedule (`--ep-iterations`
//! steps of one damped parallel EP pass and one sign-adaptive kernel step): by default without
//! inducing points (`--ep-inducing 0`: full EP, `FullEpClassifier`, `O(n³)` a step, jitter 1e-6),
//! or as the sparse EP classifier with `--ep-inducing M` training images drawn at random as
//! fixed inducing inputs (FITC-EP, cheaper; `M` = `--train` takes all of them, the full-EP
//! stand-in used before 2026-11-30).
//! Times are wall-clock seconds for hyperparameter training, posterior and test prediction.
//!
//! Decision standard deviation (the paper's "standard deviation of the predictions"): with
//! `q = Pr(f* > 0 | D)` the posterior probability that the hard decision is class 1, the standard
//! deviation of that decision over the posterior is `√(q(1 − q))` ∈ `[0, 0.5]`. SkewGP2 takes it
//! from `Prediction::decision_std`; GP-EP from its Gaussian latent, `q = Φ(μ*/σ*)`. A test point
//! is misclassified when `p(y = 1) > 0.5` disagrees with its label. `--csv FILE` writes the
//! histograms (10 bins of width 0.05 over `[0, 0.5]`) as rows `scope,bin_lo,bin_hi,skew2,gpep`
//! (`scope,bin_lo,bin_hi,gpep` or `…,skew2` for a `--merge` of one method's lines) with scope
//! `class<K>` (K = `--fig-class`, default 8 "Bag" as in Fig. 11) and `pooled` (the misclassified
//! points of all run classes together).
//!
//! `--plot DIR` writes SVG figures: `skewgp_fashion_decision_std.svg` draws the same histograms
//! (left panel class K, right panel pooled; in each bin SkewGP2's bar left of GP-EP's; one
//! method's bars alone for a `--merge` of its lines),
//! `skewgp_fashion_reliability_skew2.svg` and `skewgp_fashion_reliability_gpep.svg` the
//! reliability diagrams of the class-K problem (10 bins), and `skewgp_fashion_curves_class<C>.svg`
//! the training curves of both methods on each run class C.
//!
//! `--json` prints one final line with exactly the keys
//! `{"example":"skewgp_fashion","kernel":…,"train":…,"test":…,"classes":…,"acc_skew2":[…],"acc_gpep":[…],"nll_skew2":[…],"nll_gpep":[…],"error_auc_skew2":[…],"error_auc_gpep":[…],"ovr_acc_skew2":…,"ovr_acc_gpep":…,"time_skew2_s":…,"time_gpep_s":…}`:
//! `kernel` is `"rbf"` or `"arcsine"`, `classes` the list of run classes, `acc_*` their test
//! accuracies in that order, `nll_*` their test negative log predictive probabilities (nats per
//! image), `error_auc_*` the ROC area of the decision standard deviation as a score for the misclassified test images,
//! `ovr_acc_*` the one-vs-rest 10-class test accuracy (null unless all 10 classes ran), and
//! `time_*_s` the total seconds over the run classes. A `--merge` of lines of one method only
//! reports that method alone; its `--json` line has exactly the keys
//! `{"example":"skewgp_fashion","method":…,"kernel":…,"train":…,"test":…,"classes":…,"acc":[…],"nll":[…],"error_auc":[…],"errors":[…],"ovr_acc":…,"time_s":…,"hist_fig_class":[…],"hist_pooled":[…]}`:
//! `method` is `"skew2"` or `"gpep"`, `errors` the misclassified test images per class, and
//! `hist_*` the counts of their decision std in 10 bins over `[0, 0.5]` (`--fig-class` and pooled).
use burn_gp_experiments::common;
use burn_gp_experiments::skew;
use burn_gp_experiments::tabular;

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::tensor::Tensor;
use burn_gp::data::{data_root, load_mnist, MnistVariant, Subset};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::{median_distance, ArcSine, Kernel, Rbf};
use burn_gp::metrics::{self, binary_probs};
use burn_gp::models::FullEpClassifier;
use burn_gp::special::norm_cdf;
use burn_gp::tensors::matrix;
use burn_gp::train::History;
use burn_gp::{Error, Result};
use clap::Parser;
use common::plot::{Figures, HistogramPanel, PlotOptions, ScatterPanel};
use common::BasicOptions;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use serde_json::json;
use skew::SkewOptions;
use tabular::{mean, median};

/// The two compared methods.
#[derive(clap::ValueEnum, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Method {
    /// The skew GP with `s = 2`.
    Skew2,
    /// Our GP-EP classifier.
    Gpep,
}

impl Method {
    /// The method's name in tables and figures.
    fn name(self) -> &'static str {
        match self {
            Self::Skew2 => "SkewGP2",
            Self::Gpep => "GP-EP",
        }
    }

    /// The method's key in `--methods`, saved lines and CSV columns.
    fn key(self) -> &'static str {
        match self {
            Self::Skew2 => "skew2",
            Self::Gpep => "gpep",
        }
    }
}

/// The kernel both methods use (the paper's two: RBF and Williams' neural-network kernel).
#[derive(clap::ValueEnum, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum KernelChoice {
    /// Isotropic RBF, σ² = 1, lengthscale started at the median pairwise distance.
    #[default]
    Rbf,
    /// The arcsine kernel (`burn_gp::kernels::ArcSine`, the paper's "NN"), isotropic, σ² = σ_b² = 1,
    /// σ_w² started at 1 / (mean squared norm of the training images).
    Arcsine,
}

/// A kernel's starting hyperparameters, from the training images.
#[derive(Clone, Copy, Debug)]
enum KernelStart {
    /// RBF with this lengthscale.
    Rbf { lengthscale: f64 },
    /// Arcsine with this weight variance.
    ArcSine { weight_variance: f64 },
}

impl KernelStart {
    /// The starting values of `choice` on the `n` training images `x` (`[n, d]` row-major).
    fn new(choice: KernelChoice, x: &[f64], n: usize, d: usize, seed: u64) -> Result<Self> {
        Ok(match choice {
            KernelChoice::Rbf => Self::Rbf { lengthscale: median_distance(x, n, d, MEDIAN_ROWS, seed)? },
            KernelChoice::Arcsine => {
                let mean_square = x.iter().map(|v| v * v).sum::<f64>() / n as f64;
                if mean_square <= 0.0 {
                    return Err(Error::invalid("kernel", "the arcsine start needs images that are not all zero"));
                }
                Self::ArcSine { weight_variance: 1.0 / mean_square }
            }
        })
    }
}

impl std::fmt::Display for KernelStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rbf { lengthscale } => write!(f, "RBF, median-heuristic lengthscale {lengthscale:.4}"),
            Self::ArcSine { weight_variance } => write!(f, "arcsine, σ_w² = {weight_variance:.3e}, σ_b² = σ² = 1"),
        }
    }
}

/// Fashion-MNIST's class names, by label.
const CLASS_NAMES: [&str; 10] =
    ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"];

/// Histogram bins over the decision standard deviation's range `[0, 0.5]`.
const BINS: usize = 10;

/// Training images (at most) whose pairwise distances give the median-heuristic lengthscale.
const MEDIAN_ROWS: usize = 1000;

/// Command line of the example.
#[derive(Parser, Debug)]
#[command(about = "Skew GP classification on Fashion-MNIST (paper 000, §7.2): SkewGP2 vs GP-EP, one-vs-rest")]
struct Args {
    #[command(flatten)]
    opts: BasicOptions,
    #[command(flatten)]
    skew: SkewOptions,
    /// Training images drawn from the pooled data set (the paper: 5 000).
    #[arg(long, default_value_t = 5000)]
    train: usize,
    /// Test images drawn from the pooled data set, disjoint from the training ones (the paper: 5 000).
    #[arg(long, default_value_t = 5000)]
    test: usize,
    /// Comma-separated one-vs-rest classes to run (default: all 10).
    #[arg(long, value_delimiter = ',', default_value = "0,1,2,3,4,5,6,7,8,9")]
    classes: Vec<usize>,
    /// The kernel of both methods: `rbf` or `arcsine` (Williams' neural-network kernel, the
    /// paper's "NN" columns of Table 1).
    #[arg(long, value_enum, default_value_t = KernelChoice::Rbf)]
    kernel: KernelChoice,
    /// GP-EP inducing inputs: 0 = none (full EP), M > 0 = M random training images (FITC-EP).
    #[arg(long, default_value_t = 0)]
    ep_inducing: usize,
    /// The class whose histogram is written besides the pooled one (Fig. 11: 8, "Bag").
    #[arg(long, default_value_t = 8)]
    fig_class: usize,
    /// Write the decision-std histograms of misclassified test points to this CSV file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// `--plot DIR`: the histograms, reliability diagrams and training curves as SVG files.
    #[command(flatten)]
    plot: PlotOptions,
    /// Random seed (image draw, EP inducing subset, pseudo-point initialisation, QMC, sampler).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The methods to run: `skew2`, `gpep` or both. With one, nothing is reported: its lines go
    /// to `--save`, to be reported with the other's by `--merge`.
    #[arg(long, value_delimiter = ',', default_value = "skew2,gpep")]
    methods: Vec<Method>,
    /// Append each class's test predictions and training curve to this file, one JSON line per
    /// class and method, so that classes and methods run as separate processes can be reported
    /// together by `--merge`.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Train nothing: report the lines saved by `--save` in these comma-separated files as one
    /// run (every line must have this run's `--train`, `--test` and `--seed`; a class and method
    /// may appear once; classes without both methods are left out).
    #[arg(long, value_delimiter = ',', value_name = "FILES")]
    merge: Vec<PathBuf>,
}

/// The drawn images: pixels in `[0, 1]`, row-major `[n, 784]`, and their labels.
struct Split {
    x_train: Vec<f64>,
    labels_train: Vec<usize>,
    x_test: Vec<f64>,
    labels_test: Vec<usize>,
    d: usize,
}

/// One method's test predictions on one binary problem.
#[derive(Serialize, Deserialize)]
struct MethodResult {
    /// `p(y = 1)` per test image.
    prob: Vec<f64>,
    /// Decision standard deviation per test image.
    decision_std: Vec<f64>,
    /// Seconds for training, posterior and prediction.
    seconds: f64,
    /// The training curve.
    history: History,
}

impl MethodResult {
    /// Per test image, whether `p(y = 1) > 0.5` disagrees with its 0/1 label in `y`.
    fn misclassified(&self, y: &[f64]) -> Vec<bool> {
        self.prob.iter().zip(y).map(|(p, y)| (*p > 0.5) != (*y > 0.5)).collect()
    }

    /// Test accuracy against 0/1 labels `y`.
    fn accuracy(&self, y: &[f64]) -> f64 {
        let hits = self.misclassified(y).iter().filter(|w| !**w).count();
        hits as f64 / y.len().max(1) as f64
    }

    /// Test negative log predictive probability (nats per image) of 0/1 labels `y`.
    fn nll(&self, y: &[f64]) -> Result<f64> {
        let labels: Vec<usize> = y.iter().map(|&v| usize::from(v > 0.5)).collect();
        metrics::nll(&metrics::binary_probs(&self.prob)?, 2, &labels)
    }

    /// How well the decision standard deviation singles out the misclassified test images: the
    /// area under the ROC curve of `decision_std` as a score for "misclassified" (0.5: no better
    /// than chance; Fig. 11's claim is that SkewGP2's errors have high decision std).
    fn error_auc(&self, y: &[f64]) -> Result<f64> {
        metrics::roc_auc(&self.decision_std, &self.misclassified(y))
    }

    /// Decision standard deviations of the misclassified test images.
    fn misclassified_std(&self, y: &[f64]) -> Vec<f64> {
        self.misclassified(y).iter().zip(&self.decision_std).filter(|(w, _)| **w).map(|(_, s)| *s).collect()
    }
}

/// One method's result on one class-vs-rest problem, with the run's sizes and seed: the line
/// `--save` writes.
#[derive(Serialize, Deserialize)]
struct SavedLine {
    class: usize,
    method: Method,
    train: usize,
    test: usize,
    seed: u64,
    /// Lines saved before the flag existed are RBF runs.
    #[serde(default)]
    kernel: KernelChoice,
    result: MethodResult,
}

/// Both methods' results on one class-vs-rest problem.
struct ClassResult {
    class: usize,
    skew2: MethodResult,
    gpep: MethodResult,
}

/// One method's test metrics on each run class (in the order of the runs) and over all of them:
/// what every report, table, `--json` line and histogram is made from.
struct MethodSummary {
    method: Method,
    classes: Vec<usize>,
    acc: Vec<f64>,
    nll: Vec<f64>,
    error_auc: Vec<f64>,
    /// Decision standard deviations of each class's misclassified test images.
    error_std: Vec<Vec<f64>>,
    seconds: Vec<f64>,
    /// One-vs-rest 10-class accuracy; `None` unless all 10 classes ran.
    ovr: Option<f64>,
}

impl MethodSummary {
    /// Scores `method`'s `(class, result)` runs against the 10-class test `labels`.
    fn new(method: Method, runs: &[(usize, &MethodResult)], labels: &[usize]) -> Result<Self> {
        let mut s = Self {
            method,
            classes: vec![],
            acc: vec![],
            nll: vec![],
            error_auc: vec![],
            error_std: vec![],
            seconds: vec![],
            ovr: None,
        };
        for &(class, r) in runs {
            let y = binary_labels(labels, class);
            s.classes.push(class);
            s.acc.push(r.accuracy(&y));
            s.nll.push(r.nll(&y)?);
            s.error_auc.push(r.error_auc(&y)?);
            s.error_std.push(r.misclassified_std(&y));
            s.seconds.push(r.seconds);
        }
        let probs: Vec<(usize, &[f64])> = runs.iter().map(|&(class, r)| (class, &r.prob[..])).collect();
        s.ovr = one_vs_rest_accuracy(&probs, labels);
        Ok(s)
    }

    /// Misclassified test images per run class.
    fn errors(&self) -> Vec<usize> {
        self.error_std.iter().map(Vec::len).collect()
    }

    /// Decision standard deviations of `class`'s misclassified test images (none if it did not run).
    fn class_error_std(&self, class: usize) -> &[f64] {
        self.classes.iter().position(|&c| c == class).map_or(&[], |k| &self.error_std[k])
    }

    /// Decision standard deviations of all run classes' misclassified test images.
    fn pooled_error_std(&self) -> Vec<f64> {
        self.error_std.concat()
    }

    /// Seconds over all run classes.
    fn total_seconds(&self) -> f64 {
        self.seconds.iter().sum()
    }
}

/// Runs the example, printing a failure on stderr.
fn main() {
    common::exit_on_error(run(Args::parse()));
}

/// Draws the images, runs every class and reports.
fn run(args: Args) -> Result<()> {
    check_args(&args)?;
    let figures = args.plot.figures("skewgp_fashion")?;
    let split = draw_split(&args)?;
    let mut results = Vec::new();
    if args.merge.is_empty() {
        let start = KernelStart::new(args.kernel, &split.x_train, args.train, split.d, args.seed)?;
        if !args.opts.json {
            eprintln!("kernel: {start}");
        }
        for &class in &args.classes {
            let mut lines = Vec::new();
            for &method in &args.methods {
                let result = match start {
                    KernelStart::Rbf { lengthscale } => {
                        run_method(&args, &split, class, method, |dev| Rbf::new(&[lengthscale], 1.0, dev))?
                    }
                    KernelStart::ArcSine { weight_variance } => {
                        run_method(&args, &split, class, method, |dev| ArcSine::new(&[weight_variance], 1.0, 1.0, dev))?
                    }
                };
                let (train, test, seed, kernel) = (args.train, args.test, args.seed, args.kernel);
                let line = SavedLine { class, method, train, test, seed, kernel, result };
                if let Some(path) = &args.save {
                    append_line(path, &line)?;
                }
                lines.push(line);
            }
            results.extend(pair_lines(lines));
        }
        if results.is_empty() {
            eprintln!("one method run: its lines are in --save; report them with --merge");
            return Ok(());
        }
    } else {
        let lines = read_saved(&args)?;
        if let Some(first) = lines.first().filter(|f| lines.iter().all(|l| l.method == f.method)) {
            return report_one_method(&args, &figures, &split, first.method, &lines);
        }
        results = pair_lines(lines);
        if results.is_empty() {
            return Err(Error::invalid("merge", "no class has lines of both methods in the given files"));
        }
    }
    let summary = |method, pick: fn(&ClassResult) -> &MethodResult| {
        let runs: Vec<(usize, &MethodResult)> = results.iter().map(|r| (r.class, pick(r))).collect();
        MethodSummary::new(method, &runs, &split.labels_test)
    };
    let (skew2, gpep) = (summary(Method::Skew2, |r| &r.skew2)?, summary(Method::Gpep, |r| &r.gpep)?);
    println!("| class | name | test positives | acc SkewGP2 | acc GP-EP | NLL SkewGP2 | NLL GP-EP | errors SkewGP2 | errors GP-EP | median std of errors SkewGP2 | median std of errors GP-EP | error AUC of std SkewGP2 | error AUC of std GP-EP | time SkewGP2 (s) | time GP-EP (s) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (k, result) in results.iter().enumerate() {
        let (class, s, g) = (result.class, &skew2, &gpep);
        println!(
            "| {class} | {} | {} | {:.4} | {:.4} | {:.4} | {:.4} | {} | {} | {:.4} | {:.4} | {:.3} | {:.3} | {:.1} | {:.1} |",
            CLASS_NAMES[class],
            positives(&split.labels_test, class),
            s.acc[k],
            g.acc[k],
            s.nll[k],
            g.nll[k],
            s.error_std[k].len(),
            g.error_std[k].len(),
            median(&s.error_std[k]),
            median(&g.error_std[k]),
            s.error_auc[k],
            g.error_auc[k],
            s.seconds[k],
            g.seconds[k]
        );
        let runs = [(Method::Skew2.name(), &result.skew2.history), (Method::Gpep.name(), &result.gpep.history)];
        let title = format!("Fashion-MNIST class {class} ({}) vs rest: training", CLASS_NAMES[class]);
        figures.curves(&format!("curves_class{class}"), &title, &runs)?;
    }
    let wins = skew2.acc.iter().zip(&gpep.acc).filter(|(s, g)| s > g).count();
    println!();
    common::print_table(
        &format!("Fashion-MNIST, {} train / {} test, {} one-vs-rest problems", args.train, args.test, results.len()),
        &[
            ("mean binary accuracy SkewGP2", format!("{:.4}", mean(&skew2.acc))),
            ("mean binary accuracy GP-EP", format!("{:.4}", mean(&gpep.acc))),
            ("problems where SkewGP2 > GP-EP", format!("{wins} of {}", results.len())),
            ("mean test NLL SkewGP2 (nats)", format!("{:.4}", mean(&skew2.nll))),
            ("mean test NLL GP-EP (nats)", format!("{:.4}", mean(&gpep.nll))),
            ("mean error AUC of the decision std SkewGP2", format!("{:.4}", mean(&skew2.error_auc))),
            ("mean error AUC of the decision std GP-EP", format!("{:.4}", mean(&gpep.error_auc))),
            ("one-vs-rest accuracy SkewGP2", format_ovr(skew2.ovr)),
            ("one-vs-rest accuracy GP-EP", format_ovr(gpep.ovr)),
            ("time SkewGP2 (s, all classes)", format!("{:.1}", skew2.total_seconds())),
            ("time GP-EP (s, all classes)", format!("{:.1}", gpep.total_seconds())),
            ("median decision std of errors SkewGP2 (pooled)", format!("{:.4}", median(&skew2.pooled_error_std()))),
            ("median decision std of errors GP-EP (pooled)", format!("{:.4}", median(&gpep.pooled_error_std()))),
        ],
    );
    write_histograms(&args, &figures, &[&skew2, &gpep])?;
    plot_reliability(&args, &figures, &results, &split.labels_test)?;
    plot_scatter(&args, &figures, &results, &split.labels_test)?;
    if args.opts.json {
        println!(
            "{}",
            json!({
                "example": "skewgp_fashion",
                "kernel": args.kernel,
                "train": args.train,
                "test": args.test,
                "classes": gpep.classes,
                "acc_skew2": skew2.acc,
                "acc_gpep": gpep.acc,
                "nll_skew2": skew2.nll,
                "nll_gpep": gpep.nll,
                "error_auc_skew2": skew2.error_auc,
                "error_auc_gpep": gpep.error_auc,
                "ovr_acc_skew2": skew2.ovr,
                "ovr_acc_gpep": gpep.ovr,
                "time_skew2_s": skew2.total_seconds(),
                "time_gpep_s": gpep.total_seconds(),
            })
        );
    }
    Ok(())
}

/// Rejects bad sizes and class lists before any work.
fn check_args(args: &Args) -> Result<()> {
    if args.train < 2 || args.test < 1 {
        return Err(Error::invalid(
            "train/test",
            format!("need ≥ 2 training and ≥ 1 test images, got {}/{}", args.train, args.test),
        ));
    }
    if let Some(c) = args.classes.iter().chain([&args.fig_class]).find(|&&c| c >= CLASS_NAMES.len()) {
        return Err(Error::invalid("classes", format!("class {c} is not in 0..10")));
    }
    if args.merge.is_empty() && args.save.is_none() && args.methods.len() < 2 {
        return Err(Error::invalid("methods", "a run of one method reports nothing: give --save FILE"));
    }
    if args.methods.is_empty() || has_repeat(&args.methods) {
        return Err(Error::invalid("methods", format!("need skew2, gpep or both, got {:?}", args.methods)));
    }
    if args.classes.is_empty() || has_repeat(&args.classes) {
        return Err(Error::invalid("classes", format!("need distinct classes, got {:?}", args.classes)));
    }
    if args.ep_inducing > args.train {
        return Err(Error::invalid(
            "ep-inducing",
            format!("{} exceeds the {} training images", args.ep_inducing, args.train),
        ));
    }
    Ok(())
}

/// Whether some item of `items` appears twice.
fn has_repeat<T: PartialEq>(items: &[T]) -> bool {
    items.iter().enumerate().any(|(k, a)| items[..k].contains(a))
}

/// Pools the official training and test images and draws `--train + --test` of them (seeded).
fn draw_split(args: &Args) -> Result<Split> {
    let root = data_root(args.opts.data.as_deref())?;
    let parts = [
        load_mnist(&root, MnistVariant::Fashion, Subset::Train)?,
        load_mnist(&root, MnistVariant::Fashion, Subset::Test)?,
    ];
    let d = parts[0].channels * parts[0].height * parts[0].width;
    let pool: Vec<(usize, usize)> =
        parts.iter().enumerate().flat_map(|(p, set)| (0..set.n).map(move |i| (p, i))).collect();
    if args.train + args.test > pool.len() {
        return Err(Error::invalid(
            "train/test",
            format!("{} + {} exceeds the {} images", args.train, args.test, pool.len()),
        ));
    }
    let mut order: Vec<usize> = (0..pool.len()).collect();
    order.shuffle(&mut StdRng::seed_from_u64(args.seed));
    let take = |rows: &[usize]| -> (Vec<f64>, Vec<usize>) {
        let pixels = rows
            .iter()
            .flat_map(|&k| {
                let (p, i) = pool[k];
                parts[p].images[i * d..(i + 1) * d].iter().map(|&v| f64::from(v) / 255.0)
            })
            .collect();
        (pixels, rows.iter().map(|&k| usize::from(parts[pool[k].0].labels[pool[k].1])).collect())
    };
    let (x_train, labels_train) = take(&order[..args.train]);
    let (x_test, labels_test) = take(&order[args.train..args.train + args.test]);
    Ok(Split { x_train, labels_train, x_test, labels_test, d })
}

/// `1` for `class`, `0` for the rest.
fn binary_labels(labels: &[usize], class: usize) -> Vec<f64> {
    labels.iter().map(|&l| f64::from(u8::from(l == class))).collect()
}

/// Trains and tests `method` on `class` vs rest, from the kernel `kernel` builds on a device.
fn run_method<K: Kernel>(
    args: &Args,
    split: &Split,
    class: usize,
    method: Method,
    kernel: impl Fn(&burn::tensor::Device) -> Result<K>,
) -> Result<MethodResult> {
    let (base, train_dev) = args.opts.devices()?;
    let (n, m, d) = (split.labels_train.len(), split.labels_test.len(), split.d);
    let x = matrix(split.x_train.clone(), n, d, &train_dev)?;
    let x_test = matrix(split.x_test.clone(), m, d, &base)?;
    let seed = args.seed.wrapping_add(class as u64);
    let progress = args.opts.progress();
    let classes: Vec<usize> = split.labels_train.iter().map(|&l| usize::from(l == class)).collect();
    let run = format!("class{class}/{}", method.key());
    let t0 = Instant::now();
    if method == Method::Skew2 {
        let config = args.skew.skew_config(2, n, seed);
        let train = args.skew.skew_train(n, seed, progress).with_checkpoint(args.skew.checkpoint.config(&run));
        let model = config.init(kernel(&train_dev)?, &x)?;
        let (fit, history) = model.fit(&x, &classes, &train)?;
        let report = fit.fit_report().expect("a fit leaves its report").clone();
        let prediction = fit.posterior().expect("a fit leaves its posterior").predict_details(&x_test)?;
        let seconds = t0.elapsed().as_secs_f64();
        if !args.opts.json {
            eprintln!(
                "class {class} SkewGP2: phases {:?}, γ {:?}, kept epoch {:?}; {seconds:.1} s (training {:.1}, posterior and draws {:.1}, prediction {:.1})",
                fit.phases,
                fit.gamma_host(),
                report.selected.map(|s| s.0),
                report.train_s,
                report.sample_s,
                seconds - report.train_s - report.sample_s
            );
        }
        return Ok(MethodResult { prob: prediction.prob, decision_std: prediction.decision_std, seconds, history });
    }
    let x_test = Tensor::from_data(x_test.to_data(), &train_dev);
    let ((mean, var), history) = if args.ep_inducing == 0 {
        // the same schedule as the sparse GP-EP; the jitter as its initial σ0²
        let (ep, history) = FullEpClassifier::new(kernel(&train_dev)?, 1e-6)?.fit(
            &x,
            &classes,
            &args.skew.ep_train(seed, progress).with_checkpoint(args.skew.checkpoint.config(&run)),
        )?;
        (host_pair(ep.predict_f(&x_test)?), history)
    } else {
        let inducing = ep_inducing(args, split, seed, &train_dev)?;
        let (ep, history) = args.skew.fit_ep(kernel(&train_dev)?, inducing, &x, &classes, (seed, progress), &run)?;
        (host_pair(ep.predict_f(&x_test)?), history)
    };
    let prob = mean.iter().zip(&var).map(|(mu, v)| norm_cdf(mu / (1.0 + v).sqrt())).collect();
    let decision_std = mean
        .iter()
        .zip(&var)
        .map(|(mu, v)| {
            let q = if *v > 0.0 { norm_cdf(mu / v.sqrt()) } else { f64::from(u8::from(*mu > 0.0)) };
            (q * (1.0 - q)).max(0.0).sqrt()
        })
        .collect();
    let seconds = t0.elapsed().as_secs_f64();
    if !args.opts.json {
        eprintln!("class {class} GP-EP: {seconds:.1} s");
    }
    Ok(MethodResult { prob, decision_std, seconds, history })
}

/// Pairs each class's SkewGP2 and GP-EP lines (in class order); classes with only one are left
/// out. Each class and method comes at most once (`check_args` and `read_saved` see to it).
fn pair_lines(lines: Vec<SavedLine>) -> Vec<ClassResult> {
    let mut slots: Vec<[Option<MethodResult>; 2]> = (0..CLASS_NAMES.len()).map(|_| [None, None]).collect();
    for line in lines {
        slots[line.class][usize::from(line.method == Method::Gpep)] = Some(line.result);
    }
    slots
        .into_iter()
        .enumerate()
        .filter_map(|(class, [skew2, gpep])| Some(ClassResult { class, skew2: skew2?, gpep: gpep? }))
        .collect()
}

/// Appends `line` as one JSON line to `path`.
fn append_line(path: &Path, line: &SavedLine) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let line = serde_json::to_string(line).map_err(|e| Error::invalid("save", e.to_string()))?;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    writeln!(f, "{line}").map_err(io)
}

/// The lines of the `--merge` files, checked against this run's sizes and seed; a class and
/// method given twice is an error.
fn read_saved(args: &Args) -> Result<Vec<SavedLine>> {
    let mut lines: Vec<SavedLine> = Vec::new();
    for path in &args.merge {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.clone(), source })?;
        for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = || format!("{} line {}", path.display(), k + 1);
            let r: SavedLine =
                serde_json::from_str(line).map_err(|e| Error::invalid("merge", format!("{}: {e}", at())))?;
            if (r.train, r.test, r.seed, r.kernel) != (args.train, args.test, args.seed, args.kernel) {
                return Err(Error::invalid(
                    "merge",
                    format!(
                        "{}: saved with --train {} --test {} --seed {} --kernel {:?}, this run has {} / {} / {} / {:?}",
                        at(),
                        r.train,
                        r.test,
                        r.seed,
                        r.kernel,
                        args.train,
                        args.test,
                        args.seed,
                        args.kernel
                    ),
                ));
            }
            let lengths = [r.result.prob.len(), r.result.decision_std.len()];
            if r.class >= CLASS_NAMES.len() || lengths.iter().any(|&l| l != args.test) {
                return Err(Error::invalid(
                    "merge",
                    format!("{}: class {} or prediction lengths {lengths:?}", at(), r.class),
                ));
            }
            if lines.iter().any(|l| (l.class, l.method) == (r.class, r.method)) {
                return Err(Error::invalid("merge", format!("{}: class {} {:?} given twice", at(), r.class, r.method)));
            }
            lines.push(r);
        }
    }
    Ok(lines)
}

/// FITC-EP's fixed inducing inputs: `--ep-inducing` training images at random (all of them when
/// it equals `--train`).
fn ep_inducing(args: &Args, split: &Split, seed: u64, device: &burn::tensor::Device) -> Result<InducingPoints> {
    let (n, d) = (split.labels_train.len(), split.d);
    if args.ep_inducing == n {
        return InducingPoints::new(&split.x_train, n, d, device);
    }
    let mut rows: Vec<usize> = (0..n).collect();
    rows.shuffle(&mut StdRng::seed_from_u64(seed ^ 0xe9));
    let z: Vec<f64> =
        rows[..args.ep_inducing].iter().flat_map(|&i| split.x_train[i * d..(i + 1) * d].to_vec()).collect();
    InducingPoints::new(&z, args.ep_inducing, d, device)
}

/// One-vs-rest 10-class accuracy from each class's `p(y = 1)` (`(class, probabilities)` pairs):
/// the class with the largest; `None` unless every class ran.
fn one_vs_rest_accuracy(class_probs: &[(usize, &[f64])], labels: &[usize]) -> Option<f64> {
    let mut prob = vec![None; CLASS_NAMES.len()];
    for &(class, p) in class_probs {
        prob[class] = Some(p);
    }
    let prob: Vec<&[f64]> = prob.into_iter().collect::<Option<_>>()?;
    let hits = (0..labels.len())
        .filter(|&i| {
            let best = (0..prob.len()).max_by(|&a, &b| prob[a][i].total_cmp(&prob[b][i])).unwrap_or(0);
            best == labels[i]
        })
        .count();
    Some(hits as f64 / labels.len().max(1) as f64)
}

/// Reports `--merge` lines that are all of one method (each class at most once): per class its
/// accuracy, NLL, errors, the median decision std of the errors, their error AUC and time; then
/// the means, the one-vs-rest accuracy (all 10 classes) and the histograms of the errors' decision
/// std (`--fig-class` and pooled; written by `--csv` and `--plot` too); with `--json` one line of
/// the keys in the module documentation.
fn report_one_method(args: &Args, figures: &Figures, split: &Split, method: Method, lines: &[SavedLine]) -> Result<()> {
    let runs: Vec<(usize, &MethodResult)> = lines.iter().map(|l| (l.class, &l.result)).collect();
    let s = MethodSummary::new(method, &runs, &split.labels_test)?;
    let name = method.name();
    println!("| class | name | test positives | acc {name} | NLL {name} | errors | median std of errors | error AUC of std | time (s) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (k, &class) in s.classes.iter().enumerate() {
        println!(
            "| {class} | {} | {} | {:.4} | {:.4} | {} | {:.4} | {:.3} | {:.1} |",
            CLASS_NAMES[class],
            positives(&split.labels_test, class),
            s.acc[k],
            s.nll[k],
            s.error_std[k].len(),
            median(&s.error_std[k]),
            s.error_auc[k],
            s.seconds[k]
        );
    }
    let errors = s.errors();
    let (hist_fig, hist_pooled) = (histogram(s.class_error_std(args.fig_class)), histogram(&s.pooled_error_std()));
    println!();
    common::print_table(
        &format!(
            "Fashion-MNIST, {} train / {} test, {name} on {} one-vs-rest problems",
            args.train,
            args.test,
            lines.len()
        ),
        &[
            ("mean binary accuracy", format!("{:.4}", mean(&s.acc))),
            ("mean test NLL (nats)", format!("{:.4}", mean(&s.nll))),
            ("mean error AUC of the decision std", format!("{:.4}", mean(&s.error_auc))),
            ("errors (all classes)", errors.iter().sum::<usize>().to_string()),
            ("one-vs-rest accuracy", format_ovr(s.ovr)),
            ("time (s, all classes)", format!("{:.1}", s.total_seconds())),
            (
                &format!("decision std of errors, class {}, 10 bins over [0, 0.5]", args.fig_class),
                format!("{hist_fig:?}"),
            ),
            ("decision std of errors, pooled, 10 bins over [0, 0.5]", format!("{hist_pooled:?}")),
        ],
    );
    write_histograms(args, figures, &[&s])?;
    if args.opts.json {
        println!(
            "{}",
            json!({
                "example": "skewgp_fashion",
                "method": method,
                "kernel": args.kernel,
                "train": args.train,
                "test": args.test,
                "classes": s.classes,
                "acc": s.acc,
                "nll": s.nll,
                "error_auc": s.error_auc,
                "errors": errors,
                "ovr_acc": s.ovr,
                "time_s": s.total_seconds(),
                "hist_fig_class": hist_fig,
                "hist_pooled": hist_pooled,
            })
        );
    }
    Ok(())
}

/// Test images of `class` among the 10-class `labels`.
fn positives(labels: &[usize], class: usize) -> usize {
    labels.iter().filter(|&&l| l == class).count()
}

/// A one-vs-rest accuracy for the tables, or why there is none.
fn format_ovr(ovr: Option<f64>) -> String {
    ovr.map_or("n/a (needs all 10 classes)".to_string(), |v| format!("{v:.4}"))
}

/// Counts of `values` in [`BINS`] equal bins over `[0, 0.5]` (0.5 in the last bin).
fn histogram(values: &[f64]) -> Vec<usize> {
    let mut counts = vec![0; BINS];
    for v in values {
        counts[((v / 0.5 * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    counts
}

/// Writes the `--csv` and `--plot` histograms of the `--fig-class` problem and of all problems,
/// one series per method in `methods`.
fn write_histograms(args: &Args, figures: &Figures, methods: &[&MethodSummary]) -> Result<()> {
    if args.csv.is_none() && !figures.enabled() {
        return Ok(());
    }
    let panels: Vec<Vec<Vec<usize>>> = vec![
        methods.iter().map(|m| histogram(m.class_error_std(args.fig_class))).collect(),
        methods.iter().map(|m| histogram(&m.pooled_error_std())).collect(),
    ];
    if let Some(path) = &args.csv {
        let keys: Vec<&str> = methods.iter().map(|m| m.method.key()).collect();
        write_csv(path, &[format!("class{}", args.fig_class), "pooled".into()], &keys, &panels)?;
    }
    let captions =
        [format!("class {} ({})", args.fig_class, CLASS_NAMES[args.fig_class]), "pooled over the run classes".into()];
    let panels: Vec<HistogramPanel> = captions
        .into_iter()
        .zip(&panels)
        .map(|(caption, counts)| HistogramPanel {
            caption,
            series: methods.iter().zip(counts).map(|(m, c)| (m.method.name().to_string(), c.clone())).collect(),
        })
        .collect();
    let title = "Decision standard deviation of misclassified test points (paper Fig. 11)";
    figures.histogram("decision_std", title, "decision std √(q(1 − q))", (0.0, 0.5), &panels)
}

/// The `--plot` reliability diagrams of both methods on the `--fig-class` problem (else the first
/// run class).
fn plot_reliability(args: &Args, figures: &Figures, results: &[ClassResult], labels: &[usize]) -> Result<()> {
    let Some(r) = results.iter().find(|r| r.class == args.fig_class).or(results.first()) else { return Ok(()) };
    let y: Vec<usize> = labels.iter().map(|&l| usize::from(l == r.class)).collect();
    for (method, result) in [(Method::Skew2, &r.skew2), (Method::Gpep, &r.gpep)] {
        let title = format!("{}, class {} ({}) vs rest", method.name(), r.class, CLASS_NAMES[r.class]);
        let figure = format!("reliability_{}", method.key());
        figures.reliability(&figure, &title, &binary_probs(&result.prob)?, 2, &y, 10)?;
    }
    Ok(())
}

/// The `--plot` scatter of Fig. 11 (a1), (a2): on the `--fig-class` problem, each test image's
/// predicted probability of "rest" by SkewGP2 (x) and by GP-EP (y), with the images GP-EP
/// misclassifies (left) and those SkewGP2 misclassifies (right) in red.
fn plot_scatter(args: &Args, figures: &Figures, results: &[ClassResult], labels: &[usize]) -> Result<()> {
    let Some(r) = results.iter().find(|r| r.class == args.fig_class) else { return Ok(()) };
    let y = binary_labels(labels, r.class);
    let points: Vec<(f64, f64)> = r.skew2.prob.iter().zip(&r.gpep.prob).map(|(s, g)| (1.0 - s, 1.0 - g)).collect();
    let panel = |name: &str, method: &MethodResult| {
        let wrong = method.misclassified(&y);
        let pick = |w: bool| points.iter().zip(&wrong).filter(|(_, &x)| x == w).map(|(p, _)| *p).collect();
        ScatterPanel {
            caption: format!("red: misclassified by {name}"),
            series: vec![(format!("right by {name}"), pick(false)), (format!("misclassified by {name}"), pick(true))],
        }
    };
    let title = format!(
        "Class {} ({}) vs rest: predicted probability of rest (paper Fig. 11 a1, a2)",
        r.class, CLASS_NAMES[r.class]
    );
    figures.scatter("scatter", &title, ("SkewGP2", "GP-EP"), &[panel("GP-EP", &r.gpep), panel("SkewGP2", &r.skew2)])
}

/// Rows `scope,bin_lo,bin_hi,<key>…`: each panel's counts, one column per method key.
fn write_csv(path: &Path, scopes: &[String], keys: &[&str], panels: &[Vec<Vec<usize>>]) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    writeln!(f, "scope,bin_lo,bin_hi,{}", keys.join(",")).map_err(io)?;
    let width = 0.5 / BINS as f64;
    for (scope, counts) in scopes.iter().zip(panels) {
        for b in 0..BINS {
            let (lo, hi) = (b as f64 * width, (b + 1) as f64 * width);
            let row: Vec<String> = counts.iter().map(|c| c[b].to_string()).collect();
            writeln!(f, "{scope},{lo:.2},{hi:.2},{}", row.join(",")).map_err(io)?;
        }
    }
    f.flush().map_err(io)
}

/// Latent means and variances `[n, 1]` as host vectors.
fn host_pair((mean, var): (Tensor<2>, Tensor<2>)) -> (Vec<f64>, Vec<f64>) {
    (burn_gp::tensors::to_vec(mean), burn_gp::tensors::to_vec(var))
}
