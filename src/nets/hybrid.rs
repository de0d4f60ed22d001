//! The paper's hybrid Bayesian network: a trunk followed by a multi-class Bayesian SVM head,
//! trained end to end by one optimiser on one loss.
use burn::module::Module;
use burn::tensor::Tensor;

use super::Trunk;
use crate::error::{Error, Result};
use crate::kernels::{Kernel, Rbf};
use crate::models::{BayesianSvmHead, ClassPredictive};

/// `trunk → BayesianSvmHead`: images `[B, C, H, W]` → features `[B, D]` → C Gaussian class marginals.
#[derive(Module, Debug)]
pub struct HybridNet<T: Trunk, K: Kernel = Rbf> {
    /// Feature extractor.
    pub trunk: T,
    /// Multi-class Bayesian SVM on the features.
    pub head: BayesianSvmHead<K>,
}

impl<T: Trunk, K: Kernel> HybridNet<T, K> {
    /// Joins `trunk` and `head`; errors if the head's input width is not the trunk's feature width.
    pub fn new(trunk: T, head: BayesianSvmHead<K>) -> Result<Self> {
        let (d, want) = (trunk.out_dim(), head.kernel.input_dim());
        if want != Some(d) {
            return Err(Error::shape("HybridNet: head input width vs trunk feature width", want, d));
        }
        Ok(Self { trunk, head })
    }
    /// Checks that `images` is `[B, C, H, W]` with the trunk's `[C, H, W]`, `B ≥ 1`, and finite.
    pub fn check_images(&self, images: &Tensor<4>) -> Result<()> {
        check_images(&self.trunk, images)
    }
    /// Head inputs (the trunk's features) `[B, D]`.
    pub fn features(&self, images: Tensor<4>) -> Tensor<2> {
        self.trunk.features(images)
    }
    /// Latent class marginals `(mean, var)` `[B, C]`.
    pub fn marginals(&self, images: Tensor<4>) -> Result<(Tensor<2>, Tensor<2>)> {
        self.check_images(&images)?;
        self.head.predict_f(self.features(images))
    }
    /// `−ELBO / N` on a minibatch with one-hot targets `[B, C]`: the training loss.
    pub fn loss(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<Tensor<1>> {
        Ok(self.loss_with_features(images, targets)?.0)
    }
    /// [`loss`](Self::loss) and the features `[B, D]` it was computed from (e.g. for a
    /// natural-gradient update of the head after the optimiser step).
    pub fn loss_with_features(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<(Tensor<1>, Tensor<2>)> {
        self.check_images(&images)?;
        let features = self.features(images);
        let elbo = self.head.elbo(features.clone(), targets)?;
        Ok((elbo.neg().div_scalar(self.head.num_data as f64), features))
    }
    /// Per-image data terms `ℓ*_n` `[B]` (no KL): the objective an FGSM attack ascends.
    pub fn data_terms(&self, images: Tensor<4>, targets: Tensor<2>) -> Result<Tensor<1>> {
        use crate::likelihoods::Likelihood;
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
