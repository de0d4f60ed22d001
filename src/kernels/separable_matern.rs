//! Separable (product) Matérn kernel: a product of 1-D Matérn kernels over the input dimensions.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::per_dimension::{matern_factors, matern_rates};
use super::{Kernel, MaternNu, Positive};
use crate::error::{Error, Result};

/// `k(x, x') = σ² Π_d f_ν(|x_d − x'_d| / ℓ_d)`.
///
/// One amplitude σ² for the product (per-factor variances would not be identifiable). This is the
/// prior of Kronecker-structured Fourier features ([`crate::inducing::FourierFeatures`]); it is not
/// the ARD [`super::Matern`] kernel, which is a function of the Euclidean distance.
#[derive(Module, Debug)]
pub struct SeparableMatern {
    /// Variance σ² `[1]`.
    pub variance: Positive,
    /// Per-dimension lengthscales ℓ_d `[D]`.
    pub lengthscales: Positive,
    /// Smoothness (shared by all factors).
    #[module(skip)]
    pub nu: MaternNu,
}

impl SeparableMatern {
    /// A separable Matérn kernel with the given lengthscales and variance.
    pub fn new(nu: MaternNu, lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        if lengthscales.is_empty() {
            return Err(Error::invalid("lengthscales", "needs at least one input dimension"));
        }
        Ok(Self {
            variance: Positive::new("variance", &[variance], device)?,
            lengthscales: Positive::new("lengthscales", lengthscales, device)?,
            nu,
        })
    }
    /// Number of input dimensions D.
    pub fn dims(&self) -> usize {
        self.lengthscales.len()
    }
}

impl Kernel for SeparableMatern {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        let (n, m) = (x.dims()[0], x2.dims()[0]);
        let f = matern_factors(self.nu, x, x2, matern_rates(self.nu, self.lengthscales.value()));
        let mut k = f.clone().narrow(0, 0, 1);
        for d in 1..self.dims() {
            k = k * f.clone().narrow(0, d, 1);
        }
        k.reshape([n, m]) * self.variance.value().reshape([1, 1])
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.variance.value().expand([x.dims()[0]])
    }
    fn input_dim(&self) -> Option<usize> {
        Some(self.dims())
    }
}
