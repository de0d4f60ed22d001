//! Scaling benchmark (issue 93): one epoch of a sparse model at N training rows, then prediction
//! on held-out rows, with seconds, rows per second, peak resident memory and the test metric.
//! One model and one N per process, so each process's peak memory is that run's alone.
//!
//! ```text
//! cargo bench --bench scale -- --model svgp-regression --rows 1000000        # one run, JSON line
//! cargo bench --bench scale -- --report scale.jsonl --plot docs/results/figures   # the table, the figure
//! bash benches/scale.sh                                                      # every model and N
//! ```
//!
//! Models: `svgp-regression` (Gaussian likelihood), `svgp-classification` (binary probit), `bsvm`
//! (multi-class Bayesian SVM, 4 classes) and `sep` (the EP classifier's minibatch mode). Sources:
//! `synthetic` (rows of [`RandomFunction`], d = 12 by default: a known latent function, any N)
//! and the largest real sets here tiled to N rows with small input noise: `protein` (UCI
//! protein-tertiary-structure, 45 730 × 9, regression) and `magic` (PMLB magic, 19 020 × 10,
//! binary). A tiled set's test rows are tiled from a held-out 10 % of the real rows.
//!
//! Memory: `/proc/self/status`'s VmHWM, reset (`/proc/self/clear_refs` ← 5) before each phase, so
//! `train_peak_mb` and `predict_peak_mb` are the peaks of training and of prediction alone
//! (`rss_after_data_mb` and `rss_before_predict_mb`: the resident size each phase starts from);
//! `data_mb` is the bytes of the training and test tensors and host targets the run holds.
use std::io::BufRead;
use std::time::Instant;

use burn::module::Module;
use burn::tensor::Device;
use burn_gp::data::{data_root, load_pmlb_classification, load_uci_table, RandomFunction, Standardiser};
use burn_gp::inducing::{inducing_kmeans, InducingPoints};
use burn_gp::kernels::{median_distance, Rbf};
use burn_gp::likelihoods::{BernoulliProbit, Gaussian, MultiClassHinge};
use burn_gp::models::{EpGpClassifierConfig, EpMode, SvgpConfig};
use burn_gp::tensors::matrix;
use burn_gp::train::TrainConfig;
use burn_gp::{Error, Result};
use clap::Parser;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};
use serde_json::{json, Value};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "One epoch of a sparse GP at N rows: time, rows/s, peak memory, test metric")]
struct Args {
    /// `svgp-regression`, `svgp-classification`, `bsvm` or `sep`.
    #[arg(long, default_value = "svgp-regression")]
    model: String,
    /// `synthetic`, `protein` (regression) or `magic` (binary classification).
    #[arg(long, default_value = "synthetic")]
    source: String,
    /// Training rows N.
    #[arg(long, default_value_t = 100_000)]
    rows: usize,
    /// Held-out rows predicted after training.
    #[arg(long, default_value_t = 1_000_000)]
    test_rows: usize,
    /// Input dimension of the synthetic source.
    #[arg(long, default_value_t = 12)]
    d: usize,
    /// Inducing points.
    #[arg(long, default_value_t = 100)]
    m: usize,
    /// Minibatch size (the EP paper's 200 for `sep`).
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Seed of the data, the initialisation and the minibatch order.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Data folder (for `protein` and `magic`).
    #[arg(long)]
    data: Option<std::path::PathBuf>,
    /// Instead of a run: read the JSON lines of earlier runs from this file and print the table.
    #[arg(long)]
    report: Option<std::path::PathBuf>,
    /// With `--report`: write `scale_time.svg` and `scale_memory.svg` to this folder.
    #[arg(long)]
    plot: Option<std::path::PathBuf>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// A value of `/proc/self/status` in MB (`VmHWM`, `VmRSS`).
fn status_mb(key: &str) -> f64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = text.lines().find(|l| l.starts_with(key)).unwrap_or("");
    line.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()).map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Resets VmHWM to the current resident size (Linux 4.0 and later).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Training and test rows: inputs, and targets (regression) or labels (classification).
struct Rows {
    d: usize,
    x: Vec<f64>,
    x_test: Vec<f64>,
    y: Vec<f64>,
    y_test: Vec<f64>,
}

