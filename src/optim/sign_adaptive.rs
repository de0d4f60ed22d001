//! The sign-adaptive gradient step of the batch EP classifier (Hernández-Lobato & Hernández-Lobato,
//! appendix A.6, constants from the authors' code): every coordinate has its own step size, grown
//! when its gradient keeps its sign and halved when the sign flips.
use burn::optim::{ModuleOptimizer, Optimizer};
use burn::tensor::{Device, Tensor};

/// Per-coordinate steps `η`: from the second step on, `η ← grow·η` where `sign(g) = sign(g_prev)`
/// and `η ← shrink·η` elsewhere; then `x ← x − lr·η·g` (a scaled gradient step, not sign-only
/// Rprop). Defaults: `η₀ = 1e-2`, grow 1.02, shrink 0.5.
#[derive(Clone, Debug)]
pub struct SignAdaptive {
    /// Initial step of every coordinate.
    pub initial_step: f64,
    /// Factor on a kept sign.
    pub grow: f64,
    /// Factor on a flipped sign.
    pub shrink: f64,
}

/// Steps and previous gradient of one parameter.
#[derive(Clone)]
pub struct SignAdaptiveState<const D: usize> {
    /// Current steps `η`.
    pub(crate) step: Tensor<D>,
    /// The previous gradient.
    pub(crate) previous: Tensor<D>,
}

impl Default for SignAdaptive {
    fn default() -> Self {
        Self { initial_step: 1e-2, grow: 1.02, shrink: 0.5 }
    }
}

impl SignAdaptive {
    /// The rule with initial step `initial_step` and the paper's factors.
    pub fn new(initial_step: f64) -> Self {
        Self { initial_step, ..Self::default() }
    }
    /// The optimiser for a whole module.
    pub fn init(self) -> ModuleOptimizer {
        ModuleOptimizer::from(self)
    }
}

super::record_tensor_state!(SignAdaptiveState { step, previous });

impl Optimizer for SignAdaptive {
    type State<const D: usize> = SignAdaptiveState<D>;

    fn step<const D: usize>(
        &self,
        lr: f64,
        tensor: Tensor<D>,
        grad: Tensor<D>,
        state: Option<Self::State<D>>,
    ) -> (Tensor<D>, Option<Self::State<D>>) {
        let step = match state {
            None => grad.ones_like().mul_scalar(self.initial_step),
            Some(s) => {
                let same = (grad.clone() * s.previous).greater_equal_elem(0.0);
                let factor = grad.ones_like().mul_scalar(self.shrink).mask_fill(same, self.grow);
                s.step * factor
            }
        };
        let new = tensor - (step.clone() * grad.clone()).mul_scalar(lr);
        (new, Some(SignAdaptiveState { step, previous: grad }))
    }

    fn to_device<const D: usize>(state: Self::State<D>, device: &Device) -> Self::State<D> {
        SignAdaptiveState { step: state.step.to_device(device), previous: state.previous.to_device(device) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    fn t(v: &[f64]) -> Tensor<1> {
        Tensor::from_data(TensorData::new(v.to_vec(), [v.len()]), &crate::device::default_device().unwrap())
    }
    fn host(x: Tensor<1>) -> Vec<f64> {
        crate::tensors::to_vec(x)
    }

    /// Steps grow by 1.02 where the gradient keeps its sign, halve where it flips, and the update
    /// is `η·g` (not `η·sign(g)`).
    #[test]
    fn steps_follow_the_sign_rule() {
        let opt = SignAdaptive::default();
        let (x1, s1) = opt.step(1.0, t(&[1.0, 1.0]), t(&[2.0, -3.0]), None);
        assert_eq!(host(x1.clone()), vec![1.0 - 0.02, 1.0 + 0.03]);
        let (x2, s2) = opt.step(1.0, x1, t(&[1.0, 4.0]), s1);
        let s2 = s2.unwrap();
        assert_eq!(host(s2.step.clone()), vec![0.01 * 1.02, 0.01 * 0.5]);
        let x2 = host(x2);
        assert!((x2[0] - (0.98 - 0.0102)).abs() < 1e-15 && (x2[1] - (1.03 - 0.02)).abs() < 1e-15);
    }
}
