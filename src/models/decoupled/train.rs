//! Training a decoupled GP: Adam on the hyperparameters, `Z_γ` and `a_γ`, and (by default) a
//! natural-gradient step on `(m_β, L_S)` after every Adam step, on the same minibatch.
use burn::optim::ModuleOptimizer;
use burn::tensor::Tensor;

use super::model::DecoupledGp;
use crate::error::Result;
use crate::inducing::InducingVariables;
use crate::kernels::Kernel;
use crate::likelihoods::Likelihood;
use crate::models::select_rows;
use crate::train::{fit, fit_loop_with_optimizer, loss_step, History, StepIndex, TrainConfig};

/// Trains `model` on `(x, y)` (on the autodiff device) for `config.epochs` passes of minibatches.
///
/// If the model was built with natural gradients, each Adam step on `−ELBO/N` is followed by a
/// natural-gradient step of size `rho` on `(m_β, L_S)`; otherwise Adam trains everything.
/// `evaluate(model, epoch)` gives the metrics of the progress line and the [`History`].
///
/// With [`TrainConfig::checkpoint`] set, the model (the natural-gradient state `(m_β, L_S)` is
/// its parameters) and the optimiser's state are checkpointed to `<dir>/DecoupledGp.ckpt` as by
/// [`fit`], and a resumed run ends bit for bit where the uninterrupted run ends.
pub fn fit_decoupled<K, I, L, E>(
    model: DecoupledGp<K, I, L>,
    x: &Tensor<2>,
    y: &Tensor<2>,
    config: &TrainConfig,
    rho: f64,
    evaluate: E,
) -> Result<(DecoupledGp<K, I, L>, History)>
where
    K: Kernel,
    I: InducingVariables<K>,
    L: Likelihood,
    E: FnMut(&DecoupledGp<K, I, L>, usize) -> Result<Vec<(String, f64)>>,
{
    let n = x.dims()[0];
    let loss = |m: &DecoupledGp<K, I, L>, idx: &[usize]| m.minibatch_loss(x, y, idx);
    if !model.natural_gradients {
        return fit(model, n, config, loss, evaluate);
    }
    // the natural-gradient state (m_β, L_S) is the model's: checkpoints of the model and the
    // optimiser hold the whole loop
    let mut loss = loss;
    let step = |m: DecoupledGp<K, I, L>, idx: &[usize], at: StepIndex, optim: &mut ModuleOptimizer| {
        let (m, value) = loss_step(m, idx, at, &mut loss, optim, config)?;
        Ok((m.natural_gradient_step(select_rows(x, idx), select_rows(y, idx), rho)?.0, value))
    };
    // the same file as Adam alone writes, of another kind (neither resumes the other)
    let kind = format!("{} with natural gradients", std::any::type_name::<DecoupledGp<K, I, L>>());
    fit_loop_with_optimizer(model, n, config, "obj", &kind, config.optimizer.init()?, step, evaluate)
}

impl<K: Kernel, I: InducingVariables<K>, L: Likelihood> DecoupledGp<K, I, L> {
    /// Trains on `x` `[n, d]` and targets `y` (on the autodiff device): the optimiser on the
    /// hyperparameters and the mean basis, natural-gradient steps of size `natural_step` on
    /// `(m_β, L_S)` when the model was built with them (see [`fit_decoupled`]).
    pub fn fit(self, x: &Tensor<2>, y: &Tensor<2>, config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_evaluated(x, y, config, |_, _| Ok(Vec::new()))
    }
    /// As [`fit`](Self::fit), with `evaluate(model, epoch)` metrics after every epoch.
    pub fn fit_evaluated<E>(
        self,
        x: &Tensor<2>,
        y: &Tensor<2>,
        config: &TrainConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&Self, usize) -> Result<Vec<(String, f64)>>,
    {
        let rho = self.natural_step;
        fit_decoupled(self, x, y, config, rho, evaluate)
    }
}
