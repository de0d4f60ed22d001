//! Orthogonally decoupled variational Fourier features (spec `decoupled-fourier-features.md` §8):
//! one test binary for the Fourier features and the decoupled model.
#[path = "../common/mod.rs"]
mod common;
mod decoupled;
mod fourier_features;
mod support;
mod training;
