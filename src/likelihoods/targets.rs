//! [`Targets`]: how the training targets of each likelihood are given — class indices `0..C`
//! for every classifier, a tensor for regression — and turned into what its terms take.
use burn::tensor::{Device, Tensor, TensorData};

use super::{one_hot, BernoulliProbit, BinaryHinge, Gaussian, Likelihood, MultiClassHinge, RobustMax, Softmax};
use crate::error::{Error, Result};

/// A likelihood's training targets as a user gives them, and their tensor form.
pub trait Targets: Likelihood {
    /// `[usize]` class indices `0..C` (binary: `{0, 1}`) for classifiers, `Tensor<2>`
    /// `[n, outputs]` for regression.
    type Targets: ?Sized;
    /// Number of targets (rows).
    fn count(targets: &Self::Targets) -> usize;
    /// The `[n, width]` tensor the likelihood's terms take, for a model with `latent` latent GPs:
    /// one-hot rows (multi-class), a 0/1 column (binary) or the values; a label out of range is
    /// [`Error::LabelOutOfRange`], a width that does not fit is [`Error::ShapeMismatch`].
    fn tensor(targets: &Self::Targets, latent: usize, device: &Device) -> Result<Tensor<2>>;
}

impl Targets for Gaussian {
    type Targets = Tensor<2>;
    fn count(targets: &Tensor<2>) -> usize {
        targets.dims()[0]
    }
    fn tensor(targets: &Tensor<2>, latent: usize, device: &Device) -> Result<Tensor<2>> {
        let [n, p] = targets.dims();
        if p != latent {
            return Err(Error::shape("regression targets [n, outputs]", [n, latent], [n, p]));
        }
        Ok(targets.clone().to_device(device))
    }
}

/// One-hot rows of `labels` for `latent` classes.
fn classes(labels: &[usize], latent: usize, device: &Device) -> Result<Tensor<2>> {
    one_hot(labels, latent, device)
}

/// A 0/1 column of binary `labels`.
fn binary(labels: &[usize], device: &Device) -> Result<Tensor<2>> {
    if labels.is_empty() {
        return Err(Error::Empty { context: "labels".into() });
    }
    if let Some(&bad) = labels.iter().find(|&&l| l > 1) {
        return Err(Error::LabelOutOfRange { context: "binary labels".into(), label: bad as i64, num_classes: 2 });
    }
    let values: Vec<f64> = labels.iter().map(|&l| l as f64).collect();
    Ok(Tensor::from_data(TensorData::new(values, [labels.len(), 1]), device))
}

macro_rules! class_targets {
    ($($ty:ty => $build:expr),+ $(,)?) => {$(
        impl Targets for $ty {
            type Targets = [usize];
            fn count(targets: &[usize]) -> usize {
                targets.len()
            }
            fn tensor(targets: &[usize], latent: usize, device: &Device) -> Result<Tensor<2>> {
                let build: fn(&[usize], usize, &Device) -> Result<Tensor<2>> = $build;
                build(targets, latent, device)
            }
        }
    )+};
}

class_targets! {
    MultiClassHinge => classes,
    RobustMax => classes,
    Softmax => classes,
    BernoulliProbit => |labels, _, device| binary(labels, device),
    BinaryHinge => |labels, _, device| binary(labels, device),
}
