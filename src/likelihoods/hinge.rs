//! The multi-class (Crammer–Singer) hinge pseudo-likelihood of the Bayesian SVM (Wistuba & Rawat 2018).
use burn::module::Module;
use burn::tensor::{Bool, FloatDType, Int, Tensor};

use super::{argmax_probabilities, indicator_variance, log_prob_of_targets, Likelihood};

/// `L(y | f) = exp(−2 max(1 + max_{t≠y} f_t − f_y, 0))` for one-hot targets `[n, C]`.
///
/// Written as a Gaussian location–scale mixture over a latent scale `λ` (the paper's Theorem 1, eq. 7)
/// with the optimal `q(λ) = GIG(½, 1, α̂)` in closed form, its variational expectation *including the
/// entropy of `q(λ)`* is (E3) of `docs/papers/003-bayesian-svm.md` (the paper's eq. 12, corrected, at
/// `α = α̂`)
///
/// `ℓ* = −b̄ − √(b̄² + s²_t + s²_y)`,  `b̄ = 1 + f̄_t − f̄_y`,
///
/// where `t = argmax_{j≠y} f̄_j` is the most competitive wrong class, chosen on the detached means
/// (no gradient through the arg-max). With zero variance `ℓ*` is the log pseudo-likelihood
/// `−2 max(b, 0)`. The pseudo-likelihood is unnormalised, so the ELBO of a model using it is not
/// comparable with a normalised model's.
///
/// Predictions: class probabilities are `P(f_c is the largest)` under the Gaussian marginals,
/// computed by Gauss–Hermite quadrature; the decision is `argmax_c f̄_c` as in an SVM.
#[derive(Module, Debug)]
pub struct MultiClassHinge {
    /// Gauss–Hermite points for predictive class probabilities.
    pub quadrature_points: usize,
}

impl Default for MultiClassHinge {
    fn default() -> Self {
        Self { quadrature_points: 32 }
    }
}

/// `ε` inside `√(α̂ + ε)`: keeps the derivative of the square root finite when `α̂ → 0`.
pub(crate) fn sqrt_floor(t: &Tensor<2>) -> f64 {
    if t.dtype() == FloatDType::F64.into() {
        1e-12
    } else {
        1e-6
    }
}

/// The collapsed per-point term `−b̄ − √(α̂ + ε)` for a margin violation `b̄` and `α̂ = b̄² + v`.
pub(crate) fn collapsed_hinge(b: Tensor<2>, alpha: Tensor<2>) -> Tensor<2> {
    let eps = sqrt_floor(&b);
    b.neg() - alpha.add_scalar(eps).sqrt()
}

impl MultiClassHinge {
    /// The most competitive wrong class `t = argmax_{j≠y} f̄_j` for each point: `[n, 1]` (no gradient).
    pub fn competitors(f_mean: Tensor<2>, y: Tensor<2>) -> Tensor<2, Int> {
        let is_true: Tensor<2, Bool> = y.detach().greater_elem(0.5);
        f_mean.detach().mask_fill(is_true, f64::NEG_INFINITY).argmax(1)
    }
    /// Margin violations `b̄ = 1 + f̄_t − f̄_y` and `α̂ = b̄² + s²_t + s²_y`, both `[n, 1]`.
    pub fn margins(f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let t = Self::competitors(f_mean.clone(), y.clone());
        let f_t = f_mean.clone().gather(1, t.clone());
        let s_t = f_var.clone().gather(1, t);
        let f_y = (f_mean * y.clone()).sum_dim(1);
        let s_y = (f_var * y).sum_dim(1);
        let b = (f_t - f_y).add_scalar(1.0);
        let alpha = b.clone().powi_scalar(2) + s_t + s_y;
        (b, alpha)
    }
}

impl Likelihood for MultiClassHinge {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let n = f_mean.dims()[0];
        let (b, alpha) = Self::margins(f_mean, f_var, y);
        collapsed_hinge(b, alpha).reshape([n])
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let p = argmax_probabilities(f_mean, f_var, self.quadrature_points);
        let v = indicator_variance(p.clone());
        (p, v)
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let (p, _) = self.predict_mean_and_var(f_mean, f_var);
        log_prob_of_targets(p.clamp_min(1e-300), y)
    }
}
