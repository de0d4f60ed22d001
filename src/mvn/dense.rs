//! Small host-side dense helpers (faer, f64) shared by the SUN distribution and the skew GP
//! posterior.
use faer::{Mat, MatRef};

use crate::error::{check_finite, Error, Result};
use crate::linalg::host::{self, par_for as par, solve_lower_in_place, solve_upper_in_place};

/// Lower Cholesky factor of a symmetric positive-definite matrix, retrying with `jitter · mean
/// diag` added for `jitter` in `1e-10, 1e-8, 1e-6` if needed (the host toolbox's ladder,
/// [`crate::linalg::host`]); [`Error::NotPositiveDefinite`] (with `batch` = `what`) otherwise.
pub fn cholesky(a: MatRef<'_, f64>, what: usize) -> Result<Mat<f64>> {
    let n = a.nrows();
    let mut row_major = Vec::with_capacity(n * n);
    host::push_row_major(a, &mut row_major);
    check_finite(&format!("cholesky of a {n}x{n} matrix"), &row_major)?;
    host::cholesky_with_ladder(&row_major, n, &host::SMALL_JITTER_LADDER)
        .map(|(l, _)| l)
        .map_err(|jitter| Error::NotPositiveDefinite { n, jitter, batch: what })
}

/// `L⁻¹ B` for lower-triangular `L`.
pub(crate) fn solve_lower(l: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut x = b.to_owned();
    solve_lower_in_place(l, x.as_mut(), par(l.nrows()));
    x
}

/// `(L Lᵀ)⁻¹ B` from the lower Cholesky factor `L`.
pub(crate) fn solve_chol(l: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut x = solve_lower(l, b);
    solve_upper_in_place(l.transpose(), x.as_mut(), par(l.nrows()));
    x
}

/// `½(A + Aᵀ)`.
pub(crate) fn symmetrise(a: MatRef<'_, f64>) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| 0.5 * (a[(i, j)] + a[(j, i)]))
}

/// Row-major values of a matrix.
pub(crate) fn row_major(a: MatRef<'_, f64>) -> Vec<f64> {
    let mut out = Vec::with_capacity(a.nrows() * a.ncols());
    crate::linalg::host::push_row_major(a, &mut out);
    out
}

/// A column vector from a slice.
pub(crate) fn column(v: &[f64]) -> Mat<f64> {
    Mat::from_fn(v.len(), 1, |i, _| v[i])
}
