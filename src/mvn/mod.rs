//! Multivariate normal probabilities and truncated-normal sampling.
//!
//! - [`log_mvn_cdf`] (tensors): Genz's separation-of-variables estimator of `ln Φ_d(a; Σ)`,
//!   batched over blocks, in log space (`ln Φ` and `Φ⁻¹` from log inputs, log-mean-exp), with
//!   greedy variable reordering outside the gradient, randomised lattice QMC points
//!   ([`QmcPoints`]) and a hand-written reverse pass ([`GpMvnOps`]): with the points fixed the
//!   estimate is smooth, so Burn's autodiff trains through it.
//! - [`genz_log_cdf`], [`log_mvn_cdf_host`] (host f64) for single high-accuracy evaluations;
//!   [`bvn_cdf`], [`trivariate_cdf`] deterministic for `d ≤ 3`; [`log_bvn_cdf`] differentiable;
//!   [`tilted_log_cdf`] (minimax exponential tilting) for small probabilities.
//! - [`LinEss`]: linear elliptical slice sampling for `N(0, Σ)` on `{x : A x + b > 0}`,
//!   rejection free, many chains batched on a tensor axis; [`EllipticalSlice`] the plain ESS
//!   baseline; [`gibbs_orthant`] for low-dimensional orthants at any acceptance rate.
//! - [`Sun`]: the unified skew-normal distribution (density, CDF, normaliser, sampling,
//!   marginals, conditionals, probit posterior).
mod dense;
mod ess;
mod genz;
mod gibbs;
mod lattice;
mod lin_ess;
mod low_dim;
mod ops;
mod quadrature;
mod reorder;
mod sun;
mod tensor;
mod tilting;
mod truncated;

pub use dense::cholesky as cholesky_host;
pub(crate) use dense::{row_major, solve_chol, solve_lower, symmetrise};
pub use ess::EllipticalSlice;
pub use genz::{genz_log_cdf, independent_groups, log_mvn_cdf as log_mvn_cdf_host, MvnEstimate};
pub use gibbs::{gibbs_orthant, truncated_normal_above};
pub use lattice::QmcPoints;
pub use lin_ess::{LinEss, LinEssVariant};
pub(crate) use low_dim::log_mvn_cdf_exact;
pub use low_dim::{bvn_cdf, trivariate_cdf};
pub use ops::GpMvnOps;
pub use quadrature::{gauss_legendre, integrate};
pub(crate) use reorder::{genz_order, permute};
pub(crate) use sun::{probit_selection, rejection_orthant_within};
pub use sun::{rejection_orthant, Sun};
pub use tensor::{log_bvn_cdf, log_mvn_cdf, LogMvnCdf};
pub use tilting::tilted_log_cdf;
pub(crate) use tilting::{minimax_shift, tilted_log_means_with_last};
pub use truncated::{ChainConfig, ChainDraws, ChainStart, TruncatedNormal};
