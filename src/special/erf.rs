//! The error function and its complement (host f64).
//!
//! These forward to `libm` (a port of FreeBSD's msun), which is within about one ulp of the exact
//! value over the whole real line; `erfc` keeps full relative accuracy until it underflows near
//! `x ≈ 26.5`. For anything that needs the tail beyond that, use [`super::erfcx`].

/// The error function `erf(x) = 2/√π ∫₀ˣ e^{−t²} dt`.
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// The complementary error function `erfc(x) = 1 − erf(x)`, accurate in relative terms for large `x`.
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

#[cfg(test)]
mod tests {
    use super::{erf, erfc};
    use crate::special::test_util::check_table;

    /// `(x, erf(x))`, mpmath at 50 digits.
    const ERF: [(f64, f64); 9] = [
        (-3.0, -0.9999779095030014),
        (-1.0, -0.8427007929497149),
        (-0.001, -0.0011283787909692365),
        (1e-12, 1.1283791670955126e-12),
        (0.001, 0.0011283787909692365),
        (0.5, 0.5204998778130465),
        (1.0, 0.8427007929497149),
        (2.0, 0.9953222650189527),
        (5.0, 0.9999999999984626),
    ];

    /// `(x, erfc(x))`, mpmath at 50 digits.
    const ERFC: [(f64, f64); 13] = [
        (-5.0, 1.9999999999984626),
        (-1.0, 1.8427007929497148),
        (-0.001, 1.0011283787909693),
        (0.0, 1.0),
        (0.001, 0.9988716212090307),
        (0.5, 0.4795001221869535),
        (1.0, 0.15729920705028513),
        (2.0, 0.004677734981047266),
        (5.0, 1.537459794428035e-12),
        (10.0, 2.088487583762545e-45),
        (20.0, 5.395865611607901e-176),
        (26.0, 5.663192408856143e-296),
        (26.5, 2.2109076642637343e-307),
    ];

    #[test]
    fn erf_matches_mpmath() {
        check_table("erf", erf, &ERF, 1e-15);
    }

    #[test]
    fn erfc_matches_mpmath_in_relative_terms() {
        check_table("erfc", erfc, &ERFC, 1e-15);
    }
}
