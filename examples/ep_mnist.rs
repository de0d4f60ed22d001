//! MNIST odd vs even by stochastic (minibatch) SEP and, in the same run, SVI (our SVGP with a
//! probit likelihood), both with m = 200 inducing points, minibatches of 200 and Adadelta
//! (ρ = 0.9, ε = 1e-5), as in §4.5 of Hernández-Lobato & Hernández-Lobato. Pixels are
//! standardised with the training mean and sd; the inducing inputs start at the same random
//! training images for both methods.
//!
//! ```text
//! cargo run --release --example ep_mnist -- --epochs 5
//! ```
//!
//! `--modes sep-batch --iterations N --shards K` runs batch SEP with the data split into K shards
//! processed by parallel threads (the paper's distributed mode; metrics equal one shard).
//!
//! `--json` prints one line per method and last the SEP line:
//! `{"example":"ep_mnist","mode":"sep"|"sep-batch"|"svi","m":…,"epochs":…,"iterations":…,"shards":…,"train_size":…,"error":…,"nll":…,"train_s":…}`.
//! Paper (batch training, m = 200): SEP 2.7 % error, NLL 0.0694; SVI 2.2 %, 0.0655.
mod common;

use std::time::Instant;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use burn_gp::data::{data_root, load_mnist, MnistVariant, Standardiser, Subset};
use burn_gp::inducing::{inducing_subset, InducingPoints};
use burn_gp::kernels::{median_distance, Rbf};
use burn_gp::likelihoods::BernoulliProbit;
use burn_gp::models::ep::{EpConfig, EpGpClassifier, EpMode};
use burn_gp::models::{Svgp, SvgpConfig};
use burn_gp::optim::Adadelta;
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::train::{fit_loop, TrainConfig};
use burn_gp::{Error, Result};
use clap::Parser;

/// Command line of the example.
#[derive(Parser, Debug)]
#[command(about = "MNIST odd vs even: minibatch SEP vs SVI with m = 200 (paper 001, §4.5)")]
struct Args {
    /// Inducing points.
    #[arg(long, default_value_t = 200)]
    m: usize,
    /// Minibatch size (the paper: 200; SEP needs |B| ≤ m).
    #[arg(long, default_value_t = 200)]
    batch: usize,
    /// Passes over the training set.
    #[arg(long, default_value_t = 5)]
    epochs: usize,
    /// Use only the first N training images (0 = all 60 000).
    #[arg(long, default_value_t = 0)]
    train_size: usize,
    /// Comma-separated methods: sep (minibatch SEP), sep-batch (batch SEP, `--iterations`,
    /// `--shards`), svi.
    #[arg(long, default_value = "svi,sep")]
    modes: String,
    /// Batch SEP: hyperparameter iterations (the paper: 250).
    #[arg(long, default_value_t = 250)]
    iterations: usize,
    /// Batch SEP: data shards processed in parallel threads (results equal one shard).
    #[arg(long, default_value_t = 1)]
    shards: usize,
    /// Random seed (inducing inputs, minibatch order).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    opts: common::BasicOptions,
}

/// Standardised pixels and ±1 labels (odd = +1).
struct Data {
    x_train: Vec<f64>,
    y_train: Vec<f64>,
    x_test: Vec<f64>,
    y_test: Vec<f64>,
    d: usize,
}

fn load(args: &Args) -> Result<Data> {
    let root = data_root(args.opts.data.as_deref())?;
    let train = load_mnist(&root, MnistVariant::Digits, Subset::Train)?.to_table()?;
    let test = load_mnist(&root, MnistVariant::Digits, Subset::Test)?.to_table()?;
    let keep = if args.train_size == 0 { train.n } else { args.train_size.min(train.n) };
    let train = train.select_rows(&(0..keep).collect::<Vec<_>>())?;
    let scaler = Standardiser::fit(&train.x, train.n, train.d)?;
    let sign = |y: &[usize]| y.iter().map(|&c| if c % 2 == 1 { 1.0 } else { -1.0 }).collect();
    Ok(Data {
        x_train: scaler.transform(&train.x)?,
        y_train: sign(&train.y),
        x_test: scaler.transform(&test.x)?,
        y_test: sign(&test.y),
        d: train.d,
    })
}

/// Test error and NLL from `log p(y_i | x_i)`.
fn metrics(log_density: &[f64]) -> (f64, f64) {
    let n = log_density.len() as f64;
    let error = log_density.iter().filter(|&&l| l < 0.5f64.ln()).count() as f64 / n;
    (error, -log_density.iter().sum::<f64>() / n)
}

