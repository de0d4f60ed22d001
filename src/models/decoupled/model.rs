//! The orthogonally decoupled sparse variational GP (Salimbeni et al. 2018; with Fourier features
//! as covariance basis: Azzimonti et al. 2020, "ODVFF"; paper eqs. 5–6, 12–13 and App. B; the KL expanded
//! as in `docs/papers/002-decoupled-fourier-features.md`, section "Decoupled ELBO").
//!
//! `q(f)` has mean `μ(x) = k_xγ a_γ + k_xβ K_β⁻¹ (m_β − K_βγ a_γ)` and covariance
//! `k(x,x') − k_xβ K_β⁻¹ k_βx' + k_xβ K_β⁻¹ S K_β⁻¹ k_βx'`: the mean uses inducing points γ
//! (projected onto the complement of the β-span, so no `M_γ`-sized inverse is ever formed), the
//! covariance only the basis β (Fourier features or inducing points). The KL divergence is
//! `½ a_γᵀ(K_γ − K_γβ K_β⁻¹ K_βγ)a_γ + KL(N(m_β, S) ‖ N(0, K_β))`, and the minibatch ELBO
//! `N/|B| Σ_{n∈B} E_q[log p(y_n|f_n)] − KL`.
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor};

use super::config::{DecoupledGpConfig, InitialCovariance};
use super::mean_basis::MeanBasis;
use crate::error::{Error, Result};
use crate::inducing::{FourierFeatures, InducingPoints, InducingVariables, KuuFactor};
use crate::kernels::Kernel;
use crate::likelihoods::{Gaussian, Likelihood};
use crate::linalg::{cholesky, matmul, row_sums};
use crate::models::{check_inputs, check_targets, select_rows};

/// An orthogonally decoupled sparse variational GP with kernel `K`, covariance basis `I` and
/// likelihood `L`. Without a mean basis it is the (non-whitened) SVGP with inducing variables
/// `I`: VFF-SVGP for Fourier features, SVGP for points.
#[derive(Module, Debug)]
pub struct DecoupledGp<K: Kernel, I: InducingVariables<K>, L: Likelihood> {
    /// Covariance function.
    pub kernel: K,
    /// Likelihood.
    pub likelihood: L,
    /// Mean basis γ (inducing points and weights), if any.
    pub mean_basis: Option<MeanBasis>,
    /// Covariance basis β.
    pub cov_basis: I,
    /// Mean of `q(β)`, `m_β = K_β a_β` `[M_β, 1]`.
    pub m_beta: Param<Tensor<2>>,
    /// Cholesky factor `L_S` of the covariance of `q(β)` `[M_β, M_β]` (upper triangle ignored).
    pub l_s: Param<Tensor<2>>,
    /// Number of training points N.
    pub num_data: usize,
    /// Jitter on `K_β`'s diagonal.
    pub jitter: f64,
    /// Whether `(m_β, L_S)` are trained by natural gradients (then autodiff and Adam skip them).
    pub natural_gradients: bool,
    /// Step size ρ of those natural-gradient steps in [`fit`](Self::fit).
    pub natural_step: f64,
}

/// Orthogonally decoupled variational Fourier features (ODVFF).
pub type Odvff<K, L> = DecoupledGp<K, FourierFeatures, L>;
/// Orthogonally decoupled variational GP with inducing points for both bases (ODVGP).
pub type Odvgp<K, L> = DecoupledGp<K, InducingPoints, L>;

/// The parts of the posterior shared by all inputs.
pub(super) struct Posterior {
    /// `K_β`, factorised.
    pub factor: KuuFactor,
    /// `K_β⁻¹ (m_β − K_βγ a_γ)` `[M_β, 1]`.
    pub w: Tensor<2>,
    /// `L_S` with its upper triangle zeroed.
    pub l_s: Tensor<2>,
    /// `(Z_γ, a_γ)`, if there is a mean basis.
    pub gamma: Option<(Tensor<2>, Tensor<2>)>,
    /// `KL[q ‖ p]` `[1]` (if asked for).
    pub kl: Option<Tensor<1>>,
}

