//! Predictive-performance metrics, computed on the host from plain slices: regression (RMSE,
//! MAE, Gaussian test log-likelihood) and classification (accuracy, NLL, Brier score, expected
//! calibration error and its reliability bins, ROC-AUC and the ROC curve), and the sign test of
//! paired comparisons.
//!
//! Class probabilities are row-major `n × k` (`probs[i * k + c] = p(y_i = c)`); each row must be
//! non-negative and sum to 1 within `PROB_SUM_TOL`. Every metric returns a [`Result`]: length
//! mismatches are [`Error::ShapeMismatch`], empty inputs [`Error::Empty`], NaN/Inf
//! [`Error::NonFinite`], labels `≥ k` [`Error::LabelOutOfRange`].
use crate::data::check_labels;
use crate::error::{check_finite, Error, Result};

/// How far a row of class probabilities may sum from 1 (allows f32 round-off).
pub(crate) const PROB_SUM_TOL: f64 = 1e-3;

/// Checks two paired inputs have the same, non-zero length; returns it.
fn paired(context: &str, a: &[f64], b: usize) -> Result<usize> {
    if a.len() != b {
        return Err(Error::shape(context, a.len(), b));
    }
    if b == 0 {
        return Err(Error::Empty { context: context.to_string() });
    }
    Ok(b)
}

/// Checks regression predictions against targets: equal non-zero lengths, all finite.
fn regression_inputs(context: &str, pred: &[f64], y: &[f64]) -> Result<usize> {
    let n = paired(context, pred, y.len())?;
    check_finite(&format!("{context} predictions"), pred)?;
    check_finite(&format!("{context} targets"), y)?;
    Ok(n)
}

/// Root mean squared error `√(mean (pred − y)²)`.
pub fn rmse(pred: &[f64], y: &[f64]) -> Result<f64> {
    let n = regression_inputs("rmse", pred, y)?;
    Ok((pred.iter().zip(y).map(|(p, t)| (p - t) * (p - t)).sum::<f64>() / n as f64).sqrt())
}

/// Mean absolute error `mean |pred − y|`.
pub fn mae(pred: &[f64], y: &[f64]) -> Result<f64> {
    let n = regression_inputs("mae", pred, y)?;
    Ok(pred.iter().zip(y).map(|(p, t)| (p - t).abs()).sum::<f64>() / n as f64)
}

/// Mean over points of `log N(y | mean, var)` (the test log-likelihood of a Gaussian predictive);
/// a variance that is not positive is [`Error::InvalidArgument`].
pub fn gaussian_log_likelihood(mean: &[f64], var: &[f64], y: &[f64]) -> Result<f64> {
    let n = regression_inputs("gaussian_log_likelihood", mean, y)?;
    paired("gaussian_log_likelihood variances", var, n)?;
    check_finite("gaussian_log_likelihood variances", var)?;
    if let Some(i) = var.iter().position(|&v| v <= 0.0) {
        return Err(Error::invalid("var", format!("variance {} at index {i} is not positive", var[i])));
    }
    let ln_2pi = (2.0 * std::f64::consts::PI).ln();
    let total: f64 =
        mean.iter().zip(var).zip(y).map(|((m, v), t)| -0.5 * (ln_2pi + v.ln() + (t - m) * (t - m) / v)).sum();
    Ok(total / n as f64)
}

/// Checks class probabilities (`n × k`, rows non-negative and summing to 1) and labels; returns `n`.
fn class_inputs(context: &str, probs: &[f64], k: usize, labels: &[usize]) -> Result<usize> {
    if k == 0 {
        return Err(Error::invalid("k", format!("{context}: need at least one class")));
    }
    let n = labels.len();
    if n == 0 {
        return Err(Error::Empty { context: context.to_string() });
    }
    if n.checked_mul(k) != Some(probs.len()) {
        return Err(Error::shape(&format!("{context} probs (n × k)"), [n, k], probs.len()));
    }
    check_finite(&format!("{context} probs"), probs)?;
    if let Some(i) = probs.iter().position(|&p| p < 0.0) {
        return Err(Error::invalid(
            "probs",
            format!("{context}: probability {} at flat index {i} is negative", probs[i]),
        ));
    }
    for (i, row) in probs.chunks_exact(k).enumerate() {
        let sum: f64 = row.iter().sum();
        if (sum - 1.0).abs() > PROB_SUM_TOL {
            return Err(Error::invalid("probs", format!("{context}: row {i} sums to {sum}, not 1")));
        }
    }
    check_labels(&format!("{context} labels"), labels.iter().copied(), k)?;
    Ok(n)
}

