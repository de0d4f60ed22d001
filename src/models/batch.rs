//! Minibatch row selection on device tensors.
use burn::tensor::{Int, Tensor, TensorData};

/// Rows `idx` of `t` (`[n, d] → [|idx|, d]`), gathered on `t`'s device.
pub fn select_rows(t: &Tensor<2>, idx: &[usize]) -> Tensor<2> {
    let ids: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
    let ids = Tensor::<1, Int>::from_data(TensorData::new(ids, [idx.len()]), &t.device());
    t.clone().select(0, ids)
}
