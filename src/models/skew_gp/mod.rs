//! Skew Gaussian process classification (Benavoli, Azzimonti & Piga 2020): a probit classifier
//! whose prior is a skew-Gaussian process, so that the posterior is a unified skew-normal (SUN)
//! in closed form — exact up to Gaussian orthant probabilities. Equations, corrected typos and
//! tests: `docs/papers/000-skew-gp.md`.
//!
//! - [`SkewGp`]: the prior of eq. (14) as a Burn module (kernel, pseudo-points `R`, truncation
//!   `γ`, phases `L`) with the differentiable block systems of the training objective.
//! - [`SkewGp::fit`]: the block-composite objective (default; [`Objective`] also has the
//!   authors' `ln Σ P_i` and Proposition 2's bound) through the batched, differentiable Genz
//!   estimator of [`crate::mvn`], Adam (or any [`crate::train::OptimizerConfig`], SPSA
//!   included), phase search; then the posterior.
//! - [`SkewGpPosterior`]: Theorem 1 (host f64), Corollaries 1–2 by Genz, lin-ess draws of `U₁`,
//!   predictions by route B (default) and route A (Theorem 2).
//!
//! ```
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let n = 40;
//! let x: Vec<f64> = (0..n).map(|i| -3.0 + 6.0 * i as f64 / n as f64).collect();
//! let labels: Vec<usize> = x.iter().map(|&v| usize::from((2.0 * v).sin() > 0.0)).collect();
//! let device = default_device()?;
//! let train = device.clone().autodiff();
//! // the defaults: s = 2 pseudo-points, blocks of 30, Adam through Genz, 2 000 lin-ess draws;
//! // a few epochs and draws here
//! let model_config = SkewGpConfig::new().with_block_size(20).with_samples(100).with_burn_in(10);
//! let model_config = model_config.with_qmc_points(64).with_qmc_shifts(2).with_phase_screen_epochs(1);
//! let xt = matrix(x.clone(), n, 1, &train)?;
//! let model = model_config.init(Rbf::new(&[1.0], 1.0, &train)?, &xt)?;
//! let config = model_config.paper_train_config().with_epochs(3).with_progress(false); // Adam, lr 0.02
//! let (model, _history) = model.fit(&xt, &labels, &config)?; // hyperparameters, phases, lin-ess draws
//! let xs = matrix(x, n, 1, &device)?;
//! let pred = model.predict(&xs)?; // ClassPredictive
//! println!("accuracy {:.3}", pred.accuracy(&labels)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-skew-gp.bgp");
//! model.save(&path)?; // burn_gp::saved::SavedModel: the prior and its posterior's draws
//! let back = SkewGp::<Rbf>::load(&path, &device)?;
//! assert_eq!(back.predict(&xs)?.probabilities(), pred.probabilities());
//! # Ok(())
//! # }
//! ```
mod config;
mod fitted;
mod objective;
mod posterior;
mod prior;
mod spsa;
mod train;

pub use config::{Objective, SkewGpConfig, F32_NUGGET_FLOOR};
pub use objective::{partition, BlockTerms};
pub use posterior::{Prediction, SkewGpPosterior};
pub use prior::SkewGp;
pub use spsa::{assign_params, flatten_params, Spsa};
pub use train::SkewGpReport;