/// Marginals of `q(f)` on a batch.
pub(super) struct Marginals {
    /// `μ` `[n, 1]`.
    pub mean: Tensor<2>,
    /// `v` `[n, 1]`.
    pub var: Tensor<2>,
    /// `K_β⁻¹ k_βx` `[M_β, n]`.
    pub projection: Tensor<2>,
}

impl DecoupledGpConfig {
    /// Builds the model: `a_γ = 0`, `m_β = 0`, `S` as [`DecoupledGpConfig::initial_covariance`].
    pub fn init<K: Kernel, I: InducingVariables<K>, L: Likelihood>(
        &self,
        kernel: K,
        mean_points: Option<InducingPoints>,
        cov_basis: I,
        likelihood: L,
        device: &Device,
    ) -> Result<DecoupledGp<K, I, L>> {
        if self.num_data == 0 {
            return Err(Error::invalid("num_data", "must be positive"));
        }
        crate::error::check_non_negative("jitter", self.jitter)?;
        if !(self.natural_step > 0.0 && self.natural_step <= 1.0) {
            return Err(Error::invalid("natural_step", format!("must be in (0, 1], got {}", self.natural_step)));
        }
        let mb = cov_basis.num_inducing();
        if mb == 0 {
            return Err(Error::invalid("|β|", "the covariance basis must have at least one element"));
        }
        if let Some(points) = &mean_points {
            let d = points.z().dims()[1];
            if let Some(kd) = kernel.input_dim() {
                if kd != d {
                    return Err(Error::shape("DecoupledGp: mean-basis point columns", kd, d));
                }
            }
        }
        let l_s = match self.initial_covariance {
            InitialCovariance::Identity => Tensor::<2>::eye(mb, device),
            InitialCovariance::Prior => cholesky(cov_basis.kuu_factor(&kernel, self.jitter)?.dense().detach())?,
        };
        let grad = !self.natural_gradients;
        Ok(DecoupledGp {
            kernel,
            likelihood,
            mean_basis: mean_points.map(MeanBasis::new),
            cov_basis,
            m_beta: Param::from_tensor(Tensor::zeros([mb, 1], device)).set_require_grad(grad),
            l_s: Param::from_tensor(l_s.detach()).set_require_grad(grad),
            num_data: self.num_data,
            jitter: self.jitter,
            natural_gradients: self.natural_gradients,
            natural_step: self.natural_step,
        })
    }
}

impl<K: Kernel, I: InducingVariables<K>, L: Likelihood> DecoupledGp<K, I, L> {
    /// Size of the covariance basis `M_β`.
    pub fn num_beta(&self) -> usize {
        self.cov_basis.num_inducing()
    }

    /// Size of the mean basis `M_γ` (0 without one).
    pub fn num_gamma(&self) -> usize {
        self.mean_basis.as_ref().map_or(0, MeanBasis::len)
    }

    /// `L_S` with its upper triangle zeroed `[M_β, M_β]`.
    pub(crate) fn l_s_lower(&self) -> Tensor<2> {
        self.l_s.val().tril(0)
    }

