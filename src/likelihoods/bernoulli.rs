//! Bernoulli likelihood with a probit link.
use burn::module::Module;
use burn::tensor::Tensor;

use super::{indicator_variance, row_sum, GaussHermite, Likelihood};
use crate::special::tensor::log_ndtr;

/// `p(y=1 | f) = Φ(f)` for targets `y ∈ {0, 1}` `[n, 1]`.
///
/// Predictions are closed-form (`p(y=1) = Φ(μ/√(1+σ²))`); the variational expectation
/// `E[log Φ((2y−1) f)]` uses Gauss–Hermite quadrature with a log-space CDF.
#[derive(Module, Debug)]
pub struct BernoulliProbit {
    /// Number of Gauss–Hermite points for the variational expectation.
    pub quadrature_points: usize,
}

impl Default for BernoulliProbit {
    fn default() -> Self {
        Self { quadrature_points: 20 }
    }
}

fn signs(y: Tensor<2>) -> Tensor<2> {
    y.mul_scalar(2.0).sub_scalar(1.0)
}

fn probit_z(f_mean: Tensor<2>, f_var: Tensor<2>) -> Tensor<2> {
    f_mean / (f_var + 1.0).sqrt()
}

impl Likelihood for BernoulliProbit {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let gh = GaussHermite::new(self.quadrature_points);
        let f = gh.points(f_mean, f_var);
        let s = signs(y).unsqueeze_dim::<3>(2);
        row_sum(gh.integrate(log_ndtr(f * s)))
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let p = log_ndtr(probit_z(f_mean, f_var)).exp();
        let v = indicator_variance(p.clone());
        (p, v)
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        row_sum(log_ndtr(probit_z(f_mean, f_var) * signs(y)))
    }
}
