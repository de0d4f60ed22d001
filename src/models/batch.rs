//! Row selection and row-chunked evaluation on device tensors.
use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::error::Result;

/// Latent means and variances of `n` rows on the host as two `[n, 1]` tensors on `device` (how
/// the host-side models give [`predict_f`](crate::models::Predictor::predict_f)).
pub(crate) fn latent_columns(mean: Vec<f64>, var: Vec<f64>, device: &Device) -> Result<(Tensor<2>, Tensor<2>)> {
    let n = mean.len();
    Ok((crate::tensors::matrix(mean, n, 1, device)?, crate::tensors::matrix(var, n, 1, device)?))
}

/// Rows `idx` of `t` (`[n, d] → [|idx|, d]`), gathered on `t`'s device.
pub fn select_rows(t: &Tensor<2>, idx: &[usize]) -> Tensor<2> {
    let ids: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
    let ids = Tensor::<1, Int>::from_data(TensorData::new(ids, [idx.len()]), &t.device());
    t.clone().select(0, ids)
}

/// Cells of one `[rows, width]` temporary that a prediction chunk may make: 2²² (32 MB in f64).
const PREDICTION_CELLS: usize = 1 << 22;

/// Fewest rows of a chunk [`prediction_chunk`] asks for. Burn's CPU kernels take other paths
/// for small tensors (measured: chunks of 256 rows or fewer changed the last bit of some
/// predictions, chunks of 348 rows or more did not), so chunks of at least half of this, which
/// [`row_blocks`] guarantees, predict what one piece predicts, bit for bit.
const PREDICTION_MIN_ROWS: usize = 2048;

/// Rows per chunk when a model's `predict` chunks on its own, for temporaries `width` cells wide
/// per row (M · P for an SVGP's `[P, rows, M]` product): at most [`PREDICTION_CELLS`] cells each,
/// so prediction memory is bounded by the chunk, not by the number of rows; 2 048 rows at least.
pub(crate) fn prediction_chunk(width: usize) -> usize {
    (PREDICTION_CELLS / width.max(1)).max(PREDICTION_MIN_ROWS)
}

/// `(start, rows)` of the blocks that cover `0..n` in `⌈n / chunk⌉` pieces of equal size (to
/// within a row), so no block is much smaller than the others: every block of a chunked
/// prediction has at least `chunk / 2` rows (or all `n`).
pub(crate) fn row_blocks(n: usize, chunk: usize) -> impl Iterator<Item = (usize, usize)> {
    let k = n.div_ceil(chunk.max(1)).max(1);
    let (base, extra) = (n / k, n % k);
    (0..k).map(move |i| (i * base + i.min(extra), base + usize::from(i < extra)))
}

/// `f` applied to consecutive blocks of at most `chunk` rows of `x` `[n, d]` (the equal blocks of
/// [`row_blocks`]), its two outputs concatenated along the rows: predictive moments with bounded
/// memory. The models' row computations do not mix rows, so blocks of a few hundred rows or
/// more give the one-piece result bit for bit.
pub(crate) fn in_row_chunks<F>(x: &Tensor<2>, chunk: usize, mut f: F) -> Result<(Tensor<2>, Tensor<2>)>
where
    F: FnMut(Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)>,
{
    let n = x.dims()[0];
    if n <= chunk.max(1) {
        return f(x.clone());
    }
    let (mut means, mut vars) = (Vec::new(), Vec::new());
    for (start, rows) in row_blocks(n, chunk) {
        let (m, v) = f(x.clone().narrow(0, start, rows))?;
        means.push(m);
        vars.push(v);
    }
    Ok((Tensor::cat(means, 0), Tensor::cat(vars, 0)))
}

#[cfg(test)]
mod tests {
    use super::row_blocks;

    #[test]
    fn row_blocks_cover_the_rows_in_near_equal_pieces() {
        for (n, chunk) in [(10, 3), (1025, 1024), (3000, 1024), (7, 100), (4096, 2048), (1, 1)] {
            let blocks: Vec<_> = row_blocks(n, chunk).collect();
            assert_eq!(blocks.len(), n.div_ceil(chunk), "{n} rows in chunks of {chunk}");
            let mut next = 0;
            for &(start, rows) in &blocks {
                assert_eq!(start, next);
                assert!(rows <= chunk && rows >= n / blocks.len(), "{blocks:?}");
                next += rows;
            }
            assert_eq!(next, n);
        }
    }
}
