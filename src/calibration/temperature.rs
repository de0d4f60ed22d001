//! Temperature scaling: one temperature on a classifier's scores. The NLL is convex in `1/T`, so
//! the fit is a bisection on the sign of its derivative.
use super::{check_scores, softmax_row};
use crate::data::check_labels;
use crate::error::{Error, Result};

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

#[cfg(test)]
mod tests {
    use super::super::categorical;
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
                categorical(&p, rng.random())
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
