//! A network with a sparse GP head: a trunk, a feature normaliser and an SVGP head, trained end to
//! end on one loss (see [`super::HybridConfig`] for the training recipe). With the multi-class
//! hinge likelihood it is paper 003's hybrid Bayesian network.
use burn::module::Module;
use burn::tensor::Tensor;

use super::{FeatureNormalizer, HeadLikelihood, Trunk};
use crate::error::{Error, Result};
use crate::inducing::InducingPoints;
use crate::kernels::{Kernel, Rbf};
use crate::likelihoods::{Gaussian, MultiClassHinge};
use crate::models::{check_targets, ClassPredictive, GaussianPredictive, Svgp};

/// `trunk → normaliser → sparse GP head`: inputs → features `[B, D]` → one Gaussian marginal per
/// output. The default head is the multi-class Bayesian SVM (paper 003's hybrid); with a
/// [`Gaussian`] likelihood it is an SVGP regression head ([`GpRegressionNet`]).
#[derive(Module, Debug)]
pub struct HybridNet<T: Trunk, K: Kernel = Rbf, L: HeadLikelihood = MultiClassHinge> {
    /// Feature extractor.
    pub trunk: T,
    /// Normalises the trunk's features before the head (batch standardisation by default).
    pub norm: FeatureNormalizer,
    /// Sparse GP on the normalised features.
    pub head: Svgp<K, InducingPoints, L>,
}

/// A network with an SVGP regression head (Gaussian likelihood).
pub type GpRegressionNet<T, K = Rbf> = HybridNet<T, K, Gaussian>;

/// The terms of the training objective on one minibatch (see [`HybridNet::objective`]).
pub struct HybridObjective {
    /// `−ELBO / N` `[1]`: the loss to minimise.
    pub loss: Tensor<1>,
    /// Sum over the batch of the data terms `E_q[log p(y_n | f_n)]` `[1]` (unscaled).
    pub data: Tensor<1>,
    /// `KL(q(u) ‖ p(u))` `[1]`.
    pub kl: Tensor<1>,
    /// The trunk's features before normalisation `[B, D]`.
    pub raw_features: Tensor<2>,
    /// The head's inputs `[B, D]`.
    pub features: Tensor<2>,
    /// Latent means `[B, outputs]`.
    pub mean: Tensor<2>,
}

impl<T: Trunk, K: Kernel, L: HeadLikelihood> HybridNet<T, K, L> {
    /// Joins `trunk`, `norm` and `head`; errors if the head's input width is not the trunk's
    /// feature width.
    pub fn new(trunk: T, norm: FeatureNormalizer, head: Svgp<K, InducingPoints, L>) -> Result<Self> {
        let (d, want) = (trunk.out_dim(), head.kernel.input_dim());
        if want != Some(d) {
            return Err(Error::shape("HybridNet: head input width vs trunk feature width", want, d));
        }
        Ok(Self { trunk, norm, head })
    }
    /// Head inputs (the trunk's features after the normaliser) `[B, D]`.
    pub fn features(&self, input: T::Input) -> Result<Tensor<2>> {
        self.trunk.check_input(&input)?;
        Ok(self.norm.forward(self.trunk.features(input)))
    }
    /// Latent marginals `(mean, var)` `[B, outputs]`.
    pub fn marginals(&self, input: T::Input) -> Result<(Tensor<2>, Tensor<2>)> {
        self.head.predict_f(self.features(input)?)
    }
    /// `−ELBO / N` on a minibatch: the training loss (targets as [`HybridNet::objective`]).
    pub fn loss(&self, input: T::Input, targets: Tensor<2>) -> Result<Tensor<1>> {
        Ok(self.objective(input, targets)?.loss)
    }
    /// The loss `−(N/B · Σ_n E_q[log p(y_n | f_n)] − KL) / N` on a minibatch with targets
    /// `[B, outputs]` (one-hot for a classification head), with its terms and the features it was
    /// computed from (e.g. for a natural-gradient update of the head after the optimiser step).
    pub fn objective(&self, input: T::Input, targets: Tensor<2>) -> Result<HybridObjective> {
        self.trunk.check_input(&input)?;
        let raw_features = self.trunk.features(input);
        let b = raw_features.dims()[0];
        let features = self.norm.forward(raw_features.clone());
        check_targets("HybridNet::objective", &targets, b, self.head.num_latent())?;
        let (mean, var) = self.head.predict_f(features.clone())?;
        let data = self.head.likelihood.variational_expectations(mean.clone(), var, targets).sum().reshape([1]);
        let kl = self.head.kl_divergence();
        let n = self.head.num_data as f64;
        let loss = (data.clone().mul_scalar(n / b as f64) - kl.clone()).neg().div_scalar(n);
        Ok(HybridObjective { loss, data, kl, raw_features, features, mean })
    }
    /// Per-example data terms `E_q[log p(y_n | f_n)]` `[B]` (no KL): the objective an FGSM attack
    /// ascends.
    pub fn data_terms(&self, input: T::Input, targets: Tensor<2>) -> Result<Tensor<1>> {
        let (mean, var) = self.marginals(input)?;
        Ok(self.head.likelihood.variational_expectations(mean, var, targets))
    }
}

impl<T: Trunk, K: Kernel> HybridNet<T, K, MultiClassHinge> {
    /// Predictive class marginals on the host, for decisions, probabilities and uncertainty.
    pub fn predict(&self, input: T::Input) -> Result<ClassPredictive> {
        let (mean, var) = self.marginals(input)?;
        ClassPredictive::from_tensors(mean, var)
    }
}

impl<T: Trunk, K: Kernel> HybridNet<T, K, Gaussian> {
    /// The predictive distribution of the targets `N(mean, var + σ²)` on the host.
    pub fn predict(&self, input: T::Input) -> Result<GaussianPredictive> {
        let (mean, var) = self.head.predict_y(self.features(input)?)?;
        GaussianPredictive::from_tensors(mean, var)
    }
}
