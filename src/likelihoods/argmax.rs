//! Probability that each of K independent Gaussians is the largest, by Gauss–Hermite quadrature.
use burn::tensor::Tensor;

use super::GaussHermite;
use crate::special::tensor::log_ndtr;

/// `P_c = P(f_c = max_k f_k)` for independent `f_k ~ N(μ_k, σ²_k)`: `[n, K]`, rows renormalised.
///
/// `P_c = E_{f_c}[Π_{j≠c} Φ((f_c − μ_j)/σ_j)]` with `points` Gauss–Hermite nodes; the product is
/// taken in log space. Quadrature leaves `Σ_c P_c` slightly off 1 for wide marginals (1.0017 for
/// 32 points in test case T14 of `docs/papers/003-bayesian-svm.md`), so rows are renormalised.
pub fn argmax_probabilities(f_mean: Tensor<2>, f_var: Tensor<2>, points: usize) -> Tensor<2> {
    let [n, k] = f_mean.dims();
    let device = f_mean.device();
    let gh = GaussHermite::new(points);
    let g = gh.len();
    let x = gh.points(f_mean.clone(), f_var.clone()).unsqueeze_dim::<4>(3); // [n, c, g, 1]
    let mu = f_mean.reshape([n, 1, 1, k]);
    let sd = f_var.sqrt().reshape([n, 1, 1, k]);
    let log_cdf = log_ndtr((x - mu) / sd); // [n, c, g, j]
    let off_diag = (Tensor::<2>::eye(k, &device).neg() + 1.0).reshape([1, k, 1, k]);
    let log_prod = (log_cdf * off_diag).sum_dim(3).reshape([n, k, g]);
    let p = gh.integrate(log_prod.exp());
    p.clone() / p.sum_dim(1)
}

/// `P(f_y = max_k f_k)` for the class `y` that the one-hot `targets` `[n, K]` mark in each row: `[n]`.
///
/// The integral of [`argmax_probabilities`] for the target class alone,
/// `E_{f_y}[Π_{j≠y} Φ((f_y − μ_j)/σ_j)]`, at `n·points·K` cost instead of `n·K·points·K`. It is
/// not renormalised, since that would need every class's integral; GPflow's `RobustMax` does
/// the same. Training needs only this term.
pub(crate) fn target_argmax_probability(
    f_mean: Tensor<2>,
    f_var: Tensor<2>,
    targets: Tensor<2>,
    points: usize,
) -> Tensor<1> {
    let [n, k] = f_mean.dims();
    let gh = GaussHermite::new(points);
    let g = gh.len();
    let mean_y = (f_mean.clone() * targets.clone()).sum_dim(1);
    let var_y = (f_var.clone() * targets.clone()).sum_dim(1);
    let x = gh.points(mean_y, var_y).reshape([n, g, 1]);
    let mu = f_mean.reshape([n, 1, k]);
    let sd = f_var.sqrt().reshape([n, 1, k]);
    let others = (targets.neg() + 1.0).reshape([n, 1, k]);
    let log_prod = (log_ndtr((x - mu) / sd) * others).sum_dim(2).reshape([n, 1, g]);
    gh.integrate(log_prod.exp()).reshape([n])
}
