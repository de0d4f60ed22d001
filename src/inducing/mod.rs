//! Inducing variables: what the sparse posterior is conditioned on. A model asks the
//! `(inducing variable, kernel)` pair for `Kuu` and `Kuf`, so inducing points and inducing
//! features (e.g. Fourier features) plug into the same models.
mod factor;
pub mod fourier;
mod init;
pub(crate) mod kmeans;
mod points;

pub use factor::{CholeskyFactor, KuuFactor};
pub use fourier::{FourierFeatures, FourierKernel};
pub use init::{inducing_subset, InducingInit};
pub use kmeans::{inducing_kmeans, kmeans_random_start};
pub use points::InducingPoints;

use burn::module::{Module, ModuleDisplay};
use burn::tensor::Tensor;

use crate::error::Result;
use crate::kernels::Kernel;

/// Inducing variables `u` of a GP `f ~ GP(0, k)`, for kernel type `K`.
pub trait InducingVariables<K: Kernel>: Module + ModuleDisplay {
    /// Number of inducing variables M.
    fn num_inducing(&self) -> usize;
    /// `Cov(u, u)` `[M, M]` with `jitter` added to the diagonal.
    fn kuu(&self, kernel: &K, jitter: f64) -> Tensor<2>;
    /// `Cov(u, f(x))` `[M, n]`.
    fn kuf(&self, kernel: &K, x: Tensor<2>) -> Tensor<2>;
    /// `Cov(f(x), u)` `[n, M]` (row-major in n, which keeps the models' reductions contiguous).
    fn kfu(&self, kernel: &K, x: Tensor<2>) -> Tensor<2> {
        self.kuf(kernel, x).transpose()
    }
    /// `K_uu` (with `jitter`) factorised for solves and log-determinants: a dense Cholesky by
    /// default, closed-form structure where the inducing variables have one (Fourier features).
    fn kuu_factor(&self, kernel: &K, jitter: f64) -> Result<KuuFactor> {
        KuuFactor::cholesky(self.kuu(kernel, jitter))
    }
}
