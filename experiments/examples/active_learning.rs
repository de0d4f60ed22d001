//! Active learning with the multi-class Bayesian SVM (Wistuba & Rawat 2018, §4.3.1): which
//! pool point to label next, by the Bayesian variation ratio or by the entropy of softmax(mean)?
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example active_learning                        # every set, 100 queries
//! cargo run --release -p burn-gp-experiments --example active_learning -- --sets iris,glass,vehicle --queries 30 --csv al.csv
//! cargo run --release -p burn-gp-experiments --example active_learning -- --sets yeast --max-train 2000 --epochs 400 --reference
//! cargo run --release -p burn-gp-experiments --example active_learning -- --summarise s0.csv,s1.csv,s2.csv --plot figs  # runs' --csv files
//! ```
//!
//! Protocol, per PMLB multi-class set (`--sets`, default every set in `<data>/pmlb_multiclass`;
//! `--max-rows`, `--max-train` as in `bsvm_pmlb`): one stratified 80/20 split (seed `--seed`,
//! z-scored with the training statistics); the training part is the pool, the test part measures
//! the error. Start from one labelled pool point per class (uniformly at random, seeded); then
//! `--queries` times (100), refit an MC-BSVM with P = `--m` (4) inducing points on the labelled
//! points from scratch, score unlabelled pool points and label the best one. Two policies share
//! the start: `vr`, the variation ratio from `--samples` (100) posterior draws, and `entropy`, the
//! entropy of softmax of the latent means. A pool larger than `--candidates` (10,000) is scored on
//! a fresh random subset of that size per query (our choice for poker; `docs/papers/003-bayesian-svm.md`,
//! section "Defaults"); ties go to a random candidate. Test error is recorded after every refit
//! (query 0 = the initial labels).
//!
//! Refit: the initial kernel (ARD RBF, σ² = 1, median-heuristic lengthscale) and inducing inputs
//! (k-means) are placed once per set on the pool's inputs (no labels used), and every refit starts
//! from them with the same seed. `--refit adam` (default): `--epochs` (200) full-batch Adam steps
//! at `--lr` (1e-2) on q(u), kernel and inducing inputs, i.e. the paper's model and optimiser with
//! a step size that suits ≤ C + 100 points in one batch (at the tabular 5e-4, 200 steps barely
//! leave the prior; 1000 steps lower the full-pool error a little more at 5× the cost).
//! `--refit ca`: `--sweeps` closed-form coordinate-ascent sweeps on q(u) (the paper's Appendix C, with
//! eq. 45 corrected) with the kernel and inducing inputs fixed, an order of magnitude cheaper; on the
//! sets tried it fitted far worse than Adam (lower ELBO, near-chance error), so it is not the
//! default. `--batch` is not used (full batch).
//! `--reference` also fits the model on the whole pool: the error the curves head for.
//!
//! Output: per set a progress bar and a line on stderr; on stdout a per-set table and the mean
//! rank of the two policies (1 = lower test error, ties 1.5) over sets at a few query counts.
//! `--csv FILE`: columns `set,query,policy,test_error`. `--plot DIR`: `active_learning_curves.svg`,
//! the test error against queries, one panel per set, and `active_learning_mean_rank.svg`, the
//! policies' mean rank against queries (the paper's Fig. 5a). `--json`: one line per set
//! `{"set","classes","pool","test","initial_error","final_error_vr","final_error_entropy","mean_rank_vr","mean_rank_entropy","reference_error","seconds"}`,
//! then the last line
//! `{"example":"active_learning","sets":…,"runs":…,"queries":…,"mean_rank_vr":…,"mean_rank_entropy":…,"run_mean_rank_vr":[…],"se_rank_vr_runs":…,"se_rank_vr_sets":…,"sets_vr_better_tie_worse":[…],"sign_test_p":…,"mean_rank_vr_at":[…],"final_error_vr":…,"final_error_entropy":…,"m":…,…}`
//! (mean ranks over sets, runs and query steps 1..Q; `mean_rank_vr_at[q]`: over sets and runs
//! after q queries, q = 0..=Q; a set "better" for VR when its mean rank is below 1.5, with a two-sided sign test
//! over sets; final errors averaged over sets and runs).
//!
//! `--summarise FILES` trains nothing: it reads the `--csv` files of earlier runs, one a run (a
//! `--seed` each), and prints the same tables over every set × run curve, a per-set table of VR's
//! mean rank over the runs that have the set, and the same summary line without the run settings
//! and with `"summarised":[files]`; `--plot` draws the mean-rank figure. Every curve must have
//! the same `--queries`.
use std::time::Instant;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor};
use burn_gp::data::data_root;
use burn_gp::likelihoods::{one_hot, MultiClassHinge};
use burn_gp::models::{BayesianSvm, BayesianSvmConfig};
use burn_gp::tensors::matrix;
use burn_gp::{Error, Result};
use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde_json::json;

