//! Orthogonally decoupled variational Fourier features (Azzimonti et al. 2020; the tests are listed in
//! `docs/papers/002-decoupled-fourier-features.md`, section "Tests"):
//! the tests of the Fourier features and of the decoupled model.
mod decoupled;
mod fourier_features;
pub(crate) mod support;
mod training;
