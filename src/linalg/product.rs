//! Dense matrix products routed to the fastest kernel of the backend.
use burn::backend::Dispatch;
use burn::tensor::Tensor;

use super::ops::GpLinalgOps;
use crate::error::{Error, Result};

/// `a · b` for `[n, k] × [k, m]`; differentiable. On CPU backends computed by faer (its blocked
/// AVX-512/AVX2 kernels are 4–5× faster than Burn-flex's gemm at 256×128×128 on our machine), on
/// GPU backends by the device's matmul.
pub fn matmul(a: Tensor<2>, b: Tensor<2>) -> Result<Tensor<2>> {
    matmul_transposed(a, b, false, false)
}

/// `op(a) · op(b)` where `op` transposes when its flag is set; differentiable. The transposes are
/// free (no copy) on CPU backends.
pub fn matmul_transposed(a: Tensor<2>, b: Tensor<2>, transpose_a: bool, transpose_b: bool) -> Result<Tensor<2>> {
    let (ad, bd) = (a.dims(), b.dims());
    let inner_a = if transpose_a { ad[0] } else { ad[1] };
    let inner_b = if transpose_b { bd[1] } else { bd[0] };
    if inner_a != inner_b {
        return Err(Error::shape("linalg::matmul: inner dimensions", ad, bd));
    }
    Ok(Tensor::from_dispatch(Dispatch::dense_matmul(a.into_dispatch(), b.into_dispatch(), transpose_a, transpose_b)))
}

/// `op(a) · op(b)` for equal-sized batches `[..., n, k]` of matrices, `op` transposing the last two
/// dims where its flag is set; differentiable. As [`matmul_transposed`]: faer on CPU backends,
/// the device's matmul on GPU backends.
pub fn batched_matmul<const D: usize>(
    a: Tensor<D>,
    b: Tensor<D>,
    transpose_a: bool,
    transpose_b: bool,
) -> Result<Tensor<D>> {
    let (ad, bd) = (a.dims(), b.dims());
    if D < 2 || ad[..D - 2] != bd[..D - 2] {
        return Err(Error::shape("linalg::batched_matmul: batch dimensions", ad, bd));
    }
    let inner_a = if transpose_a { ad[D - 2] } else { ad[D - 1] };
    let inner_b = if transpose_b { bd[D - 1] } else { bd[D - 2] };
    if inner_a != inner_b {
        return Err(Error::shape("linalg::batched_matmul: inner dimensions", ad, bd));
    }
    Ok(Tensor::from_dispatch(Dispatch::dense_matmul(a.into_dispatch(), b.into_dispatch(), transpose_a, transpose_b)))
}

/// Inner dimension from which [`matmul_nt`] goes through faer: below it the host round trips of
/// the `[n, m]` result and its gradient cost more than the product (measured on kin8nm, d = 8).
const HOST_MIN_INNER: usize = 64;

/// `a · bᵀ` for `[n, k] × [m, k]`, the product behind every kernel matrix; differentiable. Through
/// [`matmul_transposed`] (faer on CPU backends) when the inner dimensions agree and are at least
/// `HOST_MIN_INNER`; otherwise Burn's matmul (which reports a mismatch as before).
pub(crate) fn matmul_nt(a: Tensor<2>, b: Tensor<2>) -> Tensor<2> {
    if a.dims()[1] == b.dims()[1] && a.dims()[1] >= HOST_MIN_INNER {
        Tensor::from_dispatch(Dispatch::dense_matmul(a.into_dispatch(), b.into_dispatch(), false, true))
    } else {
        a.matmul(b.transpose())
    }
}
