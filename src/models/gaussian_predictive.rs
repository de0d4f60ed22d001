//! [`GaussianPredictive`]: what every regression model predicts, on the host.
use burn::tensor::Tensor;

use crate::error::{check_finite, Error, Result};
use crate::metrics;
use crate::tensors::to_vec;

/// Independent Gaussian predictive marginals `N(mean_ij, var_ij)` of `n` points and `outputs`
/// target columns (row-major), with the metrics a regression model is judged by.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianPredictive {
    /// Means `[n, outputs]`.
    pub mean: Vec<f64>,
    /// Variances `[n, outputs]` (of the targets: the noise included where the model has one).
    pub var: Vec<f64>,
    /// Number of points.
    pub n: usize,
    /// Number of target columns.
    pub outputs: usize,
}

impl GaussianPredictive {
    /// From host vectors `[n, outputs]`; errors on a length mismatch, NaN or a variance ≤ 0.
    pub fn new(mean: Vec<f64>, var: Vec<f64>, outputs: usize) -> Result<Self> {
        if outputs == 0 || !mean.len().is_multiple_of(outputs) || var.len() != mean.len() {
            return Err(Error::shape("GaussianPredictive", [mean.len() / outputs.max(1), outputs], [var.len()]));
        }
        check_finite("predictive means", &mean)?;
        check_finite("predictive variances", &var)?;
        if let Some(i) = var.iter().position(|&v| v <= 0.0) {
            return Err(Error::invalid("var", format!("variance {} at index {i} is not positive", var[i])));
        }
        Ok(Self { n: mean.len() / outputs, mean, var, outputs })
    }
    /// From a model's `(mean, var)` tensors `[n, outputs]`.
    pub fn from_tensors(mean: Tensor<2>, var: Tensor<2>) -> Result<Self> {
        let outputs = mean.dims()[1];
        Self::new(to_vec(mean), to_vec(var), outputs)
    }
    /// The predictive in the original units of targets standardised as `(y − shift) / scale`:
    /// means `shift + scale·mean`, variances `scale²·var`.
    pub fn unstandardised(&self, shift: f64, scale: f64) -> Result<Self> {
        if !(scale.is_finite() && scale > 0.0 && shift.is_finite()) {
            return Err(Error::invalid("scale", format!("need a finite shift and scale > 0, got {shift}, {scale}")));
        }
        let mean = self.mean.iter().map(|m| shift + scale * m).collect();
        Self::new(mean, self.var.iter().map(|v| v * scale * scale).collect(), self.outputs)
    }
    /// `log N(y_ij | mean_ij, var_ij)` summed over the outputs of each point `[n]`; `y` is
    /// `[n, outputs]`.
    pub fn log_density(&self, y: &[f64]) -> Result<Vec<f64>> {
        self.check_targets(y)?;
        let ln_2pi = (2.0 * std::f64::consts::PI).ln();
        let per: Vec<f64> = (0..y.len())
            .map(|i| -0.5 * (ln_2pi + self.var[i].ln() + (y[i] - self.mean[i]).powi(2) / self.var[i]))
            .collect();
        Ok(per.chunks(self.outputs).map(|row| row.iter().sum()).collect())
    }
    /// Mean over points of [`log_density`](Self::log_density): the test log-likelihood.
    pub fn mean_log_density(&self, y: &[f64]) -> Result<f64> {
        Ok(self.log_density(y)?.iter().sum::<f64>() / self.n as f64)
    }
    /// Root mean squared error of the means over all entries.
    pub fn rmse(&self, y: &[f64]) -> Result<f64> {
        self.check_targets(y)?;
        metrics::rmse(&self.mean, y)
    }
    fn check_targets(&self, y: &[f64]) -> Result<()> {
        if y.len() != self.mean.len() {
            return Err(Error::shape("GaussianPredictive targets", [self.n, self.outputs], [y.len()]));
        }
        check_finite("GaussianPredictive targets", y)
    }
}
