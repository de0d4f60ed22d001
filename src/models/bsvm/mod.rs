//! Bayesian support vector machines (Wistuba & Rawat 2018; Wenzel et al. 2017): sparse variational
//! GPs with the hinge pseudo-likelihoods.
//!
//! A multi-class Bayesian SVM is an [`Svgp`] with C latent GPs that share the kernel and the
//! inducing points, and the Crammer–Singer pseudo-likelihood [`MultiClassHinge`]; its ELBO is the
//! collapsed objective (E3) of `docs/papers/003-bayesian-svm.md` (the paper's eq. 12 with its errata
//! corrected and α at its optimum), closed-form in the marginal means and variances, so it trains by
//! autodiff + Adam on minibatches like any SVGP. The binary Bayesian SVM uses [`BinaryHinge`], and
//! [`OneVsRestBsvm`] combines C of them (the paper's competitor).
//!
//! ```
//! use burn::module::Module;
//! use burn_gp::prelude::*;
//! # fn main() -> burn_gp::Result<()> {
//! let (n, d) = (60, 2);
//! let x: Vec<f64> = (0..n * d).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
//! let labels: Vec<usize> = x.chunks(d).map(|r| usize::from(r[0] > 0.0) + usize::from(r[1] > 1.0)).collect();
//! let device = default_device()?;
//! let train = device.clone().autodiff();
//! let xt = matrix(x.clone(), n, d, &train)?;
//! let model = BayesianSvmConfig::tabular(3).with_num_inducing(8).init(&xt, &labels)?;
//! let config = TrainConfig::new().with_epochs(3).with_batch_size(20).with_progress(false);
//! let (model, _history) = model.fit(&xt, &labels, &config)?;
//! let (model, xs) = (model.valid(), matrix(x, n, d, &device)?);
//! let pred = model.predict(xs.clone())?; // ClassPredictive
//! let (accuracy, uncertainty) = (pred.accuracy(&labels)?, pred.variation_ratio(100, 0));
//! # let _ = (accuracy, uncertainty);
//! let path = std::env::temp_dir().join("burn-gp-doc-bsvm.bgp");
//! model.save(&path)?;
//! assert_eq!(BayesianSvm::<Rbf>::load(&path, &device)?.predict(xs)?.probabilities(), pred.probabilities());
//! # Ok(())
//! # }
//! ```
mod config;
mod natural;
mod updates;

pub use config::BayesianSvmConfig;
pub use natural::HingeNaturalGradient;

use burn::module::Module;
use burn::tensor::Tensor;

use crate::error::{Error, Result};
use crate::inducing::InducingPoints;
use crate::kernels::{Kernel, Rbf};
use crate::likelihoods::{one_hot, BinaryHinge, MultiClassHinge};
use crate::models::{ClassPredictive, Svgp};
use crate::tensors::{matrix, to_vec};
use crate::train::{fit, CheckpointConfig, History, TrainConfig};

/// Multi-class Bayesian SVM: C GPs with a shared kernel and inducing points, Crammer–Singer hinge.
pub type BayesianSvm<K = Rbf> = Svgp<K, InducingPoints, MultiClassHinge>;

/// The same model used as the head of a network: it takes the network's feature tensor `[B, D]`.
pub type BayesianSvmHead<K = Rbf> = BayesianSvm<K>;

/// Binary Bayesian SVM (one GP, hinge pseudo-likelihood, targets 0/1).
pub type BinaryBsvm<K = Rbf> = Svgp<K, InducingPoints, BinaryHinge>;

impl<K: Kernel> BayesianSvm<K> {
    /// Predictive class marginals at `x` `[n, d]` on the host: the decision (`classes`), per-class
    /// means and variances, Gauss–Hermite or Monte Carlo class probabilities, variation ratio and
    /// entropies (see [`ClassPredictive`]).
    pub fn predict(&self, x: Tensor<2>) -> Result<ClassPredictive> {
        let (mean, var) = self.predict_f(x)?;
        ClassPredictive::from_tensors(mean, var)
    }
}

impl<K: Kernel> BinaryBsvm<K> {
    /// The predictive at `x` `[n, d]` as every classifier gives it: class 0 as the fixed
    /// threshold `N(0, 0)` and class 1 as the latent `N(m, v)`, so the decision is the SVM's
    /// `sign(m)` and the quadrature probability of class 1 is `P(f > 0) = Φ(m/√v)`.
    pub fn predict(&self, x: Tensor<2>) -> Result<ClassPredictive> {
        let (m, v) = self.predict_f(x)?;
        let mean = to_vec(m).into_iter().flat_map(|m| [0.0, m]).collect();
        let var = to_vec(v).into_iter().flat_map(|v| [0.0, v]).collect();
        ClassPredictive::new(mean, var, 2)
    }
}

