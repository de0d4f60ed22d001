//! Initialisation ([`SkewGpConfig::init`]) and training ([`SkewGp::fit`]) of the skew GP classifier on labelled
//! data (paper §5.2; `docs/papers/000-skew-gp.md`, sections "Training objective" and "Deviations"), then the
//! exact posterior (Theorem 1) and its lin-ess draws (eq. (15), paper §5.1).
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Instant;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::config::SkewGpConfig;
use super::objective::partition;
use super::posterior::SkewGpPosterior;
use super::prior::{SkewGp, SkewGpFitted};
use super::spsa::{assign_params, direction, flatten_params, Spsa};
use crate::error::{check_finite, Error, Result};
use crate::kernels::Kernel;
use crate::mvn::{ChainConfig, ChainStart, LinEssVariant, QmcPoints};
use crate::optim::flatten_gradients;
use crate::saved::module_bytes;
use crate::train::{
    f64_bytes, fit_loop_checkpointed, optimizer_bytes, BlobReader, History, LoopState, OptimizerConfig, StepIndex,
    TrainConfig,
};

/// How a [`SkewGp::fit`] went: the phase search, the hold-out's choice and the times (the
/// posterior and the learned phases are in the fitted model).
#[derive(Clone, Debug)]
pub struct SkewGpReport {
    /// Every sign pattern tried, with its final objective (`−objective / n`, mean of the last
    /// tenth of its epochs).
    pub phase_objectives: Vec<(Vec<f64>, f64)>,
    /// With a hold-out ([`SkewGpConfig::validation_fraction`]): the epoch of the kept parameters
    /// (counted within the chosen pattern's runs) and its held-out negative log predictive
    /// probability per row.
    pub selected: Option<(usize, f64)>,
    /// Seconds of hyperparameter optimisation (all patterns).
    pub train_s: f64,
    /// Seconds building the posterior and drawing `U₁`.
    pub sample_s: f64,
    /// lin-ess chain-steps kept in place by a rounding failure (expected 0).
    pub rounding_rejections: usize,
}

impl SkewGpConfig {
    /// The initial prior of the skew GP classifier: `kernel` as given, `R` = `s` distinct random
    /// training rows of `x` plus a `10⁻³` perturbation (so `M` is not singular), `γ = 0`, phases
    /// from the config (all `+1` when searching). Train it with [`SkewGp::fit`].
    pub fn init<K: Kernel>(&self, kernel: K, x: &Tensor<2>) -> Result<SkewGp<K>> {
        let config = self;
        let s = config.s()?;
        let [n, p] = x.dims();
        if s > n {
            return Err(Error::invalid("latent_dim", format!("s = {s} exceeds the {n} training points")));
        }
        let xs = crate::tensors::to_vec(x.clone());
        let mut rows: Vec<usize> = (0..n).collect();
        rows.shuffle(&mut StdRng::seed_from_u64(config.seed ^ 0x5ce7));
        let r: Vec<f64> = rows[..s].iter().flat_map(|&i| xs[i * p..(i + 1) * p].iter().map(|v| v + 1e-3)).collect();
        let phases = config.phases.clone().unwrap_or_else(|| vec![1.0; s]);
        let model = SkewGp::new(kernel, &r, &phases, &vec![0.0; s], config.nugget_on(&x.device()), &x.device())?;
        Ok(SkewGp { settings: config.clone(), ..model })
    }
}

