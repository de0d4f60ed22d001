//! Calibration of class probabilities on held-out labels. Temperature scaling (Guo et al. 2017):
//! `softmax(z / T)` from scores `z` (a network's logits, or a Bayesian SVM's latent means), with
//! the one temperature `T` that minimises the negative log-likelihood of held-out labels; and
//! [`VarianceScaling`]: the arg-max probabilities of Gaussian latent marginals with every variance
//! multiplied by one fitted factor.
//!
//! The multi-class hinge pseudo-likelihood of paper 003 has no normalised class probability; the
//! paper's own probabilities are "softmax over the mean predictions" (its §4.3.1). Their scale is
//! arbitrary (hinge margins are about 1), so [`TemperatureScaling::fit`] sets it on examples the
//! model did not train on. The NLL is convex in `1/T`, so the fit is a bisection on the sign of
//! its derivative.
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
use crate::data::check_labels;
use crate::error::{check_finite, Error, Result};
use crate::models::ClassPredictive;

/// Bounds of the fitted inverse temperature `β = 1/T`.
const BETA_RANGE: (f64, f64) = (1e-4, 1e4);

/// A fitted temperature: probabilities are `softmax(z / temperature)` per row of scores `z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TemperatureScaling {
    /// The temperature `T > 0` (`T > 1` softens the scores, `T < 1` sharpens them).
    pub temperature: f64,
}

impl TemperatureScaling {
    /// The temperature minimising the mean NLL of `labels` under `softmax(scores / T)`, for
    /// `scores` `[n, k]` row-major. `T` is kept within `[1e-4, 1e4]`: where every example is
    /// classified correctly the NLL falls all the way to `T → 0`, and the fit stops at the bound.
    pub fn fit(scores: &[f64], k: usize, labels: &[usize]) -> Result<Self> {
        let n = check_scores("TemperatureScaling::fit", scores, k)?;
        if labels.len() != n {
            return Err(Error::shape("TemperatureScaling::fit labels", [n], [labels.len()]));
        }
        check_labels("TemperatureScaling::fit labels", labels.iter().copied(), k)?;
        // d NLL / dβ = mean_i (E_{softmax(βz_i)}[z] − z_{i,y_i}), increasing in β (convexity).
        let slope = |beta: f64| {
            scores
                .chunks_exact(k)
                .zip(labels)
                .map(|(z, &y)| {
                    let p = softmax_row(z, beta);
                    p.iter().zip(z).map(|(p, z)| p * z).sum::<f64>() - z[y]
                })
                .sum::<f64>()
                / n as f64
        };
        if slope(BETA_RANGE.0) >= 0.0 {
            return Ok(Self { temperature: 1.0 / BETA_RANGE.0 });
        }
        if slope(BETA_RANGE.1) <= 0.0 {
            return Ok(Self { temperature: 1.0 / BETA_RANGE.1 });
        }
        let (mut lo, mut hi) = (BETA_RANGE.0.ln(), BETA_RANGE.1.ln());
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if slope(mid.exp()) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(Self { temperature: (-(0.5 * (lo + hi))).exp() })
    }

    /// Class probabilities `softmax(z / T)` `[n, k]` of `scores` `[n, k]` row-major.
    pub fn probabilities(&self, scores: &[f64], k: usize) -> Result<Vec<f64>> {
        check_scores("TemperatureScaling::probabilities", scores, k)?;
        let beta = 1.0 / self.temperature;
        Ok(scores.chunks_exact(k).flat_map(|z| softmax_row(z, beta)).collect())
    }
}

/// Variance scaling of a Gaussian latent predictive: class probabilities `P(f_c is the largest)`
/// under `f_c ~ N(f̄_c, s·v_c)` (by Gauss–Hermite, [`ClassPredictive::gh_probabilities`]), with
/// the one factor `s` on every latent variance that minimises the NLL of held-out labels.
///
/// Where temperature scaling rescales the means alone, this keeps the model's own probabilities
/// and lets each point's variance decide how much it is flattened: a posterior `q(u)` fitted on many
/// points by natural-gradient steps is over-concentrated, and `s > 1` widens it evenly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarianceScaling {
    /// The factor `s > 0` on the latent variances.
    pub scale: f64,
}

