//! Orthogonally decoupled variational Fourier features on UCI/PMLB regression (Azzimonti et al.
//! 2020, Table 5): ODVFF, ODVGP and SVGP with an additive Matérn-³⁄₂ prior.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example odvgp_regression -- --dataset protein --method odvff
//! cargo run --release -p burn-gp-experiments --example odvgp_regression -- --dataset fried --method svgp --splits 2 --iterations 3000 --json
//! ```
//! Protocol (all flags): 90/10 random train/test splits (`--splits 5`; protein uses its 5
//! standard 90/10 split files, PMLB sets a seeded random split per index), inputs and targets
//! standardised with training statistics, `--gamma 300` mean-basis points (k-means), `--beta 100`
//! covariance-basis elements (Fourier features in total over the dimensions, `--beta-per-dim` for
//! per dimension; inducing points for ODVGP), SVGP with `|γ| + |β|` points, minibatch 400,
//! `--iterations 10000` (rounded up to whole epochs), Adam `--lr 0.01` on hyperparameters,
//! inducing inputs and `a_γ`, natural-gradient steps `--rho 0.1` on the β-block (ODVFF/ODVGP;
//! SVGP trains everything by Adam). The Fourier interval covers the training and test inputs
//! plus max(0.1·range, 3ℓ₀) on each side (ℓ₀ = 1).
//!
//! Metrics are in standardised target units (the paper's): mean test log-likelihood per point and
//! RMSE, averaged over the splits. With `--json` the last stdout line is
//! `{"example":"odvgp_regression","dataset":…,"method":…,"test_ll":…,"rmse":…,"train_s":…}`
//! with `train_s` the mean optimisation time per split in seconds (evaluation excluded).
//! `--plot DIR` writes the first split's training curves, `odvgp_regression_curves.svg`.
use std::path::Path;

use burn_gp::data::{data_root, load_pmlb_regression, load_uci, random_split, Standardiser, Table, TargetStandardiser};
use burn_gp::kernels::MaternNu;
use clap::Parser;

use burn_gp_experiments::common;
use burn_gp_experiments::decoupled;

use common::mean_std;
use decoupled::{run_method, scores, Method, Prepared, Settings};

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "ODVFF / ODVGP / SVGP regression on UCI and PMLB sets (Azzimonti et al. 2020, Table 5)")]
struct Args {
    /// Dataset: protein (UCI), a PMLB regression set by name or short name (fried, mv, houses,
    /// 2dplanes, …), or another UCI split folder.
    #[arg(long, default_value = "protein")]
    dataset: String,
    /// Method.
    #[arg(long, value_enum, default_value = "odvff")]
    method: Method,
    /// Number of train/test splits.
    #[arg(long, default_value_t = 5)]
    splits: usize,
    /// Index of the first split.
    #[arg(long, default_value_t = 0)]
    first_split: usize,
    /// Mean-basis inducing points |γ|.
    #[arg(long, default_value_t = 300)]
    gamma: usize,
    /// Covariance-basis size |β|.
    #[arg(long, default_value_t = 100)]
    beta: usize,
    /// Count |β| Fourier features per input dimension instead of in total.
    #[arg(long)]
    beta_per_dim: bool,
    /// Matérn smoothness ν (0.5, 1.5 or 2.5).
    #[arg(long, default_value_t = 1.5)]
    nu: f64,
    /// Optimisation steps per split.
    #[arg(long, default_value_t = 10_000)]
    iterations: usize,
    /// Minibatch size.
    #[arg(long, default_value_t = 400)]
    batch: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 0.01)]
    lr: f64,
    /// Initial lengthscale of every input dimension, in standardised units (also sets the Fourier
    /// interval's margin: max(0.1·range, 3ℓ₀) on each side).
    #[arg(long, default_value_t = 1.0)]
    init_lengthscale: f64,
    /// Natural-gradient step size of the β-block.
    #[arg(long, default_value_t = 0.1)]
    rho: f64,
    /// Fraction of rows held out (PMLB sets).
    #[arg(long, default_value_t = 0.1)]
    test_fraction: f64,
    /// Test metrics every this many epochs in the progress line (0: after the last only).
    #[arg(long, default_value_t = 0)]
    eval_every: usize,
    /// Random seed (splits of PMLB sets, k-means, minibatches).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the training curve of the first split to this CSV file.
    #[arg(long)]
    csv: Option<std::path::PathBuf>,
    /// Shared options: data, device, json, no-progress.
    #[command(flatten)]
    basic: common::BasicOptions,
    /// Checkpoints: --checkpoint-dir DIR (each split in `DIR/<method>/split<k>/`), --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// `--plot DIR`: the first split's training curves as an SVG file.
    #[command(flatten)]
    plot: common::plot::PlotOptions,
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}

/// The UCI split folder or PMLB set behind a dataset name.
enum Source {
    Uci(String),
    Pmlb(String),
}

fn resolve(root: &Path, name: &str) -> burn_gp::Result<Source> {
    let uci = match name {
        "protein" => Some("protein-tertiary-structure"),
        other if burn_gp::data::UCI_DATASETS.contains(&other) => Some(other),
        _ => None,
    };
    if let Some(folder) = uci {
        return Ok(Source::Uci(folder.to_string()));
    }
    if burn_gp::data::pmlb_path(root, name).is_ok() {
        return Ok(Source::Pmlb(name.to_string()));
    }
    // short names: `fried` is `564_fried`, `mv` is `344_mv`, …
    let dir = root.join("pmlb_regression");
    let entries = std::fs::read_dir(&dir).map_err(|source| burn_gp::Error::Io { path: dir.clone(), source })?;
    let suffix = format!("_{name}");
    let mut hits: Vec<String> =
        entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|f| f.ends_with(&suffix)).collect();
    hits.sort();
    match hits.as_slice() {
        [one] => Ok(Source::Pmlb(one.clone())),
        [] => Err(burn_gp::Error::invalid(
            "dataset",
            format!("no UCI folder or PMLB set named {name} under {}", root.display()),
        )),
        many => Err(burn_gp::Error::invalid("dataset", format!("{name} is ambiguous: {many:?}"))),
    }
}

