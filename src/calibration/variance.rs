//! Variance scaling: one factor on a Gaussian latent predictive's variances.
use super::{golden_section, mean_nll};
use crate::data::check_labels;
use crate::error::{Error, Result};
use crate::models::ClassPredictive;

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
            mean_nll(&probs, pred.classes, labels)
        };
        let ln_s = golden_section(nll, SCALE_RANGE.0.ln(), SCALE_RANGE.1.ln());
        Ok(Self { scale: ln_s.exp() })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::nll;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, Normal};

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
}
