//! A stride-1, unpadded 2-D convolution on the host: forward pass, input gradient and weight
//! gradient, each as one matrix product per image (im2col + faer), in the tensor's own precision.
//!
//! For `y = conv(x, W) + b` with `x` `[B, C, H, W]`, `W` `[O, C, kh, kw]` and upstream gradient
//! `G` `[B, O, H', W']`, with `col(x_b)` `[C·kh·kw, H'·W']` the `kh×kw` patches of image `b`
//! (im2col):
//! - forward: `y_b = W · col(x_b) + b` (`W` read as `[O, C·kh·kw]`);
//! - input gradient: `x̄_b = W̃ · col(pad(G_b))`, the convolution of the upstream gradient,
//!   zero-padded by `kh−1, kw−1` on each side, with the kernel flipped in both spatial directions
//!   and its channel axes swapped (`W̃` `[C, O·kh·kw]`);
//! - weight and bias gradients: `W̄ = Σ_b G_b · col(x_b)ᵀ`, `b̄ = Σ_b G_b · 1`.
//!
//! Burn's CPU backend runs the forward pass as small products over tiles of output positions
//! after a single-threaded copy of the input to channels-last order, the input gradient as a
//! transposed convolution, and the weight gradient as another convolution with `G` as a
//! `H'×W'` kernel (thin products with `kh·kw` columns): `cargo bench --bench trunk_profile`
//! times both ways at the paper's trunks' shapes.
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

use crate::linalg::clear_after;

/// The element types the host convolution runs in (the CPU backends' float tensors).
pub(crate) trait ConvFloat:
    faer::traits::ComplexField + Copy + Default + Send + Sync + core::ops::AddAssign + 'static
{
}
impl ConvFloat for f32 {}
impl ConvFloat for f64 {}

/// Shapes of a convolution: input `[B, C, H, W]`, kernel `[O, C, kh, kw]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvShape {
    pub(crate) batch: usize,
    pub(crate) channels: usize,
    pub(crate) height: usize,
    pub(crate) width: usize,
    pub(crate) out_channels: usize,
    pub(crate) kernel: [usize; 2],
}

impl ConvShape {
    pub(crate) fn out_hw(&self) -> (usize, usize) {
        (self.height + 1 - self.kernel[0], self.width + 1 - self.kernel[1])
    }

    /// Elements of one input image, `C·H·W`.
    fn image_len(&self) -> usize {
        self.channels * self.height * self.width
    }

    /// Rows and columns of one image's patch matrix, `(C·kh·kw, H'·W')`.
    fn col_dims(&self) -> (usize, usize) {
        let (ho, wo) = self.out_hw();
        (self.channels * self.kernel[0] * self.kernel[1], ho * wo)
    }
}

/// `dst ← accum(dst) + a·b` on the calling thread.
fn product<T: ConvFloat>(dst: MatMut<'_, T>, accum: Accum, a: MatRef<'_, T>, b: MatRef<'_, T>) {
    faer::linalg::matmul::matmul(dst, accum, a, b, T::one_impl(), Par::Seq);
    // clears the registers for the scalar copies of im2col/col2im that follow
    clear_after(Par::Seq);
}

/// `conv(x, W) + b` `[B, O, H', W']` (row-major) from `x` `[B, C, H, W]`, `w` `[O, C, kh, kw]` and
/// `bias` `[O]`. Each image is computed on its own (in parallel over images), so the result does
/// not depend on the thread count.
pub(crate) fn conv2d_forward<T: ConvFloat>(x: &[T], w: &[T], bias: &[T], s: ConvShape) -> Vec<T> {
    let (ck, hw) = s.col_dims();
    let o = s.out_channels;
    let mut out = vec![T::default(); s.batch * o * hw];
    let weight = MatRef::from_row_major_slice(w, o, ck);
    out.par_chunks_mut(o * hw).enumerate().for_each_init(
        || vec![T::default(); ck * hw],
        |col, (b, out_b)| {
            im2col(&x[b * s.image_len()..][..s.image_len()], col, s);
            for (row, &bo) in out_b.chunks_mut(hw).zip(bias) {
                row.fill(bo);
            }
            let dst = MatMut::from_row_major_slice_mut(out_b, o, hw);
            product(dst, Accum::Add, weight, MatRef::from_row_major_slice(col, ck, hw));
        },
    );
    out
}

