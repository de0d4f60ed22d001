//! [`EpGpClassifier`]: a sparse GP binary classifier (probit) whose posterior over the inducing
//! values is found by expectation propagation, one rank-one site per data point (Hernández-Lobato
//! & Hernández-Lobato, "Scalable Gaussian process classification via expectation propagation").
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};
use faer::{Mat, MatRef, Par};

use super::config::EpGpClassifierConfig;
use super::posterior::{Fitc, WhitenedPosterior};
use super::state::EpState;
use crate::error::{check_positive, Error, Result};
use crate::inducing::InducingPoints;
use crate::kernels::Kernel;
use crate::linalg::host::solve_lower_in_place;
use crate::linalg::{cholesky, logdet_from_cholesky, matmul_transposed, solve_triangular, Triangle};
use crate::models::check_inputs;
use crate::special::log_ndtr as log_ndtr_scalar;
use crate::special::tensor::log_ndtr;
use crate::tensors::to_vec;

/// A sparse EP GP classifier: latent `f ~ GP(0, k + σ0²δ)`, `p(y = ±1 | f) = Φ(y f)`, inducing
/// inputs `Z`. Built by [`EpGpClassifierConfig::init`](super::EpGpClassifierConfig::init); the model holds the trainable pieces
/// (kernel, `Z`, `log σ0²`) and, once [`fit`](Self::fit) has run, its EP sites and `q(u)`, so
/// [`predict`](Self::predict) answers from the trained posterior (before `fit`: from the prior).
///
/// The additive noise σ0² (the paper's "additive noise parameter") is added to the diagonal of
/// `K_uu` and to the prior variances `k_ii`, `k_**`, never to cross-covariances; `jitter` is added
/// to `K_uu` on top of it.
#[derive(Module, Debug)]
pub struct EpGpClassifier<K: Module> {
    /// The covariance function `k`.
    pub kernel: K,
    /// The inducing inputs `Z` `[m, d]`.
    pub inducing: InducingPoints,
    /// `log σ0²` `[1]`.
    pub log_noise: Param<Tensor<1>>,
    /// Extra jitter on the diagonal of `K_uu`.
    pub jitter: f64,
    /// The EP state and `q(u)` of the last fit (not a Burn parameter: kept by [`SavedModel`](crate::saved::SavedModel)).
    #[module(skip)]
    pub(crate) fitted: Option<EpFitted>,
    /// The EP schedule, sharding and evaluation interval [`fit`](Self::fit) follows (its
    /// [`EpGpClassifierConfig`]).
    #[module(skip)]
    pub(crate) settings: EpGpClassifierConfig,
}

/// What a fit leaves in an [`EpGpClassifier`] beside its parameters.
#[derive(Clone, Debug)]
pub(crate) struct EpFitted {
    /// Sites (and, in minibatch mode, stored directions and sums).
    pub(crate) state: EpState,
    /// `q(u)` at the final hyperparameters.
    pub(crate) posterior: WhitenedPosterior,
    /// `log Z_q` on the training data at the end (batch modes).
    pub(crate) log_marginal_likelihood: Option<f64>,
}

/// The detached quantities of `q` and of the sites that the surrogate objective takes as constants
/// (`docs/papers/001-ep-classification.md`, section "Surrogate objective"): `μ̄`, `R̄` (`Σ̄ = R̄R̄ᵀ`)
/// and, per point, `w̄_i = Σ̄υ_i^{st}`, `κ̄_i`, `C̄_i`.
#[derive(Clone, Debug)]
pub struct FrozenPosterior {
    /// `μ̄` `[m]`.
    pub mu: Vec<f64>,
    /// `R̄` `[m, m]` row-major.
    pub r: Vec<f64>,
    /// `w̄_i` as columns `[m, b]` row-major.
    pub w: Vec<f64>,
    /// `κ̄_i` `[b]`.
    pub kappa: Vec<f64>,
    /// `C̄_i` `[b]`.
    pub cfac: Vec<f64>,
}

/// The kernel matrices of one training step on a batch, tracked for autodiff: `K_uu` (σ0² and
/// jitter on its diagonal), `K_uf` and `diag K_ff + σ0²`. Built once per step and shared by the
/// site updates (through their detached host copies) and the surrogate objective.
pub(crate) struct StepKernels {
    kuu: Tensor<2>,
    kuf: Tensor<2>,
    kdiag: Tensor<1>,
}

