//! Training a [`HybridNet`] with burn-train's `Learner` (feature `learner`): metrics, checkpoints,
//! the dashboard and Burn's multi-device strategies, with the library's recipe inside each step.
//!
//! - [`LearnerNet`] wraps a network for the `Learner`. Its `TrainStep` computes the loss
//!   `−ELBO / N` and its gradients; its `optimize` runs the optimiser step, then the
//!   natural-gradient step of the head's `q(u)` on the same minibatch (where the recipe has one),
//!   just as [`fit_hybrid`](super::fit_hybrid) does.
//! - [`head_loaders`] turns any [`TrainingSet`] ([`ImageSet`](crate::data::ImageSet),
//!   [`ClassTable`](crate::data::ClassTable), [`Table`](crate::data::Table), your own) into
//!   burn-train data loaders: training minibatches in the order of the library's own loop
//!   ([`MiniBatches`]), validation minibatches of a [`SetIndices`] dataset and a [`SetBatcher`].
//! - [`ScheduledLr`](crate::train::ScheduledLr) is the recipe's learning-rate schedule as a Burn
//!   scheduler.
//!
//! A classification head reports burn-train's `ClassificationOutput` (the latent means are the
//! scores, so `AccuracyMetric` is the Bayesian SVM's decision rule); a regression head reports a
//! `RegressionOutput`. Both carry the loss for `LossMetric`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use burn_gp::data::{data_root, load_mnist, MnistVariant, Subset};
//! use burn_gp::nets::{head_loaders, HybridConfig, LearnerNet, MnistTrunkConfig};
//! use burn_gp::prelude::*;
//! use burn_gp::train::ScheduledLr;
//! use burn_train::metric::{AccuracyMetric, LossMetric};
//! use burn_train::{Learner, SupervisedTraining};
//!
//! # fn main() -> burn_gp::Result<()> {
//! let root = data_root(None)?;
//! let train = Arc::new(load_mnist(&root, MnistVariant::Digits, Subset::Train)?);
//! let test = Arc::new(load_mnist(&root, MnistVariant::Digits, Subset::Test)?);
//! let device = default_device()?.autodiff();
//! let recipe = HybridConfig::classes(10);
//! let config = recipe.train_config(3, 0);
//! let net = recipe.init(MnistTrunkConfig::new().init(&device), train.as_ref(), &device)?;
//! let loaders = head_loaders(train.clone(), test, config.batch_size, config.seed)?;
//! let steps = train.n.div_ceil(config.batch_size);
//! let result = SupervisedTraining::new("/tmp/mnist-hybrid", loaders.train, loaders.valid)
//!     .metrics((AccuracyMetric::new(), LossMetric::new()))
//!     .with_default_checkpointers()
//!     .num_epochs(config.epochs)
//!     .launch(Learner::new(
//!         LearnerNet::new(net, &recipe)?,
//!         config.optimizer.init()?,
//!         ScheduledLr::new(&config, steps)?,
//!     ));
//! let net = result.model.into_net()?; // the trained HybridNet, ready to predict and save
//! # Ok(())
//! # }
//! ```
//!
//! **Several devices.** Pass `SupervisedTraining::with_training_strategy(ExecutionStrategy::MultiDevice(devices,
//! MultiDeviceOptim::OptimMainDevice).into())`: burn-train then runs the forward and backward
//! passes of one minibatch per device in parallel and applies their gradients in one optimiser
//! step; the natural-gradient step that follows uses the features of every device's minibatch
//! (moved to the head's device). This is for several GPUs (`wgpu`, `cuda`); on the CPU there is
//! one device, whose kernels already use every core (rayon), so train on it alone. Distributed
//! data parallel training (`ExecutionStrategy::DistributedDataParallel`) keeps one model per
//! worker, whose natural-gradient states would drift apart: there train `q(u)` by Adam
//! (`natural_step = 0`).
//!
//! **Checkpoints** (`with_default_checkpointers`) hold the network, the optimiser and the
//! schedule; the `LearnerNet`'s module record also carries the optimiser steps done and the
//! natural-gradient state of `q(u)` (rewritten after every optimiser step), which it takes back
//! on the first step after burn-train loads a checkpoint. burn-train does not restore its data
//! loaders: resume with [`head_loaders_after`] the checkpoint's epoch, so that the run sees the
//! minibatches of the uninterrupted one. A run resumed so
//! (`SupervisedTraining::checkpoint(epoch)`, a fresh `LearnerNet` of the same architecture)
//! ends bit for bit where the uninterrupted run ends (test
//! `learner::a_learner_run_resumed_from_its_checkpoint_ends_where_the_uninterrupted_one_ends`).
use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataloader::{DataLoader, DataLoaderBuilder};
use burn::data::dataloader::{DataLoaderIterator, Progress};
use burn::data::dataset::{Dataset, DatasetError};
use burn::module::{Module, Param};
use burn::optim::lr_scheduler::module_lr_scheduler::ModuleLearningRate;
use burn::optim::{GradientsParams, ModuleOptimizer, MultiGradientsParams};
use burn::tensor::{Device, Tensor, TensorData};
use burn_train::{ClassificationOutput, InferenceStep, ItemLazy, RegressionOutput, TrainOutput, TrainStep};