/// Index of the largest value (the first on ties).
pub(crate) fn argmax(row: &[f64]) -> usize {
    row.iter().enumerate().fold(0, |best, (c, &p)| if p > row[best] { c } else { best })
}

/// Fraction of points whose most probable class (the first on ties) is the label.
pub fn accuracy(probs: &[f64], k: usize, labels: &[usize]) -> Result<f64> {
    let n = class_inputs("accuracy", probs, k, labels)?;
    let correct = probs.chunks_exact(k).zip(labels).filter(|(row, &y)| argmax(row) == y).count();
    Ok(correct as f64 / n as f64)
}

/// Mean negative log predictive probability of the label, `mean −ln p(y_i)` (`+∞` if some
/// label has probability 0).
pub fn nll(probs: &[f64], k: usize, labels: &[usize]) -> Result<f64> {
    let n = class_inputs("nll", probs, k, labels)?;
    Ok(probs.chunks_exact(k).zip(labels).map(|(row, &y)| -row[y].ln()).sum::<f64>() / n as f64)
}

/// Brier score: mean over points of `Σ_c (p_c − 1[c = y])²` (0 is perfect, 2 the worst).
pub fn brier(probs: &[f64], k: usize, labels: &[usize]) -> Result<f64> {
    let n = class_inputs("brier", probs, k, labels)?;
    let total: f64 = probs
        .chunks_exact(k)
        .zip(labels)
        .map(|(row, &y)| row.iter().enumerate().map(|(c, &p)| (p - f64::from(c == y)).powi(2)).sum::<f64>())
        .sum();
    Ok(total / n as f64)
}

/// The equal-width bin of confidence `conf ∈ [0, 1]`: bin `b` holds `(b/B, (b+1)/B]`, and 0 goes to bin 0.
fn confidence_bin(conf: f64, bins: usize) -> usize {
    let b_f = bins as f64;
    let mut b = ((conf * b_f).ceil() as usize).saturating_sub(1).min(bins - 1);
    // Correct the product's round-off so the bin edges are exactly b/B.
    if b > 0 && conf <= b as f64 / b_f {
        b -= 1;
    } else if b + 1 < bins && conf > (b + 1) as f64 / b_f {
        b += 1;
    }
    b
}

/// One equal-width bin of top-class confidence, as [`reliability`] returns it (the bars of a
/// reliability diagram).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReliabilityBin {
    /// Lower edge `b/B` (excluded, except that confidence 0 falls in the first bin).
    pub lower: f64,
    /// Upper edge `(b+1)/B` (included).
    pub upper: f64,
    /// Points whose top-class confidence falls in the bin.
    pub count: usize,
    /// Mean top-class confidence of those points (0 for an empty bin).
    pub confidence: f64,
    /// Fraction of those points whose most probable class is the label (0 for an empty bin).
    pub accuracy: f64,
}

/// The `bins` equal-width bins of top-class confidence behind [`ece`]: bin `b` holds the points
/// whose largest class probability (the first on ties) is in `(b/B, (b+1)/B]` (0 in bin 0), with
/// their count, mean confidence and accuracy. All `bins` bins are returned, empty ones too.
pub fn reliability(probs: &[f64], k: usize, labels: &[usize], bins: usize) -> Result<Vec<ReliabilityBin>> {
    if bins == 0 {
        return Err(Error::invalid("bins", "need at least one bin"));
    }
    class_inputs("reliability", probs, k, labels)?;
    let mut count = vec![0usize; bins];
    let mut correct = vec![0.0; bins];
    let mut confidence = vec![0.0; bins];
    for (row, &y) in probs.chunks_exact(k).zip(labels) {
        let pred = argmax(row);
        let conf = row[pred].min(1.0);
        let b = confidence_bin(conf, bins);
        count[b] += 1;
        correct[b] += f64::from(pred == y);
        confidence[b] += conf;
    }
    let mean = |sum: f64, c: usize| if c == 0 { 0.0 } else { sum / c as f64 };
    Ok((0..bins)
        .map(|b| ReliabilityBin {
            lower: b as f64 / bins as f64,
            upper: (b + 1) as f64 / bins as f64,
            count: count[b],
            confidence: mean(confidence[b], count[b]),
            accuracy: mean(correct[b], count[b]),
        })
        .collect())
}

