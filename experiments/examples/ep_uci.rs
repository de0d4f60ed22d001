//! Sparse GP classification by EP (Hernández-Lobato & Hernández-Lobato) on the paper's UCI sets
//! (PMLB copies): SEP, the GFITC-style outer scheme and SVI (our SVGP with a probit likelihood)
//! from the same initial inducing inputs and hyperparameters, 90/10 random splits, m a fraction of
//! the training rows. Prints mean ± sd over splits of the test NLL and error next to the paper's
//! Table 1.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example ep_uci -- --datasets pima,sonar --inducing 0.15,0.25,0.5 --splits 20
//! ```
//!
//! `--json` prints one line per dataset × setting × mode,
//! `{"example":"ep_uci","dataset":…,"inducing":…,"mode":…,"nll":…,"error":…,"train_s":…}`
//! (means over the splits), with the SEP line last for each dataset × setting (so the final line
//! is SEP on the last ones). `train_s` is the mean wall-clock training time per split.
//! `--results FILE` writes the same rows with more keys to a JSON-lines file: `nll_sd`,
//! `error_sd` (sample sd over splits), `m`, `splits`, `paper_nll`, and `train_cpu_s`, the mean
//! CPU time of the process over the training span (all threads; Linux only, else null), which
//! other jobs on a shared machine disturb much less than wall-clock time.
//! `--splits-out DIR` writes each split's training and test row indices (`<dataset>_<k>.json`) so
//! that peers (`benches/peers/gpy_ep.py`) can use the same splits.
//! `--plot DIR` writes, from the first split of each dataset × setting, the training curves of
//! all methods (`ep_uci_curves_<dataset>_m<m>.svg`) and each method's reliability diagram of the
//! test predictions (`ep_uci_reliability_<dataset>_m<m>_<method>.svg`, 10 bins).
use burn_gp_experiments::common;

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use burn::module::Module;
use burn::tensor::Tensor;
use burn_gp::data::{load_pmlb_classification, random_split, signed_binary_labels, Standardiser};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::{median_distance, Rbf};
use burn_gp::likelihoods::BernoulliProbit;
use burn_gp::models::ep::{EpGpClassifierConfig, EpMode};
use burn_gp::models::{Svgp, SvgpConfig};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{fit, History, TrainConfig};
use burn_gp::{Error, Result};
use clap::Parser;

/// Command line of the example.
#[derive(Parser, Debug)]
#[command(about = "Sparse GP classification by EP on UCI sets: SEP vs GFITC-style vs SVI (paper 001, Table 1)")]
struct Args {
    /// Comma-separated datasets: pima, sonar, australian, heart, ionosphere, breast, crabs.
    #[arg(long, default_value = "pima,sonar,australian,heart,ionosphere")]
    datasets: String,
    /// Comma-separated numbers of inducing points as fractions of the training rows.
    #[arg(long, default_value = "0.15,0.25,0.5")]
    inducing: String,
    /// Number of random 90/10 splits.
    #[arg(long, default_value_t = 20)]
    splits: usize,
    /// Comma-separated methods: sep, gfitc, svi.
    #[arg(long, default_value = "gfitc,svi,sep")]
    modes: String,
    /// Hyperparameter iterations of every method (the paper: 250).
    #[arg(long, default_value_t = 250)]
    iterations: usize,
    /// Adam learning rate of SVI (full-batch).
    #[arg(long, default_value_t = 0.01)]
    svi_lr: f64,
    /// Random seed (splits and initial inducing inputs; split k uses seed + k).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the per-setting results with standard deviations and CPU times to this JSON-lines
    /// file.
    #[arg(long)]
    results: Option<PathBuf>,
    /// Write every split's row indices to this folder.
    #[arg(long)]
    splits_out: Option<PathBuf>,
    /// Keep the raw features (no standardisation; the paper does not say whether it
    /// standardised, see docs/results/ep_classification.md on australian).
    #[arg(long)]
    raw_features: bool,
    #[command(flatten)]
    opts: common::BasicOptions,
    /// Checkpoints: --checkpoint-dir DIR (each run in `DIR/<dataset>/m<m>/<mode>/split<k>/`),
    /// --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// `--plot DIR`: training curves and reliability diagrams as SVG files.
    #[command(flatten)]
    plot: common::plot::PlotOptions,
}

