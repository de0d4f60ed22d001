//! What burn-gp's paper-reproduction drivers (this crate's examples) share: the command-line
//! options and device set-up of every driver ([`common`]), its `--plot` figures
//! ([`common::plot`]), the CNN + Bayesian SVM head against CNN + softmax comparison of the hybrid
//! drivers ([`hybrid`]), the PMLB/UCI tabular splits ([`tabular`]), the decoupled-GP runs
//! ([`decoupled`]), the skew-GP settings ([`skew`]), the active-learning curves
//! ([`learning_curves`]) and the regression stump of the skew-GP paper's Fig. 10
//! ([`regression_stump`]).
//!
//! Not published: the library's users get `burn-gp` alone; these modules parse command lines
//! (clap), print JSON (serde_json) and draw figures (plotters), which the library does not.
// Doc comments here are also the drivers' `--help` texts, which write paths as `<data>/…`.
#![allow(rustdoc::invalid_html_tags)]
pub mod common;
pub mod decoupled;
pub mod hybrid;
pub mod learning_curves;
pub mod regression_stump;
pub mod skew;
pub mod tabular;
