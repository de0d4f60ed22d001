//! The backend extension holding burn-gp's custom linear-algebra ops and their hand-written
//! backward passes.
//!
//! Forward and backward of each op run on the host in f64 through [`super::host`]. The
//! factorisation ops only see m×m (inducing-point sized) matrices; `dense_matmul` sees n×m data
//! too, and therefore runs on the host only for CPU backends (GPU backends override it with
//! their own matmul). The autodiff implementation records each op in Burn's graph with a
//! [`Backward`] whose gradient is computed by the same kernels.
use burn::backend::{backend_extension, tensor::FloatTensor, Backend, TensorMetadata};
use burn::tensor::{DType, Shape};

use super::{exp_bilinear, host};
use crate::tensors::{from_host, to_host};

/// Burn's backward machinery, as the autodiff implementations of custom ops import it.
pub(crate) mod autodiff_prelude {
    pub(crate) use burn::backend::autodiff::checkpoint::{base::Checkpointer, strategy::CheckpointStrategy};
    pub(crate) use burn::backend::autodiff::{grads::Gradients, ops::Backward, ops::Ops, ops::OpsKind, Autodiff};
    pub(crate) use burn::backend::{tensor::FloatTensor, Backend, TensorMetadata};
}

/// Takes the upstream gradient of custom op `ops`'s output and reads it to the host, with the
/// device it lived on.
pub(crate) fn upstream_on_host<B: Backend, S, const N: usize>(
    grads: &mut burn::backend::autodiff::grads::Gradients,
    ops: &burn::backend::autodiff::ops::Ops<S, N>,
) -> (Vec<f64>, B::Device) {
    let g = grads.consume::<B>(&ops.node);
    let device = g.device();
    (to_host::<B>(g).0, device)
}

/// Registers host gradients `(values, shape)` for those `parents` of a custom op that are tracked
/// (`None` parents are skipped), written back in `dtype` on `device`.
pub(crate) fn register_host_grads<B: Backend, const N: usize>(
    grads: &mut burn::backend::autodiff::grads::Gradients,
    parents: [Option<burn::backend::autodiff::NodeId>; N],
    values: [(Vec<f64>, Shape); N],
    dtype: DType,
    device: &B::Device,
) {
    for (parent, (v, shape)) in parents.into_iter().zip(values) {
        if let Some(id) = parent {
            grads.register::<B>(id, from_host::<B>(v, shape, dtype, device));
        }
    }
}

/// (batch, rows, cols) of a tensor whose last two dims are the matrix.
pub(crate) fn batch_dims(shape: &Shape) -> (usize, usize, usize) {
    let d = shape.num_dims();
    let r = shape[d - 2];
    let c = shape[d - 1];
    let total = shape.num_elements();
    (total.checked_div(r * c).unwrap_or(0), r, c)
}

/// Custom linear-algebra ops for every enabled backend (host f64 forward).
#[backend_extension(
    NdArray: cfg(feature = "ndarray"),
    Flex: cfg(feature = "flex"),
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Autodiff,
)]
pub trait GpLinalgOps: Backend {
    /// Returns `l`, the already computed lower Cholesky factor of `a`; under autodiff it records
    /// `l = chol(a)` so that gradients flow back to `a`.
    fn cholesky_attach(a: FloatTensor<Self>, l: FloatTensor<Self>) -> FloatTensor<Self> {
        drop(a);
        l
    }

    /// `2 Σᵢ log Lᵢᵢ` for each matrix of a batch `[..., n, n]` of triangular factors, as `[batch]`.
    fn logdet_tri(l: FloatTensor<Self>) -> FloatTensor<Self> {
        let device = l.device();
        let (v, shape, dtype) = to_host::<Self>(l);
        let (batch, n, _) = batch_dims(&shape);
        let out = (0..batch).map(|b| 2.0 * (0..n).map(|i| v[(b * n + i) * n + i].ln()).sum::<f64>()).collect();
        from_host::<Self>(out, Shape::new([batch]), dtype, &device)
    }

