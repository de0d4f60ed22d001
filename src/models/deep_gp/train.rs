//! Training a [`DeepGp`]: the [`TrainConfig`]'s optimiser (Adam by default) on `−F̂/N` over
//! shuffled minibatches, stopping with a typed error that names the step and the parameter as soon
//! as the energy or a gradient is not finite.
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Tensor;

use super::model::DeepGp;
use crate::error::{check_finite, Error, Result};
use crate::train::divergence::{first_non_finite_gradient, parameter_note};
use crate::train::{fit_loop_with_optimizer, History, OptimizerConfig, StepIndex, TrainConfig};

/// Adam's ε in the authors' code, which minimises the unnormalised `−F̂`.
const PAPER_ADAM_EPSILON: f64 = 1e-8;

impl DeepGp {
    /// Maximises the approximate-EP energy by `config.optimizer` on minibatches of the training
    /// tensors `x` `[N, D_0]`, `y` `[N, D_L]` (on an autodiff device; `N` must equal `num_data`).
    ///
    /// `evaluate(model, epoch)` runs after every epoch on the model without autodiff and returns
    /// named metrics for the progress line and the [`History`] (objective = mean of `−F̂/N`).
    /// A non-finite energy or gradient stops training with [`Error::NonFinite`] naming the step
    /// and the parameter. With [`TrainConfig::checkpoint`] set, the model and the optimiser's
    /// state are checkpointed to `<dir>/DeepGp.ckpt`, and a resumed run ends bit for bit where the
    /// uninterrupted run ends.
    ///
    /// With [`OptimizerConfig::Adam`] (the default) Adam uses β = (0.9, 0.999) and ε = 1e-8/N: the
    /// loss is `−F̂/N`, so this is the same update as the authors' Adam (ε = 1e-8) on `−F̂` (Burn's
    /// default ε = 1e-5 on `−F̂/N` would be a ~N·1000 times larger ε there and damps the small
    /// late-training gradients). Every other optimiser runs as
    /// [`OptimizerConfig::init`] builds it; [`DeepGp::fit_with_adam`] takes any [`AdamConfig`].
    pub fn fit_evaluated<E>(
        self,
        x: &Tensor<2>,
        y: &Tensor<2>,
        config: &TrainConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&DeepGp, usize) -> Result<Vec<(String, f64)>>,
    {
        let optim = match config.optimizer {
            OptimizerConfig::Adam => {
                AdamConfig::new().with_epsilon((PAPER_ADAM_EPSILON / self.num_data as f64) as f32).init()
            }
            other => other.init()?,
        };
        self.fit_with_optimizer(x, y, config, optim, evaluate)
    }

    /// Trains on `x` `[n, d]` and targets `y` `[n, outputs]` (see
    /// [`fit_evaluated`](Self::fit_evaluated), without progress metrics).
    pub fn fit(self, x: &Tensor<2>, y: &Tensor<2>, config: &TrainConfig) -> Result<(Self, History)> {
        self.fit_evaluated(x, y, config, |_, _| Ok(Vec::new()))
    }

    /// [`DeepGp::fit_evaluated`] with the given Adam settings in place of `config.optimizer` (the
    /// learning rate and its schedule are `config`'s).
    pub fn fit_with_adam<E>(
        self,
        x: &Tensor<2>,
        y: &Tensor<2>,
        config: &TrainConfig,
        adam: AdamConfig,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&DeepGp, usize) -> Result<Vec<(String, f64)>>,
    {
        config.validate()?;
        self.fit_with_optimizer(x, y, config, adam.init(), evaluate)
    }

    /// The training loop of [`fit_evaluated`](Self::fit_evaluated) with the optimiser `optim`.
    fn fit_with_optimizer<E>(
        self,
        x: &Tensor<2>,
        y: &Tensor<2>,
        config: &TrainConfig,
        optim: ModuleOptimizer,
        evaluate: E,
    ) -> Result<(Self, History)>
    where
        E: FnMut(&DeepGp, usize) -> Result<Vec<(String, f64)>>,
    {
        let n = crate::models::check_inputs("DeepGp::fit", x, Some(self.input_dim()))?;
        crate::models::check_targets("DeepGp::fit", y, n, self.output_dim())?;
        if n != self.num_data {
            return Err(Error::shape("DeepGp::fit: training rows vs num_data", self.num_data, n));
        }
        check_finite("DeepGp::fit: x", &crate::tensors::to_vec(x.clone()))?;
        check_finite("DeepGp::fit: y", &crate::tensors::to_vec(y.clone()))?;
        let step =
            |model: DeepGp, batch: &[usize], at: StepIndex, optim: &mut ModuleOptimizer| -> Result<(DeepGp, f64)> {
                let (step, epoch) = (at.step, at.epoch);
                let loss = model.minibatch_loss(x, y, batch).map_err(|e| match e {
                    Error::NonFinite { context, index } => Error::NonFinite {
                        context: format!("{context} at step {step} (epoch {epoch}); {}", parameter_note(&model)),
                        index,
                    },
                    other => other,
                })?;
                let value = loss.clone().into_scalar::<f64>();
                if !value.is_finite() {
                    return Err(Error::NonFinite {
                        context: format!(
                            "deep GP energy became {value} at step {step} (epoch {epoch}); {}",
                            parameter_note(&model)
                        ),
                        index: step,
                    });
                }
                let grads = GradientsParams::from_grads(loss.backward(), &model);
                if let Some((name, i)) = first_non_finite_gradient(&model, &grads) {
                    return Err(Error::NonFinite {
                        context: format!("gradient of parameter {name} at step {step} (epoch {epoch})"),
                        index: i,
                    });
                }
                Ok((optim.step(config.lr_at(at), model, grads), value))
            };
        fit_loop_with_optimizer(self, n, config, "−F/N", "DeepGp", optim, step, evaluate)
    }
}
