//! Squared-exponential (RBF) kernel with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Stationary};
use crate::error::Result;
use crate::linalg::{matmul_nt, row_sums};

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
        // exp(log σ² − ½‖a − b‖²) with a = x/ℓ, b = x2/ℓ, as one matrix product of augmented rows:
        // [a, log σ² − ½‖a‖², 1] · [b, 1, −½‖b‖²]ᵀ. No broadcast additions, whose backward
        // (un-broadcasting reductions) is slow on the CPU backend.
        let ls = self.params.lengthscales.value().unsqueeze::<2>();
        let a = x / ls.clone();
        let b = x2 / ls;
        let (n, m) = (a.dims()[0], b.dims()[0]);
        let device = a.device();
        let log_var = self.params.variance.value().log().unsqueeze::<2>(); // [1, 1]
        let a_tail = row_sums(a.clone().powi_scalar(2)).mul_scalar(-0.5) + log_var;
        let b_tail = row_sums(b.clone().powi_scalar(2)).mul_scalar(-0.5);
        let a_aug = Tensor::cat(vec![a, a_tail, Tensor::ones([n, 1], &device)], 1);
        let b_aug = Tensor::cat(vec![b, Tensor::ones([m, 1], &device), b_tail], 1);
        matmul_nt(a_aug, b_aug).exp()
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.params.diag(&x)
    }
    fn input_dim(&self) -> Option<usize> {
        self.params.input_dim()
    }
}
