//! Reductions written as matrix products.
//!
//! Burn's CPU backend reduces (and, under autodiff, un-broadcasts) along an axis much more slowly
//! than it multiplies matrices, so the hot row sums of the models are products with a ones vector;
//! their backward passes are matrix products too.
use burn::tensor::Tensor;

/// Row sums `[n, k] → [n, 1]` computed as `t · 1_k`.
pub(crate) fn row_sums(t: Tensor<2>) -> Tensor<2> {
    let k = t.dims()[1];
    let ones = Tensor::<2>::ones([k, 1], &t.device());
    t.matmul(ones)
}