fn run(args: Args) -> Result<()> {
    let (base, dev) = args.opts.devices()?;
    let data = load(&args)?;
    let (n, d, m) = (data.y_train.len(), data.d, args.m);
    if args.batch > m {
        return Err(Error::invalid("batch", format!("SEP needs |B| ≤ m; got |B| = {} > m = {m}", args.batch)));
    }
    let z = inducing_subset(&data.x_train, n, d, m, args.seed)?;
    let ell = median_distance(&z, m, d, m, args.seed)?;
    let x = matrix(data.x_train.clone(), n, d, &dev)?;
    let x_test = matrix(data.x_test.clone(), data.y_test.len(), d, &dev)?;
    let mut rows = Vec::new();
    for mode in args.modes.split(',').map(str::trim) {
        let kernel = Rbf::ard(d, ell, 1.0, &dev)?;
        let inducing = InducingPoints::new(&z, m, d, &dev)?;
        let t0 = Instant::now();
        let log_density = match mode {
            "sep" | "sep-batch" => {
                let model = EpGpClassifier::new(kernel, inducing, 1e-3, 1e-6, &dev)?;
                let config = if mode == "sep" {
                    EpConfig::new().with_mode(EpMode::Minibatch).with_batch_size(args.batch).with_epochs(args.epochs)
                } else {
                    EpConfig::new().with_mode(EpMode::Inner).with_iterations(args.iterations).with_shards(args.shards)
                };
                let config = config.with_seed(args.seed).with_progress(args.opts.progress());
                let fitted = model.fit(&x, &data.y_train, &config, |_, _, _| Ok(vec![]))?;
                fitted.predict_log_density(&x_test, &data.y_test)?
            }
            "svi" => {
                let targets: Vec<f64> = data.y_train.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect();
                let y = matrix(targets, n, 1, &dev)?;
                let model =
                    SvgpConfig::new(n).with_seed(args.seed).init(kernel, inducing, BernoulliProbit::default(), &dev)?;
                let config = TrainConfig {
                    epochs: args.epochs,
                    batch_size: args.batch,
                    lr: 1.0,
                    seed: args.seed,
                    progress: args.opts.progress(),
                };
                let mut optim = Adadelta::new(0.9, 1e-5).init();
                let step = |model: Svgp<Rbf, InducingPoints, BernoulliProbit>, batch: &[usize], _| {
                    let loss = model.minibatch_loss(&x, &y, batch)?;
                    let value = loss.clone().into_scalar::<f64>();
                    let grads = GradientsParams::from_grads(loss.backward(), &model);
                    Ok((optim.step(1.0, model, grads), value))
                };
                let (model, _) = fit_loop(model, n, &config, "−ELBO/N", step, |_, _| Ok(vec![]))?;
                let model = model.valid();
                let (mean, var) = model.predict_f_chunked(Tensor::from_data(x_test.to_data(), &base), 2048)?;
                let (mean, var) = (to_vec(mean), to_vec(var));
                mean.iter()
                    .zip(&var)
                    .zip(&data.y_test)
                    .map(|((m, v), y)| burn_gp::special::log_ndtr(y * m / (1.0 + v).sqrt()))
                    .collect()
            }
            other => return Err(Error::invalid("modes", format!("unknown method `{other}` (sep, sep-batch, svi)"))),
        };
        let train_s = t0.elapsed().as_secs_f64();
        let (error, nll) = metrics(&log_density);
        rows.push((mode.to_string(), error, nll, train_s));
    }
    // SEP last (the JSON contract's final line)
    rows.sort_by_key(|r| r.0.starts_with("sep"));
    for (mode, error, nll, train_s) in &rows {
        if args.opts.json {
            println!(
                "{}",
                serde_json::json!({
                    "example": "ep_mnist", "mode": mode, "m": m, "epochs": args.epochs, "iterations": args.iterations,
                    "shards": args.shards, "train_size": n,
                    "error": error, "nll": nll, "train_s": train_s,
                })
            );
        }
    }
    if !args.opts.json {
        println!("MNIST odd vs even, m = {m}, minibatch {}, {} epochs, {n} training images", args.batch, args.epochs);
        println!("| method | test error | test NLL | train s | paper error / NLL (batch) |");
        println!("|---|---|---|---|---|");
        for (mode, error, nll, train_s) in &rows {
            let paper = if mode.starts_with("sep") { "2.7 % / 0.0694" } else { "2.2 % / 0.0655" };
            println!("| {} | {:.2} % | {nll:.4} | {train_s:.1} | {paper} |", mode.to_uppercase(), 100.0 * error);
        }
    }
    Ok(())
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}