    /// Inverse of a batch of lower-triangular matrices `[..., n, n]`.
    fn tri_inverse(l: FloatTensor<Self>) -> FloatTensor<Self> {
        let device = l.device();
        let (v, shape, dtype) = to_host::<Self>(l);
        let (batch, n, _) = batch_dims(&shape);
        let inv = host::invert_lower_batch(&v, batch, n);
        from_host::<Self>(inv, shape, dtype, &device)
    }

    /// Solves `op(L) X = B`, or `X op(L) = B` if `right`, for a batch of lower-triangular `L`
    /// `[..., n, n]` and right-hand sides `B` (`[..., n, k]`, or `[..., k, n]` if `right`) with the
    /// same batch dims, `op(L) = Lᵀ` if `transpose`. CPU backends solve on the host with faer; GPU
    /// backends apply the host-formed inverse by their own matmul, so the n×k work stays on the
    /// device.
    fn tri_solve(l: FloatTensor<Self>, b: FloatTensor<Self>, transpose: bool, right: bool) -> FloatTensor<Self> {
        let device = l.device();
        let (lv, lshape, _) = to_host::<Self>(l);
        let (bv, bshape, dtype) = to_host::<Self>(b);
        let ((batch, n, _), (_, rows, cols)) = (batch_dims(&lshape), batch_dims(&bshape));
        let x = host::solve_lower_batch(&lv, &bv, batch, n, (rows, cols), transpose, right);
        from_host::<Self>(x, bshape, dtype, &device)
    }

    /// Matrix product `op(a) · op(b)` of matrices or equal-sized batches of them (`[..., n, k]`),
    /// `op` = transpose of the last two dims where the flag is set. CPU backends compute it with
    /// faer's blocked kernels (several times faster than Burn's CPU gemm at GP sizes, and
    /// transposes are free views); GPU backends use their own matmul, so the data never leaves the
    /// device.
    fn dense_matmul(
        a: FloatTensor<Self>,
        b: FloatTensor<Self>,
        transpose_a: bool,
        transpose_b: bool,
    ) -> FloatTensor<Self> {
        let device = a.device();
        let (av, ashape, dtype) = to_host::<Self>(a);
        let (bv, bshape, _) = to_host::<Self>(b);
        let ((batch, ar, ac), (_, br, bc)) = (batch_dims(&ashape), batch_dims(&bshape));
        let mut out = Vec::new();
        let (mut n, mut m) = (0, 0);
        for i in 0..batch {
            let lhs =
                host::Operand { data: &av[i * ar * ac..(i + 1) * ar * ac], rows: ar, cols: ac, transpose: transpose_a };
            let rhs =
                host::Operand { data: &bv[i * br * bc..(i + 1) * br * bc], rows: br, cols: bc, transpose: transpose_b };
            let (c, rows, cols) = host::matmul(lhs, rhs);
            (n, m) = (rows, cols);
            out.extend_from_slice(&c);
        }
        let mut shape = ashape;
        let rank = shape.num_dims();
        (shape[rank - 2], shape[rank - 1]) = (n, m);
        from_host::<Self>(out, shape, dtype, &device)
    }

    /// `out[g, b, p] = Σ_{m, m'} exp(u_gbm · v_gbm') w[g, p, m, m']` for `u`, `v` `[G, B, M, K]` and
    /// `w` `[G, P, M, M]` (see `super::exp_bilinear`); on the host in f64 for every backend, since
    /// only the small factors and the `[G, B, P]` result cross to the device.
    fn exp_bilinear_contract(u: FloatTensor<Self>, v: FloatTensor<Self>, w: FloatTensor<Self>) -> FloatTensor<Self> {
        let device = u.device();
        let (uv, ushape, dtype) = to_host::<Self>(u);
        let (vv, _, _) = to_host::<Self>(v);
        let (wv, wshape, _) = to_host::<Self>(w);
        let dims = exp_bilinear_dims(&ushape, &wshape);
        let out = exp_bilinear::exp_bilinear_forward(&uv, &vv, &wv, dims);
        from_host::<Self>(out, Shape::new([dims.g, dims.b, dims.p]), dtype, &device)
    }
}

