//! Genz's separation-of-variables integrand for `ln Φ_d(a; Σ)` in log space (host f64): the
//! forward pass over blocks × QMC points, its hand-written reverse pass, and the estimator.
//!
//! With `Σ = C Cᵀ` (lower `C`) and a point `w ∈ (0, 1)^{d−1}`:
//! `z_i = (a_i − Σ_{j<i} C_ij y_j) / C_ii`, `ln e_i = ln Φ(z_i)`,
//! `y_i = Φ⁻¹(w_i e_i)` (computed from `ln w_i + ln e_i`, so tiny `e_i` never underflow), and
//! `ln f(w) = Σ_i ln e_i`; `Φ_d(a; Σ) = ∫ f(w) dw`. The reverse pass uses
//! `∂ ln e_i/∂z_i = φ(z_i)/Φ(z_i)` and `∂y_i/∂ ln e_i = Φ(y_i)/φ(y_i)`.
use rayon::prelude::*;

use super::lattice::QmcPoints;
use super::reorder::{genz_order, permute};
use crate::error::{check_finite, Error, Result};
use crate::linalg::clear_current_thread;
use crate::special::{inv_mills, log_ndtr, ndtri_from_log};

/// Points handled by one parallel task.
const CHUNK: usize = 256;

/// A Monte Carlo estimate of `ln Φ_d` and its standard error (over the random shifts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MvnEstimate {
    /// `ln Φ̂`.
    pub log_p: f64,
    /// Standard error of `ln Φ̂` (delta method over the shifts; 0 for an exact value).
    pub std_err: f64,
}

/// `ln f(w)` for one block (`a` `[d]`, lower factor `l` `[d, d]`) at one point `w` (`≥ d − 1`
/// coordinates); `y` (length `≥ d`) is scratch.
fn log_integrand(a: &[f64], l: &[f64], w: &[f64], y: &mut [f64]) -> f64 {
    let d = a.len();
    let mut total = 0.0;
    for i in 0..d {
        let row = &l[i * d..i * d + i];
        let mu: f64 = row.iter().zip(&y[..i]).map(|(c, y)| c * y).sum();
        let le = log_ndtr((a[i] - mu) / l[i * d + i]);
        total += le;
        if i + 1 < d {
            y[i] = ndtri_from_log(w[i].ln() + le);
        }
    }
    total
}

/// Adds `g · ∂ ln f(w)/∂a` to `ga` and `g · ∂ ln f(w)/∂l` (lower triangle) to `gl`, recomputing
/// the forward pass; `y`, `z`, `yb` are scratch of length `d`.
#[allow(clippy::too_many_arguments)]
fn log_integrand_backward(
    a: &[f64],
    l: &[f64],
    w: &[f64],
    g: f64,
    ga: &mut [f64],
    gl: &mut [f64],
    y: &mut [f64],
    z: &mut [f64],
    yb: &mut [f64],
) {
    let d = a.len();
    for i in 0..d {
        let mu: f64 = l[i * d..i * d + i].iter().zip(&y[..i]).map(|(c, y)| c * y).sum();
        z[i] = (a[i] - mu) / l[i * d + i];
        if i + 1 < d {
            y[i] = ndtri_from_log(w[i].ln() + log_ndtr(z[i]));
        }
    }
    yb.fill(0.0);
    for i in (0..d).rev() {
        let mut le_bar = g;
        if i + 1 < d && yb[i] != 0.0 {
            le_bar += yb[i] / inv_mills(y[i]);
        }
        let z_bar = le_bar * inv_mills(z[i]);
        let lii = l[i * d + i];
        ga[i] += z_bar / lii;
        gl[i * d + i] -= z_bar * z[i] / lii;
        let mu_bar = -z_bar / lii;
        for j in 0..i {
            gl[i * d + j] += mu_bar * y[j];
            yb[j] += mu_bar * l[i * d + j];
        }
    }
}