impl<K: Kernel> EpGpClassifier<K> {
    /// A classifier from a kernel, inducing points and the initial σ0² (> 0), with
    /// [`EpGpClassifierConfig`]'s default EP schedule (batch SEP).
    pub fn new(kernel: K, inducing: InducingPoints, noise: f64, jitter: f64, device: &Device) -> Result<Self> {
        check_positive("noise", noise)?; // σ0²
        crate::error::check_non_negative("jitter", jitter)?;
        let log_noise = Tensor::<1>::from_data(TensorData::new(vec![noise.ln()], [1]), device);
        Ok(Self {
            kernel,
            inducing,
            log_noise: Param::from_tensor(log_noise),
            jitter,
            fitted: None,
            settings: EpGpClassifierConfig::new().with_noise(noise).with_jitter(jitter),
        })
    }
    /// The model with the EP schedule of `config` (mode, damping, EP tolerance and passes,
    /// shards, `evaluate_every`) in place of its own, for its next [`fit`](Self::fit); its
    /// parameters, noise and jitter are kept (e.g. to go on training a fitted model in another
    /// mode). Invalid settings are [`Error::InvalidArgument`].
    pub fn with_ep_schedule(self, config: &EpGpClassifierConfig) -> Result<Self> {
        Ok(Self { settings: config.checked()?, ..self })
    }
    /// Number of inducing points m.
    pub fn num_inducing(&self) -> usize {
        self.inducing.z().dims()[0]
    }
    /// Input dimension d.
    pub fn input_dim(&self) -> usize {
        self.inducing.z().dims()[1]
    }
    /// σ0² (differentiable) `[1]`.
    pub fn noise(&self) -> Tensor<1> {
        self.log_noise.val().exp()
    }
    /// `K_uu = k(Z, Z) + (σ0² + jitter) I` (differentiable).
    pub fn kuu(&self) -> Tensor<2> {
        let z = self.inducing.z();
        let m = z.dims()[0];
        let eye = Tensor::<2>::eye(m, &z.device());
        let diag = self.noise().add_scalar(self.jitter).unsqueeze::<2>();
        self.kernel.k(z.clone(), z) + eye * diag
    }
    /// `L = chol(K_uu)` on the host.
    pub(crate) fn chol_kuu(&self) -> Result<Mat<f64>> {
        let m = self.num_inducing();
        let kuu = to_vec(self.kuu().detach());
        crate::linalg::host::cholesky_lower(&kuu, m).ok_or(Error::NotPositiveDefinite {
            n: m,
            jitter: self.jitter,
            batch: 0,
        })
    }
    /// The FITC quantities (`L`, `Ψ`, `s`) of the rows of `x` at the current hyperparameters, on the
    /// host.
    pub fn fitc(&self, x: &Tensor<2>) -> Result<Fitc> {
        check_inputs("EpGpClassifier::fitc", x, Some(self.input_dim()))?;
        self.fitc_of(&self.step_kernels(x))
    }

    /// [`StepKernels`] of the rows of `x` (checked by the caller).
    pub(crate) fn step_kernels(&self, x: &Tensor<2>) -> StepKernels {
        StepKernels {
            kuu: self.kuu(),
            kuf: self.kernel.k(self.inducing.z(), x.clone()),
            kdiag: self.kernel.k_diag(x.clone()) + self.noise(),
        }
    }

    /// The FITC quantities from a step's kernel matrices (their host copies).
    pub(crate) fn fitc_of(&self, k: &StepKernels) -> Result<Fitc> {
        let host = |t: &Tensor<2>| to_vec(t.clone().detach());
        Fitc::new(&host(&k.kuu), &host(&k.kuf), &to_vec(k.kdiag.clone().detach()), self.num_inducing())
    }

    /// The surrogate objective `L̃(ξ)` (`docs/papers/001-ep-classification.md`, section "Surrogate
    /// objective") on the rows `x` `[b, d]`, labels `y` `[b]` (±1):
    /// `E_q̄[log N(u | 0, K_uu)] + scale · Σ_i log Φ(y_i a_i(ξ)/√b_i(ξ))`, with everything in
    /// `frozen` held constant. Its gradient is the paper's eq. 4 (eq. 6 with `scale = n/|B|`).
    pub fn surrogate(&self, x: Tensor<2>, y: &[f64], frozen: &FrozenPosterior, scale: f64) -> Result<Tensor<1>> {
        check_inputs("EpGpClassifier::surrogate", &x, Some(self.input_dim()))?;
        self.surrogate_at(self.step_kernels(&x), y, frozen, scale)
    }

