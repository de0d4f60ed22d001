//! Training a [`FullEpClassifier`]: damped parallel EP passes over all sites interleaved with
//! optimiser steps on the kernel's parameters, the batch schedules of
//! [`FullEpClassifierConfig`](super::FullEpClassifierConfig)
//! ([`EpMode::Inner`]: one pass per step; [`EpMode::Outer`]: EP to convergence before every step).
use std::cell::RefCell;

use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use faer::MatRef;

use super::model::{FullEpClassifier, FullEpFitted, HostCovariance};
use super::posterior::FullEpPosterior;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::models::ep::{update_sites, Backoff, EpMode, EpSites, PassReport};
use crate::models::{check_inputs, ClassPredictive};
use crate::tensors::to_vec;
use crate::train::{fit_loop_checkpointed, optimizer_bytes, BlobReader, History, LoopState, StepIndex, TrainConfig};

/// Retries of a step after a non-finite result, each with halved damping and step size.
const MAX_BACKOFFS: usize = 6;

/// The posterior of `sites` at `K`, `log Z_EP` and the cavities of its training marginals.
fn energy(
    k: MatRef<'_, f64>,
    y: &[f64],
    sites: &EpSites,
) -> Result<(FullEpPosterior, f64, Vec<crate::models::ep::Cavity>)> {
    let q = FullEpPosterior::new(k, sites)?;
    let kdiag: Vec<f64> = (0..k.nrows()).map(|i| k[(i, i)]).collect();
    let (mean, var) = q.latent(k, &kdiag)?;
    let (log_z, cav) = q.log_z(&mean, &var, y, sites);
    Ok((q, log_z, cav))
}

/// One damped parallel EP pass at the prior covariance `k` `[n, n]` (its jitter included) for
/// labels `y = ±1` (R&W Algorithm 3.5 in parallel form: every cavity from the same `q`, then every
/// site updated, `site ← ρ·new + (1 − ρ)·old`): the report and `log Z_EP` at the sites it started
/// from. Repeated until the report's `max_change` is small, it is EP at a fixed kernel.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn full_ep_pass(k: MatRef<'_, f64>, y: &[f64], sites: &mut EpSites, damping: f64) -> Result<(PassReport, f64)> {
    let n = y.len();
    if k.nrows() != n {
        return Err(Error::shape("full_ep_pass: K rows vs labels", n, k.nrows()));
    }
    let (_, log_z, cav) = energy(k, y, sites)?;
    let idx: Vec<usize> = (0..n).collect();
    Ok((update_sites(sites, &idx, y, &vec![0.0; n], &cav, damping), log_z))
}

impl<K: Kernel> FullEpClassifier<K> {
    /// Trains on the rows of `x` `[n, d]` (an autodiff device) with class labels in `{0, 1}`
    /// (class 1 is the positive class) by the model's batch schedule
    /// ([`FullEpClassifierConfig`](super::FullEpClassifierConfig)): per step, EP passes (one, or
    /// until no site changes by more than `ep_tolerance` in [`EpMode::Outer`]), then one step of
    /// `config.optimizer` on the gradient `½ tr(G ∂K/∂θ)` of `log Z_EP` (R&W eq. 5.27), formed as
    /// Burn's autodiff of `½ Σ G ∘ K(θ)` with `G` held constant. `config.epochs` steps, at the
    /// learning rate of `lr` and `schedule`; `progress` and `checkpoint` apply; `batch_size` and
    /// `seed` are not used (every step sees all rows, and nothing here is random).
    /// [`FullEpClassifierConfig::paper_train_config`](super::FullEpClassifierConfig::paper_train_config)
    /// gives sign-adaptive steps as in the sparse EP paper. [`EpMode::Minibatch`] is an error.
    ///
    /// A step that produces a non-finite value is undone and retried with halved damping and
    /// halved step sizes, up to 6 times; then training stops with an error naming the step.
    ///
    /// With `config.checkpoint` set, `<dir>/FullEpClassifier.ckpt` holds the kernel, the
    /// optimiser's state, the sites, the step sizes and the history, and a resumed run ends bit for
    /// bit where the uninterrupted run ends.
    ///
    /// Returns the trained model, which holds its training inputs, sites and posterior (so
    /// [`predict`](Self::predict) answers from them), and the per-step [`History`]
    /// (objective `−log Z_EP / n` at the sites each step started from).
    pub fn fit(self, x: &Tensor<2>, labels: &[usize], config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_evaluated(x, labels, config, |_, _| Ok(Vec::new()))
    }

