//! Shape checks shared by the models (no device sync: shapes only).
use burn::tensor::Tensor;

use crate::error::{Error, Result};

/// Checks that `x` is a non-empty `[n, d]` input matrix with `d == expected_dim` when given.
pub(crate) fn check_inputs(context: &str, x: &Tensor<2>, expected_dim: Option<usize>) -> Result<usize> {
    let [n, d] = x.dims();
    if n == 0 {
        return Err(Error::Empty { context: format!("{context}: inputs") });
    }
    if let Some(e) = expected_dim {
        if d != e {
            return Err(Error::shape(&format!("{context}: input columns"), e, d));
        }
    }
    Ok(n)
}

/// Checks that targets `y` `[n, p]` have `n` rows and `p == expected_cols`.
pub(crate) fn check_targets(context: &str, y: &Tensor<2>, n: usize, expected_cols: usize) -> Result<()> {
    let dims = y.dims();
    if dims != [n, expected_cols] {
        return Err(Error::shape(&format!("{context}: targets"), [n, expected_cols], dims));
    }
    Ok(())
}
