//! Configuration of the SVGP model.
use burn::config::Config;

/// Settings of an [`Svgp`](super::Svgp) that are not pieces (kernel, inducing variables, likelihood).
#[derive(Config, Debug)]
pub struct SvgpConfig {
    /// Number of latent GPs (1 for regression and binary classification, K for K classes).
    #[config(default = 1)]
    pub num_latent: usize,
    /// Number of training points N (scales the minibatch ELBO).
    pub num_data: usize,
    /// Jitter added to the diagonal of `K_uu` (relative to nothing: absolute).
    #[config(default = 1e-6)]
    pub jitter: f64,
    /// Initial scale of the diagonal of `L_q` (1 = the prior).
    #[config(default = 1.0)]
    pub q_sqrt_init: f64,
    /// Standard deviation of random initial whitened means (0 = zeros). A small value (1e-3)
    /// breaks ties between classes whose means would otherwise start equal.
    #[config(default = 0.0)]
    pub q_mu_init_std: f64,
    /// Seed of the random initial means.
    #[config(default = 0)]
    pub seed: u64,
}