    /// [`Self::surrogate`] from a step's kernel matrices: one Cholesky factor of `K_uu` for both
    /// terms.
    pub(crate) fn surrogate_at(
        &self,
        k: StepKernels,
        y: &[f64],
        frozen: &FrozenPosterior,
        scale: f64,
    ) -> Result<Tensor<1>> {
        let l = cholesky(k.kuu)?;
        Ok(self.prior_term(l.clone(), frozen)? + self.likelihood_term(l, k.kuf, k.kdiag, y, frozen, scale)?)
    }

    /// The prior part of [`Self::surrogate`]: `−Σ log L_jj − ½‖L⁻¹R̄‖² − ½‖L⁻¹μ̄‖²` (the constant
    /// `−(m/2) log 2π` left out), whose gradient is the paper's `−½ tr(M ∂K_uu/∂ξ)`.
    pub(crate) fn surrogate_prior(&self, frozen: &FrozenPosterior) -> Result<Tensor<1>> {
        self.prior_term(cholesky(self.kuu())?, frozen)
    }

    /// [`Self::surrogate_prior`] given `L = chol(K_uu)`.
    fn prior_term(&self, l: Tensor<2>, frozen: &FrozenPosterior) -> Result<Tensor<1>> {
        let m = self.num_inducing();
        if frozen.mu.len() != m || frozen.r.len() != m * m {
            return Err(Error::shape("EpGpClassifier::surrogate_prior: frozen posterior", m, frozen.mu.len()));
        }
        let device = self.inducing.z().device();
        let mu_r = Tensor::<2>::from_data(
            TensorData::new(
                (0..m)
                    .flat_map(|r| std::iter::once(frozen.mu[r]).chain(frozen.r[r * m..(r + 1) * m].iter().copied()))
                    .collect::<Vec<_>>(),
                [m, m + 1],
            ),
            &device,
        );
        let whitened = solve_triangular(l.clone(), mu_r, Triangle::Lower, false)?;
        Ok(logdet_from_cholesky(l).mul_scalar(-0.5) - whitened.powi_scalar(2).sum().mul_scalar(0.5))
    }

    /// The data part of [`Self::surrogate`]: `scale · Σ_i log Φ(y_i a_i(ξ)/√b_i(ξ))` over the rows
    /// of `x`; summing it over shards of the data gives the full-data term.
    pub(crate) fn surrogate_likelihood(
        &self,
        x: Tensor<2>,
        y: &[f64],
        frozen: &FrozenPosterior,
        scale: f64,
    ) -> Result<Tensor<1>> {
        check_inputs("EpGpClassifier::surrogate", &x, Some(self.input_dim()))?;
        let k = self.step_kernels(&x);
        self.likelihood_term(cholesky(k.kuu)?, k.kuf, k.kdiag, y, frozen, scale)
    }

