//! Variational Fourier features (VFF; Hensman, Durrande and Solin 2018) for Matérn ½, ³⁄₂, ⁵⁄₂
//! kernels on an interval, and their additive and separable (Kronecker) multi-dimensional forms:
//! inducing variables whose `K_uu` is "diagonal plus low rank" in closed form.
mod cross;
mod features;
mod gram;
mod kernel;
mod low_rank;
mod spectral;

pub use cross::{combine_features, dimension_features, FeatureGrid};
pub use features::{
    interval_margins, num_freq_for_budget, FourierFeatures, MARGIN_LENGTHSCALES, MAX_KRONECKER_FEATURES,
};
pub use gram::VffGram;
pub use kernel::{FeatureStructure, FourierKernel};
pub use low_rank::DiagLowRank;
pub use spectral::{dimension_grams, inverse_spectral_density, DimensionGrams};
