//! Multi-class softmax likelihood with Monte Carlo expectations.
use burn::module::Module;
use burn::tensor::{activation::log_softmax, Distribution, Tensor};

use super::{indicator_variance, log_prob_of_targets, Likelihood};

/// `p(y = c | f) = softmax(f)_c`; expectations by Monte Carlo with reparametrised samples.
#[derive(Module, Debug)]
pub struct Softmax {
    /// Number of Monte Carlo samples per expectation.
    pub samples: usize,
}

impl Default for Softmax {
    fn default() -> Self {
        Self { samples: 64 }
    }
}

impl Softmax {
    /// `log softmax(f_s)` for `S` samples `f_s ~ N(μ, σ²)`: `[S, n, K]`.
    fn sample_log_probs(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> Tensor<3> {
        let [n, k] = f_mean.dims();
        let eps = Tensor::<3>::random([self.samples, n, k], Distribution::Normal(0.0, 1.0), &f_mean.device());
        let f = f_mean.unsqueeze::<3>() + f_var.sqrt().unsqueeze::<3>() * eps;
        log_softmax(f, 2)
    }
}

impl Likelihood for Softmax {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let n = f_mean.dims()[0];
        let lp = self.sample_log_probs(f_mean, f_var);
        (lp * y.unsqueeze::<3>()).sum_dim(2).mean_dim(0).reshape([n])
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let [n, k] = f_mean.dims();
        let p = self.sample_log_probs(f_mean, f_var).exp().mean_dim(0).reshape([n, k]);
        let v = indicator_variance(p.clone());
        (p, v)
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let (p, _) = self.predict_mean_and_var(f_mean, f_var);
        log_prob_of_targets(p, y)
    }
}
