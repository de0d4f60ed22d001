//! Arcsine kernel: Williams' (1998) neural-network covariance function.
use std::f64::consts::FRAC_2_PI;

use burn::module::Module;
use burn::tensor::{Device, Tensor};

use super::{Kernel, Positive};
use crate::error::Result;
use crate::linalg::{matmul_nt, row_sums};

/// Largest `|z|` passed to asin.
const Z_BOUND: f64 = 1.0 - 1e-6;

/// Williams' (1998) neural-network kernel, the covariance of a one-hidden-layer network with
/// infinitely many erf units and Gaussian weights:
///
/// `k(x, x') = σ² (2/π) asin( s(x, x') / √((s(x, x) + 1)(s(x', x') + 1)) )`,
/// `s(x, x') = Σ_d σ_{w,d}² x_d x'_d + σ_b²`,
///
/// with weight variances `σ_w²` (one value = isotropic, one per input = ARD), bias variance
/// `σ_b²` and signal variance `σ²`. This is GPy's `MLP` kernel with the same parameter names;
/// Williams writes it with `2 x̃ᵀ Σ x̃'`, which is this with `σ_w² = 2 Σ_w` and `σ_b² = 2 Σ_b`.
/// Paper 000 uses it for Fashion-MNIST (§7.2, Table 1). It is not stationary: it depends on the
/// inputs' norms and on where the origin is.
///
/// ```
/// use burn_gp::kernels::{ArcSine, Kernel};
/// use burn_gp::prelude::*;
/// # fn main() -> burn_gp::Result<()> {
/// let device = default_device()?;
/// let kernel = ArcSine::new(&[1.0], 1.0, 1.0, &device)?; // isotropic σ_w² = σ_b² = σ² = 1
/// let x = matrix(vec![0.0, 1.0, 2.0, -1.0], 2, 2, &device)?;
/// let k = kernel.k(x.clone(), x);
/// assert_eq!(k.dims(), [2, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Module, Debug)]
pub struct ArcSine {
    /// Weight variances `σ_w²` (one value = isotropic).
    pub weight_variances: Positive,
    /// Bias variance `σ_b²`.
    pub bias_variance: Positive,
    /// Signal variance `σ²`.
    pub variance: Positive,
}

impl ArcSine {
    /// An arcsine kernel with the given weight variances, bias variance and signal variance; an
    /// error names any value that is not positive and finite.
    pub fn new(weight_variances: &[f64], bias_variance: f64, variance: f64, device: &Device) -> Result<Self> {
        Ok(Self {
            weight_variances: Positive::new("weight_variances", weight_variances, device)?,
            bias_variance: Positive::new("bias_variance", &[bias_variance], device)?,
            variance: Positive::new("variance", &[variance], device)?,
        })
    }

    /// `s(x, x) + 1` for the rows of `x`: `[n, 1]`.
    fn self_products(&self, x: Tensor<2>) -> Tensor<2> {
        let w = self.weight_variances.value().unsqueeze::<2>();
        let b = self.bias_variance.value().unsqueeze::<2>();
        row_sums(x.powi_scalar(2) * w) + b.add_scalar(1.0)
    }

    /// `σ² (2/π) asin(z)`. Cauchy–Schwarz keeps the exact `|z|` below `s/(s + 1) < 1`; the clamp
    /// only guards against rounding, a little inside ±1 so that asin's derivative stays finite.
    fn scale(&self, z: Tensor<2>) -> Tensor<2> {
        let var = self.variance.value().unsqueeze::<2>();
        z.clamp(-Z_BOUND, Z_BOUND).asin().mul_scalar(FRAC_2_PI) * var
    }
}

impl Kernel for ArcSine {
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2> {
        let (n, m) = (x.dims()[0], x2.dims()[0]);
        let device = x.device();
        let w = self.weight_variances.value().unsqueeze::<2>();
        let b = self.bias_variance.value().unsqueeze::<2>();
        // s(x, x') as one product of augmented rows [σ_w² x, σ_b²] · [x', 1]ᵀ (σ_b² is [1, 1]), and
        // the outer product of the normalisers as [n, 1] · [m, 1]ᵀ: no broadcast additions.
        let a_aug = Tensor::cat(vec![x.clone() * w, Tensor::ones([n, 1], &device) * b], 1);
        let b_aug = Tensor::cat(vec![x2.clone(), Tensor::ones([m, 1], &device)], 1);
        let cross = matmul_nt(a_aug, b_aug);
        let norms = matmul_nt(self.self_products(x), self.self_products(x2)).sqrt();
        self.scale(cross / norms)
    }
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1> {
        let n = x.dims()[0];
        let s1 = self.self_products(x);
        self.scale(s1.clone().sub_scalar(1.0) / s1).reshape([n])
    }
    fn input_dim(&self) -> Option<usize> {
        let d = self.weight_variances.len();
        (d > 1).then_some(d)
    }
}
