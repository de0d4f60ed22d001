//! The tied EP factor of one GP layer, in the inverse-free form of spec §2.9.
//!
//! The layer stores the total data contribution `T1 = RᵀR` (R upper triangular, positive diagonal)
//! and `t`, so `q(u)`: `Σ_q⁻¹ = K⁻¹ + T1`, `Σ_q⁻¹ μ_q = t`, and the cavity has `β T1`, `β t` with
//! `β = (N − 1)/N`. For a scaling `γ` (1 for q, β for the cavity), with `R_γ = √γ R`:
//! `C = I + R_γ K R_γᵀ`, `W = chol(C)⁻¹ R_γ`, `A = K⁻¹μ = γt − WᵀW K γt`, `μ = K A`,
//! `K⁻¹ΣK⁻¹ − K⁻¹ = −WᵀW`, `log|Σ| = log|K| − log|C|`. `K` is never factorised.
use burn::tensor::Tensor;

use crate::error::Result;
use crate::linalg::{cholesky, logdet_from_cholesky, solve_triangular, Triangle};

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
    pub logdet_c: Tensor<1>,
    /// `(γt)ᵀ μ = μᵀ Σ⁻¹ μ` per function `[D]`.
    pub t_mu: Tensor<1>,
}

impl FactorTerms {
    /// `φ(μ, Σ) − ½ log|K| = −½ log|C| + ½ μᵀΣ⁻¹μ` per function `[D]`.
    pub fn log_normaliser_minus_prior(&self) -> Tensor<1> {
        (self.t_mu.clone() - self.logdet_c.clone()).mul_scalar(0.5)
    }
    /// `WᵀW` `[D, M, M]`.
    pub fn wtw(&self) -> Tensor<3> {
        self.w.clone().swap_dims(1, 2).matmul(self.w.clone())
    }
}

/// The terms for scaling `gamma` from `K` `[D, M, M]`, `R` `[D, M, M]` and `t` `[D, M, 1]`.
pub fn factor_terms(k: Tensor<3>, r: Tensor<3>, t: Tensor<3>, gamma: f64) -> Result<FactorTerms> {
    let [d, m, _] = k.dims();
    let rg = r.mul_scalar(gamma.sqrt());
    let tg = t.mul_scalar(gamma);
    let eye = Tensor::<2>::eye(m, &k.device()).reshape([1, m, m]).expand([d, m, m]);
    let c = eye + rg.clone().matmul(k.clone()).matmul(rg.clone().swap_dims(1, 2));
    let lc = cholesky(c)?;
    let logdet_c = logdet_from_cholesky(lc.clone());
    let w = solve_triangular(lc, rg, Triangle::Lower, false)?;
    let kt = k.clone().matmul(tg.clone()); // [D, M, 1]
    let a = tg.clone() - w.clone().swap_dims(1, 2).matmul(w.clone().matmul(kt));
    let mu = k.matmul(a.clone());
    let t_mu = (tg * mu).sum_dim(1).reshape([d]);
    Ok(FactorTerms { a, w, logdet_c, t_mu })
}

/// The layer's share of the global energy terms, `Σ_d [(1 − N) φ(q) + N φ(cav) − φ(prior)]` `[1]`:
/// the `log|K|` parts cancel exactly, leaving `(1 − N)(−½log|C_q| + ½t_qᵀμ_q) + N(−½log|C_c| + ½t_cᵀμ_c)`.
pub fn global_terms(q: &FactorTerms, cavity: &FactorTerms, num_data: usize) -> Tensor<1> {
    let n = num_data as f64;
    let per_fn = q.log_normaliser_minus_prior().mul_scalar(1.0 - n) + cavity.log_normaliser_minus_prior().mul_scalar(n);
    per_fn.sum().reshape([1])
}
