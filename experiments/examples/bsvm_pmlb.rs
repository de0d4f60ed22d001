//! The paper's structured-data experiment (Wistuba & Rawat 2018, §4.1): the multi-class
//! Bayesian SVM (`mc_bsvm`), one-vs-rest binary Bayesian SVMs (`ovr_bsvm`) and an SVGP with the
//! robust-max likelihood (`svgp`) on the PMLB multi-class sets, trained on the same splits from
//! the same initial kernel and inducing inputs; test accuracy and training time per set, then the
//! mean ranks over sets (paper, Table 1: MC-BSVM 1.68, OvR 1.96, SVGP 2.33), win/tie/loss counts
//! per pair and MC-BSVM's speed-up over the others.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example bsvm_pmlb                      # paper protocol: every set, 5 splits, 1000 epochs
//! cargo run --release -p burn-gp-experiments --example bsvm_pmlb -- --sets iris,wine_recognition,glass --splits 1 --epochs 100
//! cargo run --release -p burn-gp-experiments --example bsvm_pmlb -- --max-rows 2000 --max-train 2000 --splits 1 --epochs 150 --json
//! cargo run --release -p burn-gp-experiments --example bsvm_pmlb -- --sets iris --export /tmp/exp   # input of benches/peers/gpflow_multiclass.py
//! cargo run --release -p burn-gp-experiments --example bsvm_pmlb -- --summarise a.jsonl,b.jsonl     # tables of earlier --json runs
//! ```
//!
//! Protocol: every set in `<data>/pmlb_multiclass` (66 of the paper's 68; `--sets a,b,c` for a
//! subset, `--max-rows N` to skip bigger sets), `--splits K` stratified 80/20 splits with seeds
//! `seed..seed+K-1` (`--first-split F`: splits `F..F+K-1`, seeds from `seed+F`), z-scored with the training statistics (`--max-train N` subsamples larger
//! training parts, stratified and seeded; the per-set lines say when). The three methods share the
//! initial ARD RBF kernel (σ² = 1, median-heuristic lengthscale) and P = `--m` (default 64, capped
//! at the training rows) k-means inducing inputs; all train them with the kernel by Adam (lr 5e-4,
//! batch 128, 1000 epochs: the paper's settings) on the same minibatch order. The Bayesian SVMs
//! start from `q(u)` = prior with tiny random means (the one-vs-rest model `c` with seed + c), the
//! SVGP from zero means as GPflow does. Decisions: `argmax_c` of the latent means (Bayesian SVMs),
//! of the predicted class probabilities (SVGP). Ranks are per set on the mean test accuracy over
//! the splits where every method succeeded, ties averaged; speed-ups compare training seconds.
//! A set with fewer than `--splits` such splits (a failed split, or a set still being run in
//! parts) is in the per-set table but not in the ranks, means, sign tests or speed-ups.
//!
//! `--json`: stdout has one line per set × split × method,
//! `{"set","split","method":"mc_bsvm"|"ovr_bsvm"|"svgp","accuracy","train_s","epoch_s","classes","n_train",…}`
//! (also `n_train_full`, `train_cpu_s` (CPU seconds of all threads, on Linux), `nll` for the
//! SVGP, `epoch_times_s`; `epoch_s` is the mean of epochs 2..E; a failed run has an `error` key instead of the metrics, a set that could not be loaded
//! `"split": null`), and as its last line
//! `{"example":"bsvm_pmlb","sets":…,"mean_rank_mc_bsvm":…,"mean_rank_ovr_bsvm":…,"mean_rank_svgp":…,"median_speedup_vs_svgp":…,"max_speedup_vs_svgp":…,"median_speedup_vs_ovr":…,"max_speedup_vs_ovr":…,"wins":{…},…}`
//! (`se_rank_<method>`: standard error of the mean rank over sets; `sign_test_p`: per pair of
//! methods, the two-sided sign test's p-value of the per-set win/loss counts in `wins`, ties
//! dropped; speed-ups: ratios of training wall seconds per set; `median_cpu_speedup_vs_svgp` etc. the same
//! for CPU seconds, which a busy machine distorts less; `failed`: sets that could not be loaded
//! or have no split every method finished; `partial`: sets with fewer than `--splits` such
//! splits, left out of the ranks).
//! `--export DIR` writes `DIR/<set>/split<k>/{x_train,x_test,y_train,y_test,z}.csv` and
//! `meta.json` (the layout of benches/peers/README.md). `--csv FILE` writes every set × split ×
//! method row. `--summarise FILES` trains nothing and prints the tables of the `--json` lines saved
//! by earlier runs, e.g. of chunks of sets run one after another or on several machines (the full
//! protocol, 66 sets × 5 splits × 1000 epochs, is days of CPU; the SVGP's cost grows with C).
//! `--plot DIR` writes, from the first split of each set, each method's reliability diagram of
//! the test predictions (`bsvm_pmlb_reliability_<set>_<method>.svg`, 10 bins; the BSVMs'
//! probabilities by Gauss–Hermite over their latent marginals) and training curves
//! (`bsvm_pmlb_curves_<set>_<method>.svg`, one line per binary model for OvR).
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::data_root;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::{one_hot, BinaryHinge, Likelihood, MultiClassHinge, RobustMax};
use burn_gp::metrics;
use burn_gp::models::{BayesianSvmConfig, OneVsRestBsvm, Svgp, SvgpConfig};
use burn_gp::tensors::matrix;
use burn_gp::train::{fit, History, TrainConfig};
use burn_gp::{Error, Result};
use clap::{Parser, ValueEnum};
use common::plot::Figures;
use serde_json::{json, Map, Value};

