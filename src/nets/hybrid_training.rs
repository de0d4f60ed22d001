//! Training a [`HybridNet`] by the library's recipe ([`HybridConfig`]): Adam on the trunk, the
//! normaliser's scale and shift, the kernel, the likelihood and the inducing points;
//! natural-gradient steps on `q(u)` after every Adam step where the head's likelihood has them
//! (or Adam on `q(u)` too, with `natural_step = 0`).
use std::cell::RefCell;

use burn::optim::GradientsParams;

use super::{HeadLikelihood, HybridConfig, HybridNet, TrainingSet, Trunk};
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::metrics::argmax;
use crate::optim::flatten_gradients;
use crate::tensors::to_vec;
use crate::train::{
    f64_bytes, fit_loop_resumable, optimizer_bytes, BlobReader, Checkpoint, History, LoopPosition, LoopStart,
    StepIndex, TrainConfig,
};

/// What one training step did, for diagnosing a run (see [`fit_hybrid_traced`]).
#[derive(Clone, Debug)]
pub struct HybridStep {
    /// Step number (1-based, over all epochs) and epoch.
    pub at: StepIndex,
    /// The minibatch loss `−ELBO / N` before the step.
    pub loss: f64,
    /// Mean data term `ℓ*_n` over the batch.
    pub data_per_image: f64,
    /// `KL(q(u) ‖ p(u)) / N`.
    pub kl_per_image: f64,
    /// Fraction of the batch whose largest latent mean is its label (NaN for a regression head).
    pub batch_accuracy: f64,
    /// Spread of the trunk's raw features: the standard deviation across the batch of each
    /// feature, averaged over features.
    pub raw_spread: f64,
    /// Offset of the raw features: the root mean square over features of the batch means.
    pub raw_offset: f64,
    /// Spread (as `raw_spread`) of the features the head sees.
    pub head_spread: f64,
    /// Euclidean norm of the loss gradient over the trunk's parameters.
    pub trunk_grad_norm: f64,
    /// Step size of this step's natural-gradient update of `q(u)` (0 with Adam only).
    pub natural_step: f64,
}

/// Trains `net` on `train` for `config.epochs` epochs of shuffled minibatches (`config.seed`),
/// by the recipe `recipe`; `evaluate(model, epoch)` runs after every epoch on the model without
/// autodiff and returns named metrics for the progress line and the [`History`].
///
/// `net` lives on an autodiff device (see [`HybridConfig::init`]). For a run that repeats bit for
/// bit, seed the device before the trunk is built (`device.seed(seed)`) and keep the thread count.
///
/// With [`TrainConfig::checkpoint`] set, a checkpoint (`HybridNet.ckpt` in its folder: the
/// network, the optimiser's state, the natural-gradient state of `q(u)`, the epochs and steps
/// done and the history) is written atomically every `every_epochs` epochs and after the last;
/// with `resume`, a run finds the checkpoint there and goes on from it, ending bit for bit where
/// the uninterrupted run ends (`net` is then only the skeleton the checkpoint's weights load
/// into). A checkpoint of another run (other data size, batch size, epochs or seed) is a typed
/// error, and a diverged run stops before its next checkpoint, so the last one stays good.
pub fn fit_hybrid<T, K, L, S, E>(
    net: HybridNet<T, K, L>,
    train: &S,
    recipe: &HybridConfig,
    config: &TrainConfig,
    evaluate: E,
) -> Result<(HybridNet<T, K, L>, History)>
where
    T: Trunk,
    K: Kernel,
    L: HeadLikelihood,
    S: TrainingSet<Input = T::Input>,
    E: FnMut(&HybridNet<T, K, L>, usize) -> Result<Vec<(String, f64)>>,
{
    train_hybrid_loop(net, train, recipe, config, evaluate, None)
}

impl<T: Trunk, K: Kernel, L: HeadLikelihood> HybridNet<T, K, L> {
    /// Trains the network on `train` by `recipe` (its natural-gradient steps on `q(u)`) and
    /// `config`: [`fit_hybrid`] without progress metrics. Returns the trained network and its
    /// [`History`].
    pub fn fit<S>(self, train: &S, recipe: &HybridConfig, config: &TrainConfig) -> Result<(Self, History)>
    where
        S: TrainingSet<Input = T::Input>,
    {
        fit_hybrid(self, train, recipe, config, |_, _| Ok(Vec::new()))
    }
}

