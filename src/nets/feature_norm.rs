//! How the features a network hands to a GP head are normalised.
//!
//! A GP head with an RBF kernel reads its inputs through distances, so the scale and spread of the
//! features matter in a way they do not for a linear softmax layer. Standardising each feature
//! across the minibatch (batch normalisation without scale and shift, running statistics at
//! inference) keeps the images apart from the first step on; standardising each feature *vector*
//! over its own entries lets the first Adam steps map every image to nearly the same unit vector,
//! and the hybrid then sits at chance accuracy for hundreds of steps (measured in
//! `docs/results/hybrid_reliability.md`).
use burn::config::Config;
use burn::module::{Flag, Module, Param, RunningState};
use burn::nn::{BatchNorm, BatchNormConfig};
use burn::tensor::{Device, Tensor};

/// What a [`FeatureNormalizer`] does to features `[B, D]`.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum FeatureNorm {
    /// Each feature standardised across the minibatch while training, by running statistics at
    /// inference; no learned scale or shift. The default of the hybrid networks.
    Batch,
    /// As `Batch`, with a learned per-feature scale and shift (Burn's `BatchNorm`). On the MNIST
    /// hybrid it lowered the calibrated NLL on ten seeds of ten (by about 0.001) but weakened FGSM
    /// detection and robustness on every seed (`docs/results/bayesian_svm.md`).
    BatchAffine,
    /// Each feature vector standardised over its own `D` entries (the recipe before issue 16:
    /// prone to the collapse described in the module docs).
    Rows,
    /// Features passed through unchanged. The MNIST hybrid stayed at chance accuracy with it for
    /// all 3 epochs (`docs/results/bayesian_svm.md`).
    Identity,
}

/// Which statistics of a batch normaliser
/// [`HybridConfig::standardize_steps`](super::HybridConfig::standardize_steps) freezes after its
/// warm-up.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum FrozenStatistics {
    /// The mean and the variance ([`FeatureNormalizer::freeze_statistics`]): the features are left
    /// unstandardised, so the trunk may spread or gather them. The default.
    MeanAndVariance,
    /// The mean only ([`FeatureNormalizer::freeze_mean`]): each feature is still divided by its
    /// spread in the minibatch, so the head's inputs keep unit spread while their centre is fixed.
    /// On ten MNIST hybrids frozen after epoch 1 this kept nearly all of the default's accuracy
    /// under FGSM (2 points below it at ε = 0.3, where freezing both statistics lost 30) but none
    /// of the NLL gain, and cost a little detection (`docs/results/bayesian_svm.md`).
    Mean,
}

/// Normalises a network's features before a GP head: a Burn module, so its running statistics are
/// saved and loaded with the network.
///
/// Training mode (an autodiff device and the module's training flag on, as for Burn's `BatchNorm`)
/// uses the batch's statistics and updates the running ones; [`Module::valid`] and
/// [`Module::freeze`] switch to the running statistics.
#[derive(Module, Debug)]
pub struct FeatureNormalizer {
    /// Batch normalisation for [`FeatureNorm::Batch`] and [`FeatureNorm::BatchAffine`].
    batch: Option<BatchNorm>,
    /// Whether rows are standardised ([`FeatureNorm::Rows`]).
    rows: bool,
    /// Whether training divides by the minibatch's spread around the frozen running mean
    /// ([`freeze_mean`](Self::freeze_mean)): a Burn flag, so [`Module::freeze`] and
    /// [`Module::valid`] switch it off as they do the batch normaliser's own.
    spread_by_batch: Param<Flag>,
}

impl FeatureNormalizer {
    /// A normaliser of `dim` features; for [`FeatureNorm::Batch`] the scale and shift are fixed at
    /// 1 and 0 (no gradient).
    pub fn new(kind: FeatureNorm, dim: usize, device: &Device) -> Self {
        let batch = match kind {
            FeatureNorm::Batch | FeatureNorm::BatchAffine => {
                let mut norm = BatchNormConfig::new(dim).init(device);
                if kind == FeatureNorm::Batch {
                    norm.gamma = norm.gamma.set_require_grad(false);
                    norm.beta = norm.beta.set_require_grad(false);
                }
                Some(norm)
            }
            FeatureNorm::Rows | FeatureNorm::Identity => None,
        };
        Self { batch, rows: kind == FeatureNorm::Rows, spread_by_batch: Param::from_bool(false) }
    }

    /// What this normaliser does and the width it normalises (0 where the kind has none).
    pub(crate) fn kind_and_dim(&self) -> (FeatureNorm, usize) {
        match &self.batch {
            Some(norm) if norm.gamma.is_require_grad() => (FeatureNorm::BatchAffine, norm.gamma.dims()[0]),
            Some(norm) => (FeatureNorm::Batch, norm.gamma.dims()[0]),
            None if self.rows => (FeatureNorm::Rows, 0),
            None => (FeatureNorm::Identity, 0),
        }
    }

    /// This normaliser with its batch statistics frozen: from now on the batch kinds map the
    /// features by their running statistics (a fixed affine map through which gradients still
    /// reach the trunk) in training as at inference, so the trunk may spread or gather the
    /// features the head sees. The other kinds are returned unchanged.
    /// [`HybridConfig::standardize_steps`](super::HybridConfig::standardize_steps) calls this after
    /// its warm-up.
    pub fn freeze_statistics(mut self) -> Self {
        if let Some(norm) = self.batch.as_mut() {
            norm.training = norm.training.clone().with_value(false);
        }
        self
    }