/// The local PMLB folder and the paper's Table 1 SEP/GFITC/SVI NLLs at 15 %, 25 %, 50 %.
fn dataset(name: &str) -> Result<(&'static str, [[f64; 3]; 3])> {
    // rows: GFITC, SEP, SVI; columns: m = 15 %, 25 %, 50 %
    Ok(match name {
        "australian" => ("australian", [[0.68, 0.68, 0.67], [0.69, 0.67, 0.64], [0.63, 0.63, 0.63]]),
        "breast" => ("breast_w", [[0.10, 0.11, 0.11], [0.11, 0.11, 0.11], [0.10, 0.10, 0.10]]),
        "crabs" => ("prnn_crabs", [[0.07, 0.06, 0.06], [0.06, 0.06, 0.06], [0.07, 0.07, 0.09]]),
        "heart" => ("heart_statlog", [[0.43, 0.42, 0.42], [0.40, 0.41, 0.41], [0.39, 0.40, 0.40]]),
        "ionosphere" => ("ionosphere", [[0.30, 0.29, 0.30], [0.26, 0.27, 0.27], [0.26, 0.27, 0.26]]),
        "pima" => ("pima", [[0.54, 0.53, 0.53], [0.52, 0.51, 0.50], [0.49, 0.50, 0.49]]),
        "sonar" => ("sonar", [[0.35, 0.35, 0.35], [0.33, 0.32, 0.29], [0.40, 0.40, 0.35]]),
        other => return Err(Error::invalid("datasets", format!("unknown dataset `{other}`"))),
    })
}

/// A method of the comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Method {
    Sep,
    Gfitc,
    Svi,
}

impl Method {
    fn parse(s: &str) -> Result<Self> {
        match s {
            "sep" => Ok(Self::Sep),
            "gfitc" => Ok(Self::Gfitc),
            "svi" => Ok(Self::Svi),
            other => Err(Error::invalid("modes", format!("unknown method `{other}` (sep, gfitc, svi)"))),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Self::Sep => "sep",
            Self::Gfitc => "gfitc",
            Self::Svi => "svi",
        }
    }
    /// Row of the paper's table.
    fn paper_row(self) -> usize {
        match self {
            Self::Gfitc => 0,
            Self::Sep => 1,
            Self::Svi => 2,
        }
    }
}

/// One split, standardised with the training statistics.
struct SplitData {
    x_train: Vec<f64>,
    y_train: Vec<f64>,
    x_test: Vec<f64>,
    y_test: Vec<f64>,
    d: usize,
}

/// Test NLL, error and training seconds of one method on one split.
struct Outcome {
    nll: f64,
    error: f64,
    train_s: f64,
    train_cpu_s: Option<f64>,
    /// Log predictive probability of each test label.
    log_density: Vec<f64>,
    /// The training curve.
    history: History,
}

/// CPU seconds (user + system, all threads) this process has used so far, from
/// `/proc/self/stat`; `None` where that file does not exist. Clock ticks are taken as 100 Hz
/// (Linux's `USER_HZ` on every mainstream architecture).
fn process_cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // fields after the parenthesised command name; utime and stime are fields 14 and 15
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Class indices of ±1 targets (−1 → 0, +1 → 1), the classifiers' label convention.
fn classes(y: &[f64]) -> Vec<usize> {
    y.iter().map(|&v| usize::from(v > 0.0)).collect()
}

fn outcome(log_density: Vec<f64>, y_test: &[f64], train_s: f64, train_cpu_s: Option<f64>, history: History) -> Outcome {
    let n = y_test.len() as f64;
    Outcome {
        nll: -log_density.iter().sum::<f64>() / n,
        // a point is misclassified when its label has predictive probability below ½
        error: log_density.iter().filter(|&&l| l < 0.5f64.ln()).count() as f64 / n,
        train_s,
        train_cpu_s,
        log_density,
        history,
    }
}

