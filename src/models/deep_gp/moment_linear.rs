//! [`MomentLinear`]: a Burn `Linear` layer that passes diagonal Gaussian moments through.
use burn::module::Module;
use burn::nn::Linear;

use super::activations::GaussianActivations;
use crate::error::{Error, Result};

/// `h ↦ hW + b` on Gaussian activations: `mean' = μW + b`, `var' = s (W∘W)` (diagonal moments; the
/// output correlations it creates are dropped, a further approximation). Deterministic inputs stay
/// deterministic, so a `MomentLinear` before the first GP layer is exact.
#[derive(Module, Debug)]
pub struct MomentLinear {
    /// The wrapped layer (weights trained by the same energy, through log Z only).
    pub linear: Linear,
}

impl MomentLinear {
    /// Wraps a `Linear` layer.
    pub fn new(linear: Linear) -> Self {
        Self { linear }
    }
    /// Input width.
    pub fn input_dim(&self) -> usize {
        self.linear.weight.val().dims()[0]
    }
    /// Output width.
    pub fn output_dim(&self) -> usize {
        self.linear.weight.val().dims()[1]
    }
    /// Propagates the moments.
    pub fn forward(&self, input: &GaussianActivations) -> Result<GaussianActivations> {
        if input.width() != self.input_dim() {
            return Err(Error::shape("MomentLinear::forward: input width", self.input_dim(), input.width()));
        }
        let mean = self.linear.forward(input.mean.clone());
        let var = input.var.clone().map(|s| s.matmul(self.linear.weight.val().powi_scalar(2)));
        Ok(GaussianActivations { mean, var })
    }
}