/// Rows `0..n` of a real set `x` `[src, d]` repeated, each input plus N(0, 0.01²) (the inputs are
/// standardised), in a seeded order of the real rows.
fn tile(x: &[f64], y: &[f64], d: usize, n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let src = y.len();
    let mut rng = StdRng::seed_from_u64(seed);
    let noise = Normal::new(0.0, 0.01).expect("a valid normal");
    let (mut xs, mut ys) = (Vec::with_capacity(n * d), Vec::with_capacity(n));
    for i in 0..n {
        let r = (i.wrapping_mul(2_654_435_761) + i / src) % src;
        xs.extend(x[r * d..(r + 1) * d].iter().map(|v| v + noise.sample(&mut rng)));
        ys.push(y[r]);
    }
    (xs, ys)
}

fn rows(args: &Args, classes: usize) -> Result<Rows> {
    let (n, nt, seed) = (args.rows, args.test_rows, args.seed);
    let test = 1u64 << 40..(1u64 << 40) + nt as u64;
    if args.source == "synthetic" {
        let f = RandomFunction::new(args.d, if classes > 2 { classes } else { 1 }, (args.d as f64).sqrt(), 128, seed)?;
        let ((x, y), (x_test, y_test)) = if classes == 0 {
            (f.regression(0..n as u64, 0.1)?, f.regression(test, 0.1)?)
        } else {
            let float = |(x, l): (Vec<f64>, Vec<usize>)| (x, l.into_iter().map(|c| c as f64).collect());
            (float(f.classification(0..n as u64, 0.3)?), float(f.classification(test, 0.3)?))
        };
        return Ok(Rows { d: args.d, x, x_test, y, y_test });
    }
    let root = data_root(args.data.as_deref())?;
    let (x, y, d) = match (args.source.as_str(), classes) {
        ("protein", 0) => {
            let t = load_uci_table(&root, "protein-tertiary-structure")?;
            let mean = t.y.iter().sum::<f64>() / t.n as f64;
            let sd = (t.y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / t.n as f64).sqrt();
            (t.x, t.y.iter().map(|v| (v - mean) / sd).collect::<Vec<_>>(), t.d)
        }
        ("magic", 2) => {
            let (t, _) = load_pmlb_classification(&root, "magic")?;
            (t.table.x, t.table.y.iter().map(|&c| c as f64).collect(), t.table.d)
        }
        (source, _) => {
            return Err(Error::invalid("source", format!("{source} does not fit {}", args.model)));
        }
    };
    let src = y.len();
    let x = Standardiser::fit(&x, src, d)?.transform(&x)?;
    let order = burn_gp::data::random_split(src, 0.1, seed)?; // a seeded 10 % of the real rows held out
    let pick = |idx: &[usize]| -> (Vec<f64>, Vec<f64>) {
        (idx.iter().flat_map(|&i| x[i * d..(i + 1) * d].to_vec()).collect(), idx.iter().map(|&i| y[i]).collect())
    };
    let ((xa, ya), (xb, yb)) = (pick(&order.train), pick(&order.test));
    let (x, y) = tile(&xa, &ya, d, n, seed);
    let (x_test, y_test) = tile(&xb, &yb, d, nt, seed + 1);
    Ok(Rows { d, x, x_test, y, y_test })
}

/// RBF kernel at the median lengthscale and k-means inducing points, both on a sample of rows.
fn kernel_and_inducing(args: &Args, r: &Rows, device: &Device) -> Result<(Rbf, InducingPoints)> {
    let n = r.y.len();
    let lengthscale = median_distance(&r.x, n, r.d, 2000, args.seed)?;
    let z = inducing_kmeans(&r.x, n, r.d, args.m, 10, args.seed)?;
    Ok((Rbf::ard(r.d, lengthscale, 1.0, device)?, InducingPoints::new(&z, args.m, r.d, device)?))
}

