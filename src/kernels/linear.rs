//! Linear (dot-product) kernel.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Positive};
use crate::error::Result;

/// `k(x, x') = Σ_d σ_d² x_d x'_d` (ARD variances; one value = isotropic).
#[derive(Module, Debug)]
pub struct Linear {
    /// Per-dimension variances σ_d².
    pub variances: Positive,
}

impl Linear {
    /// A linear kernel with the given variances.
    pub fn new(variances: &[f64], device: &Device) -> Result<Self> {
        Ok(Self { variances: Positive::new("variances", variances, device)? })
    }
}

impl Kernel for Linear {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        let v = self.variances.value().unsqueeze::<2>();
        crate::linalg::matmul_nt(x * v, x2)
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        let v = self.variances.value().unsqueeze::<2>();
        let n = x.dims()[0];
        (x.powi_scalar(2) * v).sum_dim(1).reshape([n])
    }
    fn input_dim(&self) -> Option<usize> {
        let d = self.variances.len();
        (d > 1).then_some(d)
    }
}
