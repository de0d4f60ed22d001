//! Skew Gaussian process classification (Benavoli, Azzimonti & Piga 2020): a probit classifier
//! whose prior is a skew-Gaussian process, so that the posterior is a unified skew-normal (SUN)
//! in closed form — exact up to Gaussian orthant probabilities. Equations, corrected typos and
//! tests: spec `skew-gp.md`.
//!
//! - [`SkewGp`]: the prior of eq. (14) as a Burn module (kernel, pseudo-points `R`, truncation
//!   `γ`, phases `L`) with the differentiable block systems of the training objective.
//! - [`SkewGp::fit`]: the block-composite objective (default; [`Objective`] also has the
//!   authors' `ln Σ P_i` and Proposition 2's bound) through the batched, differentiable Genz
//!   estimator of [`crate::mvn`], Adam (or SPSA), phase search; then the posterior.
//! - [`SkewGpPosterior`]: Theorem 1 (host f64), Corollaries 1–2 by Genz, lin-ess draws of `U₁`,
//!   predictions by route B (default) and route A (Theorem 2).
mod config;
mod objective;
mod posterior;
mod prior;
mod spsa;
mod train;

pub use config::{Objective, SkewGpConfig, SkewOptimizer};
pub use objective::{partition, BlockTerms};
pub use posterior::{Prediction, SkewGpPosterior};
pub use prior::SkewGp;
pub use spsa::{assign_params, flatten_params, Spsa};
pub use train::SkewGpFit;
