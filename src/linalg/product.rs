//! Dense matrix products routed to the fastest kernel of the backend.
use burn::backend::Dispatch;
use burn::tensor::Tensor;

use super::ops::GpLinalgOps;
use crate::error::{Error, Result};

/// `a · b` for `[n, k] × [k, m]`; differentiable. On CPU backends computed by faer (its blocked
/// AVX-512/AVX2 kernels are 4–5× faster than Burn-flex's gemm at 256×128×128 on our machine), on
/// GPU backends by the device's matmul.
pub fn matmul(a: Tensor<2>, b: Tensor<2>) -> Result<Tensor<2>> {
    if a.dims()[1] != b.dims()[0] {
        return Err(Error::shape("linalg::matmul: inner dimensions", a.dims(), b.dims()));
    }
    Ok(Tensor::from_dispatch(Dispatch::dense_matmul(a.into_dispatch(), b.into_dispatch())))
}
