//! Standardisation fitted on training data: per-column [`Standardiser`] for features and the
//! scalar [`TargetStandardiser`] for regression targets. Standard deviations are population
//! (`ddof = 0`, as numpy and scikit-learn); a constant column gets 1.
use crate::error::{check_finite, Error, Result};

/// A standard deviation this small relative to the mean's scale marks a constant column
/// (its round-off residue must not be divided by).
const CONSTANT_TOL: f64 = 10.0 * f64::EPSILON;

/// Checks a row-major `n × d` matrix: `d > 0`, `n > 0`, `x.len() = n·d`, all finite.
fn check_matrix(context: &str, x: &[f64], n: usize, d: usize) -> Result<()> {
    if d == 0 {
        return Err(Error::invalid("d", format!("{context}: need at least one column")));
    }
    if n == 0 {
        return Err(Error::Empty { context: context.to_string() });
    }
    if n.checked_mul(d) != Some(x.len()) {
        return Err(Error::shape(context, [n, d], x.len()));
    }
    check_finite(context, x)
}

/// Mean and population standard deviation (1 for a constant column) of each column of a
/// row-major `n × d` matrix.
fn column_moments(context: &str, x: &[f64], n: usize, d: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    check_matrix(context, x, n, d)?;
    let mut mean = vec![0.0; d];
    for row in x.chunks_exact(d) {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut var = vec![0.0; d];
    for row in x.chunks_exact(d) {
        var.iter_mut().zip(row).zip(&mean).for_each(|((s, v), m)| *s += (v - m) * (v - m));
    }
    let std = var
        .iter()
        .zip(&mean)
        .map(|(s, m)| {
            let sd = (s / n as f64).sqrt();
            if sd <= CONSTANT_TOL * m.abs().max(1.0) {
                1.0
            } else {
                sd
            }
        })
        .collect();
    Ok((mean, std))
}

/// Checks saved moments: equal non-zero lengths, finite means, finite positive deviations.
fn check_moments(mean: &[f64], std: &[f64]) -> Result<()> {
    if mean.len() != std.len() {
        return Err(Error::shape("standardiser moments (std per mean)", mean.len(), std.len()));
    }
    if mean.is_empty() {
        return Err(Error::Empty { context: "standardiser moments".to_string() });
    }
    check_finite("standardiser mean", mean)?;
    match std.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
        Some(i) => Err(Error::invalid("std", format!("{} at index {i} is not a positive finite scale", std[i]))),
        None => Ok(()),
    }
}

/// Per-column affine scaling `(x − mean) / std`, fitted on training features.
#[derive(Debug, Clone, PartialEq)]
pub struct Standardiser {
    mean: Vec<f64>,
    std: Vec<f64>,
}

impl Standardiser {
    /// Fits on row-major `n × d` features. Errors: `n == 0` ([`Error::Empty`]), `d == 0`
    /// ([`Error::InvalidArgument`]), `x.len() != n·d` ([`Error::ShapeMismatch`]), NaN/Inf
    /// ([`Error::NonFinite`]).
    pub fn fit(x: &[f64], n: usize, d: usize) -> Result<Self> {
        let (mean, std) = column_moments("Standardiser::fit", x, n, d)?;
        Ok(Self { mean, std })
    }

    /// A standardiser from saved column means and standard deviations (each finite, `std > 0`).
    pub fn from_moments(mean: Vec<f64>, std: Vec<f64>) -> Result<Self> {
        check_moments(&mean, &std)?;
        Ok(Self { mean, std })
    }

    /// Column means.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Column standard deviations.
    pub fn std(&self) -> &[f64] {
        &self.std
    }

    /// Number of columns.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// `(x − mean) / std` for every row of row-major `x` (any number of rows of `dim()` values).
    pub fn transform(&self, x: &[f64]) -> Result<Vec<f64>> {
        self.map_rows("Standardiser::transform", x, |v, m, s| (v - m) / s)
    }

    /// `x · std + mean` for every row of `x` (undoes [`transform`](Self::transform)).
    pub fn inverse_transform(&self, x: &[f64]) -> Result<Vec<f64>> {
        self.map_rows("Standardiser::inverse_transform", x, |v, m, s| v * s + m)
    }

    /// Applies `f(value, mean, std)` column-wise after checking `x` holds whole rows.
    fn map_rows(&self, context: &str, x: &[f64], f: impl Fn(f64, f64, f64) -> f64) -> Result<Vec<f64>> {
        let d = self.dim();
        if !x.len().is_multiple_of(d) {
            return Err(Error::shape(context, format!("a multiple of d = {d} values"), x.len()));
        }
        Ok(x.chunks_exact(d)
            .flat_map(|row| row.iter().zip(&self.mean).zip(&self.std).map(|((&v, &m), &s)| f(v, m, s)))
            .collect())
    }
}

/// Scalar standardisation of regression targets, `(y − mean) / std`, with the inverse maps for
/// predictive means, variances and standard deviations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TargetStandardiser {
    mean: f64,
    std: f64,
}

