//! The backend extension holding the multivariate-normal ops and their hand-written backward
//! passes: Genz's log integrand over blocks × QMC points, and the bivariate normal log-CDF.
//!
//! Both run on the host in f64 for every backend (one copy of the small `[b, d]`, `[b, d, d]`
//! inputs and of the `[b, N]` output per call), like the crate's other host ops. The reverse
//! passes are [`super::genz::genz_log_integrand_backward`] and the analytic gradient
//! [`super::low_dim::bvn_cdf_grad`]; both are checked against finite differences in the tests.
use burn::backend::{backend_extension, tensor::FloatTensor, Backend, TensorMetadata};
use burn::tensor::Shape;

use super::genz::genz_log_integrand;
use super::lattice::QmcPoints;
use super::low_dim::log_bvn_cdf;
use crate::linalg::{from_host, to_host};

/// Multivariate-normal ops for every enabled backend (host f64 forward).
#[backend_extension(
    NdArray: cfg(feature = "ndarray"),
    Flex: cfg(feature = "flex"),
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Autodiff,
)]
pub trait GpMvnOps: Backend {
    /// `ln f(w_k)` of Genz's integrand for upper limits `a` `[b, d]` and lower Cholesky factors
    /// `l` `[b, d, d]` at every point of `points`: `[b, N]`. Panics on mismatched shapes (the
    /// public wrapper checks them).
    fn genz_log_integrand(a: FloatTensor<Self>, l: FloatTensor<Self>, points: QmcPoints) -> FloatTensor<Self> {
        let device = a.device();
        let (av, ashape, dtype) = to_host::<Self>(a);
        let (lv, _, _) = to_host::<Self>(l);
        let (b, d) = (ashape[0], ashape[1]);
        let out = genz_log_integrand(&av, &lv, b, d, &points).unwrap_or_else(|e| panic!("genz_log_integrand: {e}"));
        from_host::<Self>(out, Shape::new([b, points.len()]), dtype, &device)
    }

    /// Elementwise `ln Φ₂(h, k; ρ)` of three equal-shaped tensors.
    fn log_bvn_cdf(h: FloatTensor<Self>, k: FloatTensor<Self>, rho: FloatTensor<Self>) -> FloatTensor<Self> {
        let device = h.device();
        let (hv, shape, dtype) = to_host::<Self>(h);
        let (kv, _, _) = to_host::<Self>(k);
        let (rv, _, _) = to_host::<Self>(rho);
        let out = hv.iter().zip(&kv).zip(&rv).map(|((h, k), r)| log_bvn_cdf(*h, *k, *r)).collect();
        from_host::<Self>(out, shape, dtype, &device)
    }
}

crate::macros::impl_for_compiled_backends!(GpMvnOps);

mod autodiff {
    use super::{GpMvnOps, QmcPoints};
    use crate::linalg::autodiff_prelude::*;
    use crate::linalg::{register_host_grads, to_host, upstream_on_host};
    use crate::mvn::genz::genz_log_integrand_backward;
    use crate::mvn::low_dim::log_bvn_cdf_grad;
    use burn::tensor::{DType, Shape};

    /// What the Genz backward keeps: host copies of `a`, `l`, the points and the shapes.
    #[derive(Debug, Clone)]
    struct GenzState {
        a: Vec<f64>,
        l: Vec<f64>,
        points: QmcPoints,
        ashape: Shape,
        lshape: Shape,
        dtype: DType,
    }

    #[derive(Debug)]
    struct GenzBackward;

    impl<B: Backend + GpMvnOps> Backward<B, 2> for GenzBackward {
        type State = GenzState;

        fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (gv, device) = upstream_on_host::<B, _, _>(grads, &ops);
            let st = ops.state;
            let (b, d) = (st.ashape[0], st.ashape[1]);
            let (ga, gl) = genz_log_integrand_backward(&st.a, &st.l, b, d, &st.points, &gv)
                .unwrap_or_else(|e| panic!("genz_log_integrand backward: {e}"));
            let parents = ops.parents.map(|p| p.map(|node| node.id));
            register_host_grads::<B, 2>(grads, parents, [(ga, st.ashape), (gl, st.lshape)], st.dtype, &device);
        }
    }

    /// What the bivariate backward keeps: host copies of `h`, `k`, `ρ`.
    #[derive(Debug, Clone)]
    struct BvnState {
        h: Vec<f64>,
        k: Vec<f64>,
        rho: Vec<f64>,
        shape: Shape,
        dtype: DType,
    }

    #[derive(Debug)]
    struct BvnBackward;

    impl<B: Backend + GpMvnOps> Backward<B, 3> for BvnBackward {
        type State = BvnState;

        /// `∂ ln Φ₂/∂x = (∂Φ₂/∂x) / Φ₂` for `x` in `(h, k, ρ)`, formed in log space.
        fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (gv, device) = upstream_on_host::<B, _, _>(grads, &ops);
            let st = ops.state;
            let n = gv.len();
            let (mut gh, mut gk, mut gr) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            for i in 0..n {
                let (dh, dk, dr) = log_bvn_cdf_grad(st.h[i], st.k[i], st.rho[i]);
                (gh[i], gk[i], gr[i]) = (gv[i] * dh, gv[i] * dk, gv[i] * dr);
            }
            let parents = ops.parents.map(|p| p.map(|node| node.id));
            let values = [(gh, st.shape.clone()), (gk, st.shape.clone()), (gr, st.shape)];
            register_host_grads::<B, 3>(grads, parents, values, st.dtype, &device);
        }
    }

    impl<B: Backend + GpMvnOps, C: CheckpointStrategy> GpMvnOps for Autodiff<B, C> {
        fn genz_log_integrand(a: FloatTensor<Self>, l: FloatTensor<Self>, points: QmcPoints) -> FloatTensor<Self> {
            let prep = GenzBackward.prepare::<C>([a.node(), l.node()]).compute_bound().stateful();
            let (a, l) = (a.into_primitive(), l.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let (ashape, lshape) = (a.shape(), l.shape());
                    let out = B::genz_log_integrand(a.clone(), l.clone(), points.clone());
                    let (av, _, dtype) = to_host::<B>(a);
                    let (lv, _, _) = to_host::<B>(l);
                    prep.finish(GenzState { a: av, l: lv, points, ashape, lshape, dtype }, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::genz_log_integrand(a, l, points)),
            }
        }

        fn log_bvn_cdf(h: FloatTensor<Self>, k: FloatTensor<Self>, rho: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = BvnBackward.prepare::<C>([h.node(), k.node(), rho.node()]).compute_bound().stateful();
            let (h, k, rho) = (h.into_primitive(), k.into_primitive(), rho.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let out = B::log_bvn_cdf(h.clone(), k.clone(), rho.clone());
                    let (hv, shape, dtype) = to_host::<B>(h);
                    let (kv, _, _) = to_host::<B>(k);
                    let (rv, _, _) = to_host::<B>(rho);
                    prep.finish(BvnState { h: hv, k: kv, rho: rv, shape, dtype }, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::log_bvn_cdf(h, k, rho)),
            }
        }
    }
}
