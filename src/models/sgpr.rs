//! Sparse GP regression with the collapsed variational bound (Titsias 2009): the full-batch
//! baseline of the decoupled models, for any inducing variables (points or Fourier features).
//!
//! `ELBO = log N(y | 0, Q + σ²I) − tr(K_ff − Q_ff)/(2σ²)`, `Q = K_fu K_uu⁻¹ K_uf`, evaluated with
//! `Σ = K_uu + σ⁻² K_uf K_fu` (one M×M Cholesky): `log|Q + σ²I| = log|Σ| − log|K_uu| + N log σ²`
//! and `yᵀ(Q + σ²I)⁻¹y = σ⁻²yᵀy − σ⁻⁴ ‖L_Σ⁻¹ K_uf y‖²`. `K_uu` enters only through
//! [`InducingVariables::kuu_factor`], so Fourier features keep their closed-form structure.
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (40, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let y: Vec<f64> = x.chunks(d).map(|r| (r[0] - r[1]).cos()).collect();
//! let (device, train) = (default_device()?, default_device()?.autodiff());
//! let (xt, yt) = (matrix(x.clone(), n, d, &train)?, matrix(y.clone(), n, 1, &train)?);
//! let z = burn_gp::inducing::InducingPoints::new(&x[..8 * d], 8, d, &train)?;
//! let noise = burn_gp::likelihoods::Gaussian::new(0.1, &train)?;
//! let model = SgprConfig::new().init(Rbf::ard(d, 1.0, 1.0, &train)?, z, noise, xt, yt)?;
//! let config = TrainConfig::new().with_epochs(10).with_lr(0.05).with_progress(false);
//! let (model, _history) = model.fit(&config)?; // full batch, the collapsed bound
//! let (model, xs) = (model.valid(), matrix(x, n, d, &device)?);
//! let pred = model.predict(xs.clone())?; // GaussianPredictive
//! let path = std::env::temp_dir().join("burn-gp-doc-sgpr.bgp");
//! model.save(&path)?;
//! let back = Sgpr::<Rbf, burn_gp::inducing::InducingPoints>::load(&path, &device)?;
//! assert_eq!(back.predict(xs)?, pred);
//! # Ok(())
//! # }
//! ```
use burn::module::Module;
use burn::tensor::Tensor;

use crate::error::Result as GpResult;
use crate::inducing::InducingVariables;
use crate::kernels::Kernel;
use crate::likelihoods::Gaussian;
use crate::linalg::{cholesky, logdet_from_cholesky, matmul, matmul_transposed, row_sums, tri_inverse};
use crate::models::{check_inputs, check_targets};

const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// Settings of an [`Sgpr`] (a Burn [`Config`](burn::config::Config)).
#[derive(burn::config::Config, Debug)]
pub struct SgprConfig {
    /// Jitter on `K_uu`'s diagonal (≥ 0).
    #[config(default = 1e-6)]
    pub jitter: f64,
}

impl SgprConfig {
    /// The model with `kernel`, inducing variables `inducing` (points or Fourier features) and a
    /// Gaussian likelihood, on training data `x` `[n, d]`, `y` `[n, 1]` (the collapsed bound is over
    /// all of it, so the model holds it, as GPflow's `SGPR` does); bad shapes or settings are
    /// typed errors.
    pub fn init<K: Kernel, I: InducingVariables<K>>(
        &self,
        kernel: K,
        inducing: I,
        likelihood: Gaussian,
        x: Tensor<2>,
        y: Tensor<2>,
    ) -> GpResult<Sgpr<K, I>> {
        Sgpr::new(kernel, inducing, likelihood, x, y, self.jitter)
    }
}

/// Titsias' collapsed sparse GP regression on fixed training data `(x, y)`, built by
/// [`SgprConfig::init`].
#[derive(Module, Debug)]
pub struct Sgpr<K: Kernel, I: InducingVariables<K>> {
    /// Covariance function.
    pub kernel: K,
    /// Inducing variables.
    pub inducing: I,
    /// Gaussian likelihood (noise variance).
    pub likelihood: Gaussian,
    /// Training inputs `[n, d]` (constant).
    pub x: Tensor<2>,
    /// Training targets `[n, 1]` (constant).
    pub y: Tensor<2>,
    /// Jitter on `K_uu`'s diagonal.
    pub jitter: f64,
}

/// What the bound and the predictions share.
struct Collapsed {
    /// `K_uu`, factorised.
    factor: crate::inducing::KuuFactor,
    /// `L_Σ⁻¹` for `Σ = K_uu + σ⁻² K_uf K_fu`.
    sigma_inv: Tensor<2>,
    /// `log det Σ` `[1]`.
    logdet_sigma: Tensor<1>,
    /// `K_uf` `[M, n]`.
    kuf: Tensor<2>,
    /// `σ²` `[1, 1]`.
    noise: Tensor<2>,
}

impl<K: Kernel, I: InducingVariables<K>> Sgpr<K, I> {
    /// The model on training data `x` `[n, d]`, `y` `[n, 1]`.
    pub fn new(
        kernel: K,
        inducing: I,
        likelihood: Gaussian,
        x: Tensor<2>,
        y: Tensor<2>,
        jitter: f64,
    ) -> GpResult<Self> {
        let n = check_inputs("Sgpr::new", &x, kernel.input_dim())?;
        check_targets("Sgpr::new", &y, n, 1)?;
        crate::error::check_non_negative("jitter", jitter)?;
        Ok(Self { kernel, inducing, likelihood, x, y, jitter })
    }

    fn collapsed(&self) -> GpResult<Collapsed> {
        let factor = self.inducing.kuu_factor(&self.kernel, self.jitter)?;
        let kuf = self.inducing.kuf(&self.kernel, self.x.clone());
        let noise = self.likelihood.variance.value().reshape([1, 1]);
        let sigma = factor.dense() + matmul_transposed(kuf.clone(), kuf.clone(), false, true)? / noise.clone();
        let l = cholesky(sigma)?;
        let logdet_sigma = logdet_from_cholesky(l.clone());
        Ok(Collapsed { factor, sigma_inv: tri_inverse(l), logdet_sigma, kuf, noise })
    }

    /// The collapsed evidence lower bound `[1]` (maximise it).
    pub fn elbo(&self) -> GpResult<Tensor<1>> {
        let n = self.x.dims()[0] as f64;
        let c = self.collapsed()?;
        let noise = c.noise.clone().reshape([1]);
        let yy = self.y.clone().powi_scalar(2).sum();
        let proj = matmul(c.sigma_inv.clone(), matmul(c.kuf.clone(), self.y.clone())?)?; // L_Σ⁻¹ K_uf y
        let fit = yy / noise.clone() - proj.powi_scalar(2).sum() / noise.clone().powi_scalar(2);
        let logdet = c.logdet_sigma - c.factor.logdet() + noise.clone().log().mul_scalar(n);
        let kdiag = self.kernel.k_diag(self.x.clone()).sum();
        let q_diag = (c.kuf.clone() * c.factor.solve(c.kuf.clone())).sum();
        let trace = (kdiag - q_diag) / noise;
        Ok((fit + logdet + trace).mul_scalar(-0.5).sub_scalar(0.5 * n * LN_2PI))
    }

    /// Predictive marginals of the latent `f(x*)`: mean and variance `[n*, 1]`.
    ///
    /// The rows go through in chunks whose `[M, rows]` temporaries hold at most 2²² cells, so
    /// memory is bounded by the chunk, not by n*; the chunk size does not change a bit of the result.
    pub fn predict_f(&self, xs: Tensor<2>) -> GpResult<(Tensor<2>, Tensor<2>)> {
        check_inputs("Sgpr::predict_f", &xs, self.kernel.input_dim())?;
        let c = self.collapsed()?;
        let b = matmul(c.sigma_inv.clone(), matmul(c.kuf.clone(), self.y.clone())?)?; // L_Σ⁻¹ K_uf y
        let chunk = crate::models::prediction_chunk(self.inducing.num_inducing());
        crate::models::in_row_chunks(&xs, chunk, |rows| self.predict_rows(&c, b.clone(), rows))
    }

    /// [`Self::predict_f`] of the rows `xs` in one piece, `b = L_Σ⁻¹ K_uf y`.
    fn predict_rows(&self, c: &Collapsed, b: Tensor<2>, xs: Tensor<2>) -> GpResult<(Tensor<2>, Tensor<2>)> {
        let ns = xs.dims()[0];
        let kus = self.inducing.kuf(&self.kernel, xs.clone()); // [M, n*]
        let a = matmul(c.sigma_inv.clone(), kus.clone())?; // L_Σ⁻¹ K_u*
        let mean = matmul_transposed(a.clone(), b, true, false)? / c.noise.clone();
        let q = row_sums((kus.clone() * c.factor.solve(kus)).transpose());
        let var = self.kernel.k_diag(xs).reshape([ns, 1]) - q + row_sums(a.powi_scalar(2).transpose());
        Ok((mean, var.clamp_min(1e-12)))
    }

    /// The predictive distribution of `y` at `xs` on the host (noise included), as every
    /// regression model gives it.
    pub fn predict(&self, xs: Tensor<2>) -> GpResult<crate::models::GaussianPredictive> {
        let (mean, var) = self.predict_y(xs)?;
        crate::models::GaussianPredictive::from_tensors(mean, var)
    }

    /// Predictive mean and variance of `y` at `x*`.
    pub fn predict_y(&self, xs: Tensor<2>) -> GpResult<(Tensor<2>, Tensor<2>)> {
        let (m, v) = self.predict_f(xs)?;
        let noise = self.likelihood.variance.value().reshape([1, 1]);
        Ok((m, v + noise))
    }
}

impl<K: Kernel, I: InducingVariables<K>> Sgpr<K, I> {
    /// Trains the hyperparameters and inducing variables on the collapsed bound (full batch: one
    /// optimiser step on `−ELBO / n` per epoch; `config.batch_size` is not used), on the model's
    /// (autodiff) device.
    pub fn fit(self, config: &crate::train::TrainConfig) -> GpResult<(Self, crate::train::History)> {
        let n = self.x.dims()[0] as f64;
        crate::train::fit(self, 1, config, |m, _| Ok(m.elbo()?.neg().div_scalar(n)), |_, _| Ok(Vec::new()))
    }
}
