//! [`exp_bilinear_contract`]: the differentiable tensor op over the host kernels of
//! [`super::exp_bilinear`].
use burn::backend::Dispatch;
use burn::tensor::Tensor;

use super::ops::GpLinalgOps;
use crate::error::{Error, Result};

/// `out[g, b, p] = Σ_{m, m'} exp(u[g, b, m, :] · v[g, b, m', :]) w[g, p, m, m']` with `u`, `v`
/// `[G, B, M, K]` and `w` `[G, P, M, M]`; differentiable in all three.
///
/// Requires every block `u vᵀ` and every `w_p` to be symmetric (as ψ2 and its weights `WᵀW`,
/// `AAᵀ` are): the sum is taken as `Σ_m e_mm w_mm + 2 Σ_{m<m'} e_mm' w_mm'`, and the gradients are
/// those of that expression, so they are exact for any parametrisation that keeps the symmetry.
pub fn exp_bilinear_contract(u: Tensor<4>, v: Tensor<4>, w: Tensor<4>) -> Result<Tensor<3>> {
    let (du, dv, dw) = (u.dims(), v.dims(), w.dims());
    if du != dv {
        return Err(Error::shape("exp_bilinear_contract: v must match u [G, B, M, K]", du, dv));
    }
    let [g, b, m, _] = du;
    if dw[0] != g || dw[2] != m || dw[3] != m {
        return Err(Error::shape("exp_bilinear_contract: w must be [G, P, M, M]", [g, dw[1], m, m], dw));
    }
    let out = Dispatch::exp_bilinear_contract(u.into_dispatch(), v.into_dispatch(), w.into_dispatch());
    let t = Tensor::<3>::from_dispatch(out);
    debug_assert_eq!(t.dims(), [g, b, dw[1]]);
    Ok(t)
}
