//! `exp` over a slice, written so that the compiler vectorises it (libm's `exp` is a scalar call).
//!
//! Cody–Waite reduction `x = k ln 2 + r`, `|r| ≤ ½ ln 2`, a degree-13 Taylor polynomial for
//! `e^r` (truncation below 5e-18) and the scaling `2^k` applied as two exact powers of two so that
//! results in the subnormal range come out right. Branch-free: NaN stays NaN, `+∞` and arguments
//! above 709.78 give `+∞`, `−∞` and arguments below −745.2 give 0. Within 2 ulp of libm's `exp`
//! (tested over `[−745, 709.7]`).

/// `ln 2` split so that `k · LN2_HI` is exact for `|k| < 2²⁰` (fdlibm's constants).
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// `1.5 · 2⁵²`: adding it rounds to the nearest integer, which then sits in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// `2⁵²`: for an integer `0 ≤ n < 2⁵²`, the bits of `n + 2⁵²` are `TWO52_BITS + n`.
const TWO52: f64 = 4_503_599_627_370_496.0;

/// `2^n` for an integer-valued `n ∈ [−1022, 1023]`, built from its exponent bits.
#[inline(always)]
fn pow2(n: f64) -> f64 {
    let biased = (n + 1023.0 + TWO52).to_bits().wrapping_sub(TWO52.to_bits());
    f64::from_bits(biased << 52)
}

/// `a·b + c`, fused when `FMA` (only inside code compiled with the `fma` target feature: elsewhere
/// `mul_add` is a slow library call).
#[inline(always)]
pub(crate) fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `e^x` for one value.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn exp_scalar(x: f64) -> f64 {
    exp_kernel::<false>(x)
}

/// `e^x` for one value (the body of [`exp_in_place`]), `FMA` as in [`madd`].
#[inline(always)]
pub(crate) fn exp_kernel<const FMA: bool>(x: f64) -> f64 {
    let x = x.clamp(-745.2, 709.8);
    let k = (x * std::f64::consts::LOG2_E + ROUND_MAGIC) - ROUND_MAGIC;
    let r = madd::<FMA>(-k, LN2_LO, madd::<FMA>(-k, LN2_HI, x));
    // Horner on the Taylor coefficients 1/j!, j = 13 … 0.
    let mut p = 1.0 / 6_227_020_800.0;
    for c in [
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = madd::<FMA>(p, r, c);
    }
    // 2^k = 2^k1 · 2^k2 with both halves in the normal range (k ∈ [−1075, 1024]).
    let k1 = (k * 0.5).floor();
    p * pow2(k1) * pow2(k - k1)
}

/// Replaces every element of `xs` by its exponential (`FMA` as in [`madd`]).
#[inline(always)]
pub(crate) fn exp_in_place<const FMA: bool>(xs: &mut [f64]) {
    for x in xs.iter_mut() {
        *x = exp_kernel::<FMA>(*x);
    }
}

#[cfg(test)]
mod tests {
    use super::{exp_kernel, exp_scalar};

    fn ulps(a: f64, b: f64) -> f64 {
        if a == b {
            return 0.0;
        }
        let spacing = f64::from_bits(b.abs().to_bits() + 1) - b.abs();
        (a - b).abs() / spacing.max(f64::from_bits(1))
    }

    #[test]
    fn within_two_ulp_of_libm_over_the_whole_range() {
        let mut worst: f64 = 0.0;
        let n = 400_000;
        for i in 0..=n {
            let x = -745.0 + (709.7 + 745.0) * i as f64 / n as f64;
            worst = worst.max(ulps(exp_scalar(x), x.exp()));
        }
        for i in 0..=n {
            let x = -1.0 + 2.0 * i as f64 / n as f64;
            worst = worst.max(ulps(exp_scalar(x), x.exp()));
        }
        assert!(worst <= 2.0, "worst error {worst} ulp");
    }

    #[test]
    fn fused_variant_agrees() {
        // Without the fma target feature `mul_add` is still exact (a library call), so this checks
        // the fused arithmetic path that vectorised callers compile.
        for i in 0..=20_000 {
            let x = -745.0 + (709.7 + 745.0) * i as f64 / 20_000.0;
            assert!(ulps(exp_kernel::<true>(x), x.exp()) <= 2.0, "x = {x}");
        }
    }

    #[test]
    fn special_values() {
        assert!(exp_scalar(f64::NAN).is_nan());
        assert_eq!(exp_scalar(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp_scalar(710.0), f64::INFINITY);
        assert_eq!(exp_scalar(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp_scalar(-800.0), 0.0);
        assert_eq!(exp_scalar(0.0), 1.0);
        // subnormal results
        let x = -740.0;
        assert!(((exp_scalar(x) - x.exp()) / x.exp()).abs() < 1e-3);
    }
}