    /// This normaliser with its running mean frozen: from now on training maps each feature `x` of
    /// a batch kind to `(x − m) / s`, `m` the running mean (fixed) and `s` the feature's spread in
    /// the minibatch (gradients flow through it, and the running variance keeps following it), so
    /// the head's inputs keep unit spread. Inference maps by the running statistics as before.
    /// The other kinds are returned unchanged.
    pub fn freeze_mean(self) -> Self {
        let spread_by_batch = self.spread_by_batch.clone().with_value(self.batch.is_some());
        Self { spread_by_batch, ..self.freeze_statistics() }
    }

    /// This normaliser for the next training step, `steps_done` steps into a run of the recipe
    /// with [`HybridConfig::standardize_steps`](super::HybridConfig::standardize_steps) =
    /// `standardize_steps`: once `steps_done` reaches the warm-up, frozen as `frozen` says,
    /// otherwise unchanged. Both training paths call it.
    pub(crate) fn for_step(
        self,
        steps_done: usize,
        standardize_steps: Option<usize>,
        frozen: FrozenStatistics,
    ) -> Self {
        match standardize_steps.is_some_and(|warm_up| steps_done >= warm_up) && self.standardizes_batches() {
            true if frozen == FrozenStatistics::Mean => self.freeze_mean(),
            true => self.freeze_statistics(),
            false => self,
        }
    }

    /// Whether training standardises by the batch (mean and spread): false after
    /// [`freeze_statistics`](Self::freeze_statistics) or [`freeze_mean`](Self::freeze_mean) and
    /// for the kinds without batch statistics. This is the normaliser's setting, also on a copy in
    /// inference mode ([`Module::valid`]).
    pub fn standardizes_batches(&self) -> bool {
        self.batch.as_ref().is_some_and(|norm| norm.training.clone().train().is_enabled())
    }

    /// Which statistics are frozen ([`freeze_statistics`](Self::freeze_statistics),
    /// [`freeze_mean`](Self::freeze_mean)): `None` while training standardises by the batch, and
    /// for the kinds without batch statistics.
    pub fn frozen_statistics(&self) -> Option<FrozenStatistics> {
        match self.batch.is_some() && !self.standardizes_batches() {
            true if self.spread_by_batch.clone().train().is_enabled() => Some(FrozenStatistics::Mean),
            true => Some(FrozenStatistics::MeanAndVariance),
            false => None,
        }
    }

    /// Whether [`forward`](Self::forward) maps `features` by [`by_batch_spread`]: after
    /// [`freeze_mean`](Self::freeze_mean), in training mode (an autodiff device and the flag on),
    /// unless the batch normaliser itself standardises again ([`Module::unfreeze`] switches every
    /// flag on).
    fn divides_by_batch_spread(&self, norm: &BatchNorm, features: &Tensor<2>) -> bool {
        self.spread_by_batch.is_enabled() && !norm.training.is_enabled() && features.device().is_autodiff()
    }

    /// The normalised features `[B, D]`.
    pub fn forward(&self, features: Tensor<2>) -> Tensor<2> {
        match &self.batch {
            Some(norm) if self.divides_by_batch_spread(norm, &features) => by_batch_spread(norm, features),
            Some(norm) => norm.forward(features),
            None if self.rows => standardize_rows(features),
            None => features,
        }
    }

    /// Sets the running statistics (batch kinds) to those of `sample` `[s, D]`, features of
    /// training inputs from the untrained network, and returns the sample as the head sees it while
    /// training: [`HybridConfig::init`](super::HybridConfig::init) places the head's inducing points
    /// on it.
    pub fn start_from_sample(&mut self, sample: Tensor<2>) -> Tensor<2> {
        match self.batch.as_mut() {
            Some(norm) => {
                let mean = sample.clone().mean_dim(0);
                let centred = sample - mean.clone();
                let var = centred.clone().powi_scalar(2).mean_dim(0);
                let out = centred / var.clone().add_scalar(norm.epsilon).sqrt();
                norm.running_mean = RunningState::new(mean.squeeze_dim::<1>(0).detach());
                norm.running_var = RunningState::new(var.squeeze_dim::<1>(0).detach());
                out
            }
            None => self.forward(sample),
        }
    }
}

/// `features` `[B, D]` centred by `norm`'s running mean and divided by their spread in the batch,
/// then scaled and shifted by `norm`'s γ and β; the running variance moves towards the batch's by
/// `norm`'s momentum, as in Burn's `BatchNorm`.
fn by_batch_spread(norm: &BatchNorm, features: Tensor<2>) -> Tensor<2> {
    let device = features.device();
    let batch_var = (features.clone() - features.clone().mean_dim(0)).powi_scalar(2).mean_dim(0);
    let running_var = norm.running_var.value_sync().to_device(&device);
    let moved = running_var.mul_scalar(1.0 - norm.momentum)
        + batch_var.clone().squeeze_dim::<1>(0).detach().mul_scalar(norm.momentum);
    norm.running_var.update(moved.detach());
    let mean = norm.running_mean.value().to_device(&device).unsqueeze_dim::<2>(0);
    let scaled = (features - mean) / batch_var.add_scalar(norm.epsilon).sqrt();
    scaled * norm.gamma.val().unsqueeze_dim::<2>(0) + norm.beta.val().unsqueeze_dim::<2>(0)
}

/// Each row of `h` `[B, D]` shifted and scaled to mean 0 and variance 1 over its D entries.
pub(crate) fn standardize_rows(h: Tensor<2>) -> Tensor<2> {
    let centred = h.clone() - h.mean_dim(1);
    let sd = centred.clone().powi_scalar(2).mean_dim(1).add_scalar(1e-5).sqrt();
    centred / sd
}
