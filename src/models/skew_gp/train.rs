//! Initialisation ([`SkewGpConfig::init`]) and training ([`SkewGp::fit`]) of the skew GP classifier on labelled
//! data (paper §5.2; `docs/papers/000-skew-gp.md`, sections "Training objective" and "Deviations"), then the
//! exact posterior (Theorem 1) and its lin-ess draws (eq. (15), paper §5.1).
use std::cell::RefCell;
use std::time::Instant;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::Tensor;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::config::{SkewGpConfig, SkewOptimizer};
use super::objective::partition;
use super::posterior::SkewGpPosterior;
use super::prior::SkewGp;
use super::spsa::{assign_params, flatten_params, Spsa};
use crate::error::{check_finite, Error, Result};
use crate::kernels::Kernel;
use crate::mvn::{ChainConfig, ChainStart, LinEssVariant, QmcPoints};
use crate::optim::flatten_gradients;
use crate::train::{fit_loop, History, StepIndex, TrainConfig};

/// A trained skew GP classifier.
#[derive(Debug)]
pub struct SkewGpFit<K: Module> {
    /// The posterior at the learned hyperparameters, with its lin-ess draws.
    pub posterior: SkewGpPosterior<K>,
    /// Training curve of the chosen sign pattern (objective: `−objective / n`).
    pub history: History,
    /// The chosen phases.
    pub phases: Vec<f64>,
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
        SkewGp::new(kernel, &r, &phases, &vec![0.0; s], config.nugget_on(&x.device()), &x.device())
    }
}

