//! Deep GP regression by approximate EP (Bui et al. 2016) on the standard UCI splits.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example dgp_uci -- --dataset boston --layers 2 --m 100 --splits 0..20
//! cargo run --release -p burn-gp-experiments --example dgp_uci -- --dataset yacht --layers 2 --hidden 3 --m 100 --splits 0..20 --json
//! cargo run --release -p burn-gp-experiments --example dgp_uci -- --dataset boston,concrete --layers 1 --m 50   # FITC-GP by SEP
//! cargo run --release -p burn-gp-experiments --example dgp_uci -- --dataset concrete --input-linear 4   # Burn Linear 8→4, then the DGP
//! ```
//! `--layers` is the number of GP layers L (1 = sparse GP, 2 = the paper's DGPs), `--hidden` the
//! width of every hidden layer (the paper's DGP-1/2/3). Training: Adam, minibatch 50, 6000 steps
//! (epochs = ⌈steps·batch/N⌉) unless `--epochs` is given, learning rate 5e-3 (the authors' script;
//! the paper says 1e-3, `--lr 0.001`), Adam ε = 1e-8/N on −F̂/N (`--adam-eps`), kernel
//! hyperparameters per GP function (the paper; `--shared-hypers` for the code's one set per layer).
//! Targets are standardised with training statistics, inputs too unless `--raw-x`. Metrics are in
//! original units, mean ± standard error over the splits, printed next to the paper's value for the
//! configuration. With `--json` one line per dataset:
//! `{"example":"dgp_uci","dataset":…,"layers":…,"m":…,"splits":…,"test_ll":…,"test_ll_se":…,"rmse":…,"epoch_s":…}`
//! (`rmse_se`, per-split values, `hidden`, `epochs`, `lr`, `backend` and the paper's values are
//! included too). `--plot DIR` writes the training curves (objective, test RMSE and
//! log-likelihood per epoch): `dgp_uci_curves.svg` for one set and split, else
//! `dgp_uci_curves_<set>_<split>.svg`.
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn_gp::data::{data_root, load_uci, Standardiser, TargetStandardiser};
use burn_gp::models::deep_gp::DeepGp;
use burn_gp::models::DeepGpConfig;
use burn_gp::tensors::{matrix, to_vec};
use clap::Parser;

use burn::module::Module;
use burn_gp::saved::SavedModel;

use burn_gp_experiments::common;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "Deep GP regression by approximate EP on UCI splits (Bui et al. 2016)")]
struct Args {
    /// Comma-separated datasets: boston, concrete, energy, kin8nm, naval, power, protein, wine, yacht
    /// (or the split folder names).
    #[arg(long, default_value = "boston")]
    dataset: String,
    /// Number of GP layers L (1 = sparse GP).
    #[arg(long, default_value_t = 2)]
    layers: usize,
    /// Width of every hidden layer.
    #[arg(long, default_value_t = 2)]
    hidden: usize,
    /// Put a trainable linear layer (Burn `Linear`, PCA-initialised) of this width before the
    /// first GP layer (composition with a standard Burn layer; not in the paper).
    #[arg(long)]
    input_linear: Option<usize>,
    /// Inducing points per GP function.
    #[arg(long, default_value_t = 100)]
    m: usize,
    /// Splits to run: `K`, `A..B` (B exclusive) or `all`.
    #[arg(long, default_value = "0..20")]
    splits: String,
    /// Adam steps when `--epochs` is 0.
    #[arg(long, default_value_t = 6000)]
    steps: usize,
    /// Keep the inputs unstandardised (the paper's code does not standardise them).
    #[arg(long)]
    raw_x: bool,
    /// Adam's ε on the loss −F̂/N (default 1e-8/N, i.e. the authors' ε = 1e-8 on −F̂; Burn's default is 1e-5).
    #[arg(long)]
    adam_eps: Option<f64>,
    /// One set of kernel hyperparameters per layer (the authors' code) instead of per function (the paper).
    #[arg(long)]
    shared_hypers: bool,
    /// Model files: --save FILE, --load FILE (evaluate only); `FILE-<set>-split<k>.ext` when
    /// several sets or splits run.
    #[command(flatten)]
    file: common::ModelFileOptions,
    /// Checkpoints: --checkpoint-dir DIR (each split in `DIR/<set>/split<k>/`), --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// Shared options: batch, epochs (0 = from --steps), lr, seed, data, device, csv, json, no-progress, plot.
    #[command(flatten)]
    run: common::RunOptions,
}

