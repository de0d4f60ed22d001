//! Pairwise distances for stationary kernels.
use burn::tensor::Tensor;

/// Squared Euclidean distances between the rows of `x / ℓ` and `x2 / ℓ`: `[n, d], [m, d], [d] → [n, m]`,
/// clamped at zero against round-off.
pub(crate) fn scaled_square_distance(x: Tensor<2>, x2: Tensor<2>, lengthscales: Tensor<1>) -> Tensor<2> {
    let ls = lengthscales.unsqueeze::<2>(); // [1, d]
    let a = x / ls.clone();
    let b = x2 / ls;
    let a2 = a.clone().powi_scalar(2).sum_dim(1); // [n, 1]
    let b2 = b.clone().powi_scalar(2).sum_dim(1).transpose(); // [1, m]
    let cross = crate::linalg::matmul_nt(a, b);
    (a2 + b2 - cross.mul_scalar(2.0)).clamp_min(0.0)
}
