//! Closed-form ψ-statistics of the EQ-ARD kernel under a diagonal-Gaussian input
//! `h ~ N(μ, diag(s))` (the paper's ψ_{l,1}, ψ_{l,2}: appendix D, eqs. (4)–(5)), evaluated in log space
//! and exponentiated last:
//!
//! `ψ1_m = σ² Π_j (1 + s_j/ℓ_j²)^{−½} exp(−½ Σ_j (μ_j − z_mj)² / (ℓ_j² + s_j))`,
//! `ψ2_mm' = σ⁴ Π_j (1 + 2s_j/ℓ_j²)^{−½} exp(−Σ_j (z_mj − z_m'j)²/(4ℓ_j²) − Σ_j (μ_j − z̄_mm'j)²/(ℓ_j² + 2s_j))`.
//!
//! With `δ_m = μ − z_m` the ψ2 exponent is `−¼[h_m + h_m' + 2 Σ_j c_j δ_mj δ_m'j]`, where
//! `h_m = Σ_j (1/ℓ_j² + w_j) δ_mj²`, `w_j = 1/(ℓ_j² + 2s_j)` and `c_j = w_j − 1/ℓ_j² = −2s_j w_j/ℓ_j²`:
//! one batched matrix product, no `[B, M, M, D_in]` temporary, and no cancellation.
use burn::tensor::Tensor;

/// ψ1 `[D, B, M]` and ψ2 `[D, B, M, M]` of `D` EQ kernels (inducing inputs `z` `[D, M, D_in]`,
/// `ell2` `[H, D_in]`, `sf2` `[H]`, `H ∈ {1, D}`) at inputs with means `mean` and variances `var`
/// `[B, D_in]`.
pub fn psi_statistics(
    mean: Tensor<2>,
    var: Tensor<2>,
    z: Tensor<3>,
    ell2: Tensor<2>,
    sf2: Tensor<1>,
) -> (Tensor<3>, Tensor<4>) {
    let (psi1, [u, v]) = psi_factors(mean, var, z, ell2, sf2);
    (psi1, u.matmul(v.swap_dims(2, 3)).exp())
}

/// ψ1 `[D, B, M]` and the factors `U`, `V` `[D, B, M, D_in + 3]` of `log ψ2 = U Vᵀ`, for
/// [`crate::linalg::exp_bilinear_contract`], which reduces ψ2 against weights without forming it.
/// Arguments as in [`psi_statistics`].
pub(crate) fn psi_factors(
    mean: Tensor<2>,
    var: Tensor<2>,
    z: Tensor<3>,
    ell2: Tensor<2>,
    sf2: Tensor<1>,
) -> (Tensor<3>, [Tensor<4>; 2]) {
    let [d, m, din] = z.dims();
    let [b, _] = mean.dims();
    let h = ell2.dims()[0];
    let l2 = ell2.reshape([h, 1, 1, din]);
    let s = var.reshape([1, b, 1, din]);
    let log_sf2 = sf2.log().reshape([h, 1, 1, 1]);
    // δ_bmj = μ_bj − z_mj: [D, B, M, D_in]
    let delta = mean.reshape([1, b, 1, din]) - z.reshape([d, 1, m, din]);
    let delta2 = delta.clone().powi_scalar(2);

    // ψ1
    let quad1 = (delta2.clone() / (l2.clone() + s.clone())).sum_dim(3); // [D, B, M, 1]
    let logdet1 = (s.clone() / l2.clone()).log1p().sum_dim(3); // [H, B, 1, 1]
    let log_psi1 = log_sf2.clone() - logdet1.mul_scalar(0.5) - quad1.mul_scalar(0.5);
    let psi1 = log_psi1.exp().reshape([d, b, m]);

    // ψ2: log ψ2_bmm' = κ_b − ¼h_bm − ¼h_bm' − ½ Σ_j c_bj δ_bmj δ_bm'j with κ_b = 2 log σ_f² − ½ Σ_j log(1 + 2s_bj/ℓ_j²),
    // ONE product U Vᵀ of augmented rows U = [−½c∘δ, −¼h, 1, κ], V = [δ, 1, −¼h, 1]: no broadcast
    // additions on [D, B, M, M], whose backward (un-broadcasting reductions) is slow on CPU.
    let inv_l2 = l2.clone().recip(); // [H, 1, 1, D_in]
    let w = (l2.clone() + s.clone().mul_scalar(2.0)).recip(); // [H, B, 1, D_in]
    let c = (s.clone().mul_scalar(-2.0) * w.clone()) * inv_l2.clone(); // [H, B, 1, D_in]
    let hm = (delta2 * (inv_l2 + w)).sum_dim(3).mul_scalar(-0.25); // [D, B, M, 1]
    let logdet2 = (s.mul_scalar(2.0) / l2).log1p().sum_dim(3); // [H, B, 1, 1]
    let kappa = (log_sf2.mul_scalar(2.0) - logdet2.mul_scalar(0.5)).expand([d, b, m, 1]);
    let ones = Tensor::<4>::ones([d, b, m, 1], &hm.device());
    let u = Tensor::cat(vec![(delta.clone() * c).mul_scalar(-0.5), hm.clone(), ones.clone(), kappa], 3);
    let v = Tensor::cat(vec![delta, ones.clone(), hm, ones], 3);
    (psi1, [u, v])
}
