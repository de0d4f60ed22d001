//! Likelihoods `p(y | f)` and their expectations under a Gaussian `q(f) = N(μ, σ²)`.
//!
//! Targets are float tensors `[n, p]`: real values for [`Gaussian`], 0/1 for [`BernoulliProbit`],
//! one-hot rows (see [`one_hot`]) for the multi-class [`RobustMax`], [`Softmax`] and the Bayesian SVM's
//! [`MultiClassHinge`] pseudo-likelihood; 0/1 for its binary [`BinaryHinge`].
mod argmax;
mod bernoulli;
mod binary_hinge;
mod gaussian;
mod hinge;
mod quadrature;
mod robustmax;
mod softmax;
mod targets;

pub use argmax::argmax_probabilities;
pub(crate) use argmax::target_argmax_probability;
pub use bernoulli::BernoulliProbit;
pub use binary_hinge::BinaryHinge;
pub use gaussian::Gaussian;
pub use hinge::MultiClassHinge;
pub use quadrature::GaussHermite;
pub use robustmax::RobustMax;
pub use softmax::Softmax;
pub use targets::Targets;

use burn::module::{Module, ModuleDisplay};
use burn::tensor::{Device, Tensor, TensorData};

use crate::error::{Error, Result};

/// A likelihood for latent functions `f` `[n, L]` and targets `y` `[n, p]`.
pub trait Likelihood: Module + ModuleDisplay {
    /// Number of latent GPs this likelihood needs for `outputs` target columns / classes.
    fn num_latent(&self, outputs: usize) -> usize;
    /// `E_{q(f)}[log p(yᵢ | fᵢ)]` for each point: `[n]`.
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1>;
    /// Mean and variance of the predictive `p(y*) = ∫ p(y*|f) q(f) df`: `([n, p], [n, p])`.
    /// For classifiers the mean is the class probability.
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>);
    /// `log ∫ p(yᵢ|f) q(f) df` for each point: `[n]`.
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1>;
}

/// One-hot float targets `[n, k]` from class labels; errors on a label ≥ `k`.
pub fn one_hot(labels: &[usize], k: usize, device: &Device) -> Result<Tensor<2>> {
    if labels.is_empty() {
        return Err(Error::Empty { context: "labels".into() });
    }
    let mut v = vec![0.0f64; labels.len() * k];
    for (i, &c) in labels.iter().enumerate() {
        if c >= k {
            return Err(Error::LabelOutOfRange { context: "one_hot".into(), label: c as i64, num_classes: k });
        }
        v[i * k + c] = 1.0;
    }
    Ok(Tensor::from_data(TensorData::new(v, [labels.len(), k]), device))
}

/// Variance `p(1 − p)` of Bernoulli indicators with probabilities `p`.
pub(crate) fn indicator_variance(p: Tensor<2>) -> Tensor<2> {
    p.clone() * (p.neg() + 1.0)
}

/// `log Σ_k p_k y_k`: the log-probability of one-hot targets `y` under class probabilities `p`.
pub(crate) fn log_prob_of_targets(p: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
    row_sum(p * y).log()
}

/// Sums a `[n, L]` tensor over its columns into `[n]`.
pub(crate) fn row_sum(t: Tensor<2>) -> Tensor<1> {
    let n = t.dims()[0];
    t.sum_dim(1).reshape([n])
}