/// One epoch of `args.model`, then prediction: the run's JSON record.
fn run(args: &Args) -> Result<Value> {
    let classes = match args.model.as_str() {
        "svgp-regression" => 0,
        "svgp-classification" | "sep" => 2,
        "bsvm" => 4,
        other => return Err(Error::invalid("model", format!("unknown model {other}"))),
    };
    let device = burn_gp::device::default_device()?;
    let train = device.clone().autodiff();
    let start = Instant::now();
    let r = rows(args, classes)?;
    let (n, nt, d) = (r.y.len(), r.y_test.len(), r.d);
    let labels: Vec<usize> = r.y.iter().map(|&v| v as usize).collect();
    let test_labels: Vec<usize> = r.y_test.iter().map(|&v| v as usize).collect();
    let (kernel, inducing) = kernel_and_inducing(args, &r, &train)?;
    let init_s = start.elapsed().as_secs_f64();
    let xt = matrix(r.x, n, d, &train)?;
    let x_test = matrix(r.x_test, nt, d, &device)?;
    let y_targets = if classes == 0 { Some(matrix(r.y.clone(), n, 1, &train)?) } else { None };
    let host_bytes = (labels.len() + test_labels.len() + r.y.len() + r.y_test.len()) * 8;
    let data_mb = ((n + nt) * d * 8 + y_targets.as_ref().map_or(0, |_| n * 8) + host_bytes) as f64 / 1e6;
    let rss_data_mb = status_mb("VmRSS");
    let config =
        TrainConfig { epochs: 1, batch_size: args.batch, seed: args.seed, progress: false, ..Default::default() };
    reset_peak();
    let t0 = Instant::now();
    let predict_then = |train_s: f64, predict: &dyn Fn() -> Result<Vec<(String, f64)>>| -> Result<Value> {
        let (train_peak_mb, rss_before_predict_mb) = (status_mb("VmHWM"), status_mb("VmRSS"));
        reset_peak();
        let t1 = Instant::now();
        let metrics = predict()?;
        let predict_s = t1.elapsed().as_secs_f64();
        let mut record = json!({
            "model": args.model, "source": args.source, "rows": n, "test_rows": nt, "d": d, "m": args.m,
            "batch": args.batch, "seed": args.seed, "init_s": init_s, "epoch_s": train_s,
            "rows_per_s": n as f64 / train_s, "predict_s": predict_s, "predict_rows_per_s": nt as f64 / predict_s,
            "data_mb": data_mb, "rss_after_data_mb": rss_data_mb, "train_peak_mb": train_peak_mb,
            "rss_before_predict_mb": rss_before_predict_mb, "predict_peak_mb": status_mb("VmHWM"),
        });
        for (k, v) in metrics {
            record[k] = json!(v);
        }
        Ok(record)
    };
    match args.model.as_str() {
        "svgp-regression" => {
            let model = SvgpConfig::new(n).init(kernel, inducing, Gaussian::new(0.1, &train)?, &train)?;
            let model = model.fit(&xt, y_targets.as_ref().expect("regression targets"), &config)?.0.valid();
            predict_then(t0.elapsed().as_secs_f64(), &|| {
                let pred = model.predict(x_test.clone())?;
                Ok(vec![("rmse".into(), pred.rmse(&r.y_test)?), ("mlpd".into(), pred.mean_log_density(&r.y_test)?)])
            })
        }
        "svgp-classification" => {
            let model = SvgpConfig::new(n).init(kernel, inducing, BernoulliProbit::default(), &train)?;
            let model = model.fit(&xt, &labels, &config)?.0.valid();
            predict_then(t0.elapsed().as_secs_f64(), &|| class_metrics(model.predict(x_test.clone())?, &test_labels))
        }
        "bsvm" => {
            let svgp = SvgpConfig::new(n).with_num_latent(classes).with_jitter(1e-6);
            let model = svgp.init(kernel, inducing, MultiClassHinge::default(), &train)?;
            let model = model.fit(&xt, &labels, &config)?.0.valid();
            predict_then(t0.elapsed().as_secs_f64(), &|| class_metrics(model.predict(x_test.clone())?, &test_labels))
        }
        _ => {
            let schedule = EpGpClassifierConfig::new().with_mode(EpMode::Minibatch).with_evaluate_every(0);
            let model = schedule.init(kernel, inducing, &train)?;
            let ep = schedule
                .paper_train_config()
                .with_epochs(1)
                .with_batch_size(args.batch)
                .with_seed(args.seed)
                .with_progress(false);
            let (fit, _history) = model.fit(&xt, &labels, &ep)?;
            let x_test = x_test.to_device(&train); // the fit keeps the trained (autodiff) model
            predict_then(t0.elapsed().as_secs_f64(), &|| class_metrics(fit.predict(&x_test)?, &test_labels))
        }
    }
}

