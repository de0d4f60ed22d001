//! The backend extension holding burn-gp's elementwise special-function ops and their
//! hand-written backward passes.
//!
//! Forward values are computed on the host in f64 by the scalar functions of [`super`] (one
//! device→host→device copy per call, in the tensor's own dtype), so they keep the scalar
//! functions' accuracy on every backend, in f32 too. The autodiff implementation records each op
//! with a `Backward` whose gradient is again a host op, so gradients are exact to the same
//! accuracy: `d ln Φ(z)/dz = λ(z)` and `dλ(z)/dz = −λ(z)(z + λ(z))`, with `λ = φ/Φ`.
use burn::backend::{backend_extension, tensor::FloatTensor, Backend, TensorMetadata};
use burn::tensor::TensorData;

use crate::tensors::to_host;

/// Applies a scalar f64 function to every element of a float primitive on the host, returning a
/// primitive of the same shape, dtype and device.
fn map_on_host<B: Backend>(t: FloatTensor<B>, f: fn(f64) -> f64) -> FloatTensor<B> {
    let device = t.device();
    let (values, shape, dtype) = to_host::<B>(t);
    let mapped: Vec<f64> = values.into_iter().map(f).collect();
    B::float_from_data(TensorData::new(mapped, shape).convert_dtype(dtype), &device)
}

/// Elementwise special-function ops for every enabled backend (host f64 forward).
#[backend_extension(
    NdArray: cfg(feature = "ndarray"),
    Flex: cfg(feature = "flex"),
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Autodiff,
)]
pub trait GpSpecialOps: Backend {
    /// Elementwise `ln Φ(z)`, the log of the standard normal distribution function.
    fn log_ndtr(z: FloatTensor<Self>) -> FloatTensor<Self> {
        map_on_host::<Self>(z, super::log_ndtr)
    }

    /// Elementwise inverse Mills ratio `λ(z) = φ(z)/Φ(z)`.
    fn inv_mills(z: FloatTensor<Self>) -> FloatTensor<Self> {
        map_on_host::<Self>(z, super::inv_mills)
    }
}

crate::macros::impl_for_compiled_backends!(GpSpecialOps);

mod autodiff {
    use super::GpSpecialOps;
    use burn::backend::{
        autodiff::{
            checkpoint::{base::Checkpointer, strategy::CheckpointStrategy},
            grads::Gradients,
            ops::{Backward, Ops, OpsKind},
            Autodiff,
        },
        tensor::FloatTensor,
        Backend,
    };

    /// Backward of `ln Φ(z)`: `ḡ·λ(z)`. State: `z`.
    #[derive(Debug)]
    struct LogNdtrBackward;

    impl<B: Backend + GpSpecialOps> Backward<B, 1> for LogNdtrBackward {
        type State = FloatTensor<B>;

        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let z = ops.state;
            let upstream = grads.consume::<B>(&ops.node);
            let [parent] = ops.parents;
            if let Some(node) = parent {
                grads.register::<B>(node.id, B::float_mul(upstream, B::inv_mills(z)));
            }
        }
    }

    /// Backward of `λ(z)`: `−ḡ·λ(z)·(z + λ(z))`. State: `(z, λ(z))`.
    #[derive(Debug)]
    struct InvMillsBackward;

    impl<B: Backend + GpSpecialOps> Backward<B, 1> for InvMillsBackward {
        type State = (FloatTensor<B>, FloatTensor<B>);

        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (z, lambda) = ops.state;
            let upstream = grads.consume::<B>(&ops.node);
            let [parent] = ops.parents;
            if let Some(node) = parent {
                let slope = B::float_neg(B::float_mul(lambda.clone(), B::float_add(z, lambda)));
                grads.register::<B>(node.id, B::float_mul(upstream, slope));
            }
        }
    }

    impl<B: Backend + GpSpecialOps, C: CheckpointStrategy> GpSpecialOps for Autodiff<B, C> {
        fn log_ndtr(z: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = LogNdtrBackward.prepare::<C>([z.node()]).compute_bound().stateful();
            let z = z.into_primitive();
            match prep {
                OpsKind::Tracked(prep) => prep.finish(z.clone(), B::log_ndtr(z)),
                OpsKind::UnTracked(prep) => prep.finish(B::log_ndtr(z)),
            }
        }

        fn inv_mills(z: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = InvMillsBackward.prepare::<C>([z.node()]).compute_bound().stateful();
            let z = z.into_primitive();
            match prep {
                OpsKind::Tracked(prep) => {
                    let lambda = B::inv_mills(z.clone());
                    prep.finish((z, lambda.clone()), lambda)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::inv_mills(z)),
            }
        }
    }
}