/// `x̄` `[B, C, H, W]` (row-major) of `conv(x, W)` from `w` `[O, C, kh, kw]` and the upstream
/// gradient `g` `[B, O, H', W']`: a convolution of each zero-padded `G_b` with the flipped kernel,
/// per image as [`conv2d_forward`].
pub(crate) fn conv2d_input_grad<T: ConvFloat>(w: &[T], g: &[T], s: ConvShape) -> Vec<T> {
    let [kh, kw] = s.kernel;
    let (ho, wo) = s.out_hw();
    let o = s.out_channels;
    // the padded upstream gradient as the input of a convolution with C output channels
    let full = ConvShape {
        batch: s.batch,
        channels: o,
        height: s.height + kh - 1,
        width: s.width + kw - 1,
        out_channels: s.channels,
        kernel: s.kernel,
    };
    let mut flipped = vec![T::default(); w.len()];
    for oc in 0..o {
        for c in 0..s.channels {
            for i in 0..kh {
                for j in 0..kw {
                    flipped[((c * o + oc) * kh + i) * kw + j] =
                        w[((oc * s.channels + c) * kh + kh - 1 - i) * kw + kw - 1 - j];
                }
            }
        }
    }
    let (ck, hw) = full.col_dims();
    let weight = MatRef::from_row_major_slice(&flipped, s.channels, ck);
    let mut out = vec![T::default(); s.batch * s.image_len()];
    out.par_chunks_mut(s.image_len()).enumerate().for_each_init(
        // the padding stays zero: only the interior is written
        || (vec![T::default(); full.image_len()], vec![T::default(); ck * hw]),
        |(padded, col), (b, grad_b)| {
            for oc in 0..o {
                for y in 0..ho {
                    let src = &g[((b * o + oc) * ho + y) * wo..][..wo];
                    padded[(oc * full.height + y + kh - 1) * full.width + kw - 1..][..wo].copy_from_slice(src);
                }
            }
            im2col(padded, col, full);
            let dst = MatMut::from_row_major_slice_mut(grad_b, s.channels, hw);
            product(dst, Accum::Replace, weight, MatRef::from_row_major_slice(col, ck, hw));
        },
    );
    out
}

/// `(W̄, b̄)`, `W̄` `[O, C, kh, kw]` and `b̄` `[O]` (row-major), from the input `x` and the
/// upstream gradient `g` `[B, O, H', W']`. Images are split into one contiguous block per rayon
/// thread and the blocks' sums added in order, so a run repeats bit for bit at a given thread
/// count.
pub(crate) fn conv2d_param_grads<T: ConvFloat>(x: &[T], g: &[T], s: ConvShape) -> (Vec<T>, Vec<T>) {
    let (ck, hw) = s.col_dims();
    let o = s.out_channels;
    let blocks = rayon::current_num_threads().clamp(1, s.batch.max(1));
    let per_block = s.batch.div_ceil(blocks);
    let partial: Vec<(Vec<T>, Vec<T>)> = (0..blocks)
        .into_par_iter()
        .map(|blk| {
            let (mut acc, mut bias) = (vec![T::default(); o * ck], vec![T::default(); o]);
            let mut col = vec![T::default(); ck * hw];
            for b in blk * per_block..((blk + 1) * per_block).min(s.batch) {
                im2col(&x[b * s.image_len()..][..s.image_len()], &mut col, s);
                let gb = &g[b * o * hw..][..o * hw];
                for (sum, row) in bias.iter_mut().zip(gb.chunks(hw)) {
                    for &v in row {
                        *sum += v;
                    }
                }
                let dst = MatMut::from_row_major_slice_mut(&mut acc, o, ck);
                let (gb, col) = (MatRef::from_row_major_slice(gb, o, hw), MatRef::from_row_major_slice(&col, ck, hw));
                product(dst, Accum::Add, gb, col.transpose());
            }
            (acc, bias)
        })
        .collect();
    let mut partial = partial.into_iter();
    let (mut weight, mut bias) = partial.next().unwrap_or_else(|| (vec![T::default(); o * ck], vec![T::default(); o]));
    for (acc, b) in partial {
        for (v, a) in weight.iter_mut().chain(bias.iter_mut()).zip(acc.into_iter().chain(b)) {
            *v += a;
        }
    }
    (weight, bias)
}

