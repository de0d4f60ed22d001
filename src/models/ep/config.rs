//! The EP classifier's configs: [`EpGpClassifierConfig`] builds the model, [`EpConfig`] holds the
//! three training schedules and their defaults (the paper's §4.1, §4.5 and appendices A.4, A.6;
//! sources in `docs/papers/001-ep-classification.md`, section "Defaults").
use burn::config::Config;
use burn::tensor::Device;

use super::model::EpGpClassifier;
use crate::error::Result as GpResult;
use crate::inducing::InducingPoints;
use crate::kernels::Kernel;
use crate::train::CheckpointConfig;

/// How sites and hyperparameters are interleaved.
#[derive(Config, Debug, PartialEq, Eq, Copy)]
pub enum EpMode {
    /// Batch SEP (the paper): one damped parallel EP pass over all points, then one gradient step
    /// (sign-adaptive), per iteration.
    Inner,
    /// GFITC-style (the paper's competitor): EP run to convergence before every gradient step.
    Outer,
    /// Stochastic SEP: per minibatch, update its sites and `q`, then one Adadelta step on the
    /// `n/|B|`-scaled gradient estimate.
    Minibatch,
}

/// Settings of an EP classifier fit.
#[derive(Config, Debug)]
pub struct EpConfig {
    /// Training schedule.
    #[config(default = "EpMode::Inner")]
    pub mode: EpMode,
    /// Hyperparameter steps in the batch modes (the paper: 250).
    #[config(default = 250)]
    pub iterations: usize,
    /// Passes over the data in minibatch mode.
    #[config(default = 10)]
    pub epochs: usize,
    /// Minibatch size (the paper: 200 = m; it asks for |B| ≤ m).
    #[config(default = 200)]
    pub batch_size: usize,
    /// EP damping ρ; default 0.5 in the batch modes and 0.99 in minibatch mode (the paper).
    pub damping: Option<f64>,
    /// Initial per-coordinate step of the sign-adaptive rule (batch modes; the authors' code: 1e-2).
    #[config(default = 1e-2)]
    pub initial_step: f64,
    /// Adadelta ρ (minibatch mode; the paper: 0.9).
    #[config(default = 0.9)]
    pub adadelta_rho: f64,
    /// Adadelta ε (minibatch mode; the paper: 1e-5).
    #[config(default = 1e-5)]
    pub adadelta_epsilon: f64,
    /// Outer mode: EP stops when no site changes by more than this.
    #[config(default = 1e-8)]
    pub ep_tolerance: f64,
    /// Outer mode: most EP passes before a gradient step.
    #[config(default = 1000)]
    pub max_ep_passes: usize,
    /// Batch modes: number of data shards whose EP statistics are computed in parallel threads
    /// and summed (data-parallel SEP); the result equals one shard up to summation order.
    #[config(default = 1)]
    pub shards: usize,
    /// Call the fit's `evaluate` callback after every this many iterations (batch modes) or
    /// epochs (minibatch) and after the last; 0: after the last only. Each call first builds `q`
    /// at the current hyperparameters, O(nm²) in the batch modes, so timing runs use 0.
    #[config(default = 1)]
    pub evaluate_every: usize,
    /// Seed of the minibatch order.
    #[config(default = 0)]
    pub seed: u64,
    /// Show a progress bar.
    #[config(default = true)]
    pub progress: bool,
    /// Checkpoints of the run (none by default): `<dir>/EpGpClassifier.ckpt` or
    /// `<dir>/FullEpClassifier.ckpt` every `every_epochs` iterations (batch modes) or epochs
    /// (minibatch) and after the last, holding the model, the optimiser's state, the EP sites
    /// (with minibatch mode's stored directions and sums), the step sizes and the history; with
    /// `resume` a run goes on from there and ends bit for bit where the uninterrupted run ends.
    #[config(default = "None")]
    pub checkpoint: Option<CheckpointConfig>,
}

impl EpConfig {
    /// The [`TrainConfig`](crate::train::TrainConfig) of the loop: `epochs` passes of
    /// minibatches of `batch_size`, with this config's seed, progress bar and checkpoints.
    pub(crate) fn loop_config(&self, epochs: usize, batch_size: usize) -> crate::train::TrainConfig {
        crate::train::TrainConfig {
            epochs,
            batch_size,
            lr: 1.0,
            seed: self.seed,
            progress: self.progress,
            checkpoint: self.checkpoint.clone(),
            ..Default::default()
        }
    }
    /// The code of `mode` in a checkpoint's settings.
    pub(crate) fn mode_code(&self) -> u64 {
        match self.mode {
            EpMode::Inner => 0,
            EpMode::Outer => 1,
            EpMode::Minibatch => 2,
        }
    }
    /// The damping ρ this configuration uses.
    pub fn damping_or_default(&self) -> f64 {
        self.damping.unwrap_or(match self.mode {
            EpMode::Minibatch => 0.99,
            EpMode::Inner | EpMode::Outer => 0.5,
        })
    }
}

/// Settings of an [`EpGpClassifier`] (a Burn [`Config`](burn::config::Config)); its training settings are
/// [`EpConfig`].
#[derive(Config, Debug)]
pub struct EpGpClassifierConfig {
    /// Initial additive noise σ0² (> 0), trained with the kernel.
    #[config(default = 1e-3)]
    pub noise: f64,
    /// Extra jitter on the diagonal of `K_uu` (≥ 0).
    #[config(default = 1e-8)]
    pub jitter: f64,
}

impl EpGpClassifierConfig {
    /// The classifier with `kernel` and inducing inputs `inducing` (see [`InducingPoints`]); invalid settings are
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument).
    pub fn init<K: Kernel>(&self, kernel: K, inducing: InducingPoints, device: &Device) -> GpResult<EpGpClassifier<K>> {
        EpGpClassifier::new(kernel, inducing, self.noise, self.jitter, device)
    }
}
