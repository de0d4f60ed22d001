//! Orthogonally decoupled sparse variational GPs: ODVFF (Azzimonti, Schürch, Benavoli and
//! Zaffalon 2020: inducing points for the mean, variational Fourier features for the covariance),
//! ODVGP (Salimbeni, Cheng, Boots and Deisenroth 2018: points for both) and, without a mean
//! basis, the plain (VFF-)SVGP — one model, [`DecoupledGp`], generic over the covariance basis.
//!
//! ```text
//! let kernel = AdditiveMatern::isotropic(MaternNu::ThreeHalves, d, 1.0, 1.0, &dev)?;
//! let f = num_freq_for_budget(100, d, false)?;                        // |β| = 100 in total
//! let beta = FourierFeatures::for_data(&kernel, &x, n, f, None)?;     // data range + 3ℓ margins
//! let gamma = InducingPoints::new(&inducing_kmeans(&x, n, d, 300, 25, 0)?, 300, d, &dev)?;
//! let model = DecoupledGpConfig::new(n).init(kernel, Some(gamma), beta, Gaussian::new(0.1, &dev)?, &dev)?;
//! let (model, history) = fit_decoupled(model, &xt, &yt, &TrainConfig::default(), 0.1, |_, _| Ok(vec![]))?;
//! let (mean, var) = model.valid().predict_y(x_test)?;
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
