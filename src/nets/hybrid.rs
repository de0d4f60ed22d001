//! The paper's hybrid Bayesian network: a trunk, a feature normaliser and a multi-class Bayesian
//! SVM head, trained end to end on one loss (see [`super::HybridConfig`] for the training recipe).
use burn::module::Module;
use burn::tensor::Tensor;

use super::{FeatureNormalizer, Trunk};
use crate::error::{Error, Result};
use crate::kernels::{Kernel, Rbf};
use crate::likelihoods::Likelihood;
use crate::models::{BayesianSvmHead, ClassPredictive};

/// `trunk → normaliser → BayesianSvmHead`: images `[B, C, H, W]` → features `[B, D]` → C Gaussian
/// class marginals.
#[derive(Module, Debug)]
pub struct HybridNet<T: Trunk, K: Kernel = Rbf> {
    /// Feature extractor.
    pub trunk: T,
    /// Normalises the trunk's features before the head (batch standardisation by default).
    pub norm: FeatureNormalizer,
    /// Multi-class Bayesian SVM on the normalised features.
    pub head: BayesianSvmHead<K>,
}

/// The terms of the hybrid's training objective on one minibatch (see [`HybridNet::objective`]).
pub struct HybridObjective {
    /// `−ELBO / N` `[1]`: the loss to minimise.
    pub loss: Tensor<1>,
    /// Sum over the batch of the data terms `ℓ*_n` `[1]` (unscaled).
    pub data: Tensor<1>,
    /// `KL(q(u) ‖ p(u))` `[1]`.
    pub kl: Tensor<1>,
    /// The trunk's features before normalisation `[B, D]`.
    pub raw_features: Tensor<2>,
    /// The head's inputs `[B, D]`.
    pub features: Tensor<2>,
    /// Latent class means `[B, C]`.
    pub mean: Tensor<2>,
}

impl<T: Trunk, K: Kernel> HybridNet<T, K> {
    /// Joins `trunk`, `norm` and `head`; errors if the head's input width is not the trunk's
    /// feature width.
    pub fn new(trunk: T, norm: FeatureNormalizer, head: BayesianSvmHead<K>) -> Result<Self> {
        let (d, want) = (trunk.out_dim(), head.kernel.input_dim());
        if want != Some(d) {
            return Err(Error::shape("HybridNet: head input width vs trunk feature width", want, d));
        }
        Ok(Self { trunk, norm, head })
    }
    /// Checks that `images` is `[B, C, H, W]` with the trunk's `[C, H, W]`, `B ≥ 1`, and finite.
    pub fn check_images(&self, images: &Tensor<4>) -> Result<()> {
        check_images(&self.trunk, images)
    }
    /// Head inputs (the trunk's features after the normaliser) `[B, D]`.
    pub fn features(&self, images: Tensor<4>) -> Tensor<2> {
        self.norm.forward(self.trunk.features(images))
    }
    /// Latent class marginals `(mean, var)` `[B, C]`.
    pub fn marginals(&self, images: Tensor<4>) -> Result<(Tensor<2>, Tensor<2>)> {
        self.check_images(&images)?;
        self.head.predict_f(self.features(images))
    }
    /// `−ELBO / N` on a minibatch with one-hot targets `[B, C]`: the training loss.
    pub fn loss(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<Tensor<1>> {
        Ok(self.objective(images, targets)?.loss)
    }
    /// The loss `−(N/B · Σ_n ℓ*_n − KL) / N` on a minibatch with one-hot targets `[B, C]`, with its
    /// terms and the features it was computed from (e.g. for a natural-gradient update of the head
    /// after the optimiser step).
    pub fn objective(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<HybridObjective> {
        self.check_images(&images)?;
        let b = images.dims()[0];
        let raw_features = self.trunk.features(images);
        let features = self.norm.forward(raw_features.clone());
        crate::models::check_targets("HybridNet::objective", &targets, b, self.head.num_latent())?;
        let (mean, var) = self.head.predict_f(features.clone())?;
        let data = self.head.likelihood.variational_expectations(mean.clone(), var, targets).sum().reshape([1]);
        let kl = self.head.kl_divergence();
        let n = self.head.num_data as f64;
        let loss = (data.clone().mul_scalar(n / b as f64) - kl.clone()).neg().div_scalar(n);
        Ok(HybridObjective { loss, data, kl, raw_features, features, mean })
    }
    /// Per-image data terms `ℓ*_n` `[B]` (no KL): the objective an FGSM attack ascends.
    pub fn data_terms(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<Tensor<1>> {
        let (mean, var) = self.marginals(images)?;
        Ok(self.head.likelihood.variational_expectations(mean, var, targets))
    }
    /// Predictive class marginals on the host, for decisions, probabilities and uncertainty.
    pub fn predict(&self, images: Tensor<4>) -> Result<ClassPredictive> {
        let (mean, var) = self.marginals(images)?;
        ClassPredictive::from_tensors(mean, var)
    }
}

/// Shape and finiteness check of an image batch for `trunk`.
pub(crate) fn check_images<T: Trunk>(trunk: &T, images: &Tensor<4>) -> Result<()> {
    let [b, c, h, w] = images.dims();
    let want = trunk.input_shape();
    if b == 0 {
        return Err(Error::Empty { context: "image batch".into() });
    }
    if [c, h, w] != want {
        return Err(Error::shape("image batch [B, C, H, W]", [b, want[0], want[1], want[2]], [b, c, h, w]));
    }
    // x − x is NaN exactly where x is NaN or ±∞: one reduction and one read back per batch.
    let bad = (images.clone() - images.clone()).is_nan().any().into_scalar::<bool>();
    if bad {
        return Err(Error::NonFinite { context: "image batch (NaN or infinite pixel)".into(), index: 0 });
    }
    Ok(())
}
