//! A 2×2 max-pool with stride 2 (no padding, floor mode) on the host, and its backward pass.
//!
//! Burn's CPU backend pools through a general 3-D pooling kernel that records an `i64` index
//! per output and scatters the gradient back through it. Here the forward pass reads each
//! window's four values, and the backward pass finds the window's maximum again from the input
//! (the same rule, so the same position) and writes the upstream gradient there, zeros
//! elsewhere: no index tensor is stored. The rule is Burn's: the first maximum in row-major
//! order wins, and a NaN wins over any number (the last NaN if several), so NaNs propagate.
use rayon::prelude::*;

/// The element types the host pooling runs in (the CPU backends' float tensors).
pub(crate) trait PoolFloat: Copy + Default + PartialOrd + Send + Sync + 'static {
    /// Whether the value is NaN.
    fn is_nan_value(self) -> bool;
}
impl PoolFloat for f32 {
    fn is_nan_value(self) -> bool {
        self.is_nan()
    }
}
impl PoolFloat for f64 {
    fn is_nan_value(self) -> bool {
        self.is_nan()
    }
}

/// Shape of a pooling problem: `planes` (batch × channels) planes of `height × width`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PoolShape {
    pub(crate) planes: usize,
    pub(crate) height: usize,
    pub(crate) width: usize,
}

impl PoolShape {
    /// Output height and width (floor mode).
    pub(crate) fn out_hw(&self) -> (usize, usize) {
        (self.height / 2, self.width / 2)
    }
}

/// Position (0–3, row-major) of the maximum of window `(y, x)` of `plane`, by Burn's rule.
fn argmax<T: PoolFloat>(plane: &[T], width: usize, y: usize, x: usize) -> usize {
    let at = |k: usize| plane[(2 * y + k / 2) * width + 2 * x + k % 2];
    let (mut best, mut value) = (0, at(0));
    for k in 1..4 {
        let v = at(k);
        if v > value || v.is_nan_value() {
            (best, value) = (k, v);
        }
    }
    best
}

/// The pooled planes `[planes, H/2, W/2]` of `x` `[planes, H, W]` (row-major).
pub(crate) fn max_pool2x2<T: PoolFloat>(x: &[T], s: PoolShape) -> Vec<T> {
    let (ho, wo) = s.out_hw();
    let mut out = vec![T::default(); s.planes * ho * wo];
    out.par_chunks_mut(ho * wo).zip(x.par_chunks(s.height * s.width)).for_each(|(out, plane)| {
        for y in 0..ho {
            for xx in 0..wo {
                let k = argmax(plane, s.width, y, xx);
                out[y * wo + xx] = plane[(2 * y + k / 2) * s.width + 2 * xx + k % 2];
            }
        }
    });
    out
}

/// `x̄` `[planes, H, W]` of [`max_pool2x2`] from its input `x` and the upstream gradient `g`
/// `[planes, H/2, W/2]`: each window's gradient at its maximum, zeros elsewhere (and on a last
/// row or column that no window covers).
pub(crate) fn max_pool2x2_backward<T: PoolFloat>(x: &[T], g: &[T], s: PoolShape) -> Vec<T> {
    let (ho, wo) = s.out_hw();
    let mut out = vec![T::default(); x.len()];
    out.par_chunks_mut(s.height * s.width).zip(x.par_chunks(s.height * s.width)).zip(g.par_chunks(ho * wo)).for_each(
        |((grad, plane), g)| {
            for y in 0..ho {
                for xx in 0..wo {
                    let k = argmax(plane, s.width, y, xx);
                    grad[(2 * y + k / 2) * s.width + 2 * xx + k % 2] = g[y * wo + xx];
                }
            }
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_each_window_and_routes_its_gradient_to_the_maximum() {
        // one 3×5 plane: windows (0,0) and (0,1); the last row and column are dropped
        #[rustfmt::skip]
        let x = [
            1.0, 4.0,   2.0, 2.0,  9.0,
            3.0, -1.0,  0.5, 2.0,  9.0,
            9.0, 9.0,   9.0, 9.0,  9.0,
        ];
        let s = PoolShape { planes: 1, height: 3, width: 5 };
        assert_eq!(max_pool2x2(&x, s), vec![4.0, 2.0]);
        // a tie (2.0 twice) goes to the first in row-major order
        let grad = max_pool2x2_backward(&x, &[10.0, 20.0], s);
        #[rustfmt::skip]
        let want = [
            0.0, 10.0, 20.0, 0.0, 0.0,
            0.0, 0.0,  0.0,  0.0, 0.0,
            0.0, 0.0,  0.0,  0.0, 0.0,
        ];
        assert_eq!(grad, want);
    }

    #[test]
    fn a_nan_wins_its_window() {
        let x = [1.0f32, f32::NAN, 5.0, 2.0];
        let s = PoolShape { planes: 1, height: 2, width: 2 };
        assert!(max_pool2x2(&x, s)[0].is_nan());
        assert_eq!(max_pool2x2_backward(&x, &[1.0], s), vec![0.0, 1.0, 0.0, 0.0]);
    }

    /// `⟨G, pool(x)⟩` is piecewise linear in `x`: away from ties its central differences are
    /// the gradient exactly (up to rounding).
    #[test]
    fn gradient_matches_finite_differences() {
        let s = PoolShape { planes: 3, height: 5, width: 4 };
        let x: Vec<f64> = (0..s.planes * s.height * s.width).map(|k| ((k * 7919 % 101) as f64) * 0.37 - 9.0).collect();
        let (ho, wo) = s.out_hw();
        let g: Vec<f64> = (0..s.planes * ho * wo).map(|k| (k % 7) as f64 - 3.0).collect();
        let objective = |x: &[f64]| max_pool2x2(x, s).iter().zip(&g).map(|(y, g)| y * g).sum::<f64>();
        let grad = max_pool2x2_backward(&x, &g, s);
        let h = 1e-4;
        for k in 0..x.len() {
            let (mut up, mut down) = (x.clone(), x.clone());
            up[k] += h;
            down[k] -= h;
            let fd = (objective(&up) - objective(&down)) / (2.0 * h);
            assert!((grad[k] - fd).abs() < 1e-8, "x[{k}]: {} vs {fd}", grad[k]);
        }
    }
}