    /// Replaces `(a_γ, m_β, L_S)` (keeping parameter ids and gradient settings); `a_γ` is ignored
    /// without a mean basis.
    pub fn with_variational(mut self, a_gamma: Option<Tensor<2>>, m_beta: Tensor<2>, l_s: Tensor<2>) -> Result<Self> {
        let mb = self.num_beta();
        if m_beta.dims() != [mb, 1] {
            return Err(Error::shape("DecoupledGp::with_variational: m_β", [mb, 1], m_beta.dims()));
        }
        if l_s.dims() != [mb, mb] {
            return Err(Error::shape("DecoupledGp::with_variational: L_S", [mb, mb], l_s.dims()));
        }
        if let (Some(basis), Some(a)) = (self.mean_basis.as_mut(), a_gamma) {
            let mg = basis.len();
            if a.dims() != [mg, 1] {
                return Err(Error::shape("DecoupledGp::with_variational: a_γ", [mg, 1], a.dims()));
            }
            basis.weights = Param::initialized(basis.weights.id, a.detach()).set_require_grad(true);
        }
        let grad = !self.natural_gradients;
        self.m_beta = Param::initialized(self.m_beta.id, m_beta.detach()).set_require_grad(grad);
        self.l_s = Param::initialized(self.l_s.id, l_s.detach()).set_require_grad(grad);
        Ok(self)
    }

    /// The posterior parts shared by all inputs, and the KL divergence if `with_kl`.
    pub(super) fn posterior(&self, with_kl: bool) -> Result<Posterior> {
        let factor = self.cov_basis.kuu_factor(&self.kernel, self.jitter)?;
        let mb = factor.size();
        let m = self.m_beta.val();
        let l_s = self.l_s_lower();
        let device = m.device();
        let gamma = self.mean_basis.as_ref().map(|g| (g.points.z(), g.weights.val()));
        // u = K_βγ a_γ; one structured solve of [m_β | u | L_S].
        let u = match &gamma {
            Some((z, a)) => matmul(self.cov_basis.kuf(&self.kernel, z.clone()), a.clone())?,
            None => Tensor::zeros([mb, 1], &device),
        };
        if !with_kl {
            let w = factor.solve(m - u);
            return Ok(Posterior { factor, w, l_s, gamma, kl: None });
        }
        let solved = factor.solve(Tensor::cat(vec![m.clone(), u.clone(), l_s.clone()], 1));
        let kinv_m = solved.clone().narrow(1, 0, 1);
        let kinv_u = solved.clone().narrow(1, 1, 1);
        let kinv_l = solved.narrow(1, 2, mb);
        let w = kinv_m.clone() - kinv_u.clone();
        // KL(N(m_β, S) ‖ N(0, K_β))
        let maha = (m * kinv_m).sum();
        let trace = (kinv_l * l_s.clone()).sum();
        let diag = (l_s.clone() * Tensor::<2>::eye(mb, &device)).sum_dim(1); // [M_β, 1]
        let logdet_s = diag.powi_scalar(2).log().sum();
        let kl_beta = (maha + trace + factor.logdet() - logdet_s).sub_scalar(mb as f64).mul_scalar(0.5);
        // ½ a_γᵀ (K_γ − K_γβ K_β⁻¹ K_βγ) a_γ
        let kl = match &gamma {
            Some((z, a)) => {
                let kg = self.kernel.k(z.clone(), z.clone());
                let quad = (a.clone() * matmul(kg, a.clone())?).sum() - (u * kinv_u).sum();
                kl_beta + quad.mul_scalar(0.5)
            }
            None => kl_beta,
        };
        Ok(Posterior { factor, w, l_s, gamma, kl: Some(kl) })
    }

    /// Marginals of `q(f(x))` on the rows of `x`.
    pub(super) fn marginals(&self, post: &Posterior, x: Tensor<2>) -> Result<Marginals> {
        let n = x.dims()[0];
        let kfb = self.cov_basis.kfu(&self.kernel, x.clone()); // [n, M_β]
        let projection = post.factor.solve(kfb.clone().transpose()); // [M_β, n]
        let pt = projection.clone().transpose(); // [n, M_β]
        let mut mean = matmul(kfb.clone(), post.w.clone())?;
        if let Some((z, a)) = &post.gamma {
            mean = mean + matmul(self.kernel.k(x.clone(), z.clone()), a.clone())?;
        }
        let kdiag = self.kernel.k_diag(x).reshape([n, 1]);
        let explained = row_sums(kfb * pt.clone());
        let spread = row_sums(matmul(pt, post.l_s.clone())?.powi_scalar(2));
        let var = (kdiag - explained + spread).clamp_min(1e-12);
        Ok(Marginals { mean, var, projection })
    }

