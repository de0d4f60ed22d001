//! The standard normal quantile function `Φ⁻¹(p)` (host f64).

use super::log_ndtr::{inv_mills, log_ndtr};

/// Central region of Wichura's AS 241 (`|p − ½| ≤ 0.425`): numerator coefficients in
/// `r = 0.180625 − q²`. All AS 241 coefficients are the published 20-digit values rounded to f64.
const CENTRAL_NUM: [f64; 8] = [
    3.3871328727963665,
    133.14166789178438,
    1971.5909503065513,
    13731.69376550946,
    45921.95393154987,
    67265.7709270087,
    33430.57558358813,
    2509.0809287301227,
];
/// Central region of AS 241: denominator coefficients.
const CENTRAL_DEN: [f64; 8] = [
    1.0,
    42.31333070160091,
    687.1870074920579,
    5394.196021424751,
    21213.794301586597,
    39307.89580009271,
    28729.085735721943,
    5226.495278852854,
];
/// Intermediate tail of AS 241 (`r = √(−ln min(p, 1−p)) ≤ 5`): numerator coefficients in `r − 1.6`.
const NEAR_TAIL_NUM: [f64; 8] = [
    1.4234371107496835,
    4.630337846156546,
    5.769497221460691,
    3.6478483247632045,
    1.2704582524523684,
    0.2417807251774506,
    0.022723844989269184,
    0.0007745450142783414,
];
/// Intermediate tail of AS 241: denominator coefficients.
const NEAR_TAIL_DEN: [f64; 8] = [
    1.0,
    2.053191626637759,
    1.6763848301838038,
    0.6897673349851,
    0.14810397642748008,
    0.015198666563616457,
    0.0005475938084995345,
    1.0507500716444169e-09,
];
/// Far tail of AS 241 (`r > 5`): numerator coefficients in `r − 5`.
const FAR_TAIL_NUM: [f64; 8] = [
    6.657904643501103,
    5.463784911164114,
    1.7848265399172913,
    0.29656057182850487,
    0.026532189526576124,
    0.0012426609473880784,
    2.7115555687434876e-05,
    2.0103343992922881e-07,
];
/// Far tail of AS 241: denominator coefficients.
const FAR_TAIL_DEN: [f64; 8] = [
    1.0,
    0.599832206555888,
    0.1369298809227358,
    0.014875361290850615,
    0.0007868691311456133,
    1.8463183175100548e-05,
    1.421511758316446e-07,
    2.0442631033899397e-15,
];

/// The standard normal quantile `Φ⁻¹(p)`, with relative error of order 1e-16 for `p` in `(0, 1)`.
///
/// Wichura's AS 241 rational approximations, followed in the tails by one Newton step on
/// `ln Φ(x) = ln p` (in log space, so it works down to the smallest subnormal `p`).
/// `ndtri(0) = −∞`, `ndtri(1) = +∞`; `p` outside `[0, 1]` or NaN gives NaN.
pub fn ndtri(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180_625 - q * q;
        q * rational(&CENTRAL_NUM, &CENTRAL_DEN, r)
    } else if q < 0.0 {
        lower_tail_quantile(p)
    } else {
        -lower_tail_quantile(1.0 - p)
    }
}

/// `Φ⁻¹(exp(ln_p))`, the normal quantile of a probability given by its logarithm `ln_p ≤ 0`.
///
/// Accurate (relative error of order 1e-15) for every `ln_p`, including probabilities far below
/// the smallest f64 (`ndtri_from_log(-1000) ≈ −44.6157`), where `ndtri(exp(ln_p))` would return
/// `−∞`; near `ln_p = 0` the upper tail is taken from `1 − p = −expm1(ln_p)` without cancellation.
/// `ln_p = −∞` gives `−∞`, `ln_p = 0` gives `+∞`, positive or NaN `ln_p` gives NaN.
pub fn ndtri_from_log(ln_p: f64) -> f64 {
    if ln_p.is_nan() || ln_p > 0.0 {
        return f64::NAN;
    }
    if ln_p == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if ln_p < -2.6 {
        // p < 0.0743: AS 241's tail region, straight from the logarithm
        return lower_tail_from_log(ln_p);
    }
    if ln_p > -std::f64::consts::LN_2 {
        // p > ½: Φ⁻¹(p) = −Φ⁻¹(1 − p), with 1 − p computed without cancellation
        return -ndtri(-ln_p.exp_m1());
    }
    ndtri(ln_p.exp())
}

/// `Φ⁻¹(p)` for `0 ≤ p < 0.075` (a negative number).
fn lower_tail_quantile(p: f64) -> f64 {
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    lower_tail_from_log(p.ln())
}