/// Checks `2 ≤ C` and every label `< C`; returns the number of labels.
pub(crate) fn check_labels(labels: &[usize], num_classes: usize) -> Result<usize> {
    if num_classes < 2 {
        return Err(Error::invalid("num_classes", format!("need at least 2 classes, got {num_classes}")));
    }
    if labels.is_empty() {
        return Err(Error::Empty { context: "labels".into() });
    }
    if let Some(&bad) = labels.iter().find(|&&c| c >= num_classes) {
        return Err(Error::LabelOutOfRange { context: "Bayesian SVM".into(), label: bad as i64, num_classes });
    }
    Ok(labels.len())
}

/// One-vs-rest binary Bayesian SVMs (Wenzel et al. 2017), the multi-class model's competitor.
#[derive(Module, Debug)]
pub struct OneVsRestBsvm<K: Kernel> {
    /// Model `c` separates class `c` (target 1) from the rest (target 0).
    pub models: Vec<BinaryBsvm<K>>,
}

impl<K: Kernel> OneVsRestBsvm<K> {
    /// Number of classes.
    pub fn num_classes(&self) -> usize {
        self.models.len()
    }
    /// Latent marginals `[n, C]`: column `c` is model `c`'s decision function. Predict `argmax_c`.
    pub fn predict_f(&self, x: Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let mut means = Vec::with_capacity(self.models.len());
        let mut vars = Vec::with_capacity(self.models.len());
        for model in &self.models {
            let (m, v) = model.predict_f(x.clone())?;
            means.push(m);
            vars.push(v);
        }
        Ok((Tensor::cat(means, 1), Tensor::cat(vars, 1)))
    }
    /// Predictive class marginals at `x` on the host (decision `argmax_c` of the C decision functions).
    pub fn predict(&self, x: Tensor<2>) -> Result<ClassPredictive> {
        let (mean, var) = self.predict_f(x)?;
        ClassPredictive::from_tensors(mean, var)
    }
    /// Trains the C binary models one after another on `x` `[n, d]` with class `labels`, each by
    /// [`fit`] with `config` (so the cost is C times one binary model's). `x` must be on the
    /// models' (autodiff) device. The history has one record per epoch: the objective is the sum
    /// of the C models' (each `−ELBO / N`), the seconds are summed over the models, and the
    /// metrics `class c objective` hold each model's curve. With [`TrainConfig::checkpoint`] set,
    /// model `c` checkpoints in the sub-folder `class<c>` of its folder (the models share a type
    /// and settings, so one file would mix them), and a resumed fit reads the finished models back.
    pub fn fit(self, x: &Tensor<2>, labels: &[usize], config: &TrainConfig) -> Result<(Self, History)> {
        let c = self.num_classes();
        let n = check_labels(labels, c)?;
        let device = x.device();
        let targets = to_vec(one_hot(labels, c, &device)?);
        let mut models = Vec::with_capacity(c);
        let mut histories = Vec::with_capacity(c);
        for (class, model) in self.models.into_iter().enumerate() {
            let y: Vec<f64> = (0..n).map(|i| targets[i * c + class]).collect();
            let y = matrix(y, n, 1, &device)?;
            let config = TrainConfig {
                checkpoint: config
                    .checkpoint
                    .as_ref()
                    .map(|c| CheckpointConfig { dir: c.dir.join(format!("class{class}")), ..c.clone() }),
                ..config.clone()
            };
            let (model, history) =
                fit(model, n, &config, |m, idx| m.minibatch_loss(x, &y, idx), |_, _| Ok(Vec::new()))?;
            models.push(model);
            histories.push(history);
        }
        Ok((Self { models }, combined_history(&histories)))
    }
}

/// One history for models trained one after another over the same epochs: per epoch, the summed
/// objective and seconds (elapsed: cumulative), and each model's objective as a metric.
fn combined_history(histories: &[History]) -> History {
    let epochs = histories.iter().map(|h| h.records.len()).min().unwrap_or(0);
    let mut elapsed = 0.0;
    let records = (0..epochs)
        .map(|e| {
            let at = |h: &History| h.records[e].clone();
            let epoch_s: f64 = histories.iter().map(|h| at(h).epoch_s).sum();
            elapsed += epoch_s;
            crate::train::EpochRecord {
                epoch: e + 1,
                objective: histories.iter().map(|h| at(h).objective).sum(),
                epoch_s,
                elapsed_s: elapsed,
                metrics: histories
                    .iter()
                    .enumerate()
                    .map(|(c, h)| (format!("class {c} objective"), at(h).objective))
                    .collect(),
            }
        })
        .collect();
    History { records }
}
