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
use burn::module::{Module, RunningState};
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
        Self { batch, rows: kind == FeatureNorm::Rows }
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

    /// This normaliser for the next training step, `steps_done` steps into a run of the recipe
    /// with [`HybridConfig::standardize_steps`](super::HybridConfig::standardize_steps) =
    /// `standardize_steps`: frozen ([`freeze_statistics`](Self::freeze_statistics)) once
    /// `steps_done` reaches the warm-up, otherwise unchanged. Both training paths call it.
    pub(crate) fn for_step(self, steps_done: usize, standardize_steps: Option<usize>) -> Self {
        match standardize_steps.is_some_and(|warm_up| steps_done >= warm_up) && self.standardizes_batches() {
            true => self.freeze_statistics(),
            false => self,
        }
    }

    /// Whether training standardises by the batch: false after
    /// [`freeze_statistics`](Self::freeze_statistics) and for the kinds without batch statistics.
    /// This is the normaliser's setting, also on a copy in inference mode ([`Module::valid`]).
    pub fn standardizes_batches(&self) -> bool {
        self.batch.as_ref().is_some_and(|norm| norm.training.clone().train().is_enabled())
    }

    /// The normalised features `[B, D]`.
    pub fn forward(&self, features: Tensor<2>) -> Tensor<2> {
        match &self.batch {
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

/// Each row of `h` `[B, D]` shifted and scaled to mean 0 and variance 1 over its D entries.
pub fn standardize_rows(h: Tensor<2>) -> Tensor<2> {
    let centred = h.clone() - h.mean_dim(1);
    let sd = centred.clone().powi_scalar(2).mean_dim(1).add_scalar(1e-5).sqrt();
    centred / sd
}
