//! The scaled complementary error function `erfcx(x) = exp(x²)·erfc(x)` (host f64).

use super::consts::FRAC_1_SQRT_PI;
use super::erf::erfc;
use super::exp_square::exp_scaled_square;

/// Below this, `erfcx` is `exp(x²)·erfc(x)` (both factors accurate, `erfc` far from underflow);
/// above it, the continued fraction.
const CONTINUED_FRACTION_FROM: f64 = 5.0;
/// Depth of the continued fraction: 20 levels reach full f64 accuracy for every `x ≥ 5`.
const CONTINUED_FRACTION_DEPTH: u32 = 20;

/// The scaled complementary error function `erfcx(x) = exp(x²)·erfc(x)`.
///
/// Accurate to a few ulp on the whole line: it decays like `1/(x√π)` for large positive `x`
/// (finite and nonzero far past where `erfc` underflows) and overflows to `+∞` for `x ≲ −26.6`,
/// where the exact value exceeds `f64::MAX`.
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x < 0.0 {
        2.0 * exp_scaled_square(x, 1.0) - erfcx(-x)
    } else if x < CONTINUED_FRACTION_FROM {
        exp_scaled_square(x, 1.0) * erfc(x)
    } else {
        laplace_continued_fraction(x)
    }
}

/// Laplace's continued fraction `erfcx(x) = (1/√π) / (x + ½/(x + 1/(x + (3/2)/(x + …))))`,
/// evaluated bottom-up at a fixed depth (for `x ≥ 5`). It never squares `x`, so it stays finite
/// up to `f64::MAX`.
fn laplace_continued_fraction(x: f64) -> f64 {
    let mut denominator = x;
    for k in (1..=CONTINUED_FRACTION_DEPTH).rev() {
        denominator = x + 0.5 * f64::from(k) / denominator;
    }
    FRAC_1_SQRT_PI / denominator
}

#[cfg(test)]
mod tests {
    use super::{erfcx, CONTINUED_FRACTION_FROM};
    use crate::special::test_util::{check_table, rel_err};

    /// `(x, exp(x²)·erfc(x))`, mpmath at 50 digits.
    const ERFCX: [(f64, f64); 29] = [
        (-26.0, 7.657724931490568e+293),
        (-10.0, 5.376234283632271e+43),
        (-3.0, 16205.988853999586),
        (-1.0, 5.008980080762283),
        (-0.5, 1.952360489182557),
        (-0.001, 1.0011293799198486),
        (0.0, 1.0),
        (1e-10, 0.999999999887162),
        (0.001, 0.9988726200811514),
        (0.1, 0.8964569799691267),
        (0.5, 0.6156903441929259),
        (1.0, 0.427583576155807),
        (2.0, 0.25539567631050575),
        (4.9, 0.11287909055975874),
        (5.0, 0.11070463773306863),
        (5.1, 0.1086110263139328),
        (8.0, 0.06998516620088092),
        (10.0, 0.05614099274382259),
        (26.0, 0.021683584850562907),
        (27.0, 0.02088160799042094),
        (30.0, 0.01879588886141675),
        (50.0, 0.011281536265323773),
        (100.0, 0.005641613782989433),
        (1000.0, 0.0005641893014533876),
        (100000.0, 5.6418958351954685e-06),
        (100000000.0, 5.641895835477562e-09),
        (1000000000000000.0, 5.641895835477563e-16),
        (1e+100, 5.6418958354775625e-101),
        (1e+300, 5.641895835477562e-301),
    ];

    #[test]
    fn erfcx_matches_mpmath() {
        check_table("erfcx", erfcx, &ERFCX, 1e-15);
    }

    #[test]
    fn erfcx_is_continuous_where_the_method_switches() {
        let below = erfcx(CONTINUED_FRACTION_FROM.next_down());
        let at = erfcx(CONTINUED_FRACTION_FROM);
        assert!(rel_err(below, at) < 1e-15, "{below} vs {at}");
    }

    #[test]
    fn erfcx_limits() {
        assert_eq!(erfcx(f64::INFINITY), 0.0);
        assert_eq!(erfcx(f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(erfcx(-27.0), f64::INFINITY);
        assert!(erfcx(f64::MAX) > 0.0);
        assert!(erfcx(f64::NAN).is_nan());
    }
}