    /// [`Self::surrogate_likelihood`] given `L = chol(K_uu)`, `K_uf` `[m, b]` and `diag K_ff + σ0²`.
    fn likelihood_term(
        &self,
        l: Tensor<2>,
        kuf: Tensor<2>,
        kdiag: Tensor<1>,
        y: &[f64],
        frozen: &FrozenPosterior,
        scale: f64,
    ) -> Result<Tensor<1>> {
        let [m, b] = kuf.dims();
        let device = kuf.device();
        if y.len() != b || frozen.kappa.len() != b || frozen.w.len() != m * b || frozen.r.len() != m * m {
            return Err(Error::shape("EpGpClassifier::surrogate: labels / frozen posterior", b, y.len()));
        }
        let t2 = |v: &[f64], r: usize, c: usize| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [r, c]), &device);
        let t1 = |v: &[f64]| Tensor::<1>::from_data(TensorData::new(v.to_vec(), [v.len()]), &device);
        let psi = solve_triangular(l.clone(), kuf, Triangle::Lower, false)?;
        let ups = solve_triangular(l, psi.clone(), Triangle::Lower, true)?; // υ_i as columns
        let col_sum = |t: Tensor<2>| t.sum_dim(0).reshape([b]);
        let s = (kdiag - col_sum(psi.powi_scalar(2))).clamp_min(0.0);
        let r = col_sum(ups.clone() * t2(&frozen.w, m, b));
        let a = col_sum(ups.clone() * t2(&frozen.mu, m, 1)) + r.clone() * t1(&frozen.kappa);
        let rt_ups = matmul_transposed(t2(&frozen.r, m, m), ups, true, false)?;
        let c = col_sum(rt_ups.powi_scalar(2)) + r.powi_scalar(2) * t1(&frozen.cfac);
        let z = t1(y) * a / (s + c).add_scalar(1.0).sqrt();
        Ok(log_ndtr(z).sum().mul_scalar(scale))
    }

    /// Latent predictive mean `m*` and variance `s*` (σ0² included) at the rows of `x` under the
    /// posterior `q` (paper eqs. 36–37, in the stable form of `docs/papers/001-ep-classification.md`,
    /// section "Whitened form"): `m* = ψ*ᵀL_B⁻ᵀβ`, `s* = k** − ‖ψ*‖² + ‖L_B⁻¹ψ*‖²`. The model's own
    /// posterior: [`Self::predict_f`].
    ///
    /// The rows go through in chunks whose `[m, rows]` host matrices hold at most 2²² cells, so
    /// memory is bounded by the chunk, not by the number of rows.
    pub fn predict_latent_with(&self, x: &Tensor<2>, q: &WhitenedPosterior) -> Result<(Vec<f64>, Vec<f64>)> {
        let n = check_inputs("EpGpClassifier::predict_latent", x, Some(self.input_dim()))?;
        // without autodiff: with the trained (autodiff) model every chunk's kernel matrices were
        // recorded for a backward pass that never comes, and kept (measured: 43 MB more resident
        // memory per chunk of 40 000 rows, 1.2 GB over 10⁶ rows, at m = 100)
        let model = self.clone().valid();
        let x = match x.device().is_autodiff() {
            true => x.clone().inner(),
            false => x.clone(),
        };
        let chunk = crate::models::prediction_chunk(self.num_inducing());
        let (mut mean, mut var) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (start, len) in crate::models::row_blocks(n, chunk) {
            let rows = x.clone().narrow(0, start, len);
            let (m, v) = model.latent_of_rows(&rows, q)?;
            mean.extend(m);
            var.extend(v);
        }
        Ok((mean, var))
    }

    /// [`Self::predict_latent_with`] of the rows of `x` in one piece.
    fn latent_of_rows(&self, x: &Tensor<2>, q: &WhitenedPosterior) -> Result<(Vec<f64>, Vec<f64>)> {
        let fitc = self.fitc(x)?;
        if q.beta.len() != fitc.num_inducing() {
            return Err(Error::shape(
                "EpGpClassifier::predict_latent: posterior size",
                fitc.num_inducing(),
                q.beta.len(),
            ));
        }
        let n = fitc.len();
        let wm = q.whitened_mean();
        let mut g: Mat<f64> = fitc.psi.clone();
        solve_lower_in_place(q.lb.as_ref(), g.as_mut(), Par::Seq);
        let psi: MatRef<'_, f64> = fitc.psi.as_ref();
        let mean = (0..n).map(|i| psi.col(i).iter().zip(&wm).map(|(a, b)| a * b).sum()).collect();
        // s_i = k_ii − ‖ψ_i‖² (already in fitc.s), plus ‖L_B⁻¹ψ_i‖²
        let var = (0..n).map(|i| fitc.s[i] + g.col(i).iter().map(|v| v * v).sum::<f64>()).collect();
        Ok((mean, var))
    }

    /// `p(class 1 | x) = Φ(m*/√(1 + s*))` at the rows of `x` under the posterior `q`.
    pub fn predict_proba_with(&self, x: &Tensor<2>, q: &WhitenedPosterior) -> Result<Vec<f64>> {
        let (m, v) = self.predict_latent_with(x, q)?;
        Ok(crate::models::probit_probabilities(&m, &v))
    }

    /// `log p(y_i | x_i)` for class labels in `{0, 1}` under the posterior `q`, by the stable
    /// log-CDF.
    pub fn predict_log_density_with(&self, x: &Tensor<2>, labels: &[usize], q: &WhitenedPosterior) -> Result<Vec<f64>> {
        let (m, v) = self.predict_latent_with(x, q)?;
        let y = crate::data::binary_signs("EpGpClassifier::predict_log_density", labels, m.len())?;
        Ok(m.iter().zip(&v).zip(y).map(|((m, v), y)| log_ndtr_scalar(y * m / (1.0 + v).sqrt())).collect())
    }
}

