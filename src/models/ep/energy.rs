//! The EP energy `log Z_q` as a differentiable function of the hyperparameters and inducing
//! inputs with the site parameters `(ν̃, μ̃)` held fixed and the site directions `υ_i(ξ)`
//! recomputed from `ξ` (paper eq. 28; `docs/papers/001-ep-classification.md`, section "Exact
//! gradient"): the paper's "exact gradient" of its Fig. 1, and a test oracle for the surrogate's
//! gradient (at an EP fixed point both equal the gradient of the converged energy).
use burn::tensor::{Tensor, TensorData};

use super::model::EpGpClassifier;
use super::posterior::EpSites;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::linalg::{cholesky, logdet_from_cholesky, solve_triangular, Triangle};
use crate::models::check_inputs;
use crate::special::tensor::log_ndtr;

impl<K: Kernel> EpGpClassifier<K> {
    /// `log Z_q(ξ) = −Σ_j log (L_B)_jj + ½‖β‖² + Σ_i log s̃_i` on the rows of `x` `[n, d]` with
    /// labels `y` (±1) and the given sites as constants, in tensor operations (differentiable;
    /// `O(nm² + m³)`). Equals [`super::log_z_q`] at the same `ξ` and sites; unlike the host
    /// version it needs every cavity to be proper (`1 − ν̃_i v̂_i > 0`), which holds for sites
    /// that EP produced at this `ξ` or near it.
    pub fn log_z_q_at_sites(&self, x: Tensor<2>, y: &[f64], sites: &EpSites) -> Result<Tensor<1>> {
        let n = check_inputs("EpGpClassifier::log_z_q_at_sites", &x, Some(self.input_dim()))?;
        if y.len() != n || sites.nu.len() != n || sites.mu.len() != n {
            return Err(Error::shape(
                "EpGpClassifier::log_z_q_at_sites: labels, site precisions, site means",
                [n, n, n],
                [y.len(), sites.nu.len(), sites.mu.len()],
            ));
        }
        let m = self.num_inducing();
        let device = x.device();
        let row = |v: &[f64]| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [1, n]), &device);
        let (nu, mu, labels) = (row(&sites.nu), row(&sites.mu), row(y));
        let col_sum = |t: Tensor<2>| t.sum_dim(0); // [1, n]
        let l = cholesky(self.kuu())?;
        let psi = solve_triangular(l, self.kernel.k(self.inducing.z(), x.clone()), Triangle::Lower, false)?; // [m, n]
                                                                                                             // B = I + Ψ diag(ν̃) Ψᵀ, L_B = chol(B), β = L_B⁻¹ Ψ μ̃, G = L_B⁻¹ Ψ
        let b = Tensor::<2>::eye(m, &device) + (psi.clone() * nu.clone()).matmul(psi.clone().transpose());
        let lb = cholesky(b)?;
        let beta = solve_triangular(lb.clone(), (psi.clone() * mu.clone()).sum_dim(1), Triangle::Lower, false)?; // [m, 1]
        let g = solve_triangular(lb.clone(), psi.clone(), Triangle::Lower, false)?;
        let t_hat = col_sum(g.clone() * beta.clone());
        let v_hat = col_sum(g.powi_scalar(2));
        // cavities (paper eqs. 14–15 projected on υ_i): a = t̂ + v̂ (ν̃t̂ − μ̃)/(1 − ν̃v̂), c = v̂/(1 − ν̃v̂)
        let denom = (nu.clone() * v_hat.clone()).neg().add_scalar(1.0);
        let a = t_hat.clone() + v_hat.clone() * (nu.clone() * t_hat - mu.clone()) / denom.clone();
        let c = v_hat / denom;
        let kdiag = self.kernel.k_diag(x).reshape([1, n]) + self.noise().reshape([1, 1]);
        let s = (kdiag - col_sum(psi.powi_scalar(2))).clamp_min(0.0);
        let log_z = log_ndtr(labels * a.clone() / (s + c.clone()).add_scalar(1.0).sqrt());
        // log s̃_i (paper eq. 29, corrected: docs/papers/001-ep-classification.md, section "Errata")
        let k = (nu.clone() * c.clone()).add_scalar(1.0);
        let quad = nu * a.clone().powi_scalar(2) - (mu.clone() * a).mul_scalar(2.0) - mu.powi_scalar(2) * c;
        let log_s = log_z + k.clone().log().mul_scalar(0.5) + quad / k.mul_scalar(2.0);
        let ratio = logdet_from_cholesky(lb).mul_scalar(-0.5) + beta.powi_scalar(2).sum().mul_scalar(0.5);
        Ok(ratio + log_s.sum())
    }
}
