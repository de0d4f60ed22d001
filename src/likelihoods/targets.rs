//! [`Targets`]: how the training targets of each likelihood are given — class indices `0..C`
//! for every classifier, a tensor for regression — and turned into what its terms take.
use burn::tensor::{Device, Tensor, TensorData};

use super::{one_hot, BernoulliProbit, BinaryHinge, Gaussian, Likelihood, MultiClassHinge, RobustMax, Softmax};
use crate::data::check_labels;
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
    /// Checks every target as [`tensor`](Self::tensor) does (the classifiers: in blocks of
    /// rows, so memory is bounded by the block, not by n). By default: builds the tensor.
    fn check(targets: &Self::Targets, latent: usize, device: &Device) -> Result<()> {
        Self::tensor(targets, latent, device).map(|_| ())
    }
    /// The rows `idx` of [`tensor`](Self::tensor)'s result (a minibatch's targets; the
    /// classifiers build them from those rows alone, without a `[n, width]` tensor of all of
    /// them). By default: those rows of the tensor.
    fn rows(targets: &Self::Targets, idx: &[usize], latent: usize, device: &Device) -> Result<Tensor<2>> {
        Ok(crate::models::select_rows(&Self::tensor(targets, latent, device)?, idx))
    }
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

/// A 0/1 column of binary `labels` (one latent GP).
fn binary(labels: &[usize], _latent: usize, device: &Device) -> Result<Tensor<2>> {
    if labels.is_empty() {
        return Err(Error::Empty { context: "labels".into() });
    }
    check_labels("binary labels", labels.iter().copied(), 2)?;
    let values: Vec<f64> = labels.iter().map(|&l| l as f64).collect();
    Ok(Tensor::from_data(TensorData::new(values, [labels.len(), 1]), device))
}

/// `Targets = [usize]` for classifiers whose tensor form `build` gives (one-hot rows or a 0/1
/// column).
macro_rules! class_targets {
    ($($ty:ty => $build:path),+ $(,)?) => {$(
        impl Targets for $ty {
            type Targets = [usize];
            fn count(targets: &[usize]) -> usize {
                targets.len()
            }
            fn tensor(targets: &[usize], latent: usize, device: &Device) -> Result<Tensor<2>> {
                $build(targets, latent, device)
            }
            fn check(targets: &[usize], latent: usize, device: &Device) -> Result<()> {
                if targets.is_empty() {
                    return $build(targets, latent, device).map(|_| ());
                }
                targets.chunks(1 << 16).try_for_each(|block| $build(block, latent, device).map(|_| ()))
            }
            fn rows(targets: &[usize], idx: &[usize], latent: usize, device: &Device) -> Result<Tensor<2>> {
                $build(&idx.iter().map(|&i| targets[i]).collect::<Vec<_>>(), latent, device)
            }
        }
    )+};
}

class_targets! {
    MultiClassHinge => one_hot,
    RobustMax => one_hot,
    Softmax => one_hot,
    BernoulliProbit => binary,
    BinaryHinge => binary,
}