use burn_gp_experiments::common;
use burn_gp_experiments::learning_curves;
use burn_gp_experiments::tabular;

use learning_curves::{compare, Comparison, Policy, PolicyCurves};
use tabular::{class_predictive, num, InitParts, Split, TabularSet};

/// How the model is refitted after each query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Refit {
    /// Full-batch Adam on q(u), kernel and inducing inputs.
    Adam,
    /// Closed-form coordinate ascent on q(u); kernel and inducing inputs fixed.
    Ca,
}

impl Refit {
    /// Name in the output.
    fn key(self) -> &'static str {
        match self {
            Refit::Ca => "ca",
            Refit::Adam => "adam",
        }
    }
}

/// Command-line options.
#[derive(Parser, Debug)]
#[command(about = "Active learning with the multi-class Bayesian SVM: variation ratio vs entropy (paper §4.3.1)")]
struct Args {
    /// Set selection: --sets, --max-rows, --max-train (caps the pool).
    #[command(flatten)]
    selection: tabular::SetOptions,
    /// Inducing points P (the paper: 4).
    #[arg(long, default_value_t = 4)]
    m: usize,
    /// Queries after the initial one label per class.
    #[arg(long, default_value_t = 100)]
    queries: usize,
    /// Posterior samples S for the variation ratio.
    #[arg(long, default_value_t = 100)]
    samples: usize,
    /// Pool points scored per query (a random subset of a larger pool).
    #[arg(long, default_value_t = 10_000)]
    candidates: usize,
    /// How the model is refitted after each query.
    #[arg(long, value_enum, default_value_t = Refit::Adam)]
    refit: Refit,
    /// Coordinate-ascent sweeps per refit (--refit ca).
    #[arg(long, default_value_t = 20)]
    sweeps: usize,
    /// Also fit on the whole pool and report that test error.
    #[arg(long)]
    reference: bool,
    /// Train nothing: compare the policies over the `--csv` curves of earlier runs, one file a
    /// run (e.g. one a `--seed`), comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["sets", "reference", "csv"])]
    summarise: Vec<std::path::PathBuf>,
    /// Shared options: epochs (Adam steps per refit), lr, seed, data, device, precision, csv, json, no-progress, plot.
    #[command(flatten)]
    run: common::RunOptions,
}

/// Devices and settings of the run.
struct Ctx<'a> {
    args: &'a Args,
    train: Device,
    base: Device,
}

/// The two learning curves of one set.
struct SetCurves {
    /// Test error after 0..=Q queries, per policy.
    curves: PolicyCurves,
    classes: usize,
    pool: usize,
    /// Pool rows before `--max-train` subsampling, when it subsampled.
    pool_full: Option<usize>,
    test: usize,
    /// Test error of the model fitted on the whole pool (`--reference`).
    reference: Option<f64>,
    seconds: f64,
}

/// Rows `idx` of a row-major matrix with `d` columns.
fn rows(x: &[f64], d: usize, idx: &[usize]) -> Vec<f64> {
    idx.iter().flat_map(|&i| x[i * d..(i + 1) * d].iter().copied()).collect()
}

/// `steps` full-batch Adam steps at `lr` on `−ELBO/N` of `(x, y)` (autodiff device), without a
/// progress bar; returns the model without autodiff.
fn adam_full_batch(mut model: BayesianSvm, x: &Tensor<2>, y: &Tensor<2>, steps: usize, lr: f64) -> Result<BayesianSvm> {
    let n = x.dims()[0] as f64;
    let mut optim = AdamConfig::new().init();
    for step in 1..=steps {
        let loss = model.elbo(x.clone(), y.clone())?.neg().div_scalar(n);
        let value = loss.clone().into_scalar::<f64>();
        if !value.is_finite() {
            return Err(Error::invalid("objective", format!("became {value} at Adam step {step}; try a smaller --lr")));
        }
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(lr, model, grads);
    }
    Ok(model.valid())
}

