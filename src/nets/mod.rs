//! Networks with a Gaussian-process head: any Burn network that produces feature vectors (a
//! [`Trunk`]), a [`FeatureNormalizer`] and a sparse GP head on top ([`HybridNet`]), built and
//! trained by one recipe ([`HybridConfig`], [`fit_hybrid`]).
//!
//! The head is a multi-class Bayesian SVM ([`BayesianSvmHead`](crate::models::BayesianSvmHead),
//! the paper's hybrid, for classification) or an SVGP with a Gaussian likelihood (regression);
//! [`HeadLikelihood`] says which likelihoods a head can have. The trunk can be anything: the
//! paper's CNNs ([`MnistTrunk`], [`Cifar10Trunk`]) for images, an MLP for tables, a text encoder.
//! Training data comes from a [`TrainingSet`] ([`ImageSet`](crate::data::ImageSet),
//! [`ClassTable`](crate::data::ClassTable), [`Table`](crate::data::Table)).
//!
//! A GP head on your own network: implement [`Trunk`] for it and hand it to the recipe. In a CNN
//! of your own, [`conv_forward`] and [`max_pool_forward`] apply Burn's `Conv2d` and `MaxPool2d`
//! through the faster CPU path the paper's trunks use.
//!
//! ```no_run
//! use burn::module::Module;
//! use burn::nn::{Linear, LinearConfig};
//! use burn::tensor::{activation::relu, Tensor};
//! use burn_gp::nets::{fit_hybrid, HybridConfig, Trunk};
//! use burn_gp::prelude::*;
//!
//! #[derive(Module, Debug)]
//! struct Mlp {
//!     hidden: Linear,
//!     out: Linear,
//! }
//!
//! impl Trunk for Mlp {
//!     type Input = Tensor<2>;
//!     fn out_dim(&self) -> usize {
//!         self.out.weight.dims()[1]
//!     }
//!     fn features(&self, x: Tensor<2>) -> Tensor<2> {
//!         self.out.forward(relu(self.hidden.forward(x)))
//!     }
//! }
//!
//! # fn main() -> burn_gp::Result<()> {
//! let root = burn_gp::data::data_root(None)?;
//! let iris = burn_gp::data::load_iris(&root)?;
//! let device = default_device()?;
//! let train_device = device.clone().autodiff();
//! let mlp = Mlp { hidden: LinearConfig::new(4, 32).init(&train_device), out: LinearConfig::new(32, 8).init(&train_device) };
//! let recipe = HybridConfig::classes(3);
//! let net = recipe.init(mlp, &iris, &train_device)?;
//! let (net, _history) = fit_hybrid(net, &iris, &recipe, &recipe.train_config(20, 0), |_, _| Ok(vec![]))?;
//! let x = burn_gp::tensors::matrix(iris.table.x.clone(), iris.table.n, 4, &device)?;
//! let accuracy = net.valid().predict(x)?.accuracy(&iris.table.y)?;
//! println!("training accuracy {accuracy:.3}");
//! # Ok(())
//! # }
//! ```
mod augmented_images;
mod batch;
mod cifar_trunk;
mod conv_forward;
mod conv_valid;
mod feature_norm;
mod fgsm;
mod head_config;
mod head_likelihood;
mod hybrid;
mod hybrid_config;
mod hybrid_training;
mod image_prediction;
mod input_standardiser;
#[cfg(feature = "learner")]
pub mod learner;
mod max_pool;
mod max_pool_forward;
mod mnist_trunk;
mod softmax_net;
mod training_set;
mod trunk_ops;

pub use augmented_images::AugmentedImages;
pub use batch::{image_batch, ImageBatch};
pub use cifar_trunk::{Cifar10Trunk, Cifar10TrunkConfig};
pub use conv_forward::conv_forward;
pub use feature_norm::{FeatureNorm, FeatureNormalizer, FrozenStatistics};
pub use fgsm::fgsm;
pub use head_config::GpHeadConfig;
pub use head_likelihood::HeadLikelihood;
pub use hybrid::{GpRegressionNet, HybridNet, HybridObjective};
pub use hybrid_config::HybridConfig;
pub use hybrid_training::{fit_hybrid, fit_hybrid_traced, HybridStep};
pub use input_standardiser::InputStandardiser;
#[cfg(feature = "learner")]
pub use learner::{
    head_loaders, head_loaders_after, HeadBatch, HeadLoader, HeadLoaders, LearnerHead, LearnerNet, SetBatcher,
    SetIndices,
};
pub use max_pool_forward::max_pool_forward;
pub use mnist_trunk::{MnistTrunk, MnistTrunkConfig};
pub use softmax_net::SoftmaxNet;
pub use training_set::TrainingSet;

use burn::module::{Module, ModuleDisplay};
use burn::nn::Linear;
use burn::tensor::activation::relu;
use burn::tensor::Tensor;

use crate::error::{Error, Result};

/// A Burn network that turns a batch of inputs into feature vectors `[B, out_dim]`: the part of a
/// [`HybridNet`] before its GP head.
///
/// `Input` is whatever one batch is: images `Tensor<4>` for the paper's CNNs, rows `Tensor<2>`
/// for an MLP on a table, token ids for a text model.
pub trait Trunk: Module + ModuleDisplay {
    /// One batch of inputs.
    type Input: Clone;
    /// Width of the feature vectors.
    fn out_dim(&self) -> usize;
    /// Features of a batch `[B, out_dim]`.
    fn features(&self, input: Self::Input) -> Tensor<2>;
    /// Checks a batch before the network sees it (shape, finiteness); typed errors, no panics.
    /// The default accepts every batch.
    fn check_input(&self, input: &Self::Input) -> Result<()> {
        let _ = input;
        Ok(())
    }
}

/// The trunks' common end: flatten the feature maps, ReLU `fc1`, linear `fc2`.
pub(crate) fn dense_tail(maps: Tensor<4>, fc1: &Linear, fc2: &Linear) -> Tensor<2> {
    let x: Tensor<2> = maps.flatten(1, 3);
    fc2.forward(relu(fc1.forward(x)))
}

/// Checks that `images` is `[B, C, H, W]` with `[C, H, W] = want`, `B ≥ 1`, and finite.
pub(crate) fn check_image_batch(want: [usize; 3], images: &Tensor<4>) -> Result<()> {
    let [b, c, h, w] = images.dims();
    if b == 0 {
        return Err(Error::Empty { context: "image batch".into() });
    }
    if [c, h, w] != want {
        return Err(Error::shape("image batch [B, C, H, W]", [b, want[0], want[1], want[2]], [b, c, h, w]));
    }
    check_finite_tensor("image batch (NaN or infinite pixel)", images.clone())
}

/// Errors if any entry of `x` is NaN or infinite (one reduction and one read back).
pub(crate) fn check_finite_tensor<const D: usize>(context: &str, x: Tensor<D>) -> Result<()> {
    // x − x is NaN exactly where x is NaN or ±∞.
    let bad = (x.clone() - x).is_nan().any().into_scalar::<bool>();
    if bad {
        return Err(Error::NonFinite { context: context.into(), index: 0 });
    }
    Ok(())
}
