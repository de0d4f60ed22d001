//! The additive Matérn Gram matrix `K[i, j] = Σ_d w_d f_ν(λ_d |x_id − z_jd|)` as one fused op with
//! a hand-written backward pass.
//!
//! As separate tensor ops it builds and re-reads a `[D, n, m]` buffer half a dozen times and its
//! backward un-broadcasts with slow reductions (about 200 ms per step of the protein benchmark
//! before this op). Here each row is formed in a buffer, exponentiated by the vectorised
//! [`crate::special::exp_in_place`] and accumulated while in cache; the backward pass recomputes
//! it. Forward and backward run on the host in f64 for every backend (only `[n, D]`, `[m, D]`,
//! `[D]` and the `[n, m]` result cross to the device).
use burn::backend::{backend_extension, tensor::FloatTensor, Backend, TensorMetadata};
use burn::tensor::Shape;

use crate::linalg::{from_host, to_host};
use crate::special::{exp_in_place, madd};

/// Sizes of one Gram matrix: `n` rows, `m` columns, `d` input dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GramDims {
    /// Rows (points of the first argument).
    pub n: usize,
    /// Columns (points of the second argument).
    pub m: usize,
    /// Input dimensions.
    pub d: usize,
}

/// `f(s)` of the unit Matérn shape of order `P = ν − ½` from `s ≥ 0` and `e = e^{−s}`.
#[inline(always)]
fn shape<const P: usize>(s: f64, e: f64) -> f64 {
    match P {
        0 => e,
        1 => (1.0 + s) * e,
        _ => (1.0 + s + s * s * (1.0 / 3.0)) * e,
    }
}

/// `f′(s)` of the unit Matérn shape of order `P`.
#[inline(always)]
fn slope<const P: usize>(s: f64, e: f64) -> f64 {
    match P {
        0 => -e,
        1 => -s * e,
        _ => -(s * (1.0 / 3.0)) * (1.0 + s) * e,
    }
}

