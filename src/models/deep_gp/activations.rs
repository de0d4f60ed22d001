//! Diagonal-Gaussian activations passed between the layers of a deep GP.
use burn::tensor::Tensor;

/// A batch of activations `h ~ N(mean, diag(var))`, rows = data points: `[B, D]` each.
///
/// `var = None` marks a deterministic input (the data, or a deterministic layer applied to it);
/// the first GP layer then uses its exact `k_x` path instead of the ψ-statistics.
#[derive(Clone, Debug)]
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub struct GaussianActivations {
    /// Means `[B, D]`.
    pub mean: Tensor<2>,
    /// Variances `[B, D]`, or `None` for a deterministic input.
    pub var: Option<Tensor<2>>,
}

impl GaussianActivations {
    /// Deterministic activations (zero variance), e.g. the inputs `x`.
    pub fn deterministic(x: Tensor<2>) -> Self {
        Self { mean: x, var: None }
    }
    /// Gaussian activations with the given means and variances.
    pub fn gaussian(mean: Tensor<2>, var: Tensor<2>) -> Self {
        Self { mean, var: Some(var) }
    }
    /// Number of rows B.
    pub fn rows(&self) -> usize {
        self.mean.dims()[0]
    }
    /// Width D.
    pub fn width(&self) -> usize {
        self.mean.dims()[1]
    }
    /// Variances, zeros when deterministic.
    pub(crate) fn var_or_zeros(&self) -> Tensor<2> {
        self.var.clone().unwrap_or_else(|| self.mean.zeros_like())
    }
}