use burn_gp_experiments::common;
use burn_gp_experiments::tabular;

use tabular::{class_predictive, mean, median, num, predict_host, InitParts, Split, TabularSet};

/// The compared methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
enum Method {
    /// Multi-class Bayesian SVM (this paper).
    #[value(name = "mc_bsvm")]
    McBsvm,
    /// One-vs-rest binary Bayesian SVMs (Wenzel et al. 2017).
    #[value(name = "ovr_bsvm")]
    OvrBsvm,
    /// SVGP with the robust-max likelihood (Hensman et al. 2015).
    #[value(name = "svgp")]
    Svgp,
}

impl Method {
    /// Key in the JSON lines.
    fn key(self) -> &'static str {
        match self {
            Method::McBsvm => "mc_bsvm",
            Method::OvrBsvm => "ovr_bsvm",
            Method::Svgp => "svgp",
        }
    }
    /// Name in the tables.
    fn label(self) -> &'static str {
        match self {
            Method::McBsvm => "MC-BSVM",
            Method::OvrBsvm => "OvR-BSVM",
            Method::Svgp => "SVGP",
        }
    }
    /// Short key in the speed-up names (`median_speedup_vs_ovr`).
    fn short(self) -> &'static str {
        match self {
            Method::McBsvm => "mc",
            Method::OvrBsvm => "ovr",
            Method::Svgp => "svgp",
        }
    }
    /// Mean rank in the paper's Table 1.
    fn paper_rank(self) -> f64 {
        match self {
            Method::McBsvm => 1.68,
            Method::OvrBsvm => 1.96,
            Method::Svgp => 2.33,
        }
    }
}

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "Multi-class Bayesian SVM vs one-vs-rest BSVM vs SVGP on the PMLB multi-class sets (paper §4.1)")]
struct Args {
    /// Set selection: --sets, --max-rows, --max-train.
    #[command(flatten)]
    selection: tabular::SetOptions,
    /// Stratified 80/20 splits per set (seeds seed..seed+K-1); with `--summarise`, the splits a
    /// set needs to be ranked.
    #[arg(long, default_value_t = 5)]
    splits: usize,
    /// Index of the first split to run: splits F..F+K-1 (seeds seed+F..), e.g. to add the splits
    /// an interrupted run did not reach.
    #[arg(long, default_value_t = 0)]
    first_split: usize,
    /// Inducing points P (capped at the training rows).
    #[arg(long, default_value_t = 64)]
    m: usize,
    /// Initial diagonal of every method's whitened `q(u)` square root: 1 (the default, the paper's
    /// GPflow start) is the prior; smaller starts the latent functions with less variance.
    #[arg(long, default_value_t = 1.0)]
    q_sqrt_init: f64,
    /// Methods to run (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Method::McBsvm, Method::OvrBsvm, Method::Svgp])]
    methods: Vec<Method>,
    /// Write every split's data, initial inducing inputs and settings under DIR (benches/peers layout).
    #[arg(long)]
    export: Option<PathBuf>,
    /// Train nothing: summarise the `--json` output of earlier runs saved in these files
    /// (comma-separated; for a set × split × method seen twice the later line wins).
    #[arg(long, value_delimiter = ',')]
    summarise: Vec<PathBuf>,
    /// Shared options: batch, epochs, lr, seed, data, device, precision, csv (all rows), json, no-progress, plot.
    #[command(flatten)]
    run: common::RunOptions,
    /// Checkpoints: --checkpoint-dir DIR (each run in `DIR/<set>/split<k>/<method>/`, the
    /// one-vs-rest models in its `class<c>/`), --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
}