/// Bounds of the fitted variance factor.
const SCALE_RANGE: (f64, f64) = (1e-2, 1e4);

impl VarianceScaling {
    /// The factor in `[1e-2, 1e4]` minimising the mean NLL of `labels` (one per point of `pred`),
    /// by golden-section search on its logarithm (the NLL is taken as unimodal there).
    pub fn fit(pred: &ClassPredictive, labels: &[usize]) -> Result<Self> {
        if labels.len() != pred.n {
            return Err(Error::shape("VarianceScaling::fit labels", [pred.n], [labels.len()]));
        }
        if pred.n == 0 {
            return Err(Error::Empty { context: "VarianceScaling::fit".into() });
        }
        check_labels("VarianceScaling::fit labels", labels.iter().copied(), pred.classes)?;
        let nll = |ln_s: f64| -> f64 {
            let probs = Self { scale: ln_s.exp() }.scaled(pred).gh_probabilities(GH_POINTS);
            probs.chunks_exact(pred.classes).zip(labels).map(|(p, &y)| -p[y].max(1e-300).ln()).sum::<f64>()
                / pred.n as f64
        };
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        let (mut a, mut b) = (SCALE_RANGE.0.ln(), SCALE_RANGE.1.ln());
        let (mut c, mut d) = (b - golden * (b - a), a + golden * (b - a));
        let (mut fc, mut fd) = (nll(c), nll(d));
        for _ in 0..60 {
            if fc <= fd {
                (b, d, fd) = (d, c, fc);
                c = b - golden * (b - a);
                fc = nll(c);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + golden * (b - a);
                fd = nll(d);
            }
            if b - a < 1e-4 {
                break;
            }
        }
        Ok(Self { scale: (0.5 * (a + b)).exp() })
    }

    /// Class probabilities `[n, C]` of `pred` with its variances multiplied by the factor.
    pub fn probabilities(&self, pred: &ClassPredictive) -> Vec<f64> {
        self.scaled(pred).gh_probabilities(GH_POINTS)
    }

    fn scaled(&self, pred: &ClassPredictive) -> ClassPredictive {
        ClassPredictive { var: pred.var.iter().map(|v| v * self.scale).collect(), ..pred.clone() }
    }
}

/// Gauss–Hermite points of [`VarianceScaling`]'s probabilities.
const GH_POINTS: usize = 32;

