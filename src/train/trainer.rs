//! A small minibatch trainer around Burn's optimisers.
use std::time::Instant;

use burn::config::Config;
use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::Tensor;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::checkpoint::{optimizer_bytes, BlobReader};
use super::{divergence, Checkpoint, CheckpointConfig, EpochRecord, History, OptimizerConfig};
use crate::data::MiniBatches;
use crate::error::{check_positive, Error};

/// `crate::Result` under another name: Burn's `Config` derive needs `Result` to be std's.
type GpResult<T> = crate::error::Result<T>;

/// Optimisation settings of a training run (a Burn [`Config`]: saved and loaded as JSON with
/// `save` / `load`, built with `TrainConfig::new().with_epochs(…)` or a struct literal with
/// `..Default::default()`).
#[derive(Config, Debug)]
pub struct TrainConfig {
    /// Number of passes over the data.
    #[config(default = 10)]
    pub epochs: usize,
    /// Minibatch size (the last batch of an epoch may be smaller).
    #[config(default = 256)]
    pub batch_size: usize,
    /// Learning rate (of the first step, with a schedule).
    #[config(default = 0.01)]
    pub lr: f64,
    /// Seed of the minibatch shuffling.
    #[config(default = 0)]
    pub seed: u64,
    /// Show a progress bar on stderr. Without one (`false`, or stderr is not a terminal, e.g. a
    /// log file) a line per epoch is printed for short runs and about 20 lines for long ones.
    #[config(default = true)]
    pub progress: bool,
    /// How the learning rate moves over the run (constant by default).
    #[config(default = "LrSchedule::Constant")]
    pub schedule: LrSchedule,
    /// The optimiser (Adam by default).
    #[config(default = "OptimizerConfig::Adam")]
    pub optimizer: OptimizerConfig,
    /// Checkpoints of the run (none by default; see [`CheckpointConfig`] for the loops that
    /// write them, the others refuse a config that asks for them).
    #[config(default = "None")]
    pub checkpoint: Option<CheckpointConfig>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// How the learning rate moves over a run of [`fit_loop`].
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub enum LrSchedule {
    /// `lr` at every step.
    #[default]
    Constant,
    /// Half a cosine from `lr` at the first step to `lr · final_fraction` at the last step of the
    /// run (cosine annealing without restarts).
    Cosine {
        /// The last step's learning rate as a fraction of `lr`, in `[0, 1]`.
        final_fraction: f64,
    },
}

impl TrainConfig {
    /// The learning rate of the step `at` (see [`LrSchedule`]).
    pub fn lr_at(&self, at: StepIndex) -> f64 {
        match self.schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Cosine { final_fraction } => {
                let t = (at.step.saturating_sub(1)) as f64 / (at.steps.saturating_sub(1)).max(1) as f64;
                let fraction =
                    final_fraction + (1.0 - final_fraction) * 0.5 * (1.0 + (std::f64::consts::PI * t.min(1.0)).cos());
                self.lr * fraction
            }
        }
    }

    /// Checks the learning rate, the schedule, the optimiser and the checkpoint settings.
    pub fn validate(&self) -> GpResult<()> {
        self.optimizer.validate()?;
        if let Some(checkpoint) = &self.checkpoint {
            checkpoint.validate()?;
        }
        check_positive("lr", self.lr)?;
        if let LrSchedule::Cosine { final_fraction } = self.schedule {
            if !(final_fraction.is_finite() && (0.0..=1.0).contains(&final_fraction)) {
                return Err(Error::invalid(
                    "schedule",
                    format!("final_fraction must be in [0, 1], got {final_fraction}"),
                ));
            }
        }
        Ok(())
    }
}