/// The patches of one image `[C, H, W]` as rows `(c, i, j)` of `col` `[C·kh·kw, H'·W']`.
fn im2col<T: ConvFloat>(image: &[T], col: &mut [T], s: ConvShape) {
    let (ho, wo) = s.out_hw();
    let [kh, kw] = s.kernel;
    for c in 0..s.channels {
        let plane = &image[c * s.height * s.width..][..s.height * s.width];
        for i in 0..kh {
            for j in 0..kw {
                let row = &mut col[((c * kh + i) * kw + j) * ho * wo..][..ho * wo];
                for y in 0..ho {
                    row[y * wo..(y + 1) * wo].copy_from_slice(&plane[(y + i) * s.width + j..][..wo]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: ConvShape = ConvShape { batch: 3, channels: 2, height: 5, width: 4, out_channels: 3, kernel: [2, 3] };

    fn val(k: usize, scale: f64) -> f64 {
        ((k * 7919 % 23) as f64 - 11.0) * scale
    }

    /// `x`, `w`, `bias` and an upstream gradient `g` of shape [`S`].
    fn problem() -> [Vec<f64>; 4] {
        let (ho, wo) = S.out_hw();
        let x = (0..S.batch * S.image_len()).map(|k| val(k, 0.1)).collect();
        let w = (0..S.out_channels * S.col_dims().0).map(|k| val(k + 3, 0.05)).collect();
        let bias = (0..S.out_channels).map(|k| val(k + 1, 0.3)).collect();
        let g = (0..S.batch * S.out_channels * ho * wo).map(|k| val(k + 5, 0.07)).collect();
        [x, w, bias, g]
    }

    /// The convolution's definition, summed term by term: `y[b,o,y,x] = bias[o] +
    /// Σ_{c,i,j} w[o,c,i,j]·x[b,c,y+i,x+j]`.
    fn direct(x: &[f64], w: &[f64], bias: &[f64]) -> Vec<f64> {
        let (ho, wo) = S.out_hw();
        let [kh, kw] = S.kernel;
        let mut out = Vec::new();
        for b in 0..S.batch {
            for o in 0..S.out_channels {
                for yy in 0..ho {
                    for xx in 0..wo {
                        let mut v = bias[o];
                        for c in 0..S.channels {
                            for i in 0..kh {
                                for j in 0..kw {
                                    v += w[((o * S.channels + c) * kh + i) * kw + j]
                                        * x[((b * S.channels + c) * S.height + yy + i) * S.width + xx + j];
                                }
                            }
                        }
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
        assert_eq!(got.len(), want.len(), "{what}");
        for (k, (a, b)) in got.iter().zip(want).enumerate() {
            assert!((a - b).abs() < tol, "{what}[{k}]: {a} vs {b}");
        }
    }

    #[test]
    fn forward_matches_the_direct_sum() {
        let [x, w, bias, _] = problem();
        assert_close(&conv2d_forward(&x, &w, &bias, S), &direct(&x, &w, &bias), 1e-12, "forward");
    }

    /// The gradients of `⟨G, conv(x, W) + b⟩` are its derivatives: the objective is linear in
    /// `x` and in `W`, so each central difference is exact up to rounding.
    #[test]
    fn gradients_match_finite_differences() {
        let [x, w, bias, g] = problem();
        let objective = |x: &[f64], w: &[f64]| direct(x, w, &bias).iter().zip(&g).map(|(y, g)| y * g).sum::<f64>();
        let h = 1e-3;
        let bump = |v: &[f64], k: usize, by: f64| {
            let mut v = v.to_vec();
            v[k] += by;
            v
        };
        let fd_x: Vec<f64> = (0..x.len())
            .map(|k| (objective(&bump(&x, k, h), &w) - objective(&bump(&x, k, -h), &w)) / (2.0 * h))
            .collect();
        let fd_w: Vec<f64> = (0..w.len())
            .map(|k| (objective(&x, &bump(&w, k, h)) - objective(&x, &bump(&w, k, -h))) / (2.0 * h))
            .collect();
        assert_close(&conv2d_input_grad(&w, &g, S), &fd_x, 1e-9, "input gradient");
        let (weight, bias) = conv2d_param_grads(&x, &g, S);
        assert_close(&weight, &fd_w, 1e-9, "weight gradient");
        // b̄_o = Σ G[b, o, ·, ·]
        let (ho, wo) = S.out_hw();
        let want: Vec<f64> = (0..S.out_channels)
            .map(|o| (0..S.batch).map(|b| g[(b * S.out_channels + o) * ho * wo..][..ho * wo].iter().sum::<f64>()).sum())
            .collect();
        assert_close(&bias, &want, 1e-12, "bias gradient");
    }

    /// In f32 every result agrees with the f64 one to f32 rounding.
    #[test]
    fn single_precision_agrees_with_double() {
        let [x, w, bias, g] = problem();
        let single = |v: &[f64]| v.iter().map(|&a| a as f32).collect::<Vec<f32>>();
        let double = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<f64>>();
        let (xs, ws, bs, gs) = (single(&x), single(&w), single(&bias), single(&g));
        assert_close(&double(conv2d_forward(&xs, &ws, &bs, S)), &conv2d_forward(&x, &w, &bias, S), 1e-5, "forward");
        assert_close(&double(conv2d_input_grad(&ws, &gs, S)), &conv2d_input_grad(&w, &g, S), 1e-5, "input gradient");
        let ((w32, b32), (w64, b64)) = (conv2d_param_grads(&xs, &gs, S), conv2d_param_grads(&x, &g, S));
        assert_close(&double(w32), &w64, 1e-5, "weight gradient");
        assert_close(&double(b32), &b64, 1e-5, "bias gradient");
    }
}