    /// As [`fit`](Self::fit), with `evaluate(model, step)` after every step returning named
    /// metrics for the progress line and the [`History`] (an error from it stops training).
    pub fn fit_evaluated<E>(
        self,
        x: &Tensor<2>,
        labels: &[usize],
        config: &TrainConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&FullEpClassifier<K>, usize) -> Result<Vec<(String, f64)>>,
    {
        let n = check_inputs("FullEpClassifier::fit", x, self.kernel.input_dim())?;
        let y = &crate::data::binary_signs("FullEpClassifier::fit", labels, n)?[..];
        config.validate()?;
        let schedule = self.schedule; // checked by FullEpClassifierConfig::init
        if schedule.mode == EpMode::Minibatch {
            return Err(Error::invalid("mode", "full EP trains in the batch modes (Inner or Outer), not Minibatch"));
        }
        let train = TrainConfig { batch_size: n, ..config.clone() };
        let (tol, passes) = match schedule.mode {
            EpMode::Outer => (schedule.ep_tolerance, schedule.max_ep_passes.max(1)),
            _ => (0.0, 1),
        };
        let optim = RefCell::new(config.optimizer.init()?);
        let sites = RefCell::new(EpSites::zeros(n));
        let skipped = RefCell::new(0usize);
        let backoff = Backoff::new(schedule.damping_or_default());
        let step = |model: FullEpClassifier<K>, _: &[usize], at: StepIndex| -> Result<(FullEpClassifier<K>, f64)> {
            let mut failure = String::new();
            for _ in 0..=MAX_BACKOFFS {
                let saved = (sites.borrow().clone(), *skipped.borrow());
                let attempt = (|| -> Result<(f64, GradientsParams)> {
                    let k = model.training_covariance(x);
                    let host = HostCovariance::of(&k);
                    let kv = host.view();
                    let mut st = sites.borrow_mut();
                    let mut first_log_z = None;
                    for _ in 0..passes {
                        let (report, log_z) = full_ep_pass(kv, y, &mut st, backoff.damping.get())?;
                        first_log_z.get_or_insert(log_z);
                        *skipped.borrow_mut() += report.skipped;
                        if report.max_change < tol {
                            break;
                        }
                    }
                    let surrogate = model.fixed_site_objective_at(k, kv, &st)?;
                    let grads = GradientsParams::from_grads(surrogate.neg().backward(), &model);
                    Ok((first_log_z.unwrap_or(f64::NAN), grads))
                })();
                match attempt {
                    Ok((log_z, grads)) if log_z.is_finite() => {
                        let next =
                            optim.borrow_mut().step(train.lr_at(at) * backoff.lr_scale.get(), model.clone(), grads);
                        return Ok((next, -log_z / n as f64));
                    }
                    Ok((log_z, _)) => failure = format!("log Z_EP became {log_z}"),
                    Err(e) => failure = e.to_string(),
                }
                *sites.borrow_mut() = saved.0;
                *skipped.borrow_mut() = saved.1;
                backoff.halve();
            }
            Err(Error::NonFinite {
                context: format!(
                    "full EP training at step {}: {failure}; damping and steps halved {MAX_BACKOFFS} times",
                    at.step
                ),
                index: at.step,
            })
        };
        // the checkpoints hold everything the step changes beside the model
        let save = || -> Result<Vec<Vec<u8>>> {
            let count = (*skipped.borrow() as u64).to_le_bytes().to_vec();
            Ok(vec![optimizer_bytes(&optim.borrow())?, backoff.to_blob(), sites.borrow().to_blob(), count])
        };
        let mut load = |blobs: &mut BlobReader<'_>| -> Result<()> {
            blobs.optimizer(&mut optim.borrow_mut())?;
            backoff.load_blob(blobs)?;
            sites.borrow_mut().load_blob(blobs)?;
            *skipped.borrow_mut() = blobs.count()?;
            Ok(())
        };
        let settings = [schedule.mode_code()];
        let resumable = LoopState { kind: "FullEpClassifier", settings: &settings, save: &save, load: &mut load };
        let (model, history) = fit_loop_checkpointed(self, n, &train, "−logZ/N", resumable, step, evaluate)?;
        let sites = sites.into_inner();
        let k = model.training_covariance(x);
        let (posterior, log_marginal_likelihood, _) = energy(HostCovariance::of(&k).view(), y, &sites)?;
        let fitted = FullEpFitted::new(x, sites, skipped.into_inner(), posterior, log_marginal_likelihood);
        Ok((FullEpClassifier { fitted: Some(fitted), ..model }, history))
    }
}

