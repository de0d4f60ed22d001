//! `ln Σ exp(xᵢ)` without overflow or underflow (host f64).

/// `ln Σᵢ exp(xᵢ)`, computed as `m + ln_1p(Σ_{i≠k} exp(xᵢ − m))` with `m = x_k` the largest term.
///
/// Any NaN gives NaN; otherwise an empty slice or all terms `−∞` gives `−∞`, and any `+∞` gives `+∞`.
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let mut k = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x.is_nan() {
            return x;
        }
        if x > xs[k] {
            k = i;
        }
    }
    let Some(&m) = xs.get(k) else {
        return f64::NEG_INFINITY;
    };
    if !m.is_finite() {
        return m;
    }
    let rest: f64 = xs.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, &x)| (x - m).exp()).sum();
    m + rest.ln_1p()
}

#[cfg(test)]
mod tests {
    use super::log_sum_exp;
    use crate::special::test_util::rel_err;
    use std::f64::consts::LN_2;

    #[test]
    fn log_sum_exp_is_stable() {
        assert!(rel_err(log_sum_exp(&[1000.0, 1000.0]), 1000.0 + LN_2) < 1e-16);
        assert!(rel_err(log_sum_exp(&[-1000.0, -1000.0]), -1000.0 + LN_2) < 1e-16);
        assert!(rel_err(log_sum_exp(&[0.0, f64::NEG_INFINITY, 0.0]), LN_2) < 1e-16);
        // ln(1 + e^{-40}) is resolved, not rounded to zero.
        assert!(rel_err(log_sum_exp(&[0.0, -40.0]), (-40f64).exp()) < 1e-15);
        let xs = [0.3_f64, -1.2, 2.5, 0.0];
        let naive = xs.iter().map(|x| x.exp()).sum::<f64>().ln();
        assert!(rel_err(log_sum_exp(&xs), naive) < 1e-15);
        assert_eq!(log_sum_exp(&[-7.0]), -7.0);
    }

    #[test]
    fn log_sum_exp_special_inputs() {
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp(&[f64::NEG_INFINITY; 3]), f64::NEG_INFINITY);
        assert_eq!(log_sum_exp(&[1.0, f64::INFINITY]), f64::INFINITY);
        assert!(log_sum_exp(&[1.0, f64::NAN, 2.0]).is_nan());
        assert!(log_sum_exp(&[f64::INFINITY, f64::NAN]).is_nan());
        assert!(log_sum_exp(&[f64::NAN, f64::INFINITY]).is_nan());
    }
}