/// Checks the shapes of a batch of `b` blocks of dimension `d` against the points.
fn check_batch(a: &[f64], l: &[f64], b: usize, d: usize, points: &QmcPoints) -> Result<()> {
    if a.len() != b * d || l.len() != b * d * d {
        return Err(Error::shape("genz integrand: a [b, d], l [b, d, d]", [b, d], [a.len(), l.len()]));
    }
    if d > 0 && points.dim() + 1 < d {
        return Err(Error::shape("genz integrand: points of dimension ≥ d − 1", d - 1, points.dim()));
    }
    Ok(())
}

/// `ln f(w_k)` for every block (`a` `[b, d]`, lower factors `l` `[b, d, d]`) and every point:
/// `[b, N]` row-major. Parallel over blocks and chunks of points.
pub(crate) fn genz_log_integrand(a: &[f64], l: &[f64], b: usize, d: usize, points: &QmcPoints) -> Result<Vec<f64>> {
    check_batch(a, l, b, d, points)?;
    let n = points.len();
    let dim = points.dim();
    let mut out = vec![0.0; b * n];
    out.par_chunks_mut(n.max(1)).enumerate().for_each(|(blk, row)| {
        let (ab, lb) = (&a[blk * d..(blk + 1) * d], &l[blk * d * d..(blk + 1) * d * d]);
        row.par_chunks_mut(CHUNK).enumerate().for_each(|(c, vals)| {
            clear_current_thread();
            let mut y = vec![0.0; d];
            for (i, v) in vals.iter_mut().enumerate() {
                let k = c * CHUNK + i;
                *v = log_integrand(ab, lb, &points.values()[k * dim..(k + 1) * dim], &mut y);
            }
        });
    });
    Ok(out)
}

/// The reverse pass of [`genz_log_integrand`]: given `g = ∂L/∂ ln f` `[b, N]`, returns
/// `(∂L/∂a [b, d], ∂L/∂l [b, d, d])` (the gradient with respect to `l` is lower triangular).
pub(crate) fn genz_log_integrand_backward(
    a: &[f64],
    l: &[f64],
    b: usize,
    d: usize,
    points: &QmcPoints,
    g: &[f64],
) -> Result<(Vec<f64>, Vec<f64>)> {
    check_batch(a, l, b, d, points)?;
    let n = points.len();
    if g.len() != b * n {
        return Err(Error::shape("genz integrand backward: upstream gradient", [b, n], [g.len()]));
    }
    let dim = points.dim();
    let per_block: Vec<(Vec<f64>, Vec<f64>)> = (0..b)
        .into_par_iter()
        .map(|blk| {
            let (ab, lb) = (&a[blk * d..(blk + 1) * d], &l[blk * d * d..(blk + 1) * d * d]);
            let gb = &g[blk * n..(blk + 1) * n];
            let chunks = n.div_ceil(CHUNK);
            (0..chunks)
                .into_par_iter()
                .map(|c| {
                    clear_current_thread();
                    let (mut ga, mut gl) = (vec![0.0; d], vec![0.0; d * d]);
                    let (mut y, mut z, mut yb) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
                    let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                    for (k, &gk) in gb.iter().enumerate().take(hi).skip(lo) {
                        if gk != 0.0 {
                            let w = &points.values()[k * dim..(k + 1) * dim];
                            log_integrand_backward(ab, lb, w, gk, &mut ga, &mut gl, &mut y, &mut z, &mut yb);
                        }
                    }
                    (ga, gl)
                })
                // Chunks are summed in their order, not by rayon's work-stealing tree, so the
                // gradient is the same bit for bit at any thread count and schedule.
                .collect::<Vec<_>>()
                .into_iter()
                .fold((vec![0.0; d], vec![0.0; d * d]), |(mut a1, mut l1), (a2, l2)| {
                    a1.iter_mut().zip(&a2).for_each(|(x, y)| *x += y);
                    l1.iter_mut().zip(&l2).for_each(|(x, y)| *x += y);
                    (a1, l1)
                })
        })
        .collect();
    let mut ga = Vec::with_capacity(b * d);
    let mut gl = Vec::with_capacity(b * d * d);
    for (x, y) in per_block {
        ga.extend(x);
        gl.extend(y);
    }
    Ok((ga, gl))
}