impl<K: Kernel> FullEpClassifier<K> {
    /// The model conditioned on `sites` at training inputs `x` `[n, d]`: the posterior is rebuilt
    /// from the sites at the model's kernel (one `O(n³)` factorisation; how a saved model is
    /// loaded). `log_marginal_likelihood` is recorded as given.
    pub fn with_sites(self, x: &Tensor<2>, sites: EpSites, log_marginal_likelihood: f64) -> Result<Self> {
        let n = check_inputs("FullEpClassifier::with_sites", x, self.kernel.input_dim())?;
        if sites.nu.len() != n || sites.mu.len() != n {
            return Err(Error::shape("FullEpClassifier::with_sites: sites vs rows", n, sites.nu.len()));
        }
        let posterior = FullEpPosterior::new(HostCovariance::of(&self.training_covariance(x)).view(), &sites)?;
        let fitted = FullEpFitted::new(x, sites, 0, posterior, log_marginal_likelihood);
        Ok(Self { fitted: Some(fitted), ..self })
    }

    /// The training inputs `[n, d]` of the last fit on `device` (`None` before a fit).
    pub fn training_inputs(&self, device: &burn::tensor::Device) -> Option<Result<Tensor<2>>> {
        let f = self.fitted.as_ref()?;
        Some(crate::tensors::matrix(f.x.clone(), f.x.len() / f.d.max(1), f.d, device))
    }
    /// The sites of the last fit (`None` before a fit).
    pub fn sites(&self) -> Option<&EpSites> {
        self.fitted.as_ref().map(|f| &f.sites)
    }
    /// Site updates skipped over the last fit because the cavity was improper.
    pub fn skipped(&self) -> usize {
        self.fitted.as_ref().map_or(0, |f| f.skipped)
    }
    /// `q(f)` at the final kernel of the last fit (`None` before a fit).
    pub fn posterior(&self) -> Option<&FullEpPosterior> {
        self.fitted.as_ref().map(|f| &f.posterior)
    }
    /// `log Z_EP` at the final kernel and sites of the last fit (`None` before a fit).
    pub fn log_marginal_likelihood(&self) -> Option<f64> {
        self.fitted.as_ref().map(|f| f.log_marginal_likelihood)
    }
    /// Latent predictive mean and variance at the rows of `x` on the host (R&W Algorithm 3.6);
    /// before a fit, the prior's (0 and `k(x, x)`).
    pub(crate) fn latent_marginals(&self, x: &Tensor<2>) -> Result<(Vec<f64>, Vec<f64>)> {
        let m = check_inputs("FullEpClassifier::predict_f", x, self.kernel.input_dim())?;
        // without autodiff, whichever device the model and the rows are on (no graph is kept)
        let kernel = self.kernel.clone().valid();
        let x = match x.device().is_autodiff() {
            true => x.clone().inner(),
            false => x.clone(),
        };
        let kdiag = to_vec(kernel.k_diag(x.clone()));
        let Some(f) = self.fitted.as_ref() else {
            return Ok((vec![0.0; m], kdiag));
        };
        if x.dims()[1] != f.d {
            return Err(Error::shape("FullEpClassifier::predict_f: input columns", f.d, x.dims()[1]));
        }
        let train = crate::tensors::matrix(f.x.clone(), f.posterior.len(), f.d, &x.device())?;
        let kx = to_vec(kernel.k(train, x));
        f.posterior.latent(MatRef::from_row_major_slice(&kx, f.posterior.len(), m), &kdiag)
    }
    /// Latent predictive means and variances at the rows of `x` (R&W Algorithm 3.6), each
    /// `[n*, 1]` on `x`'s device; before a fit, the prior's (0 and `k(x, x)`).
    pub fn predict_f(&self, x: &Tensor<2>) -> Result<(Tensor<2>, Tensor<2>)> {
        let (m, v) = self.latent_marginals(x)?;
        crate::models::latent_columns(m, v, &x.device())
    }
    /// The predictive at the rows of `x`: latent marginals, exact probit class probabilities,
    /// decisions and their metrics (see [`ClassPredictive::probit`]).
    pub fn predict(&self, x: &Tensor<2>) -> Result<ClassPredictive> {
        let (m, v) = self.latent_marginals(x)?;
        ClassPredictive::probit(&m, &v)
    }
    /// `p(class 1 | x) = Φ(m*/√(1 + s*))` at the rows of `x`.
    pub fn predict_proba(&self, x: &Tensor<2>) -> Result<Vec<f64>> {
        let (m, v) = self.latent_marginals(x)?;
        Ok(crate::models::probit_probabilities(&m, &v))
    }
}