/// Result of one method on one split.
struct Outcome {
    /// Test accuracy.
    accuracy: f64,
    /// Wall seconds of training.
    train_s: f64,
    /// CPU seconds of training (user + system, all threads), where the OS reports them.
    cpu_s: Option<f64>,
    /// Mean seconds per epoch over epochs 2..E (epoch 1 carries one-off costs), as the GPflow script.
    epoch_s: f64,
    /// Seconds of each epoch's optimisation steps (summed over the binary models for OvR).
    epoch_times: Vec<f64>,
    /// Test negative log predictive probability (SVGP only).
    nll: Option<f64>,
}

impl Outcome {
    /// An outcome with the epoch times of `histories` (summed element-wise: the OvR models).
    fn new(accuracy: f64, time: Timing, histories: &[History], nll: Option<f64>) -> Self {
        let epochs = histories.iter().map(|h| h.records.len()).max().unwrap_or(0);
        let epoch_times: Vec<f64> =
            (0..epochs).map(|e| histories.iter().filter_map(|h| h.records.get(e)).map(|r| r.epoch_s).sum()).collect();
        let epoch_s = mean(if epoch_times.len() > 1 { &epoch_times[1..] } else { &epoch_times });
        Self { accuracy, train_s: time.wall_s, cpu_s: time.cpu_s, epoch_s, epoch_times, nll }
    }
}

/// One method's run on one set and split (`split = None`: the set failed before splitting).
struct Record {
    set: String,
    split: Option<usize>,
    method: Method,
    classes: usize,
    n_train: usize,
    n_train_full: usize,
    outcome: std::result::Result<Outcome, String>,
}

impl Record {
    /// The JSON line of the peer-script contract.
    fn json(&self) -> Value {
        let mut line = json!({
            "set": self.set,
            "split": self.split,
            "method": self.method.key(),
            "classes": self.classes,
            "n_train": self.n_train,
            "n_train_full": self.n_train_full,
        });
        let obj = line.as_object_mut().expect("object literal");
        match &self.outcome {
            Ok(o) => {
                obj.insert("accuracy".into(), num(o.accuracy));
                obj.insert("train_s".into(), num(o.train_s));
                if let Some(cpu) = o.cpu_s {
                    obj.insert("train_cpu_s".into(), num(cpu));
                }
                obj.insert("epoch_s".into(), num(o.epoch_s));
                if let Some(nll) = o.nll {
                    obj.insert("nll".into(), num(nll));
                }
                obj.insert(
                    "epoch_times_s".into(),
                    o.epoch_times.iter().map(|&t| num((t * 1e6).round() / 1e6)).collect(),
                );
            }
            Err(e) => {
                obj.insert("error".into(), json!(e));
            }
        }
        line
    }
}

/// Each selected method's outcome on one split.
type MethodRuns = Vec<(Method, Result<Outcome>)>;

/// Devices and the trainer settings of the run.
struct Ctx<'a> {
    args: &'a Args,
    train: Device,
    base: Device,
    config: TrainConfig,
    /// `--plot` figures.
    figures: Figures,
}

/// Wall and CPU seconds of a piece of work.
struct Timing {
    wall_s: f64,
    cpu_s: Option<f64>,
}

/// CPU seconds (user + system, all threads) this process has used, from `/proc/self/stat`
/// (Linux; `None` elsewhere). Robust to other jobs on a busy machine, unlike wall time.
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name in parentheses start at field 3; utime, stime are 14 and 15.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0) // USER_HZ: 100 on Linux
}

/// Runs `work`, timing it.
fn timed<T>(work: impl FnOnce() -> Result<T>) -> Result<(T, Timing)> {
    let (t0, c0) = (Instant::now(), process_cpu_s());
    let out = work()?;
    let cpu_s = c0.zip(process_cpu_s()).map(|(a, b)| b - a);
    Ok((out, Timing { wall_s: t0.elapsed().as_secs_f64(), cpu_s }))
}

/// Trains an SVGP-family model by the shared Adam trainer on `x` and targets `y`; returns it
/// without autodiff, its history and the training time.
fn train_adam<L: Likelihood>(
    model: Svgp<Rbf, InducingPoints, L>,
    x: &Tensor<2>,
    y: &Tensor<2>,
    config: &TrainConfig,
) -> Result<(Svgp<Rbf, InducingPoints, L>, History, Timing)> {
    let n = x.dims()[0];
    let ((model, history), time) =
        timed(|| fit(model, n, config, |m, idx| m.minibatch_loss(x, y, idx), |_, _| Ok(Vec::new())))?;
    Ok((model.valid(), history, time))
}

