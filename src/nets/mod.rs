//! Feature extractors ("trunks") of the paper's hybrid networks and the networks built on them.
//!
//! A [`Trunk`] maps an image batch `[B, C, H, W]` to features `[B, D]`; a Bayesian SVM head
//! ([`crate::models::BayesianSvmHead`]) behind a [`FeatureNormalizer`] ([`HybridNet`], built and
//! trained by the recipe [`HybridConfig`] with [`fit_hybrid`]) or a softmax layer ([`SoftmaxNet`])
//! sits on top.
mod batch;
mod cifar_trunk;
mod feature_norm;
mod hybrid;
mod hybrid_config;
mod hybrid_training;
mod mnist_trunk;
mod softmax_net;

pub use batch::{image_batch, ImageBatch};
pub use cifar_trunk::{Cifar10Trunk, Cifar10TrunkConfig};
pub use feature_norm::{standardize_rows, FeatureNorm, FeatureNormalizer};
pub use hybrid::{HybridNet, HybridObjective};
pub use hybrid_config::HybridConfig;
pub use hybrid_training::{fit_hybrid, fit_hybrid_traced, HybridStep};
pub use mnist_trunk::{MnistTrunk, MnistTrunkConfig};
pub use softmax_net::SoftmaxNet;

use burn::module::{Module, ModuleDisplay};
use burn::nn::Linear;
use burn::tensor::activation::relu;
use burn::tensor::Tensor;

/// A network that turns images `[B, C, H, W]` into feature vectors `[B, out_dim]`.
pub trait Trunk: Module + ModuleDisplay {
    /// Expected input shape `[C, H, W]` of one image.
    fn input_shape(&self) -> [usize; 3];
    /// Width of the feature vectors.
    fn out_dim(&self) -> usize;
    /// Features of a batch of images.
    fn features(&self, images: Tensor<4>) -> Tensor<2>;
}

/// The trunks' common end: flatten the feature maps, ReLU `fc1`, linear `fc2`.
pub(crate) fn dense_tail(maps: Tensor<4>, fc1: &Linear, fc2: &Linear) -> Tensor<2> {
    let x: Tensor<2> = maps.flatten(1, 3);
    fc2.forward(relu(fc1.forward(x)))
}
