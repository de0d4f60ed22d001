//! Multi-class robust-max likelihood (Hernández-Lobato et al. 2011; GPflow's `RobustMax`).
use burn::module::Module;
use burn::tensor::Tensor;

use super::{argmax_probabilities, indicator_variance, log_prob_of_targets, target_argmax_probability, Likelihood};

/// `p(y = c | f) = 1 − ε` if `c = argmax_k f_k`, else `ε / (K − 1)`; targets one-hot `[n, K]`.
///
/// The probability that class `c` is the arg-max under independent Gaussians,
/// `P_c = E_{f_c}[Π_{j≠c} Φ((f_c − μ_j)/σ_j)]`, is computed by Gauss–Hermite quadrature in log space,
/// so everything is closed-form up to quadrature. The training term needs `P_y` of the target class
/// only, which costs `n·Q·K` (Q quadrature points) rather than the `n·K·Q·K` of all classes; it is
/// not renormalised, as in GPflow. Predictions use every class's `P_c`, renormalised.
#[derive(Module, Debug)]
pub struct RobustMax {
    /// Label-noise probability ε.
    pub epsilon: f64,
    /// Gauss–Hermite points.
    pub quadrature_points: usize,
}

impl Default for RobustMax {
    fn default() -> Self {
        Self { epsilon: 1e-3, quadrature_points: 20 }
    }
}

impl RobustMax {
    /// `P(f_c = max_k f_k)` for every class: `[n, K]` (rows renormalised to sum to 1).
    pub fn argmax_probabilities(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> Tensor<2> {
        argmax_probabilities(f_mean, f_var, self.quadrature_points)
    }
    fn class_probabilities(&self, p_max: Tensor<2>) -> Tensor<2> {
        let k = p_max.dims()[1] as f64;
        let other = self.epsilon / (k - 1.0).max(1.0);
        p_max.mul_scalar(1.0 - self.epsilon - other).add_scalar(other)
    }
}

impl Likelihood for RobustMax {
    fn num_latent(&self, outputs: usize) -> usize {
        outputs
    }
    fn variational_expectations(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let k = f_mean.dims()[1] as f64;
        let p = target_argmax_probability(f_mean, f_var, y, self.quadrature_points);
        let log_hit = (1.0 - self.epsilon).ln();
        let log_miss = (self.epsilon / (k - 1.0).max(1.0)).ln();
        p.mul_scalar(log_hit - log_miss).add_scalar(log_miss)
    }
    fn predict_mean_and_var(&self, f_mean: Tensor<2>, f_var: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        let p = self.class_probabilities(self.argmax_probabilities(f_mean, f_var));
        let v = indicator_variance(p.clone());
        (p, v)
    }
    fn predict_log_density(&self, f_mean: Tensor<2>, f_var: Tensor<2>, y: Tensor<2>) -> Tensor<1> {
        let (p, _) = self.predict_mean_and_var(f_mean, f_var);
        log_prob_of_targets(p, y)
    }
}
