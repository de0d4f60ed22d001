//! Training an [`EpGpClassifier`]: EP site refinements interleaved with hyperparameter steps on
//! the surrogate objective (paper §2.3 and appendix A.6; `docs/papers/001-ep-classification.md`,
//! section "Training schedules"), in the three modes of [`EpMode`].
use std::cell::{Cell, RefCell};

use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use faer::{Accum, Mat, Par};

use super::config::EpMode;
use super::frozen::frozen_posterior;
use super::model::{EpGpClassifier, FrozenPosterior};
use super::posterior::{cavity, update_sites, Cavity, Fitc, PassReport, Projection, WhitenedPosterior, CAVITY_GUARD};
use super::reducer::{HostReducer, ShardReducer};
use super::shards::{shard_ranges, sharded_frozen, sharded_objective, sharded_pass, Shards};
use super::state::{EpState, Snapshot};
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::linalg::host::{matmul_into, solve_upper_in_place};
use crate::models::select_rows;
use crate::train::{
    f64_bytes, fit_loop_checkpointed, optimizer_bytes, BlobReader, History, LoopState, StepIndex, TrainConfig,
};

/// Retries of a step after a non-finite result, each with halved damping and step size.
const MAX_BACKOFFS: usize = 6;

/// The EP damping and the scale of the hyperparameter steps of a training loop, both halved on
/// every retry of a failed step (and kept halved); part of the loop's checkpoints.
pub(crate) struct Backoff {
    /// EP damping ρ.
    pub damping: Cell<f64>,
    /// Factor on the optimiser's step.
    pub lr_scale: Cell<f64>,
}

impl Backoff {
    /// Damping `damping` and full steps.
    pub(crate) fn new(damping: f64) -> Self {
        Self { damping: Cell::new(damping), lr_scale: Cell::new(1.0) }
    }
    /// Halves both.
    pub(crate) fn halve(&self) {
        self.damping.set(0.5 * self.damping.get());
        self.lr_scale.set(0.5 * self.lr_scale.get());
    }
    /// Both as a checkpoint blob.
    pub(crate) fn to_blob(&self) -> Vec<u8> {
        f64_bytes(&[self.damping.get(), self.lr_scale.get()])
    }
    /// Both from the next blob (one of [`to_blob`](Self::to_blob)).
    pub(crate) fn load_blob(&self, blobs: &mut BlobReader<'_>) -> Result<()> {
        let v = blobs.f64s(Some(2))?;
        self.damping.set(v[0]);
        self.lr_scale.set(v[1]);
        Ok(())
    }
}

/// Cavities of sites `idx` along the directions `p` was projected on.
fn cavities(p: &Projection, state: &EpState, idx: &[usize]) -> Vec<Cavity> {
    idx.iter().enumerate().map(|(k, &i)| cavity(p.t_hat[k], p.v_hat[k], state.sites.nu[i], state.sites.mu[i])).collect()
}

/// `L⁻ᵀΨ`: the u-space directions `υ_i` as columns.
fn directions(fitc: &Fitc) -> Mat<f64> {
    let mut u = fitc.psi.clone();
    solve_upper_in_place(fitc.l.transpose(), u.as_mut(), Par::Seq);
    u
}