/// Trains `model` by `config.optimizer` (Adam by default) on minibatches of `0..n`.
///
/// `loss(model, batch_indices)` returns the scalar to minimise (e.g. `−ELBO / N`);
/// `evaluate(model, epoch)` is called after every epoch on the model without autodiff
/// (`model.valid()`) and returns named metrics for the progress line and the [`History`].
///
/// With [`TrainConfig::checkpoint`] set, a checkpoint (the model's parameters, the optimiser's
/// state, the epochs and steps done, the history) is written atomically to
/// `<dir>/<model type>.ckpt` every `every_epochs` epochs and after the last; with `resume`, a run
/// goes on from the checkpoint there and ends bit for bit where the uninterrupted run ends (a
/// checkpoint of another run, by data size, batch size, epochs or seed, is a typed error). This
/// is how SVGP models and the Bayesian SVM (`Svgp::fit`), `ExactGpr`, `Sgpr` and the decoupled
/// GPs (`fit_decoupled`, natural gradients or not) checkpoint.
pub fn fit<M, F, E>(model: M, n: usize, config: &TrainConfig, mut loss: F, evaluate: E) -> GpResult<(M, History)>
where
    M: Module,
    F: FnMut(&M, &[usize]) -> GpResult<Tensor<1>>,
    E: FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
{
    if config.checkpoint.is_none() {
        return fit_with_hook(model, n, config, loss, |m, _| Ok(m), evaluate);
    }
    let step = |model: M, batch: &[usize], at: StepIndex, optim: &mut ModuleOptimizer| {
        loss_step(model, batch, at, &mut loss, optim, config)
    };
    let optim = config.optimizer.init()?;
    fit_loop_with_optimizer(model, n, config, "obj", std::any::type_name::<M>(), optim, step, evaluate)
}

/// [`fit_loop`] for a loop whose whole state is the model and one optimiser, `step` taking the
/// optimiser: with [`TrainConfig::checkpoint`] set, both are checkpointed to
/// `<dir>/<short kind>.ckpt` (`kind` without its module path and type parameters), and a resumed
/// run goes on from there (a checkpoint of another `kind` or another run is a typed error).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit_loop_with_optimizer<M, S, E>(
    model: M,
    n: usize,
    config: &TrainConfig,
    label: &str,
    kind: &str,
    optim: ModuleOptimizer,
    mut step: S,
    evaluate: E,
) -> GpResult<(M, History)>
where
    M: Module,
    S: FnMut(M, &[usize], StepIndex, &mut ModuleOptimizer) -> GpResult<(M, f64)>,
    E: FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
{
    let optim = std::cell::RefCell::new(optim);
    let state = LoopState {
        kind,
        settings: &[],
        save: &|| Ok(vec![optimizer_bytes(&optim.borrow())?]),
        load: &mut |blobs: &mut BlobReader<'_>| blobs.optimizer(&mut optim.borrow_mut()),
    };
    let step = |model: M, batch: &[usize], at: StepIndex| step(model, batch, at, &mut optim.borrow_mut());
    fit_loop_checkpointed(model, n, config, label, state, step, evaluate)
}

/// The state a checkpointed loop keeps beside its model (optimisers, EP sites, step sizes, …),
/// for [`fit_loop_checkpointed`].
pub(crate) struct LoopState<'a> {
    /// The kind of loop; its checkpoint file is `<dir>/<short kind>.ckpt` (without the module
    /// path and type parameters).
    pub kind: &'a str,
    /// Settings a resumed run must share beyond the data size, batch size, epochs and seed.
    pub settings: &'a [u64],
    /// The state's blobs for a checkpoint.
    pub save: &'a dyn Fn() -> GpResult<Vec<Vec<u8>>>,
    /// Puts a checkpoint's blobs (those `save` wrote, in its order) back.
    pub load: &'a mut dyn FnMut(&mut BlobReader<'_>) -> GpResult<()>,
}