/// `ln mean exp(v)` of a slice (max-shifted).
pub(crate) fn log_mean_exp(v: &[f64]) -> f64 {
    crate::special::log_sum_exp(v) - (v.len() as f64).ln()
}

/// The estimate `ln mean_k f(w_k)` from the `ln f` of one block's points (grouped by shift),
/// with the standard error over shifts: `sd_m(P̂_m / P̂) / √M` (`0` with one shift).
pub(crate) fn estimate_from_log_integrand(log_f: &[f64], shifts: usize) -> MvnEstimate {
    let log_p = log_mean_exp(log_f);
    if shifts < 2 || !log_p.is_finite() {
        return MvnEstimate { log_p, std_err: 0.0 };
    }
    let per = log_f.len() / shifts;
    let ratios: Vec<f64> = log_f.chunks(per).map(|c| (log_mean_exp(c) - log_p).exp()).collect();
    MvnEstimate { log_p, std_err: crate::metrics::standard_error(&ratios).unwrap_or(0.0) }
}

/// The lower Cholesky factor of a `d × d` matrix, or [`Error::NotPositiveDefinite`] (`batch` named).
pub(crate) fn cholesky_or_error(cov: &[f64], d: usize, batch: usize) -> Result<Vec<f64>> {
    let l =
        crate::linalg::host::cholesky_lower(cov, d).ok_or(Error::NotPositiveDefinite { n: d, jitter: 0.0, batch })?;
    let mut out = Vec::with_capacity(d * d);
    crate::linalg::host::push_row_major(l.as_ref(), &mut out);
    Ok(out)
}

/// The inputs of a `ln Φ_d(a; Σ)` (`function` named in errors): `cov` must be `d × d` and finite,
/// and no upper limit NaN (infinite limits are allowed).
pub(crate) fn check_cdf_input(function: &str, a: &[f64], cov: &[f64]) -> Result<()> {
    let d = a.len();
    if cov.len() != d * d {
        return Err(Error::shape(&format!("{function}: cov"), [d, d], [cov.len()]));
    }
    check_finite(&format!("{function}: cov"), cov)?;
    if let Some(index) = a.iter().position(|v| v.is_nan()) {
        return Err(Error::NonFinite { context: format!("{function}: upper limits"), index });
    }
    Ok(())
}

/// `ln Φ_d(a; Σ)` by Genz's method: greedy reordering, Cholesky, the log integrand at every
/// point of `points` (dimension `≥ d − 1`) and log-mean-exp; the standard error is over the
/// shifts. `cov` is row-major `d × d` and must be positive definite (no jitter is added).
pub fn genz_log_cdf(a: &[f64], cov: &[f64], points: &QmcPoints) -> Result<MvnEstimate> {
    check_cdf_input("genz_log_cdf", a, cov)?;
    let d = a.len();
    if d == 0 {
        return Ok(MvnEstimate { log_p: 0.0, std_err: 0.0 });
    }
    let perm = genz_order(a, cov);
    let (pa, pc) = permute(a, cov, &perm);
    let l = cholesky_or_error(&pc, d, 0)?;
    let log_f = genz_log_integrand(&pa, &l, 1, d, points)?;
    Ok(estimate_from_log_integrand(&log_f, points.shifts()))
}

/// Upper limits beyond this many marginal standard deviations make a variable negligible:
/// dropping it changes `Φ` by at most `Φ(−37) ≈ 5.7e-300` per variable (Bonferroni).
pub(crate) const NEGLIGIBLE_SD: f64 = 37.0;

