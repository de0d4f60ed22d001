//! Per-dimension Matérn factors: the building block of additive and separable Matérn kernels.
use burn::tensor::Tensor;

use super::matern::{matern_shape, MaternNu};

/// Unit-variance 1-D Matérn shapes `f_ν(λ_d |x_d − x'_d|)` for every input dimension:
/// `[n, D], [m, D], λ [D] → [D, n, m]`.
///
/// Distances are differences of the inputs (no expansion of squares), so coincident points give
/// exactly `f(0) = 1`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn matern_factors(nu: MaternNu, x: Tensor<2>, x2: Tensor<2>, rates: Tensor<1>) -> Tensor<3> {
    let d = rates.dims()[0];
    let a = x.transpose().unsqueeze_dim::<3>(2); // [D, n, 1]
    let b = x2.transpose().unsqueeze_dim::<3>(1); // [D, 1, m]
    let r = (a - b).abs(); // [D, n, m]
    matern_shape(nu, r * rates.reshape([d, 1, 1]))
}

/// `λ_d = √(2ν)/ℓ_d` for lengthscales `ℓ` `[D]`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn matern_rates(nu: MaternNu, lengthscales: Tensor<1>) -> Tensor<1> {
    lengthscales.recip().mul_scalar(nu.rate_factor())
}