/// [`fit_loop`] with checkpoints: with [`TrainConfig::checkpoint`] set, the model's parameters
/// and `state`'s blobs are written atomically every `every_epochs` epochs and after the last,
/// and with `resume` a run goes on from the checkpoint there (model, `state`, epochs, history),
/// ending bit for bit where the uninterrupted run ends as long as `state` holds everything the
/// step mutates. A checkpoint of another kind of loop or another run is
/// [`Error::InvalidArgument`]; a damaged one [`Error::BadFormat`].
pub(crate) fn fit_loop_checkpointed<M: Module>(
    model: M,
    n: usize,
    config: &TrainConfig,
    label: &str,
    state: LoopState<'_>,
    step: impl FnMut(M, &[usize], StepIndex) -> GpResult<(M, f64)>,
    evaluate: impl FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
) -> GpResult<(M, History)> {
    let Some(checkpoint) = &config.checkpoint else {
        return fit_loop(model, n, config, label, step, evaluate);
    };
    let LoopState { kind, settings, save, load } = state;
    let short = kind.split('<').next().unwrap_or(kind).rsplit("::").next().unwrap_or("model");
    let path = checkpoint.file(short);
    let mut fingerprint = vec![n as u64, config.batch_size as u64, config.epochs as u64, config.seed];
    fingerprint.extend_from_slice(settings);
    let saved = match checkpoint.resume {
        true => Checkpoint::read(&path, kind, &fingerprint)?,
        false => None,
    };
    let (mut model, mut start) = (model, None);
    if let Some(c) = saved {
        let mut blobs = BlobReader::new(&path, &c.blobs);
        model = blobs.module(model)?;
        load(&mut blobs)?;
        blobs.finish()?;
        start = Some(LoopStart { epochs_done: c.epochs_done, history: c.history });
    }
    let write = |model: &M, at: &LoopPosition<'_>| -> GpResult<()> {
        if !(at.epoch.is_multiple_of(checkpoint.every_epochs) || at.epoch == config.epochs) {
            return Ok(());
        }
        let mut blobs = vec![crate::saved::module_bytes(model.clone())?];
        blobs.extend(save()?);
        let state = Checkpoint {
            kind: kind.to_string(),
            fingerprint: fingerprint.clone(),
            epochs_done: at.epoch,
            steps_done: at.steps_done,
            history: at.history.clone(),
            blobs,
        };
        state.write(&path)
    };
    fit_loop_resumable(model, n, config, label, step, evaluate, start, write)
}

/// One optimiser step on the minibatch `batch`: its objective (checked finite before the step)
/// and the model after the step.
pub(crate) fn loss_step<M, F>(
    model: M,
    batch: &[usize],
    at: StepIndex,
    loss: &mut F,
    optim: &mut ModuleOptimizer,
    config: &TrainConfig,
) -> GpResult<(M, f64)>
where
    M: Module,
    F: FnMut(&M, &[usize]) -> GpResult<Tensor<1>>,
{
    let l = loss(&model, batch)?;
    let value = l.clone().into_scalar::<f64>();
    if !value.is_finite() {
        return Err(divergence::non_finite_objective(&model, "objective", value, at));
    }
    let grads = GradientsParams::from_grads(l.backward(), &model);
    Ok((optim.step(config.lr_at(at), model, grads), value))
}

/// As [`fit`], with `after_step(model, batch_indices)` run after every optimiser step; it may replace
/// parameters that Adam does not train (e.g. a natural-gradient update of a variational posterior,
/// see [`crate::models::HingeNaturalGradient`]). The hook's own state is not the loop's to save,
/// so a config with [`TrainConfig::checkpoint`] set is [`Error::InvalidArgument`] here.
pub fn fit_with_hook<M, F, H, E>(
    model: M,
    n: usize,
    config: &TrainConfig,
    mut loss: F,
    mut after_step: H,
    evaluate: E,
) -> GpResult<(M, History)>
where
    M: Module,
    F: FnMut(&M, &[usize]) -> GpResult<Tensor<1>>,
    H: FnMut(M, &[usize]) -> GpResult<M>,
    E: FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
{
    let mut optim = config.optimizer.init()?;
    let step = |model: M, batch: &[usize], at: StepIndex| -> GpResult<(M, f64)> {
        let (model, value) = loss_step(model, batch, at, &mut loss, &mut optim, config)?;
        Ok((after_step(model, batch)?, value))
    };
    fit_loop(model, n, config, "obj", step, evaluate)
}

/// Where a loop stands after an epoch (for [`fit_loop_resumable`]'s checkpoints).
pub(crate) struct LoopPosition<'a> {
    /// The epoch just completed.
    pub epoch: usize,
    /// Steps completed.
    pub steps_done: usize,
    /// The records so far, this epoch's included.
    pub history: &'a History,
}

/// Where a training step is: 1-based step over the whole run, 1-based epoch, and the run's
/// number of steps.
#[derive(Clone, Copy, Debug)]
pub struct StepIndex {
    /// Step number, counted over all epochs.
    pub step: usize,
    /// Epoch number.
    pub epoch: usize,
    /// Steps in the whole run.
    pub steps: usize,
}