/// Trains and tests `method` on `split` from the initial `parts`; with `plot` (the set's name),
/// draws its reliability diagram and training curves.
fn run_method(
    ctx: &Ctx,
    method: Method,
    split: &Split,
    (cfg, parts, config): (&BayesianSvmConfig, &InitParts, &TrainConfig),
    plot: Option<&str>,
) -> Result<Outcome> {
    let (n, d, c) = (split.n_train(), split.d, split.classes);
    let draw = |probs: &dyn Fn() -> Vec<f64>, histories: &[(String, &History)]| -> Result<()> {
        let Some(set) = plot.filter(|_| ctx.figures.enabled()) else { return Ok(()) };
        let (key, title) = (method.key(), format!("{} on {set}, split 0", method.label()));
        let figure = format!("reliability_{set}_{key}");
        ctx.figures.reliability(&figure, &format!("{title}: test set"), &probs(), c, &split.y_test, 10)?;
        let runs: Vec<(&str, &History)> = histories.iter().map(|(name, h)| (name.as_str(), *h)).collect();
        ctx.figures.curves(&format!("curves_{set}_{key}"), &format!("{title}: training"), &runs)
    };
    let dev = &ctx.train;
    let x = matrix(split.x_train.clone(), n, d, dev)?;
    match method {
        Method::McBsvm => {
            let y = one_hot(&split.y_train, c, dev)?;
            let model = parts.model(cfg, MultiClassHinge::default(), c, n, dev)?;
            let (model, history, time) = train_adam(model, &x, &y, config)?;
            let pred = class_predictive(&split.x_test, d, &ctx.base, |xt| model.predict_f(xt))?;
            let accuracy = tabular::accuracy(&pred.classes(), &split.y_test);
            draw(&|| pred.gh_probabilities(32), &[(method.key().to_string(), &history)])?;
            Ok(Outcome::new(accuracy, time, &[history], None))
        }
        Method::OvrBsvm => {
            let models = (0..c)
                .map(|j| parts.model(&cfg.clone().with_seed(cfg.seed + j as u64), BinaryHinge::default(), 1, n, dev))
                .collect::<Result<Vec<_>>>()?;
            let ((ovr, history), time) = timed(|| OneVsRestBsvm { models }.fit(&x, &split.y_train, config))?;
            let ovr = ovr.valid();
            let pred = class_predictive(&split.x_test, d, &ctx.base, |xt| ovr.predict_f(xt))?;
            let accuracy = tabular::accuracy(&pred.classes(), &split.y_test);
            draw(&|| pred.gh_probabilities(32), &[(method.key().to_string(), &history)])?;
            Ok(Outcome::new(accuracy, time, &[history], None))
        }
        Method::Svgp => {
            let y = one_hot(&split.y_train, c, dev)?;
            let model = SvgpConfig::new(n)
                .with_num_latent(c)
                .with_jitter(parts.jitter)
                .with_q_sqrt_init(cfg.q_sqrt_init)
                .init(parts.kernel(dev)?, parts.inducing(dev)?, RobustMax::default(), dev)?;
            let (model, history, time) = train_adam(model, &x, &y, config)?;
            let (probs, _) = predict_host(&split.x_test, d, &ctx.base, |xt| model.predict_y(xt))?;
            let accuracy = metrics::accuracy(&probs, c, &split.y_test)?;
            draw(&|| probs.clone(), &[(method.key().to_string(), &history)])?;
            Ok(Outcome::new(accuracy, time, &[history], Some(metrics::nll(&probs, c, &split.y_test)?)))
        }
    }
}

/// Writes a row-major `[n, d]` matrix (or a label column with `d = 1`) as headerless CSV.
fn write_csv_rows<T: std::fmt::Display>(path: &Path, values: &[T], d: usize) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for row in values.chunks(d.max(1)) {
        let line: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        writeln!(f, "{}", line.join(",")).map_err(io)?;
    }
    f.flush().map_err(io)
}

/// Writes `DIR/<set>/split<k>/` as benches/peers/README.md specifies.
fn export(ctx: &Ctx, dir: &Path, set: &str, k: usize, split: &Split, parts: &InitParts, seed: u64) -> Result<()> {
    let folder = dir.join(set).join(format!("split{k}"));
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io { path: folder.clone(), source })?;
    write_csv_rows(&folder.join("x_train.csv"), &split.x_train, split.d)?;
    write_csv_rows(&folder.join("x_test.csv"), &split.x_test, split.d)?;
    write_csv_rows(&folder.join("y_train.csv"), &split.y_train, 1)?;
    write_csv_rows(&folder.join("y_test.csv"), &split.y_test, 1)?;
    write_csv_rows(&folder.join("z.csv"), &parts.z, split.d)?;
    let run = &ctx.args.run;
    let meta = json!({
        "set": set,
        "split": k,
        "classes": split.classes,
        "lengthscale": parts.lengthscales[0],
        "variance": parts.variance,
        "num_inducing": parts.p,
        "epochs": run.epochs,
        "batch": run.batch,
        "lr": run.lr,
        "seed": seed,
        "n_train_full": split.train_full,
    });
    let path = folder.join("meta.json");
    std::fs::write(&path, format!("{meta}\n")).map_err(|source| Error::Io { path, source })
}

