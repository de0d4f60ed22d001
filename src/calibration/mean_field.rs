//! Mean-field scaling: a temperature and a variance weight fitted together, so that a Gaussian
//! latent predictive's own variances flatten its class probabilities point by point.
use super::{golden_section, mean_nll, softmax_row, TemperatureScaling};
use crate::data::check_labels;
use crate::error::{Error, Result};
use crate::models::ClassPredictive;

/// Bounds of the fitted variance weight `λ` when it is not 0.
const WEIGHT_RANGE: (f64, f64) = (1e-3, 1e4);

/// Points of the grid on `ln λ` that brackets the minimum before the golden-section refinement.
const WEIGHT_GRID: usize = 29;

/// Mean-field scaling of a Gaussian latent predictive `f_c ~ N(f̄_c, v_c)`: class probabilities
/// `softmax_c(f̄_c / (T·√(1 + λ·v_c)))`, with the temperature `T` and the variance weight `λ ≥ 0`
/// that minimise the NLL of held-out labels.
///
/// `E[softmax(f)]` under independent Gaussian latents is approximated by the softmax of each mean
/// shrunk by `√(1 + λ v_c)` (the mean-field approximation; `λ = π/8` is the probit-matching value,
/// here it is fitted). `λ = 0` is temperature scaling of the means ([`TemperatureScaling`]), so
/// the held-out NLL of the fit is never above temperature scaling's: a fitted `λ > 0` says the
/// model's variances carry information the means do not. Unlike [`super::VarianceScaling`], the
/// scores stay a softmax, so a pseudo-likelihood's arbitrary scale (the hinge of paper 003) is
/// absorbed by `T`.
///
/// ```
/// use burn_gp::calibration::MeanFieldScaling;
/// use burn_gp::models::ClassPredictive;
/// // two classes, four held-out points: means, variances and labels
/// let mean = vec![2.0, 0.0, 0.0, 1.0, 1.5, 0.0, 0.2, 0.0];
/// let var = vec![0.1, 0.1, 0.2, 0.2, 4.0, 4.0, 3.0, 3.0];
/// let pred = ClassPredictive::new(mean, var, 2)?;
/// let fitted = MeanFieldScaling::fit(&pred, &[0, 1, 1, 0])?;
/// let probs = fitted.probabilities(&pred); // [n, 2], rows sum to 1
/// assert!(fitted.temperature > 0.0 && fitted.variance_weight >= 0.0);
/// assert!((probs[0] + probs[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), burn_gp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanFieldScaling {
    /// The temperature `T > 0` on the shrunk means.
    pub temperature: f64,
    /// The weight `λ ≥ 0` of each latent variance in the shrinkage `√(1 + λ·v_c)`.
    pub variance_weight: f64,
}

impl MeanFieldScaling {
    /// The `(T, λ)` minimising the mean NLL of `labels` (one per point of `pred`). For each `λ`
    /// the best `T` is exact ([`TemperatureScaling::fit`]: the NLL is convex in `1/T`); `λ` is
    /// chosen among 0 and a log-spaced grid on `[1e-3, 1e4]`, then refined by golden-section
    /// search between the grid neighbours of the best grid point.
    pub fn fit(pred: &ClassPredictive, labels: &[usize]) -> Result<Self> {
        pred.check()?;
        if pred.n == 0 {
            return Err(Error::Empty { context: "MeanFieldScaling::fit".into() });
        }
        if labels.len() != pred.n {
            return Err(Error::shape("MeanFieldScaling::fit labels", [pred.n], [labels.len()]));
        }
        check_labels("MeanFieldScaling::fit labels", labels.iter().copied(), pred.classes)?;
        let k = pred.classes;
        // The profile NLL at weight λ, with the best temperature for it.
        let profile = |weight: f64| -> (f64, Self) {
            let z = shrunk(pred, weight);
            match TemperatureScaling::fit(&z, k, labels) {
                Ok(t) => {
                    let fitted = Self { temperature: t.temperature, variance_weight: weight };
                    (mean_nll(&fitted.probabilities(pred), k, labels), fitted)
                }
                // Inputs are checked above; a failure here leaves this weight out of the search.
                Err(_) => (f64::INFINITY, Self { temperature: 1.0, variance_weight: weight }),
            }
        };
        let (lo, hi) = (WEIGHT_RANGE.0.ln(), WEIGHT_RANGE.1.ln());
        let step = (hi - lo) / (WEIGHT_GRID - 1) as f64;
        let grid: Vec<(f64, Self)> = (0..WEIGHT_GRID).map(|i| profile((lo + step * i as f64).exp())).collect();
        let best = (0..WEIGHT_GRID).fold(0, |b, i| if grid[i].0 < grid[b].0 { i } else { b });
        let at_zero = profile(0.0);
        let a = lo + step * best.saturating_sub(1) as f64;
        let b = lo + step * (best + 1).min(WEIGHT_GRID - 1) as f64;
        let refined = profile(golden_section(|ln_w| profile(ln_w.exp()).0, a, b).exp());
        // The first of equals wins: λ = 0 where the variances do not lower the NLL.
        let winner = [at_zero, grid[best], refined].into_iter().min_by(|a, b| a.0.total_cmp(&b.0));
        match winner {
            Some((nll, fitted)) if nll.is_finite() => Ok(fitted),
            _ => Err(Error::invalid("MeanFieldScaling::fit", "no weight gives a finite held-out NLL")),
        }
    }