/// The block sizes of an exp-bilinear contraction from the shapes of `u` and `w`.
fn exp_bilinear_dims(ushape: &Shape, wshape: &Shape) -> exp_bilinear::ExpBilinearDims {
    exp_bilinear::ExpBilinearDims { g: ushape[0], b: ushape[1], m: ushape[2], k: ushape[3], p: wshape[1] }
}

crate::macros::impl_for_compiled_backends!(GpLinalgOps, cube {
    fn tri_solve(l: FloatTensor<Self>, b: FloatTensor<Self>, transpose: bool, right: bool) -> FloatTensor<Self> {
        let inv = Self::tri_inverse(l);
        if right {
            Self::dense_matmul(b, inv, false, transpose)
        } else {
            Self::dense_matmul(inv, b, transpose, false)
        }
    }
    fn dense_matmul(a: FloatTensor<Self>, b: FloatTensor<Self>, transpose_a: bool, transpose_b: bool) -> FloatTensor<Self> {
        use burn::backend::ops::FloatTensorOps;
        let (ra, rb) = (a.shape().num_dims(), b.shape().num_dims());
        let a = if transpose_a { Self::float_swap_dims(a, ra - 2, ra - 1) } else { a };
        let b = if transpose_b { Self::float_swap_dims(b, rb - 2, rb - 1) } else { b };
        Self::float_matmul(a, b)
    }
});

mod autodiff {
    use super::{batch_dims, exp_bilinear, exp_bilinear_dims, from_host, host, to_host, GpLinalgOps};
    use burn::backend::{
        autodiff::{
            checkpoint::{base::Checkpointer, strategy::CheckpointStrategy},
            grads::Gradients,
            ops::{Backward, Ops, OpsKind},
            Autodiff,
        },
        tensor::FloatTensor,
        Backend, TensorMetadata,
    };
    use burn::tensor::{DType, Shape};

