//! Closed-form Gram matrices of variational Fourier features on an interval (Hensman, Durrande and
//! Solin 2018; paper eq. 11 and §3.3; `docs/papers/002-decoupled-fourier-features.md`, section
//! "Fourier features"), one 1-D Matérn factor per input dimension.
//!
//! With the harmonic frequencies `ω_m = 2πm/(b − a)` (`m = 0..F`) and the spectral density
//! `S(ω) = c σ² λ^{2p+1} / (λ² + ω²)^{p+1}` (`p = ν − ½`, `c = 2, 4, 16/3`), the RKHS inner
//! products of the features `[1, cos ω_m(x−a), sin ω_m(x−a)]` are
//! `K_cos = diag(α_cos) + W_cos W_cosᵀ`, `K_sin = diag(α_sin) + W_sin W_sinᵀ` with
//! `α = (L/2)/S(ω_m)` (`L/S(0)` for the constant) and the boundary terms
//!
//! | ν | `W_cos` | `W_sin` |
//! |---|---|---|
//! | ½ | `σ⁻¹ 1` | none |
//! | ³⁄₂ | `σ⁻¹ 1` | `ω/(σλ)` |
//! | ⁵⁄₂ | `[σ⁻¹ 1, (3ω²/λ² − 1)/√(8σ²)]` | `√3 ω/(σλ)` |
use burn::tensor::{Tensor, TensorData};

use super::low_rank::DiagLowRank;
use crate::kernels::MaternNu;

/// The two blocks of every dimension's Gram matrix: cosines (with the constant) `[D, F+1]` and
/// sines `[D, F]`.
#[derive(Clone, Debug)]
pub(crate) struct DimensionGrams {
    /// `[1, cos_1..cos_F]` blocks.
    pub cos: DiagLowRank,
    /// `[sin_1..sin_F]` blocks.
    pub sin: DiagLowRank,
}

/// The constant `c` of the spectral density `S(ω) = c σ² λ^{2p+1}/(λ² + ω²)^{p+1}`.
fn spectral_constant(nu: MaternNu) -> f64 {
    match nu {
        MaternNu::Half => 2.0,
        MaternNu::ThreeHalves => 4.0,
        MaternNu::FiveHalves => 16.0 / 3.0,
    }
}

/// `1/S(ω)` for variances `σ²` `[D, 1]`, rates `λ` `[D, 1]` and frequencies `ω` `[D, k]`.
pub(crate) fn inverse_spectral_density(
    nu: MaternNu,
    variances: Tensor<2>,
    rates: Tensor<2>,
    omegas: Tensor<2>,
) -> Tensor<2> {
    let p = nu.order() as i32;
    let num = (omegas.powi_scalar(2) + rates.clone().powi_scalar(2)).powi_scalar(p + 1);
    num / (variances * rates.powi_scalar(2 * p + 1)).mul_scalar(spectral_constant(nu))
}

/// The Gram blocks of `D` dimensions from per-dimension variances `σ_d²` `[D]`, rates `λ_d` `[D]`,
/// frequencies `ω` `[D, F+1]` (first column 0) and interval lengths `L_d` `[D]`; `jitter` is added
/// to every diagonal.
pub(crate) fn dimension_grams(
    nu: MaternNu,
    variances: Tensor<1>,
    rates: Tensor<1>,
    omegas: Tensor<2>,
    lengths: Tensor<1>,
    jitter: f64,
) -> DimensionGrams {
    let [d, f1] = omegas.dims();
    let f = f1 - 1;
    let device = omegas.device();
    let var = variances.reshape([d, 1]);
    let lam = rates.reshape([d, 1]);
    let len = lengths.reshape([d, 1]);
    let inv_s = inverse_spectral_density(nu, var.clone(), lam.clone(), omegas.clone()); // [D, F+1]
                                                                                        // α_cos = L/S(0) for the constant, (L/2)/S(ω_m) after; α_sin = (L/2)/S(ω_m), m ≥ 1.
    let mut halves = vec![0.5; f1];
    halves[0] = 1.0;
    let weights = Tensor::<2>::from_data(TensorData::new(halves, [1, f1]), &device);
    let alpha_cos = (inv_s.clone() * len.clone() * weights).add_scalar(jitter);
    let alpha_sin = (inv_s.narrow(1, 1, f) * len.mul_scalar(0.5)).add_scalar(jitter);
    let inv_sigma = var.sqrt().recip(); // [D, 1]
    let ones_col = (Tensor::<2>::ones([d, f1], &device) * inv_sigma.clone()).reshape([d, f1, 1]);
    let w_cos = match nu {
        MaternNu::FiveHalves => {
            let ratio = (omegas.clone() / lam.clone()).powi_scalar(2).mul_scalar(3.0).sub_scalar(1.0);
            let second = (ratio * inv_sigma.clone()).div_scalar(8f64.sqrt()).reshape([d, f1, 1]);
            Tensor::cat(vec![ones_col, second], 2)
        }
        _ => ones_col,
    };
    let sin_omegas = omegas.narrow(1, 1, f);
    let w_sin = match nu {
        MaternNu::Half => None,
        MaternNu::ThreeHalves => Some(sin_omegas * inv_sigma / lam),
        MaternNu::FiveHalves => Some((sin_omegas * inv_sigma / lam).mul_scalar(3f64.sqrt())),
    };
    DimensionGrams {
        cos: DiagLowRank::new(alpha_cos, Some(w_cos)),
        sin: DiagLowRank::new(alpha_sin, w_sin.map(|w| w.reshape([d, f, 1]))),
    }
}
