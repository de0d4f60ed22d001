//! Additive Matérn kernel: a sum of 1-D Matérn kernels, one per input dimension.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::per_dimension::{matern_factors, matern_rates};
use super::{Kernel, MaternNu, Positive};
use crate::error::{Error, Result};

/// `k(x, x') = Σ_d σ_d² f_ν(|x_d − x'_d| / ℓ_d)` with the Matérn shapes `f_ν` of [`super::Matern`].
///
/// The prior of orthogonally decoupled variational Fourier features for D > 1 (each summand gets
/// its own Fourier basis; see [`crate::inducing::FourierFeatures`]).
#[derive(Module, Debug)]
pub struct AdditiveMatern {
    /// Per-dimension variances σ_d² `[D]`.
    pub variances: Positive,
    /// Per-dimension lengthscales ℓ_d `[D]`.
    pub lengthscales: Positive,
    /// Smoothness (shared by all dimensions).
    #[module(skip)]
    pub nu: MaternNu,
}

impl AdditiveMatern {
    /// An additive Matérn kernel with the given per-dimension lengthscales and variances.
    pub fn new(nu: MaternNu, lengthscales: &[f64], variances: &[f64], device: &Device) -> Result<Self> {
        if lengthscales.len() != variances.len() {
            return Err(Error::shape("AdditiveMatern::new: variances", lengthscales.len(), variances.len()));
        }
        Ok(Self {
            variances: Positive::new("variances", variances, device)?,
            lengthscales: Positive::new("lengthscales", lengthscales, device)?,
            nu,
        })
    }
    /// `D` dimensions with lengthscale `lengthscale` and variance `variance / D` each (total prior
    /// variance `variance`).
    pub fn isotropic(nu: MaternNu, dim: usize, lengthscale: f64, variance: f64, device: &Device) -> Result<Self> {
        if dim == 0 {
            return Err(Error::invalid("dim", "needs at least one input dimension"));
        }
        Self::new(nu, &vec![lengthscale; dim], &vec![variance / dim as f64; dim], device)
    }
    /// Number of input dimensions D.
    pub fn dims(&self) -> usize {
        self.lengthscales.len()
    }
}

impl Kernel for AdditiveMatern {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        let (n, m, d) = (x.dims()[0], x2.dims()[0], self.dims());
        let f = matern_factors(self.nu, x, x2, matern_rates(self.nu, self.lengthscales.value()));
        (f * self.variances.value().reshape([d, 1, 1])).sum_dim(0).reshape([n, m])
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.variances.value().sum().expand([x.dims()[0]])
    }
    fn input_dim(&self) -> Option<usize> {
        Some(self.dims())
    }
}
