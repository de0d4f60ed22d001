//! Calibration of class probabilities on held-out labels:
//! - [`TemperatureScaling`] (Guo et al. 2017): `softmax(z / T)` from scores `z` (a network's
//!   logits, or a Bayesian SVM's latent means), with the one temperature `T` that minimises the
//!   negative log-likelihood of held-out labels;
//! - [`VarianceScaling`]: the arg-max probabilities of Gaussian latent marginals with every
//!   variance multiplied by one fitted factor;
//! - [`MeanFieldScaling`]: `softmax(f̄_c / (T·√(1 + λ·v_c)))`, the mean-field approximation of the
//!   expected softmax under Gaussian latents, with a temperature and a variance weight fitted
//!   together: each point's latent variance flattens its own probabilities;
//! - [`LatentCalibrations`]: the three above fitted on held-out points and scored on test points in
//!   one call ([`Calibrated`]: the parameters, the calibrated probabilities, their
//!   [`ClassScores`]), and [`Calibrated::temperature_of_scores`] for a network's logits;
//!   [`paired_nll_difference`] compares two sets of probabilities point by point.
//!
//! The multi-class hinge pseudo-likelihood of paper 003 has no normalised class probability; the
//! paper's own probabilities are "softmax over the mean predictions" (its §4.3.1). Their scale is
//! arbitrary (hinge margins are about 1), so [`TemperatureScaling::fit`] sets it on examples the
//! model did not train on.
//!
//! ```
//! use burn_gp::calibration::TemperatureScaling;
//! // held-out scores [n, k] row-major and their labels
//! let scores = [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 3.0, 0.0, 0.0, 0.5, 0.0, 0.6];
//! let labels = [0, 1, 0, 2];
//! let t = TemperatureScaling::fit(&scores, 3, &labels)?;
//! let probs = t.probabilities(&scores, 3)?; // [n, k], rows sum to 1
//! assert!(t.temperature > 0.0 && (probs[0] + probs[1] + probs[2] - 1.0).abs() < 1e-12);
//! # Ok::<(), burn_gp::Error>(())
//! ```
use crate::error::{check_finite, Error, Result};

mod calibrated;
mod mean_field;
mod scores;
mod temperature;
mod variance;

pub use calibrated::{Calibrated, LatentCalibrations};
pub use mean_field::MeanFieldScaling;
pub use scores::{paired_nll_difference, ClassScores, ECE_BINS};
pub use temperature::TemperatureScaling;
pub use variance::VarianceScaling;

/// Checks `scores` are finite and `[n, k]` with `n, k ≥ 1`; returns `n`.
pub(crate) fn check_scores(context: &str, scores: &[f64], k: usize) -> Result<usize> {
    if k == 0 {
        return Err(Error::invalid("k", format!("{context}: need at least one class")));
    }
    if scores.is_empty() {
        return Err(Error::Empty { context: context.to_string() });
    }
    if !scores.len().is_multiple_of(k) {
        return Err(Error::shape(&format!("{context} scores (n × k)"), [scores.len() / k + 1, k], scores.len()));
    }
    check_finite(&format!("{context} scores"), scores)?;
    Ok(scores.len() / k)
}

/// `softmax(β z)` of one row, stabilised by its maximum.
pub(crate) fn softmax_row(z: &[f64], beta: f64) -> Vec<f64> {
    let top = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (beta * (v - top)).exp()).collect();
    let total: f64 = e.iter().sum();
    e.into_iter().map(|v| v / total).collect()
}

/// Mean NLL of `labels` under probabilities `[n, k]`, with each probability floored at 1e-300 so
/// that a fit's objective stays finite.
pub(crate) fn mean_nll(probs: &[f64], k: usize, labels: &[usize]) -> f64 {
    probs.chunks_exact(k).zip(labels).map(|(p, &y)| -p[y].max(1e-300).ln()).sum::<f64>() / labels.len() as f64
}

/// The minimiser of `f` on `[a, b]` by golden-section search, to a bracket of width 1e-4 (`f` is
/// taken as unimodal there).
pub(crate) fn golden_section(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64) -> f64 {
    let golden = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - golden * (b - a), a + golden * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc <= fd {
            (b, d, fd) = (d, c, fc);
            c = b - golden * (b - a);
            fc = f(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + golden * (b - a);
            fd = f(d);
        }
        if b - a < 1e-4 {
            break;
        }
    }
    0.5 * (a + b)
}

/// The category a uniform draw `u` in `[0, 1)` falls in under probabilities `p` (test data).
#[cfg(test)]
pub(crate) fn categorical(p: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    p.iter()
        .position(|&q| {
            acc += q;
            u < acc
        })
        .unwrap_or(p.len() - 1)
}
