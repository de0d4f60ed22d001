//! [`SkewGpConfig`]: the skew GP classifier's settings (their origin: `docs/papers/000-skew-gp.md`,
//! section "Defaults") and its objective choices.
use burn::config::Config;

use crate::data::{stratified_split, IndexSplit};
use crate::error::Error;
use crate::mvn::{ChainConfig, ChainStart, LinEssVariant};
use crate::train::{OptimizerConfig, TrainConfig};

/// What `fit` maximises (paper §5.2, Proposition 2, and ours: `docs/papers/000-skew-gp.md`, section
/// "Training objective"); `P_i = Φ_{s+|B_i|}(γ̃_{B_i}; Γ̃_{B_i})` per block.
#[derive(Config, Debug, PartialEq, Eq, Copy)]
pub enum Objective {
    /// `Σ_i [ln P_i − ln Φ_s(γ; Γ)] = Σ_i ln p(D_{B_i})`: a composite (block-independence)
    /// log-likelihood, additive over blocks (so it works on minibatches of blocks) and equal to
    /// the exact log-evidence with one block. Not a bound. The default.
    BlockComposite,
    /// `ln Σ_i P_i − ln Φ_s(γ; Γ)` (the authors' code).
    LogSumBlocks,
    /// The logarithm of Proposition 2's bound `(Σ_i P_i − (b − 1)) / Φ_s(γ; Γ)` as printed. It is
    /// negative, so has no logarithm, as soon as `Σ_i P_i < b − 1` — for realistic blocks, whenever
    /// `b ≥ 2`; training then stops with an error. For tests and tiny problems.
    PaperBound,
}

/// Mixed into [`SkewGpConfig::seed`] for the hold-out split, so that it draws other numbers
/// than the sampler and the lattices seeded from the same value.
const HOLDOUT_SEED_MIX: u64 = 0x4a1d;

