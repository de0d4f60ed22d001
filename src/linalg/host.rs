//! Host-side (CPU, f64) dense kernels on row-major batches of small matrices, built on `faer`.
//!
//! Every m×m factorisation in burn-gp runs here in f64 whatever the tensor precision: the
//! matrix is read from the device once, factorised by faer's blocked kernels, and written back.
//! Products with data-sized (n×m) matrices run here only for CPU backends, whose tensors are in
//! host memory anyway ([`matmul`]); on GPU backends they stay on the device.
//!
//! Each kernel here ends by clearing the upper halves of the x86 vector registers (`vzeroupper`) on
//! the threads it ran on. faer's AVX-512 kernels leave them set, and on Intel cores the legacy-SSE
//! code that runs next (glibc's `exp` behind every RBF kernel matrix, Rust code built for the
//! baseline x86-64 target) is then slowed down, `exp` about 25-fold; `linalg_bench --vector-state`
//! measures it on the machine at hand.
use faer::linalg::matmul::triangular::{self as tri, BlockStructure};
use faer::{Accum, Accum::Replace, Mat, MatMut, MatRef, Par};

use BlockStructure::{Rectangular as Rect, TriangularLower as Lower, TriangularUpper as Upper};

use super::vector_state::clear_after;
use crate::error::{check_finite, Error, Result};

/// Relative jitter ladder of the models' `m × m` factorisations: multiples of mean(diag) tried
/// after a plain attempt fails.
pub(crate) const JITTER_LADDER: [f64; 7] = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2];

/// The first rungs only, for the skew GP's posterior covariances, whose orthant probabilities a
/// larger jitter would change.
pub(crate) const SMALL_JITTER_LADDER: [f64; 3] = [1e-10, 1e-8, 1e-6];

/// Lower Cholesky factor of the row-major `n × n` matrix `a`, retrying with `rel · mean|diag|`
/// added to the diagonal for each `rel` of `ladder` (mean|diag| taken as 1 when it is 0): the
/// factor and the jitter it needed, or `Err(last jitter tried)`.
pub(crate) fn cholesky_with_ladder(a: &[f64], n: usize, ladder: &[f64]) -> std::result::Result<(Mat<f64>, f64), f64> {
    if let Some(l) = cholesky_lower(a, n) {
        return Ok((l, 0.0));
    }
    let mean_diag = (0..n).map(|i| a[i * n + i].abs()).sum::<f64>() / n.max(1) as f64;
    let scale = if mean_diag > 0.0 { mean_diag } else { 1.0 };
    let mut last = 0.0;
    for rel in ladder {
        last = rel * scale;
        let mut work = a.to_vec();
        for i in 0..n {
            work[i * n + i] += last;
        }
        if let Some(l) = cholesky_lower(&work, n) {
            return Ok((l, last));
        }
    }
    Err(last)
}

/// Parallelism for faer: sequential for small matrices, rayon above.
pub(crate) fn par_for(n: usize) -> Par {
    if n >= 192 {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Copies a row-major slice into a faer matrix.
pub fn to_mat(s: &[f64], rows: usize, cols: usize) -> Mat<f64> {
    view(s, rows, cols).to_owned()
}

/// A faer view of a row-major slice (no copy).
pub(crate) fn view(s: &[f64], rows: usize, cols: usize) -> MatRef<'_, f64> {
    MatRef::from_row_major_slice(s, rows, cols)
}

/// Appends a faer matrix to a row-major buffer.
pub fn push_row_major(m: MatRef<'_, f64>, out: &mut Vec<f64>) {
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(m[(i, j)]);
        }
    }
}

/// Lower Cholesky factor of one n×n matrix (row-major), or `None` if it is not positive definite.
pub(crate) fn cholesky_lower(a: &[f64], n: usize) -> Option<Mat<f64>> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch, LltRegularization};
    let mut l = to_mat(a, n, n);
    let par = par_for(n);
    let mut buf = MemBuffer::new(cholesky_in_place_scratch::<f64>(n, par, Default::default()));
    let factored =
        cholesky_in_place(l.as_mut(), LltRegularization::default(), par, MemStack::new(&mut buf), Default::default());
    clear_after(par);
    factored.ok()?;
    for i in 0..n {
        for j in i + 1..n {
            l[(i, j)] = 0.0;
        }
    }
    // insist on a finite, strictly positive diagonal.
    if (0..n).all(|i| l[(i, i)].is_finite() && l[(i, i)] > 0.0) {
        Some(l)
    } else {
        None
    }
}

