//! [`FullEpClassifier`]: a GP binary classifier (probit) whose posterior over all training latents
//! is found by expectation propagation, one site per point (Rasmussen & Williams 2006, §3.6): the
//! "GP-EP" baseline of the skew GP paper, without inducing points.
use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use faer::MatRef;

use super::posterior::FullEpPosterior;
use crate::error::Result as GpResult;
use crate::kernels::Kernel;
use crate::models::ep::{EpMode, EpSchedule, EpSites};
use crate::tensors::to_vec;

/// A full-EP GP classifier: latent `f ~ GP(0, k)` with `jitter` added to the training covariance
/// `K`, `p(y = ±1 | f) = Φ(y f)`, built by [`FullEpClassifierConfig::init`]. The model holds the
/// trainable kernel and, once [`fit`](Self::fit) has run, its training inputs, sites and posterior.
/// Every step costs `O(n³)`: for thousands of points use [`crate::models::EpGpClassifier`] with
/// inducing points instead.
#[derive(Module, Debug)]
pub struct FullEpClassifier<K: Module> {
    /// The covariance function `k`.
    pub kernel: K,
    /// Added to the diagonal of the training covariance `K`.
    pub jitter: f64,
    /// The training inputs, sites and posterior of the last fit (not a Burn parameter: kept by
    /// [`SavedModel`](crate::saved::SavedModel)).
    #[module(skip)]
    pub(crate) fitted: Option<FullEpFitted>,
    /// The EP schedule [`fit`](Self::fit) follows (from [`FullEpClassifierConfig`]).
    #[module(skip)]
    pub(crate) schedule: EpSchedule,
}

/// What a fit leaves in a [`FullEpClassifier`] beside its kernel.
#[derive(Clone, Debug)]
pub(crate) struct FullEpFitted {
    /// Training inputs `[n, d]`, row-major.
    pub(crate) x: Vec<f64>,
    /// Input columns `d`.
    pub(crate) d: usize,
    /// One site per training point.
    pub(crate) sites: EpSites,
    /// Site updates skipped over the run because the cavity was improper.
    pub(crate) skipped: usize,
    /// `q(f)` at the final kernel.
    pub(crate) posterior: FullEpPosterior,
    /// `log Z_EP` at the final kernel and sites.
    pub(crate) log_marginal_likelihood: f64,
}

impl FullEpFitted {
    /// The state of a fit on the training inputs `x` `[n, d]` (kept on the host).
    pub(crate) fn new(
        x: &Tensor<2>,
        sites: EpSites,
        skipped: usize,
        posterior: FullEpPosterior,
        log_marginal_likelihood: f64,
    ) -> Self {
        Self { x: to_vec(x.clone().detach()), d: x.dims()[1], sites, skipped, posterior, log_marginal_likelihood }
    }
}

/// Settings of a [`FullEpClassifier`] (a Burn [`Config`](burn::config::Config)): its jitter and
/// EP schedule. The optimiser, learning rate, steps (`epochs`), progress bar and checkpoints are
/// the [`TrainConfig`](crate::train::TrainConfig) given to [`fit`](FullEpClassifier::fit);
/// [`paper_train_config`](Self::paper_train_config) gives the sparse EP paper's batch settings.
#[derive(burn::config::Config, Debug)]
pub struct FullEpClassifierConfig {
    /// Added to the diagonal of the training covariance `K` (≥ 0).
    #[config(default = 1e-6)]
    pub jitter: f64,
    /// The EP schedule: [`EpMode::Inner`] (one EP pass per step, the default) or
    /// [`EpMode::Outer`] (EP to convergence before every step); [`EpMode::Minibatch`] is refused
    /// by `fit`.
    #[config(default = "EpSchedule::new()")]
    pub schedule: EpSchedule,
}

impl FullEpClassifierConfig {
    /// The classifier with `kernel`; a negative or non-finite jitter, or a damping outside
    /// `(0, 1]`, is [`Error::InvalidArgument`](crate::Error::InvalidArgument).
    pub fn init<K: Kernel>(&self, kernel: K) -> GpResult<FullEpClassifier<K>> {
        let schedule = self.schedule.checked()?;
        Ok(FullEpClassifier { schedule, ..FullEpClassifier::new(kernel, self.jitter)? })
    }

    /// The config with the schedule's mode `mode`.
    pub fn with_mode(self, mode: EpMode) -> Self {
        Self { schedule: self.schedule.with_mode(mode), ..self }
    }

    /// The batch settings of the sparse EP paper (250 sign-adaptive steps, initial step 10⁻²,
    /// learning rate 1), as [`EpGpClassifierConfig::paper_train_config`](crate::models::EpGpClassifierConfig::paper_train_config).
    pub fn paper_train_config(&self) -> crate::train::TrainConfig {
        self.schedule.paper_train_config()
    }
}

impl<K: Kernel> FullEpClassifier<K> {
    /// A classifier from a kernel and the jitter on the training covariance (≥ 0, finite), with
    /// [`FullEpClassifierConfig`]'s default EP schedule.
    pub fn new(kernel: K, jitter: f64) -> GpResult<Self> {
        crate::error::check_non_negative("jitter", jitter)?;
        Ok(Self { kernel, jitter, fitted: None, schedule: EpSchedule::new() })
    }

    /// `K = k(x, x) + jitter·I` `[n, n]` (differentiable in the kernel's parameters).
    pub fn training_covariance(&self, x: &Tensor<2>) -> Tensor<2> {
        let n = x.dims()[0];
        self.kernel.k(x.clone(), x.clone()) + Tensor::<2>::eye(n, &x.device()).mul_scalar(self.jitter)
    }

    /// The objective whose gradient is `∂log Z_EP/∂θ` with `sites` held fixed on the rows of `x`
    /// (R&W eq. 5.27): `½ Σ_ij G_ij K_ij(θ)` with `G = bbᵀ − S^½B⁻¹S^½` of the posterior at the
    /// current `K` held constant (its value is not `log Z_EP`).
    pub fn fixed_site_objective(&self, x: &Tensor<2>, sites: &EpSites) -> GpResult<Tensor<1>> {
        let k = self.training_covariance(x);
        let host = HostCovariance::of(&k);
        self.fixed_site_objective_at(k, host.view(), sites)
    }

    /// [`Self::fixed_site_objective`] from `K` and its host copy `kv`.
    pub(crate) fn fixed_site_objective_at(
        &self,
        k: Tensor<2>,
        kv: MatRef<'_, f64>,
        sites: &EpSites,
    ) -> GpResult<Tensor<1>> {
        let n = kv.nrows();
        let g = FullEpPosterior::new(kv, sites)?.gradient_weights();
        let g = Tensor::<2>::from_data(TensorData::new(g, [n, n]), &k.device());
        Ok((k * g).sum().mul_scalar(0.5))
    }
}

/// The host copy of a training covariance `K` `[n, n]` (row-major).
pub(crate) struct HostCovariance {
    values: Vec<f64>,
    n: usize,
}

impl HostCovariance {
    /// Reads `k` back to the host.
    pub(crate) fn of(k: &Tensor<2>) -> Self {
        Self { values: to_vec(k.clone().detach()), n: k.dims()[0] }
    }

    /// `K` as a faer view.
    pub(crate) fn view(&self) -> MatRef<'_, f64> {
        MatRef::from_row_major_slice(&self.values, self.n, self.n)
    }
}
