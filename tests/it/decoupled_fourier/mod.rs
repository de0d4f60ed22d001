//! Orthogonally decoupled variational Fourier features (Azzimonti et al. 2020; the tests are listed in
//! `docs/papers/002-decoupled-fourier-features.md`, section "Tests"):
//! one test binary for the Fourier features and the decoupled model.
#[path = "../common/mod.rs"]
mod common;
mod decoupled;
mod fourier_features;
mod support;
mod training;
