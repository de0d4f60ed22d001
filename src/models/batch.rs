//! Row selection and row-chunked evaluation on device tensors.
use burn::tensor::{Int, Tensor, TensorData};

use crate::error::Result;

/// Rows `idx` of `t` (`[n, d] → [|idx|, d]`), gathered on `t`'s device.
pub fn select_rows(t: &Tensor<2>, idx: &[usize]) -> Tensor<2> {
    let ids: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
    let ids = Tensor::<1, Int>::from_data(TensorData::new(ids, [idx.len()]), &t.device());
    t.clone().select(0, ids)
}

/// `f` applied to consecutive blocks of at most `chunk` rows of `x` `[n, d]`, its two outputs
/// concatenated along the rows: predictive moments with bounded memory.
pub(crate) fn in_row_chunks<F>(x: &Tensor<2>, chunk: usize, mut f: F) -> Result<(Tensor<2>, Tensor<2>)>
where
    F: FnMut(Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)>,
{
    let n = x.dims()[0];
    let chunk = chunk.max(1);
    let (mut means, mut vars) = (Vec::new(), Vec::new());
    for start in (0..n).step_by(chunk) {
        let (m, v) = f(x.clone().narrow(0, start, chunk.min(n - start)))?;
        means.push(m);
        vars.push(v);
    }
    Ok((Tensor::cat(means, 0), Tensor::cat(vars, 0)))
}