impl<K: Kernel> SkewGp<K> {
    /// Learns the kernel hyperparameters, `R` and `γ` (and searches the phases `L`) by maximising
    /// `config.objective` on the rows of `x` `[n, p]` (on an autodiff device) with labels
    /// `y ∈ {0, 1}`, then builds the exact posterior and draws `U₁` by lin-ess (unless `config.samples` is 0).
    ///
    /// Every step re-partitions a shuffled minibatch of rows into blocks of `block_size` and
    /// draws fresh QMC shifts; the objective is differentiated by Burn's autodiff through the
    /// Genz estimator (Adam), or only evaluated twice per step (SPSA). A non-finite block
    /// estimate stops training with [`Error::NonFinite`] naming the step and the block's rows;
    /// parameters that become non-finite stop it too.
    pub fn fit(self, x: &Tensor<2>, y: &[usize], config: &SkewGpConfig) -> Result<SkewGpFit<K>> {
        let model = self;
        let n = crate::models::check_inputs("SkewGp::fit", x, model.kernel.input_dim())?;
        config.check(n)?;
        let s = config.s()?;
        if model.latent_dim() != s {
            return Err(Error::invalid("model", format!("latent dimension {} ≠ config's {s}", model.latent_dim())));
        }
        let w = crate::data::binary_signs("SkewGp labels (must be 0 or 1)", y, n)?;
        let start = Instant::now();
        let (rows, holdout) = split_rows(config, x, y)?;
        let patterns = config.phase_patterns()?;
        let screen = if patterns.len() > 1 && config.phase_screen_epochs > 0 {
            config.phase_screen_epochs.min(config.epochs)
        } else {
            config.epochs
        };
        let mut tried = Vec::with_capacity(patterns.len());
        let mut best: Option<(Run<K>, f64)> = None;
        for (i, phases) in patterns.iter().enumerate() {
            let run = train(config, model.with_phases(phases)?, x, &w, &rows, holdout.as_ref(), screen, i as u64)?;
            let score = run.best.as_ref().map_or_else(|| tail_objective(&run.history), |b| b.1);
            tried.push((phases.clone(), score));
            if best.as_ref().is_none_or(|b| score < b.1) {
                best = Some((run, score));
            }
        }
        let (mut run, _) = best.ok_or_else(|| Error::invalid("phases", "no sign pattern to try"))?;
        if screen < config.epochs {
            let more = train(
                config,
                run.model,
                x,
                &w,
                &rows,
                holdout.as_ref(),
                config.epochs - screen,
                patterns.len() as u64,
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
        let phases = model.phases.clone();
        let t0 = Instant::now();
        let mut posterior = SkewGpPosterior::new(model, x.clone().inner(), y)?;
        let rounding_rejections = if config.samples == 0 {
            0
        } else {
            posterior.sample(&config.chain_config(), config.variant, config.chain_start)?
        };
        Ok(SkewGpFit {
            posterior,
            history,
            phases,
            phase_objectives: tried,
            selected,
            train_s,
            sample_s: t0.elapsed().as_secs_f64(),
            rounding_rejections,
        })
    }
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

/// The QMC points of step `step` of run `run`: dimension `s + |B| − 1`, fresh shifts.
fn step_points(config: &SkewGpConfig, s: usize, run: u64, step: usize) -> Result<QmcPoints> {
    let seed = config.seed.wrapping_mul(1_000_003).wrapping_add(run << 32).wrapping_add(step as u64);
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
    model: SkewGp<K>,
    x: &Tensor<2>,
    w: &[f64],
    rows: &[usize],
    holdout: Option<&Holdout>,
    epochs: usize,
    run: u64,
) -> Result<Run<K>> {
    let n = rows.len();
    let best: RefCell<Option<(usize, f64, SkewGp<K>)>> = RefCell::new(None);
    let evaluate = |m: &SkewGp<K>, epoch: usize| -> Result<Vec<(String, f64)>> {
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
    let rows_per_step = config.batch_blocks.map_or(n, |b| (b * config.block_size).min(n));
    let train = TrainConfig {
        epochs,
        batch_size: rows_per_step,
        lr: config.lr,
        seed: config.seed.wrapping_add(run),
        progress: config.progress,
        ..Default::default()
    };
    let finite = |m: SkewGp<K>, at: StepIndex| -> Result<SkewGp<K>> {
        check_finite(&format!("skew GP parameters after training step {}", at.step), &flatten_params(&m))?;
        Ok(m)
    };
    let label = "−obj/n";
    let result = match config.optimizer {
        SkewOptimizer::Adam => {
            let mut optim = AdamConfig::new().init();
            let mut skipped = 0;
            let step = |model: SkewGp<K>, batch: &[usize], at: StepIndex| -> Result<(SkewGp<K>, f64)> {
                let points = step_points(config, s, run, at.step)?;
                let l = loss(config, &model, x, w, n, &pick(batch), &points, at)?;
                let value = l.clone().into_scalar::<f64>();
                let grads = GradientsParams::from_grads(l.backward(), &model);
                if let Some(k) = flatten_gradients(&model, &grads).iter().position(|v| !v.is_finite()) {
                    // a rare non-finite gradient (e.g. an underflowing CDF) skips the step, so
                    // neither the parameters nor Adam's moments ever hold NaN
                    skipped += 1;
                    if skipped > MAX_SKIPPED_STEPS {
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
                skipped = 0;
                Ok((finite(optim.step(config.lr, model, grads), at)?, value))
            };
            fit_loop(model, n, &train, label, step, evaluate)
        }
        SkewOptimizer::Spsa => {
            let steps = epochs * n.div_ceil(rows_per_step);
            let spsa = Spsa { a: config.spsa_a, c: config.spsa_c, big_a: 0.1 * steps as f64 };
            let rng = RefCell::new(StdRng::seed_from_u64(config.seed ^ run ^ 0x5b5a));
            let xv = x.clone().inner();
            let step = |model: SkewGp<K>, batch: &[usize], at: StepIndex| -> Result<(SkewGp<K>, f64)> {
                let points = step_points(config, s, run, at.step)?;
                let frozen = model.valid();
                let theta = flatten_params(&frozen);
                let eval = |p: &[f64]| -> Result<f64> {
                    let m = assign_params(frozen.clone(), p);
                    Ok(loss(config, &m, &xv, w, n, &pick(batch), &points, at)?.into_scalar::<f64>())
                };
                let (next, value) = spsa.step(at.step - 1, &theta, &mut rng.borrow_mut(), eval)?;
                Ok((finite(assign_params(model, &next), at)?, value))
            };
            fit_loop(model, n, &train, label, step, evaluate)
        }
    };
    let (model, history) = result?;
    Ok(Run { model, history, best: best.into_inner() })
}
