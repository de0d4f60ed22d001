//! Matérn kernels (ν = ½, ³⁄₂, ⁵⁄₂) with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Stationary};
use crate::error::Result;

/// The smoothness ν of a Matérn kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaternNu {
    /// ν = ½ (exponential / Ornstein–Uhlenbeck).
    Half,
    /// ν = ³⁄₂.
    ThreeHalves,
    /// ν = ⁵⁄₂.
    FiveHalves,
}

/// `k = σ² f_ν(r)` with `r = ‖(x − x')/ℓ‖`: `f_½ = e^{−r}`, `f_{3/2} = (1+√3r)e^{−√3r}`,
/// `f_{5/2} = (1+√5r+5r²/3)e^{−√5r}`.
#[derive(Module, Debug)]
pub struct Matern {
    /// Lengthscales and variance.
    pub params: Stationary,
    /// Smoothness.
    #[module(skip)]
    pub nu: MaternNu,
}

impl Matern {
    /// A Matérn kernel of smoothness `nu` with the given lengthscales and variance.
    pub fn new(nu: MaternNu, lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        Ok(Self { params: Stationary::new(lengthscales, variance, device)?, nu })
    }
}

impl Kernel for Matern {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        // sqrt is clamped away from 0 so its gradient stays finite on the diagonal.
        let r = self.params.square_distance(x, x2).clamp_min(1e-36).sqrt();
        let shape = match self.nu {
            MaternNu::Half => r.neg().exp(),
            MaternNu::ThreeHalves => {
                let s = r.mul_scalar(3f64.sqrt());
                (s.clone() + 1.0) * s.neg().exp()
            }
            MaternNu::FiveHalves => {
                let s = r.mul_scalar(5f64.sqrt());
                let poly = s.clone() + s.clone().powi_scalar(2).div_scalar(3.0) + 1.0;
                poly * s.neg().exp()
            }
        };
        self.params.scale(shape)
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.params.diag(&x)
    }
    fn input_dim(&self) -> Option<usize> {
        self.params.input_dim()
    }
}