/// Runs every selected method on split `k` of `set`; `Err` when the split or the shared
/// initialisation failed (then no method ran).
fn run_split(ctx: &Ctx, set: &TabularSet, k: usize) -> Result<(Split, MethodRuns)> {
    let seed = ctx.args.run.seed + k as u64;
    let split = set.split(seed, ctx.args.selection.max_train)?;
    let p = ctx.args.m.min(split.n_train());
    let cfg = BayesianSvmConfig::tabular(split.classes)
        .with_num_inducing(p)
        .with_seed(seed)
        .with_q_sqrt_init(ctx.args.q_sqrt_init);
    let parts = InitParts::place(&cfg, &split.x_train, split.d, &ctx.train)?;
    if let Some(dir) = &ctx.args.export {
        export(ctx, dir, &set.name, k, &split, &parts, seed)?;
    }
    let config = TrainConfig { seed, ..ctx.config.clone() };
    let plot = (k == 0).then_some(set.name.as_str());
    let outcomes = ctx
        .args
        .methods
        .iter()
        .map(|&m| {
            let checkpoint = ctx.args.checkpoint.config(&format!("{}/split{k}/{}", set.name, m.key()));
            let config = TrainConfig { checkpoint, ..config.clone() };
            (m, run_method(ctx, m, &split, (&cfg, &parts, &config), plot))
        })
        .collect();
    Ok((split, outcomes))
}

/// Prints a record's JSON line (with `--json`) and keeps it.
fn emit(ctx: &Ctx, records: &mut Vec<Record>, record: Record) {
    if ctx.args.run.json {
        println!("{}", record.json());
    }
    records.push(record);
}

/// Per-set means over the splits on which every method succeeded.
struct SetResult {
    name: String,
    classes: usize,
    n_train: usize,
    splits: usize,
    /// Per method, means over those splits.
    by_method: BTreeMap<Method, MethodMean>,
}

/// One method's means over a set's splits.
struct MethodMean {
    accuracy: f64,
    train_s: f64,
    /// NaN when some split has no CPU time.
    cpu_s: f64,
}

/// Collects the sets every method finished on at least one split; the others are named in `failed`.
fn set_results(records: &[Record], methods: &[Method]) -> (Vec<SetResult>, Vec<String>) {
    let mut order: Vec<&str> = Vec::new();
    for r in records {
        if !order.contains(&r.set.as_str()) {
            order.push(&r.set);
        }
    }
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for name in order {
        let rows: Vec<&Record> = records.iter().filter(|r| r.set == name).collect();
        let mut splits: Vec<usize> = rows.iter().filter_map(|r| r.split).collect();
        splits.sort_unstable();
        splits.dedup();
        splits.retain(|&k| {
            methods.iter().all(|&m| rows.iter().any(|r| r.split == Some(k) && r.method == m && r.outcome.is_ok()))
        });
        if splits.is_empty() {
            failed.push(name.to_string());
            continue;
        }
        let ok = |m: Method| -> Vec<&Outcome> {
            rows.iter()
                .filter(|r| r.method == m && r.split.is_some_and(|k| splits.contains(&k)))
                .filter_map(|r| r.outcome.as_ref().ok())
                .collect()
        };
        let by_method = methods
            .iter()
            .map(|&m| {
                let o = ok(m);
                let avg = |f: &dyn Fn(&Outcome) -> f64| mean(&o.iter().map(|x| f(x)).collect::<Vec<_>>());
                let cpu_s =
                    if o.iter().all(|x| x.cpu_s.is_some()) { avg(&|x| x.cpu_s.unwrap_or(0.0)) } else { f64::NAN };
                (m, MethodMean { accuracy: avg(&|x| x.accuracy), train_s: avg(&|x| x.train_s), cpu_s })
            })
            .collect();
        done.push(SetResult {
            name: name.to_string(),
            classes: rows[0].classes,
            n_train: rows.iter().find(|r| r.split.is_some()).map_or(0, |r| r.n_train),
            splits: splits.len(),
            by_method,
        });
    }
    (done, failed)
}

