//! The log of the standard normal distribution function and its derivative (host f64).

use super::consts::SQRT_2_OVER_PI;
use super::erfcx::erfcx;
use super::normal::{norm_cdf, norm_pdf};
use std::f64::consts::{FRAC_1_SQRT_2, LN_2};

/// `ln Φ(z)`, the log of the standard normal distribution function, accurate to a few ulp
/// (relative) for every finite `z`.
///
/// For `z < 0` it is `ln(erfcx(−z/√2)) − ln 2 − z²/2`, finite down to `z ≈ −1.3e154` (beyond,
/// `z²` overflows and the result is `−∞`); for `z ≥ 0` it is `ln(1 − Φ(−z))` through `ln_1p`, so
/// the tiny negative values for large `z` keep their relative accuracy.
pub fn log_ndtr(z: f64) -> f64 {
    if z < 0.0 {
        erfcx(-z * FRAC_1_SQRT_2).ln() - LN_2 - 0.5 * z * z
    } else {
        (-norm_cdf(-z)).ln_1p()
    }
}

/// The inverse Mills ratio `φ(z)/Φ(z)`, the derivative of [`log_ndtr`].
///
/// Stable in the far left tail, where it behaves like `−z` (it is `√(2/π)/erfcx(−z/√2)` there),
/// and tends to zero for large positive `z`.
pub fn inv_mills(z: f64) -> f64 {
    if z < 0.0 {
        SQRT_2_OVER_PI / erfcx(-z * FRAC_1_SQRT_2)
    } else {
        norm_pdf(z) / norm_cdf(z)
    }
}

#[cfg(test)]
mod tests {
    use super::{inv_mills, log_ndtr};
    use crate::special::test_util::{check_table, rel_err};

    /// `(z, ln Φ(z))`, mpmath at 50 digits; the last reference (−3.6e−350) underflows to −0.
    const LOG_NDTR: [(f64, f64); 21] = [
        (-1000000.0, -500000000014.73444),
        (-1000.0, -500007.82669481216),
        (-40.0, -804.6084420137538),
        (-38.0, -726.5572160188201),
        (-30.0, -454.3212439563432),
        (-20.0, -203.91715537109727),
        (-10.0, -53.23128515051247),
        (-5.0, -15.064998393988725),
        (-3.0, -6.607726221510349),
        (-1.0, -1.8410216450092636),
        (-0.5, -1.1759117615936185),
        (0.0, -std::f64::consts::LN_2),
        (0.5, -0.3689464152886564),
        (1.0, -0.17275377902344988),
        (3.0, -0.0013508099647481938),
        (5.0, -2.866516129637636e-07),
        (8.0, -6.220960574271786e-16),
        (10.0, -7.619853024160525e-24),
        (20.0, -2.7536241186062337e-89),
        (37.0, -5.725571222524577e-300),
        (40.0, -0.0),
    ];

    /// `(z, φ(z)/Φ(z))`, mpmath at 50 digits.
    const INV_MILLS: [(f64, f64); 10] = [
        (-1000000.0, 1000000.000001),
        (-1000.0, 1000.000999998),
        (-40.0, 40.02496884720726),
        (-20.0, 20.04975306852785),
        (-5.0, 5.186503967125842),
        (-1.0, 1.525135276160981),
        (0.0, 0.7978845608028654),
        (1.0, 0.2875999709391784),
        (5.0, 1.4867199409049056e-06),
        (10.0, 7.694598626706419e-23),
    ];

    #[test]
    fn log_ndtr_matches_mpmath_in_relative_terms() {
        check_table("log_ndtr", log_ndtr, &LOG_NDTR, 1e-15);
    }

    #[test]
    fn inv_mills_matches_mpmath() {
        check_table("inv_mills", inv_mills, &INV_MILLS, 1e-15);
    }

    #[test]
    fn log_ndtr_far_tails() {
        for z in [-1e6, -1e10, -1e100, -1e150] {
            let v = log_ndtr(z);
            assert!(v.is_finite(), "log_ndtr({z}) = {v}");
            assert!(rel_err(v, -0.5 * z * z) < 1e-9, "log_ndtr({z}) = {v}");
        }
        assert_eq!(log_ndtr(-1e200), f64::NEG_INFINITY);
        assert_eq!(log_ndtr(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(log_ndtr(f64::INFINITY), 0.0);
        assert!(log_ndtr(f64::NAN).is_nan());
        assert!(inv_mills(f64::NAN).is_nan());
        assert_eq!(inv_mills(f64::INFINITY), 0.0);
    }

    #[test]
    fn log_ndtr_in_f32_is_finite_down_to_minus_30() {
        for i in 0..=600 {
            let z = -0.05 * f64::from(i);
            let v = log_ndtr(f64::from(z as f32)) as f32;
            assert!(v.is_finite() && v < 0.0, "log_ndtr({z}) in f32 = {v}");
        }
    }

    #[test]
    fn inv_mills_is_the_derivative_of_log_ndtr() {
        let h = 1e-5;
        for i in 0..=100 {
            let z = -40.0 + 0.5 * f64::from(i);
            let fd = (log_ndtr(z + h) - log_ndtr(z - h)) / (2.0 * h);
            assert!(rel_err(fd, inv_mills(z)) < 1e-7, "z = {z}: {fd} vs {}", inv_mills(z));
        }
    }
}
