//! [`DeepGpBlock`]: an optional deterministic layer followed by a GP layer.
use burn::module::Module;

use super::activations::GaussianActivations;
use super::factor::FactorTerms;
use super::layer::DeepGpLayer;
use super::moment_linear::MomentLinear;
use crate::error::{Error, Result};

/// One stage of a [`DeepGp`](super::DeepGp): `linear` (if any) then the GP layer `gp`.
#[derive(Module, Debug)]
pub struct DeepGpBlock {
    /// Deterministic layer applied first, with diagonal moment propagation.
    pub linear: Option<MomentLinear>,
    /// The GP layer.
    pub gp: DeepGpLayer,
}

impl DeepGpBlock {
    /// A GP layer with nothing before it.
    pub fn gp(gp: DeepGpLayer) -> Self {
        Self { linear: None, gp }
    }
    /// A deterministic layer followed by a GP layer; their widths must match.
    pub fn with_linear(linear: MomentLinear, gp: DeepGpLayer) -> Result<Self> {
        if linear.output_dim() != gp.input_dim() {
            return Err(Error::shape(
                "DeepGpBlock: linear output vs GP input width",
                gp.input_dim(),
                linear.output_dim(),
            ));
        }
        Ok(Self { linear: Some(linear), gp })
    }
    /// Input width of the block.
    pub fn input_dim(&self) -> usize {
        self.linear.as_ref().map_or_else(|| self.gp.input_dim(), MomentLinear::input_dim)
    }
    /// Output width of the block.
    pub fn output_dim(&self) -> usize {
        self.gp.output_dim()
    }
    /// Propagates moments through the block using the GP layer's factor terms `terms`.
    pub fn forward(&self, input: &GaussianActivations, terms: &FactorTerms) -> Result<GaussianActivations> {
        match &self.linear {
            Some(lin) => self.gp.propagate(&lin.forward(input)?, terms),
            None => self.gp.propagate(input, terms),
        }
    }
}
