//! SVGP regression on a UCI dataset with the standard 90/10 splits.
//!
//! ```text
//! cargo run --release --example svgp_uci -- --dataset kin8nm --split 0 --m 128 --batch 256 --epochs 10 --lr 0.01
//! cargo run --release --example svgp_uci -- --save kin8nm.bgp      # then --load kin8nm.bgp: evaluate only
//! ```
//! With `--json` the last stdout line is
//! `{"example":"svgp_uci","dataset":…,"split":…,"m":…,"epochs":…,"epoch_s":…,"epoch_times_s":[…],"objective":…,"rmse":…,"test_ll":…,"backend":…}`
//! (`objective`: the last epoch's mean −ELBO/N; RMSE and mean test log-likelihood per point in the data's original units; `epoch_s` is the mean
//! wall time of one training epoch, evaluation excluded). `--plot DIR` writes
//! `svgp_uci_curves.svg` (objective, test RMSE and log-likelihood per epoch).
use std::time::Instant;

use burn::module::Module;
use burn_gp::data::{data_root, load_uci, Standardiser, TargetStandardiser};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::Rbf;
use burn_gp::likelihoods::Gaussian;
use burn_gp::models::{Svgp, SvgpConfig};
use burn_gp::saved::SavedModel;
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{fit, History, TrainConfig};
use clap::Parser;

use burn_gp_experiments::common;

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "SVGP regression on a UCI split (Hensman et al. 2013)")]
struct Args {
    /// UCI dataset folder name (kin8nm, bostonHousing, concrete, energy, naval-propulsion-plant, power-plant, protein-tertiary-structure, wine-quality-red, yacht).
    #[arg(long, default_value = "kin8nm")]
    dataset: String,
    /// Split index (0–19; 0–4 for protein).
    #[arg(long, default_value_t = 0)]
    split: usize,
    /// Number of inducing points.
    #[arg(long, default_value_t = 128)]
    m: usize,
    /// Model file: --save FILE, --load FILE (evaluate only).
    #[command(flatten)]
    file: common::ModelFileOptions,
    /// Checkpoints: --checkpoint-dir DIR, --resume.
    #[command(flatten)]
    checkpoint: common::CheckpointOptions,
    /// Shared options: batch, epochs, lr, seed, data, device, csv, json, no-progress, plot.
    #[command(flatten)]
    run: common::RunOptions,
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}

fn run(args: Args) -> burn_gp::Result<()> {
    let common::Devices { backend, base, train: dev } = args.run.devices()?;
    let figures = args.run.plot.figures("svgp_uci")?;
    let root = data_root(args.run.data.as_deref())?;
    let split = load_uci(&root, &args.dataset, args.split)?;
    let (train, test) = (split.train, split.test);
    let (n, d) = (train.n, train.d);
    let xs = Standardiser::fit(&train.x, n, d)?;
    let ys = TargetStandardiser::fit(&train.y)?;
    let x_train = xs.transform(&train.x)?;
    let y_train = ys.transform(&train.y);
    let x_test = xs.transform(&test.x)?;

    let xt = matrix(x_train.clone(), n, d, &dev)?;
    let yt = matrix(y_train, n, 1, &dev)?;
    let x_eval = matrix(x_test, test.n, d, &base)?;
    let z = inducing_subset(&x_train, n, d, args.m, args.run.seed)?;
    let model = SvgpConfig::new(n).init(
        Rbf::ard(d, 1.0, 1.0, &dev)?,
        InducingPoints::new(&z, args.m, d, &dev)?,
        Gaussian::new(0.1, &dev)?,
        &dev,
    )?;
    let config = TrainConfig { checkpoint: args.checkpoint.config(""), ..args.run.train_config() };
    let y_test = test.y.clone();
    let evaluate = |m: &Svgp<Rbf, InducingPoints, Gaussian>, _epoch: usize| {
        let (mean, var) = m.predict_y(x_eval.clone())?;
        let mu = ys.inverse_mean(&to_vec(mean));
        let s2 = ys.inverse_var(&to_vec(var));
        let rmse = burn_gp::metrics::rmse(&mu, &y_test)?;
        let ll = burn_gp::metrics::gaussian_log_likelihood(&mu, &s2, &y_test)?;
        Ok(vec![("rmse".to_string(), rmse), ("test_ll".to_string(), ll)])
    };
    let t0 = Instant::now();
    let (model, history) = match &args.file.load {
        Some(path) => (Svgp::<Rbf, InducingPoints, Gaussian>::load(path, &base)?, History::default()),
        None => {
            let (model, history) = fit(model, n, &config, |m, idx| m.minibatch_loss(&xt, &yt, idx), evaluate)?;
            (model.valid(), history)
        }
    };
    let total_s = t0.elapsed().as_secs_f64();
    args.run.write_curve(&history)?;
    figures.curves(
        "curves",
        &format!("SVGP on {} split {}: training", args.dataset, args.split),
        &[("svgp", &history)],
    )?;
    if let Some(path) = &args.file.save {
        model.save(path)?;
    }
    let (rmse, test_ll) = match (history.last_metric("rmse"), history.last_metric("test_ll")) {
        (Some(rmse), Some(ll)) => (rmse, ll),
        _ => {
            let metrics = evaluate(&model, 0)?;
            (metrics[0].1, metrics[1].1)
        }
    };
    let noise = ys.inverse_var(&model.likelihood.variance.to_vec())[0];
    let title = format!(
        "SVGP on {} split {} (n_train={n}, n_test={}, d={d}, M={}, backend={backend})",
        args.dataset, args.split, test.n, args.m
    );
    let final_objective = history.records.last().map(|r| r.objective).unwrap_or(f64::NAN);
    common::print_table(
        &title,
        &[
            ("s / epoch", format!("{:.4}", history.mean_epoch_s())),
            ("total s (with evaluation)", format!("{total_s:.2}")),
            ("final -ELBO / N", format!("{final_objective:.4}")),
            ("test RMSE", format!("{rmse:.4}")),
            ("test log-likelihood", format!("{test_ll:.4}")),
            ("noise variance", format!("{noise:.5}")),
        ],
    );
    if args.run.json {
        let line = serde_json::json!({
            "example": "svgp_uci",
            "dataset": args.dataset,
            "split": args.split,
            "m": args.m,
            "epochs": args.run.epochs,
            "epoch_s": history.mean_epoch_s(),
            "epoch_times_s": history.records.iter().map(|r| r.epoch_s).collect::<Vec<_>>(),
            "objective": final_objective,
            "rmse": rmse,
            "test_ll": test_ll,
            "backend": backend,
        });
        println!("{line}");
    }
    Ok(())
}