/// As [`fit_hybrid`], calling `trace(model, step)` after every step with the model after the
/// step and what the step did (the gradient norm over the trunk costs one read-back per step).
pub fn fit_hybrid_traced<T, K, L, S, E>(
    net: HybridNet<T, K, L>,
    train: &S,
    recipe: &HybridConfig,
    config: &TrainConfig,
    evaluate: E,
    trace: &mut StepTrace<'_, T, K, L>,
) -> Result<(HybridNet<T, K, L>, History)>
where
    T: Trunk,
    K: Kernel,
    L: HeadLikelihood,
    S: TrainingSet<Input = T::Input>,
    E: FnMut(&HybridNet<T, K, L>, usize) -> Result<Vec<(String, f64)>>,
{
    train_hybrid_loop(net, train, recipe, config, evaluate, Some(trace))
}

/// The per-step callback of [`fit_hybrid_traced`].
type StepTrace<'a, T, K, L> = dyn FnMut(&HybridNet<T, K, L>, &HybridStep) + 'a;

fn train_hybrid_loop<T, K, L, S, E>(
    mut net: HybridNet<T, K, L>,
    train: &S,
    recipe: &HybridConfig,
    config: &TrainConfig,
    evaluate: E,
    mut trace: Option<&mut StepTrace<'_, T, K, L>>,
) -> Result<(HybridNet<T, K, L>, History)>
where
    T: Trunk,
    K: Kernel,
    L: HeadLikelihood,
    S: TrainingSet<Input = T::Input>,
    E: FnMut(&HybridNet<T, K, L>, usize) -> Result<Vec<(String, f64)>>,
{
    recipe.validate()?;
    if train.outputs() != net.head.num_latent() {
        return Err(Error::invalid(
            "train",
            format!("{} target columns, but the head has {} outputs", train.outputs(), net.head.num_latent()),
        ));
    }
    config.validate()?;
    let device = net.head.q_mu.val().device();
    let fingerprint = [train.len() as u64, config.batch_size as u64, config.epochs as u64, config.seed];
    let saved = match &config.checkpoint {
        Some(c) if c.resume => Checkpoint::read(&c.file(CHECKPOINT_KIND), CHECKPOINT_KIND, &fingerprint)?,
        _ => None,
    };
    let path = config.checkpoint.as_ref().map(|c| c.file(CHECKPOINT_KIND)).unwrap_or_default();
    if let Some(c) = &saved {
        net = crate::saved::module_from_bytes(&path, net, BlobReader::new(&path, &c.blobs).bytes()?)?;
    }
    let mut natural = start_natural(&mut net, recipe)?;
    let mut optim = config.optimizer.init()?;
    let mut head_optim = match recipe.head_lr_factor {
        1.0 => None,
        _ => Some(config.optimizer.init()?),
    };
    let mut start = None;
    if let Some(c) = saved {
        let mut blobs = BlobReader::new(&path, &c.blobs);
        blobs.bytes()?; // the network, loaded above
        blobs.optimizer(&mut optim)?;
        match head_optim.as_mut() {
            Some(h) => blobs.optimizer(h)?,
            None => _ = blobs.bytes()?,
        }
        let values = blobs.f64s(None)?;
        if natural.is_some() {
            natural = Some(L::natural_from_values(&net.head, &values)?);
        }
        blobs.finish()?;
        train.resume_after(c.steps_done as u64);
        start = Some(LoopStart { epochs_done: c.epochs_done, history: c.history });
    }
    let (optim, head_optim, natural) = (RefCell::new(optim), RefCell::new(head_optim), RefCell::new(natural));
    let step = |mut net: HybridNet<T, K, L>, idx: &[usize], at: StepIndex| -> Result<(HybridNet<T, K, L>, f64)> {
        let (mut optim, mut head_optim, mut natural) =
            (optim.borrow_mut(), head_optim.borrow_mut(), natural.borrow_mut());
        net.norm = net.norm.for_step(at.step - 1, recipe.standardize_steps, recipe.frozen_statistics);
        let (input, targets) = train.batch(idx, &device)?;
        let objective = net.objective(input, targets.clone())?;
        let loss = objective.loss.clone().into_scalar::<f64>();
        if !loss.is_finite() {
            return Err(crate::train::divergence::non_finite_objective(&net, "objective", loss, at));
        }
        let mut backward = objective.loss.backward();
        // With a head learning-rate factor the head's gradients go to its own optimiser.
        let head_grads = head_optim.as_ref().map(|_| GradientsParams::from_module(&mut backward, &net.head));
        let grads = GradientsParams::from_grads(backward, &net);
        let trunk_grad_norm = if trace.is_some() {
            flatten_gradients(&net.trunk, &grads).iter().map(|g| g * g).sum::<f64>().sqrt()
        } else {
            0.0
        };
        let lr = config.lr_at(at);
        let mut net = optim.step(lr, net, grads);
        if let (Some(head_optim), Some(head_grads)) = (head_optim.as_mut(), head_grads) {
            net.head = head_optim.step(lr * recipe.head_lr_factor, net.head, head_grads);
        }
        let rho = match natural.as_mut() {
            Some(natural) => {
                let rho = L::natural_step_size(natural);
                net.head = L::natural_update(natural, net.head, objective.features.clone().detach(), targets.clone())?;
                rho
            }
            None => 0.0,
        };
        if let Some(trace) = trace.as_mut() {
            let n = net.head.num_data as f64;
            let (raw_mean, raw_sd) = column_moments(&to_vec(objective.raw_features.detach()), idx.len());
            let (_, head_sd) = column_moments(&to_vec(objective.features.detach()), idx.len());
            let record = HybridStep {
                at,
                loss,
                data_per_image: objective.data.into_scalar::<f64>() / idx.len() as f64,
                kl_per_image: objective.kl.into_scalar::<f64>() / n,
                batch_accuracy: if L::classifies() {
                    batch_accuracy(&to_vec(objective.mean.detach()), &to_vec(targets), net.head.num_latent())
                } else {
                    f64::NAN
                },
                raw_spread: spread(&raw_sd),
                raw_offset: offset(&raw_mean),
                head_spread: spread(&head_sd),
                trunk_grad_norm,
                natural_step: rho,
            };
            trace(&net, &record);
        }
        Ok((net, loss))
    };
    let checkpoint = |net: &HybridNet<T, K, L>, at: &LoopPosition<'_>| -> Result<()> {
        let Some(c) = &config.checkpoint else { return Ok(()) };
        if !(at.epoch.is_multiple_of(c.every_epochs) || at.epoch == config.epochs) {
            return Ok(());
        }
        let head = head_optim.borrow().as_ref().map(optimizer_bytes).transpose()?.unwrap_or_default();
        let natural = natural.borrow().as_ref().map(L::natural_to_values).transpose()?.unwrap_or_default();
        let state = Checkpoint {
            kind: CHECKPOINT_KIND.into(),
            fingerprint: fingerprint.to_vec(),
            epochs_done: at.epoch,
            steps_done: at.steps_done,
            history: at.history.clone(),
            blobs: vec![
                crate::saved::module_bytes(net.clone())?,
                optimizer_bytes(&optim.borrow())?,
                head,
                f64_bytes(&natural),
            ],
        };
        state.write(&path)
    };
    fit_loop_resumable(net, train.len(), config, "obj", step, evaluate, start, checkpoint)
}

