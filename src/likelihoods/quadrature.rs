//! Gauss–Hermite quadrature of expectations under independent Gaussians, as tensor ops.
use burn::tensor::{Tensor, TensorData};

use crate::special::gauss_hermite_normal;

/// Nodes and weights for `E_{x~N(μ,σ²)}[g(x)] ≈ Σ_k w_k g(μ + σ t_k)`.
#[derive(Clone, Debug)]
pub struct GaussHermite {
    nodes: Vec<f64>,
    weights: Vec<f64>,
}

impl GaussHermite {
    /// A rule with `n` points (exact for polynomials of degree < 2n).
    pub fn new(n: usize) -> Self {
        let (nodes, weights) = gauss_hermite_normal(n);
        Self { nodes, weights }
    }
    /// Number of points.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    /// True for an empty rule.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// The sample points `μ + σ t_k`: `[n, L] → [n, L, K]`.
    pub fn points(&self, mean: Tensor<2>, var: Tensor<2>) -> Tensor<3> {
        let device = mean.device();
        let k = self.nodes.len();
        let t = Tensor::<1>::from_data(TensorData::new(self.nodes.clone(), [k]), &device).reshape([1, 1, k]);
        mean.unsqueeze_dim::<3>(2) + var.sqrt().unsqueeze_dim::<3>(2) * t
    }
    /// `Σ_k w_k values[.., k]`: `[n, L, K] → [n, L]`.
    pub fn integrate(&self, values: Tensor<3>) -> Tensor<2> {
        let device = values.device();
        let [n, l, k] = values.dims();
        let w = Tensor::<1>::from_data(TensorData::new(self.weights.clone(), [k]), &device).reshape([1, 1, k]);
        (values * w).sum_dim(2).reshape([n, l])
    }
    /// `log Σ_k w_k exp(log_values[.., k])`, stable: `[n, L, K] → [n, L]`.
    pub fn log_integrate(&self, log_values: Tensor<3>) -> Tensor<2> {
        let device = log_values.device();
        let [n, l, k] = log_values.dims();
        let logw: Vec<f64> = self.weights.iter().map(|w| w.ln()).collect();
        let lw = Tensor::<1>::from_data(TensorData::new(logw, [k]), &device).reshape([1, 1, k]);
        let s = log_values + lw;
        let m = s.clone().max_dim(2).detach();
        ((s - m.clone()).exp().sum_dim(2).log() + m).reshape([n, l])
    }
}