/// `Φ⁻¹(exp(ln_p))` for `ln_p < ln 0.075`: AS 241's tail approximations in `r = √(−ln p)`, then
/// Newton steps on `ln Φ(x) = ln p` (one suffices where AS 241 is accurate, `r ≤ 27`; beyond, its
/// far-tail polynomial is only a starting point and up to six steps converge).
fn lower_tail_from_log(ln_p: f64) -> f64 {
    let r = (-ln_p).sqrt();
    let mut x = -if r <= 5.0 {
        rational(&NEAR_TAIL_NUM, &NEAR_TAIL_DEN, r - 1.6)
    } else {
        rational(&FAR_TAIL_NUM, &FAR_TAIL_DEN, r - 5.0)
    };
    let steps = if r <= 27.0 { 1 } else { 6 };
    for _ in 0..steps {
        let step = (log_ndtr(x) - ln_p) / inv_mills(x);
        x -= step;
        if step.abs() <= 1e-15 * x.abs() {
            break;
        }
    }
    x
}

/// `num(x)/den(x)` for two degree-7 polynomials given lowest coefficient first.
fn rational(num: &[f64; 8], den: &[f64; 8], x: f64) -> f64 {
    let horner = |c: &[f64; 8]| c.iter().rev().fold(0.0_f64, |acc, &ci| acc.mul_add(x, ci));
    horner(num) / horner(den)
}

#[cfg(test)]
mod tests {
    use super::ndtri;
    use crate::special::log_ndtr::inv_mills;
    use crate::special::normal::norm_cdf;
    use crate::special::test_util::{check_table, rel_err};

    /// `(p, Φ⁻¹(p))`, mpmath at 50 digits (`p` as the f64 it rounds to).
    const NDTRI: [(f64, f64); 12] = [
        (1e-310, -37.663060331949524),
        (1e-300, -37.0470962993612),
        (1e-100, -21.273453560965326),
        (1e-20, -9.262340089798407),
        (1e-10, -6.361340902404057),
        (0.001, -3.0902323061678136),
        (0.025, -1.9599639845400543),
        (0.3, -0.5244005127080408),
        (0.5, 0.0),
        (0.9, 1.2815515655446006),
        (0.975, 1.9599639845400538),
        (0.9999999999, 6.361340889697422),
    ];

    #[test]
    fn ndtri_matches_mpmath() {
        check_table("ndtri", ndtri, &NDTRI, 1e-15);
    }

    #[test]
    fn ndtri_inverts_norm_cdf() {
        let tail = (1..=615).map(|i| 10f64.powf(-0.5 * f64::from(i)));
        let body = (1..200).map(|i| f64::from(i) / 200.0);
        for p in tail.chain(body) {
            let z = ndtri(p);
            // A relative error δ in z moves Φ(z) by a relative z·φ(z)/Φ(z)·δ.
            let condition = 1.0 + (z * inv_mills(z)).abs();
            assert!(rel_err(norm_cdf(z), p) < 4.0 * f64::EPSILON * condition, "p = {p:e}");
        }
    }

    #[test]
    fn ndtri_from_log_matches_ndtri_and_reaches_below_f64() {
        use super::ndtri_from_log;
        use crate::special::log_ndtr::log_ndtr;
        for p in [1e-300, 1e-100, 1e-20, 1e-3, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.999, 1.0 - 1e-12] {
            let (a, b) = (ndtri_from_log(f64::ln(p)), ndtri(p));
            assert!((a - b).abs() <= 1e-13 * b.abs().max(1.0), "p = {p:e}: {a} vs {b}");
        }
        // far below the smallest f64: invert log_ndtr
        for ln_p in [-800.0, -1000.0, -1e4, -1e6] {
            let x = ndtri_from_log(ln_p);
            assert!(x.is_finite(), "ln p = {ln_p}");
            assert!(rel_err(log_ndtr(x), ln_p) < 1e-13, "ln p = {ln_p}: x = {x}");
        }
        // mpmath (40 digits): Φ⁻¹(e^{−1000}) = −44.615747731969403
        assert!(rel_err(ndtri_from_log(-1000.0), -44.615_747_731_969_4) < 1e-14);
        assert_eq!(ndtri_from_log(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(ndtri_from_log(0.0), f64::INFINITY);
        assert!(ndtri_from_log(0.1).is_nan() && ndtri_from_log(f64::NAN).is_nan());
    }

    #[test]
    fn ndtri_edges() {
        assert_eq!(ndtri(0.0), f64::NEG_INFINITY);
        assert_eq!(ndtri(1.0), f64::INFINITY);
        assert!(ndtri(f64::from_bits(1)).is_finite());
        for p in [-1e-300, 1.0 + f64::EPSILON, f64::NAN, f64::INFINITY] {
            assert!(ndtri(p).is_nan(), "p = {p}");
        }
    }
}
