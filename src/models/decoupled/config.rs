//! Configuration of the orthogonally decoupled sparse GP.
use burn::config::Config;

/// Initial covariance `S` of `q(β)`.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum InitialCovariance {
    /// `S = K_β`: `q(β)` starts at the prior (KL = 0). The default.
    Prior,
    /// `S = I` (as the ODVGP reference code).
    Identity,
}

/// Settings of a [`DecoupledGp`](super::DecoupledGp) that are not pieces (kernel, bases, likelihood).
#[derive(Config, Debug)]
pub struct DecoupledGpConfig {
    /// Number of training points N (scales the minibatch expected log-likelihood by N/|B|).
    pub num_data: usize,
    /// Jitter added to the diagonal of `K_β` (0 for Fourier features, whose `K_β` is exact and
    /// well conditioned in f64; use ~1e-6 with inducing points).
    #[config(default = 0.0)]
    pub jitter: f64,
    /// Train `(m_β, L_S)` by natural-gradient steps (they get no autodiff gradient and Adam leaves
    /// them alone). `false`: Adam on everything ("adam-only").
    #[config(default = true)]
    pub natural_gradients: bool,
    /// Step size ρ of the natural-gradient steps that [`DecoupledGp::fit`](super::DecoupledGp::fit)
    /// takes after every optimiser step (0.1: our default, the paper reports no step sizes;
    /// `docs/papers/002-decoupled-fourier-features.md`, section "Deviations").
    #[config(default = 0.1)]
    pub natural_step: f64,
    /// Initial `S`.
    #[config(default = "InitialCovariance::Prior")]
    pub initial_covariance: InitialCovariance,
}