use super::hybrid_training::start_natural;
use super::{FrozenStatistics, HeadLikelihood, HybridConfig, HybridNet, HybridObjective, TrainingSet, Trunk};
use crate::data::MiniBatches;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::likelihoods::{Gaussian, MultiClassHinge};

/// A minibatch for a network with a GP head: the trunk's input and the head's targets
/// `[B, outputs]` (one-hot rows for a classification head).
#[derive(Clone, Debug)]
pub struct HeadBatch<I> {
    /// What the trunk takes (`Tensor<4>` images, `Tensor<2>` rows, …).
    pub input: I,
    /// Targets `[B, outputs]`.
    pub targets: Tensor<2>,
}

/// The indices `0..n` of a [`TrainingSet`] as a burn-train [`Dataset`]; the [`SetBatcher`] turns
/// a minibatch of them into a [`HeadBatch`].
#[derive(Clone, Copy, Debug)]
pub struct SetIndices {
    n: usize,
}

impl SetIndices {
    /// The indices of `set`.
    pub fn of<S: TrainingSet>(set: &S) -> Self {
        Self { n: set.len() }
    }
}

impl Dataset<usize> for SetIndices {
    fn get(&self, index: usize) -> std::result::Result<usize, DatasetError> {
        if index < self.n {
            Ok(index)
        } else {
            Err(DatasetError::new(Error::invalid("index", format!("{index} of {} examples", self.n))))
        }
    }
    fn len(&self) -> usize {
        self.n
    }
}

/// Builds [`HeadBatch`]es of a [`TrainingSet`] from the indices a [`SetIndices`] dataset yields.
pub struct SetBatcher<S> {
    set: Arc<S>,
}

impl<S> SetBatcher<S> {
    /// A batcher of `set`.
    pub fn new(set: Arc<S>) -> Self {
        Self { set }
    }
}

impl<S> Batcher<usize, HeadBatch<S::Input>> for SetBatcher<S>
where
    S: TrainingSet + Send + Sync,
{
    /// # Panics
    /// On an empty minibatch or an index outside the set, which a data loader over
    /// [`SetIndices::of`] the same set never yields (Burn's `Batcher` cannot return an error).
    fn batch(&self, idx: Vec<usize>, device: &Device) -> HeadBatch<S::Input> {
        match self.set.batch(&idx, device) {
            Ok((input, targets)) => HeadBatch { input, targets },
            Err(e) => panic!("SetBatcher: {e} (use a data loader over SetIndices::of the same set)"),
        }
    }
}

/// A burn-train data loader of minibatches of a [`TrainingSet`].
pub type HeadLoader<I> = Arc<dyn DataLoader<HeadBatch<I>>>;

/// The data loaders of a `Learner` run (see [`head_loaders`]).
pub struct HeadLoaders<I> {
    /// Shuffled minibatches of the training set.
    pub train: HeadLoader<I>,
    /// Minibatches of the validation set, in order.
    pub valid: HeadLoader<I>,
}

/// Data loaders for training on `train` (minibatches of `batch_size` shuffled by `seed`, epoch
/// `e`'s being those [`fit_hybrid`](super::fit_hybrid) trains on in its epoch `e`) and
/// validating on `valid` (in order); errors if the two sets have different target widths or
/// `batch_size` is 0.
pub fn head_loaders<S>(train: Arc<S>, valid: Arc<S>, batch_size: usize, seed: u64) -> Result<HeadLoaders<S::Input>>
where
    S: TrainingSet + Send + Sync + 'static,
    S::Input: Clone + fmt::Debug + Send + 'static,
{
    head_loaders_after(train, valid, batch_size, seed, 0)
}

