//! Sparse variational GP (Hensman et al. 2013, 2015): the shared sparse model.
//!
//! Whitened parametrisation: `u = L_uu v`, `q(v) = N(m, S)`, `S = L_q L_qᵀ` per latent GP, with
//! `L_uu = chol(K_uu + jitter·I)`. The minibatch ELBO is
//! `N/|B| Σ_{i∈B} E_q[log p(yᵢ|fᵢ)] − Σ_p KL(q(v_p) ‖ N(0, I))`.
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (60, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let y: Vec<f64> = x.chunks(d).map(|r| (r[0] + r[1]).sin()).collect();
//! let device = default_device()?;
//! let train = device.clone().autodiff();
//! let inducing = burn_gp::inducing::InducingPoints::new(&x[..10 * d], 10, d, &train)?;
//! let noise = burn_gp::likelihoods::Gaussian::new(0.1, &train)?;
//! let model = SvgpConfig::new(n).init(Rbf::ard(d, 1.0, 1.0, &train)?, inducing, noise, &train)?;
//! let (xt, yt) = (matrix(x.clone(), n, d, &train)?, matrix(y.clone(), n, 1, &train)?);
//! let config = TrainConfig::new().with_epochs(5).with_batch_size(20).with_progress(false);
//! let (model, _history) = model.fit(&xt, &yt, &config)?;
//! let (model, xs) = (model.valid(), matrix(x, n, d, &device)?);
//! let pred = model.predict(xs.clone())?; // GaussianPredictive
//! println!("RMSE {:.3}, mean log density {:.3}", pred.rmse(&y)?, pred.mean_log_density(&y)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-svgp.bgp");
//! model.save(&path)?; // description and weights in one file
//! let back = Svgp::<Rbf, burn_gp::inducing::InducingPoints, burn_gp::likelihoods::Gaussian>::load(&path, &device)?;
//! assert_eq!(back.predict(xs)?, pred); // bit for bit
//! # Ok(())
//! # }
//! ```
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

use super::batch::select_rows;
use super::checks::{check_inputs, check_targets};
use super::svgp_config::SvgpConfig;
use super::{ClassPredictive, GaussianPredictive};
use crate::error::{check_positive, Error, Result};
use crate::inducing::InducingVariables;
use crate::kernels::Kernel;
use crate::likelihoods::{BernoulliProbit, Gaussian, Likelihood, Targets};
use crate::linalg::{cholesky, matmul, row_sums, solve_lower_right, solve_triangular, tri_inverse, Triangle};
use crate::tensors::matrix;
use crate::train::{fit, History, TrainConfig};

/// A sparse variational GP `f ~ GP(0, k)` with inducing variables `I` and likelihood `L`.
#[derive(Module, Debug)]
pub struct Svgp<K: Kernel, I: InducingVariables<K>, L: Likelihood> {
    /// Covariance function.
    pub kernel: K,
    /// Inducing variables (points or features).
    pub inducing: I,
    /// Likelihood.
    pub likelihood: L,
    /// Whitened variational means `[P, M]`.
    pub q_mu: Param<Tensor<2>>,
    /// Whitened variational Cholesky factors `[P, M, M]` (upper triangle ignored).
    pub q_sqrt: Param<Tensor<3>>,
    /// Number of training points.
    pub num_data: usize,
    /// Jitter on `K_uu`'s diagonal.
    pub jitter: f64,
}

impl SvgpConfig {
    /// Builds the model with `q(v) = N(m, L_q L_qᵀ)`, `m ~ N(0, q_mu_init_std²)` (zeros by default),
    /// `L_q = q_sqrt_init · I` (the prior by default).
    pub fn init<K: Kernel, I: InducingVariables<K>, L: Likelihood>(
        &self,
        kernel: K,
        inducing: I,
        likelihood: L,
        device: &Device,
    ) -> Result<Svgp<K, I, L>> {
        if self.num_data == 0 {
            return Err(Error::invalid("num_data", "must be positive"));
        }
        if self.num_latent == 0 {
            return Err(Error::invalid("num_latent", "must be positive"));
        }
        crate::error::check_non_negative("jitter", self.jitter)?;
        check_positive("q_sqrt_init", self.q_sqrt_init)?;
        let m = inducing.num_inducing();
        let p = self.num_latent;
        crate::error::check_non_negative("q_mu_init_std", self.q_mu_init_std)?;
        let q_mu = if self.q_mu_init_std > 0.0 {
            let mut rng = StdRng::seed_from_u64(self.seed);
            let normal =
                Normal::new(0.0, self.q_mu_init_std).map_err(|e| Error::invalid("q_mu_init_std", e.to_string()))?;
            let values: Vec<f64> = (0..p * m).map(|_| normal.sample(&mut rng)).collect();
            matrix(values, p, m, device)?
        } else {
            Tensor::<2>::zeros([p, m], device)
        };
        let eye = Tensor::<2>::eye(m, device).mul_scalar(self.q_sqrt_init);
        let q_sqrt = eye.unsqueeze::<3>().repeat_dim(0, p);
        Ok(Svgp {
            kernel,
            inducing,
            likelihood,
            q_mu: Param::from_tensor(q_mu),
            q_sqrt: Param::from_tensor(q_sqrt),
            num_data: self.num_data,
            jitter: self.jitter,
        })
    }
}

impl<K: Kernel, I: InducingVariables<K>, L: Likelihood> Svgp<K, I, L> {
    /// Number of inducing variables M.
    pub fn num_inducing(&self) -> usize {
        self.inducing.num_inducing()
    }
    /// Number of latent GPs P.
    pub fn num_latent(&self) -> usize {
        self.q_mu.val().dims()[0]
    }
    /// `L_q` with its upper triangle zeroed: `[P, M, M]`.
    pub(crate) fn q_sqrt_lower(&self) -> Tensor<3> {
        self.q_sqrt.val().tril(0)
    }
    /// `L_uu = chol(K_uu + jitter I)`.
    pub(crate) fn prior_factor(&self) -> Result<Tensor<2>> {
        cholesky(self.inducing.kuu(&self.kernel, self.jitter))
    }

    /// `KL(q(v) ‖ p(v))` summed over latent GPs: `[1]`.
    pub fn kl_divergence(&self) -> Tensor<1> {
        let m = self.num_inducing() as f64;
        let p = self.num_latent() as f64;
        let lq = self.q_sqrt_lower();
        let device = lq.device();
        let mm = lq.dims()[1];
        let diag = (lq.clone() * Tensor::<2>::eye(mm, &device).unsqueeze::<3>()).sum_dim(2); // [P, M, 1]
        let logdet = diag.powi_scalar(2).log().sum().reshape([1]);
        let trace = lq.powi_scalar(2).sum().reshape([1]);
        let maha = self.q_mu.val().powi_scalar(2).sum().reshape([1]);
        (trace + maha - logdet).sub_scalar(m * p).mul_scalar(0.5)
    }

    /// Marginals of `q(f(x))` given the prior factor: `([n, P], [n, P])`.
    ///
    /// With `Aᵀ = K_fu L_uu⁻ᵀ` `[n, M]`: mean `Aᵀ mᵀ`, variance
    /// `k(x, x) − ‖Aᵀ_i‖² + ‖(Aᵀ L_q)_i‖²`. Everything is laid out `[n, ·]` so the reductions run
    /// over contiguous rows.
    fn conditional(&self, x: Tensor<2>, luu: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let n = x.dims()[0];
        let p = self.num_latent();
        let m = self.num_inducing();
        let kfu = self.inducing.kfu(&self.kernel, x.clone());
        let at = solve_lower_right(luu, kfu, true)?; // K_fu L_uu⁻ᵀ [n, M], one triangular solve
        let mean = at.clone().matmul(self.q_mu.val().transpose()); // [n, P]
        let kdiag = self.kernel.k_diag(x).reshape([n, 1]);
        let prior_var = kdiag - row_sums(at.clone().powi_scalar(2)); // [n, 1]
        let lq = self.q_sqrt_lower();
        let q_var = if p == 1 {
            row_sums(matmul(at, lq.reshape([m, m]))?.powi_scalar(2)) // [n, 1]
        } else {
            let la = at.unsqueeze::<3>().matmul(lq); // [P, n, M]
            la.powi_scalar(2).sum_dim(2).reshape([p, n]).transpose() // [n, P]
        };
        let var = (prior_var + q_var).clamp_min(1e-12);
        Ok((mean, var))
    }

    /// Predictive marginals of the latent `f(x)`: mean and variance `[n, P]`, computed in chunks of
    /// rows whose temporaries hold at most 2²² cells each (M · P cells a row), so memory is bounded
    /// by the chunk, not by n; the chunk size does not change a bit of the result.
    pub fn predict_f(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let chunk = super::prediction_chunk(self.num_inducing() * self.num_latent());
        self.predict_f_chunked(x, chunk)
    }

    /// The marginals of `q(f(x))` in one piece (the training objective's; no chunks in the graph).
    fn latent_marginals(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let luu = self.prior_factor()?;
        self.conditional(x, luu)
    }

    /// As [`predict_f`](Self::predict_f) in chunks of `chunk` rows.
    pub fn predict_f_chunked(&self, x: Tensor<2>, chunk: usize) -> Result<(Tensor<2>, Tensor<2>)> {
        check_inputs("Svgp::predict_f_chunked", &x, self.kernel.input_dim())?;
        let luu = self.prior_factor()?;
        super::in_row_chunks(&x, chunk, |rows| self.conditional(rows, luu.clone()))
    }

    /// Predictive mean and variance of `y` at `x` (class probabilities for classifiers).
    pub fn predict_y(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let (m, v) = self.predict_f(x)?;
        Ok(self.likelihood.predict_mean_and_var(m, v))
    }

    /// `log p(yᵢ | data)` per test point `[n]`, on the host (by the likelihood's quadrature).
    pub fn predict_log_density(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Vec<f64>> {
        let (m, v) = self.predict_f(x)?;
        Ok(crate::tensors::to_vec(self.likelihood.predict_log_density(m, v, y)))
    }

    /// The (minibatch) evidence lower bound `[1]`: the batch's expected log-likelihood scaled by
    /// `N/|B|`, minus the KL divergence. Maximise it (minimise `-elbo`).
    pub fn elbo(&self, x: Tensor<2>, y: Tensor<2>) -> Result<Tensor<1>> {
        let n = check_inputs("Svgp::elbo", &x, self.kernel.input_dim())?;
        check_targets("Svgp::elbo", &y, n, self.num_latent())?;
        let (m, v) = self.latent_marginals(x)?;
        let ve = self.likelihood.variational_expectations(m, v, y).sum().reshape([1]);
        let scale = self.num_data as f64 / n as f64;
        Ok(ve.mul_scalar(scale) - self.kl_divergence())
    }

    /// `−ELBO / N` on rows `idx` of the full training tensors: the loss [`crate::train::fit`] minimises.
    pub fn minibatch_loss(&self, x: &Tensor<2>, y: &Tensor<2>, idx: &[usize]) -> Result<Tensor<1>> {
        let elbo = self.elbo(select_rows(x, idx), select_rows(y, idx))?;
        Ok(elbo.neg().div_scalar(self.num_data as f64))
    }
}

impl<K: Kernel, I: InducingVariables<K>> Svgp<K, I, Gaussian> {
    /// Sets `q(v)` to its optimum for a Gaussian likelihood given all the data (Titsias 2009):
    /// `S = (I + A Aᵀ/σ²)⁻¹`, `m = S A y / σ²` with `A = L_uu⁻¹ K_uf`. The ELBO then equals the
    /// collapsed bound, and the exact log marginal likelihood when `Z = X`.
    pub fn with_optimal_q(mut self, x: Tensor<2>, y: Tensor<2>) -> Result<Self> {
        let n = check_inputs("Svgp::with_optimal_q", &x, self.kernel.input_dim())?;
        let p = self.num_latent();
        check_targets("Svgp::with_optimal_q", &y, n, p)?;
        let device = x.device();
        let mm = self.num_inducing();
        let s2 = self.likelihood.variance.value().detach().unsqueeze::<2>(); // [1, 1]
        let luu = self.prior_factor()?.detach();
        let kuf = self.inducing.kuf(&self.kernel, x).detach();
        let a = solve_triangular(luu, kuf, Triangle::Lower, false)?; // [M, n]
        let prec = Tensor::<2>::eye(mm, &device) + a.clone().matmul(a.clone().transpose()) / s2.clone();
        let r = cholesky(prec)?;
        let r_inv = tri_inverse(r); // S = R⁻ᵀ R⁻¹
        let s = r_inv.clone().transpose().matmul(r_inv.clone());
        let mean = s.clone().matmul(a.matmul(y.detach()) / s2); // [M, P]
        let lq = cholesky(s)?;
        self.q_mu = Param::from_tensor(mean.transpose().detach());
        self.q_sqrt = Param::from_tensor(lq.unsqueeze::<3>().repeat_dim(0, p).detach());
        Ok(self)
    }
}

impl<K: Kernel, I: InducingVariables<K>> Svgp<K, I, BernoulliProbit> {
    /// The predictive at `x` `[n, d]` as every classifier gives it: latent marginals, the exact
    /// probit class probabilities `Φ(m/√(1 + v))`, decisions and their metrics (see
    /// [`ClassPredictive::probit`]).
    pub fn predict(&self, x: Tensor<2>) -> Result<ClassPredictive> {
        let (m, v) = self.predict_f(x)?;
        ClassPredictive::probit(&crate::tensors::to_vec(m), &crate::tensors::to_vec(v))
    }
}

impl<K: Kernel, I: InducingVariables<K>> Svgp<K, I, Gaussian> {
    /// The predictive distribution of `y` at `x` on the host (noise included), as every
    /// regression model gives it.
    pub fn predict(&self, x: Tensor<2>) -> Result<GaussianPredictive> {
        let (mean, var) = self.predict_y(x)?;
        GaussianPredictive::from_tensors(mean, var)
    }
}

impl<K: Kernel, I: InducingVariables<K>, L: Targets> Svgp<K, I, L> {
    /// Trains every parameter (kernel, inducing variables, likelihood, `q(u)`) by
    /// `config.optimizer` on minibatches of `x` `[n, d]` (on the model's autodiff device) and its
    /// targets: class indices `0..C` for a classifier, a `[n, outputs]` tensor for regression
    /// (see [`Targets`]).
    pub fn fit(self, x: &Tensor<2>, targets: &L::Targets, config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_evaluated(x, targets, config, |_, _| Ok(Vec::new()))
    }
    /// As [`fit`](Self::fit), with `evaluate(model, epoch)` after every epoch (on the model
    /// without autodiff) returning named metrics for the progress line and the [`History`].
    pub fn fit_evaluated<E>(
        self,
        x: &Tensor<2>,
        targets: &L::Targets,
        config: &TrainConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&Self, usize) -> Result<Vec<(String, f64)>>,
    {
        let n = check_inputs("Svgp::fit", x, self.kernel.input_dim())?;
        if L::count(targets) != n {
            return Err(Error::shape("Svgp::fit: targets vs rows of x", n, L::count(targets)));
        }
        // each minibatch's targets are built from its rows: no [n, width] target tensor (one-hot
        // rows would be 8·C bytes a row beside the data)
        let (latent, device) = (self.num_latent(), x.device());
        L::check(targets, latent, &device)?;
        let loss = |m: &Self, idx: &[usize]| -> Result<Tensor<1>> {
            let elbo = m.elbo(select_rows(x, idx), L::rows(targets, idx, latent, &device)?)?;
            Ok(elbo.neg().div_scalar(m.num_data as f64))
        };
        fit(self, n, config, loss, evaluate)
    }
}