/// Minibatch mode (paper §2.3, "Training using minibatches"; steps 1–6 in
/// `docs/papers/001-ep-classification.md`, section "Training schedules") on the points `idx` (`fitc`
/// and `y` hold just those points): cavities with the stored and the current directions, damped site updates,
/// incremental site sums, then the surrogate's constants.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn minibatch_update(
    fitc: &Fitc,
    y: &[f64],
    idx: &[usize],
    state: &mut EpState,
    damping: f64,
) -> Result<(FrozenPosterior, PassReport)> {
    let m = fitc.num_inducing();
    let b = idx.len();
    let sums = state.sums.as_ref().ok_or_else(|| Error::invalid("EpState", "minibatch mode needs stored site sums"))?;
    let q = sums.posterior(fitc.l.as_ref())?;
    let stored = Mat::from_fn(m, b, |r, k| sums.directions[(r, idx[k])]);
    let mut psi_st = Mat::zeros(m, b);
    matmul_into(psi_st.as_mut(), Accum::Replace, fitc.l.transpose(), stored.as_ref(), 1.0, Par::Seq);
    let p = q.project(fitc.psi.as_ref());
    let p_st = q.project(psi_st.as_ref());
    let cav: Vec<Cavity> = (0..b)
        .map(|k| {
            let (nu, mu) = (state.sites.nu[idx[k]], state.sites.mu[idx[k]]);
            let d = 1.0 - nu * p_st.v_hat[k];
            if d <= CAVITY_GUARD || !d.is_finite() {
                return Cavity { a: p.t_hat[k], c: p.v_hat[k], kappa: 0.0, cfac: 0.0, proper: false };
            }
            let (kappa, cfac) = ((nu * p_st.t_hat[k] - mu) / d, nu / d);
            let r: f64 = p.g.col(k).iter().zip(p_st.g.col(k).iter()).map(|(a, b)| a * b).sum();
            Cavity { a: p.t_hat[k] + r * kappa, c: p.v_hat[k] + cfac * r * r, kappa, cfac, proper: true }
        })
        .collect();
    let old: Vec<(f64, f64)> = idx.iter().map(|&i| (state.sites.nu[i], state.sites.mu[i])).collect();
    let report = update_sites(&mut state.sites, idx, y, &fitc.s, &cav, damping);
    state.skipped += report.skipped;
    // S ← S − Σ ν̃_old υ^{st}υ^{stᵀ} + Σ ν̃_new υυᵀ ;  e ← e − Σ μ̃_old υ^{st} + Σ μ̃_new υ
    let ups = directions(fitc);
    let sums = state.sums.as_mut().expect("checked above");
    let new_scaled = Mat::from_fn(m, b, |r, k| ups[(r, k)] * state.sites.nu[idx[k]]);
    let old_scaled = Mat::from_fn(m, b, |r, k| stored[(r, k)] * old[k].0);
    matmul_into(sums.s.as_mut(), Accum::Add, new_scaled.as_ref(), ups.transpose(), 1.0, Par::Seq);
    matmul_into(sums.s.as_mut(), Accum::Add, old_scaled.as_ref(), stored.transpose(), -1.0, Par::Seq);
    for r in 0..m {
        for k in 0..b {
            sums.e[r] += state.sites.mu[idx[k]] * ups[(r, k)] - old[k].1 * stored[(r, k)];
        }
        for c in 0..r {
            let v = 0.5 * (sums.s[(r, c)] + sums.s[(c, r)]);
            sums.s[(r, c)] = v;
            sums.s[(c, r)] = v;
        }
    }
    for k in 0..b {
        for r in 0..m {
            sums.directions[(r, idx[k])] = ups[(r, k)];
        }
    }
    let q = sums.posterior(fitc.l.as_ref())?;
    let p = q.project(fitc.psi.as_ref());
    let cav = cavities(&p, state, idx);
    Ok((frozen_posterior(&q, fitc, &p, &cav), report))
}

impl<K: Kernel> EpGpClassifier<K> {
    /// Trains on the rows of `x` `[n, d]` (an autodiff device) with class labels `labels` in
    /// `{0, 1}` (class 1 is the positive class of the probit likelihood) by the model's EP schedule
    /// ([`EpGpClassifierConfig`](super::EpGpClassifierConfig)) and `config`: `epochs` iterations
    /// (batch modes: one EP pass and one step on all rows each; `batch_size` is not used) or
    /// epochs of minibatches of `batch_size` (minibatch mode, shuffled by `seed`); every step is
    /// `config.optimizer`'s on the gradient of `log Z_q` (of its minibatch estimate), scaled by
    /// the learning rate of `lr` and `schedule`; `progress` and `checkpoint` apply.
    /// [`EpGpClassifierConfig::paper_train_config`](super::EpGpClassifierConfig::paper_train_config)
    /// gives the paper's settings (sign-adaptive steps, or Adadelta in minibatch mode). The trained
    /// model, holding its EP sites and `q(u)` ([`posterior`](Self::posterior),
    /// [`log_marginal_likelihood`](Self::log_marginal_likelihood)), and the per-iteration (batch
    /// modes) or per-epoch (minibatch) [`History`]; see [`fit_evaluated`](Self::fit_evaluated).
    pub fn fit(self, x: &Tensor<2>, labels: &[usize], config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_evaluated(x, labels, config, |_, _, _| Ok(Vec::new()))
    }

