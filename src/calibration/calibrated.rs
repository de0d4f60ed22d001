//! The calibration bundle: every calibration of a Gaussian latent predictive fitted on held-out
//! points and scored on test points in one call, as a report on a classifier's probabilities
//! needs them.
use super::{ClassScores, MeanFieldScaling, TemperatureScaling, VarianceScaling};
use crate::error::{Error, Result};
use crate::models::ClassPredictive;

/// One fitted calibration with the test points' calibrated class probabilities and their scores.
#[derive(Clone, Debug)]
pub struct Calibrated<P> {
    /// The fitted calibration (its parameters).
    pub fitted: P,
    /// Accuracy, NLL and ECE of [`Calibrated::probabilities`] on the test labels.
    pub scores: ClassScores,
    /// The calibrated class probabilities of the test points, `[n, k]` row-major.
    pub probabilities: Vec<f64>,
}

impl<P> Calibrated<P> {
    /// Scores `probabilities` of the test points against `labels` and keeps both with `fitted`.
    fn scored(fitted: P, probabilities: Vec<f64>, k: usize, labels: &[usize]) -> Result<Self> {
        Ok(Calibrated { fitted, scores: ClassScores::of(&probabilities, k, labels)?, probabilities })
    }
}

impl Calibrated<TemperatureScaling> {
    /// Temperature scaling of a classifier's scores (a network's logits, or any `[n, k]` scores):
    /// the temperature fitted on the held-out `held` scores and `held_labels`, applied to the
    /// `test` scores and scored against `test_labels`.
    ///
    /// ```
    /// use burn_gp::calibration::Calibrated;
    /// let held = [3.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.5, 0.0]; // held-out logits [4, 2]
    /// let test = [2.0, 0.0, 0.0, 2.0];
    /// let c = Calibrated::temperature_of_scores((&held, &[0, 1, 1, 0]), (&test, &[0, 1]), 2)?;
    /// assert!(c.fitted.temperature > 0.0 && c.scores.accuracy == 1.0);
    /// # Ok::<(), burn_gp::Error>(())
    /// ```
    pub fn temperature_of_scores(
        (held, held_labels): (&[f64], &[usize]),
        (test, test_labels): (&[f64], &[usize]),
        k: usize,
    ) -> Result<Self> {
        let fitted = TemperatureScaling::fit(held, k, held_labels)?;
        Self::scored(fitted, fitted.probabilities(test, k)?, k, test_labels)
    }
}

/// Every calibration of a Gaussian latent predictive `f_c ~ N(f̄_c, v_c)` (a Bayesian SVM's or
/// any GP classifier's [`ClassPredictive`]), each fitted on held-out points and scored on test
/// points:
/// - [`TemperatureScaling`] of the latent means (paper 003's `softmax(f̄ / T)`);
/// - [`VarianceScaling`]: the model's own arg-max probabilities with the variances scaled;
/// - [`MeanFieldScaling`]: `softmax(f̄_c / (T·√(1 + λ·v_c)))`.
///
/// ```
/// use burn_gp::calibration::LatentCalibrations;
/// use burn_gp::models::ClassPredictive;
/// let held = ClassPredictive::new(vec![2.0, 0.0, 0.0, 1.0, 1.5, 0.0, 0.2, 0.0], vec![0.1, 0.1, 0.2, 0.2, 4.0, 4.0, 3.0, 3.0], 2)?;
/// let test = ClassPredictive::new(vec![1.0, 0.0, 0.0, 3.0], vec![0.5, 0.5, 0.1, 0.1], 2)?;
/// let c = LatentCalibrations::fit((&held, &[0, 1, 1, 0]), (&test, &[0, 1]))?;
/// assert!(c.temperature.fitted.temperature > 0.0 && c.variance.fitted.scale > 0.0);
/// assert_eq!(c.mean_field.probabilities.len(), 4); // test points × classes
/// # Ok::<(), burn_gp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LatentCalibrations {
    /// Temperature scaling of the latent means.
    pub temperature: Calibrated<TemperatureScaling>,
    /// The arg-max probabilities with every latent variance multiplied by one fitted factor.
    pub variance: Calibrated<VarianceScaling>,
    /// The mean-field softmax with a temperature and a variance weight fitted together.
    pub mean_field: Calibrated<MeanFieldScaling>,
}

