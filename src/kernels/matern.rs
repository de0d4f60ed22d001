//! Matérn kernels (ν = ½, ³⁄₂, ⁵⁄₂) with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Stationary};
use crate::error::{Error, Result};

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

impl MaternNu {
    /// The smoothness from its value: ½, ³⁄₂ or ⁵⁄₂ ([`Error::InvalidArgument`] otherwise; these
    /// are the orders with closed-form shapes and Fourier features).
    pub fn from_value(nu: f64) -> Result<Self> {
        match nu {
            0.5 => Ok(Self::Half),
            1.5 => Ok(Self::ThreeHalves),
            2.5 => Ok(Self::FiveHalves),
            v => Err(Error::invalid("nu", format!("Matérn smoothness must be 0.5, 1.5 or 2.5, got {v}"))),
        }
    }
    /// ν as a number.
    pub fn value(self) -> f64 {
        match self {
            Self::Half => 0.5,
            Self::ThreeHalves => 1.5,
            Self::FiveHalves => 2.5,
        }
    }
    /// The order p = ν − ½ of the Markov state (f, f′, …, f⁽ᵖ⁾).
    pub fn order(self) -> usize {
        match self {
            Self::Half => 0,
            Self::ThreeHalves => 1,
            Self::FiveHalves => 2,
        }
    }
    /// `√(2ν)`: the rate is `λ = √(2ν)/ℓ`.
    pub fn rate_factor(self) -> f64 {
        (2.0 * self.value()).sqrt()
    }
}

/// The unit-variance Matérn shape as a function of `s = λr ≥ 0`: `e^{−s}`, `(1+s)e^{−s}` or
/// `(1+s+s²/3)e^{−s}`.
pub(crate) fn matern_shape<const D: usize>(nu: MaternNu, s: Tensor<D>) -> Tensor<D> {
    let e = s.clone().neg().exp();
    match nu {
        MaternNu::Half => e,
        MaternNu::ThreeHalves => (s + 1.0) * e,
        MaternNu::FiveHalves => (s.clone() + s.powi_scalar(2).div_scalar(3.0) + 1.0) * e,
    }
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
        self.params.scale(matern_shape(self.nu, r.mul_scalar(self.nu.rate_factor())))
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        self.params.diag(&x)
    }
    fn input_dim(&self) -> Option<usize> {
        self.params.input_dim()
    }
}
