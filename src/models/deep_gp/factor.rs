//! The tied EP factor of one GP layer (the paper's §4.2), in our inverse-free form
//! (`docs/papers/004-deep-gp-ep.md`, sections "Tied factor" and "Inverse-free form").
//!
//! The layer stores the total data contribution `T1 = RᵀR` (R upper triangular, positive diagonal)
//! and `t`, so `q(u)`: `Σ_q⁻¹ = K⁻¹ + T1`, `Σ_q⁻¹ μ_q = t`, and the cavity has `β T1`, `β t` with
//! `β = (N − 1)/N`. For a scaling `γ` (1 for q, β for the cavity), with `R_γ = √γ R`:
//! `C = I + R_γ K R_γᵀ`, `W = chol(C)⁻¹ R_γ`, `A = K⁻¹μ = γt − WᵀW K γt`, `μ = K A`,
//! `K⁻¹ΣK⁻¹ − K⁻¹ = −WᵀW`, `log|Σ| = log|K| − log|C|`. `K` is never factorised.
use burn::tensor::Tensor;

use crate::error::Result;
use crate::linalg::{batched_matmul, cholesky, logdet_from_cholesky, solve_triangular, Triangle};

/// Which distribution over the inducing outputs a forward pass uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The cavity `q^{\1}(u) ∝ p(u) g(u)^{N−1}` (training: log Z).
    Cavity,
    /// The approximate posterior `q(u) ∝ p(u) g(u)^N` (prediction).
    Posterior,
}

impl Mode {
    /// The scaling γ of the tied factor: 1 for the posterior, `(N − 1)/N` for the cavity.
    pub fn gamma(self, num_data: usize) -> f64 {
        match self {
            Mode::Posterior => 1.0,
            Mode::Cavity => (num_data as f64 - 1.0) / num_data as f64,
        }
    }
}

/// The quantities of `q` or the cavity that the energy and the forward pass need, per function.
#[derive(Clone, Debug)]
pub struct FactorTerms {
    /// `A = K⁻¹ μ` `[D, M, 1]`.
    pub a: Tensor<3>,
    /// `W = chol(C)⁻¹ R_γ` `[D, M, M]` (so `K⁻¹ΣK⁻¹ − K⁻¹ = −WᵀW`).
    pub w: Tensor<3>,
    /// `log|C|` per function `[D]`.
    pub(crate) logdet_c: Tensor<1>,
    /// `(γt)ᵀ μ = μᵀ Σ⁻¹ μ` per function `[D]`.
    pub(crate) t_mu: Tensor<1>,
}

impl FactorTerms {
    /// `φ(μ, Σ) − ½ log|K| = −½ log|C| + ½ μᵀΣ⁻¹μ` per function `[D]`.
    pub fn log_normaliser_minus_prior(&self) -> Tensor<1> {
        (self.t_mu.clone() - self.logdet_c.clone()).mul_scalar(0.5)
    }
    /// `WᵀW` `[D, M, M]`.
    pub(crate) fn wtw(&self) -> Result<Tensor<3>> {
        batched_matmul(self.w.clone(), self.w.clone(), true, false)
    }
}

/// `R K Rᵀ` `[D, M, M]`, shared by `q` and the cavity (`C_γ = I + γ R K Rᵀ`).
pub(crate) fn r_k_rt(k: Tensor<3>, r: Tensor<3>) -> Result<Tensor<3>> {
    batched_matmul(batched_matmul(r.clone(), k, false, false)?, r, false, true)
}

/// `chol(C_γ)` and `log|C_γ|` for `C_γ = I + γ R K Rᵀ` from `rkr = R K Rᵀ`.
fn chol_c(rkr: Tensor<3>, gamma: f64) -> Result<(Tensor<3>, Tensor<1>)> {
    let [d, m, _] = rkr.dims();
    let eye = Tensor::<2>::eye(m, &rkr.device()).reshape([1, m, m]).expand([d, m, m]);
    let lc = cholesky(eye + rkr.mul_scalar(gamma))?;
    let logdet_c = logdet_from_cholesky(lc.clone());
    Ok((lc, logdet_c))
}

/// The terms for scaling `gamma` from `K` `[D, M, M]`, `R` `[D, M, M]` and `t` `[D, M, 1]`.
pub fn factor_terms(k: Tensor<3>, r: Tensor<3>, t: Tensor<3>, gamma: f64) -> Result<FactorTerms> {
    let rkr = r_k_rt(k.clone(), r.clone())?;
    factor_terms_from(k, r, rkr, t, gamma)
}

/// [`factor_terms`] given `rkr = R K Rᵀ`.
pub(crate) fn factor_terms_from(
    k: Tensor<3>,
    r: Tensor<3>,
    rkr: Tensor<3>,
    t: Tensor<3>,
    gamma: f64,
) -> Result<FactorTerms> {
    let [d, _, _] = k.dims();
    let (lc, logdet_c) = chol_c(rkr, gamma)?;
    let rg = r.mul_scalar(gamma.sqrt());
    let tg = t.mul_scalar(gamma);
    let w = solve_triangular(lc, rg, Triangle::Lower, false)?;
    let kt = k.clone().matmul(tg.clone()); // [D, M, 1]
    let a = tg.clone() - w.clone().swap_dims(1, 2).matmul(w.clone().matmul(kt));
    let mu = k.matmul(a.clone());
    let t_mu = (tg * mu).sum_dim(1).reshape([d]);
    Ok(FactorTerms { a, w, logdet_c, t_mu })
}

/// `φ(μ, Σ) − ½ log|K|` per function `[D]` for scaling `gamma` given `rkr = R K Rᵀ`, without
/// forming `W` (the `q` term of the energy needs only this).
///
/// `(γt)ᵀμ = (γt)ᵀK(γt) − ‖y‖²` with `y = chol(C)⁻¹ R_γ K γt`, since `μ = K A` and
/// `K WᵀW K = K R_γᵀ C⁻¹ R_γ K`: only matrix–vector products beyond the Cholesky.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn log_normaliser_minus_prior(
    k: Tensor<3>,
    r: Tensor<3>,
    rkr: Tensor<3>,
    t: Tensor<3>,
    gamma: f64,
) -> Result<Tensor<1>> {
    let [d, _, _] = k.dims();
    let (lc, logdet_c) = chol_c(rkr, gamma)?;
    let tg = t.mul_scalar(gamma);
    let kt = k.matmul(tg.clone()); // [D, M, 1]
    let y = solve_triangular(lc, r.matmul(kt.clone()).mul_scalar(gamma.sqrt()), Triangle::Lower, false)?;
    let t_mu = (tg * kt).sum_dim(1) - y.powi_scalar(2).sum_dim(1);
    Ok((t_mu.reshape([d]) - logdet_c).mul_scalar(0.5))
}

/// The layer's share of the global energy terms, `Σ_d [(1 − N) φ(q) + N φ(cav) − φ(prior)]` `[1]`,
/// from `φ(q) − ½log|K|` per function and the cavity's terms: the `log|K|` parts cancel exactly,
/// leaving `(1 − N)(−½log|C_q| + ½t_qᵀμ_q) + N(−½log|C_c| + ½t_cᵀμ_c)`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn global_terms(q_normaliser: Tensor<1>, cavity: &FactorTerms, num_data: usize) -> Tensor<1> {
    let n = num_data as f64;
    let per_fn = q_normaliser.mul_scalar(1.0 - n) + cavity.log_normaliser_minus_prior().mul_scalar(n);
    per_fn.sum().reshape([1])
}