fn main() {
    let args: Args = common::parse_with_defaults(&[("batch", "50"), ("epochs", "0"), ("lr", "0.005")]);
    common::exit_on_error(run(args));
}

/// The split folder of a dataset's short name.
fn folder(name: &str) -> &str {
    match name {
        "boston" => "bostonHousing",
        "naval" => "naval-propulsion-plant",
        "power" => "power-plant",
        "protein" => "protein-tertiary-structure",
        "wine" | "red_wine" => "wine-quality-red",
        other => other,
    }
}

/// The paper's table key of a split folder.
fn paper_key(folder: &str) -> &str {
    match folder {
        "bostonHousing" => "boston",
        "naval-propulsion-plant" => "naval",
        "power-plant" => "power",
        "protein-tertiary-structure" => "protein",
        "wine-quality-red" => "red_wine",
        other => other,
    }
}

/// Tables 3 and 4 of the paper, GP/DGP columns: (dataset, [GP-50, DGP-1-50, DGP-2-50, DGP-3-50,
/// GP-100, DGP-1-100, DGP-2-100, DGP-3-100]) as (MLL, SE) and (RMSE, SE). Protein and year use
/// M = 100/200 in the 50/100 columns.
const PAPER_MLL: [(&str, [(f64, f64); 8]); 9] = [
    (
        "boston",
        [
            (-2.22, 0.07),
            (-2.33, 0.06),
            (-2.17, 0.10),
            (-2.09, 0.07),
            (-2.16, 0.07),
            (-2.37, 0.10),
            (-2.09, 0.06),
            (-2.13, 0.09),
        ],
    ),
    (
        "concrete",
        [
            (-2.85, 0.02),
            (-3.13, 0.03),
            (-2.61, 0.02),
            (-2.63, 0.03),
            (-2.65, 0.02),
            (-2.92, 0.03),
            (-2.43, 0.02),
            (-2.44, 0.02),
        ],
    ),
    (
        "energy",
        [
            (-1.29, 0.01),
            (-1.32, 0.03),
            (-0.95, 0.01),
            (-0.95, 0.01),
            (-1.11, 0.02),
            (-1.21, 0.02),
            (-0.90, 0.01),
            (-0.91, 0.01),
        ],
    ),
    (
        "kin8nm",
        [
            (1.31, 0.01),
            (0.68, 0.07),
            (1.79, 0.02),
            (1.93, 0.01),
            (1.68, 0.01),
            (1.09, 0.04),
            (2.31, 0.01),
            (2.46, 0.01),
        ],
    ),
    (
        "naval",
        [
            (4.86, 0.04),
            (3.60, 0.33),
            (4.77, 0.32),
            (5.11, 0.23),
            (5.51, 0.03),
            (3.75, 0.37),
            (5.13, 0.27),
            (5.78, 0.05),
        ],
    ),
    (
        "power",
        [
            (-2.66, 0.01),
            (-2.81, 0.01),
            (-2.58, 0.01),
            (-2.58, 0.01),
            (-2.55, 0.01),
            (-2.67, 0.02),
            (-2.39, 0.02),
            (-2.37, 0.02),
        ],
    ),
    (
        "protein",
        [
            (-2.95, 0.05),
            (-2.55, 0.03),
            (-2.11, 0.04),
            (-2.03, 0.07),
            (-2.52, 0.07),
            (-2.18, 0.06),
            (-1.51, 0.09),
            (-1.32, 0.06),
        ],
    ),
    (
        "red_wine",
        [
            (-0.67, 0.01),
            (-0.35, 0.04),
            (-0.10, 0.03),
            (-0.13, 0.02),
            (-0.57, 0.02),
            (0.07, 0.03),
            (0.37, 0.02),
            (0.25, 0.03),
        ],
    ),
    (
        "yacht",
        [
            (-1.15, 0.03),
            (-1.39, 0.14),
            (-0.99, 0.07),
            (-0.94, 0.05),
            (-1.26, 0.03),
            (-1.34, 0.10),
            (-0.96, 0.06),
            (-0.80, 0.04),
        ],
    ),
];

