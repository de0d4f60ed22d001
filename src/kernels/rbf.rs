//! Squared-exponential (RBF) kernel with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{distance::scaled_square_distance, Kernel, Positive};
use crate::error::Result;

/// `k(x, x') = σ² exp(−½ Σ_d (x_d − x'_d)² / ℓ_d²)`.
#[derive(Module, Debug)]
pub struct Rbf {
    /// Per-dimension lengthscales ℓ (one value = isotropic).
    pub lengthscales: Positive,
    /// Signal variance σ².
    pub variance: Positive,
}

impl Rbf {
    /// An ARD RBF kernel with the given initial lengthscales and variance.
    pub fn new(lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        Ok(Self {
            lengthscales: Positive::new("lengthscales", lengthscales, device)?,
            variance: Positive::new("variance", &[variance], device)?,
        })
    }
    /// An ARD RBF kernel on `dim` inputs with all lengthscales `lengthscale`.
    pub fn ard(dim: usize, lengthscale: f64, variance: f64, device: &Device) -> Result<Self> {
        Self::new(&vec![lengthscale; dim], variance, device)
    }
}

impl Kernel for Rbf {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        let r2 = scaled_square_distance(x, x2, self.lengthscales.value());
        r2.mul_scalar(-0.5).exp() * self.variance.value().unsqueeze::<2>()
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        let n = x.dims()[0];
        self.variance.value().expand([n])
    }
    fn input_dim(&self) -> Option<usize> {
        let d = self.lengthscales.len();
        (d > 1).then_some(d)
    }
}
