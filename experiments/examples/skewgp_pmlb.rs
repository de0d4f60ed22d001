//! The paper's PMLB experiment (Benavoli, Azzimonti & Piga 2020, §7.1; `docs/papers/000-skew-gp.md`):
//! SkewGP2 (`s = 2`), SkewGP0 (`s = 0`, the exact-posterior GP probit classifier) and our GP-EP
//! classifier (`burn_gp::models::ep`, full EP: inducing inputs fixed at the training rows) on the
//! binary PMLB sets, 5-fold stratified cross-validation, inputs standardised with the training
//! folds' statistics, RBF-ARD kernel; average information in bits (Kuss & Rasmussen 2005) and
//! accuracy, averaged over folds, then over sets. Paper (124 sets): information 0.573 / 0.557 /
//! 0.542 (SkewGP2 / SkewGP0 / GP-EP), accuracy 0.904 / 0.882 / 0.859.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb                                # every binary set, 5 folds
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --multiclass                # plus pmlb_multiclass, class 0 vs 1
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --sets sonar,bupa --folds-run 2 --max-train 150 --json
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --sets sonar --first-fold 3 --folds-run 1 --json > f3.jsonl
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --summarise f0.jsonl,f1.jsonl,f2.jsonl,f3.jsonl,f4.jsonl
//! ```
//!
//! Protocol: each set's rows with class 0 or 1 (binary sets: all rows; `--multiclass` adds the
//! multi-class sets of `<data>/pmlb_multiclass` binarised to class 0 vs 1 as in the paper), split
//! into `--folds` stratified folds (seeded); `--folds-run K` runs only K folds, from fold
//! `--first-fold F` on (each fold is the same whichever process runs it), and
//! `--max-train N` subsamples larger training folds (stratified, seeded), `--max-rows N` skips
//! bigger sets. All three methods start from the same kernel: σ² = 1 and one median-heuristic
//! lengthscale for every feature (the paper's code starts at ℓ = 1, which on standardised inputs in
//! 10+ dimensions makes `K` nearly diagonal). SkewGP trains by Adam on the block-composite
//! objective (`--epochs`, `--lr`, `--qmc-points` × `--qmc-shifts` lattice points per block,
//! blocks of `--block-size`; for `s = 2` the 4 phase patterns are screened for `--phase-screen`
//! epochs), then predicts by Corollary 2's exact ratio (`--predict exact`, the default: numerator and
//! denominator with common random numbers, one pass over the lattice shared by the test points
//! and tilted by the denominator's minimax shifts, no sampling; `--exact-se B` grows the lattice until
//! the standard error of each fold's average information is at most B bits; `--tilt-below P`
//! then re-estimates the test points whose `p` or `1 − p` is below P by minimax exponential
//! tilting of each one's own numerator) or by route B from `--samples` lin-ess
//! draws (`--predict sampled`; on these posteriors the draws mix slowly and route B's Monte Carlo
//! error costs information, see `docs/results/skew_gp.md`). GP-EP trains by the EP
//! classifier's batch SEP schedule (`--ep-iterations` steps; with `--ep-validation` the step is
//! chosen on the skew GPs' hold-out, as their epoch is, and EP is rerun on all training rows at
//! its kernel). Information of a prediction `p` for
//! a label `y ∈ {0, 1}`: `1 + y log₂ p + (1 − y) log₂(1 − p)`, with `p` clipped to
//! `[1e-12, 1 − 1e-12]`. `skew0ep` (default on) is SkewGP0's exact posterior at GP-EP's fitted
//! kernel: it separates the effect of exact inference from that of hyperparameter selection.
//! `skew2ep` (off by default; needs gpep) is SkewGP2 started at GP-EP's fitted kernel, which stays
//! fixed (its parameters are marked `no_grad`): only the pseudo-points `R` and `γ` are trained,
//! with the phase screening, by the same block-composite objective, `--epochs` and `--lr`; it
//! separates the skewness' contribution from the block-composite kernel selection.
//!
//! `--plot DIR` writes, from the first fold of each set, each trained method's reliability
//! diagram of the test predictions (`skewgp_pmlb_reliability_<set>_<method>.svg`, 10 bins) and
//! training curve (`skewgp_pmlb_curves_<set>_<method>.svg`). `--probs-out FILE` appends every
//! method's test probabilities, one JSON line per set, fold and method, to see which rows carry a
//! difference between methods or lattices.
//!
//! `--json`: one line per set,
//! `{"set","rows","features","folds","first_fold","info_skew2","info_skew0","info_gpep","acc_skew2","acc_skew0","acc_gpep","time_skew2_s","time_skew0_s","time_gpep_s","info_skew0ep","acc_skew0ep","info_skew2ep","acc_skew2ep"}`
//! (fold means), plus `qmc_se_skew2`, `qmc_se_skew0`, `qmc_se_skew0ep` (the lattice's standard
//! error of the fold-mean information in bits, `null` without `--exact-se`) and
//! `qmc_points_skew2` etc. (the largest lattice used, points per shift), `ss_max_skew2`,
//! `ss_max_skew0`, `ss_max_skew0ep`, `ss_max_skew2ep` (the paper's Fig. 10 statistic: the largest
//! posterior skewness `SS(x*)` over the test points, from the lin-ess draws; `null` with
//! `--predict exact`), `ss_min_skew2` etc. (the smallest, likewise; a posterior skewed to the
//! left has a small largest `SS` however skewed it is); a set that fails has an `error` key
//! instead), then the final summary line with
//! exactly the keys `{"example":"skewgp_pmlb","sets":…,"info_skew2":…,"info_skew0":…,"info_gpep":…,"acc_skew2":…}`
//! (means over the sets that succeeded; `sets` is their number). `--summarise FILES` trains
//! nothing: it merges saved set lines per set (fold-weighted, e.g. the five one-fold runs of a
//! set) and prints the same table and lines; a method scored on only some of a set's folds is
//! `null` in that set's line (and named on stderr), never a mean over fewer folds; a multi-fold
//! run does the same with a method whose score is not finite on some folds.
//!
//! Fig. 10 (§7.1, the gain of SkewGP over GP-EP against the posterior's skewness): `--predict
//! skewness` retrains the skew GPs of a fold (training does not depend on `--predict`), draws the
//! posterior by lin-ess and records only the statistic; `--summarise` takes a set's statistic from
//! those lines when they cover each of its folds once and, over the sets with both, prints a regression stump of the
//! gain over the statistic with its permutation p-value (and `--plot DIR` draws the figure).
//! The statistic is the paper's largest signed `SS` by default; `--skewness-axis absolute` takes
//! the largest `|SS|` from the lines that record `ss_min_*`, so that a posterior skewed to the
//! left counts as skewed (such lines cover the same folds as older ones without `ss_min_*`: pass
//! both files, as only the lines with the axis' statistic are counted):
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --sets sonar --first-fold 3 --folds-run 1 --methods skew0,skew2 --predict skewness --json > ss3.jsonl
//! cargo run --release -p burn-gp-experiments --example skewgp_pmlb -- --summarise f0.jsonl,…,ss0.jsonl,… --plot figures
//! ```
use burn_gp_experiments::common;
use burn_gp_experiments::regression_stump;
use burn_gp_experiments::skew;
use burn_gp_experiments::tabular;

use std::path::Path;
use std::time::Instant;

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::{data_root, load_pmlb_classification, signed_binary_labels, stratified_split, Standardiser};
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::{median_distance, Rbf};
use burn_gp::metrics::{binary_probs, standard_error};
use burn_gp::models::ep::{run_ep, EpGpClassifier, EpSites};
use burn_gp::models::skew_gp::{flatten_params, SkewGp, SkewGpConfig, SkewGpPosterior};
use burn_gp::mvn::QmcPoints;
use burn_gp::tensors::matrix;
use burn_gp::train::History;
use burn_gp::{Error, Result};
use clap::Parser;
use common::plot::{Figures, PlotOptions, StepPanel};
use common::BasicOptions;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::json;
use tabular::{mean, num, set_folders};

