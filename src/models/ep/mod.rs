//! Scalable GP classification by expectation propagation (SEP; Hernández-Lobato &
//! Hernández-Lobato 2016): a probit GP classifier with inducing points whose posterior over the
//! inducing values is kept by EP with one rank-one site per data point, trained in batch,
//! GFITC-style (EP to convergence) or minibatch mode. Equations, deviations and corrected typos:
//! `docs/papers/001-ep-classification.md`.
//!
//! All EP work (cavities, site updates, `q`, `log Z_q`, predictions) runs on the host in f64; the
//! hyperparameter gradient is Burn's autodiff of a surrogate objective (ours:
//! `docs/papers/001-ep-classification.md`, section "Surrogate objective"), whose gradient equals the
//! paper's eq. 4 (eq. 6 on minibatches).
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (60, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let labels: Vec<usize> = x.chunks(d).map(|r| usize::from(r[0] * r[1] > 0.0)).collect(); // classes 0, 1
//! let train = default_device()?.autodiff();
//! let inducing = burn_gp::inducing::InducingPoints::new(&x[..10 * d], 10, d, &train)?;
//! let model_config = EpGpClassifierConfig::new(); // batch SEP (EpMode::Inner)
//! let model = model_config.init(Rbf::ard(d, 1.0, 1.0, &train)?, inducing, &train)?;
//! let xt = matrix(x, n, d, &train)?;
//! // the paper's sign-adaptive steps, 5 iterations instead of its 250
//! let config = model_config.paper_train_config().with_epochs(5).with_progress(false);
//! let (model, _history) = model.fit(&xt, &labels, &config)?; // sites, q(u), hyperparameters
//! let pred = model.predict(&xt)?; // ClassPredictive with exact probit probabilities
//! println!("accuracy {:.3}, NLL {:.3}", pred.accuracy(&labels)?, pred.nll(&labels)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-ep.bgp");
//! model.save(&path)?; // burn_gp::saved::SavedModel: parameters, sites and q(u)
//! let back = EpGpClassifier::<Rbf>::load(&path, &train)?;
//! assert_eq!(back.predict_proba(&xt)?, model.predict_proba(&xt)?);
//! # Ok(())
//! # }
//! ```
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

pub use config::{EpGpClassifierConfig, EpMode, EpSchedule};
pub use frozen::frozen_posterior;
pub use model::{EpGpClassifier, FrozenPosterior};
pub use posterior::{
    cavity, ep_pass, log_z_q, run_ep, update_sites, Cavity, EpSites, Fitc, PassReport, Projection, WhitenedPosterior,
};
pub use reducer::{BurnCollective, HostReducer, ShardReducer};
pub use site::{log_site_scale, mills_and_gap, site_from_tilted, tilted, Tilted};
pub use state::{EpState, SiteSums, Snapshot};
pub use train::minibatch_update;
pub(crate) use train::Backoff;