const PAPER_RMSE: [(&str, [(f64, f64); 8]); 9] = [
    (
        "boston",
        [
            (2.43, 0.12),
            (3.02, 0.20),
            (2.38, 0.12),
            (2.33, 0.12),
            (2.39, 0.12),
            (3.56, 0.29),
            (2.38, 0.11),
            (2.38, 0.12),
        ],
    ),
    (
        "concrete",
        [
            (5.55, 0.12),
            (7.33, 0.25),
            (4.64, 0.11),
            (4.66, 0.13),
            (4.78, 0.12),
            (6.03, 0.17),
            (4.16, 0.13),
            (4.23, 0.12),
        ],
    ),
    (
        "energy",
        [
            (1.02, 0.02),
            (0.84, 0.03),
            (0.57, 0.02),
            (0.54, 0.01),
            (0.87, 0.03),
            (0.80, 0.03),
            (0.56, 0.02),
            (0.56, 0.01),
        ],
    ),
    (
        "kin8nm",
        [
            (0.07, 0.00),
            (0.22, 0.02),
            (0.05, 0.00),
            (0.04, 0.00),
            (0.06, 0.00),
            (0.15, 0.01),
            (0.03, 0.00),
            (0.02, 0.00),
        ],
    ),
    (
        "naval",
        [
            (0.00, 0.00),
            (0.01, 0.00),
            (0.01, 0.00),
            (0.00, 0.00),
            (0.00, 0.00),
            (0.01, 0.00),
            (0.00, 0.00),
            (0.00, 0.00),
        ],
    ),
    (
        "power",
        [
            (3.75, 0.03),
            (4.71, 0.09),
            (3.60, 0.03),
            (3.60, 0.04),
            (3.60, 0.04),
            (4.08, 0.08),
            (3.21, 0.06),
            (3.18, 0.05),
        ],
    ),
    (
        "protein",
        [
            (4.83, 0.21),
            (4.22, 0.08),
            (3.24, 0.10),
            (2.89, 0.28),
            (4.05, 0.13),
            (3.69, 0.19),
            (2.19, 0.22),
            (2.01, 0.16),
        ],
    ),
    (
        "red_wine",
        [
            (0.57, 0.01),
            (0.62, 0.01),
            (0.50, 0.01),
            (0.48, 0.01),
            (0.55, 0.01),
            (0.62, 0.02),
            (0.41, 0.01),
            (0.43, 0.01),
        ],
    ),
    (
        "yacht",
        [
            (1.15, 0.09),
            (1.58, 0.37),
            (0.98, 0.09),
            (0.93, 0.09),
            (1.16, 0.07),
            (1.84, 0.26),
            (1.06, 0.14),
            (0.91, 0.08),
        ],
    ),
];

/// The paper's (value, SE) for this configuration, if it reported one.
fn paper_value(
    table: &[(&str, [(f64, f64); 8]); 9],
    key: &str,
    layers: usize,
    hidden: usize,
    m: usize,
) -> Option<(f64, f64)> {
    let big = matches!(key, "protein");
    let block = match (m, big) {
        (50, false) | (100, true) => 0,
        (100, false) | (200, true) => 4,
        _ => return None,
    };
    let col = match (layers, hidden) {
        (1, _) => 0,
        (2, h @ 1..=3) => h,
        _ => return None,
    };
    table.iter().find(|(k, _)| *k == key).map(|(_, row)| row[block + col])
}

fn parse_splits(spec: &str, available: usize) -> burn_gp::Result<Vec<usize>> {
    let bad = || burn_gp::Error::invalid("splits", format!("expected K, A..B or all, got `{spec}`"));
    let splits: Vec<usize> = if spec == "all" {
        (0..available).collect()
    } else if let Some((a, b)) = spec.split_once("..") {
        let a: usize = a.trim().parse().map_err(|_| bad())?;
        let b: usize = b.trim().parse().map_err(|_| bad())?;
        (a..b.min(available)).collect()
    } else {
        vec![spec.trim().parse().map_err(|_| bad())?]
    };
    if splits.is_empty() || splits.iter().any(|&k| k >= available) {
        return Err(burn_gp::Error::invalid("splits", format!("`{spec}` selects no split in 0..{available}")));
    }
    Ok(splits)
}

/// Mean and standard error of the mean (NaN for fewer than two values).
fn mean_se(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (mean, burn_gp::metrics::standard_error(v).unwrap_or(f64::NAN))
}

