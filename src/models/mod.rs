//! Models: each a Burn [`Module`](burn::module::Module) built from a kernel, inducing variables and
//! a likelihood.
mod batch;
pub mod bsvm;
mod checks;
mod class_predictive;
pub mod decoupled;
pub mod deep_gp;
pub mod ep;
pub mod full_ep;
mod gaussian_predictive;
pub mod gpr;
pub(crate) mod placement;
mod predictor;
pub mod sgpr;
pub mod skew_gp;
pub mod svgp;
mod svgp_config;

pub use crate::inducing::InducingInit;
pub use batch::select_rows;
pub(crate) use batch::{in_row_chunks, latent_columns, prediction_chunk, row_blocks};
pub use bsvm::{BayesianSvm, BayesianSvmConfig, BayesianSvmHead, BinaryBsvm, HingeNaturalGradient, OneVsRestBsvm};
pub(crate) use checks::{check_inputs, check_targets};
pub use class_predictive::{entropy, probit_probabilities, variation_ratio_from_counts, ClassPredictive};
pub use decoupled::{fit_decoupled, DecoupledGp, DecoupledGpConfig, Odvff, Odvgp};
pub use deep_gp::{DeepGp, DeepGpConfig, DeepGpLayer};
pub use ep::{EpGpClassifier, EpGpClassifierConfig, EpMode, EpSchedule};
pub use full_ep::{FullEpClassifier, FullEpClassifierConfig};
pub use gaussian_predictive::GaussianPredictive;
pub use gpr::ExactGpr;
pub use predictor::{Predictive, Predictor};
pub use sgpr::{Sgpr, SgprConfig};
pub use skew_gp::{SkewGp, SkewGpConfig, SkewGpPosterior, SkewGpReport};
pub use svgp::Svgp;
pub use svgp_config::SvgpConfig;