/// Largest finite value (NaN if none).
fn max(values: &[f64]) -> f64 {
    values.iter().copied().filter(|x| x.is_finite()).fold(f64::NAN, f64::max)
}

/// Prints the per-set table, the summary table and (with `--json`) the summary line.
fn report(args: &Args, records: &[Record], backend: &str) -> Result<()> {
    let methods = &args.methods;
    let (all_sets, failed) = set_results(records, methods);
    // The table shows every set; ranks, means, sign tests and speed-ups use only the sets with
    // `--splits` splits scored by every method, so a set still being run does not enter them.
    let (sets, partial): (Vec<&SetResult>, Vec<&SetResult>) = all_sets.iter().partition(|s| s.splits >= args.splits);
    for s in &partial {
        eprintln!(
            "{}: {} of {} splits scored by every method, left out of the ranks (--splits sets the count)",
            s.name, s.splits, args.splits
        );
    }
    let partial: Vec<String> = partial.iter().map(|s| s.name.clone()).collect();
    // Ranks per set (1 = most accurate, ties averaged).
    let ranks: Vec<Vec<f64>> = sets
        .iter()
        .map(|s| metrics::average_ranks(&methods.iter().map(|m| -s.by_method[m].accuracy).collect::<Vec<_>>()))
        .collect();
    let mean_rank = |i: usize| mean(&ranks.iter().map(|r| r[i]).collect::<Vec<_>>());

    let mut head = vec!["set".to_string(), "C".into(), "n_train".into(), "splits".into()];
    head.extend(methods.iter().map(|m| format!("{} acc", m.label())));
    head.extend(methods.iter().map(|m| format!("{} train s", m.label())));
    if args.summarise.is_empty() {
        println!(
            "\nBayesian SVMs on PMLB multi-class sets (epochs {}, batch {}, lr {}, P ≤ {}, max-train {}, backend {backend})",
            args.run.epochs,
            args.run.batch,
            args.run.lr,
            args.m,
            args.selection.max_train
        );
    } else {
        println!("\nBayesian SVMs on PMLB multi-class sets (summary of {} result lines)", records.len());
    }
    println!("| {} |", head.join(" | "));
    println!("|{}", "---|".repeat(head.len()));
    for s in &all_sets {
        let mut row = vec![s.name.clone(), s.classes.to_string(), s.n_train.to_string(), s.splits.to_string()];
        row.extend(methods.iter().map(|m| format!("{:.4}", s.by_method[m].accuracy)));
        row.extend(methods.iter().map(|m| format!("{:.2}", s.by_method[m].train_s)));
        println!("| {} |", row.join(" | "));
    }

    let mut summary = Map::new();
    summary.insert("example".into(), json!("bsvm_pmlb"));
    summary.insert("sets".into(), json!(sets.len()));
    let mut rows: Vec<(String, String)> = vec![("sets ranked".into(), sets.len().to_string())];
    for (i, m) in methods.iter().enumerate() {
        let r = mean_rank(i);
        // Standard error of the mean rank over sets (0 with one set).
        let per_set: Vec<f64> = ranks.iter().map(|x| x[i]).collect();
        let se = burn_gp::metrics::standard_error(&per_set).unwrap_or(0.0);
        summary.insert(format!("mean_rank_{}", m.key()), num(r));
        summary.insert(format!("se_rank_{}", m.key()), num(se));
        rows.push((
            format!("mean rank {} ± s.e. (paper {:.2})", m.label(), m.paper_rank()),
            format!("{r:.3} ± {se:.3}"),
        ));
    }
    for m in methods {
        let acc = mean(&sets.iter().map(|s| s.by_method[m].accuracy).collect::<Vec<_>>());
        summary.insert(format!("mean_accuracy_{}", m.key()), num(acc));
        rows.push((format!("mean accuracy {}", m.label()), format!("{acc:.4}")));
    }
    let (mut wins, mut sign_p) = (Map::new(), Map::new());
    for (i, &a) in methods.iter().enumerate() {
        for &b in &methods[i + 1..] {
            let (mut w, mut t, mut l) = (0, 0, 0);
            for s in &sets {
                let (x, y) = (s.by_method[&a].accuracy, s.by_method[&b].accuracy);
                if x > y {
                    w += 1;
                } else if x < y {
                    l += 1;
                } else {
                    t += 1;
                }
            }
            wins.insert(format!("{}_vs_{}", a.key(), b.key()), json!([w, t, l]));
            let p = metrics::sign_test_p_value(w, l);
            sign_p.insert(format!("{}_vs_{}", a.key(), b.key()), num(p));
            rows.push((
                format!("{} vs {} win/tie/loss (two-sided sign test p)", a.label(), b.label()),
                format!("{w}/{t}/{l} (p = {p:.3})"),
            ));
        }
    }
    summary.insert("wins".into(), Value::Object(wins));
    summary.insert("sign_test_p".into(), Value::Object(sign_p));
    if methods.contains(&Method::McBsvm) {
        for &other in methods.iter().filter(|&&m| m != Method::McBsvm) {
            // Wall-clock ratios (the contract's keys), then CPU-time ratios ("cpu_" keys).
            for (prefix, what, time) in [
                ("", "train s", (|x: &MethodMean| x.train_s) as fn(&MethodMean) -> f64),
                ("cpu_", "CPU s", |x: &MethodMean| x.cpu_s),
            ] {
                let ratios: Vec<f64> =
                    sets.iter().map(|s| time(&s.by_method[&other]) / time(&s.by_method[&Method::McBsvm])).collect();
                let (med, top) = (median(&ratios), max(&ratios));
                summary.insert(format!("median_{prefix}speedup_vs_{}", other.short()), num(med));
                summary.insert(format!("max_{prefix}speedup_vs_{}", other.short()), num(top));
                rows.push((
                    format!("MC-BSVM speed-up vs {} ({what} ratio, median / max)", other.label()),
                    format!("{med:.2} / {top:.2}"),
                ));
            }
        }
    }
    let names = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    rows.push((format!("sets with fewer than {} splits (in the table, not ranked)", args.splits), names(&partial)));
    rows.push(("sets failed or skipped".into(), names(&failed)));
    let table: Vec<(&str, String)> = rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    println!();
    common::print_table("Summary (ranks on mean test accuracy per set; 1 = best)", &table);

    if let Some(path) = &args.run.csv {
        write_records_csv(path, records)?;
    }
    if args.run.json && !args.summarise.is_empty() {
        summary.insert("summarised".into(), json!(args.summarise));
    } else if args.run.json {
        let run = &args.run;
        summary.insert("splits".into(), json!(args.splits));
        summary.insert("epochs".into(), json!(run.epochs));
        summary.insert("batch".into(), json!(run.batch));
        summary.insert("lr".into(), json!(run.lr));
        summary.insert("m".into(), json!(args.m));
        summary.insert("max_train".into(), json!(args.selection.max_train));
        summary.insert("max_rows".into(), json!(args.selection.max_rows));
        summary.insert("backend".into(), json!(backend));
    }
    if args.run.json {
        summary.insert("failed".into(), json!(failed));
        summary.insert("partial".into(), json!(partial));
        println!("{}", Value::Object(summary));
    }
    Ok(())
}