/// Cholesky of a batch of n×n matrices with a jitter retry ladder.
///
/// Each matrix is first factorised as given; on failure `j·mean(diag)` is added to its diagonal
/// for `j` in `JITTER_LADDER` until one succeeds. Returns the factors (row-major, batch-major)
/// and the jitter added to each matrix.
pub fn cholesky_batch(a: &[f64], batch: usize, n: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    check_finite(&format!("cholesky input ({n}x{n})"), a)?;
    let mut out = Vec::with_capacity(batch * n * n);
    let mut jitters = Vec::with_capacity(batch);
    for b in 0..batch {
        match cholesky_with_ladder(&a[b * n * n..(b + 1) * n * n], n, &JITTER_LADDER) {
            Ok((l, jitter)) => {
                push_row_major(l.as_ref(), &mut out);
                jitters.push(jitter);
            }
            Err(jitter) => return Err(Error::NotPositiveDefinite { n, jitter, batch: b }),
        }
    }
    Ok((out, jitters))
}

/// Inverse of each lower-triangular n×n matrix in a batch (row-major in, row-major out).
pub(crate) fn invert_lower_batch(l: &[f64], batch: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(batch * n * n);
    let mut dst = Mat::<f64>::zeros(n, n);
    let par = par_for(n);
    for b in 0..batch {
        let src = view(&l[b * n * n..(b + 1) * n * n], n, n);
        dst.fill(0.0);
        faer::linalg::triangular_inverse::invert_lower_triangular(dst.as_mut(), src, par);
        push_row_major(dst.as_ref(), &mut out);
    }
    clear_after(par);
    out
}

/// `(LLᵀ)⁻¹ = L⁻ᵀL⁻¹` for one lower-triangular `L` (full symmetric result): the triangular inverse,
/// then the upper × lower product formed in its lower half only, about `n³/3` flops in all.
pub(crate) fn inverse_from_cholesky(l: MatRef<'_, f64>) -> Mat<f64> {
    let n = l.nrows();
    let par = par_for(n);
    let mut w = Mat::<f64>::zeros(n, n);
    faer::linalg::triangular_inverse::invert_lower_triangular(w.as_mut(), l, par);
    let mut out = Mat::<f64>::zeros(n, n);
    tri::matmul(out.as_mut(), Lower, Replace, w.transpose(), Upper, w.as_ref(), Lower, 1.0, par);
    clear_after(par);
    for i in 0..n {
        for j in i + 1..n {
            out[(i, j)] = out[(j, i)];
        }
    }
    out
}

/// Solves `op(L) X = B`, or `X op(L) = B` if `right`, for each lower-triangular n×n `L` of a
/// batch and its `rows × cols` right-hand side `B` (row-major in and out), where `op(L) = Lᵀ` if
/// `transpose`: faer's blocked triangular solve, half the flops of forming `L⁻¹` and multiplying.
/// A right solve works on the column-major view `Xᵀ` of the row-major buffer, so it copies nothing.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_lower_batch(
    l: &[f64],
    b: &[f64],
    batch: usize,
    n: usize,
    (rows, cols): (usize, usize),
    transpose: bool,
    right: bool,
) -> Vec<f64> {
    use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
    let mut out = b.to_vec();
    let par = if n * rows * cols >= 1 << 22 { Par::rayon(0) } else { Par::Seq };
    for (i, x) in out.chunks_exact_mut((rows * cols).max(1)).enumerate().take(batch) {
        let lm = view(&l[i * n * n..(i + 1) * n * n], n, n);
        let x = faer::MatMut::from_row_major_slice_mut(x, rows, cols);
        // left: op(L) X = B; right: op(L)ᵀ Xᵀ = Bᵀ. The system matrix is L or Lᵀ.
        let (x, system_is_lower) = if right { (x.transpose_mut(), transpose) } else { (x, !transpose) };
        if system_is_lower {
            solve_lower_triangular_in_place(lm, x, par);
        } else {
            solve_upper_triangular_in_place(lm.transpose(), x, par);
        }
    }
    clear_after(par);
    out
}