impl TargetStandardiser {
    /// Fits on training targets (errors as for [`Standardiser::fit`]).
    pub fn fit(y: &[f64]) -> Result<Self> {
        let (mean, std) = column_moments("TargetStandardiser::fit", y, y.len(), 1)?;
        Ok(Self { mean: mean[0], std: std[0] })
    }

    /// A target standardiser from a saved mean and standard deviation (finite, `std > 0`).
    pub fn from_moments(mean: f64, std: f64) -> Result<Self> {
        check_moments(&[mean], &[std])?;
        Ok(Self { mean, std })
    }

    /// Target mean.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Target standard deviation.
    pub fn std(&self) -> f64 {
        self.std
    }

    /// `(y − mean) / std`.
    pub fn transform(&self, y: &[f64]) -> Vec<f64> {
        y.iter().map(|v| (v - self.mean) / self.std).collect()
    }

    /// Predictive means back in original units: `m · std + mean`.
    pub fn inverse_mean(&self, mean: &[f64]) -> Vec<f64> {
        mean.iter().map(|m| m * self.std + self.mean).collect()
    }

    /// Predictive variances back in original units: `v · std²`.
    pub fn inverse_var(&self, var: &[f64]) -> Vec<f64> {
        var.iter().map(|v| v * self.std * self.std).collect()
    }

    /// Predictive standard deviations back in original units: `s · std`.
    pub fn inverse_std(&self, std: &[f64]) -> Vec<f64> {
        std.iter().map(|s| s * self.std).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn fits_population_moments_and_round_trips() {
        // Column 0: 1, 3 → mean 2, std 1. Column 1: 10, 10 → constant, std 1. Column 2: 0, 8 → mean 4, std 4.
        let x = [1.0, 10.0, 0.0, 3.0, 10.0, 8.0];
        let s = Standardiser::fit(&x, 2, 3).unwrap();
        assert!(close(s.mean(), &[2.0, 10.0, 4.0]));
        assert!(close(s.std(), &[1.0, 1.0, 4.0]));
        assert_eq!(s.dim(), 3);
        let z = s.transform(&x).unwrap();
        assert!(close(&z, &[-1.0, 0.0, -1.0, 1.0, 0.0, 1.0]));
        assert!(close(&s.inverse_transform(&z).unwrap(), &x));
        assert!(close(&s.transform(&[2.0, 11.0, 12.0]).unwrap(), &[0.0, 1.0, 2.0]));
    }

    #[test]
    fn nearly_constant_column_is_not_blown_up() {
        let x = [0.1 + 0.2, 0.3, 0.30000000000000004];
        let s = Standardiser::fit(&x, 3, 1).unwrap();
        assert_eq!(s.std(), &[1.0]);
    }

    #[test]
    fn validates_inputs() {
        assert!(matches!(Standardiser::fit(&[], 0, 2), Err(Error::Empty { .. })));
        assert!(matches!(Standardiser::fit(&[1.0; 3], 2, 2), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(Standardiser::fit(&[1.0; 3], 3, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(Standardiser::fit(&[1.0, f64::NAN], 2, 1), Err(Error::NonFinite { index: 1, .. })));
        let s = Standardiser::fit(&[1.0, 2.0], 1, 2).unwrap();
        assert!(matches!(s.transform(&[1.0; 3]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(s.inverse_transform(&[1.0; 3]), Err(Error::ShapeMismatch { .. })));
    }

    #[test]
    fn from_moments_validates() {
        let s = Standardiser::from_moments(vec![1.0, 2.0], vec![2.0, 4.0]).unwrap();
        assert!(close(&s.transform(&[3.0, 6.0]).unwrap(), &[1.0, 1.0]));
        assert!(matches!(Standardiser::from_moments(vec![1.0], vec![]), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(Standardiser::from_moments(vec![], vec![]), Err(Error::Empty { .. })));
        assert!(matches!(Standardiser::from_moments(vec![0.0], vec![0.0]), Err(Error::InvalidArgument { .. })));
        assert!(matches!(TargetStandardiser::from_moments(f64::NAN, 1.0), Err(Error::NonFinite { .. })));
        assert_eq!(TargetStandardiser::from_moments(1.0, 2.0).unwrap().transform(&[5.0]), vec![2.0]);
    }

    #[test]
    fn target_standardiser_inverts_means_and_scales_variances() {
        let t = TargetStandardiser::fit(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert!((t.mean() - 5.0).abs() < 1e-12);
        assert!((t.std() - 5.0f64.sqrt()).abs() < 1e-12);
        let z = t.transform(&[5.0, 5.0 + 5.0f64.sqrt()]);
        assert!(close(&z, &[0.0, 1.0]));
        assert!(close(&t.inverse_mean(&z), &[5.0, 5.0 + 5.0f64.sqrt()]));
        assert!(close(&t.inverse_var(&[1.0, 2.0]), &[5.0, 10.0]));
        assert!(close(&t.inverse_std(&[1.0]), &[5.0f64.sqrt()]));
        assert_eq!(TargetStandardiser::fit(&[3.0, 3.0]).unwrap().std(), 1.0);
        assert!(matches!(TargetStandardiser::fit(&[]), Err(Error::Empty { .. })));
    }
}