    /// `KL[q(f) ‖ p(f)]` `[1]`.
    pub fn kl_divergence(&self) -> Result<Tensor<1>> {
        Self::kl_of(self.posterior(true)?)
    }

    fn kl_of(post: Posterior) -> Result<Tensor<1>> {
        post.kl.ok_or_else(|| Error::invalid("posterior", "built without its KL divergence"))
    }

    /// Marginals of the latent `q(f(x))`: mean and variance `[n, 1]`, computed in chunks of rows
    /// whose temporaries hold at most 2²² cells each, so memory is bounded by the chunk, not by n;
    /// the chunk size does not change a bit of the result.
    pub fn predict_f(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let chunk = crate::models::prediction_chunk(self.num_beta().max(self.num_gamma()));
        self.predict_f_chunked(x, chunk)
    }

    /// As [`predict_f`](Self::predict_f) in chunks of `chunk` rows.
    pub fn predict_f_chunked(&self, x: Tensor<2>, chunk: usize) -> Result<(Tensor<2>, Tensor<2>)> {
        check_inputs("DecoupledGp::predict_f_chunked", &x, self.kernel.input_dim())?;
        let post = self.posterior(false)?;
        crate::models::in_row_chunks(&x, chunk, |rows| self.marginals(&post, rows).map(|m| (m.mean, m.var)))
    }

    /// Predictive mean and variance of `y` at `x` (class probabilities for classifiers).
    pub fn predict_y(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        self.predict_f(x).map(|(m, v)| self.likelihood.predict_mean_and_var(m, v))
    }

    /// `log p(yᵢ | data)` per test point `[n]`, on the host.
    pub fn predict_log_density(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Vec<f64>> {
        self.predict_f(x).map(|(m, v)| crate::tensors::to_vec(self.likelihood.predict_log_density(m, v, y)))
    }

    /// The expected log-likelihood of a batch, scaled by `N/|B|` `[1]`.
    pub fn expected_log_likelihood(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let post = self.posterior(false)?;
        self.scaled_ell(&post, x, y)
    }

    fn scaled_ell(&self, post: &Posterior, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let n = check_inputs("DecoupledGp::elbo", &x, self.kernel.input_dim())?;
        check_targets("DecoupledGp::elbo", &y, n, 1)?;
        let m = self.marginals(post, x)?;
        let ve = self.likelihood.variational_expectations(m.mean, m.var, y).sum();
        Ok(ve.mul_scalar(self.num_data as f64 / n as f64))
    }

    /// The (minibatch) evidence lower bound `[1]`: `N/|B| Σ_{n∈B} E_q[log p(y_n|f_n)] − KL`.
    pub fn elbo(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let post = self.posterior(true)?;
        let ell = self.scaled_ell(&post, x, y)?;
        Ok(ell - Self::kl_of(post)?)
    }

    /// `−ELBO / N` on rows `idx` of the full training tensors: the loss the trainer minimises.
    pub fn minibatch_loss(&self, x: &Tensor<2>, y: &Tensor<2>, idx: &[usize]) -> Result<Tensor<1>> {
        let elbo = self.elbo(select_rows(x, idx), select_rows(y, idx))?;
        Ok(elbo.neg().div_scalar(self.num_data as f64))
    }
}

impl<K: Kernel, I: InducingVariables<K>> DecoupledGp<K, I, Gaussian> {
    /// The predictive distribution of `y` at `x` on the host (noise included), as every
    /// regression model gives it.
    pub fn predict(&self, x: Tensor<2>) -> Result<crate::models::GaussianPredictive> {
        let (mean, var) = self.predict_y(x)?;
        crate::models::GaussianPredictive::from_tensors(mean, var)
    }
}
