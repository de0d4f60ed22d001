//! Covariance functions. Every kernel is a Burn [`Module`](burn::module::Module) whose positive
//! hyperparameters are stored unconstrained and mapped through softplus.
mod combination;
mod distance;
mod kernel;
mod linear;
mod matern;
mod median;
mod positive;
mod rbf;
mod stationary;

pub use combination::{Product, Sum};
pub use distance::scaled_square_distance;
pub use kernel::Kernel;
pub use linear::Linear;
pub use matern::{Matern, MaternNu};
pub use median::median_distance;
pub use positive::{inverse_softplus, Positive};
pub use rbf::Rbf;
pub use stationary::Stationary;
