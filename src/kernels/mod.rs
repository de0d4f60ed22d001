//! Covariance functions. Every kernel is a Burn [`Module`](burn::module::Module) whose positive
//! hyperparameters are stored unconstrained and mapped through softplus.
mod additive_matern;
mod additive_ops;
mod arcsine;
mod combination;
mod distance;
mod kernel;
mod linear;
mod matern;
mod median;
mod per_dimension;
mod positive;
mod rbf;
mod separable_matern;
mod stationary;

pub use additive_matern::AdditiveMatern;
pub use arcsine::ArcSine;
pub use combination::{Product, Sum};
pub use kernel::Kernel;
pub use linear::Linear;
pub use matern::{Matern, MaternNu};
pub use median::median_distance;
pub use per_dimension::{matern_factors, matern_rates};
pub use positive::Positive;
pub use rbf::Rbf;
pub use separable_matern::SeparableMatern;
pub use stationary::Stationary;
