//! Scalable GP classification by expectation propagation (SEP; Hernández-Lobato &
//! Hernández-Lobato 2016): a probit GP classifier with inducing points whose posterior over the
//! inducing values is kept by EP with one rank-one site per data point, trained in batch,
//! GFITC-style (EP to convergence) or minibatch mode. Equations and corrected typos: spec
//! `ep-gp-classification.md`.
//!
//! All EP work (cavities, site updates, `q`, `log Z_q`, predictions) runs on the host in f64; the
//! hyperparameter gradient is Burn's autodiff of the surrogate objective of spec §2.7, whose
//! gradient equals the paper's eq. 4 (eq. 6 on minibatches).
mod config;
mod energy;
mod frozen;
mod model;
mod posterior;
pub mod reducer;
mod shards;
mod site;
mod state;
mod train;

pub use config::{EpConfig, EpMode};
pub use frozen::frozen_posterior;
pub use model::{EpGpClassifier, FrozenPosterior};
pub use posterior::{
    cavity, ep_pass, log_z_q, run_ep, update_sites, Cavity, EpSites, Fitc, PassReport, Projection, WhitenedPosterior,
};
pub use reducer::{BurnCollective, HostReducer, ShardReducer};
pub use shards::Shards;
pub use site::{log_site_scale, mills_and_gap, site_from_tilted, tilted, Tilted};
pub use state::{EpState, SiteSums, Snapshot};
pub use train::{minibatch_update, EpFit};
