//! Deep Gaussian process regression trained by approximate expectation propagation
//! (Bui, Hernández-Lobato, Li, Hernández-Lobato, Turner, ICML 2016; equations, defaults, errata and tests
//! in `docs/papers/004-deep-gp-ep.md`).
//!
//! Every layer is a FITC sparse GP with an EQ-ARD kernel; the posterior over each function's
//! inducing outputs is `q(u) ∝ p(u) g(u)^N` with one tied Gaussian factor `g`; the objective is the
//! tied EP energy, whose `log Z` terms are computed by propagating Gaussian moments through the
//! layers with closed-form ψ-statistics. Everything is tensor code: Burn's autodiff differentiates
//! the energy with respect to every parameter, including those of deterministic layers
//! ([`MomentLinear`]) placed before or between GP layers.
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (60, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let y: Vec<f64> = x.chunks(d).map(|r| (r[0] * r[1]).sin()).collect();
//! let device = default_device()?;
//! let train = device.clone().autodiff();
//! let (xt, yt) = (matrix(x.clone(), n, d, &train)?, matrix(y.clone(), n, 1, &train)?);
//! let model = DeepGpConfig::new(d).with_num_inducing(8).init(&xt, &yt)?; // 2 layers
//! let config = TrainConfig::new().with_epochs(3).with_batch_size(20).with_lr(5e-3).with_progress(false);
//! let (model, _history) = model.fit(&xt, &yt, &config)?;
//! let (model, xs) = (model.valid(), matrix(x, n, d, &device)?);
//! let pred = model.predict(xs.clone())?; // GaussianPredictive
//! println!("mean log density {:.3}", pred.mean_log_density(&y)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-deep-gp.bgp");
//! model.save(&path)?;
//! assert_eq!(DeepGp::load(&path, &device)?.predict(xs)?, pred);
//! # Ok(())
//! # }
//! ```
mod activations;
mod block;
mod config;
mod factor;
mod init;
mod kernel;
mod layer;
mod model;
mod moment_linear;
mod psi;
mod train;
mod values;

pub use crate::inducing::InducingInit;
pub use activations::GaussianActivations;
pub use block::DeepGpBlock;
pub use config::{DeepGpConfig, MeanFunction};
pub use factor::{factor_terms, global_terms, log_normaliser_minus_prior, FactorTerms, Mode};
pub use layer::DeepGpLayer;
pub use model::{gaussian_log_density, DeepGp};
pub use moment_linear::MomentLinear;
pub use psi::psi_statistics;
pub use values::LayerValues;