/// The kind of loop [`fit_hybrid`]'s checkpoints name (and their file name).
const CHECKPOINT_KIND: &str = "HybridNet";

/// With `recipe.natural_step > 0`, the state of the natural-gradient updates of `net`'s `q(u)`,
/// which then leaves the optimiser (its gradients off); `None` where Adam trains `q(u)` too.
pub(crate) fn start_natural<T: Trunk, K: Kernel, L: HeadLikelihood>(
    net: &mut HybridNet<T, K, L>,
    recipe: &HybridConfig,
) -> Result<Option<L::Natural>> {
    if recipe.natural_step <= 0.0 {
        return Ok(None);
    }
    let start = recipe.natural_step_start.unwrap_or(recipe.natural_step);
    let natural = L::natural_start(&net.head, recipe.natural_step, start)?;
    net.head.q_mu = net.head.q_mu.clone().set_require_grad(false);
    net.head.q_sqrt = net.head.q_sqrt.clone().set_require_grad(false);
    Ok(Some(natural))
}

/// Fraction of rows of `mean` `[B, C]` whose largest entry is where the one-hot row of `targets`
/// has its 1.
fn batch_accuracy(mean: &[f64], targets: &[f64], c: usize) -> f64 {
    let rows = mean.chunks(c).zip(targets.chunks(c));
    let hits = rows.clone().filter(|(m, t)| argmax(m) == argmax(t)).count();
    hits as f64 / rows.count().max(1) as f64
}

/// Per-column means and standard deviations of a row-major `[b, d]` matrix.
fn column_moments(x: &[f64], b: usize) -> (Vec<f64>, Vec<f64>) {
    let d = x.len() / b.max(1);
    let mut mean = vec![0.0; d];
    for row in x.chunks(d) {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v / b as f64);
    }
    let mut var = vec![0.0; d];
    for row in x.chunks(d) {
        var.iter_mut().zip(row.iter().zip(&mean)).for_each(|(s, (v, m))| *s += (v - m).powi(2) / b as f64);
    }
    (mean, var.into_iter().map(f64::sqrt).collect())
}

/// Standard deviation across the batch of each feature, averaged over features.
fn spread(sd: &[f64]) -> f64 {
    sd.iter().sum::<f64>() / sd.len().max(1) as f64
}

/// Root mean square over features of the batch means.
fn offset(mean: &[f64]) -> f64 {
    (mean.iter().map(|m| m * m).sum::<f64>() / mean.len().max(1) as f64).sqrt()
}
