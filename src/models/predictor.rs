//! [`Predictor`]: what every trained model answers, so evaluation code can be written once for
//! all models; [`Predictive`]: what its predictions answer.
//!
//! ```no_run
//! use burn::tensor::Tensor;
//! use burn_gp::models::{ClassPredictive, Predictor};
//!
//! /// Test accuracy and NLL of any classifier of the crate.
//! fn evaluate<M: Predictor<Predictive = ClassPredictive>>(
//!     model: &M,
//!     x: &Tensor<2>,
//!     labels: &[usize],
//! ) -> burn_gp::Result<(f64, f64)> {
//!     let pred = model.predict(x)?;
//!     Ok((pred.accuracy(labels)?, pred.nll(labels)?))
//! }
//! ```
use burn::tensor::Tensor;

use super::{ClassPredictive, GaussianPredictive};
use crate::error::Result;
use crate::inducing::{InducingPoints, InducingVariables};
use crate::kernels::Kernel;
use crate::likelihoods::{BernoulliProbit, BinaryHinge, Gaussian, MultiClassHinge};

/// A predictive distribution at some test rows that scores targets.
pub trait Predictive {
    /// The targets it scores: class indices `0..C` (`[usize]`) or real values `[n, outputs]`
    /// row-major (`[f64]`).
    type Targets: ?Sized;
    /// `log p(y_i | x_i, data)` per test row.
    fn log_density(&self, targets: &Self::Targets) -> Result<Vec<f64>>;
}

impl Predictive for ClassPredictive {
    type Targets = [usize];
    fn log_density(&self, labels: &[usize]) -> Result<Vec<f64>> {
        ClassPredictive::log_density(self, labels)
    }
}

impl Predictive for GaussianPredictive {
    type Targets = [f64];
    fn log_density(&self, y: &[f64]) -> Result<Vec<f64>> {
        GaussianPredictive::log_density(self, y)
    }
}

/// A trained model's predictions at the rows of `x` `[n, d]`: one name for the latent marginals
/// (`predict_f`), one for the predictive distribution (`predict`: a [`ClassPredictive`] for
/// classifiers, a [`GaussianPredictive`] for regression) and one return type for log densities.
/// The models' own methods of the same names take their input as the model documents it; these
/// take it by reference for every model.
pub trait Predictor {
    /// What [`predict`](Self::predict) returns.
    type Predictive: Predictive;
    /// Means and variances of the latent `f(x)`, each `[n, latent GPs]` (the latent function of
    /// the last layer for a deep GP; the class-1 latent for a binary classifier).
    fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)>;
    /// The predictive distribution at the rows of `x`, on the host.
    fn predict(&self, x: &Tensor<2>) -> Result<Self::Predictive>;
    /// `log p(y_i | x_i, data)` per row of `x`, from [`predict`](Self::predict).
    fn predict_log_density(
        &self,
        x: &Tensor<2>,
        targets: &<Self::Predictive as Predictive>::Targets,
    ) -> Result<Vec<f64>> {
        self.predict(x)?.log_density(targets)
    }
}

/// [`Predictor`] for a model whose inherent `predict_f` and `predict` take their input by value.
macro_rules! predictor_by_value {
    ($predictive:ty, [$($generics:tt)*] $model:ty) => {
        impl<$($generics)*> Predictor for $model {
            type Predictive = $predictive;
            fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
                <$model>::predict_f(self, x.clone())
            }
            fn predict(&self, x: &Tensor<2>) -> Result<$predictive> {
                <$model>::predict(self, x.clone())
            }
        }
    };
}

/// [`Predictor`] for a model whose inherent `predict_f` and `predict` take their input by reference.
macro_rules! predictor_by_reference {
    ($predictive:ty, [$($generics:tt)*] $model:ty) => {
        impl<$($generics)*> Predictor for $model {
            type Predictive = $predictive;
            fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
                <$model>::predict_f(self, x)
            }
            fn predict(&self, x: &Tensor<2>) -> Result<$predictive> {
                <$model>::predict(self, x)
            }
        }
    };
}

predictor_by_value!(GaussianPredictive, [K: Kernel, I: InducingVariables<K>] super::Svgp<K, I, Gaussian>);
predictor_by_value!(ClassPredictive, [K: Kernel, I: InducingVariables<K>] super::Svgp<K, I, BernoulliProbit>);
predictor_by_value!(ClassPredictive, [K: Kernel] super::Svgp<K, InducingPoints, MultiClassHinge>);
predictor_by_value!(ClassPredictive, [K: Kernel] super::Svgp<K, InducingPoints, BinaryHinge>);
predictor_by_value!(ClassPredictive, [K: Kernel] super::OneVsRestBsvm<K>);
predictor_by_value!(GaussianPredictive, [K: Kernel, I: InducingVariables<K>] super::DecoupledGp<K, I, Gaussian>);
predictor_by_value!(GaussianPredictive, [K: Kernel, I: InducingVariables<K>] super::Sgpr<K, I>);
predictor_by_value!(GaussianPredictive, [K: Kernel] super::ExactGpr<K>);
predictor_by_reference!(ClassPredictive, [K: Kernel] super::EpGpClassifier<K>);
predictor_by_reference!(ClassPredictive, [K: Kernel] super::FullEpClassifier<K>);
predictor_by_reference!(ClassPredictive, [K: Kernel] super::SkewGp<K>);

impl Predictor for super::DeepGp {
    type Predictive = GaussianPredictive;
    /// The last layer's latent function: the predictive moments less the observation noise.
    fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let (mean, var) = self.predict_moments(x.clone())?;
        let noise = self.blocks.last().map(|b| b.gp.noise_variance().detach());
        Ok(match noise {
            Some(noise) => (mean, (var - noise.unsqueeze::<2>()).clamp_min(0.0)),
            None => (mean, var),
        })
    }
    fn predict(&self, x: &Tensor<2>) -> Result<GaussianPredictive> {
        super::DeepGp::predict(self, x.clone())
    }
}