/// Trains `method` on one split with `m` inducing points (checkpoints in `run`, a sub-folder of
/// `--checkpoint-dir`) and scores it on the split's test rows.
fn run_method(method: Method, args: &Args, data: &SplitData, (m, seed): (usize, u64), run: &str) -> Result<Outcome> {
    let (base, dev) = args.opts.devices()?;
    let (n, d) = (data.y_train.len(), data.d);
    let z = inducing_subset(&data.x_train, n, d, m, seed)?;
    let ell = median_distance(&z, m, d, m, seed)?;
    let kernel = Rbf::ard(d, ell, 1.0, &dev)?;
    let inducing = InducingPoints::new(&z, m, d, &dev)?;
    let x = matrix(data.x_train.clone(), n, d, &dev)?;
    let x_test = matrix(data.x_test.clone(), data.y_test.len(), d, &base)?;
    let (t0, cpu0) = (Instant::now(), process_cpu_s());
    match method {
        Method::Sep | Method::Gfitc => {
            let mode = if method == Method::Sep { EpMode::Inner } else { EpMode::Outer };
            let model_config = EpGpClassifierConfig::new().with_jitter(1e-10).with_mode(mode).with_evaluate_every(0);
            let model = model_config.init(kernel, inducing, &dev)?;
            let config = model_config
                .paper_train_config()
                .with_epochs(args.iterations)
                .with_seed(seed)
                .with_progress(!args.opts.no_progress)
                .with_checkpoint(args.checkpoint.config(run));
            let (fitted, history) = model.fit(&x, &classes(&data.y_train), &config)?;
            let (train_s, done) = (t0.elapsed().as_secs_f64(), cpu0.zip(process_cpu_s()).map(|(a, b)| b - a));
            let x_test = Tensor::from_data(x_test.to_data(), &dev);
            let log_density = fitted.predict_log_density(&x_test, &classes(&data.y_test))?;
            Ok(outcome(log_density, &data.y_test, train_s, done, history))
        }
        Method::Svi => {
            let targets: Vec<f64> = data.y_train.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect();
            let y = matrix(targets, n, 1, &dev)?;
            let model = SvgpConfig::new(n).with_seed(seed).init(kernel, inducing, BernoulliProbit::default(), &dev)?;
            let config = TrainConfig {
                epochs: args.iterations,
                batch_size: n,
                lr: args.svi_lr,
                seed,
                progress: !args.opts.no_progress,
                checkpoint: args.checkpoint.config(run),
                ..Default::default()
            };
            let (model, history) = fit(
                model,
                n,
                &config,
                |m: &Svgp<Rbf, InducingPoints, BernoulliProbit>, idx| m.minibatch_loss(&x, &y, idx),
                |_, _| Ok(vec![]),
            )?;
            let (train_s, done) = (t0.elapsed().as_secs_f64(), cpu0.zip(process_cpu_s()).map(|(a, b)| b - a));
            let model = model.valid();
            let (mean, var) = model.predict_f(x_test)?;
            let (mean, var) = (to_vec(mean), to_vec(var));
            let log_density: Vec<f64> = mean
                .iter()
                .zip(&var)
                .zip(&data.y_test)
                .map(|((m, v), y)| burn_gp::special::log_ndtr(y * m / (1.0 + v).sqrt()))
                .collect();
            Ok(outcome(log_density, &data.y_test, train_s, done, history))
        }
    }
}