/// The variables of `Φ_d(a; Σ)` that matter, grouped into mutually independent sets (connected
/// components of the non-zero pattern of `Σ`), each sorted; variables with
/// `a_i ≥ 37 √Σ_ii` are left out (see `NEGLIGIBLE_SD`). `Φ_d` is the product over the groups.
pub fn independent_groups(a: &[f64], cov: &[f64]) -> Vec<Vec<usize>> {
    let d = a.len();
    let keep: Vec<bool> = (0..d).map(|i| a[i] < NEGLIGIBLE_SD * cov[i * d + i].sqrt()).collect();
    let mut group = vec![usize::MAX; d];
    let mut groups = Vec::new();
    for start in 0..d {
        if !keep[start] || group[start] != usize::MAX {
            continue;
        }
        let id = groups.len();
        let mut members = vec![start];
        group[start] = id;
        let mut k = 0;
        while k < members.len() {
            let i = members[k];
            for j in 0..d {
                if keep[j] && group[j] == usize::MAX && cov[i * d + j] != 0.0 {
                    group[j] = id;
                    members.push(j);
                }
            }
            k += 1;
        }
        members.sort_unstable();
        groups.push(members);
    }
    groups
}

/// `ln Φ_d(a; Σ)`: negligible variables dropped, the rest split into independent groups
/// ([`independent_groups`]), each exact (deterministic quadrature) for up to three variables and
/// [`genz_log_cdf`] beyond; standard errors add in quadrature.
pub fn log_mvn_cdf(a: &[f64], cov: &[f64], points: &QmcPoints) -> Result<MvnEstimate> {
    check_cdf_input("log_mvn_cdf", a, cov)?;
    let mut total = MvnEstimate { log_p: 0.0, std_err: 0.0 };
    for idx in independent_groups(a, cov) {
        let (ga, gc) = permute(a, cov, &idx);
        let est = match super::low_dim::log_mvn_cdf_exact(&ga, &gc)? {
            Some(log_p) => MvnEstimate { log_p, std_err: 0.0 },
            None => genz_log_cdf(&ga, &gc, points)?,
        };
        total.log_p += est.log_p;
        total.std_err = total.std_err.hypot(est.std_err);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backward_matches_finite_differences() {
        let d = 4;
        let a = [0.3, -0.5, 1.2, 0.1];
        let l = [1.1, 0.0, 0.0, 0.0, 0.3, 0.9, 0.0, 0.0, -0.2, 0.4, 1.3, 0.0, 0.5, -0.1, 0.2, 0.8];
        let pts = QmcPoints::lattice(3, 16, 1, 3).unwrap();
        let g: Vec<f64> = (0..16).map(|k| 0.1 + 0.05 * k as f64).collect();
        let total = |a: &[f64], l: &[f64]| -> f64 {
            genz_log_integrand(a, l, 1, d, &pts).unwrap().iter().zip(&g).map(|(f, g)| f * g).sum()
        };
        let (ga, gl) = genz_log_integrand_backward(&a, &l, 1, d, &pts, &g).unwrap();
        let h = 1e-6;
        for i in 0..d {
            let (mut p, mut m) = (a.to_vec(), a.to_vec());
            p[i] += h;
            m[i] -= h;
            let fd = (total(&p, &l) - total(&m, &l)) / (2.0 * h);
            assert!((fd - ga[i]).abs() < 1e-7 * fd.abs().max(1.0), "a[{i}]: {fd} vs {}", ga[i]);
        }
        for k in 0..d * d {
            if k % d > k / d {
                assert_eq!(gl[k], 0.0);
                continue;
            }
            let (mut p, mut m) = (l.to_vec(), l.to_vec());
            p[k] += h;
            m[k] -= h;
            let fd = (total(&a, &p) - total(&a, &m)) / (2.0 * h);
            assert!((fd - gl[k]).abs() < 1e-7 * fd.abs().max(1.0), "l[{k}]: {fd} vs {}", gl[k]);
        }
    }
}
