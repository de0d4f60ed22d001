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
    let k = f_mean.dims()[1];
    let gh = GaussHermite::new(points);
    let x = gh.points(f_mean.clone(), f_var.clone()); // [n, c, g]
    let off_diag = (Tensor::<2>::eye(k, &f_mean.device()).neg() + 1.0).reshape([1, k, k]);
    let p = gh.integrate(log_prod_other_cdfs(x, f_mean, f_var, off_diag).exp());
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
    let mean_y = (f_mean.clone() * targets.clone()).sum_dim(1);
    let var_y = (f_var.clone() * targets.clone()).sum_dim(1);
    let x = gh.points(mean_y, var_y); // [n, 1, g]
    let others = (targets.neg() + 1.0).reshape([n, 1, k]);
    gh.integrate(log_prod_other_cdfs(x, f_mean, f_var, others).exp()).reshape([n])
}

/// `Σ_j others[.., l, j] · log Φ((x[i, l, q] − μ_ij)/σ_ij)`: `[n, L, g]`, for points `x` `[n, L, g]`
/// and a 0/1 mask `others` `[n or 1, L, K]` of the classes each row `l` compares against.
fn log_prod_other_cdfs(x: Tensor<3>, f_mean: Tensor<2>, f_var: Tensor<2>, others: Tensor<3>) -> Tensor<3> {
    let [n, l, g] = x.dims();
    let [rows, _, k] = others.dims();
    let mu = f_mean.reshape([n, 1, 1, k]);
    let sd = f_var.sqrt().reshape([n, 1, 1, k]);
    let log_cdf = log_ndtr((x.unsqueeze_dim::<4>(3) - mu) / sd); // [n, L, g, K]
    (log_cdf * others.reshape([rows, l, 1, k])).sum_dim(3).reshape([n, l, g])
}
