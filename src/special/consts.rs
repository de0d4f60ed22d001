//! Mathematical constants used by the special functions (f64, correctly rounded).

/// √π.
pub(crate) const SQRT_PI: f64 = 1.772_453_850_905_516;
/// 1/√π.
pub(crate) const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;
/// 1/√(2π), the standard normal density at zero.
pub(crate) const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
/// √(2/π).
pub(crate) const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
/// ln √(2π) = ½ ln 2π.
pub(crate) const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;