/// Command line of the example.
#[derive(Parser, Debug)]
#[command(about = "Skew GP classification on PMLB (paper 000, §7.1): SkewGP2, SkewGP0 and GP-EP, 5-fold CV")]
struct Args {
    #[command(flatten)]
    opts: BasicOptions,
    /// `--plot DIR`: reliability diagrams and training curves as SVG files.
    #[command(flatten)]
    plot: PlotOptions,
    #[command(flatten)]
    skew: skew::SkewOptions,
    /// Comma-separated set names; default: every set in <data>/pmlb (and <data>/pmlb_multiclass
    /// with --multiclass), by name.
    #[arg(long, value_delimiter = ',')]
    sets: Vec<String>,
    /// Also run the multi-class sets, binarised to class 0 vs class 1.
    #[arg(long)]
    multiclass: bool,
    /// Skip sets with more rows (after binarisation) than this (0 = no limit).
    #[arg(long, default_value_t = 0)]
    max_rows: usize,
    /// Subsample larger training folds to about this many rows (stratified, seeded; 0 = all).
    #[arg(long, default_value_t = 0)]
    max_train: usize,
    /// Number of cross-validation folds.
    #[arg(long, default_value_t = 5)]
    folds: usize,
    /// Run only K folds (0 = all from `--first-fold` on).
    #[arg(long, default_value_t = 0)]
    folds_run: usize,
    /// The first fold to run (0-based): `--first-fold F --folds-run 1` runs fold F alone, so the
    /// folds of one set can run as separate processes and be merged by `--summarise`.
    #[arg(long, default_value_t = 0)]
    first_fold: usize,
    /// Train nothing: merge the `--json` set lines saved in these files (comma-separated) and print
    /// the tables. Lines of one set that cover different folds (`first_fold`, `folds`) are
    /// combined, fold-weighted; a fold range seen twice counts once (the first line), unless the
    /// two lines score different methods (one fold run method by method, `--methods skew0` and
    /// `--methods gpep,skew0ep`, say): those join. Sets with fewer than `--folds` folds get their
    /// row but stay out of the means.
    #[arg(long, value_delimiter = ',')]
    summarise: Vec<std::path::PathBuf>,
    /// SkewGP test predictions: `exact` (Corollary 2 as a ratio of two tilted estimates with
    /// common random numbers, `--exact-points` × `--exact-shifts` lattice points; no sampling) or
    /// `sampled` (route B, Rao-Blackwellised over `--samples` lin-ess draws of U₁; also records
    /// the skewness statistic of the paper's Fig. 10) or `skewness` (the draws and the statistic
    /// only: no probabilities, so the set line scores nothing; `--summarise` adds the statistic
    /// to the set's row when such lines cover each of its folds once; training does not depend
    /// on `--predict`). The statistic is a maximum over test points of a Monte Carlo estimate:
    /// at the default `--samples` it is mostly noise; `docs/results/skew_gp.md` uses 256 000.
    #[arg(long, default_value = "exact", value_parser = ["exact", "sampled", "skewness"])]
    predict: String,
    /// Lattice points per random shift of the exact predictions.
    #[arg(long, default_value_t = 1000)]
    exact_points: usize,
    /// Random lattice shifts of the exact predictions.
    #[arg(long, default_value_t = 8)]
    exact_shifts: usize,
    /// Choose the exact predictions' lattice size from their own standard error: each of the
    /// `--exact-shifts` shifts gives an independent estimate of the fold's average information,
    /// and `--exact-points` doubles (up to `--exact-max-points`) until the standard error of their
    /// mean is at most this many bits (0 = a fixed lattice).
    #[arg(long, default_value_t = 0.0)]
    exact_se: f64,
    /// Largest lattice (points per shift) `--exact-se` may grow to.
    #[arg(long, default_value_t = 64_000)]
    exact_max_points: usize,
    /// After the exact predictions, re-estimate by minimax exponential tilting every test point
    /// whose `p(y = 1)` or `1 − p` is below this (0 = off), each with its own tilted numerator:
    /// the shared pass is tilted towards the denominator, and its relative error grows on such
    /// test points (`docs/results/log/skew_gp-minimax-tilting.md`).
    #[arg(long, default_value_t = 0.0)]
    tilt_below: f64,
    /// Lattice points per shift of the tilted estimates (`--exact-shifts` shifts).
    #[arg(long, default_value_t = 4096)]
    tilt_points: usize,
    /// Comma-separated methods to run (skew2, skew0, gpep, skew0ep = SkewGP0's exact posterior at
    /// GP-EP's fitted kernel, skew2ep = SkewGP2 with GP-EP's fitted kernel held fixed; both need
    /// gpep; none = no method, e.g. with --folds-out); the others report null.
    #[arg(long, value_delimiter = ',', default_value = "skew2,skew0,gpep,skew0ep")]
    methods: Vec<String>,
    /// GP-EP on the skew GPs' hold-out protocol: train on the rows `--validation` keeps (the same
    /// stratified split), score the held-out rows' log predictive probability every
    /// `--validate-every` steps, keep the best step's kernel and noise, then run EP to convergence
    /// on all training rows at them (off: the last of `--ep-iterations` steps is kept).
    #[arg(long)]
    ep_validation: bool,
    /// Append each fold's rows (`{"set","fold","train":[…],"test":[…]}`, indices into the set's
    /// class-0/1 rows in file order) to this JSON-lines file, for the Python peers
    /// (`benches/peers/gpy_pmlb.py`); `--methods none` writes the folds only.
    #[arg(long)]
    folds_out: Option<std::path::PathBuf>,
    /// Append each method's test probabilities on each fold to this JSON-lines file:
    /// `{"set","fold","method","y":[…],"p":[…]}`, `y` the test labels (0/1), `p` the predicted
    /// `p(y = 1)` in the same order (with `--exact-se`, from the lattice that was kept).
    #[arg(long)]
    probs_out: Option<std::path::PathBuf>,
    /// With `--summarise`: take a set's skewness statistic from the `--predict skewness` lines of
    /// its first K folds only (the largest over those folds' test points; 0 = all its folds).
    #[arg(long, default_value_t = 0)]
    skewness_folds: usize,
    /// With `--summarise`: the skewness statistic on Fig. 10's x-axis.
    #[arg(long, value_enum, default_value_t = SkewnessAxis::Signed)]
    skewness_axis: SkewnessAxis,
    /// Random seed (folds, subsampling, pseudo-point initialisation, QMC shifts, sampler).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// The statistic `--summarise` puts on Fig. 10's x-axis, per set: the largest over its folds of
/// each fold's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SkewnessAxis {
    /// The paper's: the largest signed `SS(x*)` over the test points (`ss_max_*`).
    Signed,
    /// The largest `|SS(x*)|`, `max(ss_max, −ss_min)`, which also scores a posterior skewed to the
    /// left: only lines that record `ss_min_*` count.
    Absolute,
}

impl SkewnessAxis {
    /// This axis' statistic of one line's summary (NaN where the line lacks it).
    fn of(self, s: &Summary) -> f64 {
        match self {
            Self::Signed => s.skewness,
            Self::Absolute if s.skewness_min.is_finite() => s.skewness.max(-s.skewness_min),
            Self::Absolute => f64::NAN,
        }
    }

    /// The axis' `--skewness-axis` value, as the `--json` lines give it.
    fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).map_or_else(String::new, |v| v.get_name().to_string())
    }

    /// The statistic's name in tables and on the figure's axis.
    fn label(self) -> &'static str {
        match self {
            Self::Signed => "max SS",
            Self::Absolute => "max |SS|",
        }
    }
}