    /// As [`fit`](Self::fit), with progress metrics.
    ///
    /// `evaluate(model, q, epoch)` runs after every `evaluate_every`-th iteration (batch
    /// modes) or epoch (minibatch), and after the last, with the model and its posterior at the
    /// current hyperparameters (building that posterior costs O(nm²) in the batch modes); it returns named metrics
    /// for the progress line and the [`History`]. The history's objective is `−log Z_q / n` in the
    /// batch modes and the mean of `−L̃ / n` over the epoch's minibatches in minibatch mode.
    ///
    /// A step that produces a non-finite value is undone and retried with halved damping and
    /// halved step sizes, up to 6 times; then training stops with an error naming the step.
    ///
    /// With `config.checkpoint` set, `<dir>/EpGpClassifier.ckpt` holds the model, the optimiser's
    /// state, the EP state (sites; in minibatch mode also the stored directions and sums), the
    /// step sizes and the history, written every `every_epochs` iterations or epochs and after the
    /// last; a resumed run ends bit for bit where the uninterrupted run ends. A checkpoint of
    /// another run (data size, mode, batch size, iterations or epochs, seed, inducing points) is
    /// [`Error::InvalidArgument`], a damaged one [`Error::BadFormat`].
    pub fn fit_evaluated<E>(
        self,
        x: &Tensor<2>,
        labels: &[usize],
        config: &TrainConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&EpGpClassifier<K>, &WhitenedPosterior, usize) -> Result<Vec<(String, f64)>>,
    {
        self.fit_with_reducer(x, labels, config, &HostReducer, evaluate)
    }

