//! One EP site of the probit likelihood, as 1-D EP along the site's direction (paper appendix A.3,
//! eqs. 16–24 and 29; `docs/papers/001-ep-classification.md`, section "Site update").
//!
//! The exact factor of point `i` is `Φ(y t / √(1 + s))` in the scalar `t = υᵀu`, its cavity is
//! `N(t | a, c)`, and its site is `exp(−½ν̃t² + μ̃t)`. Everything here is closed form in f64.
use crate::special::{inv_mills, log_ndtr};

/// Below this `z` the inverse Mills ratio comes from its continued fraction, so that `λ + z` is
/// formed without cancellation.
const CONTINUED_FRACTION_BELOW: f64 = -5.0;

/// `λ(z) = N(z)/Φ(z)` and `λ(z) + z`, the latter without cancellation for very negative `z`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn mills_and_gap(z: f64) -> (f64, f64) {
    if z < CONTINUED_FRACTION_BELOW {
        // λ = x + D with x = −z and D = 1/(x + 2/(x + 3/(x + …))), 40 terms bottom-up.
        let x = -z;
        let mut tail = x;
        for k in (2..=40).rev() {
            tail = x + k as f64 / tail;
        }
        let d = 1.0 / tail;
        (x + d, d)
    } else {
        let lambda = inv_mills(z);
        (lambda, lambda + z)
    }
}

/// The moments of one site's tilted distribution: `log Z = log Φ(z)`, `α = ∂log Z/∂a` and
/// `β = −∂²log Z/∂a²` for cavity `N(a, c)`, label `y = ±1` and FITC variance `s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tilted {
    /// `log Φ(z)`, `z = y a / √(1 + s + c)`.
    pub log_z: f64,
    /// `α = y λ(z) / √b`.
    pub alpha: f64,
    /// `β = λ(z)(λ(z) + z) / b ∈ (0, 1/b)`.
    pub beta: f64,
    /// `z`.
    pub z: f64,
}

/// Moment matching of `Φ(y t/√(1 + s)) N(t | a, c)` (paper eqs. 17–20, eq. 20 with √b: see
/// `docs/papers/001-ep-classification.md`, section "Errata").
pub fn tilted(y: f64, a: f64, c: f64, s: f64) -> Tilted {
    let b = 1.0 + s + c;
    let sb = b.sqrt();
    let z = y * a / sb;
    let (lambda, gap) = mills_and_gap(z);
    Tilted { log_z: log_ndtr(z), alpha: y * lambda / sb, beta: lambda * gap / b, z }
}

/// The new site `(ν̃, μ̃)` from the tilted moments (paper eqs. 21–23 with the minus sign of eq. 23,
/// see `docs/papers/001-ep-classification.md`, section "Errata"):
/// `ν̃ = β/(1 − βc)`, `μ̃ = (α + βa)/(1 − βc)`; `ν̃ > 0` always for the probit.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn site_from_tilted(t: &Tilted, a: f64, c: f64) -> (f64, f64) {
    let denom = 1.0 - t.beta * c;
    (t.beta / denom, (t.alpha + t.beta * a) / denom)
}

/// `log s̃` of a site `(ν̃, μ̃)` whose cavity is `N(a, c)` (paper eq. 29 as corrected in
/// `docs/papers/001-ep-classification.md`, section "Errata"):
/// `log Φ(z) + ½log(1 + ν̃c) + (ν̃a² − 2μ̃a − μ̃²c) / (2(1 + ν̃c))`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn log_site_scale(log_z: f64, nu: f64, mu: f64, a: f64, c: f64) -> f64 {
    let k = 1.0 + nu * c;
    log_z + 0.5 * k.ln() + (nu * a * a - 2.0 * mu * a - mu * mu * c) / (2.0 * k)
}