/// Settings of the skew GP classifier (a Burn [`Config`](burn::config::Config)): its prior
/// ([`init`](Self::init)), the objective, phase search and hold-out of
/// [`SkewGp::fit`](super::SkewGp::fit), and the posterior sampler. The optimiser (Adam, any other
/// of [`OptimizerConfig`], or [`OptimizerConfig::Spsa`]), learning rate, epochs, rows per step,
/// seed of the training randomness, progress bar and checkpoints are the [`TrainConfig`] given to
/// `fit`; [`paper_train_config`](Self::paper_train_config) gives the documented defaults.
#[derive(Config, Debug)]
pub struct SkewGpConfig {
    /// Latent (skewness) dimension `s`; `0` is the exact-posterior GP probit classifier
    /// ("SkewGP0"). Signed so that a negative value read from a command line or file is reported
    /// as [`Error::InvalidArgument`] rather than wrapped.
    #[config(default = 2)]
    pub latent_dim: i64,
    /// Block size `|B|` of the training objective (the paper: 30).
    #[config(default = 30)]
    pub block_size: usize,
    /// Lattice points per random shift of each block's Genz estimate.
    #[config(default = 500)]
    pub qmc_points: usize,
    /// Random shifts per estimate (the paper's 5 000 points = 500 × 10).
    #[config(default = 10)]
    pub qmc_shifts: usize,
    /// The training objective.
    #[config(default = "Objective::BlockComposite")]
    pub objective: Objective,
    /// Fixed phases `l ∈ {−1, +1}^s`; `None` searches all `2^s` sign patterns.
    pub phases: Option<Vec<f64>>,
    /// Phase search: `0` trains every pattern for all epochs and keeps the best; `k > 0` trains
    /// every pattern `k` epochs, then continues only the best for the remaining epochs.
    #[config(default = 0)]
    pub phase_screen_epochs: usize,
    /// Fraction of the training rows held out (stratified, seeded) to select the hyperparameters:
    /// the model is trained on the rest, and the parameters kept are those of the epoch (and sign
    /// pattern) whose posterior on the rows trained on predicts the held-out labels best (mean
    /// log predictive probability, computed as `validation_samples` says); the posterior then
    /// uses every row. `0` (the default): no hold-out, the final
    /// parameters and the pattern with the best training objective are kept.
    #[config(default = 0.0)]
    pub validation_fraction: f64,
    /// With a hold-out: score it every this many epochs (and after the last).
    #[config(default = 10)]
    pub validate_every: usize,
    /// With a hold-out: how its predictions are computed. `0` (the default): the exact
    /// Corollary 2 ratios, whose cost grows with the `s + n + 1`-dimensional lattice, so for up to
    /// a few hundred rows trained on. `S > 0`: route B from `S` lin-ess draws of the posterior on
    /// the rows trained on (the sampler's other settings: `chains`, `burn_in`, `seed`), for
    /// thousands of rows; the score then carries the draws' Monte Carlo error.
    #[config(default = 0)]
    pub validation_samples: usize,
    /// Nugget added to the kernel's diagonal (at coinciding inputs) everywhere: `K(X, X)`, the
    /// pseudo-points' `Γ` and the test points' variances. On an f32 device (the GPU backends) the
    /// nugget used is at least [`F32_NUGGET_FLOOR`] (see [`SkewGpConfig::nugget_on`]).
    #[config(default = 1e-6)]
    pub jitter: f64,
    /// Posterior sampler: chains (first design: 16; lin-ess draws are strongly autocorrelated on GP
    /// posteriors, so more chains and draws than first planned are the default, see
    /// `docs/papers/000-skew-gp.md`, section "Defaults", and `docs/results/skew_gp.md`).
    #[config(default = 32)]
    pub chains: usize,
    /// Posterior sampler: burn-in steps per chain (the authors' code: 100).
    #[config(default = 300)]
    pub burn_in: usize,
    /// Posterior samples of `U₁` kept (the authors' code: 2 000), i.e. 500 steps per chain; `0` draws none
    /// (predict with [`super::SkewGpPosterior::predict_exact`] then).
    #[config(default = 16000)]
    pub samples: usize,
    /// lin-ess angle rule.
    #[config(default = "LinEssVariant::ConnectedArc")]
    pub variant: LinEssVariant,
    /// Where the lin-ess chains start: GHK draws by default, near the posterior (with thousands
    /// of rows the dispersed start needs thousands of burn-in steps; `docs/results/skew_gp.md`).
    #[config(default = "ChainStart::Sequential")]
    pub chain_start: ChainStart,
    /// Seed of the pseudo-point initialisation, the hold-out split and its lattice, and the
    /// sampler (training's partitions and QMC shifts follow the [`TrainConfig`]'s seed).
    #[config(default = 0)]
    pub seed: u64,
}

/// The smallest nugget a skew GP uses on an f32 device. `K(X, X)` is computed in the device's
/// precision and the SUN's joint matrix must be positive definite without a retry ladder; f32
/// rounds each kernel entry by about 10⁻⁷, which on smooth kernels over a few hundred inputs
/// outweighs the f64 default of 10⁻⁶ (measured: the 120-point Fig. 4 data, RBF ℓ = 1, fails with
/// `NotPositiveDefinite` in f32 at 10⁻⁶ and trains at 10⁻⁴).
pub const F32_NUGGET_FLOOR: f64 = 1e-4;

impl SkewGpConfig {
    /// The nugget a model built on `device` uses: `jitter`, raised to [`F32_NUGGET_FLOOR`] on
    /// f32 devices.
    pub fn nugget_on(&self, device: &burn::tensor::Device) -> f64 {
        match crate::device::precision(device) {
            crate::device::Precision::F64 => self.jitter,
            crate::device::Precision::F32 => self.jitter.max(F32_NUGGET_FLOOR),
        }
    }

    /// The latent dimension `s`, checked (`InvalidArgument` for a negative value).
    pub fn s(&self) -> crate::error::Result<usize> {
        usize::try_from(self.latent_dim)
            .map_err(|_| Error::invalid("latent_dim", format!("s must be ≥ 0, got {}", self.latent_dim)))
    }

