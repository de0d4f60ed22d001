//! The backend extension holding the CNN trunks' convolution and pooling ops, with their
//! backward passes.
//!
//! CPU backends run them on the host in the tensors' own precision (f32 or f64; other dtypes
//! go through the backend's own op): the convolutions as one faer product per image
//! ([`conv_valid`](super::conv_valid)), the 2×2 max-pool without an index tensor
//! ([`max_pool`](super::max_pool)). GPU backends use the backend's own ops. The autodiff
//! implementation records each op in Burn's graph with a [`Backward`] whose gradients are the
//! ops below.
use burn::backend::ops::ConvOptions;
use burn::backend::{backend_extension, tensor::FloatTensor, Backend, TensorMetadata};
use burn::tensor::{DType, Element, IntDType, Shape};

use super::conv_valid::{self, ConvFloat, ConvShape};
use super::max_pool::{self, PoolFloat, PoolShape};
use crate::tensors::{from_host_native, HostTensor};

/// Convolution and pooling ops of the CNN trunks for every enabled backend.
#[backend_extension(
    NdArray: cfg(feature = "ndarray"),
    Flex: cfg(feature = "flex"),
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Autodiff,
)]
pub trait TrunkOps: Backend {
    /// `conv(x, w) + b` for a stride-1, unpadded, undilated, ungrouped 2-D convolution (`x`
    /// `[B, C, H, W]`, `w` `[O, C, kh, kw]`, `b` `[O]`). Under autodiff its gradients are
    /// [`Self::conv2d_input_grad`] and [`Self::conv2d_param_grads`].
    fn conv2d_valid(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>) -> FloatTensor<Self> {
        match x.dtype() {
            DType::F32 => host_conv_forward::<Self, f32>(x, w, b),
            DType::F64 => host_conv_forward::<Self, f64>(x, w, b),
            _ => Self::conv2d(x, w, Some(b), valid_conv()),
        }
    }

    /// The input gradient of [`Self::conv2d_valid`] from its input `x` (for the shape), its weight
    /// `w` and the upstream gradient `g` `[B, O, H', W']`.
    fn conv2d_input_grad(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        match x.dtype() {
            DType::F32 => host_conv_input_grad::<Self, f32>(x, w, g),
            DType::F64 => host_conv_input_grad::<Self, f64>(x, w, g),
            _ => Self::conv2d_x_backward(x, w, g, valid_conv()),
        }
    }

    /// The weight and bias gradients `(W̄, b̄)` of [`Self::conv2d_valid`] from its input `x`, its
    /// weight `w` and bias `b` (for their shapes) and the upstream gradient `g` `[B, O, H', W']`;
    /// on the host both come from one pass over the images.
    fn conv2d_param_grads(
        x: FloatTensor<Self>,
        w: FloatTensor<Self>,
        b: FloatTensor<Self>,
        g: FloatTensor<Self>,
    ) -> (FloatTensor<Self>, FloatTensor<Self>) {
        match x.dtype() {
            DType::F32 => host_conv_param_grads::<Self, f32>(x, w, b, g),
            DType::F64 => host_conv_param_grads::<Self, f64>(x, w, b, g),
            _ => burn_conv_param_grads::<Self>(x, w, b, g),
        }
    }

    /// The 2×2 max-pool with stride 2, no padding and floor mode of `x` `[B, C, H, W]`, as
    /// `[B, C, H/2, W/2]` (Burn's `MaxPool2d` with those settings: the same values, the same
    /// gradient). Under autodiff its gradient is [`Self::max_pool2x2_backward`].
    fn max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        match x.dtype() {
            DType::F32 => host_max_pool::<Self, f32>(x),
            DType::F64 => host_max_pool::<Self, f64>(x),
            _ => Self::max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1], false),
        }
    }

    /// The input gradient of [`Self::max_pool2x2`] from its input `x` and the upstream gradient
    /// `g` `[B, C, H/2, W/2]`.
    fn max_pool2x2_backward(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        match x.dtype() {
            DType::F32 => host_max_pool_backward::<Self, f32>(x, g),
            DType::F64 => host_max_pool_backward::<Self, f64>(x, g),
            _ => burn_max_pool_backward::<Self>(x, g),
        }
    }
}

/// Options of [`TrunkOps::conv2d_valid`]: stride 1, no padding, no dilation, one group.
fn valid_conv() -> ConvOptions<2> {
    ConvOptions::new([1, 1], [0, 0], [1, 1], 1)
}

