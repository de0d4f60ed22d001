//! Deep Gaussian process regression trained by approximate expectation propagation
//! (Bui, Hernández-Lobato, Li, Hernández-Lobato, Turner 2016; spec `deep-gp-ep.md`).
//!
//! Every layer is a FITC sparse GP with an EQ-ARD kernel; the posterior over each function's
//! inducing outputs is `q(u) ∝ p(u) g(u)^N` with one tied Gaussian factor `g`; the objective is the
//! tied EP energy, whose `log Z` terms are computed by propagating Gaussian moments through the
//! layers with closed-form ψ-statistics. Everything is tensor code: Burn's autodiff differentiates
//! the energy with respect to every parameter, including those of deterministic layers
//! ([`MomentLinear`]) placed before or between GP layers.
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