/// A fresh MC-BSVM from `parts`, fitted to the labelled rows `idx` of the pool; on the base device.
fn refit(ctx: &Ctx, cfg: &BayesianSvmConfig, parts: &InitParts, split: &Split, idx: &[usize]) -> Result<BayesianSvm> {
    let (n, d, c) = (idx.len(), split.d, split.classes);
    let labels: Vec<usize> = idx.iter().map(|&i| split.y_train[i]).collect();
    let x = rows(&split.x_train, d, idx);
    match ctx.args.refit {
        Refit::Ca => {
            let dev = &ctx.base;
            let model = parts.model(cfg, MultiClassHinge::default(), c, n, dev)?;
            model.coordinate_ascent(matrix(x, n, d, dev)?, one_hot(&labels, c, dev)?, ctx.args.sweeps)
        }
        Refit::Adam => {
            let dev = &ctx.train;
            let model = parts.model(cfg, MultiClassHinge::default(), c, n, dev)?;
            let (x, y) = (matrix(x, n, d, dev)?, one_hot(&labels, c, dev)?);
            adam_full_batch(model, &x, &y, ctx.args.run.epochs, ctx.args.run.lr)
        }
    }
}

/// Test error of `model` on the split's test part.
fn test_error(ctx: &Ctx, model: &BayesianSvm, split: &Split) -> Result<f64> {
    let pred = class_predictive(&split.x_test, split.d, &ctx.base, |x| model.predict_f(x))?;
    Ok(1.0 - tabular::accuracy(&pred.classes(), &split.y_test))
}

/// Index of the first largest score.
fn argmax(scores: &[f64]) -> usize {
    scores.iter().enumerate().fold(0, |best, (i, &s)| if s > scores[best] { i } else { best })
}

/// The test-error curve of `policy` from the labelled rows `start` of the pool.
fn run_policy(
    ctx: &Ctx,
    cfg: &BayesianSvmConfig,
    parts: &InitParts,
    split: &Split,
    start: &[usize],
    policy: Policy,
    bar: &ProgressBar,
) -> Result<Vec<f64>> {
    let args = ctx.args;
    let seed = args.run.seed;
    let mut labelled = start.to_vec();
    let mut unlabelled_mask = vec![true; split.n_train()];
    start.iter().for_each(|&i| unlabelled_mask[i] = false);
    // The candidate draws use the same stream for both policies.
    let mut rng = StdRng::seed_from_u64(seed.wrapping_add(0xa11ce));
    let mut errors = Vec::with_capacity(args.queries + 1);
    for q in 0..=args.queries {
        bar.set_message(format!("{} query {q}/{}", policy.key(), args.queries));
        let model = refit(ctx, cfg, parts, split, &labelled)?;
        errors.push(test_error(ctx, &model, split)?);
        bar.inc(1);
        let mut pool: Vec<usize> = (0..split.n_train()).filter(|&i| unlabelled_mask[i]).collect();
        if q == args.queries || pool.is_empty() {
            break;
        }
        pool.shuffle(&mut rng); // random order: random candidate subset and random tie-breaking
        pool.truncate(args.candidates.max(1));
        let pred = class_predictive(&rows(&split.x_train, split.d, &pool), split.d, &ctx.base, |x| model.predict_f(x))?;
        let scores = match policy {
            Policy::Vr => pred.variation_ratio(args.samples, seed.wrapping_add(q as u64)),
            Policy::Entropy => pred.mean_softmax_entropy(),
        };
        let pick = pool[argmax(&scores)];
        unlabelled_mask[pick] = false;
        labelled.push(pick);
    }
    // An exhausted pool: the last error holds for the remaining query counts.
    let last = *errors.last().unwrap_or(&f64::NAN);
    errors.resize(args.queries + 1, last);
    Ok(errors)
}

