//! Natural-gradient steps for the β-block `q(β) = N(m_β, S)` (Salimbeni et al. 2018; paper §4.2; the
//! step is written out in `docs/papers/002-decoupled-fourier-features.md`, section "Natural gradients").
//!
//! With `a_γ` and the hyperparameters fixed, the ELBO depends on `(m_β, S)` like an SVGP whose
//! mean has the offset `c_n = μ_n − b_nᵀ m_β`, `b_n = K_β⁻¹ k_βn`. From the per-point gradients
//! `g_μ, g_v` of the scaled expected log-likelihood, `∇_m = Σ g_μ b`, `G_S = Σ g_v b bᵀ`, one step
//! of size ρ in the natural parameters `θ₁ = S⁻¹m`, `θ₂ = −½S⁻¹` is
//! `θ₂ ← (1−ρ)θ₂ + ρ(−½K_β⁻¹ + G_S)`, `θ₁ ← (1−ρ)θ₁ + ρ(∇_m − 2G_S m)`. With a Gaussian
//! likelihood, full batch and ρ = 1 it lands on the optimum given `a_γ`. The step runs on the
//! host in f64 (an optimiser step: no gradient flows through it); if `−2θ₂` is not positive
//! definite, ρ is halved and the step retried.
use burn::tensor::{Tensor, TensorData};
use faer::Mat;

use super::model::DecoupledGp;
use crate::error::{Error, Result};
use crate::inducing::InducingVariables;
use crate::kernels::Kernel;
use crate::likelihoods::Likelihood;
use crate::linalg::host;
use crate::models::{check_inputs, check_targets};
use crate::tensors::to_vec;

/// How many times ρ is halved before a step gives up.
const MAX_HALVINGS: usize = 30;

/// `A⁻¹` of an SPD matrix from its Cholesky factor, or `None` if it is not positive definite.
fn spd_inverse(a: &Mat<f64>) -> Option<Mat<f64>> {
    let n = a.nrows();
    let mut flat = Vec::with_capacity(n * n);
    host::push_row_major(a.as_ref(), &mut flat);
    let l = host::cholesky_lower(&flat, n)?;
    let mut lf = Vec::with_capacity(n * n);
    host::push_row_major(l.as_ref(), &mut lf);
    let v = host::to_mat(&host::invert_lower_batch(&lf, 1, n), n, n);
    Some(v.transpose() * &v)
}

/// Lower Cholesky factor or a typed error.
fn cholesky(a: &Mat<f64>, what: &str) -> Result<Mat<f64>> {
    let n = a.nrows();
    let mut flat = Vec::with_capacity(n * n);
    host::push_row_major(a.as_ref(), &mut flat);
    host::cholesky_lower(&flat, n)
        .ok_or_else(|| Error::invalid("natural-gradient step", format!("{what} is not positive definite")))
}

fn symmetrise(a: &Mat<f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| 0.5 * (a[(i, j)] + a[(j, i)]))
}

/// `α a + β b`.
fn combine(a: &Mat<f64>, alpha: f64, b: &Mat<f64>, beta: f64) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| alpha * a[(i, j)] + beta * b[(i, j)])
}

fn host_mat(t: Tensor<2>) -> Mat<f64> {
    let [r, c] = t.dims();
    host::to_mat(&to_vec(t), r, c)
}

fn to_tensor(m: &Mat<f64>, device: &burn::tensor::Device) -> Tensor<2> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    host::push_row_major(m.as_ref(), &mut v);
    Tensor::from_data(TensorData::new(v, [m.nrows(), m.ncols()]), device)
}

impl<K: Kernel, I: InducingVariables<K>, L: Likelihood> DecoupledGp<K, I, L> {
    /// One natural-gradient step of size `rho ∈ (0, 1]` on `(m_β, L_S)` from the batch `(x, y)`
    /// (scaled by `N/|B|`); returns the model and the step size used (smaller than `rho` if it had
    /// to be halved). The model must live on an autodiff device (the per-point gradients of the
    /// expected log-likelihood come from autodiff).
    pub fn natural_gradient_step(self, x: Tensor<2>, y: Tensor<2>, rho: f64) -> Result<(Self, f64)> {
        if !(rho > 0.0 && rho <= 1.0) {
            return Err(Error::invalid("rho", format!("natural-gradient step must be in (0, 1], got {rho}")));
        }
        let n = check_inputs("DecoupledGp::natural_gradient_step", &x, self.kernel.input_dim())?;
        check_targets("DecoupledGp::natural_gradient_step", &y, n, 1)?;
        let device = x.device();
        let post = self.posterior(false)?;
        let marg = self.marginals(&post, x.detach())?;
        let (mean, var) = (marg.mean.detach(), marg.var.detach());
        if !mean.is_autodiff() {
            return Err(Error::invalid("device", "the natural-gradient step needs the model on an autodiff device"));
        }
        let mu = mean.require_grad();
        let v = var.require_grad();
        let ve = self.likelihood.variational_expectations(mu.clone(), v.clone(), y.detach()).sum();
        let grads = ve.backward();
        let missing = || Error::invalid("natural-gradient step", "no gradient of the expected log-likelihood");
        let scale = self.num_data as f64 / n as f64;
        let g_mu = to_vec(mu.grad(&grads).ok_or_else(missing)?);
        let g_v = to_vec(v.grad(&grads).ok_or_else(missing)?);
        let b = host_mat(marg.projection.detach()); // [M_β, n]
        let mb = b.nrows();
        let kinv = symmetrise(&host_mat(post.factor.inverse().detach()));
        let m = host_mat(self.m_beta.val().detach());
        let l_s = host_mat(post.l_s.detach());
        // G_S = scale Σ g_v b bᵀ, ∇_m = scale Σ g_μ b.
        let bg = Mat::from_fn(mb, n, |i, j| b[(i, j)] * g_v[j] * scale);
        let g_s = symmetrise(&(&bg * b.transpose()));
        let grad_m = Mat::from_fn(mb, 1, |i, _| (0..n).map(|j| b[(i, j)] * g_mu[j]).sum::<f64>() * scale);
        // Current natural parameters: S⁻¹ and S⁻¹ m.
        let s = &l_s * l_s.transpose();
        let s_inv = spd_inverse(&s).ok_or_else(|| Error::invalid("natural-gradient step", "S is singular"))?;
        let theta1 = &s_inv * &m;
        let target_prec = combine(&kinv, 1.0, &g_s, -2.0); // −2(−½K⁻¹ + G_S)
        let target_shift = combine(&grad_m, 1.0, &(&g_s * &m), -2.0);
        let mut step = rho;
        for _ in 0..MAX_HALVINGS {
            let prec = symmetrise(&combine(&s_inv, 1.0 - step, &target_prec, step));
            if let Some(s_new) = spd_inverse(&prec) {
                let s_new = symmetrise(&s_new);
                let shift = combine(&theta1, 1.0 - step, &target_shift, step);
                let m_new = &s_new * &shift;
                let l_new = cholesky(&s_new, "the new S")?;
                let model = self.with_variational(None, to_tensor(&m_new, &device), to_tensor(&l_new, &device))?;
                return Ok((model, step));
            }
            step *= 0.5;
        }
        Err(Error::invalid("natural-gradient step", format!("−2θ₂ not positive definite even with ρ = {step:e}")))
    }
}
