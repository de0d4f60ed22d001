//! Cholesky factorisation with a jitter retry ladder, and log-determinants from the factor.
use burn::tensor::{Tensor, TensorData};

use super::{host, ops::GpLinalgOps};
use crate::error::{Error, Result};
use burn::backend::Dispatch;

/// Lower Cholesky factor `L` (`A = L Lᵀ`) of a batch `[..., n, n]` of symmetric positive-definite
/// matrices; differentiable.
///
/// If a matrix is not numerically positive definite, `j·mean(diag A)` is added to its diagonal for
/// `j = 1e-8, 1e-7, …, 1e-2` until the factorisation succeeds; past the last rung the result is
/// [`Error::NotPositiveDefinite`]. NaN/Inf entries give [`Error::NonFinite`].
pub fn cholesky<const D: usize>(a: Tensor<D>) -> Result<Tensor<D>> {
    cholesky_with_jitter(a).map(|(l, _)| l)
}

/// As [`cholesky`], also returning the jitter that was added to each matrix of the batch.
pub fn cholesky_with_jitter<const D: usize>(a: Tensor<D>) -> Result<(Tensor<D>, Vec<f64>)> {
    let dims = a.dims();
    if D < 2 || dims[D - 1] != dims[D - 2] {
        return Err(Error::shape("cholesky: input must be [..., n, n]", "square matrices", dims));
    }
    let n = dims[D - 1];
    let batch: usize = dims[..D - 2].iter().product();
    let device = a.device();
    let values = crate::tensors::to_vec(a.clone());
    let (l, jitter) = host::cholesky_batch(&values, batch, n)?;
    let l = Tensor::<D>::from_data(TensorData::new(l, dims), &device);
    let out = Tensor::from_dispatch(Dispatch::cholesky_attach(a.into_dispatch(), l.into_dispatch()));
    Ok((out, jitter))
}

/// `log det A = 2 Σᵢ log Lᵢᵢ` for each factor of a batch `[..., n, n]`, as a `[batch]` tensor
/// (the leading batch dims flattened; `[1]` for a single matrix); differentiable (one custom op:
/// the gradient is `2ḡ/Lᵢᵢ` on the diagonal).
pub fn logdet_from_cholesky<const D: usize>(l: Tensor<D>) -> Tensor<1> {
    Tensor::from_dispatch(Dispatch::logdet_tri(l.into_dispatch()))
}
