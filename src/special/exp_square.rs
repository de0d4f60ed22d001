//! `exp(c·x²)` without the rounding error of forming `x²`.

/// `exp(c·x²)` for `c` a power of two (here ±1, −½), accurate to a few ulp even when `x²` is large.
///
/// `x²` is split exactly as `hi + lo` with a fused multiply-add, so the result is
/// `exp(c·hi)·(1 + c·lo)` instead of `exp(c·fl(x²))`, whose relative error would grow like `x²·ε`.
pub(crate) fn exp_scaled_square(x: f64, c: f64) -> f64 {
    let hi = x * x;
    if !hi.is_finite() {
        return (c * hi).exp();
    }
    let lo = x.mul_add(x, -hi);
    (c * hi).exp() * (c * lo).exp()
}
