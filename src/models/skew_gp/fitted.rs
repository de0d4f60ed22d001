//! What a fitted [`SkewGp`] answers: its posterior, the fit's report and predictions.
use std::sync::Arc;

use burn::tensor::Tensor;

use super::posterior::SkewGpPosterior;
use super::prior::{SkewGp, SkewGpFitted};
use super::train::SkewGpReport;
use crate::error::{Error, Result};
use crate::kernels::Kernel;

impl<K: Kernel> SkewGp<K> {
    /// The posterior of the last [`fit`](Self::fit) (`None` before one): Theorem 1 at the training
    /// inputs with its lin-ess draws, for exact (Corollary 2), route-A and detailed predictions.
    pub fn posterior(&self) -> Option<SkewGpPosterior<K>> {
        let fitted = self.fitted.as_ref()?;
        Some(SkewGpPosterior::from_parts(SkewGp { fitted: None, ..self.clone() }, Arc::clone(&fitted.sun)))
    }
    /// How the last fit went (`None` before one, and for a model loaded from a file: the report
    /// is not saved).
    pub fn fit_report(&self) -> Option<&SkewGpReport> {
        self.fitted.as_ref().and_then(|f| f.report.as_ref())
    }
    /// The model holding `posterior` (of this prior) as its fit, without a report; how a saved
    /// model is loaded.
    pub(crate) fn with_posterior(self, posterior: &SkewGpPosterior<K>) -> Self {
        SkewGp { fitted: Some(Arc::new(SkewGpFitted { sun: posterior.sun(), report: None })), ..self }
    }
    /// The fitted posterior, or a typed error before a fit.
    fn fitted_posterior(&self, what: &str) -> Result<SkewGpPosterior<K>> {
        self.posterior().ok_or_else(|| Error::invalid(what, "the skew GP has no posterior yet: fit it first"))
    }
    /// The predictive at the rows of `x` from the fitted posterior (route B with its lin-ess
    /// draws; see [`SkewGpPosterior::predict`]); before a fit, [`Error::InvalidArgument`].
    pub fn predict(&self, x: &Tensor<2>) -> Result<crate::models::ClassPredictive> {
        self.fitted_posterior("SkewGp::predict")?.predict(x)
    }
    /// Posterior means and variances of the latent `f(x)` at the rows of `x`, each `[n*, 1]` on
    /// `x`'s device (route B); before a fit, [`Error::InvalidArgument`].
    pub fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let details = self.fitted_posterior("SkewGp::predict_f")?.predict_details(x)?;
        crate::models::latent_columns(details.latent_mean, details.latent_var, &x.device())
    }
}
