//! SkewGP and GP-EP settings shared by the skew GP examples: the command-line flags of the
//! block-composite SkewGP training and lin-ess posterior, and GP-EP trained by batch SEP.
use burn::module::Module;
use burn::tensor::Tensor;
use burn_gp::inducing::InducingPoints;
use burn_gp::kernels::Kernel;
use burn_gp::models::ep::{EpGpClassifier, EpGpClassifierConfig, EpMode};
use burn_gp::models::skew_gp::SkewGpConfig;
use burn_gp::mvn::ChainStart;
use burn_gp::train::TrainConfig;
use burn_gp::Result;

/// SkewGP training/sampling and GP-EP flags.
#[derive(clap::Args, Debug, Clone)]
pub struct SkewOptions {
    /// SkewGP Adam steps (full batch of blocks).
    #[arg(long, default_value_t = 80)]
    pub epochs: usize,
    /// SkewGP Adam learning rate (the library default 0.02).
    #[arg(long, default_value_t = 0.02)]
    pub lr: f64,
    /// SkewGP block size |B| (the paper: 30).
    #[arg(long, default_value_t = 30)]
    pub block_size: usize,
    /// SkewGP blocks per Adam step (0 = all blocks every step).
    #[arg(long, default_value_t = 0)]
    pub batch_blocks: usize,
    /// Lattice points per random shift of each block estimate.
    #[arg(long, default_value_t = 250)]
    pub qmc_points: usize,
    /// Random lattice shifts per block estimate.
    #[arg(long, default_value_t = 4)]
    pub qmc_shifts: usize,
    /// SkewGP2: epochs each of the 4 phase patterns is trained before the best one continues.
    #[arg(long, default_value_t = 15)]
    pub phase_screen: usize,
    /// SkewGP: fraction of the training rows held out to select the epoch (and phase pattern)
    /// by the held-out log predictive probability of the posterior on the rest (by exact
    /// Corollary 2 ratios, or by route B with `--validation-samples`; 0 = off: the last epoch is
    /// kept).
    #[arg(long, default_value_t = 0.0)]
    pub validation: f64,
    /// SkewGP with `--validation`: score the hold-out every this many epochs.
    #[arg(long, default_value_t = 10)]
    pub validate_every: usize,
    /// SkewGP with `--validation`: score the hold-out by route B from this many lin-ess draws
    /// of the posterior on the rows trained on (0 = exact Corollary 2 ratios, for up to a few
    /// hundred rows; a few thousand draws for thousands of rows).
    #[arg(long, default_value_t = 0)]
    pub validation_samples: usize,
    /// Posterior lin-ess draws of U₁ (32 chains).
    #[arg(long, default_value_t = 8000)]
    pub samples: usize,
    /// lin-ess burn-in steps per chain (the posterior's draws and, with `--validation-samples`,
    /// the hold-out's).
    #[arg(long, default_value_t = 300)]
    pub burn_in: usize,
    /// Where the lin-ess chains start: `sequential` (GHK draws, near the target; the library's
    /// default) or `dispersed` (above each bound by a prior draw's size; the default before
    /// 2026-11-26).
    #[arg(long, value_enum, default_value_t = StartArg::Sequential)]
    pub chain_start: StartArg,
    /// GP-EP hyperparameter steps (batch SEP).
    #[arg(long, default_value_t = 150)]
    pub ep_iterations: usize,
    /// Checkpoints: --checkpoint-dir DIR (each training run in a sub-folder of its own, see
    /// docs/examples.md), --resume.
    #[command(flatten)]
    pub checkpoint: crate::common::CheckpointOptions,
}

/// `--chain-start` values (see [`ChainStart`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum StartArg {
    /// Each coordinate above its bound by a prior draw's size.
    Dispersed,
    /// Sequential truncated (GHK) draws.
    Sequential,
}

impl From<StartArg> for ChainStart {
    fn from(arg: StartArg) -> Self {
        match arg {
            StartArg::Dispersed => ChainStart::Dispersed,
            StartArg::Sequential => ChainStart::Sequential,
        }
    }
}

impl SkewOptions {
    /// The SkewGP settings for latent dimension `s` on `n` training rows.
    pub fn skew_config(&self, s: i64, n: usize, seed: u64) -> SkewGpConfig {
        SkewGpConfig::new()
            .with_latent_dim(s)
            .with_block_size(self.block_size.min(n))
            .with_qmc_points(self.qmc_points)
            .with_qmc_shifts(self.qmc_shifts)
            .with_phase_screen_epochs(self.phase_screen)
            .with_validation_fraction(self.validation)
            .with_validate_every(self.validate_every)
            .with_validation_samples(self.validation_samples)
            .with_samples(self.samples)
            .with_burn_in(self.burn_in)
            .with_chain_start(self.chain_start.into())
            .with_seed(seed)
    }

    /// The SkewGP training settings on `n` training rows: `--epochs` Adam steps at `--lr` on
    /// `--batch-blocks` blocks per step (all with 0).
    pub fn skew_train(&self, n: usize, seed: u64, progress: bool) -> TrainConfig {
        let rows = match self.batch_blocks {
            0 => usize::MAX,
            b => b * self.block_size.min(n),
        };
        let config = SkewGpConfig::new().with_seed(seed).paper_train_config();
        config.with_epochs(self.epochs).with_lr(self.lr).with_batch_size(rows).with_progress(progress)
    }

    /// GP-EP with `kernel` and fixed `inducing` inputs, trained by batch SEP on the rows of `x`
    /// (autodiff device) with labels `y ∈ {0, 1}`; checkpointed in the sub-folder `run` of
    /// `--checkpoint-dir`.
    pub fn fit_ep<K: Kernel>(
        &self,
        kernel: K,
        inducing: InducingPoints,
        x: &Tensor<2>,
        y: &[usize],
        (seed, progress): (u64, bool),
        run: &str,
    ) -> Result<(EpGpClassifier<K>, burn_gp::train::History)> {
        let model = Self::ep_config().init(kernel, inducing.no_grad(), &x.device())?;
        model.fit(x, y, &self.ep_train(seed, progress).with_checkpoint(self.checkpoint.config(run)))
    }

    /// GP-EP's model settings: batch SEP, initial noise 1e-6, jitter 1e-8.
    pub fn ep_config() -> EpGpClassifierConfig {
        EpGpClassifierConfig::new().with_noise(1e-6).with_jitter(1e-8).with_mode(EpMode::Inner)
    }

    /// GP-EP's training settings: the paper's sign-adaptive steps for `--ep-iterations` steps.
    pub fn ep_train(&self, seed: u64, progress: bool) -> TrainConfig {
        Self::ep_config().paper_train_config().with_epochs(self.ep_iterations).with_seed(seed).with_progress(progress)
    }
}