/// Expected calibration error of the top-class confidence over `bins` equal-width bins
/// (Guo et al. 2017): `Σ_b (|B_b| / n) · |accuracy(B_b) − mean confidence(B_b)|` over the bins of
/// [`reliability`], bin `b` holding confidences in `(b/B, (b+1)/B]`.
pub fn ece(probs: &[f64], k: usize, labels: &[usize], bins: usize) -> Result<f64> {
    let bins = reliability(probs, k, labels, bins)?;
    let n = labels.len() as f64;
    Ok(bins.iter().map(|b| b.count as f64 / n * (b.accuracy - b.confidence).abs()).sum())
}

/// The ROC curve of `scores` (higher means more likely positive) for binary `labels`: the
/// `(false positive rate, true positive rate)` points of every threshold, from `(0, 0)` to
/// `(1, 1)`, tied scores taken together (one point per distinct score). Its trapezoid area is
/// [`roc_auc`]. Needs at least one positive and one negative ([`Error::InvalidArgument`]
/// otherwise).
pub fn roc_curve(scores: &[f64], labels: &[bool]) -> Result<Vec<(f64, f64)>> {
    let (n_pos, n_neg) = roc_inputs("roc_curve", scores, labels)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut points = vec![(0.0, 0.0)];
    for (j, &i) in order.iter().enumerate() {
        if labels[i] {
            tp += 1;
        } else {
            fp += 1;
        }
        if order.get(j + 1).is_none_or(|&next| scores[next] != scores[i]) {
            points.push((fp as f64 / n_neg as f64, tp as f64 / n_pos as f64));
        }
    }
    Ok(points)
}

/// Checks ROC inputs (equal non-zero lengths, finite scores, both classes); returns the numbers
/// of positives and negatives.
fn roc_inputs(context: &str, scores: &[f64], labels: &[bool]) -> Result<(usize, usize)> {
    paired(context, scores, labels.len())?;
    check_finite(&format!("{context} scores"), scores)?;
    let n_pos = labels.iter().filter(|&&l| l).count();
    let n_neg = labels.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return Err(Error::invalid(
            "labels",
            format!("{context} needs both classes, got {n_pos} positive and {n_neg} negative"),
        ));
    }
    Ok((n_pos, n_neg))
}

/// Area under the ROC curve of `scores` (higher means more likely positive) for binary
/// `labels`, by the Mann–Whitney statistic with tied scores given their average rank; needs at
/// least one positive and one negative ([`Error::InvalidArgument`] otherwise).
pub fn roc_auc(scores: &[f64], labels: &[bool]) -> Result<f64> {
    let (n_pos, n_neg) = roc_inputs("roc_auc", scores, labels)?;
    let ranks = average_ranks(scores);
    let positive_rank_sum: f64 = ranks.iter().zip(labels).filter(|(_, &l)| l).map(|(r, _)| r).sum();
    let (p, q) = (n_pos as f64, n_neg as f64);
    Ok((positive_rank_sum - p * (p + 1.0) / 2.0) / (p * q))
}

/// 1-based ranks of `values` in ascending order, ties sharing their average rank
/// (`[0.8, 1.0, 1.0]` → `[1, 2.5, 2.5]`). Rank accuracies with `average_ranks(&negated)` so the
/// best gets rank 1.
pub fn average_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let tied = order[start..].iter().take_while(|&&i| values[i] == values[order[start]]).count();
        // Positions start..start+tied (0-based) share the 1-based average rank.
        let average_rank = start as f64 + (tied as f64 + 1.0) / 2.0;
        for &i in &order[start..start + tied] {
            ranks[i] = average_rank;
        }
        start += tied;
    }
    ranks
}

/// Two-sided exact sign test of paired comparisons: the probability, if each non-tied pair were
/// won by either side with probability 1/2, of a split at least as uneven as `wins` against
/// `losses` (ties are dropped, as in Demšar 2006). 1 when there is no untied pair.
pub fn sign_test_p_value(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    let k = wins.min(losses);
    // P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space (n may be large).
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Standard error of the mean of `values`: their sample standard deviation (divisor n − 1) over
/// √n. `None` for fewer than two values, which have no spread to estimate.
pub fn standard_error(values: &[f64]) -> Option<f64> {
    sample_variance(values).map(|var| (var / values.len() as f64).sqrt())
}

/// Sample standard deviation (divisor `n − 1`) of `values`; `None` for fewer than two values.
/// Reports a spread over runs or splits as "mean ± sd".
pub fn sample_std(values: &[f64]) -> Option<f64> {
    sample_variance(values).map(f64::sqrt)
}

/// Sample variance (divisor `n − 1`); `None` for fewer than two values.
fn sample_variance(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    Some(values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0))
}

