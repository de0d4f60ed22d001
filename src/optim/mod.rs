//! Optimisers burn-optim lacks (and a module's gradients as one flat buffer), as [`burn::optim::Optimizer`]s usable through
//! [`burn::optim::ModuleOptimizer`]: Adadelta and the sign-adaptive step of the EP classifier paper.
/// Implements [`burn::optim::RecordState`] for an optimiser state made of tensor fields (Burn's
/// derive names `crate::` paths, so it only works inside burn-optim).
macro_rules! record_tensor_state {
    ($state:ident { $($field:ident),+ }) => {
        impl<const D: usize> burn::optim::RecordState for $state<D> {
            fn state_flatten(&self, prefix: &str, out: &mut burn::optim::StateSink) {
                $(out.push_tensor(prefix, stringify!($field), self.$field.to_data());)+
            }
            fn state_unflatten(
                prefix: &str,
                src: &mut burn::optim::StateSource,
                device: &burn::tensor::Device,
            ) -> Option<Self> {
                Some(Self { $($field: burn::tensor::Tensor::from_data(src.take_tensor(prefix, stringify!($field))?, device)),+ })
            }
        }
    };
}
pub(crate) use record_tensor_state;

mod adadelta;
mod flat_gradients;
mod sign_adaptive;

pub use adadelta::{Adadelta, AdadeltaState};
pub use flat_gradients::{flatten_gradients, gradients_from_flat, num_float_params};
pub use sign_adaptive::{SignAdaptive, SignAdaptiveState};