/// [`head_loaders`] for a run resumed from burn-train's checkpoint of epoch `epochs_done`
/// (`SupervisedTraining::checkpoint(epochs_done)`): its training loader starts with the
/// minibatches of epoch `epochs_done + 1` of the uninterrupted run (burn-train restores the
/// network, the optimiser and the schedule, not the data loader's position).
pub fn head_loaders_after<S>(
    train: Arc<S>,
    valid: Arc<S>,
    batch_size: usize,
    seed: u64,
    epochs_done: usize,
) -> Result<HeadLoaders<S::Input>>
where
    S: TrainingSet + Send + Sync + 'static,
    S::Input: Clone + fmt::Debug + Send + 'static,
{
    if batch_size == 0 {
        return Err(Error::invalid("batch_size", "must be at least 1"));
    }
    if train.outputs() != valid.outputs() {
        return Err(Error::shape("head_loaders: target columns of train vs valid", train.outputs(), valid.outputs()));
    }
    if train.is_empty() || valid.is_empty() {
        return Err(Error::Empty { context: "head_loaders: training or validation set".into() });
    }
    let rows = 0..train.len();
    let train_loader = EpochLoader::new(train, rows, batch_size, seed, epochs_done, Device::default())?;
    let valid_loader = DataLoaderBuilder::new(SetBatcher::new(valid.clone()))
        .batch_size(batch_size)
        .build(SetIndices::of(valid.as_ref()));
    Ok(HeadLoaders { train: Arc::new(train_loader), valid: valid_loader })
}

/// The training loader of [`head_loaders_after`]: one epoch of [`MiniBatches`] per `iter()`.
/// The copies burn-train makes for its device (`to_device`) share the position; a slice (one
/// device's part under burn-train's multi-device strategies) draws its own batches of its rows
/// from the same seed, starting at the same epoch.
struct EpochLoader<S> {
    set: Arc<S>,
    /// The rows of the set it draws from.
    rows: std::ops::Range<usize>,
    batch_size: usize,
    seed: u64,
    /// The sampler and the epochs it has drawn.
    batches: Arc<Mutex<(MiniBatches, usize)>>,
    device: Device,
}

impl<S: TrainingSet> EpochLoader<S> {
    /// Minibatches of `rows` of `set` drawn from `seed`, after `epochs_done` epochs.
    fn new(
        set: Arc<S>,
        rows: std::ops::Range<usize>,
        batch_size: usize,
        seed: u64,
        epochs_done: usize,
        device: Device,
    ) -> Result<Self> {
        let mut batches = MiniBatches::new(rows.len(), batch_size, seed)?;
        for _ in 0..epochs_done {
            batches.next_epoch();
        }
        Ok(Self { set, rows, batch_size, seed, batches: Arc::new(Mutex::new((batches, epochs_done))), device })
    }

    fn sampler(&self) -> std::sync::MutexGuard<'_, (MiniBatches, usize)> {
        self.batches.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<S> burn::data::dataloader::DataLoader<HeadBatch<S::Input>> for EpochLoader<S>
where
    S: TrainingSet + Send + Sync + 'static,
    S::Input: Send + 'static,
{
    fn iter<'a>(&'a self) -> Box<dyn DataLoaderIterator<HeadBatch<S::Input>> + 'a> {
        let mut batches = {
            let mut sampler = self.sampler();
            sampler.1 += 1;
            sampler.0.next_epoch()
        };
        batches.iter_mut().flatten().for_each(|i| *i += self.rows.start);
        Box::new(EpochIter { loader: self, batches: batches.into_iter(), done: 0 })
    }

    fn num_items(&self) -> usize {
        self.rows.len()
    }

    fn to_device(&self, device: &Device) -> Arc<dyn burn::data::dataloader::DataLoader<HeadBatch<S::Input>>> {
        Arc::new(Self {
            set: self.set.clone(),
            rows: self.rows.clone(),
            batch_size: self.batch_size,
            seed: self.seed,
            batches: self.batches.clone(),
            device: device.clone(),
        })
    }

    /// # Panics
    /// On an empty slice, which burn-train's split of a loader among devices never asks for
    /// (Burn's `DataLoader::slice` cannot return an error).
    fn slice(&self, start: usize, end: usize) -> Arc<dyn burn::data::dataloader::DataLoader<HeadBatch<S::Input>>> {
        let rows = self.rows.start + start..self.rows.start + end.min(self.rows.len());
        let epochs_done = self.sampler().1;
        match Self::new(self.set.clone(), rows, self.batch_size, self.seed, epochs_done, self.device.clone()) {
            Ok(loader) => Arc::new(loader),
            Err(e) => panic!("the slice {start}..{end} of a head loader: {e}"),
        }
    }
}

