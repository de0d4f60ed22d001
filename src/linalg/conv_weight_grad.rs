//! The weight gradient of a stride-1, unpadded 2-D convolution as one matrix product per image.
//!
//! For `y = conv(x, W)` with `x` `[B, C, H, W]`, `W` `[O, C, kh, kw]` and upstream gradient `G`
//! `[B, O, H', W']`: `W̄ = Σ_b G_b · col(x_b)ᵀ`, where `col(x_b)` `[C·kh·kw, H'·W']` holds the
//! `kh×kw` patches of image `b` (im2col). Burn's generic backward instead runs the weight gradient
//! as another convolution with `G` as a `H'×W'` kernel, which the CPU backend's im2col turns into
//! thin products with `kh·kw` columns: at the MNIST trunk's conv2 that is 3× slower than its forward
//! pass (`cargo bench --bench trunk_profile`).
use faer::{Accum, Mat, Par};
use rayon::prelude::*;

use super::host::{matmul_into, view};

/// Shapes of a weight-gradient problem: input `[B, C, H, W]`, kernel `[O, C, kh, kw]`.
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
    fn out_hw(&self) -> (usize, usize) {
        (self.height + 1 - self.kernel[0], self.width + 1 - self.kernel[1])
    }
}

/// `W̄` `[O, C, kh, kw]` (row-major) of an unpadded stride-1 convolution from the input `x` and the
/// upstream gradient `g` `[B, O, H', W']` (both row-major). Images are split into one contiguous
/// block per rayon thread and the blocks' sums added in order, so a run repeats bit for bit at a
/// given thread count.
pub(crate) fn conv2d_weight_grad(x: &[f64], g: &[f64], s: ConvShape) -> Vec<f64> {
    let (ho, wo) = s.out_hw();
    let [kh, kw] = s.kernel;
    let (ck, hw) = (s.channels * kh * kw, ho * wo);
    let blocks = rayon::current_num_threads().clamp(1, s.batch.max(1));
    let per_block = s.batch.div_ceil(blocks);
    let partial: Vec<Mat<f64>> = (0..blocks)
        .into_par_iter()
        .map(|blk| {
            let mut acc = Mat::<f64>::zeros(s.out_channels, ck);
            let mut col = vec![0.0; ck * hw];
            for b in blk * per_block..((blk + 1) * per_block).min(s.batch) {
                im2col(&x[b * s.channels * s.height * s.width..][..s.channels * s.height * s.width], &mut col, s);
                let gb = view(&g[b * s.out_channels * hw..][..s.out_channels * hw], s.out_channels, hw);
                // clears the registers for the next image's im2col
                matmul_into(acc.as_mut(), Accum::Add, gb, view(&col, ck, hw).transpose(), 1.0, Par::Seq);
            }
            acc
        })
        .collect();
    let mut out = vec![0.0; s.out_channels * ck];
    for acc in &partial {
        for (at, v) in out.iter_mut().enumerate() {
            *v += acc[(at / ck, at % ck)];
        }
    }
    out
}

/// The patches of one image `[C, H, W]` as rows `(c, i, j)` of `col` `[C·kh·kw, H'·W']`.
fn im2col(image: &[f64], col: &mut [f64], s: ConvShape) {
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

    /// The definition, summed term by term.
    #[test]
    fn matches_the_direct_sum() {
        let s = ConvShape { batch: 3, channels: 2, height: 5, width: 4, out_channels: 3, kernel: [2, 3] };
        let (ho, wo) = s.out_hw();
        let val = |k: usize, scale: f64| ((k * 7919 % 23) as f64 - 11.0) * scale;
        let x: Vec<f64> = (0..s.batch * s.channels * s.height * s.width).map(|k| val(k, 0.1)).collect();
        let g: Vec<f64> = (0..s.batch * s.out_channels * ho * wo).map(|k| val(k + 5, 0.07)).collect();
        let got = conv2d_weight_grad(&x, &g, s);
        for o in 0..s.out_channels {
            for c in 0..s.channels {
                for i in 0..s.kernel[0] {
                    for j in 0..s.kernel[1] {
                        let mut want = 0.0;
                        for b in 0..s.batch {
                            for y in 0..ho {
                                for xx in 0..wo {
                                    want += g[((b * s.out_channels + o) * ho + y) * wo + xx]
                                        * x[((b * s.channels + c) * s.height + y + i) * s.width + xx + j];
                                }
                            }
                        }
                        let at = ((o * s.channels + c) * s.kernel[0] + i) * s.kernel[1] + j;
                        assert!((got[at] - want).abs() < 1e-12, "({o},{c},{i},{j}): {} vs {want}", got[at]);
                    }
                }
            }
        }
    }
}
