//! GP classification by full expectation propagation (Rasmussen & Williams 2006, §3.6, Algorithms
//! 3.5–3.6, and the hyperparameter gradient of eq. 5.27): one probit site per training point, no
//! inducing points, the posterior over all `n` latents on the host in f64 (`O(n³)` a step). This is
//! the "GP-EP" baseline the skew GP paper compares against (`docs/papers/000-skew-gp.md`, section
//! "GP-EP baseline"); the sparse EP classifier of paper 001 is [`crate::models::ep`].
//!
//! ```
//! use burn_gp::models::full_ep::{FullEpClassifier, FullEpClassifierConfig};
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (40, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let labels: Vec<usize> = x.chunks(d).map(|r| usize::from(r[0] * r[1] > 0.0)).collect(); // classes 0, 1
//! let train = default_device()?.autodiff();
//! let model_config = FullEpClassifierConfig::new(); // one damped EP pass per step
//! let model = model_config.init(Rbf::new(&[1.0], 1.0, &train)?)?;
//! let xt = matrix(x, n, d, &train)?;
//! let config = model_config.paper_train_config().with_epochs(5).with_progress(false); // 5 steps
//! let (model, _history) = model.fit(&xt, &labels, &config)?; // sites and kernel
//! let pred = model.predict(&xt)?; // ClassPredictive with exact probit probabilities
//! println!("accuracy {:.3}, log Z_EP {:?}", pred.accuracy(&labels)?, model.log_marginal_likelihood());
//! let path = std::env::temp_dir().join("burn-gp-doc-full-ep.bgp");
//! model.save(&path)?; // burn_gp::saved::SavedModel: kernel, training inputs and sites
//! let back = FullEpClassifier::<Rbf>::load(&path, &train)?;
//! assert_eq!(back.predict_proba(&xt)?, model.predict_proba(&xt)?);
//! # Ok(())
//! # }
//! ```
mod model;
mod posterior;
mod train;

pub use model::{FullEpClassifier, FullEpClassifierConfig};
pub use posterior::FullEpPosterior;
pub use train::full_ep_pass;
