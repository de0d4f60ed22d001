//! # burn-gp
//!
//! Bayesian kernel machines — sparse variational, deep, skew and expectation-propagation
//! Gaussian processes and Bayesian SVMs — written as [Burn](https://burn.dev) modules.
//! Objectives are ordinary tensor code differentiated by `burn-autodiff`; the backend (CPU
//! `flex`/`ndarray` in f64, GPU `wgpu`/`cuda` in f32) is a cargo feature, see [`device`].
#![warn(missing_docs)]

mod macros;

pub mod calibration;
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
pub mod saved;
pub mod special;
pub mod tensors;
pub mod train;

pub use error::{Error, Result};

/// The items most programs need: every model's config and type, the network-head recipe, the
/// predictive types, the trainer and the default device.
///
/// `Result` is not in the prelude, so that a glob import does not shadow std's `Result` (which
/// Burn's derive macros expect); write `burn_gp::Result`.
pub mod prelude {
    pub use crate::device::{default_device, Precision};
    pub use crate::error::Error;
    pub use crate::kernels::{Kernel, Rbf};
    pub use crate::models::{
        BayesianSvm, BayesianSvmConfig, ClassPredictive, DecoupledGp, DecoupledGpConfig, DeepGp, DeepGpConfig,
        EpGpClassifier, EpGpClassifierConfig, ExactGpr, FullEpClassifier, FullEpClassifierConfig, GaussianPredictive,
        OneVsRestBsvm, Sgpr, SgprConfig, SkewGp, SkewGpConfig, Svgp, SvgpConfig,
    };
    pub use crate::nets::{
        fit_hybrid, GpHeadConfig, GpRegressionNet, HybridConfig, HybridNet, MnistTrunkConfig, Trunk,
    };
    pub use crate::saved::SavedModel;
    pub use crate::tensors::matrix;
    pub use crate::train::{fit, TrainConfig};
}

/// README.md's code blocks, compiled (and the `no_run` ones not run) by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