/// The minibatches of one epoch of an [`EpochLoader`].
struct EpochIter<'a, S> {
    loader: &'a EpochLoader<S>,
    batches: std::vec::IntoIter<Vec<usize>>,
    done: usize,
}

impl<S: TrainingSet> Iterator for EpochIter<'_, S> {
    type Item = std::result::Result<HeadBatch<S::Input>, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        let idx = self.batches.next()?;
        self.done += idx.len();
        Some(match self.loader.set.batch(&idx, &self.loader.device) {
            Ok((input, targets)) => Ok(HeadBatch { input, targets }),
            Err(e) => Err(DatasetError::new(e)),
        })
    }
}

impl<S: TrainingSet> DataLoaderIterator<HeadBatch<S::Input>> for EpochIter<'_, S> {
    fn progress(&self) -> Progress {
        Progress::new(self.done, self.loader.rows.len(), Some("items".to_string()))
    }
}

/// The likelihoods a [`LearnerNet`]'s head can have, with the burn-train output each reports.
pub trait LearnerHead: HeadLikelihood + 'static {
    /// What a step reports to burn-train's metrics.
    type Output: ItemLazy + 'static;
    /// The report of a minibatch with loss `[1]`, latent means `[B, outputs]` and targets
    /// `[B, outputs]`.
    fn report(loss: Tensor<1>, mean: Tensor<2>, targets: Tensor<2>) -> Self::Output;
}

impl LearnerHead for MultiClassHinge {
    /// Latent means as the class scores and the labels `argmax` of the one-hot targets.
    type Output = ClassificationOutput;
    fn report(loss: Tensor<1>, mean: Tensor<2>, targets: Tensor<2>) -> ClassificationOutput {
        ClassificationOutput::new(loss, mean, targets.argmax(1).squeeze_dim::<1>(1))
    }
}

impl LearnerHead for Gaussian {
    /// Latent means as the predictions.
    type Output = RegressionOutput;
    fn report(loss: Tensor<1>, mean: Tensor<2>, targets: Tensor<2>) -> RegressionOutput {
        RegressionOutput::new(loss, mean, targets)
    }
}

/// A [`HybridNet`] ready for burn-train's `Learner` (see the [module docs](self)).
#[derive(Module, Debug)]
pub struct LearnerNet<T: Trunk, K: Kernel, L: HeadLikelihood> {
    /// The network being trained.
    pub net: HybridNet<T, K, L>,
    /// The optimiser steps done and the natural-gradient state as numbers (see
    /// [`HeadLikelihood::natural_to_values`]), rewritten after every optimiser step: a parameter
    /// without gradient, so that burn-train's checkpoints of the module carry them.
    carried: Param<Tensor<1>>,
    /// What carries from one training step to the next (natural-gradient state, steps done),
    /// shared by the clones the `Learner` makes of the model.
    #[module(skip)]
    steps: StepSlot,
}