fn run(args: Args) -> Result<()> {
    let root = burn_gp::data::data_root(args.opts.data.as_deref())?;
    let figures = args.plot.figures("ep_uci")?;
    let fractions: Vec<f64> = args
        .inducing
        .split(',')
        .map(|s| s.trim().parse::<f64>().map_err(|_| Error::invalid("inducing", format!("`{s}` is not a number"))))
        .collect::<Result<_>>()?;
    if let Some(bad) = fractions.iter().find(|f| !(**f > 0.0 && **f <= 1.0)) {
        return Err(Error::invalid("inducing", format!("fractions must be in (0, 1], got {bad}")));
    }
    let methods: Vec<Method> = args.modes.split(',').map(|s| Method::parse(s.trim())).collect::<Result<_>>()?;
    // SEP last within each dataset × setting (the JSON contract's final line)
    let mut ordered: Vec<Method> = methods.iter().copied().filter(|&m| m != Method::Sep).collect();
    if methods.contains(&Method::Sep) {
        ordered.push(Method::Sep);
    }
    if args.splits == 0 {
        return Err(Error::invalid("splits", "must be at least 1"));
    }
    let mut results_file = match &args.results {
        Some(path) => Some(std::fs::File::create(path).map_err(|e| Error::Io { path: path.clone(), source: e })?),
        None => None,
    };
    let mut rows = Vec::new();
    for name in args.datasets.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (folder, paper) = dataset(name)?;
        let (table, _) = load_pmlb_classification(&root, folder)?;
        if table.num_classes() != 2 {
            return Err(Error::invalid(
                "datasets",
                format!("`{name}` has {} classes; EP classification is binary", table.num_classes()),
            ));
        }
        let (n_all, d) = (table.table.n, table.table.d);
        let y_all = signed_binary_labels(table.labels())?;
        let splits: Vec<SplitData> = (0..args.splits)
            .map(|k| {
                let split = random_split(n_all, 0.1, args.seed + k as u64)?;
                if let Some(dir) = &args.splits_out {
                    std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.clone(), source: e })?;
                    let path = dir.join(format!("{name}_{k}.json"));
                    let body = serde_json::json!({"dataset": folder, "train": split.train, "test": split.test});
                    std::fs::write(&path, body.to_string()).map_err(|e| Error::Io { path, source: e })?;
                }
                let pick = |idx: &[usize]| -> (Vec<f64>, Vec<f64>) {
                    let x = idx.iter().flat_map(|&i| table.table.x[i * d..(i + 1) * d].iter().copied()).collect();
                    (x, idx.iter().map(|&i| y_all[i]).collect())
                };
                let ((x_train, y_train), (x_test, y_test)) = (pick(&split.train), pick(&split.test));
                if args.raw_features {
                    return Ok(SplitData { x_train, y_train, x_test, y_test, d });
                }
                let st = Standardiser::fit(&x_train, y_train.len(), d)?;
                Ok(SplitData { x_train: st.transform(&x_train)?, y_train, x_test: st.transform(&x_test)?, y_test, d })
            })
            .collect::<Result<_>>()?;
        for &frac in &fractions {
            let m = ((frac * splits[0].y_train.len() as f64).round() as usize).max(1);
            let mut curves = Vec::new();
            for &method in &ordered {
                let mut results = Vec::new();
                for (k, data) in splits.iter().enumerate() {
                    let run = format!("{name}/m{m}/{}/split{k}", method.name());
                    let r = run_method(method, &args, data, (m, args.seed + k as u64), &run)?;
                    if !args.opts.no_progress {
                        eprintln!(
                            "{name} m={m} {} split {k}: NLL {:.4}, error {:.4}, {:.2} s",
                            method.name(),
                            r.nll,
                            r.error,
                            r.train_s
                        );
                    }
                    if k == 0 {
                        let title = format!("{} on {name}, m = {m}, split 0: test set", method.name().to_uppercase());
                        let figure = format!("reliability_{name}_m{m}_{}", method.name());
                        figures.binary_reliability(&figure, &title, &r.log_density, &classes(&data.y_test), 10)?;
                        curves.push((method.name(), r.history.clone()));
                    }
                    results.push(r);
                }
                let (nll, nll_sd) = common::mean_std(&results.iter().map(|r| r.nll).collect::<Vec<_>>());
                let (error, error_sd) = common::mean_std(&results.iter().map(|r| r.error).collect::<Vec<_>>());
                let (train_s, _) = common::mean_std(&results.iter().map(|r| r.train_s).collect::<Vec<_>>());
                let cpu: Option<Vec<f64>> = results.iter().map(|r| r.train_cpu_s).collect();
                let train_cpu_s = cpu.map(|c| common::mean_std(&c).0);
                let paper_nll = [0.15, 0.25, 0.5]
                    .iter()
                    .position(|p| (p - frac).abs() < 1e-9)
                    .map(|c| paper[method.paper_row()][c]);
                if args.opts.json {
                    println!(
                        "{}",
                        serde_json::json!({
                            "example": "ep_uci", "dataset": name, "inducing": frac, "mode": method.name(),
                            "nll": nll, "error": error, "train_s": train_s,
                        })
                    );
                }
                if let Some(file) = results_file.as_mut() {
                    let line = serde_json::json!({
                        "example": "ep_uci", "dataset": name, "inducing": frac, "m": m, "mode": method.name(),
                        "nll": nll, "nll_sd": nll_sd, "error": error, "error_sd": error_sd, "train_s": train_s, "train_cpu_s": train_cpu_s,
                        "splits": results.len(), "paper_nll": paper_nll, "raw_features": args.raw_features,
                    });
                    let path = args.results.clone().unwrap_or_default();
                    writeln!(file, "{line}").map_err(|e| Error::Io { path, source: e })?;
                }
                rows.push((name.to_string(), frac, m, method, nll, nll_sd, error, error_sd, train_s, paper_nll));
            }
            let title = format!("{name}, m = {m}, split 0: training");
            figures.curves(&format!("curves_{name}_m{m}"), &title, &curves)?;
        }
    }
    if !args.opts.json {
        println!("| dataset | m | method | test NLL (ours) | test NLL (paper) | error | train s |");
        println!("|---|---|---|---|---|---|---|");
        for (name, frac, m, method, nll, nll_sd, error, error_sd, train_s, paper) in &rows {
            let paper = paper.map_or("—".to_string(), |p| format!("{p:.2}"));
            println!(
                "| {name} | {:.0} % ({m}) | {} | {nll:.3} ± {nll_sd:.3} | {paper} | {error:.3} ± {error_sd:.3} | {train_s:.2} |",
                frac * 100.0,
                method.name().to_uppercase()
            );
        }
    }
    Ok(())
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}
