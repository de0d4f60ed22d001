//! Variational Fourier features (VFF; Hensman, Durrande and Solin 2018) for Matérn ½, ³⁄₂, ⁵⁄₂
//! kernels on an interval, and their additive and separable (Kronecker) multi-dimensional forms:
//! inducing variables whose `K_uu` is "diagonal plus low rank" in closed form.
mod cross;
mod features;
mod gram;
mod kernel;
mod low_rank;
mod spectral;

pub use features::{num_freq_for_budget, FourierFeatures};
pub use gram::VffGram;
pub use kernel::{FeatureStructure, FourierKernel};