    /// As [`Self::fit_evaluated`], with the batch modes' shard statistics combined by `reducer` (one shard
    /// per reducer device when it names devices, else the schedule's `shards` shards on `x`'s device). Only
    /// the batch modes are sharded; minibatch mode ignores the reducer.
    pub fn fit_with_reducer<E>(
        self,
        x: &Tensor<2>,
        labels: &[usize],
        config: &TrainConfig,
        reducer: &dyn ShardReducer,
        mut evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&EpGpClassifier<K>, &WhitenedPosterior, usize) -> Result<Vec<(String, f64)>>,
    {
        let n = crate::models::check_inputs("EpGpClassifier::fit", x, Some(self.input_dim()))?;
        let y = &crate::data::binary_signs("EpGpClassifier::fit", labels, n)?[..];
        let m = self.num_inducing();
        if m > n {
            return Err(Error::invalid("inducing points", format!("m = {m} exceeds the {n} training points")));
        }
        config.validate()?;
        // checked when the model took them (EpGpClassifierConfig::init, with_ep_schedule)
        let settings = self.settings.clone();
        let schedule = settings.schedule;
        let minibatch = schedule.mode == EpMode::Minibatch;
        if minibatch && config.batch_size == 0 {
            return Err(Error::invalid("batch_size", "must be positive"));
        }
        let state = RefCell::new(EpState::new(n, m, minibatch));
        // the batch modes step on all rows in their order (one batch of n per "epoch")
        let train = match minibatch {
            true => config.clone(),
            false => TrainConfig { batch_size: n, ..config.clone() },
        };
        let optim = RefCell::new(config.optimizer.init()?);
        let outer = (schedule.mode == EpMode::Outer).then_some((schedule.ep_tolerance, schedule.max_ep_passes));
        let shards = if minibatch {
            None
        } else {
            let k = reducer.devices().map_or(settings.shards, <[_]>::len);
            Some(Shards::new(x, y, shard_ranges(n, k)?, reducer.devices())?)
        };
        let backoff = Backoff::new(schedule.damping_or_default());
        let last_log_z = Cell::new(None);
        // minibatch mode rebuilds S and e from the stored sites at the start of every epoch but the
        // first (where every site is zero and the sums are exactly zero: the O(nm²) pass over the
        // stored directions would give the same zeros)
        let current_epoch = Cell::new(0);
        // the points a step touches: the batch, or every point in the batch modes (minibatch mode
        // makes no N-sized index list)
        let all: Vec<usize> = if minibatch { Vec::new() } else { (0..n).collect() };
        // minibatch mode checks that a step's K_uu factorises in the next step's own factorisation
        // (no extra K_uu per step): it keeps the model before the last step and that step's
        // snapshot, to undo the step when the next one finds K_uu singular; the last step of an
        // epoch is checked at once, so a checkpoint holds a checked model and nothing to undo
        let previous: RefCell<Option<(EpGpClassifier<K>, Snapshot)>> = RefCell::new(None);
        let step = |model: EpGpClassifier<K>, batch: &[usize], at: StepIndex| -> Result<(EpGpClassifier<K>, f64)> {
            let mut model = model;
            // the loop's steps per epoch: the run's steps over its epochs
            let checked_now = !minibatch || at.step.is_multiple_of(at.steps / train.epochs.max(1));
            if minibatch && at.epoch != current_epoch.get() && at.epoch > 1 {
                current_epoch.set(at.epoch);
                let mut st = state.borrow_mut();
                let EpState { sites, sums, .. } = &mut *st;
                if let Some(sums) = sums.as_mut() {
                    sums.rebuild(sites);
                }
            }
            let xb = if minibatch { select_rows(x, batch) } else { x.clone() };
            // batch modes see every point in its original order (the shuffled batch is all of 0..n)
            let yb: Vec<f64> = if minibatch { batch.iter().map(|&i| y[i]).collect() } else { y.to_vec() };
            let scale = n as f64 / batch.len() as f64;
            let mut failure = String::new();
            for _ in 0..=MAX_BACKOFFS {
                let saved = state.borrow().snapshot(if minibatch { batch } else { &all });
                let singular_start = Cell::new(false);
                let attempt = (|| -> Result<(f64, GradientsParams, Option<f64>)> {
                    let mut st = state.borrow_mut();
                    // the step rules act on the gradient of log Z_q itself (not of log Z_q / n)
                    match &shards {
                        None => {
                            // K_uu and K_uf once per step, for the site updates and the surrogate
                            let kernels = model.step_kernels(&xb);
                            let fitc = model.fitc_of(&kernels).inspect_err(|_| singular_start.set(true))?;
                            let frozen = minibatch_update(&fitc, &yb, batch, &mut st, backoff.damping.get())?.0;
                            let loss = model.surrogate_at(kernels, &yb, &frozen, scale)?.neg();
                            let value = loss.clone().into_scalar::<f64>();
                            Ok((value, GradientsParams::from_grads(loss.backward(), &model), None))
                        }
                        Some(shards) => {
                            let fitcs = shards.fitc(&model)?;
                            let (tol, passes) = outer.unwrap_or((0.0, 1));
                            for _ in 0..passes {
                                let damping = backoff.damping.get();
                                let report = sharded_pass(&fitcs, shards, &mut st.sites, damping, reducer)?;
                                st.skipped += report.skipped;
                                if report.max_change < tol {
                                    break;
                                }
                            }
                            let (q, frozen) = sharded_frozen(&fitcs, shards, &st.sites, reducer)?;
                            let (value, grads, log_z) = sharded_objective(&model, shards, &q, &frozen, reducer)?;
                            Ok((value, grads, Some(log_z)))
                        }
                    }
                })();
                match attempt {
                    Ok((value, grads, log_z)) => {
                        let value = value / n as f64;
                        if value.is_finite() && log_z.is_none_or(f64::is_finite) {
                            let lr = train.lr_at(at) * backoff.lr_scale.get();
                            let next = optim.borrow_mut().step(lr, model.clone(), grads);
                            let objective = log_z.map_or(value, |l| -l / n as f64);
                            if !checked_now {
                                #[cfg(test)]
                                let next = poison::maybe(next, at.step);
                                *previous.borrow_mut() = Some((model, saved));
                                last_log_z.set(log_z);
                                return Ok((next, objective));
                            }
                            if next.chol_kuu().is_ok() {
                                previous.borrow_mut().take();
                                last_log_z.set(log_z);
                                return Ok((next, objective));
                            }
                            failure = "the step made K_uu singular or non-finite".into();
                        } else {
                            failure = format!("the objective became {value}");
                        }
                    }
                    Err(e) => {
                        // K_uu of the incoming model does not factorise: the last step (not yet
                        // checked) made it singular, so it is undone and this step retried from
                        // the model before it, with halved damping and steps
                        if let (true, Some((before, undo))) = (singular_start.get(), previous.borrow_mut().take()) {
                            let mut st = state.borrow_mut();
                            st.restore(saved);
                            st.restore(undo);
                            model = before;
                            backoff.halve();
                            continue;
                        }
                        failure = e.to_string();
                    }
                }
                state.borrow_mut().restore(saved);
                backoff.halve();
            }
            Err(Error::NonFinite {
                context: format!(
                    "EP training at step {} (epoch {}): {failure}; damping and steps halved {MAX_BACKOFFS} times",
                    at.step, at.epoch
                ),
                index: at.step,
            })
        };
        let last = train.epochs;
        let eval = |model: &EpGpClassifier<K>, epoch: usize| -> Result<Vec<(String, f64)>> {
            let every = settings.evaluate_every;
            if epoch != last && (every == 0 || !epoch.is_multiple_of(every)) {
                return Ok(vec![]);
            }
            let q = state.borrow().posterior(model, x)?;
            evaluate(model, &q, epoch)
        };
        let label = if minibatch { "−L̃/N" } else { "−logZq/N" };
        // the checkpoints hold everything the step changes beside the model
        let save = || -> Result<Vec<Vec<u8>>> {
            let mut blobs = vec![optimizer_bytes(&optim.borrow())?, backoff.to_blob()];
            blobs.extend(state.borrow().to_blobs());
            let log_z = last_log_z.get();
            blobs.push(f64_bytes(&[f64::from(u8::from(log_z.is_some())), log_z.unwrap_or(0.0)]));
            Ok(blobs)
        };
        let mut load = |blobs: &mut BlobReader<'_>| -> Result<()> {
            blobs.optimizer(&mut optim.borrow_mut())?;
            backoff.load_blob(blobs)?;
            state.borrow_mut().load_blobs(blobs)?;
            let log_z = blobs.f64s(Some(2))?;
            last_log_z.set((log_z[0] != 0.0).then_some(log_z[1]));
            Ok(())
        };
        let settings = [schedule.mode_code(), m as u64];
        let resumable = LoopState { kind: "EpGpClassifier", settings: &settings, save: &save, load: &mut load };
        let (model, history) = fit_loop_checkpointed(self, n, &train, label, resumable, step, eval)?;
        let state = state.into_inner();
        let posterior = state.posterior(&model, x)?;
        let log_marginal_likelihood = if minibatch { None } else { last_log_z.get() };
        Ok((model.with_fitted(state, posterior, log_marginal_likelihood), history))
    }
}