/// faer's `matmul` (`dst ← accum(dst, alpha · a · b)`), then [`clear_after`]: the form the
/// crate's host code multiplies faer matrices in.
pub(crate) fn matmul_into(
    dst: MatMut<'_, f64>,
    accum: Accum,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    alpha: f64,
    par: Par,
) {
    faer::linalg::matmul::matmul(dst, accum, a, b, alpha, par);
    clear_after(par);
}

/// faer's `solve_lower_triangular_in_place` (`x ← L⁻¹x` for lower-triangular `l`), then
/// [`clear_after`].
pub(crate) fn solve_lower_in_place(l: MatRef<'_, f64>, x: MatMut<'_, f64>, par: Par) {
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, x, par);
    clear_after(par);
}

/// faer's `solve_upper_triangular_in_place` (`x ← U⁻¹x` for upper-triangular `u`), then
/// [`clear_after`].
pub(crate) fn solve_upper_in_place(u: MatRef<'_, f64>, x: MatMut<'_, f64>, par: Par) {
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(u, x, par);
    clear_after(par);
}

/// A row-major matrix operand of [`matmul`], used transposed if `transpose`.
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    /// Row-major values.
    pub data: &'a [f64],
    /// Stored rows.
    pub rows: usize,
    /// Stored columns.
    pub cols: usize,
    /// Use the transpose.
    pub transpose: bool,
}

impl<'a> Operand<'a> {
    fn mat(&self) -> MatRef<'a, f64> {
        let v = view(self.data, self.rows, self.cols);
        if self.transpose {
            v.transpose()
        } else {
            v
        }
    }
}

/// Row-major product `op(a) · op(b)`; returns the values and the result's `(rows, cols)`.
/// Panics if the inner dimensions differ (callers check shapes first).
pub fn matmul(a: Operand<'_>, b: Operand<'_>) -> (Vec<f64>, usize, usize) {
    let (lhs, rhs) = (a.mat(), b.mat());
    let (n, k, m) = (lhs.nrows(), lhs.ncols(), rhs.ncols());
    let par = if n * k * m >= 1 << 24 { Par::rayon(0) } else { Par::Seq };
    let mut out = vec![0.0; n * m];
    matmul_into(faer::MatMut::from_row_major_slice_mut(&mut out, n, m), Replace, lhs, rhs, 1.0, par);
    (out, n, m)
}

/// Backward of the Cholesky factorisation for a batch.
///
/// With `P = Φ(Lᵀ tril(L̄))` (Φ: lower triangle, halved diagonal), the gradient with respect to the
/// symmetric input is `Ā = L⁻ᵀ ½(P + Pᵀ) L⁻¹` (Murray 2016, "Differentiation of the Cholesky
/// decomposition").
pub fn cholesky_backward_batch(l: &[f64], gl: &[f64], batch: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(batch * n * n);
    let par = par_for(n);
    for b in 0..batch {
        let lm = view(&l[b * n * n..(b + 1) * n * n], n, n);
        let g = view(&gl[b * n * n..(b + 1) * n * n], n, n);
        // P = tril(Lᵀ tril(Ḡ)): upper × lower, only the lower half of the result is formed.
        let mut p = Mat::<f64>::zeros(n, n);
        tri::matmul(p.as_mut(), Lower, Replace, lm.transpose(), Upper, g, Lower, 1.0, par);
        for i in 0..n {
            p[(i, i)] *= 0.5;
        }
        // S = ½(P + Pᵀ)
        let mut s = Mat::<f64>::from_fn(n, n, |i, j| 0.5 * (p[(i, j)] + p[(j, i)]));
        // X = L⁻ᵀ S  (solve Lᵀ X = S)
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(lm.transpose(), s.as_mut(), par);
        // Ā = X L⁻¹ = (L⁻ᵀ Xᵀ)ᵀ
        let mut xt = s.transpose().to_owned();
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(lm.transpose(), xt.as_mut(), par);
        push_row_major(xt.transpose(), &mut out);
    }
    clear_after(par);
    out
}