/// The epoch loop every trainer shares: shuffled minibatches of `0..n`, a progress bar, evaluation
/// after each epoch and the [`History`]. `step(model, batch, at)` does one optimisation step and
/// returns the model and the batch's objective (averaged, weighted by batch size, into the epoch's
/// objective, shown as `label`).
///
/// Divergence stops the run with [`Error::NonFinite`](crate::Error::NonFinite) naming the step and
/// the parameter: a step that returns a non-finite objective, and a parameter that is not finite
/// at the end of an epoch (checked before the epoch is evaluated, in one read of the parameters).
///
/// This loop writes no checkpoints: a `config` with [`TrainConfig::checkpoint`] set is
/// [`Error::InvalidArgument`] rather than a run that silently keeps none.
pub fn fit_loop<M, S, E>(
    model: M,
    n: usize,
    config: &TrainConfig,
    label: &str,
    step: S,
    evaluate: E,
) -> GpResult<(M, History)>
where
    M: Module,
    S: FnMut(M, &[usize], StepIndex) -> GpResult<(M, f64)>,
    E: FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
{
    if config.checkpoint.is_some() {
        return Err(Error::invalid(
            "checkpoint",
            "this training loop does not write checkpoints (fit_hybrid, train::fit, DeepGp::fit, \
             fit_decoupled, the EP classifiers and SkewGp::fit do); leave TrainConfig::checkpoint at None",
        ));
    }
    fit_loop_resumable(model, n, config, label, step, evaluate, None, |_, _| Ok(()))
}

/// Where a resumed [`fit_loop_resumable`] starts: the epochs done and the history so far.
pub(crate) struct LoopStart {
    /// Epochs completed before.
    pub epochs_done: usize,
    /// Their records.
    pub history: History,
}