/// Writes every record as a CSV row.
fn write_records_csv(path: &Path, records: &[Record]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    writeln!(f, "set,split,method,classes,n_train,accuracy,train_s,train_cpu_s,epoch_s,nll,error").map_err(io)?;
    for r in records {
        let split = r.split.map_or(String::new(), |k| k.to_string());
        let cells = match &r.outcome {
            Ok(o) => {
                let nll = o.nll.map_or(String::new(), |x| x.to_string());
                let cpu = o.cpu_s.map_or(String::new(), |x| x.to_string());
                format!("{},{},{cpu},{},{nll},", o.accuracy, o.train_s, o.epoch_s)
            }
            // Quoted, with inner quotes doubled, so commas in messages keep the columns.
            Err(e) => format!(",,,,,\"{}\"", e.replace('"', "\"\"")),
        };
        writeln!(f, "{},{split},{},{},{},{cells}", r.set, r.method.key(), r.classes, r.n_train).map_err(io)?;
    }
    f.flush().map_err(io)
}

/// Records from the `--json` lines of earlier runs (other lines are skipped).
fn read_records(paths: &[PathBuf]) -> Result<Vec<Record>> {
    let mut records: Vec<Record> = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.clone(), source })?;
        for line in text.lines().filter(|l| l.trim_start().starts_with('{')) {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            let (Some(set), Some(method)) = (v["set"].as_str(), v["method"].as_str()) else { continue };
            let Ok(method) = Method::from_str(method, false) else { continue };
            let count = |k: &str| v[k].as_u64().unwrap_or(0) as usize;
            let number = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
            let outcome = match v["error"].as_str() {
                Some(e) => Err(e.to_string()),
                None if !number("accuracy").is_finite() => Err("line has no accuracy".to_string()),
                None => Ok(Outcome {
                    accuracy: number("accuracy"),
                    train_s: number("train_s"),
                    cpu_s: v["train_cpu_s"].as_f64(),
                    epoch_s: number("epoch_s"),
                    epoch_times: Vec::new(),
                    nll: v["nll"].as_f64(),
                }),
            };
            let record = Record {
                set: set.to_string(),
                split: v["split"].as_u64().map(|k| k as usize),
                method,
                classes: count("classes"),
                n_train: count("n_train"),
                n_train_full: count("n_train_full"),
                outcome,
            };
            records.retain(|r| (&r.set, r.split, r.method) != (&record.set, record.split, record.method));
            records.push(record);
        }
    }
    Ok(records)
}

