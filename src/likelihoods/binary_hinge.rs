//! The binary hinge pseudo-likelihood of the Bayesian SVM (Polson & Scott 2011; Wenzel et al. 2017).
use burn::module::Module;
use burn::tensor::Tensor;

use super::hinge::collapsed_hinge;
use super::{indicator_variance, row_sum, Likelihood};
use crate::special::tensor::log_ndtr;

/// `L(y | f) = exp(−2 max(1 − y′f, 0))` for targets `y ∈ {0, 1}` `[n, 1]`, `y′ = 2y − 1`.
///
/// Variational expectation with the optimal `q(λ)` (`docs/papers/003-bayesian-svm.md`, section
/// "Binary case"):
/// `ℓ* = −(1 − y′f̄) − √((1 − y′f̄)² + s²)`. The class-1 probability reported by predictions is
/// `P(f > 0) = Φ(f̄ / s)`: the posterior probability that the SVM decision is class 1.
#[derive(Module, Debug, Default)]
pub struct BinaryHinge {}

fn signs(y: Tensor<2>) -> Tensor<2> {
    y.mul_scalar(2.0).sub_scalar(1.0)
}

impl Likelihood for BinaryHinge {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let b = (signs(y) * f_mean).neg().add_scalar(1.0);
        let alpha = b.clone().powi_scalar(2) + f_var;
        row_sum(collapsed_hinge(b, alpha))
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let p = log_ndtr(f_mean / f_var.sqrt()).exp();
        let v = indicator_variance(p.clone());
        (p, v)
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        row_sum(log_ndtr(f_mean / f_var.sqrt() * signs(y)))
    }
}
