//! The mean basis γ of a decoupled posterior: inducing points and their weights.
use burn::module::{Module, Param};
use burn::tensor::Tensor;

use crate::inducing::InducingPoints;

/// Inducing points `Z_γ` `[M_γ, D]` and the weights `a_γ` `[M_γ, 1]` of the basis functions
/// `k(z_i, ·)` (projected onto the complement of the covariance basis).
#[derive(Module, Debug)]
pub struct MeanBasis {
    /// The points `Z_γ` (trainable unless fixed).
    pub points: InducingPoints,
    /// The weights `a_γ`.
    pub weights: Param<Tensor<2>>,
}

impl MeanBasis {
    /// The basis at `points` with zero weights.
    pub fn new(points: InducingPoints) -> Self {
        let z = points.z();
        let m = z.dims()[0];
        let weights = Param::from_tensor(Tensor::zeros([m, 1], &z.device()));
        Self { points, weights }
    }
    /// Number of basis functions `M_γ`.
    pub fn len(&self) -> usize {
        self.points.z().dims()[0]
    }
    /// True if there are none (never, by construction of [`InducingPoints`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
