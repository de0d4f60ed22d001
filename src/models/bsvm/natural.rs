//! Stochastic natural-gradient updates of a Bayesian SVM's `q(u)` (Algorithm 1 of the paper's
//! Appendix C with its eq. 45 corrected, see `docs/papers/003-bayesian-svm.md`, section "Errata"),
//! for training with minibatches while Adam moves everything else.
//!
//! The optimal whitened `q(v_j)` for fixed `α`, `t` and features has natural parameters
//! `Λ_j = I + Σ_n ω_n 1[j ∈ {y_n, t_n}] a_n a_nᵀ` and `h_j = Λ_j m_j` (see [`BayesianSvm::coordinate_ascent`]).
//! On a minibatch the data sums are scaled by `N/B`, and the state moves a step `ρ_τ` towards that
//! estimate: `Λ ← (1 − ρ)Λ + ρΛ̂`, `h ← (1 − ρ)h + ρĥ`, which is a natural-gradient step of size `ρ`.
//! All classes are updated together (a damped Jacobi step) with `α = α̂` from the current `q`.
use burn::module::Param;
use burn::tensor::Tensor;

use super::updates::class_weights;
use super::BayesianSvm;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::likelihoods::MultiClassHinge;
use crate::linalg::{cholesky, tri_inverse};
use crate::models::checks::{check_inputs, check_targets};

/// The natural parameters of `q(u)` and the step-size schedule `ρ_τ = clamp((τ + 1)^{−κ}, ρ_min, ρ_max)`.
#[derive(Clone, Debug)]
pub struct HingeNaturalGradient {
    /// Precisions `Λ_j` `[C, P, P]`.
    precision: Tensor<3>,
    /// Shifts `h_j = Λ_j m_j` `[C, P]`.
    shift: Tensor<2>,
    /// Steps taken.
    step: usize,
    /// Decay exponent κ of the step size.
    pub decay: f64,
    /// Smallest step size (keeps tracking features that keep moving).
    pub min_step: f64,
    /// Largest step size (damps the first steps, while features are still untrained).
    pub max_step: f64,
}

impl HingeNaturalGradient {
    /// The state of `model`'s current `q(u)`, with `κ = 0.6`, `ρ_min = 0.02` and `ρ_max = 1`.
    pub fn new<K: Kernel>(model: &BayesianSvm<K>) -> Result<Self> {
        let lq = model.q_sqrt_lower().detach();
        let l_inv = tri_inverse(lq);
        let precision = l_inv.clone().transpose().matmul(l_inv); // S⁻¹ = L⁻ᵀ L⁻¹
        let shift = precision.clone().matmul(model.q_mu.val().detach().unsqueeze_dim::<3>(2)).squeeze_dim::<2>(2);
        Ok(Self { precision, shift, step: 0, decay: 0.6, min_step: 0.02, max_step: 1.0 })
    }

    /// The state as numbers, for a checkpoint: the step count, κ, ρ_min, ρ_max, then `Λ_j` and `h_j`
    /// (exact: an f32 device's values are exact in f64).
    pub(crate) fn to_values(&self) -> Vec<f64> {
        let head = [self.step as f64, self.decay, self.min_step, self.max_step];
        head.into_iter()
            .chain(crate::tensors::to_vec(self.precision.clone()))
            .chain(crate::tensors::to_vec(self.shift.clone()))
            .collect()
    }

    /// The state [`to_values`](Self::to_values) wrote, for `C` latent GPs of `P` inducing points
    /// each, on `device`.
    pub(crate) fn from_values(values: &[f64], c: usize, p: usize, device: &burn::tensor::Device) -> Result<Self> {
        let want = 4 + c * p * p + c * p;
        if values.len() != want || !(values[0] >= 0.0 && values[0].fract() == 0.0) {
            return Err(crate::error::Error::shape(
                "natural-gradient state (step, κ, ρ range, Λ, h)",
                want,
                values.len(),
            ));
        }
        let (precision, shift) = values[4..].split_at(c * p * p);
        Ok(Self {
            precision: Tensor::from_data(burn::tensor::TensorData::new(precision.to_vec(), [c, p, p]), device),
            shift: Tensor::from_data(burn::tensor::TensorData::new(shift.to_vec(), [c, p]), device),
            step: values[0] as usize,
            decay: values[1],
            min_step: values[2],
            max_step: values[3],
        })
    }

    /// The step size of the next update.
    pub fn step_size(&self) -> f64 {
        ((self.step + 1) as f64).powf(-self.decay).clamp(self.min_step, self.max_step.max(self.min_step))
    }

    /// One update of `q(u)` from a minibatch of features `[B, D]` with one-hot targets `[B, C]`;
    /// returns the model with `q_mu`, `q_sqrt` replaced (their parameter ids kept, gradients off).
    pub fn update<K: Kernel>(
        &mut self,
        mut model: BayesianSvm<K>,
        x: Tensor<2>,
        y: Tensor<2>,
    ) -> Result<BayesianSvm<K>> {
        let b = check_inputs("HingeNaturalGradient::update", &x, model.kernel.input_dim())?;
        let c = model.num_latent();
        check_targets("HingeNaturalGradient::update", &y, b, c)?;
        let (x, y) = (x.detach(), y.detach());
        let p = model.num_inducing();
        let device = x.device();
        let scale = model.num_data as f64 / b as f64;
        let a = model.whitened_projection(x.clone())?;
        let (mean, var) = model.predict_f(x)?;
        let t = MultiClassHinge::competitors(mean.clone(), y.clone());
        let (w, coef) = class_weights(mean, var, y, t); // [B, C] each
        let weighted = a.clone().unsqueeze::<3>() * w.transpose().reshape([c, 1, b]); // [C, P, B]
        let eye = Tensor::<2>::eye(p, &device).unsqueeze::<3>();
        let precision_hat = weighted.matmul(a.clone().transpose().unsqueeze::<3>()).mul_scalar(scale) + eye;
        let shift_hat = a.matmul(coef).transpose().mul_scalar(scale); // [C, P]
        let rho = self.step_size();
        self.precision = self.precision.clone().mul_scalar(1.0 - rho) + precision_hat.mul_scalar(rho);
        self.shift = self.shift.clone().mul_scalar(1.0 - rho) + shift_hat.mul_scalar(rho);
        self.step += 1;
        let l = cholesky(self.precision.clone())?;
        let l_inv = tri_inverse(l);
        let cov = l_inv.clone().transpose().matmul(l_inv); // Λ⁻¹
        let q_mu = cov.clone().matmul(self.shift.clone().unsqueeze_dim::<3>(2)).squeeze_dim::<2>(2);
        let q_sqrt = cholesky(cov)?;
        let bad = q_mu.clone().is_nan().any().into_scalar::<bool>();
        if bad {
            return Err(Error::NonFinite { context: format!("natural-gradient step {}: q_mu", self.step), index: 0 });
        }
        model.q_mu = Param::initialized(model.q_mu.id, q_mu.detach()).set_require_grad(false);
        model.q_sqrt = Param::initialized(model.q_sqrt.id, q_sqrt.detach()).set_require_grad(false);
        Ok(model)
    }
}
