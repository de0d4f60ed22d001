//! Orthogonally decoupled sparse variational GPs: ODVFF (Azzimonti, Schürch, Benavoli and
//! Zaffalon 2020: inducing points for the mean, variational Fourier features for the covariance),
//! ODVGP (Salimbeni, Cheng, Boots and Deisenroth 2018: points for both) and, without a mean
//! basis, the plain (VFF-)SVGP — one model, [`DecoupledGp`], generic over the covariance basis.
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::inducing::fourier::num_freq_for_budget;
//! use burn_gp::inducing::{inducing_kmeans, FourierFeatures, InducingPoints};
//! use burn_gp::kernels::{AdditiveMatern, MaternNu};
//! use burn_gp::likelihoods::Gaussian;
//! use burn_gp::models::{DecoupledGpConfig, Odvff};
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (200, 3);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let y: Vec<f64> = x.chunks(d).map(|r| r.iter().map(|v| v.sin()).sum()).collect();
//! let device = default_device()?;
//! let dev = device.clone().autodiff();
//! let kernel = AdditiveMatern::isotropic(MaternNu::ThreeHalves, d, 1.0, 1.0, &dev)?;
//! let f = num_freq_for_budget(30, d, false)?; // |β| = 30 Fourier features in total
//! let beta = FourierFeatures::for_data(&kernel, &x, n, f, None)?; // data range + 3ℓ margins
//! let gamma = InducingPoints::new(&inducing_kmeans(&x, n, d, 50, 25, 0)?, 50, d, &dev)?;
//! let model: Odvff<AdditiveMatern, Gaussian> =
//!     DecoupledGpConfig::new(n).init(kernel, Some(gamma), beta, Gaussian::new(0.1, &dev)?, &dev)?;
//! let (xt, yt) = (matrix(x.clone(), n, d, &dev)?, matrix(y.clone(), n, 1, &dev)?);
//! let config = TrainConfig::new().with_epochs(2).with_batch_size(100).with_progress(false);
//! let (model, _history) = model.fit(&xt, &yt, &config)?; // Adam + natural steps ρ = 0.1
//! let (model, xs) = (model.valid(), matrix(x, n, d, &device)?);
//! let pred = model.predict(xs.clone())?; // GaussianPredictive
//! println!("RMSE {:.3}", pred.rmse(&y)?);
//! let path = std::env::temp_dir().join("burn-gp-doc-odvff.bgp");
//! model.save(&path)?;
//! assert_eq!(Odvff::<AdditiveMatern, Gaussian>::load(&path, &device)?.predict(xs)?, pred);
//! # Ok(())
//! # }
//! ```
mod closed_form;
mod config;
mod mean_basis;
mod model;
mod natural;
mod train;

pub use config::{DecoupledGpConfig, InitialCovariance};
pub use mean_basis::MeanBasis;
pub use model::{DecoupledGp, Odvff, Odvgp};
pub use train::fit_decoupled;
