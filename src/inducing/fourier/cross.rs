//! Cross-covariances `Cov(f(x), β)` of Fourier features, inside and outside the interval.
//!
//! Inside `[a, b]` the reproducing property gives the features themselves,
//! `[1, cos ω_m(x−a), sin ω_m(x−a)]`. Outside, the Matérn-(p+½) process is Markov in
//! `(f, …, f⁽ᵖ⁾)`, so `Cov = Σ_i w_i(r) φ⁽ⁱ⁾(e)` at the nearest endpoint `e` with `r = |x − e|`
//! and `t = x − e` (inside: paper eq. 10; outside: Hensman et al. 2018 for ν = ½, ³⁄₂; the ν = ⁵⁄₂
//! branch is derived in `docs/papers/002-decoupled-fourier-features.md`, section "Fourier features"):
//!
//! | ν | cosines (incl. constant) | sines |
//! |---|---|---|
//! | ½ | `e^{−λr}` | 0 |
//! | ³⁄₂ | `(1+λr) e^{−λr}` | `t ω e^{−λr}` |
//! | ⁵⁄₂ | `(1+λr+(λ²−ω²)r²/2) e^{−λr}` | `t ω (1+λr) e^{−λr}` |
//!
//! Both branches are computed everywhere (the outside one with `r ≥ 0`) and selected by a mask,
//! so the result is continuous (C^p) at the endpoints and differentiable in `x` and `λ`.
use burn::tensor::{Tensor, TensorData};

use super::FeatureStructure;
use crate::kernels::MaternNu;

/// Interval and frequencies of the features of every dimension, as tensors on one device.
pub(crate) struct FeatureGrid {
    /// Lower ends `a_d` `[1, D]`.
    pub lower: Tensor<2>,
    /// Upper ends `b_d` `[1, D]`.
    pub upper: Tensor<2>,
    /// Frequencies `ω_{d,m}` `[D, F+1]`, `ω_{d,0} = 0`.
    pub omegas: Tensor<2>,
}

/// Per-dimension features `[n, D, 2F+1]` at inputs `x` `[n, D]` for rates `λ` `[D]`.
pub(crate) fn dimension_features(nu: MaternNu, x: Tensor<2>, grid: &FeatureGrid, rates: Tensor<1>) -> Tensor<3> {
    let [n, d] = x.dims();
    let f1 = grid.omegas.dims()[1];
    let f = f1 - 1;
    let omega = grid.omegas.clone().reshape([1, d, f1]);
    let from_a = x.clone() - grid.lower.clone(); // [n, D]
    let to_b = grid.upper.clone() - x; // [n, D]
    let inside = from_a.clone().greater_equal_elem(0.0).bool_and(to_b.clone().greater_equal_elem(0.0));
    // Inside: cos/sin of ω (x − a).
    let phase = from_a.clone().reshape([n, d, 1]) * omega.clone(); // [n, D, F+1]
    let in_cos = phase.clone().cos();
    let in_sin = phase.narrow(2, 1, f).sin();
    // Outside: distance r ≥ 0 to the nearest end and signed offset t = x − e.
    let left = from_a.neg().clamp_min(0.0); // a − x where x < a
    let right = to_b.neg().clamp_min(0.0); // x − b where x > b
    let r = left.clone() + right.clone();
    let t = right - left;
    let lam = rates.reshape([1, d]);
    let lr = r.clone() * lam.clone();
    let decay = lr.clone().neg().exp();
    let col = |v: Tensor<2>| v.reshape([n, d, 1]);
    let sin_omega = omega.clone().narrow(2, 1, f);
    let (out_cos, out_sin) = match nu {
        MaternNu::Half => {
            let c = col(decay).expand([n, d, f1]);
            (c, Tensor::zeros([n, d, f], &grid.lower.device()))
        }
        MaternNu::ThreeHalves => {
            let c = col((lr + 1.0) * decay.clone()).expand([n, d, f1]);
            (c, col(t * decay) * sin_omega)
        }
        MaternNu::FiveHalves => {
            let base = (lr.clone() + lr.clone().powi_scalar(2).mul_scalar(0.5) + 1.0) * decay.clone();
            let curv = col(r.powi_scalar(2).mul_scalar(0.5) * decay.clone()) * omega.powi_scalar(2);
            let c = col(base) - curv;
            (c, col(t * (lr + 1.0) * decay) * sin_omega)
        }
    };
    let mask = inside.reshape([n, d, 1]);
    let cos = out_cos.mask_where(mask.clone().expand([n, d, f1]), in_cos);
    let sin = out_sin.mask_where(mask.expand([n, d, f]), in_sin);
    Tensor::cat(vec![cos, sin], 2)
}

/// Combines per-dimension features `[n, D, M₁]` into `Cov(f(x), β)` `[n, M_β]`: concatenated
/// (additive, dimension-major) or row-wise Kronecker products (separable, first dimension major).
pub(crate) fn combine_features(features: Tensor<3>, structure: FeatureStructure) -> Tensor<2> {
    let [n, d, m1] = features.dims();
    match structure {
        FeatureStructure::Additive => features.reshape([n, d * m1]),
        FeatureStructure::Kronecker => {
            let mut k = features.clone().narrow(1, 0, 1).reshape([n, m1]);
            for dim in 1..d {
                let p = k.dims()[1];
                let next = features.clone().narrow(1, dim, 1).reshape([n, 1, m1]);
                k = (k.reshape([n, p, 1]) * next).reshape([n, p * m1]);
            }
            k
        }
    }
}

impl FeatureGrid {
    /// The grid of intervals `[a_d, b_d]` with `F` harmonic frequencies `ω_m = 2πm/(b_d − a_d)`.
    pub(crate) fn new(lower: &[f64], upper: &[f64], num_freq: usize, device: &burn::tensor::Device) -> Self {
        let d = lower.len();
        let mut omegas = Vec::with_capacity(d * (num_freq + 1));
        for (a, b) in lower.iter().zip(upper) {
            omegas.extend((0..=num_freq).map(|m| 2.0 * std::f64::consts::PI * m as f64 / (b - a)));
        }
        Self {
            lower: Tensor::from_data(TensorData::new(lower.to_vec(), [1, d]), device),
            upper: Tensor::from_data(TensorData::new(upper.to_vec(), [1, d]), device),
            omegas: Tensor::from_data(TensorData::new(omegas, [d, num_freq + 1]), device),
        }
    }
    /// Interval lengths `b_d − a_d` `[D]`.
    pub(crate) fn lengths(&self) -> Tensor<1> {
        let d = self.lower.dims()[1];
        (self.upper.clone() - self.lower.clone()).reshape([d])
    }
}