impl<T: Trunk, K: Kernel, L: HeadLikelihood> LearnerNet<T, K, L>
where
    L::Natural: Send + 'static,
{
    /// Wraps `net` (on an autodiff device) to train by `recipe`; with `recipe.natural_step > 0`
    /// its head's `q(u)` leaves the optimiser and moves by natural-gradient steps, and with
    /// `recipe.standardize_steps` its feature normaliser freezes after that many optimiser steps.
    /// burn-train's `Learner` steps the whole network with one optimiser, so a recipe with a
    /// `head_lr_factor` other than 1 is refused.
    pub fn new(mut net: HybridNet<T, K, L>, recipe: &HybridConfig) -> Result<Self> {
        recipe.validate()?;
        if recipe.head_lr_factor != 1.0 {
            return Err(crate::error::Error::invalid(
                "head_lr_factor",
                format!(
                    "the Learner path steps the whole network at one learning rate; got {} (train with fit_hybrid)",
                    recipe.head_lr_factor
                ),
            ));
        }
        let state = start_natural(&mut net, recipe)?.map(|s| Box::new(s) as Box<dyn Any + Send>);
        net.norm = net.norm.for_step(0, recipe.standardize_steps, recipe.frozen_statistics);
        let steps = StepState {
            state,
            pending: Vec::new(),
            error: None,
            steps_done: 0,
            standardize_steps: recipe.standardize_steps,
            frozen_statistics: recipe.frozen_statistics,
        };
        let carried = carried_param::<L>(&steps, &net.head.q_mu.val().device())?;
        Ok(Self { net, carried, steps: StepSlot(Arc::new(Mutex::new(steps))) })
    }

    /// The trained network; errors if a natural-gradient step failed during training (the head
    /// then kept the `q(u)` of the step before).
    pub fn into_net(self) -> Result<HybridNet<T, K, L>> {
        match self.steps.lock().error.take() {
            Some(e) => Err(e),
            None => Ok(self.net),
        }
    }

    /// What follows every optimiser step: the natural-gradient step of `q(u)`, the count
    /// towards freezing the feature normaliser, and the carried state for a checkpoint.
    fn after_optimizer_step(&mut self) {
        self.natural_step();
        let mut slot = self.steps.lock();
        slot.steps_done += 1;
        self.net.norm = self.net.norm.clone().for_step(slot.steps_done, slot.standardize_steps, slot.frozen_statistics);
        match carried_param::<L>(&slot, &self.carried.val().device()) {
            Ok(carried) => self.carried = carried,
            Err(e) => _ = slot.error.get_or_insert(e),
        }
    }

    /// After burn-train loaded a checkpoint into the module (its carried step count is not the
    /// one this run has reached): takes the steps done and the natural-gradient state back from
    /// it, and returns the network with its feature normaliser as it stood at that step (for
    /// this step's forward pass; the next optimiser step sets the module's own).
    fn take_back_checkpoint(&self) -> Option<HybridNet<T, K, L>> {
        let mut slot = self.steps.lock();
        let carried_steps = self.carried.val().narrow(0, 0, 1).into_scalar::<f64>();
        if carried_steps == slot.steps_done as f64 || slot.error.is_some() {
            return None;
        }
        let values = crate::tensors::to_vec(self.carried.val());
        let restored = match (&slot.state, values.len()) {
            (None, 1) => Ok(None),
            (Some(_), len) if len > 1 => L::natural_from_values(&self.net.head, &values[1..]).map(Some),
            _ => Err(Error::invalid("checkpoint", "the checkpoint's natural-gradient state does not fit this recipe")),
        };
        match restored {
            Ok(state) => {
                slot.state = state.map(|s| Box::new(s) as Box<dyn Any + Send>);
                slot.steps_done = carried_steps as usize;
                let mut net = self.net.clone();
                net.norm = net.norm.for_step(slot.steps_done, slot.standardize_steps, slot.frozen_statistics);
                Some(net)
            }
            Err(e) => {
                slot.error = Some(e);
                None
            }
        }
    }

    /// The natural-gradient step of the head's `q(u)` on the minibatches of the last training
    /// step (their features, detached, and targets).
    fn natural_step(&mut self) {
        let mut slot = self.steps.lock();
        let pending = std::mem::take(&mut slot.pending);
        if pending.is_empty() || slot.error.is_some() {
            return;
        }
        let device = self.net.head.q_mu.val().device();
        let (features, targets): (Vec<_>, Vec<_>) =
            pending.into_iter().map(|(f, t)| (f.to_device(&device), t.to_device(&device))).unzip();
        let Some(state) = slot.state.as_mut().and_then(|s| s.downcast_mut::<L::Natural>()) else {
            return;
        };
        let head = self.net.head.clone();
        match L::natural_update(state, head, Tensor::cat(features, 0), Tensor::cat(targets, 0)) {
            Ok(head) => self.net.head = head,
            Err(e) => slot.error = Some(e),
        }
    }
}

impl<T: Trunk, K: Kernel, L: HeadLikelihood> LearnerNet<T, K, L> {
    /// The network's objective on a minibatch, for the `Learner`'s steps, which cannot return an
    /// error.
    ///
    /// # Panics
    /// If the batch does not fit the network (see [`TrainStep::step`]).
    fn objective(&self, input: T::Input, targets: Tensor<2>) -> HybridObjective {
        match self.net.objective(input, targets) {
            Ok(objective) => objective,
            Err(e) => panic!("LearnerNet: {e}"),
        }
    }
}

