//! Adadelta (Zeiler 2012): per-coordinate steps from running averages of squared gradients and
//! squared updates.
use burn::optim::{ModuleOptimizer, Optimizer};
use burn::tensor::{Device, Tensor};

/// Adadelta with decay `rho` and `epsilon`, minimising: `Δ = √(E[Δ²] + ε)/√(E[g²] + ε) · g`,
/// `x ← x − lr·Δ`. The EP classifier paper uses ρ = 0.9, ε = 1e-5 and lr = 1.
#[derive(Clone, Debug)]
pub struct Adadelta {
    /// Decay of the running averages.
    pub rho: f64,
    /// Added under both square roots.
    pub epsilon: f64,
}

/// Running averages of one parameter.
#[derive(Clone)]
pub struct AdadeltaState<const D: usize> {
    /// `E[g²]`.
    pub(crate) sq_grad: Tensor<D>,
    /// `E[Δ²]`.
    pub(crate) sq_update: Tensor<D>,
}

impl Adadelta {
    /// Adadelta with the given decay and epsilon.
    pub fn new(rho: f64, epsilon: f64) -> Self {
        Self { rho, epsilon }
    }
    /// The optimiser for a whole module.
    pub fn init(self) -> ModuleOptimizer {
        ModuleOptimizer::from(self)
    }
}

super::record_tensor_state!(AdadeltaState { sq_grad, sq_update });

impl Optimizer for Adadelta {
    type State<const D: usize> = AdadeltaState<D>;

    fn step<const D: usize>(
        &self,
        lr: f64,
        tensor: Tensor<D>,
        grad: Tensor<D>,
        state: Option<Self::State<D>>,
    ) -> (Tensor<D>, Option<Self::State<D>>) {
        let (sq_grad, sq_update) = match state {
            Some(s) => (s.sq_grad, s.sq_update),
            None => (grad.zeros_like(), grad.zeros_like()),
        };
        let sq_grad = sq_grad.mul_scalar(self.rho) + grad.clone().powi_scalar(2).mul_scalar(1.0 - self.rho);
        let delta = (sq_update.clone().add_scalar(self.epsilon).sqrt()
            / sq_grad.clone().add_scalar(self.epsilon).sqrt())
            * grad;
        let sq_update = sq_update.mul_scalar(self.rho) + delta.clone().powi_scalar(2).mul_scalar(1.0 - self.rho);
        (tensor - delta.mul_scalar(lr), Some(AdadeltaState { sq_grad, sq_update }))
    }

    fn to_device<const D: usize>(state: Self::State<D>, device: &Device) -> Self::State<D> {
        AdadeltaState { sq_grad: state.sq_grad.to_device(device), sq_update: state.sq_update.to_device(device) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    /// Two steps against the recursion written out by hand.
    #[test]
    fn matches_the_recursion() {
        let dev = crate::device::default_device().unwrap();
        let t = |v: f64| Tensor::<1>::from_data(TensorData::new(vec![v], [1]), &dev);
        let (rho, eps) = (0.9, 1e-5);
        let opt = Adadelta::new(rho, eps);
        let (x1, s1) = opt.step(1.0, t(0.0), t(2.0), None);
        let eg2 = (1.0 - rho) * 4.0;
        let d1 = eps.sqrt() / (eg2 + eps).sqrt() * 2.0;
        let ed2 = (1.0 - rho) * d1 * d1;
        let (x2, _) = opt.step(1.0, x1.clone(), t(-1.0), s1);
        let eg2b = rho * eg2 + (1.0 - rho) * 1.0;
        let d2 = -((ed2 + eps).sqrt() / (eg2b + eps).sqrt());
        let v = |x: Tensor<1>| crate::tensors::to_vec(x)[0];
        assert!((v(x1) + d1).abs() < 1e-15);
        assert!((v(x2) - (-d1 - d2)).abs() < 1e-15);
    }
}