/// The CSV path for one run: the given path when there is one run, else with `_<dataset>_<split>`.
fn csv_path(base: &Path, dataset: &str, split: usize, single: bool) -> PathBuf {
    if single {
        return base.to_path_buf();
    }
    let stem = base.file_stem().and_then(|s| s.to_str()).unwrap_or("curve");
    base.with_file_name(format!("{stem}_{dataset}_{split}.csv"))
}

struct SplitResult {
    test_ll: f64,
    rmse: f64,
    epoch_s: f64,
    epochs: usize,
    input_dim: usize,
}

fn run_split(args: &Args, root: &Path, name: &str, split: usize, single: bool) -> burn_gp::Result<SplitResult> {
    let common::Devices { base, train: dev, .. } = args.run.devices()?;
    let data = load_uci(root, name, split)?;
    let (train, test) = (data.train, data.test);
    let (n, d) = (train.n, train.d);
    let (x_train, x_test) = if args.raw_x {
        (train.x.clone(), test.x.clone())
    } else {
        let xs = Standardiser::fit(&train.x, n, d)?;
        (xs.transform(&train.x)?, xs.transform(&test.x)?)
    };
    let ys = TargetStandardiser::fit(&train.y)?;
    let y_train = ys.transform(&train.y);
    if args.layers == 0 {
        return Err(burn_gp::Error::invalid("layers", "must be ≥ 1"));
    }
    let config = DeepGpConfig::new(d)
        .with_hidden(vec![args.hidden; args.layers - 1])
        .with_num_inducing(args.m)
        .with_shared_hyperparameters(args.shared_hypers)
        .with_input_projection(args.input_linear)
        .with_seed(args.run.seed + split as u64);
    let xt = matrix(x_train, n, d, &dev)?;
    let yt = matrix(y_train, n, 1, &dev)?;
    let model = config.init(&xt, &yt)?;
    let mut train_config = args.run.train_config();
    train_config.epochs = match args.run.epochs {
        0 => DeepGpConfig::epochs_for_steps(args.steps, args.run.batch, n),
        epochs => epochs,
    };
    train_config.seed = args.run.seed + split as u64;
    train_config.checkpoint = args.checkpoint.config(&format!("{name}/split{split}"));
    let epochs = train_config.epochs;
    let x_eval = matrix(x_test, test.n, d, &base)?;
    let y_test = test.y.clone();
    let figures = args.run.plot.figures("dgp_uci")?;
    let every_epoch = args.run.csv.is_some() || figures.enabled();
    let evaluate = |m: &DeepGp, epoch: usize| {
        if !every_epoch && epoch < epochs {
            return Ok(vec![]);
        }
        let (mean, var) = m.predict_moments(x_eval.clone())?;
        let mu = ys.inverse_mean(&to_vec(mean));
        let s2 = ys.inverse_var(&to_vec(var));
        let rmse = burn_gp::metrics::rmse(&mu, &y_test)?;
        let ll = burn_gp::metrics::gaussian_log_likelihood(&mu, &s2, &y_test)?;
        Ok(vec![("rmse".to_string(), rmse), ("test_ll".to_string(), ll)])
    };
    if let Some(path) = &args.file.load {
        let model = DeepGp::load(model_path(path, name, split, single), &base)?;
        let metrics = evaluate(&model, epochs)?;
        return Ok(SplitResult {
            test_ll: metrics[1].1,
            rmse: metrics[0].1,
            epoch_s: f64::NAN,
            epochs: 0,
            input_dim: d,
        });
    }
    let (model, history) = match args.adam_eps {
        Some(eps) => {
            let adam = burn::optim::AdamConfig::new().with_epsilon(eps as f32);
            model.fit_with_adam(&xt, &yt, &train_config, adam, evaluate)?
        }
        None => model.fit_evaluated(&xt, &yt, &train_config, evaluate)?,
    };
    if let Some(path) = &args.file.save {
        model.valid().save(model_path(path, name, split, single))?;
    }
    match &args.run.csv {
        Some(path) if !single => history.write_csv(&csv_path(path, name, split, single))?,
        _ => args.run.write_curve(&history)?,
    }
    let figure = if single { "curves".to_string() } else { format!("curves_{name}_{split}") };
    let title = format!("Deep GP ({} layers) on {name} split {split}: training", args.layers);
    figures.curves(&figure, &title, &[("deep gp", &history)])?;
    Ok(SplitResult {
        test_ll: history.last_metric("test_ll").unwrap_or(f64::NAN),
        rmse: history.last_metric("rmse").unwrap_or(f64::NAN),
        epoch_s: history.mean_epoch_s(),
        epochs,
        input_dim: d,
    })
}