impl LatentCalibrations {
    /// Fits every calibration on `held` (the held-out points' predictive and labels) and scores
    /// it on `test` (the test points' predictive and labels). The two predictives must have the
    /// same number of classes; labels must match their points and lie in `0..classes`.
    pub fn fit(
        (held, held_labels): (&ClassPredictive, &[usize]),
        (test, test_labels): (&ClassPredictive, &[usize]),
    ) -> Result<Self> {
        let k = held.classes;
        if test.classes != k {
            return Err(Error::shape("LatentCalibrations::fit test classes (as held-out)", k, test.classes));
        }
        let temperature = TemperatureScaling::fit(&held.mean, k, held_labels)?;
        let variance = VarianceScaling::fit(held, held_labels)?;
        let mean_field = MeanFieldScaling::fit(held, held_labels)?;
        Ok(LatentCalibrations {
            temperature: Calibrated::scored(temperature, temperature.probabilities(&test.mean, k)?, k, test_labels)?,
            variance: Calibrated::scored(variance, variance.probabilities(test), k, test_labels)?,
            mean_field: Calibrated::scored(mean_field, mean_field.probabilities(test), k, test_labels)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use rand_distr::{Distribution, Normal};

    /// A predictive of `n` points in `k` classes whose labels are the arg-max of draws at twice
    /// its variances (so every calibration has something to correct), and those labels.
    fn overconfident(n: usize, k: usize, seed: u64) -> (ClassPredictive, Vec<usize>) {
        let mut rng = StdRng::seed_from_u64(seed);
        let normal = Normal::new(0.0, 1.0).unwrap();
        let mean: Vec<f64> = (0..n * k).map(|_| 2.0 * normal.sample(&mut rng)).collect();
        let var: Vec<f64> = (0..n * k).map(|_| 0.2 + rng.random::<f64>()).collect();
        let labels = (0..n)
            .map(|i| {
                let f: Vec<f64> =
                    (0..k).map(|c| mean[i * k + c] + (2.0 * var[i * k + c]).sqrt() * normal.sample(&mut rng)).collect();
                (0..k).fold(0, |b, c| if f[c] > f[b] { c } else { b })
            })
            .collect();
        (ClassPredictive::new(mean, var, k).unwrap(), labels)
    }

    #[test]
    fn the_bundle_is_each_calibration_fitted_on_the_held_out_points_and_scored_on_the_test_points() {
        let (held, held_labels) = overconfident(600, 3, 1);
        let (test, test_labels) = overconfident(400, 3, 2);
        let c = LatentCalibrations::fit((&held, &held_labels), (&test, &test_labels)).unwrap();
        let t = TemperatureScaling::fit(&held.mean, 3, &held_labels).unwrap();
        assert_eq!(c.temperature.fitted, t);
        assert_eq!(c.temperature.probabilities, t.probabilities(&test.mean, 3).unwrap());
        let v = VarianceScaling::fit(&held, &held_labels).unwrap();
        assert_eq!(c.variance.fitted, v);
        assert!(v.scale > 1.2, "labels drawn at twice the variances: fitted factor {}", v.scale);
        assert_eq!(c.mean_field.fitted, MeanFieldScaling::fit(&held, &held_labels).unwrap());
        for (probs, scores) in [
            (&c.temperature.probabilities, c.temperature.scores),
            (&c.variance.probabilities, c.variance.scores),
            (&c.mean_field.probabilities, c.mean_field.scores),
        ] {
            assert_eq!(scores, ClassScores::of(probs, 3, &test_labels).unwrap());
        }
        // the variance factor fitted on held-out points also helps the test points
        let raw = ClassScores::of(&test.gh_probabilities(32), 3, &test_labels).unwrap();
        assert!(c.variance.scores.nll < raw.nll, "{} vs {}", c.variance.scores.nll, raw.nll);
    }

    #[test]
    fn temperature_of_scores_fits_on_held_out_and_scores_test() {
        // the latent means as logits at ten times their scale: far too sharp
        let sharp = |p: &ClassPredictive| p.mean.iter().map(|m| 10.0 * m).collect::<Vec<_>>();
        let (held, held_labels) = overconfident(2_000, 4, 3);
        let (test, test_labels) = overconfident(2_000, 4, 4);
        let (held, test) = (sharp(&held), sharp(&test));
        let c = Calibrated::temperature_of_scores((&held, &held_labels), (&test, &test_labels), 4).unwrap();
        assert_eq!(c.fitted, TemperatureScaling::fit(&held, 4, &held_labels).unwrap());
        assert!(c.fitted.temperature > 5.0, "logits ten times too sharp soften: T = {}", c.fitted.temperature);
        assert_eq!(c.scores, ClassScores::of(&c.probabilities, 4, &test_labels).unwrap());
        let plain = TemperatureScaling { temperature: 1.0 }.probabilities(&test, 4).unwrap();
        assert!(c.scores.nll < ClassScores::of(&plain, 4, &test_labels).unwrap().nll);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let (held, held_labels) = overconfident(50, 3, 5);
        let (test, test_labels) = overconfident(40, 2, 6);
        let classes = LatentCalibrations::fit((&held, &held_labels), (&test, &test_labels));
        assert!(matches!(classes, Err(Error::ShapeMismatch { .. })));
        let short = LatentCalibrations::fit((&held, &held_labels[1..]), (&held, &held_labels));
        assert!(matches!(short, Err(Error::ShapeMismatch { .. })));
        let mut bad = held_labels.clone();
        bad[0] = 7;
        let out_of_range = LatentCalibrations::fit((&held, &held_labels), (&held, &bad));
        assert!(matches!(out_of_range, Err(Error::LabelOutOfRange { .. })));
        let scores = Calibrated::temperature_of_scores((&held.mean, &held_labels), (&held.mean[1..], &held_labels), 3);
        assert!(matches!(scores, Err(Error::ShapeMismatch { .. })));
    }
}