fn run(args: Args) -> Result<()> {
    if !args.summarise.is_empty() {
        let records = read_records(&args.summarise)?;
        eprintln!("bsvm_pmlb: {} result lines read from {} file(s)", records.len(), args.summarise.len());
        return report(&args, &records, "");
    }
    let common::Devices { backend, base, train } = args.run.devices()?;
    let root = data_root(args.run.data.as_deref())?;
    let names = args.selection.resolve(&root)?;
    if args.splits == 0 || args.m == 0 || args.methods.is_empty() {
        return Err(Error::invalid("arguments", "--splits, --m and --methods must be positive / non-empty"));
    }
    // Bars also with --json (they go to stderr and hide themselves when it is not a terminal).
    let config = TrainConfig { progress: !args.run.no_progress, ..args.run.train_config() };
    let figures = args.run.plot.figures("bsvm_pmlb")?;
    let ctx = Ctx { args: &args, train, base, config, figures };
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all".into());
    eprintln!(
        "bsvm_pmlb: {} sets, {} split(s), methods {}, epochs {}, batch {}, lr {}, P ≤ {}, max-train {}, max-rows {}, backend {backend}, threads {threads}",
        names.len(),
        args.splits,
        args.methods.iter().map(|m| m.key()).collect::<Vec<_>>().join(","),
        args.run.epochs,
        args.run.batch,
        args.run.lr,
        args.m,
        args.selection.max_train,
        args.selection.max_rows,
    );
    let mut records = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let tag = format!("[{}/{}] {name}", i + 1, names.len());
        let set = match TabularSet::load(&root, name) {
            Ok(set) if args.selection.too_big(set.rows()) => {
                eprintln!("{tag}: skipped ({} rows > --max-rows {})", set.rows(), args.selection.max_rows);
                continue;
            }
            Ok(set) => set,
            Err(e) => {
                eprintln!("{tag}: error: {e}");
                for &method in &args.methods {
                    let outcome = Err(e.to_string());
                    let record = Record {
                        set: name.clone(),
                        split: None,
                        method,
                        classes: 0,
                        n_train: 0,
                        n_train_full: 0,
                        outcome,
                    };
                    emit(&ctx, &mut records, record);
                }
                continue;
            }
        };
        for k in args.first_split..args.first_split + args.splits {
            let t0 = Instant::now();
            let (split, outcomes) = match run_split(&ctx, &set, k) {
                Ok(done) => done,
                Err(e) => {
                    eprintln!("{tag} split {k}: error: {e}");
                    for &method in &args.methods {
                        let outcome = Err(e.to_string());
                        let record = Record {
                            set: name.clone(),
                            split: Some(k),
                            method,
                            classes: set.classes(),
                            n_train: 0,
                            n_train_full: 0,
                            outcome,
                        };
                        emit(&ctx, &mut records, record);
                    }
                    continue;
                }
            };
            let sub =
                if split.subsampled() { format!(", subsampled from {}", split.train_full) } else { String::new() };
            let mut line = format!(
                "{tag} split {k} (n_train {}{sub}, n_test {}, C {}):",
                split.n_train(),
                split.n_test(),
                split.classes
            );
            for (method, outcome) in outcomes {
                match &outcome {
                    Ok(o) => line.push_str(&format!(" {} {:.4} ({:.1} s)", method.label(), o.accuracy, o.train_s)),
                    Err(e) => line.push_str(&format!(" {} error: {e};", method.label())),
                }
                let record = Record {
                    set: name.clone(),
                    split: Some(k),
                    method,
                    classes: split.classes,
                    n_train: split.n_train(),
                    n_train_full: split.train_full,
                    outcome: outcome.map_err(|e| e.to_string()),
                };
                emit(&ctx, &mut records, record);
            }
            eprintln!("{line} [{:.1} s]", t0.elapsed().as_secs_f64());
        }
    }
    report(&args, &records, &backend)
}

fn main() {
    let args: Args = common::parse_with_defaults(&[("lr", "5e-4"), ("batch", "128"), ("epochs", "1000")]);
    common::exit_on_error(run(args));
}