fn load_split(root: &Path, source: &Source, split: usize, args: &Args) -> burn_gp::Result<(Table, Table)> {
    match source {
        Source::Uci(folder) => {
            let s = load_uci(root, folder, split)?;
            Ok((s.train, s.test))
        }
        Source::Pmlb(name) => {
            let table = load_pmlb_regression(root, name)?;
            let idx = random_split(table.n, args.test_fraction, args.seed.wrapping_add(split as u64))?;
            Ok((table.select_rows(&idx.train)?, table.select_rows(&idx.test)?))
        }
    }
}

fn prepare(train: &Table, test: &Table) -> burn_gp::Result<Prepared> {
    let xs = Standardiser::fit(&train.x, train.n, train.d)?;
    let ys = TargetStandardiser::fit(&train.y)?;
    Ok(Prepared {
        x_train: xs.transform(&train.x)?,
        y_train: ys.transform(&train.y),
        x_test: xs.transform(&test.x)?,
        y_test: ys.transform(&test.y),
        n: train.n,
        n_test: test.n,
        d: train.d,
    })
}

fn run(args: Args) -> burn_gp::Result<()> {
    let (base, dev) = args.basic.devices()?;
    let figures = args.plot.figures("odvgp_regression")?;
    let root = data_root(args.basic.data.as_deref())?;
    let source = resolve(&root, &args.dataset)?;
    let settings = Settings {
        gamma: args.gamma,
        beta: args.beta,
        beta_per_dim: args.beta_per_dim,
        nu: MaternNu::from_value(args.nu)?,
        lengthscale: args.init_lengthscale,
        iterations: args.iterations,
        batch: args.batch,
        lr: args.lr,
        rho: args.rho,
        sgpr_iterations: args.iterations,
        seed: args.seed,
        progress: args.basic.progress(),
        eval_every: args.eval_every,
        checkpoint: None,
    };
    if args.splits == 0 {
        return Err(burn_gp::Error::invalid("splits", "must be positive"));
    }
    let (mut lls, mut rmses, mut covs, mut secs) = (vec![], vec![], vec![], vec![]);
    let mut rows = Vec::new();
    for split in args.first_split..args.first_split + args.splits {
        let (train, test) = load_split(&root, &source, split, &args)?;
        let data = prepare(&train, &test)?;
        let checkpoint = args.checkpoint.config(&format!("{}/split{split}", args.method.name()));
        let out = run_method(args.method, &data, &Settings { checkpoint, ..settings.clone() }, &base, &dev)?;
        let sc = scores(&out.mean, &out.var, &data.y_test)?;
        if split == args.first_split {
            if let Some(path) = &args.csv {
                out.history.write_csv(path)?;
            }
            let title = format!("{} on {}, split {split}: training", args.method.name(), args.dataset);
            figures.curves("curves", &title, &[(args.method.name(), &out.history)])?;
        }
        let per_1000 = 1000.0 * out.train_s / out.iterations as f64;
        let features = out.num_freq.map_or(String::new(), |f| format!(", F={f} ({} features/dim)", 2 * f + 1));
        eprintln!(
            "split {split}: n={} d={} {} iterations in {:.1}s ({per_1000:.2}s/1000){features}: test_ll {:.4} rmse {:.4} coverage {:.3}",
            data.n, data.d, out.iterations, out.train_s, sc.test_ll, sc.rmse, sc.coverage
        );
        rows.push((split, sc, out.train_s, out.iterations));
        lls.push(sc.test_ll);
        rmses.push(sc.rmse);
        covs.push(sc.coverage);
        secs.push(out.train_s);
    }
    let (ll, ll_sd) = mean_std(&lls);
    let (rmse, rmse_sd) = mean_std(&rmses);
    let (cov, _) = mean_std(&covs);
    let (train_s, _) = mean_std(&secs);
    let iterations = rows[0].3;
    println!(
        "{} on {} (|γ|={}, |β|={}{}, ν={}, batch {}, {} iterations, lr {}, ρ {}; {} split(s))",
        args.method.name(),
        args.dataset,
        args.gamma,
        args.beta,
        if args.beta_per_dim { " per dimension" } else { "" },
        args.nu,
        args.batch,
        iterations,
        args.lr,
        args.rho,
        rows.len()
    );
    println!("| split | test log-lik | RMSE | 95% coverage | train s | s / 1000 it |");
    println!("|---|---|---|---|---|---|");
    for (split, sc, s, it) in &rows {
        println!(
            "| {split} | {:.4} | {:.4} | {:.3} | {s:.1} | {:.2} |",
            sc.test_ll,
            sc.rmse,
            sc.coverage,
            1000.0 * s / *it as f64
        );
    }
    println!(
        "| mean ± sd | {ll:.4} ± {ll_sd:.4} | {rmse:.4} ± {rmse_sd:.4} | {cov:.3} | {train_s:.1} | {:.2} |",
        1000.0 * train_s / iterations as f64
    );
    if args.basic.json {
        let line = serde_json::json!({
            "example": "odvgp_regression",
            "dataset": args.dataset,
            "method": args.method.name(),
            "test_ll": ll,
            "rmse": rmse,
            "train_s": train_s,
        });
        println!("{line}");
    }
    Ok(())
}
