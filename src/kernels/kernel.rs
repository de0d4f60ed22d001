//! The `Kernel` trait.
use burn::module::{Module, ModuleDisplay};
use burn::tensor::Tensor;

/// A positive-definite covariance function k(x, x') on row-stacked inputs `[n, d]`.
pub trait Kernel: Module + ModuleDisplay {
    /// Cross-covariance matrix `K(x, x2)`: `[n, d] × [m, d] → [n, m]`.
    fn k(&self, x: Tensor<2>, x2: Tensor<2>) -> Tensor<2>;
    /// Diagonal of `K(x, x)`: `[n, d] → [n]`.
    fn k_diag(&self, x: Tensor<2>) -> Tensor<1>;
    /// The input dimension the kernel was built for, if it is fixed (ARD kernels).
    fn input_dim(&self) -> Option<usize>;
}