/// `--save` / `--load` file of one run: `path` itself for a single set and split, else
/// `path` with `-<set>-split<k>` inserted before the extension.
fn model_path(path: &Path, name: &str, split: usize, single: bool) -> std::path::PathBuf {
    if single {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    path.with_file_name(format!("{stem}-{name}-split{split}{ext}"))
}

fn fmt_pm((v, se): (f64, f64)) -> String {
    format!("{v:.3} ± {se:.3}")
}

fn run(args: Args) -> burn_gp::Result<()> {
    let backend = args.run.devices()?.backend;
    // checks --plot before training
    args.run.plot.figures("dgp_uci")?;
    let root = data_root(args.run.data.as_deref())?;
    let datasets: Vec<&str> = args.dataset.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    for short in &datasets {
        let name = folder(short);
        let available = burn_gp::data::uci_num_splits(&root, name)?;
        let splits = parse_splits(&args.splits, available)?;
        let single = datasets.len() == 1 && splits.len() == 1;
        let t0 = Instant::now();
        let mut results = Vec::with_capacity(splits.len());
        for &k in &splits {
            let r = run_split(&args, &root, name, k, single)?;
            if !args.run.json {
                eprintln!("{name} split {k}: test LL {:.4}, RMSE {:.4}, {:.4} s/epoch", r.test_ll, r.rmse, r.epoch_s);
            }
            results.push(r);
        }
        let ll = mean_se(&results.iter().map(|r| r.test_ll).collect::<Vec<_>>());
        let rmse = mean_se(&results.iter().map(|r| r.rmse).collect::<Vec<_>>());
        let epoch_s = results.iter().map(|r| r.epoch_s).sum::<f64>() / results.len() as f64;
        let key = paper_key(name);
        let paper_ll = paper_value(&PAPER_MLL, key, args.layers, args.hidden, args.m);
        let paper_rmse = paper_value(&PAPER_RMSE, key, args.layers, args.hidden, args.m);
        let mut arch = if args.layers == 1 { "GP".to_string() } else { format!("DGP-{}", args.hidden) };
        if let Some(k) = args.input_linear {
            arch = format!("Linear {}→{k} + {arch}", results[0].input_dim);
        }
        let title = format!(
            "{arch} (L={}, M={}) by approximate EP on {name}, {} splits, {} epochs, lr {}, backend={backend}, {:.0} s",
            args.layers,
            args.m,
            splits.len(),
            results[0].epochs,
            args.run.lr,
            t0.elapsed().as_secs_f64()
        );
        let paper = |p: Option<(f64, f64)>| p.map_or_else(|| "—".to_string(), fmt_pm);
        common::print_table(
            &title,
            &[
                ("test log-likelihood", format!("{} (paper {})", fmt_pm(ll), paper(paper_ll))),
                ("test RMSE", format!("{} (paper {})", fmt_pm(rmse), paper(paper_rmse))),
                ("s / epoch", format!("{epoch_s:.4}")),
            ],
        );
        if args.run.json {
            let line = serde_json::json!({
                "example": "dgp_uci",
                "dataset": short,
                "layers": args.layers,
                "hidden": args.hidden,
                "input_linear": args.input_linear,
                "m": args.m,
                "splits": splits.len(),
                "epochs": results[0].epochs,
                "lr": args.run.lr,
                "test_ll": ll.0,
                "test_ll_se": ll.1,
                "test_ll_per_split": results.iter().map(|r| r.test_ll).collect::<Vec<_>>(),
                "rmse_per_split": results.iter().map(|r| r.rmse).collect::<Vec<_>>(),
                "split_ids": splits,
                "raw_x": args.raw_x,
                "shared_hypers": args.shared_hypers,
                "adam_eps": args.adam_eps,
                "rmse": rmse.0,
                "rmse_se": rmse.1,
                "epoch_s": epoch_s,
                "paper_test_ll": paper_ll.map(|p| p.0),
                "paper_rmse": paper_rmse.map(|p| p.0),
                "backend": backend,
            });
            println!("{line}");
        }
    }
    Ok(())
}