/// The [`ConvShape`] of input shape `x` and kernel shape `w`.
fn conv_shape(x: &Shape, w: &Shape) -> ConvShape {
    ConvShape { batch: x[0], channels: x[1], height: x[2], width: x[3], out_channels: w[0], kernel: [w[2], w[3]] }
}

/// The [`PoolShape`] of input shape `x` `[B, C, H, W]`.
fn pool_shape(x: &Shape) -> PoolShape {
    PoolShape { planes: x[0] * x[1], height: x[2], width: x[3] }
}

/// [`TrunkOps::conv2d_valid`] on the host in element type `E` (the tensors' dtype).
fn host_conv_forward<B: Backend, E: ConvFloat + Element>(
    x: FloatTensor<B>,
    w: FloatTensor<B>,
    b: FloatTensor<B>,
) -> FloatTensor<B> {
    let device = x.device();
    let (x, w, b) = (HostTensor::read::<B>(x), HostTensor::read::<B>(w), HostTensor::read::<B>(b));
    let s = conv_shape(&x.shape, &w.shape);
    let out = conv_valid::conv2d_forward(&x.values::<E>(), &w.values::<E>(), &b.values::<E>(), s);
    let (ho, wo) = s.out_hw();
    from_host_native::<B, E>(out, Shape::new([s.batch, s.out_channels, ho, wo]), &device)
}

/// [`TrunkOps::conv2d_input_grad`] on the host in element type `E`.
fn host_conv_input_grad<B: Backend, E: ConvFloat + Element>(
    x: FloatTensor<B>,
    w: FloatTensor<B>,
    g: FloatTensor<B>,
) -> FloatTensor<B> {
    let (device, xs) = (x.device(), x.shape());
    drop(x);
    let (w, g) = (HostTensor::read::<B>(w), HostTensor::read::<B>(g));
    let grad = conv_valid::conv2d_input_grad(&w.values::<E>(), &g.values::<E>(), conv_shape(&xs, &w.shape));
    from_host_native::<B, E>(grad, xs, &device)
}

/// [`TrunkOps::conv2d_param_grads`] on the host in element type `E`.
fn host_conv_param_grads<B: Backend, E: ConvFloat + Element>(
    x: FloatTensor<B>,
    w: FloatTensor<B>,
    b: FloatTensor<B>,
    g: FloatTensor<B>,
) -> (FloatTensor<B>, FloatTensor<B>) {
    let (device, ws, bs) = (x.device(), w.shape(), b.shape());
    drop((w, b));
    let (x, g) = (HostTensor::read::<B>(x), HostTensor::read::<B>(g));
    let (weight, bias) = conv_valid::conv2d_param_grads(&x.values::<E>(), &g.values::<E>(), conv_shape(&x.shape, &ws));
    (from_host_native::<B, E>(weight, ws, &device), from_host_native::<B, E>(bias, bs, &device))
}

/// [`TrunkOps::conv2d_param_grads`] by the backend's own ops.
fn burn_conv_param_grads<B: Backend>(
    x: FloatTensor<B>,
    w: FloatTensor<B>,
    b: FloatTensor<B>,
    g: FloatTensor<B>,
) -> (FloatTensor<B>, FloatTensor<B>) {
    (B::conv2d_weight_backward(x.clone(), w, g.clone(), valid_conv()), B::conv2d_bias_backward(x, b, g))
}

/// [`TrunkOps::max_pool2x2`] on the host in element type `E`.
fn host_max_pool<B: Backend, E: PoolFloat + Element>(x: FloatTensor<B>) -> FloatTensor<B> {
    let device = x.device();
    let x = HostTensor::read::<B>(x);
    let s = pool_shape(&x.shape);
    let (ho, wo) = s.out_hw();
    let out = max_pool::max_pool2x2(&x.values::<E>(), s);
    from_host_native::<B, E>(out, Shape::new([x.shape[0], x.shape[1], ho, wo]), &device)
}

/// [`TrunkOps::max_pool2x2_backward`] on the host in element type `E`.
fn host_max_pool_backward<B: Backend, E: PoolFloat + Element>(x: FloatTensor<B>, g: FloatTensor<B>) -> FloatTensor<B> {
    let device = x.device();
    let (x, g) = (HostTensor::read::<B>(x), HostTensor::read::<B>(g));
    let grad = max_pool::max_pool2x2_backward(&x.values::<E>(), &g.values::<E>(), pool_shape(&x.shape));
    from_host_native::<B, E>(grad, x.shape, &device)
}

