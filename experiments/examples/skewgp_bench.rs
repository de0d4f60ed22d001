//! Speed of the skew GP's two hard kernels (paper §5.3 and Fig. 4; `docs/papers/000-skew-gp.md`):
//!
//! 1. One 32-dimensional `Φ` (a training block: `s = 2` plus 30 probit rows of the paper's Fig. 4
//!    data, RBF ℓ = 0.5, σ² = 2) by Genz's method with `--points` × `--shifts` lattice points
//!    (default 500 × 10 = 5 000, the paper's setting; paper: about 0.5 s on a laptop): the host
//!    f64 estimator, the tensor estimator on one block, the tensor estimator on `--blocks` blocks
//!    at once (time per block) and one forward + backward pass through it.
//! 2. Posterior sampling of `U₁ ~ N(0, Γ̃)` on `U₁ + γ̃ > 0` (`s = 0`, Fig. 4 data of `n` rows):
//!    lin-ess (rejection free, one constraint check per step) against plain elliptical slice
//!    sampling (ESS, shrinking brackets), same chains, burn-in and kept draws; samples per second
//!    (kept draws / wall time including burn-in) and constraint checks per chain-step.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example skewgp_bench
//! cargo run --release -p burn-gp-experiments --example skewgp_bench -- --sizes 50,100,200,400 --samples 1000 --json
//! ```
//!
//! Timings are medians over `--reps` repetitions (the first, warm-up run is dropped). `--json`
//! prints one final line
//! `{"example":"skewgp_bench","phi32_host_s":…,"phi32_tensor_s":…,"phi32_batched_per_block_s":…,"phi32_grad_s":…,"sizes":[…],"lin_ess_samples_per_s":[…],"ess_samples_per_s":[…],"ess_checks_per_step":[…]}`.
use burn_gp_experiments::common;

use std::time::Instant;

use burn::tensor::{Device, Tensor, TensorData};
use burn_gp::kernels::Rbf;
use burn_gp::models::skew_gp::{SkewGp, SkewGpPosterior};
use burn_gp::mvn::{
    genz_log_cdf, log_mvn_cdf, ChainConfig, EllipticalSlice, LinEss, LinEssVariant, QmcPoints, TruncatedNormal,
};
use burn_gp::tensors::{matrix, to_vec};
use burn_gp::Result;
use clap::Parser;
use common::BasicOptions;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde_json::json;

/// Command line of the example.
#[derive(Parser, Debug)]
#[command(about = "Skew GP speed: one 32-dimensional Genz Φ, and lin-ess vs elliptical slice sampling")]
struct Args {
    #[command(flatten)]
    opts: BasicOptions,
    /// Lattice points per random shift.
    #[arg(long, default_value_t = 500)]
    points: usize,
    /// Random lattice shifts.
    #[arg(long, default_value_t = 10)]
    shifts: usize,
    /// Probit rows per block (the paper: 30; the block dimension is this + 2).
    #[arg(long, default_value_t = 30)]
    block_size: usize,
    /// Blocks evaluated together in the batched timing.
    #[arg(long, default_value_t = 8)]
    blocks: usize,
    /// Timed repetitions (after one warm-up).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Training-set sizes n of the sampler comparison.
    #[arg(long, value_delimiter = ',', default_value = "50,100,200")]
    sizes: Vec<usize>,
    /// Kept draws per sampler run.
    #[arg(long, default_value_t = 1000)]
    samples: usize,
    /// Chains per sampler run.
    #[arg(long, default_value_t = 16)]
    chains: usize,
    /// Burn-in steps per chain (both samplers).
    #[arg(long, default_value_t = 100)]
    burn_in: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn main() {
    common::exit_on_error(run(Args::parse()));
}

fn run(args: Args) -> Result<()> {
    let (base, train) = args.opts.devices()?;
    let dim = args.block_size + 2;
    // one realistic block: Theorem 1's γ̃, Γ̃ for 30 rows of Fig. 4 data with s = 2
    let blocks: Vec<(Vec<f64>, Vec<f64>)> = (0..args.blocks.max(1))
        .map(|b| block_system(args.block_size, 2, args.seed + b as u64, &base))
        .collect::<Result<_>>()?;
    let (a0, cov0) = &blocks[0];
    let points = QmcPoints::lattice(dim - 1, args.points, args.shifts, args.seed)?;
    let host = median_time(args.reps, || genz_log_cdf(a0, cov0, &points).map(|e| e.log_p))?;
    let one = median_time(args.reps, || tensor_cdf(&blocks[..1], &points, &base, false))?;
    let batched = median_time(args.reps, || tensor_cdf(&blocks, &points, &base, false))?;
    let grad = median_time(args.reps, || tensor_cdf(&blocks[..1], &points, &train, true))?;
    let per_block = batched.0 / blocks.len() as f64;
    common::print_table(
        &format!("One Φ_{dim} with {} lattice points (paper: about 0.5 s; value ln Φ̂ = {:.4})", points.len(), host.1),
        &[
            ("host f64 estimator (s)", format!("{:.4}", host.0)),
            ("tensor estimator, 1 block (s)", format!("{:.4}", one.0)),
            (&format!("tensor estimator, {} blocks, per block (s)", blocks.len()), format!("{per_block:.4}")),
            ("tensor forward + backward, 1 block (s)", format!("{:.4}", grad.0)),
        ],
    );
    let mut lin_rates = Vec::new();
    let mut ess_rates = Vec::new();
    let mut ess_checks = Vec::new();
    println!();
    println!("| n | lin-ess samples/s | ESS samples/s | ESS checks per step | lin-ess checks per step |");
    println!("|---|---|---|---|---|");
    for &n in &args.sizes {
        let target = posterior_target(n, args.seed, &base)?;
        let config = ChainConfig { chains: args.chains, burn_in: args.burn_in, samples: args.samples, seed: args.seed };
        let steps = (config.burn_in + config.kept_steps()) * config.chains;
        let t0 = Instant::now();
        let lin = LinEss::new(target.clone(), LinEssVariant::ConnectedArc).run(&config, None)?;
        let lin_s = t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let ess = EllipticalSlice::new(target).run(&config, None)?;
        let ess_s = t0.elapsed().as_secs_f64();
        let (lin_rate, ess_rate) = (args.samples as f64 / lin_s, args.samples as f64 / ess_s);
        let checks = ess.proposals as f64 / steps as f64;
        println!("| {n} | {lin_rate:.0} | {ess_rate:.0} | {checks:.2} | {:.2} |", lin.proposals as f64 / steps as f64);
        lin_rates.push(lin_rate);
        ess_rates.push(ess_rate);
        ess_checks.push(checks);
    }
    if args.opts.json {
        println!(
            "{}",
            json!({
                "example": "skewgp_bench",
                "phi32_host_s": host.0,
                "phi32_tensor_s": one.0,
                "phi32_batched_per_block_s": per_block,
                "phi32_grad_s": grad.0,
                "sizes": args.sizes,
                "lin_ess_samples_per_s": lin_rates,
                "ess_samples_per_s": ess_rates,
                "ess_checks_per_step": ess_checks,
            })
        );
    }
    Ok(())
}

/// Median wall time of `reps` calls of `f` after one warm-up call, with the last call's value.
fn median_time(reps: usize, mut f: impl FnMut() -> Result<f64>) -> Result<(f64, f64)> {
    let mut value = f()?;
    let mut times = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        let t0 = Instant::now();
        value = f()?;
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], value))
}