/// A step that leaves `K_uu` singular, on demand: how the unit test below reaches the undo of an
/// unchecked step.
#[cfg(test)]
mod poison {
    use std::cell::Cell;

    use super::EpGpClassifier;
    use crate::kernels::Kernel;

    thread_local! {
        /// The step whose result gets a NaN noise, and how many times that happened.
        pub(super) static AT: Cell<(Option<usize>, usize)> = const { Cell::new((None, 0)) };
    }

    /// `model` with `log σ0² = NaN` if `step` is the poisoned step (once).
    pub(super) fn maybe<K: Kernel>(mut model: EpGpClassifier<K>, step: usize) -> EpGpClassifier<K> {
        let (at, done) = AT.get();
        if at == Some(step) && done == 0 {
            AT.set((at, 1));
            model.log_noise = model.log_noise.map(|t| {
                let nan = burn::tensor::TensorData::new(vec![f64::NAN], [1]);
                burn::tensor::Tensor::<1>::from_data(nan, &t.device()).require_grad()
            });
        }
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inducing::InducingPoints;
    use crate::kernels::Rbf;
    use crate::tensors::matrix;

    /// A minibatch step that leaves `K_uu` singular is not checked at once; the next step's
    /// factorisation finds it, undoes it (model and sites) and goes on from the model before it.
    #[test]
    fn an_unchecked_step_that_breaks_k_uu_is_undone_by_the_next_step() {
        let device = crate::device::default_device().unwrap().autodiff();
        let n = 60;
        let x: Vec<f64> = (0..n).map(|i| -3.0 + 6.0 * i as f64 / n as f64).collect();
        let labels: Vec<usize> = x.iter().map(|&v| usize::from(v.sin() > 0.0)).collect();
        let xt = matrix(x.clone(), n, 1, &device).unwrap();
        let model = || {
            let z = InducingPoints::new(&x[..8], 8, 1, &device).unwrap();
            let config = super::super::EpGpClassifierConfig::new().with_noise(1e-2).with_mode(EpMode::Minibatch);
            config.init(Rbf::new(&[1.0], 1.0, &device).unwrap(), z, &device).unwrap()
        };
        let config = super::super::EpGpClassifierConfig::new()
            .with_mode(EpMode::Minibatch)
            .paper_train_config()
            .with_batch_size(10)
            .with_epochs(2)
            .with_progress(false);
        // step 2 of 6 per epoch is not the last of its epoch: it is checked by step 3
        poison::AT.set((Some(2), 0));
        let (fit, history) = model().fit(&xt, &labels, &config).unwrap();
        assert_eq!(poison::AT.get().1, 1, "the poisoned step did not run");
        poison::AT.set((None, 0));
        assert_eq!(history.records.len(), 2);
        assert!(history.records.iter().all(|r| r.objective.is_finite()));
        assert!(fit.log_noise.val().into_scalar::<f64>().is_finite());
        let p = fit.predict_proba(&xt).unwrap();
        assert!(p.iter().all(|p| p.is_finite()));
        // without the poison the same run differs (the undone step and the halved steps)
        let (clean, _) = model().fit(&xt, &labels, &config).unwrap();
        assert_ne!(clean.predict_proba(&xt).unwrap(), p);
    }
}