impl<K: Kernel> SkewGp<K> {
    /// Learns the kernel hyperparameters, `R` and `γ` (and searches the phases `L`) by maximising
    /// the model's objective ([`SkewGpConfig::objective`]) on the rows of `x` `[n, p]` (on an
    /// autodiff device) with labels `y ∈ {0, 1}`, then builds the exact posterior and draws `U₁`
    /// by lin-ess (unless [`SkewGpConfig::samples`] is 0).
    ///
    /// `config` gives the epochs (over all sign patterns' runs, as [`SkewGpConfig::phase_screen_epochs`]
    /// says), the rows per step (`batch_size`; `usize::MAX` or ≥ n: every block every step;
    /// fewer only with [`Objective::BlockComposite`](super::Objective::BlockComposite)), the
    /// optimiser at the learning rate of `lr` and `schedule` (Adam by default; any gradient
    /// optimiser of [`OptimizerConfig`], or the gradient-free [`OptimizerConfig::Spsa`], which
    /// uses no learning rate), the seed of the shuffles and QMC shifts, the progress bar and the
    /// checkpoints; [`SkewGpConfig::paper_train_config`] gives the documented defaults.
    ///
    /// Every step re-partitions a shuffled minibatch of rows into blocks of `block_size` and
    /// draws fresh QMC shifts; the objective is differentiated by Burn's autodiff through the
    /// Genz estimator, or only evaluated twice per step (SPSA). A non-finite block
    /// estimate stops training with [`Error::NonFinite`] naming the step and the block's rows;
    /// parameters that become non-finite stop it too.
    ///
    /// With `config.checkpoint` set, every training run (sign pattern, then the continued one)
    /// checkpoints to `<dir>/SkewGp.run<i>.ckpt`, holding the model, the optimiser's state and its
    /// count of skipped steps (or SPSA's count of random directions drawn), the hold-out's best
    /// epoch so far and the history; with `resume`, finished runs are read back and the
    /// interrupted one goes on, ending bit for bit where the uninterrupted fit ends.
    ///
    /// Returns the fitted model (without autodiff: the hold-out's kept parameters, or the last
    /// ones), which holds its posterior ([`posterior`](Self::posterior), used by
    /// [`predict`](Self::predict)) and a [`SkewGpReport`] ([`fit_report`](Self::fit_report)), and
    /// the training curve of the chosen sign pattern (objective: `−objective / n`).
    pub fn fit(self, x: &Tensor<2>, y: &[usize], config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_with_epoch_hook(x, y, config, &mut |_, _| Ok(()))
    }

    /// As [`fit`](Self::fit), calling `hook(run, epoch)` after every epoch of every training run
    /// (an error stops training: how the tests interrupt a run).
    pub(crate) fn fit_with_epoch_hook(
        self,
        x: &Tensor<2>,
        y: &[usize],
        train_config: &TrainConfig,
        hook: &mut EpochHook<'_>,
    ) -> Result<(Self, History)> {
        let model = SkewGp { fitted: None, ..self };
        let n = crate::models::check_inputs("SkewGp::fit", x, model.kernel.input_dim())?;
        let config = &SkewGpConfig { latent_dim: model.latent_dim() as i64, ..model.settings.clone() };
        config.check(n)?;
        config.check_training(train_config, n)?;
        let w = crate::data::binary_signs("SkewGp labels (must be 0 or 1)", y, n)?;
        let start = Instant::now();
        let (rows, holdout) = split_rows(config, x, y)?;
        let patterns = config.phase_patterns()?;
        let screen = if patterns.len() > 1 && config.phase_screen_epochs > 0 {
            config.phase_screen_epochs.min(train_config.epochs)
        } else {
            train_config.epochs
        };
        let mut tried = Vec::with_capacity(patterns.len());
        let mut best: Option<(Run<K>, f64)> = None;
        for (i, phases) in patterns.iter().enumerate() {
            let start = model.with_phases(phases)?;
            let run = train(config, train_config, start, x, &w, &rows, holdout.as_ref(), screen, i as u64, hook)?;
            let score = run.best.as_ref().map_or_else(|| tail_objective(&run.history), |b| b.1);
            tried.push((phases.clone(), score));
            if best.as_ref().is_none_or(|b| score < b.1) {
                best = Some((run, score));
            }
        }
        let (mut run, _) = best.ok_or_else(|| Error::invalid("phases", "no sign pattern to try"))?;
        if screen < train_config.epochs {
            let more = train(
                config,
                train_config,
                run.model,
                x,
                &w,
                &rows,
                holdout.as_ref(),
                train_config.epochs - screen,
                patterns.len() as u64,
                hook,
            )?;
            let offset = run.history.records.len();
            run.history.records.extend(more.history.records);
            run.model = more.model;
            if let Some((epoch, value, snapshot)) = more.best {
                if run.best.as_ref().is_none_or(|b| value < b.1) {
                    run.best = Some((epoch + offset, value, snapshot));
                }
            }
        }
        let Run { model, history, best: kept } = run;
        let (model, selected) = match kept {
            Some((epoch, value, snapshot)) => (snapshot, Some((epoch, value))),
            None => (model.valid(), None),
        };
        let train_s = start.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let mut posterior = SkewGpPosterior::new(model.clone(), x.clone().inner(), y)?;
        let rounding_rejections = if config.samples == 0 {
            0
        } else {
            posterior.sample(&config.chain_config(), config.variant, config.chain_start)?
        };
        let report = SkewGpReport {
            phase_objectives: tried,
            selected,
            train_s,
            sample_s: t0.elapsed().as_secs_f64(),
            rounding_rejections,
        };
        let fitted = SkewGpFitted { sun: posterior.sun(), report: Some(report) };
        Ok((SkewGp { fitted: Some(Arc::new(fitted)), ..model }, history))
    }
}

