//! Matérn kernels (ν = ½, ³⁄₂, ⁵⁄₂) with ARD lengthscales.
use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{distance::scaled_square_distance, Kernel, Positive};
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
    /// Per-dimension lengthscales ℓ.
    pub lengthscales: Positive,
    /// Signal variance σ².
    pub variance: Positive,
    /// Smoothness.
    #[module(skip)]
    pub nu: MaternNu,
}

impl Matern {
    /// A Matérn kernel of smoothness `nu` with the given lengthscales and variance.
    pub fn new(nu: MaternNu, lengthscales: &[f64], variance: f64, device: &Device) -> Result<Self> {
        Ok(Self {
            lengthscales: Positive::new("lengthscales", lengthscales, device)?,
            variance: Positive::new("variance", &[variance], device)?,
            nu,
        })
    }
}

impl Kernel for Matern {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        // sqrt is clamped away from 0 so its gradient stays finite on the diagonal.
        let r = scaled_square_distance(x, x2, self.lengthscales.value()).clamp_min(1e-36).sqrt();
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
        shape * self.variance.value().unsqueeze::<2>()
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
