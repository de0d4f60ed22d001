//! Squared-exponential (RBF) kernel with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Stationary};
use crate::error::Result;

/// `k(x, x') = σ² exp(−½ Σ_d (x_d − x'_d)² / ℓ_d²)`.
#[derive(Module, Debug)]
pub struct Rbf {
    /// Lengthscales and variance.
    pub params: Stationary,
}

impl Rbf {
    /// An ARD RBF kernel with the given initial lengthscales and variance.
    pub fn new(lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        Ok(Self { params: Stationary::new(lengthscales, variance, device)? })
    }
    /// An ARD RBF kernel on `dim` inputs with all lengthscales `lengthscale`.
    pub fn ard(dim: usize, lengthscale: f64, variance: f64, device: &Device) -> Result<Self> {
        Self::new(&vec![lengthscale; dim], variance, device)
    }
}

impl Kernel for Rbf {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        self.params.scale(self.params.square_distance(x, x2).mul_scalar(-0.5).exp())
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.params.diag(&x)
    }
    fn input_dim(&self) -> Option<usize> {
        self.params.input_dim()
    }
}