/// Called after every epoch of every training run with the run's number and the epoch.
pub(crate) type EpochHook<'a> = dyn FnMut(u64, usize) -> Result<()> + 'a;

/// The hold-out's best epoch of a run so far: epoch, score and parameters.
type Best<K> = Option<(usize, f64, SkewGp<K>)>;

/// `best` as checkpoint blobs: `[flag, epoch, score]` and the parameters (empty without one).
fn best_blobs<K: Kernel>(best: &Best<K>) -> Result<Vec<Vec<u8>>> {
    Ok(match best {
        Some((epoch, value, m)) => vec![f64_bytes(&[1.0, *epoch as f64, *value]), module_bytes(m.clone())?],
        None => vec![f64_bytes(&[0.0, 0.0, 0.0]), Vec::new()],
    })
}

/// The best epoch of [`best_blobs`]' blobs, its parameters loaded into `skeleton`.
fn load_best<K: Kernel>(blobs: &mut BlobReader<'_>, skeleton: SkewGp<K>) -> Result<Best<K>> {
    let v = blobs.f64s(Some(3))?;
    if v[0] == 0.0 {
        blobs.bytes()?;
        return Ok(None);
    }
    if !(v[1] >= 0.0 && v[1] <= u32::MAX as f64) {
        return Err(blobs.bad(format!("implausible best epoch {}", v[1])));
    }
    Ok(Some((v[1] as usize, v[2], blobs.module(skeleton)?)))
}

/// One training run: the final model, its curve and, with a hold-out, the best epoch's
/// `(epoch, held-out NLL per row, parameters)`.
struct Run<K: Module> {
    model: SkewGp<K>,
    history: History,
    best: Option<(usize, f64, SkewGp<K>)>,
}

/// The held-out rows and what scoring them needs: the rows trained on and both parts' labels.
struct Holdout {
    /// Inputs trained on (no autodiff) and their labels `{0, 1}`.
    fit_x: Tensor<2>,
    fit_y: Vec<usize>,
    /// Held-out inputs and labels.
    x: Tensor<2>,
    y: Vec<usize>,
    /// How the held-out predictions are computed.
    scoring: HoldoutScoring,
}

/// The held-out predictions' route ([`SkewGpConfig::validation_samples`]).
enum HoldoutScoring {
    /// Exact Corollary 2 ratios on a fixed lattice (dimension `s + rows trained on + 1`).
    Exact(QmcPoints),
    /// Route B from lin-ess draws of the posterior on the rows trained on (fixed seed, so every
    /// scoring uses the same random numbers).
    Sampled(ChainConfig, LinEssVariant, ChainStart),
}