/// Two-class probability rows `[1 − p, p]` from probabilities of the positive class, for the
/// multi-class metrics with `k = 2`; a `p` outside `[0, 1]` is [`Error::InvalidArgument`].
pub fn binary_probs(p_positive: &[f64]) -> Result<Vec<f64>> {
    check_finite("binary_probs", p_positive)?;
    if let Some(i) = p_positive.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(Error::invalid("p_positive", format!("{} at index {i} is not a probability", p_positive[i])));
    }
    Ok(p_positive.iter().flat_map(|&p| [1.0 - p, p]).collect())
}

/// Class indices (`false` → 0, `true` → 1) from binary labels, for the metrics with `k = 2`.
pub fn binary_labels(labels: &[bool]) -> Vec<usize> {
    labels.iter().map(|&l| usize::from(l)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_bins_have_exact_edges() {
        assert_eq!(confidence_bin(0.0, 10), 0);
        assert_eq!(confidence_bin(0.05, 10), 0);
        assert_eq!(confidence_bin(0.1, 10), 0);
        assert_eq!(confidence_bin(0.3, 10), 2);
        assert_eq!(confidence_bin(0.30000000000000004, 10), 3);
        assert_eq!(confidence_bin(0.7, 10), 6);
        assert_eq!(confidence_bin(1.0, 10), 9);
        assert_eq!(confidence_bin(0.5, 1), 0);
        for b in 1..=20 {
            let edge = b as f64 / 20.0;
            assert_eq!(confidence_bin(edge, 20), b - 1, "edge {edge}");
            assert_eq!(confidence_bin(edge + 1e-12, 20).min(19), b.min(19), "just above {edge}");
        }
    }

    #[test]
    fn argmax_takes_first_on_ties() {
        assert_eq!(argmax(&[0.2, 0.4, 0.4]), 1);
        assert_eq!(argmax(&[0.5, 0.5]), 0);
    }

    #[test]
    fn regression_inputs_are_checked() {
        assert!(matches!(rmse(&[1.0], &[1.0, 2.0]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(rmse(&[], &[]), Err(Error::Empty { .. })));
        assert!(matches!(mae(&[f64::NAN], &[1.0]), Err(Error::NonFinite { .. })));
        assert!(matches!(gaussian_log_likelihood(&[0.0], &[0.0], &[0.0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(gaussian_log_likelihood(&[0.0], &[1.0, 1.0], &[0.0]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(gaussian_log_likelihood(&[0.0], &[f64::INFINITY], &[0.0]), Err(Error::NonFinite { .. })));
    }

    #[test]
    fn class_inputs_are_checked() {
        let probs = [0.5, 0.5, 0.9, 0.1];
        assert!(matches!(accuracy(&probs, 2, &[0]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(accuracy(&[], 2, &[]), Err(Error::Empty { .. })));
        assert!(matches!(accuracy(&probs, 0, &[0, 0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(nll(&probs, 2, &[0, 2]), Err(Error::LabelOutOfRange { label: 2, num_classes: 2, .. })));
        assert!(matches!(brier(&[0.5, 0.6, 0.9, 0.1], 2, &[0, 0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(brier(&[1.5, -0.5], 2, &[0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(ece(&probs, 2, &[0, 0], 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(ece(&[f64::NAN, 1.0], 2, &[0], 5), Err(Error::NonFinite { .. })));
    }

    #[test]
    fn roc_auc_inputs_are_checked() {
        assert!(matches!(roc_auc(&[0.1, 0.2], &[true, true]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(roc_auc(&[0.1], &[true, false]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(roc_auc(&[], &[]), Err(Error::Empty { .. })));
        assert!(matches!(roc_auc(&[f64::NAN, 0.0], &[true, false]), Err(Error::NonFinite { .. })));
    }

    #[test]
    fn standard_error_by_hand() {
        // 1, 2, 3, 4: mean 2.5, sample variance 5/3, s.e. √(5/3 / 4).
        assert!((standard_error(&[1.0, 2.0, 3.0, 4.0]).unwrap() - (5.0_f64 / 12.0).sqrt()).abs() < 1e-15);
        assert_eq!(standard_error(&[2.0, 2.0]), Some(0.0));
        assert_eq!(standard_error(&[1.0]), None);
        assert_eq!(standard_error(&[]), None);
    }

    #[test]
    fn sample_std_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares sum to 32, sample variance 32/7.
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!((sample_std(&v).unwrap() - (32.0_f64 / 7.0).sqrt()).abs() < 1e-15);
        assert_eq!(sample_std(&[3.0, 3.0, 3.0]), Some(0.0));
        assert_eq!(sample_std(&[1.0]), None);
        assert_eq!(sample_std(&[]), None);
    }

    #[test]
    fn sign_test_matches_the_binomial_tail() {
        // 5 wins, 0 losses: 2 · (1/2)^5.
        assert!((sign_test_p_value(5, 0) - 0.0625).abs() < 1e-15);
        assert!((sign_test_p_value(0, 5) - 0.0625).abs() < 1e-15);
        // 8 against 2: 2 · (1 + 10 + 45) / 1024.
        assert!((sign_test_p_value(8, 2) - 112.0 / 1024.0).abs() < 1e-14);
        assert_eq!(sign_test_p_value(3, 3), 1.0);
        assert_eq!(sign_test_p_value(0, 0), 1.0);
        // Large n stays finite: 600 vs 400 is far in the tail.
        let p = sign_test_p_value(600, 400);
        assert!(p > 0.0 && p < 1e-9, "{p}");
    }

    #[test]
    fn binary_helpers() {
        assert_eq!(binary_probs(&[0.25, 1.0]).unwrap(), vec![0.75, 0.25, 0.0, 1.0]);
        assert!(matches!(binary_probs(&[1.5]), Err(Error::InvalidArgument { .. })));
        assert_eq!(binary_labels(&[true, false]), vec![1, 0]);
    }

    #[test]
    fn reliability_bins_by_hand() {
        // top-class confidences 0.9 (right), 0.8 (wrong), 0.6 (right), 0.55 (right), 1.0 (right)
        let probs = [0.9, 0.1, 0.2, 0.8, 0.4, 0.6, 0.55, 0.45, 0.0, 1.0];
        let labels = [0, 0, 1, 0, 1];
        let bins = reliability(&probs, 2, &labels, 4).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(bins.len(), 4);
        assert_eq!(bins.iter().map(|b| b.count).collect::<Vec<_>>(), vec![0, 0, 2, 3]);
        assert!(close(bins[0].lower, 0.0) && close(bins[0].upper, 0.25) && close(bins[3].lower, 0.75));
        assert!(close(bins[3].upper, 1.0));
        assert_eq!((bins[0].confidence, bins[0].accuracy), (0.0, 0.0));
        // (0.5, 0.75]: 0.6 and 0.55, both right
        assert!(close(bins[2].confidence, 0.575) && close(bins[2].accuracy, 1.0));
        // (0.75, 1]: 0.9 and 1.0 right, 0.8 wrong
        assert!(close(bins[3].confidence, 0.9) && close(bins[3].accuracy, 2.0 / 3.0));
        // ECE = 2/5 · |1 − 0.575| + 3/5 · |2/3 − 0.9| = 0.17 + 0.14
        let weighted: f64 = bins.iter().map(|b| b.count as f64 / 5.0 * (b.accuracy - b.confidence).abs()).sum();
        assert!(close(weighted, 0.31));
        assert!(close(ece(&probs, 2, &labels, 4).unwrap(), weighted));
        assert!(matches!(reliability(&probs, 2, &labels, 0), Err(Error::InvalidArgument { .. })));
    }

    #[test]
    fn roc_curve_by_hand() {
        // scores 0.9 (+), 0.8 (−), 0.8 (+), 0.1 (−): the tie at 0.8 is one step
        let points = roc_curve(&[0.9, 0.8, 0.8, 0.1], &[true, false, true, false]).unwrap();
        assert_eq!(points, vec![(0.0, 0.0), (0.0, 0.5), (0.5, 1.0), (1.0, 1.0)]);
        let area: f64 = points.windows(2).map(|w| (w[1].0 - w[0].0) * (w[1].1 + w[0].1) / 2.0).sum();
        let auc = roc_auc(&[0.9, 0.8, 0.8, 0.1], &[true, false, true, false]).unwrap();
        assert!((area - auc).abs() < 1e-12);
        assert!(matches!(roc_curve(&[0.1, 0.2], &[true, true]), Err(Error::InvalidArgument { .. })));
    }
}
