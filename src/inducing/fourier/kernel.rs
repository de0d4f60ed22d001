//! Which kernels have variational Fourier features: products and sums of 1-D Matérn ½, ³⁄₂, ⁵⁄₂
//! factors. Other kernels (RBF, the ARD Matérn of the Euclidean distance, …) do not implement
//! [`FourierKernel`], so pairing them with [`super::FourierFeatures`] does not compile.
use burn::tensor::Tensor;

use crate::kernels::{AdditiveMatern, Kernel, MaternNu, SeparableMatern};

/// How the per-dimension feature sets combine into the features of a D-dimensional GP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureStructure {
    /// `f = Σ_d f_d`: features of each dimension (`D·M₁` in all), block-diagonal `K_β`.
    Additive,
    /// `k = Π_d k_d`: tensor-product features (`M₁^D`), `K_β = ⊗_d K_d`.
    Kronecker,
}

impl FeatureStructure {
    /// Total number of features for `dims` dimensions with `per_dim` features each.
    pub(crate) fn num_features(self, dims: usize, per_dim: usize) -> usize {
        match self {
            Self::Additive => dims * per_dim,
            Self::Kronecker => per_dim.pow(dims as u32),
        }
    }
}

/// A kernel built from 1-D Matérn factors, one per input dimension, for which the VFF Gram
/// matrix and cross-covariances are known in closed form.
pub trait FourierKernel: Kernel {
    /// How the factors combine.
    const STRUCTURE: FeatureStructure;
    /// The smoothness of every factor.
    fn nu(&self) -> MaternNu;
    /// Number of input dimensions D.
    fn num_dims(&self) -> usize;
    /// Variance of each factor `[D]` (the amplitude sits on the first factor of a product).
    fn factor_variances(&self) -> Tensor<1>;
    /// Lengthscale of each factor `[D]`.
    fn factor_lengthscales(&self) -> Tensor<1>;
}

impl FourierKernel for AdditiveMatern {
    const STRUCTURE: FeatureStructure = FeatureStructure::Additive;
    fn nu(&self) -> MaternNu {
        self.nu
    }
    fn num_dims(&self) -> usize {
        self.dims()
    }
    fn factor_variances(&self) -> Tensor<1> {
        self.variances.value()
    }
    fn factor_lengthscales(&self) -> Tensor<1> {
        self.lengthscales.value()
    }
}

impl FourierKernel for SeparableMatern {
    const STRUCTURE: FeatureStructure = FeatureStructure::Kronecker;
    fn nu(&self) -> MaternNu {
        self.nu
    }
    fn num_dims(&self) -> usize {
        self.dims()
    }
    fn factor_variances(&self) -> Tensor<1> {
        let v = self.variance.value();
        let d = self.dims();
        if d == 1 {
            return v;
        }
        Tensor::cat(vec![v.clone(), Tensor::ones([d - 1], &v.device())], 0)
    }
    fn factor_lengthscales(&self) -> Tensor<1> {
        self.lengthscales.value()
    }
}