/// [`fit_loop`] from `start` (the minibatch order of the epochs done is drawn and skipped, so the
/// next batches are those of an uninterrupted run), calling `after_epoch(model, position)` after
/// every epoch, its record in the history; the caller writes its checkpoints there.
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit_loop_resumable<M, S, E, C>(
    mut model: M,
    n: usize,
    config: &TrainConfig,
    label: &str,
    mut step: S,
    mut evaluate: E,
    start: Option<LoopStart>,
    mut after_epoch: C,
) -> GpResult<(M, History)>
where
    M: Module,
    S: FnMut(M, &[usize], StepIndex) -> GpResult<(M, f64)>,
    E: FnMut(&M, usize) -> GpResult<Vec<(String, f64)>>,
    C: FnMut(&M, &LoopPosition<'_>) -> GpResult<()>,
{
    config.validate()?;
    let mut batches = MiniBatches::new(n, config.batch_size, config.seed)?;
    let steps = batches.batches_per_epoch();
    let LoopStart { epochs_done, mut history } =
        start.unwrap_or(LoopStart { epochs_done: 0, history: History::default() });
    if epochs_done > config.epochs || history.records.len() != epochs_done {
        return Err(Error::invalid(
            "checkpoint",
            format!("{epochs_done} epochs done with {} records, of a run of {}", history.records.len(), config.epochs),
        ));
    }
    // the batches are drawn one at a time: an epoch's batches are never all held at once (their
    // indices would be a second N-sized copy of the permutation)
    for _ in 0..epochs_done * steps {
        batches.next_batch();
    }
    let bar = if config.progress {
        let b = ProgressBar::new((steps * config.epochs) as u64);
        b.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    bar.set_position((steps * epochs_done) as u64);
    let start = Instant::now();
    let elapsed_before = history.records.last().map_or(0.0, |r| r.elapsed_s);
    let mut step_number = steps * epochs_done;
    for epoch in epochs_done + 1..=config.epochs {
        let t0 = Instant::now();
        let mut total = 0.0;
        for _ in 0..steps {
            let batch = batches.next_batch();
            step_number += 1;
            let at = StepIndex { step: step_number, epoch, steps: steps * config.epochs };
            let (next, value) = step(model, &batch, at)?;
            if !value.is_finite() {
                return Err(divergence::non_finite_objective(&next, label, value, at));
            }
            model = next;
            total += value * batch.len() as f64;
            bar.inc(1);
        }
        let epoch_s = t0.elapsed().as_secs_f64();
        divergence::check_parameters(&model, StepIndex { step: step_number, epoch, steps: steps * config.epochs })?;
        let metrics = evaluate(&model.valid(), epoch)?;
        let objective = total / n as f64;
        let mut msg = format!("epoch {epoch}/{} {label} {objective:.4}", config.epochs);
        for (k, v) in &metrics {
            msg.push_str(&format!(" {k} {v:.4}"));
        }
        bar.set_message(msg.clone());
        // without a bar (none asked for, or stderr is not a terminal): a line per epoch for short
        // runs and about 20 lines for long ones
        let every = (config.epochs / 20).max(1);
        if bar.is_hidden() && (epoch == 1 || epoch % every == 0 || epoch == config.epochs) {
            eprintln!("{msg} ({:.2}s)", elapsed_before + start.elapsed().as_secs_f64());
        }
        history.records.push(EpochRecord {
            epoch,
            objective,
            epoch_s,
            elapsed_s: elapsed_before + start.elapsed().as_secs_f64(),
            metrics,
        });
        after_epoch(&model, &LoopPosition { epoch, steps_done: step_number, history: &history })?;
    }
    bar.finish();
    Ok((model, history))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(step: usize, steps: usize) -> StepIndex {
        StepIndex { step, epoch: 1, steps }
    }

    #[test]
    fn cosine_schedule_runs_from_lr_to_its_final_fraction() {
        let config =
            TrainConfig { lr: 0.2, schedule: LrSchedule::Cosine { final_fraction: 0.1 }, ..Default::default() };
        assert_eq!(config.lr_at(at(1, 101)), 0.2);
        assert!((config.lr_at(at(101, 101)) - 0.02).abs() < 1e-15);
        // Half-way the cosine is at its midpoint: lr·(1 + f)/2.
        assert!((config.lr_at(at(51, 101)) - 0.11).abs() < 1e-15);
        // A quarter of the way: lr·(f + (1 − f)(1 + cos(π/4))/2).
        let quarter = 0.2 * (0.1 + 0.9 * 0.5 * (1.0 + std::f64::consts::FRAC_1_SQRT_2));
        assert!((config.lr_at(at(26, 101)) - quarter).abs() < 1e-15);
        // A one-step run stays at lr; the constant schedule ignores the step.
        assert_eq!(config.lr_at(at(1, 1)), 0.2);
        assert_eq!(TrainConfig { lr: 0.2, ..Default::default() }.lr_at(at(77, 101)), 0.2);
    }

    #[test]
    fn a_final_fraction_outside_zero_to_one_is_refused() {
        for bad in [-0.1, 1.5, f64::NAN] {
            let config = TrainConfig { schedule: LrSchedule::Cosine { final_fraction: bad }, ..Default::default() };
            assert!(matches!(config.validate(), Err(Error::InvalidArgument { .. })), "{bad}");
        }
        assert!(TrainConfig { lr: 0.0, ..Default::default() }.validate().is_err());
    }

    #[test]
    fn a_train_config_round_trips_through_json_with_its_optimizer_and_schedule() {
        let config = TrainConfig::new()
            .with_epochs(3)
            .with_schedule(LrSchedule::Cosine { final_fraction: 0.25 })
            .with_optimizer(OptimizerConfig::AdamW { weight_decay: 0.5 });
        let json = burn::config::config_to_json(&config);
        let back = TrainConfig::load_binary(json.as_bytes()).unwrap();
        assert_eq!((back.epochs, back.schedule, back.optimizer), (3, config.schedule, config.optimizer));
        let bad = TrainConfig::new().with_optimizer(OptimizerConfig::Adadelta { rho: 1.5, epsilon: 1e-5 });
        assert!(matches!(bad.validate(), Err(Error::InvalidArgument { .. })));
        // SPSA takes no gradients: a gradient loop refuses it by name
        let spsa = TrainConfig::new().with_optimizer(OptimizerConfig::Spsa { a: 0.05, c: 0.05 });
        assert!(spsa.validate().is_ok());
        assert!(matches!(spsa.optimizer.init(), Err(Error::InvalidArgument { ref name, .. }) if name == "optimizer"));
        let point = Point {
            x: burn::module::Param::from_tensor(Tensor::<1>::zeros(
                [1],
                &crate::device::default_device().unwrap().autodiff(),
            )),
        };
        let refused =
            fit(point, 4, &TrainConfig { progress: false, ..spsa }, |m, _| Ok(m.x.val().sum()), |_, _| Ok(vec![]));
        assert!(matches!(refused, Err(Error::InvalidArgument { ref name, .. }) if name == "optimizer"));
    }

    #[derive(Module, Debug)]
    struct Point {
        x: burn::module::Param<Tensor<1>>,
    }

    #[derive(Module, Debug)]
    struct TwoPoints {
        x: burn::module::Param<Tensor<1>>,
        y: burn::module::Param<Tensor<1>>,
    }

    fn two_points(x: [f64; 3], device: &burn::tensor::Device) -> TwoPoints {
        let param = |v: [f64; 3]| burn::module::Param::from_tensor(Tensor::<1>::from_floats(v, device));
        TwoPoints { x: param(x), y: param([0.5; 3]) }
    }

    /// Issue 95, item 4: divergence stops `fit` with `NonFinite` naming the step and the parameter.
    #[test]
    fn divergence_stops_training_naming_the_step_and_the_parameter() {
        let device = crate::device::default_device().unwrap().autodiff();
        let config = TrainConfig { epochs: 3, batch_size: 1, lr: 0.01, progress: false, ..Default::default() };
        let quadratic = |m: &TwoPoints| (m.x.val() - 1.0).powi_scalar(2).sum() + m.y.val().powi_scalar(2).sum();
        let no_metrics = |_: &TwoPoints, _: usize| Ok(vec![]);
        let context = |r: GpResult<(TwoPoints, History)>| match r {
            Err(Error::NonFinite { context, index }) => (context, index),
            other => panic!("expected NonFinite, got {:?}", other.map(|(_, h)| h)),
        };
        // A parameter that is NaN from the start: the objective of step 1 is NaN, and the error
        // names the parameter.
        let start = two_points([0.0, f64::NAN, 0.0], &device);
        let (c, index) = context(fit(start, 2, &config, |m, _| Ok(quadratic(m)), no_metrics));
        assert!(c.contains("step 1 (epoch 1)") && c.contains("parameter x[1] is not finite"), "{c}");
        assert_eq!(index, 1);
        // An objective that overflows at step 4 with finite parameters.
        let mut calls = 0;
        let overflow = |m: &TwoPoints, _: &[usize]| {
            calls += 1;
            Ok(quadratic(m).mul_scalar(if calls == 4 { f64::INFINITY } else { 1.0 }))
        };
        let (c, index) = context(fit(two_points([0.0; 3], &device), 2, &config, overflow, no_metrics));
        assert!(c.contains("became inf at step 4 (epoch 2)") && c.contains("all parameters are finite"), "{c}");
        assert_eq!(index, 4);
        // A parameter that a step's hook makes NaN while the objective stays finite: caught at
        // the end of the epoch, by name and flat index.
        let nan = Tensor::<1>::from_floats([1.0, 1.0, f64::NAN], &device);
        let poison = move |mut m: TwoPoints, _: &[usize]| {
            let nan = nan.clone();
            m.y = m.y.map(|t| t * nan);
            Ok(m)
        };
        let finite = |m: &TwoPoints, _: &[usize]| Ok((m.x.val() - 1.0).powi_scalar(2).sum());
        let result = fit_with_hook(two_points([0.0; 3], &device), 2, &config, finite, poison, no_metrics);
        let (c, index) = context(result);
        assert!(c.contains("parameter y is not finite after step 2 (epoch 1)"), "{c}");
        assert_eq!(index, 2);
    }

    #[test]
    fn every_optimizer_minimises_a_quadratic() {
        let device = crate::device::default_device().unwrap().autodiff();
        let target = Tensor::<1>::from_floats([1.0, -2.0, 0.5], &device);
        for (optimizer, lr) in [
            (OptimizerConfig::Adam, 0.05),
            (OptimizerConfig::AdamW { weight_decay: 1e-4 }, 0.05),
            (OptimizerConfig::Adadelta { rho: 0.9, epsilon: 1e-5 }, 1.0),
            (OptimizerConfig::SignAdaptive { initial_step: 0.05 }, 1.0),
        ] {
            let start = Point { x: burn::module::Param::from_tensor(Tensor::zeros([3], &device)) };
            let config =
                TrainConfig { epochs: 200, batch_size: 1, lr, progress: false, optimizer, ..Default::default() };
            let loss = |m: &Point, _: &[usize]| Ok((m.x.val() - target.clone()).powi_scalar(2).sum());
            let before = loss(&start, &[]).unwrap().into_scalar::<f64>();
            let (end, _) = fit(start, 1, &config, loss, |_, _| Ok(vec![])).unwrap();
            let after = loss(&end, &[]).unwrap().into_scalar::<f64>();
            assert!(after < 0.05 * before, "{optimizer:?}: {before} → {after}");
        }
    }
}
