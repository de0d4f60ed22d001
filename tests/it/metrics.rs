//! Metrics against values computed by hand.
use burn_gp::metrics::{
    accuracy, binary_labels, binary_probs, brier, ece, gaussian_log_likelihood, mae, nll, rmse, roc_auc,
};

fn assert_close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
}

#[test]
fn rmse_and_mae() {
    // Errors 0, 0, -2: RMSE = √(4/3), MAE = 2/3.
    assert_close(rmse(&[1.0, 2.0, 3.0], &[1.0, 2.0, 5.0]).unwrap(), (4.0f64 / 3.0).sqrt());
    assert_close(mae(&[1.0, 2.0, 3.0], &[1.0, 2.0, 5.0]).unwrap(), 2.0 / 3.0);
}

#[test]
fn gaussian_log_likelihood_by_hand() {
    // log N(0 | 0, 1) = −½ ln 2π = −0.918938533204673;
    // log N(1 | 0, 4) = −½ (ln 8π + 1/4) = −1.737085713764618.
    let ll = gaussian_log_likelihood(&[0.0, 0.0], &[1.0, 4.0], &[0.0, 1.0]).unwrap();
    assert_close(ll, (-0.918_938_533_204_672_7 - 1.737_085_713_764_618) / 2.0);
}

/// Two points, three classes: the first is right with p = 0.7, the second wrong (argmax 1, label 2, p = 0.4).
const PROBS: [f64; 6] = [0.7, 0.2, 0.1, 0.1, 0.5, 0.4];
const LABELS: [usize; 2] = [0, 2];

#[test]
fn accuracy_nll_brier_by_hand() {
    assert_close(accuracy(&PROBS, 3, &LABELS).unwrap(), 0.5);
    // (−ln 0.7 − ln 0.4) / 2.
    assert_close(nll(&PROBS, 3, &LABELS).unwrap(), 0.636_482_837_906_443_8);
    // Row 1: 0.3² + 0.2² + 0.1² = 0.14; row 2: 0.1² + 0.5² + 0.6² = 0.62; mean 0.38.
    assert_close(brier(&PROBS, 3, &LABELS).unwrap(), 0.38);
}

#[test]
fn nll_is_infinite_when_the_label_has_probability_zero() {
    assert_eq!(nll(&[1.0, 0.0], 2, &[1]).unwrap(), f64::INFINITY);
}

#[test]
fn ece_by_hand() {
    // Confidences (top prob) and correctness: 0.95 ✓, 0.85 ✗, 0.75 ✓, 0.72 ✓, 0.55 ✗.
    let probs = [0.95, 0.05, 0.15, 0.85, 0.25, 0.75, 0.72, 0.28, 0.55, 0.45];
    let labels = [0, 0, 1, 0, 1];
    // Ten bins: (0.9,1] {0.95 ✓}: |1 − 0.95|; (0.8,0.9] {0.85 ✗}: |0 − 0.85|;
    // (0.7,0.8] {0.75 ✓, 0.72 ✓}: 2·|1 − 0.735|; (0.5,0.6] {0.55 ✗}: |0 − 0.55|. Sum / 5 = 1.98 / 5.
    assert_close(ece(&probs, 2, &labels, 10).unwrap(), 0.396);
    // One bin: |accuracy 3/5 − mean confidence 3.82/5| = 0.164.
    assert_close(ece(&probs, 2, &labels, 1).unwrap(), 0.164);
    // Perfectly calibrated: confidence 1 and always right.
    assert_close(ece(&[1.0, 0.0, 0.0, 1.0], 2, &[0, 1], 15).unwrap(), 0.0);
}

#[test]
fn roc_auc_by_hand() {
    // scikit-learn's doc example: 3 of the 4 positive/negative pairs are ordered correctly.
    assert_close(roc_auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]).unwrap(), 0.75);
    // Pairs (pos, neg): (2,1) 1, (2,2) ½ (tie), (3,1) 1, (3,2) 1 → 3.5 / 4.
    assert_close(roc_auc(&[1.0, 2.0, 2.0, 3.0], &[false, false, true, true]).unwrap(), 0.875);
    // All tied: ½.
    assert_close(roc_auc(&[0.5; 4], &[false, true, false, true]).unwrap(), 0.5);
    // Perfectly reversed: 0.
    assert_close(roc_auc(&[3.0, 2.0, 1.0], &[false, true, true]).unwrap(), 0.0);
}

#[test]
fn binary_helpers_feed_the_multiclass_metrics() {
    // p(y=1) = 0.8 for a positive, 0.4 for a negative: both right; Brier 2·(0.2²) and 2·(0.4²), mean 0.2.
    let probs = binary_probs(&[0.8, 0.4]).unwrap();
    let labels = binary_labels(&[true, false]);
    assert_close(accuracy(&probs, 2, &labels).unwrap(), 1.0);
    assert_close(brier(&probs, 2, &labels).unwrap(), 0.2);
    assert_close(nll(&probs, 2, &labels).unwrap(), -(0.8f64.ln() + 0.6f64.ln()) / 2.0);
}
