//! Feature extractors ("trunks") of the paper's hybrid networks and the networks built on them.
//!
//! A [`Trunk`] maps an image batch `[B, C, H, W]` to features `[B, D]`; a Bayesian SVM head
//! ([`crate::models::BayesianSvmHead`]) or a softmax layer sits on top ([`HybridNet`], [`SoftmaxNet`]).
mod batch;
mod cifar_trunk;
mod hybrid;
mod mnist_trunk;
mod softmax_net;

pub use batch::{image_batch, ImageBatch};
pub use cifar_trunk::{Cifar10Trunk, Cifar10TrunkConfig};
pub use hybrid::HybridNet;
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

/// Each row of `h` `[B, D]` shifted and scaled to mean 0 and variance 1 over its D entries.
pub fn standardize_rows(h: Tensor<2>) -> Tensor<2> {
    let centred = h.clone() - h.mean_dim(1);
    let sd = centred.clone().powi_scalar(2).mean_dim(1).add_scalar(1e-5).sqrt();
    centred / sd
}

/// The trunks' common end: flatten the feature maps, ReLU `fc1`, linear `fc2`, optionally
/// [`standardize_rows`].
pub(crate) fn dense_tail(maps: Tensor<4>, fc1: &Linear, fc2: &Linear, normalize: bool) -> Tensor<2> {
    let x: Tensor<2> = maps.flatten(1, 3);
    let h = fc2.forward(relu(fc1.forward(x)));
    if normalize {
        standardize_rows(h)
    } else {
        h
    }
}