/// `ln Φ̂` of the stacked blocks by the tensor estimator (summed), with a backward pass if `grad`.
fn tensor_cdf(blocks: &[(Vec<f64>, Vec<f64>)], points: &QmcPoints, device: &Device, grad: bool) -> Result<f64> {
    let (b, d) = (blocks.len(), blocks[0].0.len());
    let a: Vec<f64> = blocks.iter().flat_map(|(a, _)| a.clone()).collect();
    let c: Vec<f64> = blocks.iter().flat_map(|(_, c)| c.clone()).collect();
    let mut cov = Tensor::<3>::from_data(TensorData::new(c, [b, d, d]), device);
    if grad {
        cov = cov.require_grad();
    }
    let upper = Tensor::<2>::from_data(TensorData::new(a, [b, d]), device);
    let total = log_mvn_cdf(upper, cov.clone(), points)?.log_p.sum();
    if grad {
        let grads = total.backward();
        if cov.grad(&grads).is_none() {
            return Err(burn_gp::Error::invalid("cov", "no gradient reached the covariance"));
        }
    }
    Ok(to_vec(total)[0])
}

/// Fig. 4 data: `x ~ N(0, 1)` and labels from a GP draw (RBF ℓ = 0.5, σ² = 2) through the probit.
fn fig4_data(n: usize, seed: u64, device: &Device) -> Result<(Tensor<2>, Vec<usize>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
    let prior = SkewGp::new(Rbf::new(&[0.5], 2.0, device)?, &[], &[], &[], 1e-8, device)?;
    let xt = matrix(x, n, 1, device)?;
    // a latent draw f = L η from the s = 0 posterior's prior factor (labels all 1: Γ̃ = K + I)
    let helper = SkewGpPosterior::new(prior, xt.clone(), &vec![1; n])?;
    let l = helper.gamma_tilde_chol();
    let eta: Vec<f64> = (0..n).map(|_| StandardNormal.sample(&mut rng)).collect();
    // (K + I)^{1/2} η ~ N(0, K + I) is f + ε with ε ~ N(0, I): y = 1{f + ε > 0} are probit labels
    let y = (0..n).map(|i| usize::from((0..=i).map(|k| l[i * n + k] * eta[k]).sum::<f64>() > 0.0)).collect();
    Ok((xt, y))
}

/// Theorem 1's `γ̃`, `Γ̃` (row-major) of `rows` Fig. 4 points under a skew GP prior with `s`
/// pseudo-points.
fn block_system(rows: usize, s: usize, seed: u64, device: &Device) -> Result<(Vec<f64>, Vec<f64>)> {
    let (x, y) = fig4_data(rows, seed, device)?;
    let r: Vec<f64> = (0..s).map(|j| -1.0 + 2.0 * j as f64 / s.max(1) as f64 + 0.05).collect();
    let l: Vec<f64> = (0..s).map(|j| if j % 2 == 0 { -1.0 } else { 1.0 }).collect();
    let gamma: Vec<f64> = (0..s).map(|j| 0.3 - 0.7 * j as f64).collect();
    let prior = SkewGp::new(Rbf::new(&[0.5], 2.0, device)?, &r, &l, &gamma, 1e-8, device)?;
    let post = SkewGpPosterior::new(prior, x, &y)?;
    Ok((post.gamma_tilde().to_vec(), post.gamma_tilde_cov()))
}

/// The `s = 0` posterior's truncated normal `U₁ ~ N(0, Γ̃)` on `U₁ + γ̃ > 0` for `n` Fig. 4 points.
fn posterior_target(n: usize, seed: u64, device: &Device) -> Result<TruncatedNormal> {
    let (x, y) = fig4_data(n, seed, device)?;
    let prior = SkewGp::new(Rbf::new(&[0.5], 2.0, device)?, &[], &[], &[], 1e-8, device)?;
    let post = SkewGpPosterior::new(prior, x, &y)?;
    TruncatedNormal::orthant(&post.gamma_tilde_chol(), post.gamma_tilde(), device)
}
