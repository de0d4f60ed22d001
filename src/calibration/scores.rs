//! How good class probabilities are on labelled points: accuracy, NLL and ECE together, and the
//! paired NLL difference of two sets of probabilities on the same points.
use crate::error::{Error, Result};
use crate::metrics;

/// Bins of the expected calibration error in [`ClassScores`] (Guo et al. 2017's 15).
pub const ECE_BINS: usize = 15;

/// Probabilities are floored here before a logarithm, so that one confident mistake gives a large
/// but finite NLL.
const PROBABILITY_FLOOR: f64 = 1e-12;

/// Accuracy, negative log-likelihood and expected calibration error of class probabilities on
/// labelled points: the three numbers a calibration is judged by.
///
/// ```
/// use burn_gp::calibration::ClassScores;
/// let probs = [0.9, 0.1, 0.2, 0.8, 0.6, 0.4]; // [n, k] row-major
/// let scores = ClassScores::of(&probs, 2, &[0, 1, 1])?;
/// assert!((scores.accuracy - 2.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), burn_gp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassScores {
    /// Fraction of points whose most probable class is the label.
    pub accuracy: f64,
    /// Mean `−ln p(label)`, each probability floored at 1e-12.
    pub nll: f64,
    /// Expected calibration error over [`ECE_BINS`] confidence bins.
    pub ece: f64,
}

impl ClassScores {
    /// The scores of probabilities `probs` `[n, k]` row-major against `labels` (`n` of them, in
    /// `0..k`); a shape, label or empty-input error otherwise.
    pub fn of(probs: &[f64], k: usize, labels: &[usize]) -> Result<Self> {
        let floored: Vec<f64> = probs.iter().map(|p| p.max(PROBABILITY_FLOOR)).collect();
        Ok(ClassScores {
            accuracy: metrics::accuracy(probs, k, labels)?,
            nll: metrics::nll(&floored, k, labels)?,
            ece: metrics::ece(probs, k, labels, ECE_BINS)?,
        })
    }
}

/// The paired NLL difference of two sets of class probabilities `a` and `b` (each `[n, k]`
/// row-major) on the same labelled points: per point `−ln a(y) − (−ln b(y))` (probabilities
/// floored at 1e-12, as in [`ClassScores`]), returned as its mean (`a`'s NLL minus `b`'s) and the
/// standard error of that mean over the points (0 for one point). Pairing removes the spread the
/// two share from point to point, so the error is far smaller than that of two separate NLLs.
///
/// ```
/// use burn_gp::calibration::paired_nll_difference;
/// let a = [0.9, 0.1, 0.3, 0.7];
/// let b = [0.8, 0.2, 0.4, 0.6];
/// let (gap, se) = paired_nll_difference(&a, &b, 2, &[0, 1])?;
/// assert!(gap < 0.0 && se > 0.0); // a is better on both points
/// # Ok::<(), burn_gp::Error>(())
/// ```
pub fn paired_nll_difference(a: &[f64], b: &[f64], k: usize, labels: &[usize]) -> Result<(f64, f64)> {
    if a.len() != b.len() {
        return Err(Error::shape("paired_nll_difference: b (as a)", [a.len()], [b.len()]));
    }
    // the same checks (shape, labels, empty, rows of probabilities) as the scores'
    metrics::nll(a, k, labels)?;
    metrics::nll(b, k, labels)?;
    let d: Vec<f64> = a
        .chunks_exact(k)
        .zip(b.chunks_exact(k))
        .zip(labels)
        .map(|((ra, rb), &y)| rb[y].max(PROBABILITY_FLOOR).ln() - ra[y].max(PROBABILITY_FLOOR).ln())
        .collect();
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    Ok((mean, metrics::standard_error(&d).unwrap_or(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_match_values_worked_by_hand() {
        // Two points, both right: confidences 0.9 and 0.6, so the NLL is the mean of −ln 0.9 and
        // −ln 0.6 and, in 15 bins, |1 − 0.9| and |1 − 0.6| each weigh ½.
        let probs = [0.9, 0.1, 0.4, 0.6];
        let s = ClassScores::of(&probs, 2, &[0, 1]).unwrap();
        assert_eq!(s.accuracy, 1.0);
        assert!((s.nll - 0.5 * (-(0.9f64).ln() - (0.6f64).ln())).abs() < 1e-12);
        assert!((s.ece - 0.5 * (0.1 + 0.4)).abs() < 1e-12);
        // a zero probability of the label is floored, not infinite
        let s = ClassScores::of(&[1.0, 0.0], 2, &[1]).unwrap();
        assert!((s.nll + PROBABILITY_FLOOR.ln()).abs() < 1e-9);
    }

    #[test]
    fn the_paired_difference_is_the_difference_of_the_nlls_with_its_error() {
        let a = [0.9, 0.1, 0.3, 0.7, 0.5, 0.5];
        let b = [0.6, 0.4, 0.4, 0.6, 0.2, 0.8];
        let labels = [0, 1, 0];
        let (gap, se) = paired_nll_difference(&a, &b, 2, &labels).unwrap();
        let (sa, sb) = (ClassScores::of(&a, 2, &labels).unwrap(), ClassScores::of(&b, 2, &labels).unwrap());
        assert!((gap - (sa.nll - sb.nll)).abs() < 1e-12);
        let d = [(0.6f64 / 0.9).ln(), (0.6f64 / 0.7).ln(), (0.2f64 / 0.5).ln()];
        assert!((se - metrics::standard_error(&d).unwrap()).abs() < 1e-12);
        assert_eq!(paired_nll_difference(&a, &a, 2, &labels).unwrap(), (0.0, 0.0));
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let probs = [0.9, 0.1, 0.4, 0.6];
        assert!(matches!(ClassScores::of(&probs, 2, &[0]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(ClassScores::of(&probs, 2, &[0, 2]), Err(Error::LabelOutOfRange { .. })));
        assert!(matches!(ClassScores::of(&[], 2, &[]), Err(Error::Empty { .. })));
        let short = [0.9, 0.1];
        assert!(matches!(paired_nll_difference(&probs, &short, 2, &[0, 1]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(paired_nll_difference(&probs, &probs, 2, &[0, 5]), Err(Error::LabelOutOfRange { .. })));
    }
}