/// The rows trained on and, with `config.validation_fraction > 0`, the hold-out (stratified by
/// label, seeded).
fn split_rows(config: &SkewGpConfig, x: &Tensor<2>, y: &[usize]) -> Result<(Vec<usize>, Option<Holdout>)> {
    let Some(split) = config.holdout_split(y)? else {
        return Ok(((0..y.len()).collect(), None));
    };
    let n = y.len();
    if split.train.len() < config.block_size.min(n) || split.test.is_empty() {
        return Err(Error::invalid(
            "validation_fraction",
            format!(
                "{} leaves {} training rows for blocks of {}",
                config.validation_fraction,
                split.train.len(),
                config.block_size
            ),
        ));
    }
    let scoring = if config.validation_samples == 0 {
        let dim = config.s()? + split.train.len() + 1;
        HoldoutScoring::Exact(QmcPoints::lattice(dim, config.qmc_points, config.qmc_shifts, config.seed ^ 0x7e57)?)
    } else {
        let chains = ChainConfig { samples: config.validation_samples, ..config.chain_config() };
        HoldoutScoring::Sampled(chains, config.variant, config.chain_start)
    };
    let xv = x.clone().inner();
    let holdout = Holdout {
        fit_x: crate::models::select_rows(&xv, &split.train),
        fit_y: split.train.iter().map(|&i| y[i]).collect(),
        x: crate::models::select_rows(&xv, &split.test),
        y: split.test.iter().map(|&i| y[i]).collect(),
        scoring,
    };
    Ok((split.train, Some(holdout)))
}

/// Held-out mean negative log predictive probability (nats per row) of `model`'s posterior on
/// the rows trained on, by the exact Corollary 2 ratios on fixed points or by route B.
fn holdout_score<K: Kernel>(model: &SkewGp<K>, h: &Holdout) -> Result<f64> {
    let mut posterior = SkewGpPosterior::new(model.clone(), h.fit_x.clone(), &h.fit_y)?;
    let p = match &h.scoring {
        HoldoutScoring::Exact(points) => posterior.predict_exact(&h.x, points)?,
        HoldoutScoring::Sampled(chains, variant, start) => {
            posterior.sample(chains, *variant, *start)?;
            posterior.predict_details(&h.x)?.prob
        }
    };
    let nll: f64 = p.iter().zip(&h.y).map(|(p, y)| -(if *y == 1 { *p } else { 1.0 - p }).clamp(1e-12, 1.0).ln()).sum();
    Ok(nll / h.y.len() as f64)
}

/// Mean objective over the last tenth (at least one) of the epochs of `history`.
fn tail_objective(history: &History) -> f64 {
    let r = &history.records;
    let k = (r.len() / 10).max(1);
    r[r.len() - k..].iter().map(|e| e.objective).sum::<f64>() / k as f64
}

/// Consecutive optimisation steps with a non-finite gradient that are skipped before training
/// stops with an error.
const MAX_SKIPPED_STEPS: usize = 10;

/// The QMC points of step `step` of run `run` of a training seeded by `seed`: dimension
/// `s + |B| − 1`, fresh shifts.
fn step_points(config: &SkewGpConfig, seed: u64, s: usize, run: u64, step: usize) -> Result<QmcPoints> {
    let seed = seed.wrapping_mul(1_000_003).wrapping_add(run << 32).wrapping_add(step as u64);
    QmcPoints::lattice(s + config.block_size - 1, config.qmc_points, config.qmc_shifts, seed)
}

/// `−objective / n` of `model` on the rows `batch` (partitioned into blocks) of the `n` rows
/// trained on, as a tensor.
#[allow(clippy::too_many_arguments)]
fn loss<K: Kernel>(
    config: &SkewGpConfig,
    model: &SkewGp<K>,
    x: &Tensor<2>,
    w: &[f64],
    n: usize,
    batch: &[usize],
    points: &QmcPoints,
    at: StepIndex,
) -> Result<Tensor<1>> {
    let blocks = partition(batch, config.block_size);
    let terms = model.block_terms(x, w, &blocks, config.block_size, points).map_err(|e| match e {
        Error::NonFinite { context, index } => Error::NonFinite {
            context: format!(
                "{context} — training step {} (epoch {}), block {index} of the step = rows {:?}",
                at.step,
                at.epoch,
                blocks.get(index).map(|b| &b[..b.len().min(8)]).unwrap_or(&[])
            ),
            index,
        },
        other => other,
    })?;
    let objective = terms.combine(config.objective, n as f64 / batch.len() as f64)?;
    Ok(objective.neg().div_scalar(n as f64))
}

