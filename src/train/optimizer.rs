//! [`OptimizerConfig`]: which optimiser a [`TrainConfig`](super::TrainConfig) trains with.
use burn::optim::{AdamConfig, AdamWConfig, ModuleOptimizer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::optim::{Adadelta, SignAdaptive};

/// The optimiser of a training run; every variant but [`Spsa`](Self::Spsa) steps a whole Burn module on its
/// gradients.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum OptimizerConfig {
    /// Adam with Burn's defaults (β₁ = 0.9, β₂ = 0.999, ε = 1e-5). The default.
    #[default]
    Adam,
    /// Adam with decoupled weight decay (AdamW).
    AdamW {
        /// Weight-decay factor λ (≥ 0).
        weight_decay: f64,
    },
    /// Adadelta (Zeiler 2012); paper 001 uses ρ = 0.9, ε = 1e-5 with lr = 1.
    Adadelta {
        /// Decay of the running averages, in `(0, 1)`.
        rho: f64,
        /// Added under both square roots (> 0).
        epsilon: f64,
    },
    /// The sign-adaptive step of paper 001 (per-coordinate steps that grow while a gradient keeps
    /// its sign and shrink when it flips); the learning rate scales the steps.
    SignAdaptive {
        /// Initial step of every coordinate (> 0).
        initial_step: f64,
    },
    /// Simultaneous perturbation stochastic approximation (Spall 1998; the skew GP paper's
    /// optimiser): two objective evaluations per step along a random ±1 direction, no gradients,
    /// step gain `a_k = a / (k + 1 + A)^0.602` with `A` a tenth of the steps and perturbation
    /// `c_k = c / (k + 1)^0.101` (the learning rate is not used). Gradient-free, so only
    /// [`SkewGp::fit`](crate::models::SkewGp::fit) takes it; [`init`](Self::init) refuses it.
    Spsa {
        /// Step gain `a` (> 0).
        a: f64,
        /// Perturbation size `c` (> 0).
        c: f64,
    },
}

impl OptimizerConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, v: f64| Error::invalid("optimizer", format!("{what} = {v} is out of range"));
        match *self {
            OptimizerConfig::Adam => Ok(()),
            OptimizerConfig::AdamW { weight_decay } if !(weight_decay.is_finite() && weight_decay >= 0.0) => {
                Err(bad("weight_decay", weight_decay))
            }
            OptimizerConfig::Adadelta { rho, .. } if !(rho > 0.0 && rho < 1.0) => Err(bad("rho", rho)),
            OptimizerConfig::Adadelta { epsilon, .. } if !(epsilon.is_finite() && epsilon > 0.0) => {
                Err(bad("epsilon", epsilon))
            }
            OptimizerConfig::SignAdaptive { initial_step } if !(initial_step.is_finite() && initial_step > 0.0) => {
                Err(bad("initial_step", initial_step))
            }
            OptimizerConfig::Spsa { a, .. } if !(a.is_finite() && a > 0.0) => Err(bad("a", a)),
            OptimizerConfig::Spsa { c, .. } if !(c.is_finite() && c > 0.0) => Err(bad("c", c)),
            _ => Ok(()),
        }
    }
    /// The optimiser, ready to step a module on its gradients; [`OptimizerConfig::Spsa`], which
    /// takes no gradients, is [`Error::InvalidArgument`] (only the skew GP runs it).
    pub fn init(&self) -> Result<ModuleOptimizer> {
        self.validate()?;
        Ok(match *self {
            OptimizerConfig::Spsa { .. } => {
                return Err(Error::invalid("optimizer", "SPSA is gradient-free: only SkewGp::fit takes it"))
            }
            OptimizerConfig::Adam => AdamConfig::new().init(),
            OptimizerConfig::AdamW { weight_decay } => AdamWConfig::new().with_weight_decay(weight_decay as f32).init(),
            OptimizerConfig::Adadelta { rho, epsilon } => Adadelta::new(rho, epsilon).init(),
            OptimizerConfig::SignAdaptive { initial_step } => SignAdaptive::new(initial_step).init(),
        })
    }
}