impl<K: Kernel> EpGpClassifier<K> {
    /// `q(u)` of the last [`fit`](Self::fit) (`None` before one).
    pub fn posterior(&self) -> Option<&WhitenedPosterior> {
        self.fitted.as_ref().map(|f| &f.posterior)
    }
    /// The EP sites of the last fit (with minibatch mode's stored directions), and the count of
    /// skipped site updates (`None` before a fit).
    pub fn ep_state(&self) -> Option<&EpState> {
        self.fitted.as_ref().map(|f| &f.state)
    }
    /// `log Z_q` on the training data at the end of the last fit (batch modes; `None` in minibatch
    /// mode, where only minibatch estimates exist during training, and before a fit).
    pub fn log_marginal_likelihood(&self) -> Option<f64> {
        self.fitted.as_ref().and_then(|f| f.log_marginal_likelihood)
    }
    /// The model conditioned on EP `sites` of the rows of `x` `[n, d]` with class labels in
    /// `{0, 1}` (sites found outside [`fit`](Self::fit), e.g. by [`super::run_ep`] at fixed
    /// hyperparameters): `q(u)` and `log Z_q` from the sites along the current directions
    /// (O(nm²)).
    pub fn with_sites(self, x: &Tensor<2>, labels: &[usize], sites: super::EpSites) -> Result<Self> {
        let n = check_inputs("EpGpClassifier::with_sites", x, Some(self.input_dim()))?;
        let y = crate::data::binary_signs("EpGpClassifier::with_sites", labels, n)?;
        if sites.nu.len() != n || sites.mu.len() != n {
            return Err(Error::shape("EpGpClassifier::with_sites: sites vs rows", n, sites.nu.len()));
        }
        let fitc = self.fitc(x)?;
        let posterior = WhitenedPosterior::from_sites(&fitc, &sites.nu, &sites.mu)?;
        let log_z = super::log_z_q(&fitc, &y, &sites)?;
        let mut state = EpState::new(n, self.num_inducing(), false);
        state.sites = sites;
        Ok(self.with_fitted(state, posterior, Some(log_z)))
    }
    /// The model with EP state `state` and its posterior `posterior` (what a fit leaves).
    pub(crate) fn with_fitted(
        mut self,
        state: EpState,
        posterior: WhitenedPosterior,
        log_marginal_likelihood: Option<f64>,
    ) -> Self {
        self.fitted = Some(EpFitted { state, posterior, log_marginal_likelihood });
        self
    }
    /// The trained posterior, or the prior before a fit.
    fn posterior_or_prior(&self) -> Result<std::borrow::Cow<'_, WhitenedPosterior>> {
        match self.posterior() {
            Some(q) => Ok(std::borrow::Cow::Borrowed(q)),
            None => Ok(std::borrow::Cow::Owned(WhitenedPosterior::prior(self.num_inducing())?)),
        }
    }
    /// Latent predictive means and variances (σ0² included) at the rows of `x` `[n*, d]`, each
    /// `[n*, 1]` on `x`'s device, under the model's posterior (the prior before a fit).
    pub fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let (m, v) = self.predict_latent_with(x, &*self.posterior_or_prior()?)?;
        crate::models::latent_columns(m, v, &x.device())
    }
    /// The predictive at the rows of `x`: latent marginals, exact probit class probabilities,
    /// decisions and their metrics (see [`ClassPredictive::probit`](crate::models::ClassPredictive::probit)).
    pub fn predict(&self, x: &Tensor<2>) -> Result<crate::models::ClassPredictive> {
        let (m, v) = self.predict_latent_with(x, &*self.posterior_or_prior()?)?;
        crate::models::ClassPredictive::probit(&m, &v)
    }
    /// `p(class 1 | x)` at the rows of `x`.
    pub fn predict_proba(&self, x: &Tensor<2>) -> Result<Vec<f64>> {
        self.predict_proba_with(x, &*self.posterior_or_prior()?)
    }
    /// `log p(y_i | x_i)` for class labels in `{0, 1}`.
    pub fn predict_log_density(&self, x: &Tensor<2>, labels: &[usize]) -> Result<Vec<f64>> {
        self.predict_log_density_with(x, labels, &*self.posterior_or_prior()?)
    }
}
