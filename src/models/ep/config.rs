//! The EP classifier's config: [`EpGpClassifierConfig`] builds the model with its EP schedule
//! (one of three modes) and gives the paper's training settings (§4.1, §4.5 and appendices A.4,
//! A.6; sources in `docs/papers/001-ep-classification.md`, section "Defaults").
use burn::config::Config;
use burn::tensor::Device;

use super::model::EpGpClassifier;
use crate::error::Result as GpResult;
use crate::inducing::InducingPoints;
use crate::kernels::Kernel;
use crate::train::{OptimizerConfig, TrainConfig};

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

/// An EP schedule (a Burn [`Config`](burn::config::Config)): how EP site passes and
/// hyperparameter steps interleave, and the EP damping (the sparse EP paper's §2.3 and
/// appendix A.4). Part of [`EpGpClassifierConfig`] and of
/// [`FullEpClassifierConfig`](crate::models::FullEpClassifierConfig).
#[derive(Config, Debug, PartialEq, Copy)]
pub struct EpSchedule {
    /// Training schedule.
    #[config(default = "EpMode::Inner")]
    pub mode: EpMode,
    /// EP damping ρ in `(0, 1]`; default 0.5 in the batch modes and 0.99 in minibatch mode (the
    /// paper).
    pub damping: Option<f64>,
    /// Outer mode: EP stops when no site changes by more than this.
    #[config(default = 1e-8)]
    pub ep_tolerance: f64,
    /// Outer mode: most EP passes before a gradient step.
    #[config(default = 1000)]
    pub max_ep_passes: usize,
}

impl EpSchedule {
    /// The schedule, or [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming a bad setting.
    pub(crate) fn checked(self) -> GpResult<Self> {
        if let Some(d) = self.damping {
            if !(d > 0.0 && d <= 1.0) {
                return Err(crate::Error::invalid("damping", format!("must be in (0, 1], got {d}")));
            }
        }
        crate::error::check_non_negative("ep_tolerance", self.ep_tolerance)?;
        Ok(self)
    }
    /// The code of `mode` in a checkpoint's settings.
    pub(crate) fn mode_code(&self) -> u64 {
        match self.mode {
            EpMode::Inner => 0,
            EpMode::Outer => 1,
            EpMode::Minibatch => 2,
        }
    }
    /// The damping ρ this schedule uses: `damping`, else the paper's 0.5 in the batch modes and
    /// 0.99 in minibatch mode.
    pub fn damping_or_default(&self) -> f64 {
        self.damping.unwrap_or(match self.mode {
            EpMode::Minibatch => 0.99,
            EpMode::Inner | EpMode::Outer => 0.5,
        })
    }
    /// The batch-mode training settings of the sparse EP paper (§4.1, appendix A.6; sources in
    /// `docs/papers/001-ep-classification.md`, section "Defaults"): in the batch modes 250
    /// iterations of the sign-adaptive rule (initial step 10⁻², learning rate 1); in minibatch
    /// mode 10 epochs of minibatches of 200 (the paper's `m`) with Adadelta (ρ = 0.9,
    /// ε = 10⁻⁵, learning rate 1). Seed 0, a progress bar, no checkpoints.
    pub fn paper_train_config(&self) -> TrainConfig {
        let train = TrainConfig::new().with_lr(1.0);
        match self.mode {
            EpMode::Minibatch => train
                .with_epochs(10)
                .with_batch_size(200)
                .with_optimizer(OptimizerConfig::Adadelta { rho: 0.9, epsilon: 1e-5 }),
            EpMode::Inner | EpMode::Outer => {
                train.with_epochs(250).with_optimizer(OptimizerConfig::SignAdaptive { initial_step: 1e-2 })
            }
        }
    }
}

/// Settings of an [`EpGpClassifier`] (a Burn [`Config`](burn::config::Config)): its initial
/// noise and jitter, its EP [`schedule`](EpSchedule), sharding and evaluation interval. The
/// optimiser, learning rate, epochs (the batch modes: iterations), minibatch size, seed, progress
/// bar and checkpoints are the [`TrainConfig`] given to [`fit`](EpGpClassifier::fit);
/// [`paper_train_config`](Self::paper_train_config) gives the paper's.
#[derive(Config, Debug)]
pub struct EpGpClassifierConfig {
    /// Initial additive noise σ0² (> 0), trained with the kernel.
    #[config(default = 1e-3)]
    pub noise: f64,
    /// Extra jitter on the diagonal of `K_uu` (≥ 0).
    #[config(default = 1e-8)]
    pub jitter: f64,
    /// The EP schedule (batch SEP by default; [`with_mode`](Self::with_mode) sets its mode).
    #[config(default = "EpSchedule::new()")]
    pub schedule: EpSchedule,
    /// Batch modes: number of data shards whose EP statistics are computed in parallel threads
    /// and summed (data-parallel SEP); the result equals one shard up to summation order.
    #[config(default = 1)]
    pub shards: usize,
    /// Call [`fit_evaluated`](EpGpClassifier::fit_evaluated)'s `evaluate` after every this many
    /// iterations (batch modes) or epochs (minibatch) and after the last; 0: after the last
    /// only. Each call first builds `q` at the current hyperparameters, O(nm²) in the batch
    /// modes, so timing runs use 0.
    #[config(default = 1)]
    pub evaluate_every: usize,
}

impl EpGpClassifierConfig {
    /// The classifier with `kernel` and inducing inputs `inducing` (see [`InducingPoints`]); invalid settings are
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument).
    pub fn init<K: Kernel>(&self, kernel: K, inducing: InducingPoints, device: &Device) -> GpResult<EpGpClassifier<K>> {
        EpGpClassifier::new(kernel, inducing, self.noise, self.jitter, device)?.with_ep_schedule(self)
    }
    /// The config with the schedule's mode `mode`.
    pub fn with_mode(self, mode: EpMode) -> Self {
        Self { schedule: self.schedule.with_mode(mode), ..self }
    }
    /// The paper's training settings for this config's mode (see [`EpSchedule::paper_train_config`]).
    pub fn paper_train_config(&self) -> TrainConfig {
        self.schedule.paper_train_config()
    }
    /// The settings, or [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming a bad one.
    pub(crate) fn checked(&self) -> GpResult<Self> {
        self.schedule.checked()?;
        if self.shards == 0 {
            return Err(crate::Error::invalid("shards", "must be positive"));
        }
        Ok(self.clone())
    }
}
