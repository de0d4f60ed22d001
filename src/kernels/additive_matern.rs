//! Additive Matérn kernel: a sum of 1-D Matérn kernels, one per input dimension.
use burn::backend::Dispatch;
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::additive_ops::GpKernelOps;
use super::per_dimension::matern_rates;
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
        // one fused op (forward and backward on the host): see `additive_ops`
        let rates = matern_rates(self.nu, self.lengthscales.value());
        Tensor::from_dispatch(Dispatch::additive_matern(
            x.into_dispatch(),
            x2.into_dispatch(),
            rates.into_dispatch(),
            self.variances.value().into_dispatch(),
            self.nu.order(),
        ))
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.variances.value().sum().expand([x.dims()[0]])
    }
    fn input_dim(&self) -> Option<usize> {
        Some(self.dims())
    }
}