/// Checks `scores` are finite and `[n, k]` with `n, k ≥ 1`; returns `n`.
fn check_scores(context: &str, scores: &[f64], k: usize) -> Result<usize> {
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
fn softmax_row(z: &[f64], beta: f64) -> Vec<f64> {
    let top = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (beta * (v - top)).exp()).collect();
    let total: f64 = e.iter().sum();
    e.into_iter().map(|v| v / total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::nll;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, Normal};

    /// Scores `[n, k]` and labels drawn from `softmax(scores / t0)`.
    fn drawn(n: usize, k: usize, t0: f64, seed: u64) -> (Vec<f64>, Vec<usize>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let normal = Normal::new(0.0, 3.0).unwrap();
        let scores: Vec<f64> = (0..n * k).map(|_| normal.sample(&mut rng)).collect();
        let labels = scores
            .chunks_exact(k)
            .map(|z| {
                let p = softmax_row(z, 1.0 / t0);
                let u: f64 = rng.random();
                let mut acc = 0.0;
                p.iter()
                    .position(|&q| {
                        acc += q;
                        u < acc
                    })
                    .unwrap_or(k - 1)
            })
            .collect();
        (scores, labels)
    }

    #[test]
    fn recovers_the_temperature_labels_were_drawn_at() {
        for (t0, seed) in [(0.5, 1), (2.5, 2)] {
            let (scores, labels) = drawn(20_000, 5, t0, seed);
            let t = TemperatureScaling::fit(&scores, 5, &labels).unwrap().temperature;
            assert!((t / t0 - 1.0).abs() < 0.05, "fitted {t}, drawn at {t0}");
        }
    }

    #[test]
    fn the_fit_minimises_the_nll() {
        let (scores, labels) = drawn(2_000, 4, 1.7, 3);
        let fitted = TemperatureScaling::fit(&scores, 4, &labels).unwrap();
        let nll_at = |t: f64| {
            nll(&TemperatureScaling { temperature: t }.probabilities(&scores, 4).unwrap(), 4, &labels).unwrap()
        };
        let best = nll_at(fitted.temperature);
        for factor in [0.9, 0.99, 1.01, 1.1] {
            assert!(best <= nll_at(fitted.temperature * factor) + 1e-12, "factor {factor}");
        }
    }

    #[test]
    fn separable_labels_stop_at_the_bound_and_random_scores_flatten() {
        // Every label has the largest score: sharper is always better.
        let t = TemperatureScaling::fit(&[3.0, 0.0, 0.0, 2.0], 2, &[0, 1]).unwrap();
        assert_eq!(t.temperature, 1.0 / BETA_RANGE.1);
        // Labels opposite to the scores: flattest is best.
        let t = TemperatureScaling::fit(&[3.0, 0.0, 0.0, 2.0], 2, &[1, 0]).unwrap();
        assert_eq!(t.temperature, 1.0 / BETA_RANGE.0);
    }

    #[test]
    fn variance_scaling_recovers_the_factor_labels_were_drawn_at() {
        // Labels are the arg-max of f ~ N(m, 4·v): the fitted factor should be about 4.
        let (n, k) = (6_000, 3);
        let mut rng = StdRng::seed_from_u64(7);
        let normal = Normal::new(0.0, 1.0).unwrap();
        let mean: Vec<f64> = (0..n * k).map(|_| normal.sample(&mut rng)).collect();
        let var: Vec<f64> = (0..n * k).map(|_| 0.05 + 0.3 * rng.random::<f64>()).collect();
        let labels: Vec<usize> = (0..n)
            .map(|i| {
                let f: Vec<f64> =
                    (0..k).map(|c| mean[i * k + c] + (4.0 * var[i * k + c]).sqrt() * normal.sample(&mut rng)).collect();
                (0..k).fold(0, |b, c| if f[c] > f[b] { c } else { b })
            })
            .collect();
        let pred = ClassPredictive::new(mean, var, k).unwrap();
        let fitted = VarianceScaling::fit(&pred, &labels).unwrap();
        assert!((fitted.scale / 4.0 - 1.0).abs() < 0.2, "fitted {}", fitted.scale);
        let probs = fitted.probabilities(&pred);
        let at = |s: f64| nll(&VarianceScaling { scale: s }.probabilities(&pred), k, &labels).unwrap();
        assert!(nll(&probs, k, &labels).unwrap() <= at(1.0));
        assert!(matches!(VarianceScaling::fit(&pred, &labels[1..]), Err(Error::ShapeMismatch { .. })));
        let mut bad = labels.clone();
        bad[0] = 3;
        assert!(matches!(VarianceScaling::fit(&pred, &bad), Err(Error::LabelOutOfRange { .. })));
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        assert!(matches!(TemperatureScaling::fit(&[], 2, &[]), Err(Error::Empty { .. })));
        assert!(matches!(TemperatureScaling::fit(&[1.0, 2.0, 3.0], 2, &[0]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(TemperatureScaling::fit(&[1.0, 2.0], 2, &[0, 1]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(TemperatureScaling::fit(&[1.0, 2.0], 0, &[0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(TemperatureScaling::fit(&[1.0, f64::NAN], 2, &[0]), Err(Error::NonFinite { .. })));
        assert!(matches!(TemperatureScaling::fit(&[1.0, 2.0], 2, &[2]), Err(Error::LabelOutOfRange { .. })));
        let t = TemperatureScaling { temperature: 1.0 };
        assert!(matches!(t.probabilities(&[1.0, f64::INFINITY], 2), Err(Error::NonFinite { .. })));
    }
}