/// Backward of the lower-triangular inverse `V = L⁻¹`: `L̄ = -tril(Vᵀ V̄ Vᵀ)`.
pub(crate) fn invert_lower_backward_batch(v: &[f64], gv: &[f64], batch: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(batch * n * n);
    let par = par_for(n);
    for b in 0..batch {
        let vm = view(&v[b * n * n..(b + 1) * n * n], n, n);
        let g = view(&gv[b * n * n..(b + 1) * n * n], n, n);
        // L̄ = −tril(Vᵀ (V̄ Vᵀ)), using the triangular structure of Vᵀ and of the result.
        let mut t = Mat::<f64>::zeros(n, n);
        tri::matmul(t.as_mut(), Rect, Replace, g, Rect, vm.transpose(), Upper, 1.0, par);
        let mut r = Mat::<f64>::zeros(n, n);
        tri::matmul(r.as_mut(), Lower, Replace, vm.transpose(), Upper, t.as_ref(), Rect, -1.0, par);
        push_row_major(r.as_ref(), &mut out);
    }
    clear_after(par);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spd(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let x: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] =
                    (0..n).map(|k| x[i * n + k] * x[j * n + k]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        a
    }

    #[test]
    fn cholesky_reconstructs_input() {
        let n = 7;
        let a = spd(n, 3);
        let (l, jit) = cholesky_batch(&a, 1, n).unwrap();
        assert_eq!(jit, vec![0.0]);
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n).map(|k| l[i * n + k] * l[j * n + k]).sum();
                assert!((r - a[i * n + j]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn jitter_ladder_rescues_singular_and_rejects_indefinite() {
        // rank-1 PSD matrix: singular, fixed by jitter.
        let n = 4;
        let v = [1.0, 2.0, 3.0, 4.0];
        let a: Vec<f64> = (0..n * n).map(|k| v[k / n] * v[k % n]).collect();
        let (_, jit) = cholesky_batch(&a, 1, n).unwrap();
        assert!(jit[0] > 0.0);
        // clearly indefinite: fails with a typed error naming n.
        let b = vec![1.0, 0.0, 0.0, -5.0];
        match cholesky_batch(&b, 1, 2) {
            Err(Error::NotPositiveDefinite { n: 2, jitter, batch: 0 }) => assert!(jitter > 0.0),
            other => panic!("expected NotPositiveDefinite, got {other:?}"),
        }
        let c = vec![1.0, f64::NAN, f64::NAN, 1.0];
        assert!(matches!(cholesky_batch(&c, 1, 2), Err(Error::NonFinite { index: 1, .. })));
    }

    #[test]
    fn lower_inverse_is_inverse() {
        let n = 6;
        let a = spd(n, 9);
        let (l, _) = cholesky_batch(&a, 1, n).unwrap();
        let v = invert_lower_batch(&l, 1, n);
        for i in 0..n {
            for j in 0..n {
                let r: f64 = (0..n).map(|k| v[i * n + k] * l[k * n + j]).sum();
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((r - e).abs() < 1e-12, "{i},{j}: {r}");
            }
        }
    }

    #[test]
    fn inverse_from_cholesky_inverts_the_product() {
        // 200 rows: above `par_for`'s threshold too, so the pooled kernels run
        for n in [5, 200] {
            let a = spd(n, 11);
            let l = cholesky_lower(&a, n).unwrap();
            let inv = inverse_from_cholesky(l.as_ref());
            for i in 0..n {
                for j in 0..n {
                    let r: f64 = (0..n).map(|k| inv[(i, k)] * a[k * n + j]).sum();
                    let e = if i == j { 1.0 } else { 0.0 };
                    assert!((r - e).abs() < 1e-9, "n {n}, {i},{j}: {r}");
                    assert_eq!(inv[(i, j)], inv[(j, i)]);
                }
            }
        }
    }
}
