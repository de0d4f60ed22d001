//! GP classification by full expectation propagation (Rasmussen & Williams 2006, §3.6, Algorithms
//! 3.5–3.6, and the hyperparameter gradient of eq. 5.27): one probit site per training point, no
//! inducing points, the posterior over all `n` latents on the host in f64 (`O(n³)` a step). This is
//! the "GP-EP" baseline the skew GP paper compares against (`docs/papers/000-skew-gp.md`, section
//! "GP-EP baseline"); the sparse EP classifier of paper 001 is [`crate::models::ep`].
//!
//! ```no_run
//! use burn_gp::models::full_ep::FullEpClassifier;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (200, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let labels: Vec<usize> = x.chunks(d).map(|r| usize::from(r[0] * r[1] > 0.0)).collect(); // classes 0, 1
//! let train = default_device()?.autodiff();
//! let model = FullEpClassifier::new(Rbf::new(&[1.0], 1.0, &train)?, 1e-6)?;
//! let xt = matrix(x, n, d, &train)?;
//! let fit = model.fit(&xt, &labels, &EpConfig::new().with_iterations(50))?; // sites and kernel
//! let pred = fit.predict(&xt)?; // ClassPredictive with exact probit probabilities
//! println!("accuracy {:.3}, log Z_EP {:.2}", pred.accuracy(&labels)?, fit.log_marginal_likelihood);
//! # Ok(())
//! # }
//! ```
mod model;
mod posterior;
mod train;

pub use model::FullEpClassifier;
pub use posterior::FullEpPosterior;
pub use train::{full_ep_pass, FullEpFit};