/// One training run of `epochs` epochs on the rows `rows` (`run` seeds its partitions and
/// points), scored on the hold-out after every epoch if there is one.
#[allow(clippy::too_many_arguments)]
fn train<K: Kernel>(
    config: &SkewGpConfig,
    train_config: &TrainConfig,
    model: SkewGp<K>,
    x: &Tensor<2>,
    w: &[f64],
    rows: &[usize],
    holdout: Option<&Holdout>,
    epochs: usize,
    run: u64,
    hook: &mut EpochHook<'_>,
) -> Result<Run<K>> {
    let n = rows.len();
    let best: RefCell<Best<K>> = RefCell::new(None);
    let evaluate = |m: &SkewGp<K>, epoch: usize| -> Result<Vec<(String, f64)>> {
        hook(run, epoch)?;
        let Some(h) = holdout else { return Ok(vec![]) };
        if !epoch.is_multiple_of(config.validate_every.max(1)) && epoch != epochs {
            return Ok(vec![]);
        }
        let value = holdout_score(m, h)?;
        let mut b = best.borrow_mut();
        if b.as_ref().is_none_or(|b| value < b.1) {
            *b = Some((epoch, value, m.clone()));
        }
        Ok(vec![("held-out NLL".into(), value)])
    };
    let pick = |batch: &[usize]| -> Vec<usize> { batch.iter().map(|&i| rows[i]).collect() };
    let s = model.latent_dim();
    let rows_per_step = train_config.batch_size.min(n);
    let seed = train_config.seed;
    let train = TrainConfig { epochs, batch_size: rows_per_step, seed: seed.wrapping_add(run), ..train_config.clone() };
    // each run checkpoints to a file of its own; the hold-out's best epoch goes with it
    let kind = format!("SkewGp.run{run}");
    let optimizer_code = match train_config.optimizer {
        OptimizerConfig::Adam => 0,
        OptimizerConfig::Spsa { .. } => 1,
        OptimizerConfig::AdamW { .. } => 2,
        OptimizerConfig::Adadelta { .. } => 3,
        OptimizerConfig::SignAdaptive { .. } => 4,
    };
    let settings = [optimizer_code, s as u64, config.block_size as u64];
    let skeleton = model.valid();
    let finite = |m: SkewGp<K>, at: StepIndex| -> Result<SkewGp<K>> {
        check_finite(&format!("skew GP parameters after training step {}", at.step), &flatten_params(&m))?;
        Ok(m)
    };
    let label = "−obj/n";
    let result = match train_config.optimizer {
        OptimizerConfig::Spsa { a, c } => {
            let steps = epochs * n.div_ceil(rows_per_step);
            let spsa = Spsa { a, c, big_a: 0.1 * steps as f64 };
            let rng = RefCell::new(StdRng::seed_from_u64(seed ^ run ^ 0x5b5a));
            // directions drawn: a resumed run replays as many to put `rng` where it was
            let drawn = Cell::new(0u64);
            let xv = x.clone().inner();
            let step = |model: SkewGp<K>, batch: &[usize], at: StepIndex| -> Result<(SkewGp<K>, f64)> {
                let points = step_points(config, seed, s, run, at.step)?;
                let frozen = model.valid();
                let theta = flatten_params(&frozen);
                let eval = |p: &[f64]| -> Result<f64> {
                    let m = assign_params(frozen.clone(), p);
                    Ok(loss(config, &m, &xv, w, n, &pick(batch), &points, at)?.into_scalar::<f64>())
                };
                drawn.set(drawn.get() + 1);
                let (next, value) = spsa.step(at.step - 1, &theta, &mut rng.borrow_mut(), eval)?;
                Ok((finite(assign_params(model, &next), at)?, value))
            };
            let save = || -> Result<Vec<Vec<u8>>> {
                let mut blobs = vec![drawn.get().to_le_bytes().to_vec()];
                blobs.extend(best_blobs(&best.borrow())?);
                Ok(blobs)
            };
            let p = flatten_params(&skeleton).len();
            let mut load = |blobs: &mut BlobReader<'_>| -> Result<()> {
                let count = blobs.count()?;
                if count > steps {
                    return Err(blobs.bad(format!("{count} SPSA directions drawn in a run of {steps} steps")));
                }
                let mut rng = rng.borrow_mut();
                for _ in 0..count {
                    direction(&mut rng, p);
                }
                drawn.set(count as u64);
                *best.borrow_mut() = load_best(blobs, skeleton.clone())?;
                Ok(())
            };
            let state = LoopState { kind: &kind, settings: &settings, save: &save, load: &mut load };
            fit_loop_checkpointed(model, n, &train, label, state, step, evaluate)
        }
        gradient => {
            let optim = RefCell::new(gradient.init()?);
            let skipped = Cell::new(0);
            let step = |model: SkewGp<K>, batch: &[usize], at: StepIndex| -> Result<(SkewGp<K>, f64)> {
                let points = step_points(config, seed, s, run, at.step)?;
                let l = loss(config, &model, x, w, n, &pick(batch), &points, at)?;
                let value = l.clone().into_scalar::<f64>();
                let grads = GradientsParams::from_grads(l.backward(), &model);
                if let Some(k) = flatten_gradients(&model, &grads).iter().position(|v| !v.is_finite()) {
                    // a rare non-finite gradient (e.g. an underflowing CDF) skips the step, so
                    // neither the parameters nor Adam's moments ever hold NaN
                    skipped.set(skipped.get() + 1);
                    if skipped.get() > MAX_SKIPPED_STEPS {
                        return Err(Error::NonFinite {
                            context: format!(
                                "gradient of the skew GP objective at training step {} (epoch {}): {MAX_SKIPPED_STEPS} \
                                 steps in a row skipped; first non-finite parameter gradient",
                                at.step, at.epoch
                            ),
                            index: k,
                        });
                    }
                    return Ok((model, value));
                }
                skipped.set(0);
                Ok((finite(optim.borrow_mut().step(train.lr_at(at), model, grads), at)?, value))
            };
            let save = || -> Result<Vec<Vec<u8>>> {
                let mut blobs = vec![optimizer_bytes(&optim.borrow())?, (skipped.get() as u64).to_le_bytes().to_vec()];
                blobs.extend(best_blobs(&best.borrow())?);
                Ok(blobs)
            };
            let mut load = |blobs: &mut BlobReader<'_>| -> Result<()> {
                blobs.optimizer(&mut optim.borrow_mut())?;
                skipped.set(blobs.count()?);
                *best.borrow_mut() = load_best(blobs, skeleton.clone())?;
                Ok(())
            };
            let state = LoopState { kind: &kind, settings: &settings, save: &save, load: &mut load };
            fit_loop_checkpointed(model, n, &train, label, state, step, evaluate)
        }
    };
    let (model, history) = result?;
    Ok(Run { model, history, best: best.into_inner() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Rbf;
    use crate::train::CheckpointConfig;

    /// A skew GP fit with a phase search (two sign patterns screened 3 epochs, the best continued
    /// 3 more) and a hold-out, interrupted by an error after epoch `kill.1` of run `kill.0` and
    /// refitted from a skeleton with another kernel, ends bit for bit where the uninterrupted fit
    /// ends: by Adam (its moments and skipped-step count) and by SPSA (its random directions),
    /// with finished runs read back from their checkpoints and the hold-out's best epoch kept.
    #[test]
    fn a_resumed_skew_gp_fit_ends_bit_for_bit_where_the_uninterrupted_one_ends() {
        let device = crate::device::default_device().unwrap().autodiff();
        let n = 36;
        let xs: Vec<f64> = (0..n).map(|i| -2.0 + 4.0 * i as f64 / (n - 1) as f64).collect();
        let labels: Vec<usize> =
            xs.iter().enumerate().map(|(i, x)| usize::from((2.0 * x).sin() > 0.0 || i % 7 == 0)).collect();
        let x = crate::tensors::matrix(xs, n, 1, &device).unwrap();
        let dir = std::env::temp_dir().join(format!("burn-gp-skew-ckpt-{}", std::process::id()));
        let adam = OptimizerConfig::Adam;
        let spsa = OptimizerConfig::Spsa { a: 0.05, c: 0.05 };
        for (optimizer, kill) in [(adam, (1, 2)), (spsa, (2, 2))] {
            let _ = std::fs::remove_dir_all(&dir);
            let model_config = SkewGpConfig::new()
                .with_latent_dim(1)
                .with_block_size(6)
                .with_phase_screen_epochs(3)
                .with_qmc_points(32)
                .with_qmc_shifts(2)
                .with_validation_fraction(0.25)
                .with_validate_every(1)
                .with_samples(0);
            let config = |checkpoint| {
                model_config
                    .paper_train_config()
                    .with_epochs(6)
                    .with_optimizer(optimizer)
                    .with_lr(0.05)
                    .with_progress(false)
                    .with_checkpoint(checkpoint)
            };
            let start = |ell: f64| model_config.init(Rbf::new(&[ell], 1.0, &device).unwrap(), &x).unwrap();
            let outcome = |(fit, history): (SkewGp<Rbf>, History)| {
                let report = fit.fit_report().unwrap().clone();
                let mut v = flatten_params(fit.posterior().unwrap().model());
                v.extend(fit.phases);
                v.extend(report.phase_objectives.iter().map(|p| p.1));
                v.extend(report.selected.map(|s| [s.0 as f64, s.1]).into_iter().flatten());
                let objectives = history.records.iter().map(|r| r.objective.to_bits()).collect::<Vec<_>>();
                (v.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), objectives)
            };
            let uninterrupted = outcome(start(1.0).fit(&x, &labels, &config(None)).unwrap());
            let with = config(Some(CheckpointConfig::every_epoch(&dir)));
            let mut killer = |run: u64, epoch: usize| match (run, epoch) == kill {
                true => Err(Error::invalid("test", "killed")),
                false => Ok(()),
            };
            assert!(start(1.0).fit_with_epoch_hook(&x, &labels, &with, &mut killer).is_err());
            let mut trained = Vec::new();
            let mut count = |run: u64, epoch: usize| {
                trained.push((run, epoch));
                Ok(())
            };
            let resumed = start(0.5).fit_with_epoch_hook(&x, &labels, &with, &mut count).unwrap();
            let left: Vec<(u64, usize)> = (kill.1..=3)
                .map(|e| (kill.0, e))
                .chain((kill.0 + 1..=2).flat_map(|r| (1..=3).map(move |e| (r, e))))
                .collect();
            assert_eq!(trained, left, "{optimizer:?}: the resumed fit trained other epochs");
            let resumed = outcome(resumed);
            assert_eq!(resumed.1, uninterrupted.1, "{optimizer:?}: the objectives per epoch differ");
            assert!(resumed.0 == uninterrupted.0, "{optimizer:?}: the resumed fit ends elsewhere");
            // a damaged checkpoint is a typed error; one of the other optimiser is refused
            let path = dir.join("SkewGp.run1.ckpt");
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
            let damaged = start(1.0).fit(&x, &labels, &with);
            assert!(matches!(damaged, Err(Error::BadFormat { .. })), "{:?}", damaged.err());
            std::fs::write(&path, &bytes).unwrap();
            let other = if optimizer == adam { spsa } else { adam };
            let refused = start(1.0).fit(&x, &labels, &with.clone().with_optimizer(other));
            assert!(matches!(refused, Err(Error::InvalidArgument { ref name, .. }) if name == "checkpoint"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