impl<T, K, L> TrainStep for LearnerNet<T, K, L>
where
    T: Trunk,
    T::Input: Send + 'static,
    K: Kernel,
    L: LearnerHead,
    L::Natural: Send + 'static,
{
    type Input = HeadBatch<T::Input>;
    type Output = L::Output;

    /// # Panics
    /// If the batch does not fit the network (the trunk rejects the input, or the targets are not
    /// `[B, outputs]`): use [`head_loaders`] on a set the network was built for.
    fn step(&self, batch: HeadBatch<T::Input>) -> TrainOutput<L::Output> {
        let objective = match self.take_back_checkpoint() {
            Some(net) => match net.objective(batch.input, batch.targets.clone()) {
                Ok(objective) => objective,
                Err(e) => panic!("LearnerNet: {e}"),
            },
            None => self.objective(batch.input, batch.targets.clone()),
        };
        {
            let mut slot = self.steps.lock();
            if slot.state.is_some() {
                slot.pending.push((objective.features.detach(), batch.targets.clone()));
            }
        }
        let grads = objective.loss.backward();
        let report = L::report(objective.loss, objective.mean, batch.targets);
        TrainOutput::new(self, grads, report)
    }

    /// The optimiser's step, then the natural-gradient step of `q(u)` on the same minibatch.
    fn optimize(self, optim: &mut ModuleOptimizer, lr: ModuleLearningRate, grads: GradientsParams) -> Self {
        let mut model = optim.step(lr, self, grads);
        model.after_optimizer_step();
        model
    }

    /// As [`optimize`](TrainStep::optimize), with the gradients of several devices (burn-train's
    /// multi-device strategy); the natural-gradient step uses every device's minibatch.
    fn optimize_multi(self, optim: &mut ModuleOptimizer, lr: ModuleLearningRate, grads: MultiGradientsParams) -> Self {
        let mut model = optim.step_multi(lr, self, grads);
        model.after_optimizer_step();
        model
    }
}

impl<T, K, L> InferenceStep for LearnerNet<T, K, L>
where
    T: Trunk,
    T::Input: Send + 'static,
    K: Kernel,
    L: LearnerHead,
{
    type Input = HeadBatch<T::Input>;
    type Output = L::Output;

    /// The loss and latent means of a validation minibatch (no natural-gradient step).
    ///
    /// # Panics
    /// As [`TrainStep::step`].
    fn step(&self, batch: HeadBatch<T::Input>) -> L::Output {
        let objective = self.objective(batch.input, batch.targets.clone());
        L::report(objective.loss, objective.mean, batch.targets)
    }
}

/// What a [`LearnerNet`] carries from one training step to the next, shared by its clones.
#[derive(Clone)]
struct StepSlot(Arc<Mutex<StepState>>);

/// The natural-gradient state and the count of optimiser steps.
struct StepState {
    /// The likelihood's `HeadLikelihood::Natural`, or `None` where Adam trains `q(u)`.
    state: Option<Box<dyn Any + Send>>,
    /// Features and targets of the minibatches since the last optimiser step.
    pending: Vec<(Tensor<2>, Tensor<2>)>,
    /// The first failed natural-gradient step.
    error: Option<Error>,
    /// Optimiser steps taken, towards freezing the feature normaliser.
    steps_done: usize,
    /// The recipe's [`HybridConfig::standardize_steps`].
    standardize_steps: Option<usize>,
    /// The recipe's [`HybridConfig::frozen_statistics`].
    frozen_statistics: FrozenStatistics,
}

/// The carried parameter of a [`LearnerNet`]: `[steps done, natural-gradient state …]` (only
/// the steps where Adam trains `q(u)`), without gradient, on `device`.
fn carried_param<L: HeadLikelihood>(slot: &StepState, device: &Device) -> Result<Param<Tensor<1>>>
where
    L::Natural: 'static,
{
    let mut values = vec![slot.steps_done as f64];
    if let Some(state) = &slot.state {
        let state = state
            .downcast_ref::<L::Natural>()
            .ok_or_else(|| Error::invalid("checkpoint", "the natural-gradient state is of another likelihood"))?;
        values.extend(L::natural_to_values(state)?);
    }
    let len = values.len();
    Ok(Param::from_tensor(Tensor::from_data(TensorData::new(values, [len]), device)).set_require_grad(false))
}

impl StepSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, StepState> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for StepSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let slot = self.lock();
        f.debug_struct("StepSlot")
            .field("natural", &slot.state.is_some())
            .field("pending", &slot.pending.len())
            .field("steps_done", &slot.steps_done)
            .finish()
    }
}