    #[derive(Debug)]
    struct CholeskyBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 1> for CholeskyBackward {
        type State = FloatTensor<B>;

        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let l = ops.state;
            let gl = grads.consume::<B>(&ops.node);
            let [parent] = ops.parents;
            if let Some(node) = parent {
                let device = gl.device();
                let (lv, shape, dtype) = to_host::<B>(l);
                let (gv, _, _) = to_host::<B>(gl);
                let (batch, n, _) = batch_dims(&shape);
                let ga = host::cholesky_backward_batch(&lv, &gv, batch, n);
                grads.register::<B>(node.id, from_host::<B>(ga, shape, dtype, &device));
            }
        }
    }

    #[derive(Debug)]
    struct LogdetTriBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 1> for LogdetTriBackward {
        type State = FloatTensor<B>;

        /// `∂/∂Lᵢᵢ = 2 ḡ / Lᵢᵢ`, zero off the diagonal.
        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let l = ops.state;
            let g = grads.consume::<B>(&ops.node);
            let [parent] = ops.parents;
            if let Some(node) = parent {
                let device = g.device();
                let (lv, shape, dtype) = to_host::<B>(l);
                let (gv, _, _) = to_host::<B>(g);
                let (batch, n, _) = batch_dims(&shape);
                let mut gl = vec![0.0; batch * n * n];
                for (b, g) in gv.iter().enumerate().take(batch) {
                    for i in 0..n {
                        let at = (b * n + i) * n + i;
                        gl[at] = 2.0 * g / lv[at];
                    }
                }
                grads.register::<B>(node.id, from_host::<B>(gl, shape, dtype, &device));
            }
        }
    }

    #[derive(Debug)]
    struct TriInverseBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 1> for TriInverseBackward {
        type State = FloatTensor<B>;

        fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
            let v = ops.state;
            let gv = grads.consume::<B>(&ops.node);
            let [parent] = ops.parents;
            if let Some(node) = parent {
                let device = gv.device();
                let (vv, shape, dtype) = to_host::<B>(v);
                let (g, _, _) = to_host::<B>(gv);
                let (batch, n, _) = batch_dims(&shape);
                let gl = host::invert_lower_backward_batch(&vv, &g, batch, n);
                grads.register::<B>(node.id, from_host::<B>(gl, shape, dtype, &device));
            }
        }
    }

    #[derive(Debug)]
    struct TriSolveBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 2> for TriSolveBackward {
        type State = (FloatTensor<B>, FloatTensor<B>, bool, bool);

        /// Left, `op(L) X = B`: `B̄ = op(L)⁻ᵀ X̄` and `op(L)‾ = −B̄ Xᵀ`. Right, `X op(L) = B`:
        /// `B̄ = X̄ op(L)⁻ᵀ` and `op(L)‾ = −Xᵀ B̄`. `L̄` is the lower triangle of `op(L)‾` or of its
        /// transpose.
        fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (l, x, transpose, right) = ops.state;
            let g = grads.consume::<B>(&ops.node);
            let [node_l, node_b] = ops.parents;
            let gb = B::tri_solve(l, g, !transpose, right);
            if let Some(node) = node_l {
                let outer = match (right, transpose) {
                    (false, false) => B::dense_matmul(gb.clone(), x, false, true),
                    (false, true) => B::dense_matmul(x, gb.clone(), false, true),
                    (true, false) => B::dense_matmul(x, gb.clone(), true, false),
                    (true, true) => B::dense_matmul(gb.clone(), x, true, false),
                };
                let device = outer.device();
                let (mut p, shape, dtype) = to_host::<B>(outer);
                let (_, n, _) = batch_dims(&shape);
                for (at, row) in p.chunks_exact_mut(n.max(1)).enumerate() {
                    let i = at % n;
                    row[..=i].iter_mut().for_each(|v| *v = -*v);
                    row[i + 1..].fill(0.0);
                }
                grads.register::<B>(node.id, from_host::<B>(p, shape, dtype, &device));
            }
            if let Some(node) = node_b {
                grads.register::<B>(node.id, gb);
            }
        }
    }

    #[derive(Debug)]
    struct DenseMatmulBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 2> for DenseMatmulBackward {
        type State = (FloatTensor<B>, FloatTensor<B>, bool, bool);

        /// For `C = op(A) op(B)` with upstream gradient `G`:
        /// `Ā = G op(B)ᵀ` (or its transpose `op(B) Gᵀ` when `A` enters transposed), and
        /// `B̄ = op(A)ᵀ G` (or `Gᵀ op(A)`).
        fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (a, b, ta, tb) = ops.state;
            let g = grads.consume::<B>(&ops.node);
            let [node_a, node_b] = ops.parents;
            if let Some(node) = node_a {
                let ga = if ta {
                    B::dense_matmul(b.clone(), g.clone(), tb, true)
                } else {
                    B::dense_matmul(g.clone(), b, false, !tb)
                };
                grads.register::<B>(node.id, ga);
            }
            if let Some(node) = node_b {
                let gb = if tb { B::dense_matmul(g, a, true, ta) } else { B::dense_matmul(a, g, !ta, false) };
                grads.register::<B>(node.id, gb);
            }
        }
    }

    /// What the backward pass of the fused contraction keeps: the host copies of its inputs and
    /// the upper triangles of `exp(u vᵀ)` from the forward pass.
    #[derive(Debug, Clone)]
    struct ExpBilinearState {
        u: Vec<f64>,
        v: Vec<f64>,
        w: Vec<f64>,
        cache: Vec<f64>,
        ushape: Shape,
        wshape: Shape,
        dtype: DType,
    }

    #[derive(Debug)]
    struct ExpBilinearBackward;

    impl<B: Backend + GpLinalgOps> Backward<B, 3> for ExpBilinearBackward {
        type State = ExpBilinearState;

        fn backward(self, ops: Ops<Self::State, 3>, grads: &mut Gradients, _: &mut Checkpointer) {
            let st = ops.state;
            let g = grads.consume::<B>(&ops.node);
            let device = g.device();
            let (gv, _, _) = to_host::<B>(g);
            let dims = exp_bilinear_dims(&st.ushape, &st.wshape);
            let (gu, gvv, gw) = exp_bilinear::exp_bilinear_backward_cached(&st.u, &st.v, &st.w, &gv, &st.cache, dims);
            let [node_u, node_v, node_w] = ops.parents;
            for (node, grad, shape) in
                [(node_u, gu, st.ushape.clone()), (node_v, gvv, st.ushape), (node_w, gw, st.wshape)]
            {
                if let Some(node) = node {
                    grads.register::<B>(node.id, from_host::<B>(grad, shape, st.dtype, &device));
                }
            }
        }
    }

    impl<B: Backend + GpLinalgOps, C: CheckpointStrategy> GpLinalgOps for Autodiff<B, C> {
        fn exp_bilinear_contract(
            u: FloatTensor<Self>,
            v: FloatTensor<Self>,
            w: FloatTensor<Self>,
        ) -> FloatTensor<Self> {
            let prep = ExpBilinearBackward.prepare::<C>([u.node(), v.node(), w.node()]).compute_bound().stateful();
            let (u, v, w) = (u.into_primitive(), v.into_primitive(), w.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    // on the host for every backend (as the inner op), keeping exp(u vᵀ) for backward
                    let device = u.device();
                    let (u, ushape, dtype) = to_host::<B>(u);
                    let (v, _, _) = to_host::<B>(v);
                    let (w, wshape, _) = to_host::<B>(w);
                    let dims = exp_bilinear_dims(&ushape, &wshape);
                    let (out, cache) = exp_bilinear::exp_bilinear_forward_cached(&u, &v, &w, dims);
                    let out = from_host::<B>(out, Shape::new([dims.g, dims.b, dims.p]), dtype, &device);
                    prep.finish(ExpBilinearState { u, v, w, cache, ushape, wshape, dtype }, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::exp_bilinear_contract(u, v, w)),
            }
        }

        fn dense_matmul(a: FloatTensor<Self>, b: FloatTensor<Self>, ta: bool, tb: bool) -> FloatTensor<Self> {
            let prep = DenseMatmulBackward.prepare::<C>([a.node(), b.node()]).compute_bound().stateful();
            let (a, b) = (a.into_primitive(), b.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let c = B::dense_matmul(a.clone(), b.clone(), ta, tb);
                    prep.finish((a, b, ta, tb), c)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::dense_matmul(a, b, ta, tb)),
            }
        }

        fn tri_solve(l: FloatTensor<Self>, b: FloatTensor<Self>, transpose: bool, right: bool) -> FloatTensor<Self> {
            let prep = TriSolveBackward.prepare::<C>([l.node(), b.node()]).compute_bound().stateful();
            let (l, b) = (l.into_primitive(), b.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let x = B::tri_solve(l.clone(), b, transpose, right);
                    prep.finish((l, x.clone(), transpose, right), x)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::tri_solve(l, b, transpose, right)),
            }
        }

        fn cholesky_attach(a: FloatTensor<Self>, l: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = CholeskyBackward.prepare::<C>([a.node()]).compute_bound().stateful();
            let l = l.into_primitive();
            match prep {
                OpsKind::Tracked(prep) => prep.finish(l.clone(), l),
                OpsKind::UnTracked(prep) => prep.finish(l),
            }
        }

        fn logdet_tri(l: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = LogdetTriBackward.prepare::<C>([l.node()]).compute_bound().stateful();
            let l = l.into_primitive();
            match prep {
                OpsKind::Tracked(prep) => {
                    let out = B::logdet_tri(l.clone());
                    prep.finish(l, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::logdet_tri(l)),
            }
        }

        fn tri_inverse(l: FloatTensor<Self>) -> FloatTensor<Self> {
            let prep = TriInverseBackward.prepare::<C>([l.node()]).compute_bound().stateful();
            let v = B::tri_inverse(l.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => prep.finish(v.clone(), v),
                OpsKind::UnTracked(prep) => prep.finish(v),
            }
        }
    }
}