fn class_metrics(pred: burn_gp::models::ClassPredictive, labels: &[usize]) -> Result<Vec<(String, f64)>> {
    Ok(vec![("accuracy".into(), pred.accuracy(labels)?), ("nll".into(), pred.nll(labels)?)])
}

/// The table of earlier runs (and with `--plot`, the figures).
fn report(path: &std::path::Path, plot: Option<&std::path::Path>) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| Error::Io { path: path.to_path_buf(), source: e })?;
    let records: Vec<Value> = std::io::BufReader::new(file)
        .lines()
        .map_while(std::io::Result::ok)
        .filter_map(|l| serde_json::from_str(&l).ok())
        .collect();
    let f = |r: &Value, k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    println!(
        "| model | source | N | s / epoch | rows / s | data MB | train peak MB | predict s ({} rows) | predict peak MB | metric |",
        records.first().map_or(0, |r| r["test_rows"].as_u64().unwrap_or(0))
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in &records {
        let metric = match r.get("rmse") {
            Some(_) => format!("RMSE {:.3}, MLPD {:.3}", f(r, "rmse"), f(r, "mlpd")),
            None if r["nll"].is_null() => format!("accuracy {:.3}, NLL ∞", f(r, "accuracy")),
            None => format!("accuracy {:.3}, NLL {:.3}", f(r, "accuracy"), f(r, "nll")),
        };
        println!(
            "| {} | {} | {:.0e} | {:.1} | {:.0} | {:.0} | {:.0} | {:.1} | {:.0} | {metric} |",
            r["model"].as_str().unwrap_or("?"),
            r["source"].as_str().unwrap_or("?"),
            f(r, "rows"),
            f(r, "epoch_s"),
            f(r, "rows_per_s"),
            f(r, "data_mb"),
            f(r, "train_peak_mb"),
            f(r, "predict_s"),
            f(r, "predict_peak_mb"),
        );
    }
    if let Some(dir) = plot {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), source: e })?;
        for (file, key, label) in [
            ("scale_time.svg", "epoch_s", "seconds per epoch"),
            ("scale_memory.svg", "train_peak_mb", "peak resident memory in training (MB)"),
        ] {
            figure(&dir.join(file), &records, key, label)?;
        }
    }
    Ok(())
}

/// A log-log figure of `key` against N, one line per model and source.
fn figure(path: &std::path::Path, records: &[Value], key: &str, label: &str) -> Result<()> {
    use plotters::prelude::*;
    let draw_err = |e: &dyn std::fmt::Display| Error::invalid("plot", e.to_string());
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for r in records {
        let name = format!("{} ({})", r["model"].as_str().unwrap_or("?"), r["source"].as_str().unwrap_or("?"));
        let point = (r["rows"].as_f64().unwrap_or(1.0), r[key].as_f64().unwrap_or(1.0).max(1e-3));
        match series.iter_mut().find(|(s, _)| *s == name) {
            Some((_, points)) => points.push(point),
            None => series.push((name, vec![point])),
        }
    }
    let ys = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1));
    let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((5e3..2e7).log_scale(), (lo / 2.0..hi * 2.0).log_scale())
        .map_err(|e| draw_err(&e))?;
    chart.configure_mesh().x_desc("training rows N").y_desc(label).draw().map_err(|e| draw_err(&e))?;
    for (i, (name, points)) in series.into_iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| draw_err(&e))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).draw().map_err(|e| draw_err(&e))?;
    root.present().map_err(|e| draw_err(&e))
}

fn main() {
    let args = Args::parse();
    let result = match &args.report {
        Some(path) => report(path, args.plot.as_deref()),
        None => run(&args).map(|record| println!("{record}")),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