/// `Σ_j v_j` with eight independent partial sums (vectorisable, unlike one running sum).
#[inline(always)]
fn sum8(v: &[f64]) -> f64 {
    let mut acc = [0.0; 8];
    let chunks = v.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().sum();
    for c in chunks {
        for l in 0..8 {
            acc[l] += c[l];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// `zᵀ` `[d, m]` of a row-major `[m, d]` matrix, so that the inner loops over `j` are contiguous.
fn transpose(z: &[f64], m: usize, d: usize) -> Vec<f64> {
    let mut zt = vec![0.0; m * d];
    for j in 0..m {
        for k in 0..d {
            zt[k * m + j] = z[j * d + k];
        }
    }
    zt
}

/// `s_j = λ |x − z_j|` into `s` and `e^{−s_j}` into `e`.
#[inline(always)]
fn scaled_distances<const FMA: bool>(x: f64, zt: &[f64], lam: f64, s: &mut [f64], e: &mut [f64]) {
    for ((sj, ej), zj) in s.iter_mut().zip(e.iter_mut()).zip(zt) {
        *sj = lam * (x - zj).abs();
        *ej = -*sj;
    }
    exp_in_place::<FMA>(e);
}

#[inline(always)]
fn forward_impl<const FMA: bool, const P: usize>(
    x: &[f64],
    z: &[f64],
    rates: &[f64],
    weights: &[f64],
    dims: GramDims,
) -> Vec<f64> {
    let GramDims { n, m, d } = dims;
    let zt = transpose(z, m, d);
    let mut out = vec![0.0; n * m];
    let (mut s, mut e) = (vec![0.0; m], vec![0.0; m]);
    for k in 0..d {
        let (lam, w, ztk) = (rates[k], weights[k], &zt[k * m..(k + 1) * m]);
        for i in 0..n {
            scaled_distances::<FMA>(x[i * d + k], ztk, lam, &mut s, &mut e);
            for ((o, sj), ej) in out[i * m..(i + 1) * m].iter_mut().zip(&s).zip(&e) {
                *o = madd::<FMA>(w, shape::<P>(*sj, *ej), *o);
            }
        }
    }
    out
}

/// Gradients of `Σ_ij g_ij K_ij` with respect to `x` `[n, d]`, `z` `[m, d]`, the rates `[d]` and
/// the weights `[d]`.
pub(crate) struct GramGradients {
    /// `∂/∂x` `[n, d]`.
    pub x: Vec<f64>,
    /// `∂/∂z` `[m, d]`.
    pub z: Vec<f64>,
    /// `∂/∂λ` `[d]`.
    pub rates: Vec<f64>,
    /// `∂/∂w` `[d]`.
    pub weights: Vec<f64>,
}

#[inline(always)]
fn backward_impl<const FMA: bool, const P: usize>(
    x: &[f64],
    z: &[f64],
    rates: &[f64],
    weights: &[f64],
    g: &[f64],
    dims: GramDims,
) -> GramGradients {
    let GramDims { n, m, d } = dims;
    let zt = transpose(z, m, d);
    let (mut gx, mut gzt, mut grate, mut gw) = (vec![0.0; n * d], vec![0.0; m * d], vec![0.0; d], vec![0.0; d]);
    let (mut s, mut e) = (vec![0.0; m], vec![0.0; m]);
    let (mut by_weight, mut by_rate, mut by_x) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    for k in 0..d {
        let (lam, w, ztk) = (rates[k], weights[k], &zt[k * m..(k + 1) * m]);
        let gztk = &mut gzt[k * m..(k + 1) * m];
        for i in 0..n {
            let xi = x[i * d + k];
            scaled_distances::<FMA>(xi, ztk, lam, &mut s, &mut e);
            let gi = &g[i * m..(i + 1) * m];
            for j in 0..m {
                let gij = gi[j];
                let diff = xi - ztk[j];
                let t = gij * w * slope::<P>(s[j], e[j]); // ∂K_ij/∂s_ij weighted by g_ij
                                                          // sign(diff), 0 at coincident points (as the derivative of |·| in Burn)
                let sign = (diff > 0.0) as u8 as f64 - (diff < 0.0) as u8 as f64;
                let tx = t * lam * sign;
                by_weight[j] = gij * shape::<P>(s[j], e[j]);
                by_rate[j] = t * diff.abs();
                by_x[j] = tx;
                gztk[j] -= tx;
            }
            let (sum_f, sum_r, sum_x) = (sum8(&by_weight), sum8(&by_rate), sum8(&by_x));
            gw[k] += sum_f;
            grate[k] += sum_r;
            gx[i * d + k] += sum_x;
        }
    }
    GramGradients { x: gx, z: transpose(&gzt, d, m), rates: grate, weights: gw }
}

/// [`forward_impl`] for a run-time order.
#[inline(always)]
fn forward_any<const FMA: bool>(x: &[f64], z: &[f64], r: &[f64], w: &[f64], dims: GramDims, order: usize) -> Vec<f64> {
    match order {
        0 => forward_impl::<FMA, 0>(x, z, r, w, dims),
        1 => forward_impl::<FMA, 1>(x, z, r, w, dims),
        _ => forward_impl::<FMA, 2>(x, z, r, w, dims),
    }
}

/// [`backward_impl`] for a run-time order.
#[inline(always)]
fn backward_any<const FMA: bool>(
    x: &[f64],
    z: &[f64],
    r: &[f64],
    w: &[f64],
    g: &[f64],
    dims: GramDims,
    order: usize,
) -> GramGradients {
    match order {
        0 => backward_impl::<FMA, 0>(x, z, r, w, g, dims),
        1 => backward_impl::<FMA, 1>(x, z, r, w, g, dims),
        _ => backward_impl::<FMA, 2>(x, z, r, w, g, dims),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn forward_avx2(x: &[f64], z: &[f64], rates: &[f64], weights: &[f64], dims: GramDims, order: usize) -> Vec<f64> {
    forward_any::<true>(x, z, rates, weights, dims, order)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn backward_avx2(x: &[f64], z: &[f64], r: &[f64], w: &[f64], g: &[f64], dims: GramDims, order: usize) -> GramGradients {
    backward_any::<true>(x, z, r, w, g, dims, order)
}

/// Whether this CPU has AVX2 and FMA (for the vectorised loops).
fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `K[i, j] = Σ_k w_k f(λ_k |x_ik − z_jk|)` on row-major host buffers (`order` = ν − ½).
pub(crate) fn additive_matern_forward(
    x: &[f64],
    z: &[f64],
    rates: &[f64],
    weights: &[f64],
    dims: GramDims,
    order: usize,
) -> Vec<f64> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the target features were detected on this CPU just above.
        return unsafe { forward_avx2(x, z, rates, weights, dims, order) };
    }
    forward_any::<false>(x, z, rates, weights, dims, order)
}

/// The backward pass of [`additive_matern_forward`] for the upstream gradient `g` `[n, m]`.
pub(crate) fn additive_matern_backward(
    x: &[f64],
    z: &[f64],
    rates: &[f64],
    weights: &[f64],
    g: &[f64],
    dims: GramDims,
    order: usize,
) -> GramGradients {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: as above.
        return unsafe { backward_avx2(x, z, rates, weights, g, dims, order) };
    }
    backward_any::<false>(x, z, rates, weights, g, dims, order)
}

/// Sizes from the shapes of `x` `[n, d]` and `z` `[m, d]`.
fn gram_dims(x: &Shape, z: &Shape) -> GramDims {
    GramDims { n: x[0], m: z[0], d: x[1] }
}

/// The inputs of one Gram matrix read back to the host.
#[derive(Debug, Clone)]
struct HostInputs {
    x: Vec<f64>,
    z: Vec<f64>,
    rates: Vec<f64>,
    weights: Vec<f64>,
    xshape: Shape,
    zshape: Shape,
    order: usize,
    dtype: burn::tensor::DType,
}

impl HostInputs {
    fn read<B: Backend>(
        x: FloatTensor<B>,
        z: FloatTensor<B>,
        r: FloatTensor<B>,
        w: FloatTensor<B>,
        order: usize,
    ) -> Self {
        let (x, xshape, dtype) = to_host::<B>(x);
        let (z, zshape, _) = to_host::<B>(z);
        let (rates, _, _) = to_host::<B>(r);
        let (weights, _, _) = to_host::<B>(w);
        Self { x, z, rates, weights, xshape, zshape, order, dtype }
    }
    fn dims(&self) -> GramDims {
        gram_dims(&self.xshape, &self.zshape)
    }
    /// The Gram matrix as a float primitive on `device`.
    fn forward<B: Backend>(&self, device: &B::Device) -> FloatTensor<B> {
        let dims = self.dims();
        let out = additive_matern_forward(&self.x, &self.z, &self.rates, &self.weights, dims, self.order);
        from_host::<B>(out, Shape::new([dims.n, dims.m]), self.dtype, device)
    }
}

/// The fused additive Matérn Gram matrix for every enabled backend (host f64 forward).
#[backend_extension(
    NdArray: cfg(feature = "ndarray"),
    Flex: cfg(feature = "flex"),
    Cube: cfg(any(feature = "wgpu", feature = "cuda")),
    Autodiff,
)]
pub(crate) trait GpKernelOps: Backend {
    /// `K[i, j] = Σ_k w_k f_ν(λ_k |x_ik − z_jk|)` for `x` `[n, d]`, `z` `[m, d]`, rates `λ` `[d]`
    /// and weights `w` `[d]`; `order` = ν − ½ ∈ {0, 1, 2}.
    fn additive_matern(
        x: FloatTensor<Self>,
        z: FloatTensor<Self>,
        rates: FloatTensor<Self>,
        weights: FloatTensor<Self>,
        order: usize,
    ) -> FloatTensor<Self> {
        let device = x.device();
        HostInputs::read::<Self>(x, z, rates, weights, order).forward::<Self>(&device)
    }
}

crate::macros::impl_for_compiled_backends!(GpKernelOps);

mod autodiff {
    use super::{additive_matern_backward, GpKernelOps, HostInputs};
    use crate::linalg::{register_host_grads, upstream_on_host};
    use burn::backend::autodiff::checkpoint::{base::Checkpointer, strategy::CheckpointStrategy};
    use burn::backend::autodiff::grads::Gradients;
    use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
    use burn::backend::autodiff::Autodiff;
    use burn::backend::{tensor::FloatTensor, Backend, TensorMetadata};
    use burn::tensor::Shape;

    #[derive(Debug)]
    struct AdditiveMaternBackward;

    impl<B: Backend + GpKernelOps> Backward<B, 4> for AdditiveMaternBackward {
        /// Host copies of the inputs, kept from the forward pass.
        type State = HostInputs;

        fn backward(self, ops: Ops<Self::State, 4>, grads: &mut Gradients, _: &mut Checkpointer) {
            let (gv, device) = upstream_on_host::<B, _, _>(grads, &ops);
            let parents = ops.parents.map(|p| p.map(|node| node.id));
            let st = ops.state;
            let dims = st.dims();
            let grad = additive_matern_backward(&st.x, &st.z, &st.rates, &st.weights, &gv, dims, st.order);
            let d = Shape::new([dims.d]);
            let values = [(grad.x, st.xshape), (grad.z, st.zshape), (grad.rates, d.clone()), (grad.weights, d)];
            register_host_grads::<B, 4>(grads, parents, values, st.dtype, &device);
        }
    }

    impl<B: Backend + GpKernelOps, C: CheckpointStrategy> GpKernelOps for Autodiff<B, C> {
        fn additive_matern(
            x: FloatTensor<Self>,
            z: FloatTensor<Self>,
            rates: FloatTensor<Self>,
            weights: FloatTensor<Self>,
            order: usize,
        ) -> FloatTensor<Self> {
            let prep = AdditiveMaternBackward
                .prepare::<C>([x.node(), z.node(), rates.node(), weights.node()])
                .compute_bound()
                .stateful();
            let (x, z, rates, weights) =
                (x.into_primitive(), z.into_primitive(), rates.into_primitive(), weights.into_primitive());
            match prep {
                OpsKind::Tracked(prep) => {
                    let device = x.device();
                    let inputs = HostInputs::read::<B>(x, z, rates, weights, order);
                    let out = inputs.forward::<B>(&device);
                    prep.finish(inputs, out)
                }
                OpsKind::UnTracked(prep) => prep.finish(B::additive_matern(x, z, rates, weights, order)),
            }
        }
    }
}
