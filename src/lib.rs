//! # burn-gp
//!
//! Bayesian kernel machines — sparse variational, deep, skew and expectation-propagation
//! Gaussian processes and Bayesian SVMs — written as [Burn](https://burn.dev) modules.
//! Objectives are ordinary tensor code differentiated by `burn-autodiff`; the backend (CPU
//! `flex`/`ndarray` in f64, GPU `wgpu`/`cuda` in f32) is a cargo feature, see [`device`].
#![warn(missing_docs)]

mod macros;

pub mod data;
pub mod device;
pub mod error;
pub mod inducing;
pub mod kernels;
pub mod likelihoods;
pub mod linalg;
pub mod metrics;
pub mod models;
pub mod mvn;
pub mod nets;
pub mod optim;
pub mod special;
pub mod tensors;
pub mod train;

pub use error::{Error, Result};

/// The items most programs need.
pub mod prelude {
    pub use crate::device::{default_device, Precision};
    pub use crate::error::{Error, Result};
}
