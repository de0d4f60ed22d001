//! [`HeadLikelihood`]: the likelihoods a network's GP head can have, and how each trains `q(u)`.
use burn::tensor::{Device, Tensor};

use crate::error::{Error, Result};
use crate::inducing::InducingPoints;
use crate::kernels::Kernel;
use crate::likelihoods::{Gaussian, Likelihood, MultiClassHinge};
use crate::models::{HingeNaturalGradient, Svgp};

/// A likelihood for the sparse GP head of a [`HybridNet`](super::HybridNet).
///
/// | likelihood | task | targets | natural-gradient `q(u)` steps |
/// |---|---|---|---|
/// | [`MultiClassHinge`] | classification (the Bayesian SVM head) | one-hot `[B, C]` | yes ([`HingeNaturalGradient`]) |
/// | [`Gaussian`] | regression (the SVGP head) | values `[B, outputs]` | no: Adam trains `q(u)` |
pub trait HeadLikelihood: Likelihood + Sized {
    /// The state of the natural-gradient updates of `q(u)` (uninhabited where there are none).
    type Natural;
    /// The likelihood of a fresh head with `outputs` target columns.
    fn for_head(outputs: usize, device: &Device) -> Result<Self>;
    /// Starts natural-gradient updates of `head`'s `q(u)` with step sizes falling from `start` to
    /// `step` (constant at `step` where `start == step`); errors where the likelihood has none.
    fn natural_start<K: Kernel>(head: &Svgp<K, InducingPoints, Self>, step: f64, start: f64) -> Result<Self::Natural>;
    /// One natural-gradient update of `head`'s `q(u)` from a minibatch of head inputs `[B, D]`
    /// (detached) and targets.
    fn natural_update<K: Kernel>(
        state: &mut Self::Natural,
        head: Svgp<K, InducingPoints, Self>,
        features: Tensor<2>,
        targets: Tensor<2>,
    ) -> Result<Svgp<K, InducingPoints, Self>>;
    /// The step size the next [`natural_update`](Self::natural_update) will take.
    fn natural_step_size(state: &Self::Natural) -> f64;
    /// The natural-gradient state as numbers, for a checkpoint (see
    /// [`CheckpointConfig`](crate::train::CheckpointConfig)); by default a typed error: such a
    /// head's runs cannot be checkpointed.
    fn natural_to_values(_state: &Self::Natural) -> Result<Vec<f64>> {
        Err(Error::invalid("checkpoint", "this head likelihood's natural-gradient state has no checkpoint form"))
    }
    /// The state [`natural_to_values`](Self::natural_to_values) wrote, for `head`.
    fn natural_from_values<K: Kernel>(_head: &Svgp<K, InducingPoints, Self>, _values: &[f64]) -> Result<Self::Natural> {
        Err(Error::invalid("checkpoint", "this head likelihood's natural-gradient state has no checkpoint form"))
    }
    /// Whether the targets are one-hot class indicators (accuracy is meaningful).
    fn classifies() -> bool;
}

impl HeadLikelihood for MultiClassHinge {
    type Natural = HingeNaturalGradient;
    fn for_head(outputs: usize, _device: &Device) -> Result<Self> {
        if outputs < 2 {
            return Err(Error::invalid("outputs", format!("a classification head needs ≥ 2 classes, got {outputs}")));
        }
        Ok(Self::default())
    }
    fn natural_start<K: Kernel>(
        head: &Svgp<K, InducingPoints, Self>,
        step: f64,
        start: f64,
    ) -> Result<HingeNaturalGradient> {
        let mut natural = HingeNaturalGradient::new(head)?;
        natural.max_step = start.max(step);
        natural.min_step = step;
        Ok(natural)
    }
    fn natural_update<K: Kernel>(
        state: &mut HingeNaturalGradient,
        head: Svgp<K, InducingPoints, Self>,
        features: Tensor<2>,
        targets: Tensor<2>,
    ) -> Result<Svgp<K, InducingPoints, Self>> {
        state.update(head, features, targets)
    }
    fn natural_step_size(state: &HingeNaturalGradient) -> f64 {
        state.step_size()
    }
    fn natural_to_values(state: &HingeNaturalGradient) -> Result<Vec<f64>> {
        Ok(state.to_values())
    }
    fn natural_from_values<K: Kernel>(head: &Svgp<K, InducingPoints, Self>, values: &[f64]) -> Result<Self::Natural> {
        let device = head.q_mu.val().device();
        HingeNaturalGradient::from_values(values, head.num_latent(), head.num_inducing(), &device)
    }
    fn classifies() -> bool {
        true
    }
}

/// No natural-gradient steps for the Gaussian head (yet): `natural_step` must be 0.
pub enum NoNaturalGradient {}

impl HeadLikelihood for Gaussian {
    type Natural = NoNaturalGradient;
    /// Noise variance 0.1 to start (targets standardised to unit variance are assumed).
    fn for_head(outputs: usize, device: &Device) -> Result<Self> {
        if outputs == 0 {
            return Err(Error::invalid("outputs", "a regression head needs at least one output"));
        }
        Gaussian::new(0.1, device)
    }
    fn natural_start<K: Kernel>(
        _head: &Svgp<K, InducingPoints, Self>,
        _step: f64,
        _start: f64,
    ) -> Result<NoNaturalGradient> {
        Err(Error::invalid("natural_step", "the Gaussian (regression) head trains q(u) by Adam; set natural_step = 0"))
    }
    fn natural_update<K: Kernel>(
        state: &mut NoNaturalGradient,
        _head: Svgp<K, InducingPoints, Self>,
        _features: Tensor<2>,
        _targets: Tensor<2>,
    ) -> Result<Svgp<K, InducingPoints, Self>> {
        match *state {}
    }
    fn natural_step_size(state: &NoNaturalGradient) -> f64 {
        match *state {}
    }
    fn classifies() -> bool {
        false
    }
}