/// One method's test metrics on one fold: a [`Summary`] of a single fold.
type Score = Summary;

/// One method's test metrics: on one fold, or the fold means of a set.
#[derive(Clone, Copy, Debug)]
struct Summary {
    information: f64,
    accuracy: f64,
    seconds: f64,
    /// Standard error (bits) of `information` from the exact predictions' lattice (of a fold
    /// mean: `√(Σ_f se_f²) / folds`), and the largest lattice (points per shift) used (NaN
    /// where not measured).
    qmc: (f64, f64),
    /// The paper's Fig. 10 statistic: the largest posterior skewness `SS(x*)` over the test
    /// points (over all folds' test points for a set), from route B's moments over the lin-ess
    /// draws (NaN where not measured: GP-EP, and SkewGP with `--predict exact`).
    skewness: f64,
    /// The smallest `SS(x*)` over the same test points: with [`Summary::skewness`] it shows a
    /// posterior skewed to the left, which the paper's signed maximum scores as unskewed.
    skewness_min: f64,
}

impl Summary {
    /// Fold means of `method`'s per-fold scores on set `name`: [`merge_set`] with each fold of
    /// weight 1.
    fn of(name: &str, method: &str, scores: &[Score]) -> Self {
        merge_set(name, method, &scores.iter().map(|s| (1, *s)).collect::<Vec<_>>())
    }
}

/// The methods, in output order.
const METHODS: [&str; 5] = ["skew2", "skew0", "gpep", "skew0ep", "skew2ep"];

/// The methods run at GP-EP's fitted kernel (after `gpep` on the same fold), in output order
/// from index 3 of [`METHODS`].
const AT_EP_KERNEL: [&str; 2] = ["skew0ep", "skew2ep"];

/// A binarised set: standardisation happens per fold.
struct BinarySet {
    x: Vec<f64>,
    y: Vec<usize>,
    d: usize,
}

/// One fold's standardised training and test parts (training labels 0/1; test labels as f64 for the scores).
struct Fold {
    x_train: Vec<f64>,
    y_train: Vec<usize>,
    x_test: Vec<f64>,
    y_test: Vec<f64>,
    d: usize,
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}

fn run(args: Args) -> Result<()> {
    if !args.summarise.is_empty() {
        return summarise(&args);
    }
    let root = data_root(args.opts.data.as_deref())?;
    let figures = args.plot.figures("skewgp_pmlb")?;
    let names = resolve_sets(&args, &root)?;
    let mut per_set: Vec<[Summary; 5]> = Vec::new();
    print_header();
    for name in &names {
        let set = match load_binary(&root, name) {
            Ok(set) => set,
            Err(e) => {
                report_failure(&args, name, &e);
                continue;
            }
        };
        let rows = set.y.len();
        if args.max_rows > 0 && rows > args.max_rows {
            eprintln!("skipping {name}: {rows} rows > --max-rows {}", args.max_rows);
            continue;
        }
        match run_set(&args, &figures, name, &set) {
            Ok(summary) => {
                print_set_line(&args, name, rows, set.d, fold_range(&args)?, &summary);
                per_set.push(summary);
            }
            Err(e) => report_failure(&args, name, &e),
        }
    }
    print_means(&args, &per_set);
    Ok(())
}