    /// Checks every setting against `n` training points.
    pub fn check(&self, n: usize) -> crate::error::Result<()> {
        let s = self.s()?;
        if self.block_size == 0 || self.block_size > n {
            return Err(Error::invalid(
                "block_size",
                format!("must be between 1 and the {n} training points, got {}", self.block_size),
            ));
        }
        if self.qmc_points == 0 || self.qmc_shifts == 0 {
            return Err(Error::invalid("qmc_points/qmc_shifts", "must be positive"));
        }
        if let Some(l) = &self.phases {
            if l.len() != s || l.iter().any(|v| *v != 1.0 && *v != -1.0) {
                return Err(Error::invalid("phases", format!("need {s} values, each −1 or +1, got {l:?}")));
            }
        }
        if !(self.validation_fraction >= 0.0 && self.validation_fraction < 1.0) {
            return Err(Error::invalid(
                "validation_fraction",
                format!("must be in [0, 1), got {}", self.validation_fraction),
            ));
        }
        crate::error::check_non_negative("jitter", self.jitter)?;
        Ok(())
    }

    /// The training settings of `docs/papers/000-skew-gp.md`, section "Defaults" (ours; the paper
    /// trains by SPSA, [`OptimizerConfig::Spsa`] with `a = c = 0.05`): 300 epochs of Adam at
    /// learning rate 0.02, every block in every step (`batch_size = usize::MAX`), this config's
    /// seed, a progress bar, no checkpoints.
    pub fn paper_train_config(&self) -> TrainConfig {
        TrainConfig::new()
            .with_epochs(300)
            .with_lr(0.02)
            .with_batch_size(usize::MAX)
            .with_optimizer(OptimizerConfig::Adam)
            .with_seed(self.seed)
    }

    /// Checks the training settings `train` against this config and `n` training rows: at least
    /// one epoch, a positive batch, valid optimiser settings, and whole-data steps unless the
    /// objective is [`Objective::BlockComposite`] (the only one additive over blocks).
    pub(crate) fn check_training(&self, train: &TrainConfig, n: usize) -> crate::error::Result<()> {
        train.validate()?;
        if train.epochs == 0 {
            return Err(Error::invalid("epochs", "need at least one epoch"));
        }
        if train.batch_size == 0 {
            return Err(Error::invalid("batch_size", "must be positive"));
        }
        if self.objective != Objective::BlockComposite && train.batch_size < n {
            return Err(Error::invalid(
                "batch_size",
                format!(
                    "only the block-composite objective works on minibatches of blocks: use batch_size ≥ the {n} rows"
                ),
            ));
        }
        Ok(())
    }

    /// The rows [`SkewGp::fit`](super::SkewGp::fit) holds out to select its hyperparameters, for
    /// training labels `y`: `None` without a hold-out (`validation_fraction = 0`), else the
    /// stratified split seeded from [`seed`](Self::seed) (`test`: the held-out rows, `train`: the
    /// rows trained on). Another model selected on the same rows (GP-EP in
    /// `experiments/examples/skewgp_pmlb.rs`) takes them from here. A fraction outside `[0, 1)`, or one that
    /// leaves either part empty, is [`Error::InvalidArgument`].
    pub fn holdout_split(&self, y: &[usize]) -> crate::error::Result<Option<IndexSplit>> {
        if self.validation_fraction == 0.0 {
            return Ok(None);
        }
        stratified_split(y, self.validation_fraction, self.seed ^ HOLDOUT_SEED_MIX).map(Some)
    }

    /// The sampler settings.
    pub fn chain_config(&self) -> ChainConfig {
        ChainConfig { chains: self.chains, burn_in: self.burn_in, samples: self.samples, seed: self.seed }
    }

    /// The sign patterns to try: the fixed phases, or all `2^s` patterns (first all `+1`).
    pub(crate) fn phase_patterns(&self) -> crate::error::Result<Vec<Vec<f64>>> {
        let s = self.s()?;
        if let Some(l) = &self.phases {
            return Ok(vec![l.clone()]);
        }
        Ok((0..1usize << s).map(|bits| (0..s).map(|j| if bits >> j & 1 == 1 { -1.0 } else { 1.0 }).collect()).collect())
    }
}