    /// Class probabilities `[n, C]` of `pred`: `softmax_c(f̄_c / (T·√(1 + λ·v_c)))` per point.
    pub fn probabilities(&self, pred: &ClassPredictive) -> Vec<f64> {
        let beta = 1.0 / self.temperature;
        shrunk(pred, self.variance_weight).chunks_exact(pred.classes).flat_map(|z| softmax_row(z, beta)).collect()
    }
}

/// The means shrunk by their variances, `f̄_c / √(1 + λ·v_c)`, `[n, C]`.
fn shrunk(pred: &ClassPredictive, weight: f64) -> Vec<f64> {
    pred.mean.iter().zip(&pred.var).map(|(m, v)| m / (1.0 + weight * v).sqrt()).collect()
}

#[cfg(test)]
mod tests {
    use super::super::categorical;
    use super::*;
    use crate::metrics::nll;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, Normal};

    /// A predictive `[n, k]` with means N(0, 3²) and variances spread over [0, 4], and labels
    /// drawn from `MeanFieldScaling { t0, w0 }`'s probabilities.
    fn drawn(n: usize, k: usize, t0: f64, w0: f64, seed: u64) -> (ClassPredictive, Vec<usize>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let normal = Normal::new(0.0, 3.0).unwrap();
        let mean: Vec<f64> = (0..n * k).map(|_| normal.sample(&mut rng)).collect();
        let var: Vec<f64> = (0..n * k).map(|_| 4.0 * rng.random::<f64>().powi(2)).collect();
        let pred = ClassPredictive::new(mean, var, k).unwrap();
        let probs = MeanFieldScaling { temperature: t0, variance_weight: w0 }.probabilities(&pred);
        let labels = probs.chunks_exact(k).map(|p| categorical(p, rng.random())).collect();
        (pred, labels)
    }

    #[test]
    fn recovers_the_temperature_and_weight_labels_were_drawn_at() {
        for (t0, w0, seed) in [(0.7, 2.0, 1), (1.5, 0.3, 2)] {
            let (pred, labels) = drawn(8_000, 4, t0, w0, seed);
            let fitted = MeanFieldScaling::fit(&pred, &labels).unwrap();
            assert!((fitted.temperature / t0 - 1.0).abs() < 0.1, "T {} drawn at {t0}", fitted.temperature);
            assert!((fitted.variance_weight / w0 - 1.0).abs() < 0.3, "λ {} drawn at {w0}", fitted.variance_weight);
        }
    }

    #[test]
    fn without_variance_information_it_is_temperature_scaling() {
        // Labels from softmax(f̄ / T) alone: the fitted weight is near 0 and T is recovered.
        let (pred, labels) = drawn(8_000, 4, 1.3, 0.0, 3);
        let fitted = MeanFieldScaling::fit(&pred, &labels).unwrap();
        assert!(fitted.variance_weight < 0.1, "λ {}", fitted.variance_weight);
        assert!((fitted.temperature / 1.3 - 1.0).abs() < 0.05, "T {}", fitted.temperature);
    }

    #[test]
    fn the_fit_minimises_the_nll() {
        let (pred, labels) = drawn(3_000, 3, 0.9, 1.0, 4);
        let fitted = MeanFieldScaling::fit(&pred, &labels).unwrap();
        let at = |t: f64, w: f64| {
            nll(&MeanFieldScaling { temperature: t, variance_weight: w }.probabilities(&pred), 3, &labels).unwrap()
        };
        let best = at(fitted.temperature, fitted.variance_weight);
        for (ft, fw) in [(0.95, 1.0), (1.05, 1.0), (1.0, 0.9), (1.0, 1.1), (1.03, 1.1), (0.97, 0.9)] {
            let other = at(fitted.temperature * ft, fitted.variance_weight * fw);
            assert!(best <= other + 1e-9, "({ft}, {fw}): {best} > {other}");
        }
        let temperature = TemperatureScaling::fit(&pred.mean, 3, &labels).unwrap();
        assert!(best < nll(&temperature.probabilities(&pred.mean, 3).unwrap(), 3, &labels).unwrap());
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let (pred, labels) = drawn(10, 2, 1.0, 1.0, 5);
        assert!(matches!(MeanFieldScaling::fit(&pred, &labels[1..]), Err(Error::ShapeMismatch { .. })));
        let mut bad = labels.clone();
        bad[0] = 2;
        assert!(matches!(MeanFieldScaling::fit(&pred, &bad), Err(Error::LabelOutOfRange { .. })));
        let negative = ClassPredictive { var: vec![-1.0; 20], ..pred.clone() };
        assert!(matches!(MeanFieldScaling::fit(&negative, &labels), Err(Error::InvalidArgument { .. })));
        let nan = ClassPredictive { mean: vec![f64::NAN; 20], ..pred.clone() };
        assert!(matches!(MeanFieldScaling::fit(&nan, &labels), Err(Error::NonFinite { .. })));
        let empty = ClassPredictive { mean: vec![], var: vec![], n: 0, ..pred };
        assert!(matches!(MeanFieldScaling::fit(&empty, &[]), Err(Error::Empty { .. })));
    }
}
