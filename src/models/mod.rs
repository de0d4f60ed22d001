//! Models: each a Burn [`Module`](burn::module::Module) built from a kernel, inducing variables and
//! a likelihood.
mod batch;
mod checks;
pub mod gpr;
pub mod svgp;
mod svgp_config;

pub use batch::select_rows;
pub use checks::{check_inputs, check_targets};
pub use gpr::ExactGpr;
pub use svgp::Svgp;
pub use svgp_config::SvgpConfig;
