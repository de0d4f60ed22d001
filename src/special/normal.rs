//! The standard normal density and distribution function (host f64).

use super::consts::{FRAC_1_SQRT_2PI, LN_SQRT_2PI};
use super::erf::erfc;
use super::erfcx::erfcx;
use super::exp_square::exp_scaled_square;
use std::f64::consts::FRAC_1_SQRT_2;

/// The standard normal density `φ(z) = exp(−z²/2)/√(2π)`, accurate in relative terms in the tails.
pub fn norm_pdf(z: f64) -> f64 {
    FRAC_1_SQRT_2PI * exp_scaled_square(z, -0.5)
}

/// The log of the standard normal density, `ln φ(z) = −z²/2 − ln √(2π)`.
pub fn norm_logpdf(z: f64) -> f64 {
    -0.5 * z * z - LN_SQRT_2PI
}

/// The standard normal distribution function `Φ(z) = P(X ≤ z)`, `X ~ N(0, 1)`.
///
/// In the left tail it is evaluated as `½·erfcx(−z/√2)·exp(−z²/2)`, which keeps full relative
/// accuracy until the result underflows (near `z ≈ −38.5`): unlike `½·erfc(−z/√2)` it is not
/// sensitive to the rounding of `z/√2`, whose effect on `erfc` grows like `z²·ε`.
pub fn norm_cdf(z: f64) -> f64 {
    if z < 0.0 {
        0.5 * erfcx(-z * FRAC_1_SQRT_2) * exp_scaled_square(z, -0.5)
    } else {
        0.5 * erfc(-z * FRAC_1_SQRT_2)
    }
}

#[cfg(test)]
mod tests {
    use super::{norm_cdf, norm_logpdf, norm_pdf};
    use crate::special::test_util::{check_table, rel_err};

    /// `(z, Φ(z))`, mpmath at 50 digits (the first reference is subnormal).
    const NORM_CDF: [(f64, f64); 17] = [
        (-38.0, 2.88542835e-316),
        (-37.0, 5.725571222524577e-300),
        (-30.0, 4.906713927148187e-198),
        (-20.0, 2.7536241186062337e-89),
        (-10.0, 7.619853024160525e-24),
        (-5.0, 2.866515718791939e-07),
        (-3.0, 0.0013498980316300946),
        (-1.0, 0.15865525393145705),
        (-0.5, 0.3085375387259869),
        (-1e-08, 0.4999999960105772),
        (0.0, 0.5),
        (1e-08, 0.5000000039894228),
        (0.5, 0.6914624612740131),
        (1.0, 0.8413447460685429),
        (3.0, 0.9986501019683699),
        (5.0, 0.9999997133484281),
        (8.0, 0.9999999999999993),
    ];

    /// `(z, φ(z))`, mpmath at 50 digits (the first reference is subnormal).
    const NORM_PDF: [(f64, f64); 9] = [
        (-38.0, 1.097221052e-314),
        (-20.0, 5.520948362159764e-88),
        (-5.0, 1.4867195147342977e-06),
        (-1.0, 0.24197072451914334),
        (0.0, 0.3989422804014327),
        (0.5, 0.35206532676429947),
        (3.0, 0.0044318484119380075),
        (10.0, 7.694598626706419e-23),
        (30.0, 1.4736461348785476e-196),
    ];

    #[test]
    fn norm_cdf_matches_mpmath_in_relative_terms() {
        check_table("norm_cdf", norm_cdf, &NORM_CDF, 1e-15);
    }

    #[test]
    fn norm_pdf_matches_mpmath_in_relative_terms() {
        check_table("norm_pdf", norm_pdf, &NORM_PDF, 1e-15);
    }

    #[test]
    fn norm_logpdf_is_the_log_of_norm_pdf() {
        for &(z, pdf) in NORM_PDF.iter().filter(|(_, p)| p.is_normal()) {
            assert!(rel_err(norm_logpdf(z), pdf.ln()) < 1e-15, "z = {z}");
        }
        assert_eq!(norm_logpdf(1e200), f64::NEG_INFINITY);
    }

    #[test]
    fn norm_cdf_is_symmetric_and_saturates() {
        for i in 0..=80 {
            let z = 0.1 * f64::from(i);
            assert!((norm_cdf(z) + norm_cdf(-z) - 1.0).abs() < 2e-16, "z = {z}");
        }
        assert_eq!(norm_cdf(f64::NEG_INFINITY), 0.0);
        assert_eq!(norm_cdf(f64::INFINITY), 1.0);
        assert!(norm_cdf(f64::NAN).is_nan());
    }
}