/// [`TrunkOps::max_pool2x2_backward`] by the backend's own ops (which recompute the indices).
fn burn_max_pool_backward<B: Backend>(x: FloatTensor<B>, g: FloatTensor<B>) -> FloatTensor<B> {
    let (kernel, stride, padding, dilation) = ([2, 2], [2, 2], [0, 0], [1, 1]);
    let indices =
        B::max_pool2d_with_indices(x.clone(), kernel, stride, padding, dilation, false, IntDType::I64).indices;
    B::max_pool2d_with_indices_backward(x, kernel, stride, padding, dilation, false, g, indices).x_grad
}

crate::macros::impl_for_compiled_backends!(TrunkOps, cube {
    fn conv2d_valid(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>) -> FloatTensor<Self> {
        use burn::backend::ops::ModuleOps;
        Self::conv2d(x, w, Some(b), valid_conv())
    }
    fn conv2d_input_grad(x: FloatTensor<Self>, w: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        use burn::backend::ops::ModuleOps;
        Self::conv2d_x_backward(x, w, g, valid_conv())
    }
    fn conv2d_param_grads(
        x: FloatTensor<Self>,
        w: FloatTensor<Self>,
        b: FloatTensor<Self>,
        g: FloatTensor<Self>,
    ) -> (FloatTensor<Self>, FloatTensor<Self>) {
        burn_conv_param_grads::<Self>(x, w, b, g)
    }
    fn max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
        use burn::backend::ops::ModuleOps;
        Self::max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1], false)
    }
    fn max_pool2x2_backward(x: FloatTensor<Self>, g: FloatTensor<Self>) -> FloatTensor<Self> {
        burn_max_pool_backward::<Self>(x, g)
    }
});

mod autodiff {
    use super::TrunkOps;
    use crate::linalg::autodiff_prelude::*;

    #[derive(Debug)]
    struct ConvValidBackward;

    impl<B: Backend + TrunkOps> Backward<B, 3> for ConvValidBackward {
        type State = (FloatTensor<B>, FloatTensor<B>, FloatTensor<B>);

        /// The input gradient by [`TrunkOps::conv2d_input_grad`], the weight and bias gradients
        /// by [`TrunkOps::conv2d_param_grads`].
        fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (x, w, b) = ops.state;
            let g = grads.consume::<B>(&ops.node);
            let [node_x, node_w, node_b] = ops.parents;
            if node_w.is_some() || node_b.is_some() {
                let (weight, bias) = B::conv2d_param_grads(x.clone(), w.clone(), b, g.clone());
                for (node, grad) in [(node_w, weight), (node_b, bias)] {
                    if let Some(node) = node {
                        grads.register::<B>(node.id, grad);
                    }
                }
            }
            if let Some(node) = node_x {
                grads.register::<B>(node.id, B::conv2d_input_grad(x, w, g));
            }
        }
    }

    #[derive(Debug)]
    struct MaxPoolBackward;

    impl<B: Backend + TrunkOps> Backward<B, 1> for MaxPoolBackward {
        type State = FloatTensor<B>;

        /// [`TrunkOps::max_pool2x2_backward`] from the saved input.
        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let g = grads.consume::<B>(&ops.node);
            if let [Some(node)] = ops.parents {
                grads.register::<B>(node.id, B::max_pool2x2_backward(ops.state, g));
            }
        }
    }

    impl<B: Backend + TrunkOps, C: CheckpointStrategy> TrunkOps for Autodiff<B, C> {
        fn conv2d_valid(x: FloatTensor<Self>, w: FloatTensor<Self>, b: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = ConvValidBackward.prepare::<C>([x.node(), w.node(), b.node()]).compute_bound().stateful();
            let (x, w, b) = (x.into_primitive(), w.into_primitive(), b.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let out = B::conv2d_valid(x.clone(), w.clone(), b.clone());
                    prep.finish((x, w, b), out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::conv2d_valid(x, w, b)),
            }
        }

        fn max_pool2x2(x: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = MaxPoolBackward.prepare::<C>([x.node()]).compute_bound().stateful();
            let x = x.into_primitive();
            match prep {
                OpsKind::Tracked(prep) => {
                    let out = B::max_pool2x2(x.clone());
                    prep.finish(x, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::max_pool2x2(x)),
            }
        }
    }
}