/// The per-set table's header.
fn print_header() {
    println!("| set | rows | d | info SkewGP2 | info SkewGP0 | info GP-EP | info SkewGP0 at EP kernel | info SkewGP2 at EP kernel | acc SkewGP2 | acc SkewGP0 | acc GP-EP | acc SkewGP2 at EP kernel |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
}

/// The means over the sets (table, and the summary JSON line with `--json`).
fn print_means(args: &Args, per_set: &[[Summary; 5]]) {
    let over_sets = |m: usize, f: fn(&Summary) -> f64| mean(&per_set.iter().map(|s| f(&s[m])).collect::<Vec<_>>());
    println!();
    common::print_table(
        &format!("Means over {} sets (paper, 124 sets: information 0.573 / 0.557 / 0.542)", per_set.len()),
        &[
            ("information SkewGP2", format!("{:.4}", over_sets(0, |s| s.information))),
            ("information SkewGP0", format!("{:.4}", over_sets(1, |s| s.information))),
            ("information GP-EP", format!("{:.4}", over_sets(2, |s| s.information))),
            ("information SkewGP0 at GP-EP's kernel", format!("{:.4}", over_sets(3, |s| s.information))),
            ("information SkewGP2 at GP-EP's kernel", format!("{:.4}", over_sets(4, |s| s.information))),
            ("accuracy SkewGP2", format!("{:.4}", over_sets(0, |s| s.accuracy))),
            ("accuracy SkewGP0", format!("{:.4}", over_sets(1, |s| s.accuracy))),
            ("accuracy GP-EP", format!("{:.4}", over_sets(2, |s| s.accuracy))),
        ],
    );
    if args.opts.json {
        println!(
            "{}",
            json!({
                "example": "skewgp_pmlb",
                "sets": per_set.len(),
                "info_skew2": num(over_sets(0, |s| s.information)),
                "info_skew0": num(over_sets(1, |s| s.information)),
                "info_gpep": num(over_sets(2, |s| s.information)),
                "acc_skew2": num(over_sets(0, |s| s.accuracy)),
            })
        );
    }
}

/// `(first fold, number of folds)` that `--first-fold` and `--folds-run` ask for.
fn fold_range(args: &Args) -> Result<(usize, usize)> {
    if args.first_fold >= args.folds {
        return Err(Error::invalid("first-fold", format!("{} is not below --folds {}", args.first_fold, args.folds)));
    }
    let left = args.folds - args.first_fold;
    Ok((args.first_fold, if args.folds_run == 0 { left } else { args.folds_run.min(left) }))
}

/// One `--json` set line read back: its fold range and per-method fold means.
struct SetLine {
    set: String,
    rows: usize,
    d: usize,
    first_fold: usize,
    folds: usize,
    summary: [Summary; 5],
}

impl SetLine {
    /// Parses a set line (`None` for the summary line, failures and other lines).
    fn parse(v: &serde_json::Value) -> Option<Self> {
        let set = v["set"].as_str()?;
        if v.get("error").is_some() {
            return None;
        }
        let count = |k: &str| v[k].as_u64().map(|c| c as usize);
        let number = |k: String| v[k.as_str()].as_f64().unwrap_or(f64::NAN);
        let summary = METHODS.map(|m| Summary {
            information: number(format!("info_{m}")),
            accuracy: number(format!("acc_{m}")),
            seconds: number(format!("time_{m}_s")),
            qmc: (number(format!("qmc_se_{m}")), number(format!("qmc_points_{m}"))),
            skewness: number(format!("ss_max_{m}")),
            skewness_min: number(format!("ss_min_{m}")),
        });
        Some(Self {
            set: set.to_string(),
            rows: count("rows")?,
            d: count("features")?,
            first_fold: count("first_fold").unwrap_or(0),
            folds: count("folds").filter(|&f| f > 0)?,
            summary,
        })
    }

    /// Whether `other` covers the same set and folds and adds methods this line lacks, as the
    /// lines of one fold run method by method (`--methods skew0`, `--methods gpep,skew0ep`, …). A
    /// method both lines score must have the same information and accuracy to the last digit (a
    /// rerun of the fold, as when `--methods gpep,skew0ep` completes a `--methods gpep` line):
    /// any other overlap is two different results, and the later line is skipped.
    fn joins(&self, other: &SetLine) -> bool {
        let compatible = self.summary.iter().zip(&other.summary).all(|(a, b)| {
            let both = a.information.is_finite() && b.information.is_finite();
            !both || (a.information == b.information && a.accuracy == b.accuracy)
        });
        self.set == other.set && self.first_fold == other.first_fold && self.folds == other.folds && compatible
    }

    /// Takes the methods that `other` scores and this line lacks (see [`SetLine::joins`]); a
    /// method both score keeps this line's entry, its time included.
    fn join(&mut self, other: SetLine) {
        for (mine, theirs) in self.summary.iter_mut().zip(other.summary) {
            if theirs.information.is_finite() && !mine.information.is_finite() {
                *mine = theirs;
            }
        }
    }

    /// Whether the line only carries skewness statistics (a `--predict skewness` run).
    fn skewness_only(&self) -> bool {
        self.summary.iter().all(|s| !s.information.is_finite()) && self.summary.iter().any(|s| s.skewness.is_finite())
    }
}

/// Fold-weighted merge of one method's summaries over disjoint fold ranges: each field is the
/// mean over the parts where it is finite (a failed fold drops out of that field, and a field
/// finite nowhere is NaN), weighted by the folds each covers; the lattice standard errors combine
/// as `√(Σ (k_i se_i)²) / Σ k_i` over the parts that measured one.
fn merge_summaries(parts: &[(usize, Summary)]) -> Summary {
    let weighted = |f: fn(&Summary) -> f64| {
        let finite = parts.iter().filter(|(_, s)| f(s).is_finite());
        let (w, sum) = finite.fold((0.0, 0.0), |(w, sum), (k, s)| (w + *k as f64, sum + *k as f64 * f(s)));
        if w > 0.0 {
            sum / w
        } else {
            f64::NAN
        }
    };
    let measured = parts.iter().filter(|(_, s)| s.qmc.0.is_finite());
    let (w, squares) = measured.fold((0.0, 0.0), |(w, q), (k, s)| (w + *k as f64, q + (*k as f64 * s.qmc.0).powi(2)));
    Summary {
        information: weighted(|s| s.information),
        accuracy: weighted(|s| s.accuracy),
        seconds: weighted(|s| s.seconds),
        qmc: (
            if w > 0.0 { squares.sqrt() / w } else { f64::NAN },
            parts.iter().map(|p| p.1.qmc.1).fold(f64::NAN, f64::max),
        ),
        skewness: parts.iter().map(|p| p.1.skewness).fold(f64::NAN, f64::max),
        skewness_min: parts.iter().map(|p| p.1.skewness_min).fold(f64::NAN, f64::min),
    }
}

/// [`merge_summaries`] of one method's parts of set `name`, where a method scored on only some
/// of the parts' folds would otherwise enter as a mean over fewer folds under the set's fold
/// count: its scores (and lattice) are NaN instead, and likewise its skewness statistic when
/// measured on only some folds; stderr names each.
fn merge_set(name: &str, method: &str, parts: &[(usize, Summary)]) -> Summary {
    let merged = merge_summaries(parts);
    let folds: usize = parts.iter().map(|p| p.0).sum();
    let on = |f: fn(&Summary) -> f64| parts.iter().filter(|p| f(&p.1).is_finite()).map(|p| p.0).sum::<usize>();
    let partial = |count: usize, what: &str| {
        let partial = count > 0 && count < folds;
        if partial {
            eprintln!("{name}: {method} {what} on {count} of {folds} folds, left out of its row");
        }
        partial
    };
    let mut out = merged;
    if partial(on(|s| s.information), "scored") {
        out = Summary { information: f64::NAN, accuracy: f64::NAN, qmc: (f64::NAN, f64::NAN), ..out };
    }
    if partial(on(|s| s.skewness), "skewness measured") {
        (out.skewness, out.skewness_min) = (f64::NAN, f64::NAN);
    }
    out
}

/// `--summarise`: merges the saved set lines per set (in order of first appearance) and prints
/// the tables as a run would. Lines of the same folds join into one ([`SetLine::joins`]).
fn summarise(args: &Args) -> Result<()> {
    let mut lines: Vec<SetLine> = Vec::new();
    let mut skewness_lines: Vec<SetLine> = Vec::new();
    for path in &args.summarise {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.clone(), source })?;
        for line in text.lines().filter(|l| l.trim_start().starts_with('{')) {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let Some(parsed) = SetLine::parse(&v) else { continue };
            if parsed.skewness_only() {
                skewness_lines.push(parsed);
                continue;
            }
            if let Some(same) = lines.iter_mut().find(|l| l.joins(&parsed)) {
                same.join(parsed);
                continue;
            }
            let seen = lines.iter().any(|l| {
                l.set == parsed.set
                    && l.first_fold < parsed.first_fold + parsed.folds
                    && parsed.first_fold < l.first_fold + l.folds
            });
            if seen {
                eprintln!("{}: folds {}.. overlap an earlier line; skipped", parsed.set, parsed.first_fold);
                continue;
            }
            lines.push(parsed);
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for l in &lines {
        if !names.contains(&l.set.as_str()) {
            names.push(&l.set);
        }
    }
    print_header();
    let mut per_set = Vec::new();
    let mut full_sets = Vec::new();
    for name in names {
        let parts: Vec<&SetLine> = lines.iter().filter(|l| l.set == name).collect();
        let folds: usize = parts.iter().map(|l| l.folds).sum();
        let mut summary: [Summary; 5] = std::array::from_fn(|m| {
            merge_set(name, METHODS[m], &parts.iter().map(|l| (l.folds, l.summary[m])).collect::<Vec<_>>())
        });
        let extra: Vec<&SetLine> = skewness_lines.iter().filter(|l| l.set == name).collect();
        for (m, s) in summary.iter_mut().enumerate() {
            // `--predict sampled` lines carry the statistic with the scores; else the skewness lines
            let own = args.skewness_axis.of(s);
            s.skewness = if own.is_nan() { skewness_over_folds(name, m, &extra, folds, args) } else { own };
        }
        let first = parts[0];
        print_set_line(args, name, first.rows, first.d, (0, folds), &summary);
        if folds < args.folds {
            eprintln!("{name}: {folds} of {} folds, left out of the means", args.folds);
        } else {
            per_set.push(summary);
            full_sets.push(name);
        }
    }
    // the summary line stays the last line
    print_skewness_gain(args, &full_sets, &per_set)?;
    print_means(args, &per_set);
    Ok(())
}

/// The largest `--skewness-axis` statistic of method `m` (index into [`METHODS`]) over the
/// `--predict skewness` lines `lines` of set `name` when those with the statistic cover its first
/// `--skewness-folds` folds (all `folds` when 0), each once; lines of later folds are not used
/// (NaN otherwise; stderr names a set covered in part or twice).
fn skewness_over_folds(name: &str, m: usize, lines: &[&SetLine], folds: usize, args: &Args) -> f64 {
    let folds = if args.skewness_folds == 0 { folds } else { args.skewness_folds.min(folds) };
    let axis = args.skewness_axis;
    let measured: Vec<&&SetLine> =
        lines.iter().filter(|l| axis.of(&l.summary[m]).is_finite() && l.first_fold < folds).collect();
    let mut covered = vec![0usize; folds];
    for l in &measured {
        for c in covered.iter_mut().skip(l.first_fold).take(l.folds) {
            *c += 1;
        }
    }
    if measured.is_empty() {
        return f64::NAN;
    }
    if covered.iter().any(|&c| c != 1) || measured.iter().any(|l| l.first_fold + l.folds > folds) {
        eprintln!("{name}: {} skewness lines cover folds {covered:?} of {folds}, left out of its row", METHODS[m]);
        return f64::NAN;
    }
    measured.iter().map(|l| axis.of(&l.summary[m])).fold(f64::NAN, f64::max)
}

/// Permutations of the regression stump's test in [`print_skewness_gain`].
const STUMP_PERMUTATIONS: usize = 9999;

/// The smallest number of sets on either side of the regression stump's split.
const STUMP_MIN_LEAF: usize = 5;

/// The paper's Fig. 10 (§7.1) where the lines carry the skewness statistic (`--predict
/// sampled` or `skewness`): for SkewGP0 and SkewGP2, each set's `--skewness-axis` statistic
/// against its information gain over GP-EP (both fold-merged), a regression stump over them with
/// its permutation p-value (table, and with `--plot DIR` the figure `skewgp_pmlb_fig10.svg`);
/// then each set's two points; with `--json`, one line `{"figure":"fig10","axis","method","sets",
/// "split_ss","left_sets","left_gain","right_sets","right_gain","p_value"}` per method (`axis`:
/// `signed` or `absolute`). Prints nothing when no set has the statistic.
fn print_skewness_gain(args: &Args, names: &[&str], per_set: &[[Summary; 5]]) -> Result<()> {
    let mut panels = Vec::new();
    let mut rows = Vec::new();
    for (m, label) in [(1, "SkewGP0"), (0, "SkewGP2")] {
        let points: Vec<(f64, f64)> = per_set
            .iter()
            .map(|s| (s[m].skewness, s[m].information - s[2].information))
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        if points.is_empty() {
            continue;
        }
        let Some(stump) = regression_stump::fit(&points, STUMP_MIN_LEAF, STUMP_PERMUTATIONS, args.seed) else {
            eprintln!("{label}: {} sets with the skewness statistic, too few for the regression stump", points.len());
            continue;
        };
        let (lo, hi) = points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
        panels.push(StepPanel {
            caption: format!("{label}: split at {:.3}, p = {:.3}", stump.threshold, stump.p_value),
            points: points.clone(),
            steps: vec![(lo, stump.threshold, stump.left.1), (stump.threshold, hi, stump.right.1)],
        });
        rows.push((label, points.len(), stump));
    }
    if rows.is_empty() {
        return Ok(());
    }
    println!();
    let axis = args.skewness_axis.label();
    println!("Fig. 10: information gain over GP-EP against the posterior's skewness, {axis} (regression stump, {STUMP_PERMUTATIONS} permutations)");
    println!("| method | sets | split at {axis} | sets ≤ split | mean gain ≤ split | sets > split | mean gain > split | permutation p |");
    println!("|---|---|---|---|---|---|---|---|");
    for (label, sets, s) in &rows {
        println!(
            "| {label} | {sets} | {:.4} | {} | {:+.4} | {} | {:+.4} | {:.4} |",
            s.threshold, s.left.0, s.left.1, s.right.0, s.right.1, s.p_value
        );
        if args.opts.json {
            println!(
                "{}",
                json!({
                    "figure": "fig10", "axis": args.skewness_axis.name(), "method": label, "sets": sets, "split_ss": num(s.threshold),
                    "left_sets": s.left.0, "left_gain": num(s.left.1),
                    "right_sets": s.right.0, "right_gain": num(s.right.1), "p_value": num(s.p_value),
                })
            );
        }
    }
    println!();
    println!("| set | {axis} SkewGP0 | gain SkewGP0 | {axis} SkewGP2 | gain SkewGP2 |");
    println!("|---|---|---|---|---|");
    for (name, s) in names.iter().zip(per_set) {
        let gain = |m: usize| s[m].information - s[2].information;
        println!("| {name} | {:.4} | {:+.4} | {:.4} | {:+.4} |", s[1].skewness, gain(1), s[0].skewness, gain(0));
    }
    args.plot.figures("skewgp_pmlb")?.scatter_step(
        "fig10",
        &format!("Fig. 10: information gain over GP-EP against the posterior's skewness ({axis})"),
        (&format!("{axis} over the test points"), "information gain over GP-EP (bits)"),
        &panels,
    )
}

/// `--sets` as given, else every folder of `<root>/pmlb` (and `pmlb_multiclass`), by name.
fn resolve_sets(args: &Args, root: &Path) -> Result<Vec<String>> {
    if !args.sets.is_empty() {
        return Ok(args.sets.iter().map(|s| s.trim().replace('-', "_")).filter(|s| !s.is_empty()).collect());
    }
    let mut folders = vec!["pmlb"];
    if args.multiclass {
        folders.push("pmlb_multiclass");
    }
    let mut names = Vec::new();
    for folder in folders {
        names.extend(set_folders(root, folder)?);
    }
    Ok(names)
}

/// The rows of class 0 or 1 of set `name` (classes indexed in sorted label order).
fn load_binary(root: &Path, name: &str) -> Result<BinarySet> {
    let (table, _) = load_pmlb_classification(root, name)?;
    let keep: Vec<usize> = (0..table.table.n).filter(|&i| table.labels()[i] <= 1).collect();
    let table = table.select_rows(&keep)?;
    let y = table.labels().to_vec();
    if !(y.contains(&0) && y.contains(&1)) {
        return Err(Error::invalid("set", format!("{name} lacks class 0 or class 1")));
    }
    Ok(BinarySet { x: table.table.x, y, d: table.table.d })
}

/// Stratified folds: each class's rows shuffled (seeded) and dealt round-robin to `k` folds.
fn stratified_folds(y: &[usize], k: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
    if k < 2 {
        return Err(Error::invalid("folds", format!("need at least 2, got {k}")));
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut folds = vec![Vec::new(); k];
    let mut next = 0;
    for class in 0..2 {
        let mut rows: Vec<usize> = (0..y.len()).filter(|&i| y[i] == class).collect();
        rows.shuffle(&mut rng);
        for i in rows {
            folds[next % k].push(i);
            next += 1;
        }
    }
    Ok(folds)
}

/// Fold `f`'s parts: training rows (subsampled to `--max-train`), standardised with their
/// statistics; also the (training, test) row indices.
fn make_fold(args: &Args, set: &BinarySet, folds: &[Vec<usize>], f: usize) -> Result<(Fold, [Vec<usize>; 2])> {
    let test = folds[f].clone();
    let mut train: Vec<usize> =
        folds.iter().enumerate().filter(|(g, _)| *g != f).flat_map(|(_, r)| r.clone()).collect();
    train.sort_unstable();
    if args.max_train > 0 && train.len() > args.max_train {
        let labels: Vec<usize> = train.iter().map(|&i| set.y[i]).collect();
        let drop = 1.0 - args.max_train as f64 / train.len() as f64;
        let keep = stratified_split(&labels, drop, args.seed.wrapping_add(f as u64))?;
        train = keep.train.iter().map(|&k| train[k]).collect();
    }
    let d = set.d;
    let rows = |idx: &[usize]| -> Vec<f64> { idx.iter().flat_map(|&i| set.x[i * d..(i + 1) * d].to_vec()).collect() };
    let labels = |idx: &[usize]| -> Vec<f64> { idx.iter().map(|&i| set.y[i] as f64).collect() };
    let scaler = Standardiser::fit(&rows(&train), train.len(), d)?;
    let fold = Fold {
        x_train: scaler.transform(&rows(&train))?,
        y_train: train.iter().map(|&i| set.y[i]).collect(),
        x_test: scaler.transform(&rows(&test))?,
        y_test: labels(&test),
        d,
    };
    Ok((fold, [train, test]))
}

/// Appends one fold's row indices as a JSON line to `path`.
fn append_fold(path: &Path, name: &str, fold: usize, rows: &[Vec<usize>; 2]) -> Result<()> {
    append_json(path, &json!({ "set": name, "fold": fold, "train": rows[0], "test": rows[1] }))
}

/// Appends one JSON line to `path` (created if missing).
fn append_json(path: &Path, line: &serde_json::Value) -> Result<()> {
    use std::io::Write;
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    writeln!(file, "{line}").map_err(io)
}

/// Runs the methods on every fold of `set`; fold means per method.
fn run_set(args: &Args, figures: &Figures, name: &str, set: &BinarySet) -> Result<[Summary; 5]> {
    let folds = stratified_folds(&set.y, args.folds, args.seed)?;
    let (first, run) = fold_range(args)?;
    let mut scores: [Vec<Score>; 5] = Default::default();
    for f in first..first + run {
        let (fold, rows) = make_fold(args, set, &folds, f)?;
        if let Some(path) = &args.folds_out {
            append_fold(path, name, f, &rows)?;
        }
        let missing = Score {
            information: f64::NAN,
            accuracy: f64::NAN,
            seconds: f64::NAN,
            qmc: (f64::NAN, f64::NAN),
            skewness: f64::NAN,
            skewness_min: f64::NAN,
        };
        let wanted = |method: &str| args.methods.iter().any(|x| x == method);
        for (m, method) in METHODS.iter().enumerate() {
            let at_ep = AT_EP_KERNEL.contains(method);
            if !wanted(method) || at_ep {
                if !wanted("gpep") || !at_ep {
                    scores[m].push(missing);
                }
                continue;
            }
            let plot = (f == 0).then_some((figures, name));
            let (score, extra) = run_method(args, method, (&fold, name, f), args.seed.wrapping_add(f as u64), plot)?;
            if *method == "gpep" {
                for (k, extra) in extra.into_iter().enumerate() {
                    scores[3 + k].push(extra.unwrap_or(missing));
                }
            }
            if !args.opts.json {
                eprintln!(
                    "{name} fold {}/{} {method}: information {:.4}, accuracy {:.4}, {:.1} s",
                    f + 1,
                    args.folds,
                    score.information,
                    score.accuracy,
                    score.seconds
                );
            }
            scores[m].push(score);
        }
    }
    Ok(std::array::from_fn(|m| Summary::of(name, METHODS[m], &scores[m])))
}

/// Trains `method` on the fold's training part (`at`: the fold, its set's name and its index)
/// and scores its test predictions; for `gpep` also the scores of the [`AT_EP_KERNEL`] methods
/// that `--methods` asks for. With `plot` (the figures and the set's name), draws the method's
/// reliability diagram and training curve; with `--probs-out`, appends each method's test
/// probabilities.
fn run_method(
    args: &Args,
    method: &str,
    at: (&Fold, &str, usize),
    seed: u64,
    plot: Option<(&Figures, &str)>,
) -> Result<(Score, [Option<Score>; 2])> {
    let (fold, set_name, fold_index) = at;
    let record = |method: &str, prob: &[f64]| -> Result<()> {
        let Some(path) = &args.probs_out else { return Ok(()) };
        let y: Vec<usize> = fold.y_test.iter().map(|&y| usize::from(y > 0.5)).collect();
        append_json(path, &json!({ "set": set_name, "fold": fold_index, "method": method, "y": y, "p": prob }))
    };
    let draw = |prob: &[f64], history: &History| -> Result<()> {
        let Some((figures, set)) = plot else { return Ok(()) };
        let labels: Vec<usize> = fold.y_test.iter().map(|&y| usize::from(y > 0.5)).collect();
        let title = format!("{method} on {set}, fold 1");
        let probs = binary_probs(prob)?;
        figures.reliability(
            &format!("reliability_{set}_{method}"),
            &format!("{title}: test set"),
            &probs,
            2,
            &labels,
            10,
        )?;
        figures.curves(&format!("curves_{set}_{method}"), &format!("{title}: training"), &[(method, history)])
    };
    let (base, train_dev) = args.opts.devices()?;
    let (n, d) = (fold.y_train.len(), fold.d);
    let ell = median_distance(&fold.x_train, n, d, n, seed)?;
    let kernel = Rbf::ard(d, ell, 1.0, &train_dev)?;
    let x = matrix(fold.x_train.clone(), n, d, &train_dev)?;
    let x_test = matrix(fold.x_test.clone(), fold.y_test.len(), d, &base)?;
    let t0 = Instant::now();
    let prob = match method {
        "skew2" | "skew0" => {
            let config = skew_config(args, if method == "skew2" { 2 } else { 0 }, seed, n);
            let run = format!("{set_name}/fold{fold_index}/{method}");
            let train =
                args.skew.skew_train(n, seed, args.opts.progress()).with_checkpoint(args.skew.checkpoint.config(&run));
            let model = config.init(kernel, &x)?;
            let (fit, history) = model.fit(&x, &fold.y_train, &train)?;
            let posterior = fit.posterior().expect("a fit leaves its posterior");
            if !args.opts.json {
                let report = fit.fit_report().expect("a fit leaves its report");
                let tried: Vec<String> =
                    report.phase_objectives.iter().map(|(l, o)| format!("{l:?}: {o:.4}")).collect();
                eprintln!(
                    "{method}: phases {:?}, γ {:?}; phase screen {}; kept epoch (held-out NLL) {:?}",
                    fit.phases,
                    fit.gamma_host(),
                    tried.join(", "),
                    report.selected
                );
            }
            let prediction = skew_predict(args, &posterior, &x_test, &fold.y_test, seed)?;
            if args.predict != "skewness" {
                draw(&prediction.prob, &history)?;
                record(method, &prediction.prob)?;
            }
            prediction
        }
        _ => {
            let run = format!("{set_name}/fold{fold_index}/{method}");
            let (fitted, history) = fit_ep(args, kernel, (fold, &x), &train_dev, seed, &run)?;
            let prob = fitted.predict_proba(&Tensor::from_data(x_test.to_data(), &train_dev))?;
            let ep_s = t0.elapsed().as_secs_f64();
            draw(&prob, &history)?;
            record(method, &prob)?;
            let mut extra = [None; 2];
            for (k, at_ep) in AT_EP_KERNEL.iter().enumerate() {
                if !args.methods.iter().any(|m| m == at_ep) {
                    continue;
                }
                let t1 = Instant::now();
                let train = (&x, fold.y_train.as_slice());
                let prediction = if *at_ep == "skew0ep" {
                    skew0_at(args, fitted.kernel.valid(), train, &x_test, &fold.y_test, seed)?
                } else {
                    skew2_at(args, fitted.kernel.clone(), train, &x_test, &fold.y_test, seed)?
                };
                extra[k] = Some(prediction.score(&fold.y_test, t1.elapsed().as_secs_f64()));
                if args.predict != "skewness" {
                    record(at_ep, &prediction.prob)?;
                }
            }
            return Ok((score(&prob, &fold.y_test, ep_s), extra));
        }
    };
    Ok((prob.score(&fold.y_test, t0.elapsed().as_secs_f64()), [None; 2]))
}

/// A SkewGP posterior's test predictions (see [`skew_predict`]).
struct SkewPrediction {
    /// Test `p(y = 1)`; NaN with `--predict skewness`.
    prob: Vec<f64>,
    /// The lattice's standard error of the average information (bits) and its points per shift
    /// (NaN where not measured).
    qmc: (f64, f64),
    /// The largest skewness statistic `SS(x*)` over the test points (NaN with `--predict exact`).
    skewness: f64,
    /// The smallest `SS(x*)` over the test points (NaN with `--predict exact`).
    skewness_min: f64,
}

impl SkewPrediction {
    /// Exact predictions: no lin-ess draws, so no skewness statistic.
    fn exact(prob: Vec<f64>, qmc: (f64, f64)) -> Self {
        Self { prob, qmc, skewness: f64::NAN, skewness_min: f64::NAN }
    }

    /// The fold's [`Score`] for labels `y`; information and accuracy are NaN where the
    /// probabilities are (`--predict skewness`).
    fn score(&self, y: &[f64], seconds: f64) -> Score {
        let scored = score(&self.prob, y, seconds);
        let (information, accuracy) = if self.prob.iter().any(|p| p.is_nan()) {
            (f64::NAN, f64::NAN)
        } else {
            (scored.information, scored.accuracy)
        };
        Score {
            information,
            accuracy,
            qmc: self.qmc,
            skewness: self.skewness,
            skewness_min: self.skewness_min,
            ..scored
        }
    }
}

/// The SkewGP settings of the command line for latent dimension `s` on `n` training rows (no
/// lin-ess draws with `--predict exact`).
fn skew_config(args: &Args, s: i64, seed: u64, n: usize) -> SkewGpConfig {
    let config = args.skew.skew_config(s, n, seed);
    if args.predict == "exact" {
        config.with_samples(0)
    } else {
        config
    }
}

/// GP-EP (full: inducing inputs fixed at the training rows) trained by batch SEP, checkpointed in
/// the sub-folder `run` of `--checkpoint-dir`; with `--ep-validation`, [`fit_ep_selected`] (not
/// checkpointed: the best step it keeps lives outside the EP loop, so a resumed invocation
/// trains it again from the start).
fn fit_ep(
    args: &Args,
    kernel: Rbf,
    (fold, x): (&Fold, &Tensor<2>),
    train_dev: &Device,
    seed: u64,
    run: &str,
) -> Result<(EpGpClassifier<Rbf>, History)> {
    if args.ep_validation {
        return fit_ep_selected(args, kernel, fold, x, train_dev, seed);
    }
    let inducing = InducingPoints::new(&fold.x_train, fold.y_train.len(), fold.d, train_dev)?;
    args.skew.fit_ep(kernel, inducing, x, &fold.y_train, (seed, args.opts.progress()), run)
}

/// GP-EP with its hyperparameter step chosen as the skew GPs choose their epoch: batch SEP on
/// the rows the `--validation` hold-out leaves (the split `SkewGpConfig` makes with the same
/// seed), the held-out rows' mean log predictive probability every `--validate-every` steps,
/// the best step's kernel and noise kept (also when a later step fails: training then ends
/// there); then parallel EP to convergence (the config's damping, tolerance and pass limit) on all
/// training rows `x` at them. The history is the hold-out run's (empty after a
/// failed step).
fn fit_ep_selected(
    args: &Args,
    kernel: Rbf,
    fold: &Fold,
    x: &Tensor<2>,
    train_dev: &Device,
    seed: u64,
) -> Result<(EpGpClassifier<Rbf>, History)> {
    let fraction = args.skew.validation;
    if fraction <= 0.0 {
        return Err(Error::invalid("ep_validation", "needs a hold-out: set --validation to a fraction in (0, 1)"));
    }
    let d = fold.d;
    // The rows the skew GPs hold out with the same seed.
    let split = skew_config(args, 0, seed, fold.y_train.len())
        .holdout_split(&fold.y_train)?
        .ok_or_else(|| Error::invalid("ep_validation", "the hold-out is empty"))?;
    let rows =
        |idx: &[usize]| -> Vec<f64> { idx.iter().flat_map(|&i| fold.x_train[i * d..(i + 1) * d].to_vec()).collect() };
    let labels = |idx: &[usize]| -> Vec<usize> { idx.iter().map(|&i| fold.y_train[i]).collect() };
    let (fit_rows, fit_y) = (rows(&split.train), labels(&split.train));
    let (held_x, held_y) = (matrix(rows(&split.test), split.test.len(), d, train_dev)?, labels(&split.test));
    let x_fit = matrix(fit_rows.clone(), fit_y.len(), d, train_dev)?;
    let inducing = InducingPoints::new(&fit_rows, fit_y.len(), d, train_dev)?.no_grad();
    let model_config = skew::SkewOptions::ep_config().with_evaluate_every(args.skew.validate_every);
    let model = model_config.init(kernel, inducing, train_dev)?;
    let config = args.skew.ep_train(seed, args.opts.progress());
    let mut best: Option<(usize, f64, EpGpClassifier<Rbf>)> = None;
    let fit = model.fit_evaluated(&x_fit, &fit_y, &config, |model, q, step| {
        let nll = -mean(&model.predict_log_density_with(&held_x, &held_y, q)?);
        if best.as_ref().is_none_or(|b| nll < b.1) {
            best = Some((step, nll, model.clone()));
        }
        Ok(vec![("held_out_nll".into(), nll)])
    });
    // A step that fails (non-finite, after the trainer's back-offs) ends training early, as the
    // hold-out would: the best step scored before it is kept. Without one, the error stands.
    let history = match fit {
        Ok((_, history)) => history,
        Err(e @ Error::NonFinite { .. }) if best.is_some() => {
            eprintln!("gpep: training stopped early ({e}); the best step scored before is kept");
            History::default()
        }
        Err(e) => return Err(e),
    };
    let (step, nll, mut model) =
        best.ok_or_else(|| Error::invalid("ep_validation", "the hold-out was never scored"))?;
    eprintln!("gpep: kept step {step} of {} (held-out NLL {nll:.4})", args.skew.ep_iterations);
    let n = fold.y_train.len();
    model.inducing = InducingPoints::new(&fold.x_train, n, d, train_dev)?.no_grad();
    let fitc = model.fitc(x)?;
    let signs = signed_binary_labels(&fold.y_train)?;
    let mut sites = EpSites::zeros(n);
    let schedule = model_config.schedule;
    run_ep(&fitc, &signs, &mut sites, schedule.damping_or_default(), schedule.ep_tolerance, schedule.max_ep_passes)?;
    Ok((model.with_sites(x, &fold.y_train, sites)?, history))
}

/// SkewGP0's exact posterior with a given kernel, trained on `(x, y)`: its test predictions
/// (see [`skew_predict`]).
fn skew0_at(
    args: &Args,
    kernel: Rbf,
    (x, y): (&Tensor<2>, &[usize]),
    x_test: &Tensor<2>,
    y_test: &[f64],
    seed: u64,
) -> Result<SkewPrediction> {
    let config = skew_config(args, 0, seed, y.len());
    let prior = SkewGp::new(kernel, &[], &[], &[], config.nugget_on(&x_test.device()), &x_test.device())?;
    let mut posterior = SkewGpPosterior::new(prior, x.clone().inner(), y)?;
    if config.samples > 0 {
        posterior.sample(&config.chain_config(), config.variant, config.chain_start)?;
    }
    skew_predict(args, &posterior, x_test, y_test, seed)
}

/// Test `p(y = 1)` of a SkewGP posterior by `--predict`: the exact Corollary 2 ratios, or route B
/// over the posterior's lin-ess draws (`sampled`; with `skewness` the probabilities are NaN and
/// only the skewness statistic is kept); with the standard error (bits) of the average
/// information on `y_test` due to the lattice and the lattice's points per shift (NaN where not
/// measured), and the largest skewness statistic over the test points (route B only). With
/// `--tilt-below P > 0` the exact probabilities whose `p` or `1 − p` is below P are then
/// re-estimated by minimax tilting ([`SkewGpPosterior::refine_small_probabilities`]), and one
/// line on stderr says how many, the information before and after and the seconds.
fn skew_predict(
    args: &Args,
    posterior: &SkewGpPosterior<Rbf>,
    x_test: &Tensor<2>,
    y_test: &[f64],
    seed: u64,
) -> Result<SkewPrediction> {
    if args.predict != "exact" {
        let details = posterior.predict_details(x_test)?;
        let skewness = details.skewness.iter().copied().fold(f64::NAN, f64::max);
        let skewness_min = details.skewness.iter().copied().fold(f64::NAN, f64::min);
        let prob = if args.predict == "skewness" { vec![f64::NAN; details.prob.len()] } else { details.prob };
        return Ok(SkewPrediction { prob, qmc: (f64::NAN, f64::NAN), skewness, skewness_min });
    }
    let (mut prob, qmc) = exact_lattice(args, posterior, x_test, y_test, seed)?;
    if args.tilt_below > 0.0 {
        let t0 = Instant::now();
        let dim = posterior.gamma_tilde().len() + 1;
        let points = QmcPoints::lattice(dim, args.tilt_points, args.exact_shifts.max(1), seed ^ 0x7117)?;
        let before = score(&prob, y_test, 0.0).information;
        let refined = posterior.refine_small_probabilities(x_test, &mut prob, args.tilt_below, &points)?;
        eprintln!(
            "tilted: {refined} of {} test points below {}, information {before:.4} → {:.4} bits, {:.0} s",
            y_test.len(),
            args.tilt_below,
            score(&prob, y_test, 0.0).information,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(SkewPrediction::exact(prob, qmc))
}

/// The exact predictions of [`skew_predict`] by the shared lattice pass, with `(standard error,
/// points per shift)`.
///
/// With `--exact-se B > 0` each of the `--exact-shifts` shifts is its own estimate (one shift,
/// `points` points): their informations' standard error of the mean must be at most `B`, else
/// `points` doubles, up to `--exact-max-points`. The probabilities are the shifts' mean. Each
/// pass prints one line to stderr: its lattice, the information of its probabilities, standard
/// error, target, the seconds so far and whether it is kept or doubled.
fn exact_lattice(
    args: &Args,
    posterior: &SkewGpPosterior<Rbf>,
    x_test: &Tensor<2>,
    y_test: &[f64],
    seed: u64,
) -> Result<(Vec<f64>, (f64, f64))> {
    let dim = posterior.gamma_tilde().len() + 1;
    if args.exact_se <= 0.0 {
        let points = QmcPoints::lattice(dim, args.exact_points, args.exact_shifts, seed ^ 0xc02)?;
        return Ok((posterior.predict_exact(x_test, &points)?, (f64::NAN, args.exact_points as f64)));
    }
    let shifts = args.exact_shifts.max(2);
    let mut points = args.exact_points.max(1);
    let t0 = Instant::now();
    loop {
        let estimates = (0..shifts)
            .map(|r| {
                let lattice = QmcPoints::lattice(dim, points, 1, seed ^ 0xc02 ^ ((r as u64 + 1) << 32))?;
                posterior.predict_exact(x_test, &lattice)
            })
            .collect::<Result<Vec<_>>>()?;
        let info: Vec<f64> = estimates.iter().map(|p| score(p, y_test, 0.0).information).collect();
        let se = standard_error(&info).expect("two shifts or more");
        let done = se <= args.exact_se || points * 2 > args.exact_max_points;
        let prob: Vec<f64> =
            (0..y_test.len()).map(|j| mean(&estimates.iter().map(|p| p[j]).collect::<Vec<_>>())).collect();
        // Say where the loop stands, and what this lattice's probabilities score (a small
        // lattice's estimate can sit below a larger one's by more than its standard error).
        eprintln!(
            "exact ratio: {points} points × {shifts} shifts on {} test points, information {:.4} bits, s.e. {se:.4} bits (target {}), {:.0} s; {}",
            y_test.len(),
            score(&prob, y_test, 0.0).information,
            args.exact_se,
            t0.elapsed().as_secs_f64(),
            if done { "kept".to_string() } else { format!("doubling to {}", points * 2) }
        );
        if done {
            return Ok((prob, (se, points as f64)));
        }
        points *= 2;
    }
}

/// SkewGP2 with `kernel` (on the autodiff device) held fixed: `R`, `γ` and the phases trained by
/// the block-composite objective, then its posterior's test `p(y = 1)`. Errors if the kernel moved.
fn skew2_at(
    args: &Args,
    kernel: Rbf,
    (x, y): (&Tensor<2>, &[usize]),
    x_test: &Tensor<2>,
    y_test: &[f64],
    seed: u64,
) -> Result<SkewPrediction> {
    let config = skew_config(args, 2, seed, y.len());
    let kernel = kernel.no_grad();
    let before = flatten_params(&kernel);
    let model = config.init(kernel, x)?;
    let (fit, _) = model.fit(x, y, &args.skew.skew_train(y.len(), seed, args.opts.progress()))?;
    let after = flatten_params(&fit.kernel);
    if let Some(k) = before.iter().zip(&after).position(|(a, b)| a != b) {
        return Err(Error::invalid(
            "skew2ep",
            format!("frozen kernel parameter {k} changed: {} → {}", before[k], after[k]),
        ));
    }
    skew_predict(args, &fit.posterior().expect("a fit leaves its posterior"), x_test, y_test, seed)
}

/// Average information in bits and accuracy of probabilities `prob` for labels `y ∈ {0, 1}`.
fn score(prob: &[f64], y: &[f64], seconds: f64) -> Score {
    let n = y.len().max(1) as f64;
    let information = prob
        .iter()
        .zip(y)
        .map(|(p, y)| {
            let p = p.clamp(1e-12, 1.0 - 1e-12);
            1.0 + y * p.log2() + (1.0 - y) * (1.0 - p).log2()
        })
        .sum::<f64>()
        / n;
    let hits = prob.iter().zip(y).filter(|(p, y)| (**p > 0.5) == (**y > 0.5)).count();
    let accuracy = hits as f64 / n;
    Score { information, accuracy, seconds, qmc: (f64::NAN, f64::NAN), skewness: f64::NAN, skewness_min: f64::NAN }
}

/// Prints a set's markdown row (and its JSON line with `--json`).
fn print_set_line(args: &Args, name: &str, rows: usize, d: usize, (first, folds): (usize, usize), s: &[Summary; 5]) {
    println!(
        "| {name} | {rows} | {d} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} | {:.4} |",
        s[0].information,
        s[1].information,
        s[2].information,
        s[3].information,
        s[4].information,
        s[0].accuracy,
        s[1].accuracy,
        s[2].accuracy,
        s[4].accuracy
    );
    if args.opts.json {
        println!(
            "{}",
            json!({
                "set": name, "rows": rows, "features": d,
                "folds": folds, "first_fold": first,
                "info_skew2": num(s[0].information), "info_skew0": num(s[1].information), "info_gpep": num(s[2].information),
                "acc_skew2": num(s[0].accuracy), "acc_skew0": num(s[1].accuracy), "acc_gpep": num(s[2].accuracy),
                "time_skew2_s": num(s[0].seconds), "time_skew0_s": num(s[1].seconds), "time_gpep_s": num(s[2].seconds),
                "info_skew0ep": num(s[3].information), "acc_skew0ep": num(s[3].accuracy),
                "info_skew2ep": num(s[4].information), "acc_skew2ep": num(s[4].accuracy),
                "qmc_se_skew2": num(s[0].qmc.0), "qmc_se_skew0": num(s[1].qmc.0), "qmc_se_skew0ep": num(s[3].qmc.0),
                "qmc_points_skew2": num(s[0].qmc.1), "qmc_points_skew0": num(s[1].qmc.1),
                "qmc_points_skew0ep": num(s[3].qmc.1),
                "ss_max_skew2": num(s[0].skewness), "ss_max_skew0": num(s[1].skewness),
                "ss_max_skew0ep": num(s[3].skewness), "ss_max_skew2ep": num(s[4].skewness),
                "ss_min_skew2": num(s[0].skewness_min), "ss_min_skew0": num(s[1].skewness_min),
                "ss_min_skew0ep": num(s[3].skewness_min), "ss_min_skew2ep": num(s[4].skewness_min),
            })
        );
    }
}

/// Reports a set that could not be run (stderr, and a JSON line with `--json`).
fn report_failure(args: &Args, name: &str, e: &Error) {
    eprintln!("{name}: {e}");
    if args.opts.json {
        println!("{}", json!({ "set": name, "error": e.to_string() }));
    }
}