/// Both curves (and the reference error) of one set.
fn run_set(ctx: &Ctx, set: &TabularSet, tag: &str) -> Result<SetCurves> {
    let args = ctx.args;
    let t0 = Instant::now();
    let seed = args.run.seed;
    let split = set.split(seed, args.selection.max_train)?;
    let (n, c) = (split.n_train(), split.classes);
    let cfg = BayesianSvmConfig::tabular(c).with_num_inducing(args.m.min(n)).with_seed(seed);
    let parts = InitParts::place(&cfg, &split.x_train, split.d, &ctx.base)?;
    // One labelled point per class, uniformly at random (every class is in the pool: stratified split).
    let mut rng = StdRng::seed_from_u64(seed);
    let start: Vec<usize> = (0..c)
        .filter_map(|k| {
            let members: Vec<usize> = (0..n).filter(|&i| split.y_train[i] == k).collect();
            (!members.is_empty()).then(|| members[rng.random_range(0..members.len())])
        })
        .collect();
    let bar = if args.run.no_progress {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(2 * (args.queries as u64 + 1));
        b.set_style(
            ProgressStyle::with_template(&format!("{tag} {{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {{msg}}"))
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b
    };
    let vr = run_policy(ctx, &cfg, &parts, &split, &start, Policy::Vr, &bar)?;
    let entropy = run_policy(ctx, &cfg, &parts, &split, &start, Policy::Entropy, &bar)?;
    bar.finish_and_clear();
    let reference = if args.reference {
        let all: Vec<usize> = (0..n).collect();
        Some(test_error(ctx, &refit(ctx, &cfg, &parts, &split, &all)?, &split)?)
    } else {
        None
    };
    Ok(SetCurves {
        curves: PolicyCurves { set: set.name.clone(), vr, entropy },
        classes: c,
        pool: n,
        pool_full: split.subsampled().then_some(split.train_full),
        test: split.n_test(),
        reference,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// `--plot`: the test error against queries, one panel per set, a line per policy (and the
/// `--reference` error as a flat line).
fn plot_curves(args: &Args, sets: &[SetCurves]) -> Result<()> {
    let line = |name: &str, curve: &[f64]| common::plot::Series {
        name: name.to_string(),
        points: curve.iter().enumerate().map(|(q, &e)| (q as f64, e)).collect(),
    };
    let panels: Vec<common::plot::Panel> = sets
        .iter()
        .map(|s| {
            let mut series = vec![line("variation ratio", &s.curves.vr), line("entropy", &s.curves.entropy)];
            if let Some(r) = s.reference {
                let points = vec![(0.0, r), (args.queries as f64, r)];
                series.push(common::plot::Series { name: "whole pool".into(), points });
            }
            common::plot::Panel { y_label: format!("{}: test error", s.curves.set), series }
        })
        .collect();
    let title = format!("Active learning, MC-BSVM with P = {}: test error per query", args.m);
    args.run.plot.figures("active_learning")?.lines("curves", &title, "queries", &panels)
}

/// `--plot`: the paper's Fig. 5a, each policy's mean rank over the sets (and runs) against queries.
fn plot_mean_ranks(args: &Args, cmp: &Comparison) -> Result<()> {
    let series = |name: &str, k: usize| common::plot::Series {
        name: name.to_string(),
        points: cmp.rank_at.iter().enumerate().map(|(q, r)| (q as f64, r[k])).collect(),
    };
    let panel = common::plot::Panel {
        y_label: "mean rank (1 = lower test error)".into(),
        series: vec![series("variation ratio", 0), series("entropy", 1)],
    };
    let title = format!("Active learning: mean rank over {} sets × {} runs", cmp.sets, cmp.runs);
    args.run.plot.figures("active_learning")?.lines("mean_rank", &title, "queries", &[panel])
}

/// Prints the rank table of `cmp` at a few query counts and its summary table.
fn print_comparison(cmp: &Comparison, failed: &[String]) {
    let q_max = cmp.queries;
    let mut steps: Vec<usize> = [0, 1, 5, 10, 20, 30, 50, 75, 100].into_iter().filter(|&q| q <= q_max).collect();
    if !steps.contains(&q_max) {
        steps.push(q_max);
    }
    println!(
        "\nMean over {} sets × {} run(s), {} curves (rank 1 = lower test error, ties 1.5)",
        cmp.sets, cmp.runs, cmp.curves
    );
    println!(
        "| queries | mean rank VR | mean rank entropy | mean error VR | mean error entropy | VR better/tie/worse |"
    );
    println!("|---|---|---|---|---|---|");
    for &q in &steps {
        let [better, tie, worse] = cmp.better_at[q];
        println!(
            "| {q} | {:.3} | {:.3} | {:.4} | {:.4} | {better}/{tie}/{worse} |",
            cmp.rank_at[q][0], cmp.rank_at[q][1], cmp.error_at[q][0], cmp.error_at[q][1]
        );
    }
    let [wins, ties, losses] = cmp.set_wins_ties_losses;
    let runs: Vec<String> = cmp.run_mean_rank_vr.iter().map(|r| format!("{r:.3}")).collect();
    common::print_table(
        "\nSummary (mean ranks over sets, runs and queries 1..Q)",
        &[
            ("mean rank VR", format!("{:.3}", cmp.mean_rank[0])),
            ("mean rank entropy", format!("{:.3}", cmp.mean_rank[1])),
            ("VR's mean rank per run (s.e.)", format!("{} ({:.3})", runs.join(", "), cmp.se_rank_vr_runs)),
            ("VR's s.e. over sets", format!("{:.3}", cmp.se_rank_vr_sets)),
            (
                "sets where VR ranks better/tie/worse",
                format!("{wins}/{ties}/{losses}, sign test p = {:.2e}", cmp.sign_test_p),
            ),
            (&format!("mean test error after {q_max} queries, VR"), format!("{:.4}", cmp.error_at[q_max][0])),
            (&format!("mean test error after {q_max} queries, entropy"), format!("{:.4}", cmp.error_at[q_max][1])),
            ("sets failed or skipped", if failed.is_empty() { "none".into() } else { failed.join(", ") }),
        ],
    );
}

/// The `--json` summary line's keys shared by a run and `--summarise`.
fn comparison_json(cmp: &Comparison) -> serde_json::Map<String, serde_json::Value> {
    let q = cmp.queries;
    let at: Vec<serde_json::Value> = cmp.rank_at.iter().map(|r| num(r[0])).collect();
    let [wins, ties, losses] = cmp.set_wins_ties_losses;
    let line = json!({
        "example": "active_learning",
        "sets": cmp.sets,
        "runs": cmp.runs,
        "queries": q,
        "mean_rank_vr": num(cmp.mean_rank[0]),
        "mean_rank_entropy": num(cmp.mean_rank[1]),
        "run_mean_rank_vr": cmp.run_mean_rank_vr.iter().map(|&r| num(r)).collect::<Vec<_>>(),
        "se_rank_vr_runs": num(cmp.se_rank_vr_runs),
        "se_rank_vr_sets": num(cmp.se_rank_vr_sets),
        "sets_vr_better_tie_worse": [wins, ties, losses],
        "sign_test_p": num(cmp.sign_test_p),
        "mean_rank_vr_at": at,
        "final_error_vr": num(cmp.error_at[q][0]),
        "final_error_entropy": num(cmp.error_at[q][1]),
    });
    match line {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("json! of an object literal"),
    }
}

/// Prints the per-set table, the rank table and (with `--json`) the summary line.
fn report(args: &Args, sets: &[SetCurves], failed: &[String], backend: &str) -> Result<()> {
    let q_max = args.queries;
    println!(
        "\nActive learning, MC-BSVM with P = {}, refit {}, S = {}, {} queries, backend {backend}",
        args.m,
        args.refit.key(),
        args.samples,
        q_max
    );
    println!("| set | C | pool | test | error q=0 | error VR q={q_max} | error entropy q={q_max} | mean rank VR | reference error |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for s in sets {
        let reference = s.reference.map_or("-".to_string(), |e| format!("{e:.4}"));
        let c = &s.curves;
        println!(
            "| {} | {} | {} | {} | {:.4} | {:.4} | {:.4} | {:.3} | {reference} |",
            c.set,
            s.classes,
            s.pool,
            s.test,
            c.vr[0],
            c.vr[q_max],
            c.entropy[q_max],
            c.mean_ranks()[0]
        );
    }
    let curves: Vec<&PolicyCurves> = sets.iter().map(|s| &s.curves).collect();
    if let Some(path) = &args.run.csv {
        learning_curves::write_csv(path, &curves)?;
    }
    plot_curves(args, sets)?;
    if sets.is_empty() {
        return Err(Error::invalid("sets", format!("no set ran ({})", failed.join(", "))));
    }
    let cmp = compare(&[curves.into_iter().cloned().collect()])?;
    print_comparison(&cmp, failed);
    plot_mean_ranks(args, &cmp)?;
    if args.run.json {
        let mut line = comparison_json(&cmp);
        for (k, v) in [
            ("m", json!(args.m)),
            ("samples", json!(args.samples)),
            ("candidates", json!(args.candidates)),
            ("refit", json!(args.refit.key())),
            ("failed", json!(failed)),
            ("backend", json!(backend)),
        ] {
            line.insert(k.into(), v);
        }
        println!("{}", serde_json::Value::Object(line));
    }
    Ok(())
}

/// `--summarise`: the comparison over the curves files of earlier runs (one file a run).
fn summarise(args: &Args) -> Result<()> {
    let runs = args.summarise.iter().map(|p| learning_curves::read_csv(p)).collect::<Result<Vec<_>>>()?;
    let cmp = compare(&runs)?;
    println!("| set | runs | mean rank VR |");
    println!("|---|---|---|");
    for (set, n, rank) in &cmp.set_mean_rank_vr {
        println!("| {set} | {n} | {rank:.3} |");
    }
    print_comparison(&cmp, &[]);
    plot_mean_ranks(args, &cmp)?;
    if args.run.json {
        let mut line = comparison_json(&cmp);
        line.insert("summarised".into(), json!(args.summarise));
        println!("{}", serde_json::Value::Object(line));
    }
    Ok(())
}

fn run(args: Args) -> Result<()> {
    if args.m == 0 || args.samples == 0 {
        return Err(Error::invalid("arguments", "--m and --samples must be positive"));
    }
    // checks --plot before training
    args.run.plot.figures("active_learning")?;
    if !args.summarise.is_empty() {
        return summarise(&args);
    }
    let common::Devices { backend, base, train } = args.run.devices()?;
    let root = data_root(args.run.data.as_deref())?;
    let names = args.selection.resolve(&root)?;
    let ctx = Ctx { args: &args, train, base };
    eprintln!(
        "active_learning: {} sets, P = {}, {} queries, S = {}, candidates {}, refit {} ({}), seed {}, backend {backend}",
        names.len(),
        args.m,
        args.queries,
        args.samples,
        args.candidates,
        args.refit.key(),
        match args.refit {
            Refit::Ca => format!("{} sweeps", args.sweeps),
            Refit::Adam => format!("{} steps at lr {}", args.run.epochs, args.run.lr),
        },
        args.run.seed,
    );
    let (mut sets, mut failed) = (Vec::new(), Vec::new());
    for (i, name) in names.iter().enumerate() {
        let tag = format!("[{}/{}] {name}", i + 1, names.len());
        let result = TabularSet::load(&root, name).and_then(|set| {
            if args.selection.too_big(set.rows()) {
                Ok(None)
            } else {
                run_set(&ctx, &set, &tag).map(Some)
            }
        });
        match result {
            Ok(Some(s)) => {
                let [rank_vr, rank_entropy] = s.curves.mean_ranks();
                let (q, c) = (args.queries, &s.curves);
                let sub = s.pool_full.map_or(String::new(), |full| format!(", subsampled from {full}"));
                eprintln!(
                    "{tag} (C {}, pool {}{sub}, test {}): error {:.4} at start; after {q} queries VR {:.4}, entropy {:.4}; mean rank VR {rank_vr:.3} [{:.1} s]",
                    s.classes, s.pool, s.test, c.vr[0], c.vr[q], c.entropy[q], s.seconds
                );
                if args.run.json {
                    let line = json!({
                        "set": c.set,
                        "classes": s.classes,
                        "pool": s.pool,
                        "pool_full": s.pool_full,
                        "test": s.test,
                        "initial_error": num(c.vr[0]),
                        "final_error_vr": num(c.vr[q]),
                        "final_error_entropy": num(c.entropy[q]),
                        "mean_rank_vr": num(rank_vr),
                        "mean_rank_entropy": num(rank_entropy),
                        "reference_error": s.reference.map(num),
                        "seconds": num(s.seconds),
                    });
                    println!("{line}");
                }
                sets.push(s);
            }
            Ok(None) => {
                eprintln!("{tag}: skipped (more than --max-rows {} rows)", args.selection.max_rows);
                failed.push(format!("{name} (skipped)"));
            }
            Err(e) => {
                eprintln!("{tag}: error: {e}");
                failed.push(name.clone());
            }
        }
    }
    report(&args, &sets, &failed, &backend)
}

fn main() {
    let args: Args = common::parse_with_defaults(&[("epochs", "200"), ("lr", "1e-2")]);
    common::exit_on_error(run(args));
}
