//! Exact GP regression: the reference every sparse model is tested against.
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (40, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let y: Vec<f64> = x.chunks(d).map(|r| (r[0] - r[1]).cos()).collect();
//! let train = default_device()?.autodiff();
//! let (xt, yt) = (matrix(x, n, d, &train)?, matrix(y.clone(), n, 1, &train)?);
//! let noise = burn_gp::likelihoods::Gaussian::new(0.1, &train)?;
//! let model = ExactGpr::new(Rbf::ard(d, 1.0, 1.0, &train)?, noise, xt.clone(), yt)?;
//! let config = TrainConfig::new().with_epochs(10).with_lr(0.05).with_progress(false);
//! let (model, _history) = model.fit(&config)?; // full batch
//! let model = model.valid();
//! let pred = model.predict(xt.clone().inner())?; // GaussianPredictive
//! println!("training RMSE {:.3}", pred.rmse(&y)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-gpr.bgp");
//! model.save(&path)?; // the training data travel in the file
//! assert_eq!(ExactGpr::<Rbf>::load(&path, &default_device()?)?.predict(xt.inner())?, pred);
//! # Ok(())
//! # }
//! ```
use burn::module::Module;
use burn::tensor::Tensor;

use super::checks::{check_inputs, check_targets};
use crate::error::Result;
use crate::kernels::Kernel;
use crate::likelihoods::{Gaussian, Likelihood};
use crate::linalg::{cholesky, logdet_from_cholesky, solve_triangular, Triangle};

const LN_2PI: f64 = 1.837_877_066_409_345_3;

/// Exact GP regression `y = f(x) + ε`, `f ~ GP(0, k)`, `ε ~ N(0, σ²)` (O(n³); for n ≲ 5000).
#[derive(Module, Debug)]
pub struct ExactGpr<K: Kernel> {
    /// Covariance function.
    pub kernel: K,
    /// Gaussian likelihood (noise variance).
    pub likelihood: Gaussian,
    /// Training inputs `[n, d]` (constant).
    pub x: Tensor<2>,
    /// Training targets `[n, p]` (constant).
    pub y: Tensor<2>,
}

impl<K: Kernel> ExactGpr<K> {
    /// A GP regression model on training data `x` `[n, d]`, `y` `[n, p]`.
    pub fn new(kernel: K, likelihood: Gaussian, x: Tensor<2>, y: Tensor<2>) -> Result<Self> {
        let n = check_inputs("ExactGpr::new", &x, kernel.input_dim())?;
        let p = y.dims()[1];
        check_targets("ExactGpr::new", &y, n, p)?;
        Ok(Self { kernel, likelihood, x, y })
    }

    /// `chol(K_xx + σ² I)`.
    fn factor(&self) -> Result<Tensor<2>> {
        let n = self.x.dims()[0];
        let device = self.x.device();
        let s2 = self.likelihood.variance.value().unsqueeze::<2>();
        let k = self.kernel.k(self.x.clone(), self.x.clone()) + Tensor::<2>::eye(n, &device) * s2;
        cholesky(k)
    }

    /// `log p(y | X, θ)` summed over output columns: `[1]`.
    pub fn log_marginal_likelihood(&self) -> Result<Tensor<1>> {
        let [n, p] = self.y.dims();
        let l = self.factor()?;
        let alpha = solve_triangular(l.clone(), self.y.clone(), Triangle::Lower, false)?;
        let fit = alpha.powi_scalar(2).sum().reshape([1]);
        let logdet = logdet_from_cholesky(l).mul_scalar(p as f64);
        Ok((fit + logdet).mul_scalar(-0.5).sub_scalar(0.5 * (n * p) as f64 * LN_2PI))
    }

    /// The predictive distribution of `y` at `xs` on the host (the posterior of `f` plus the
    /// noise variance), as every regression model gives it.
    pub fn predict(&self, xs: Tensor<2>) -> Result<crate::models::GaussianPredictive> {
        let (mean, var) = self.predict_f(xs)?;
        let (mean, var) = self.likelihood.predict_mean_and_var(mean, var);
        crate::models::GaussianPredictive::from_tensors(mean, var)
    }

    /// Posterior marginals of `f(x*)`: mean and variance `[n*, p]`.
    pub fn predict_f(&self, xs: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let ns = check_inputs("ExactGpr::predict_f", &xs, self.kernel.input_dim())?;
        let p = self.y.dims()[1];
        let l = self.factor()?;
        let kxs = self.kernel.k(self.x.clone(), xs.clone());
        let a = solve_triangular(l.clone(), kxs, Triangle::Lower, false)?; // [n, n*]
        let b = solve_triangular(l, self.y.clone(), Triangle::Lower, false)?; // [n, p]
        let mean = a.clone().transpose().matmul(b);
        let var = (self.kernel.k_diag(xs) - a.powi_scalar(2).sum_dim(0).reshape([ns])).reshape([ns, 1]);
        Ok((mean, var.repeat_dim(1, p)))
    }
}

impl<K: Kernel> ExactGpr<K> {
    /// Trains the hyperparameters on the log marginal likelihood (full batch: one optimiser step
    /// on `−log p(y) / n` per epoch; `config.batch_size` is not used), on the model's (autodiff)
    /// device.
    pub fn fit(self, config: &crate::train::TrainConfig) -> Result<(Self, crate::train::History)> {
        let n = self.x.dims()[0] as f64;
        crate::train::fit(
            self,
            1,
            config,
            |m, _| Ok(m.log_marginal_likelihood()?.neg().div_scalar(n)),
            |_, _| Ok(Vec::new()),
        )
    }
}
