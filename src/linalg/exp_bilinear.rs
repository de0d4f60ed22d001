//! The fused contraction `out[g, b, p] = Σ_{m, m'} exp(u_gbm · v_gbm') w[g, p, m, m']` and its
//! gradient, without ever storing the `[G, B, M, M]` matrix `exp(u vᵀ)`, for symmetric `u vᵀ` and
//! symmetric `w` (only the upper triangles are visited: half the work).
//!
//! This is the deep GP's ψ2 step (`⟨ψ2, WᵀW⟩` and `Aᵀψ2A` for a Gaussian input, where
//! `log ψ2 = u vᵀ` with augmented rows): as separate tensor ops it is a batched matmul, an
//! elementwise exp and a matmul against the flattened weights, each writing and re-reading a
//! `[G, B, M, M]` buffer, and their backward passes do it again. Here each `(g, b)` block is
//! formed a row at a time and reduced while it is in cache; the backward pass recomputes it. The
//! differentiable tensor op over these kernels is [`super::exp_bilinear_contract`].
use crate::special::{exp_in_place, madd};

/// Block sizes of one contraction: `g` groups, `b` rows per group, `m` points, `k` features per
/// point, `p` weight matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExpBilinearDims {
    /// Groups (independent GP functions).
    pub g: usize,
    /// Rows per group (data points).
    pub b: usize,
    /// Points per row (inducing points).
    pub m: usize,
    /// Features per point.
    pub k: usize,
    /// Weight matrices.
    pub p: usize,
}

/// `vᵀ` of one `(g, b)` block: `[K, M]`, so that the inner loop over `m'` runs on contiguous memory.
fn transpose_block(v: &[f64], m: usize, k: usize, out: &mut [f64]) {
    for i in 0..m {
        for j in 0..k {
            out[j * m + i] = v[i * k + j];
        }
    }
}

/// `Σ_j a_j b_j` with eight independent partial sums, so that it vectorises (a single running sum
/// would fix the order of the additions and keep the loop scalar).
#[inline(always)]
fn dot<const FMA: bool>(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] = madd::<FMA>(x[l], y[l], acc[l]);
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f64>() + tail
}

/// `y += α x`.
#[inline(always)]
fn axpy<const FMA: bool>(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi = madd::<FMA>(alpha, xi, *yi);
    }
}

/// Columns `i..M` of row `i` of `exp(u vᵀ)` for one block into `row` (`M − i` long; `vt` is `vᵀ`
/// `[K, M]`).
#[inline(always)]
fn exp_row<const FMA: bool>(u_row: &[f64], vt: &[f64], m: usize, i: usize, row: &mut [f64]) {
    row.fill(0.0);
    for (c, &uc) in u_row.iter().enumerate() {
        axpy::<FMA>(uc, &vt[c * m + i..(c + 1) * m], row);
    }
    exp_in_place::<FMA>(row);
}

/// Calls `$imp::<FMA>($args)` compiled for the widest vector unit this CPU has (AVX-512, else
/// AVX2 + FMA, else the baseline target), so that the exp and dot-product loops vectorise.
macro_rules! dispatch_simd {
    ($imp:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx2,fma")]
            fn wide<T>(f: impl FnOnce() -> T) -> T {
                f()
            }
            #[target_feature(enable = "avx2,fma")]
            fn narrow<T>(f: impl FnOnce() -> T) -> T {
                f()
            }
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx2") && has!("fma") {
                // SAFETY: the target features were detected on this CPU just above.
                return unsafe { wide(|| $imp::<true>($($arg),*)) };
            }
            if has!("avx2") && has!("fma") {
                // SAFETY: as above.
                return unsafe { narrow(|| $imp::<true>($($arg),*)) };
            }
        }
        $imp::<false>($($arg),*)
    }};
}

/// Length of the cache of one contraction: the upper triangle of every `(g, b)` block of
/// `exp(u vᵀ)`, row by row.
pub(crate) fn exp_bilinear_cache_len(d: ExpBilinearDims) -> usize {
    d.g * d.b * d.m * (d.m + 1) / 2
}

/// Offset of row `i` of one block's upper triangle in the cache (rows `i..M` long).
fn cache_row(m: usize, i: usize) -> usize {
    // Σ_{r<i} (m − r)
    i * m - i * i.saturating_sub(1) / 2
}

/// Forward pass on row-major host buffers: `out` `[G, B, P]`.
pub(crate) fn exp_bilinear_forward(u: &[f64], v: &[f64], w: &[f64], d: ExpBilinearDims) -> Vec<f64> {
    forward_dispatch(u, v, w, d, None)
}

fn forward_dispatch(u: &[f64], v: &[f64], w: &[f64], d: ExpBilinearDims, cache: Option<&mut [f64]>) -> Vec<f64> {
    dispatch_simd!(forward_impl(u, v, w, d, cache))
}

/// [`exp_bilinear_forward`] that also returns the upper triangles of `exp(u vᵀ)` (of length
/// [`exp_bilinear_cache_len`]) for [`exp_bilinear_backward_cached`].
pub(crate) fn exp_bilinear_forward_cached(u: &[f64], v: &[f64], w: &[f64], d: ExpBilinearDims) -> (Vec<f64>, Vec<f64>) {
    let mut cache = vec![0.0; exp_bilinear_cache_len(d)];
    let out = forward_dispatch(u, v, w, d, Some(&mut cache));
    (out, cache)
}

#[inline(always)]
fn forward_impl<const FMA: bool>(
    u: &[f64],
    v: &[f64],
    w: &[f64],
    d: ExpBilinearDims,
    mut cache: Option<&mut [f64]>,
) -> Vec<f64> {
    let ExpBilinearDims { g, b, m, k, p } = d;
    let tri = m * (m + 1) / 2;
    let mut out = vec![0.0; g * b * p];
    let mut vt = vec![0.0; k * m];
    let mut row = vec![0.0; m];
    for gi in 0..g {
        let wg = &w[gi * p * m * m..(gi + 1) * p * m * m];
        for bi in 0..b {
            let blk = (gi * b + bi) * m * k;
            transpose_block(&v[blk..blk + m * k], m, k, &mut vt);
            let o = &mut out[(gi * b + bi) * p..(gi * b + bi + 1) * p];
            for i in 0..m {
                let row = &mut row[..m - i];
                exp_row::<FMA>(&u[blk + i * k..blk + (i + 1) * k], &vt, m, i, row);
                if let Some(c) = cache.as_deref_mut() {
                    let at = (gi * b + bi) * tri + cache_row(m, i);
                    c[at..at + m - i].copy_from_slice(row);
                }
                for (pi, op) in o.iter_mut().enumerate() {
                    let w_row = &wg[(pi * m + i) * m + i..(pi * m + i + 1) * m];
                    *op += 2.0 * dot::<FMA>(row, w_row) - row[0] * w_row[0];
                }
            }
        }
    }
    out
}

/// Backward pass: given the upstream gradient `gout` `[G, B, P]`, the gradients of `u`, `v`
/// (`[G, B, M, K]`) and `w` (`[G, P, M, M]`).
///
/// With `E = exp(u vᵀ)` and `S = c ∘ E ∘ Σ_p gout_p w_p` on the upper triangle of each block
/// (`c` = 1 on the diagonal, 2 above): `ū = S v`, `v̄ = Sᵀ u`, and `w̄_p = Σ_b gout_bp E_b`.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn exp_bilinear_backward(
    u: &[f64],
    v: &[f64],
    w: &[f64],
    gout: &[f64],
    d: ExpBilinearDims,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    dispatch_simd!(backward_impl(u, v, w, gout, d, None))
}

/// [`exp_bilinear_backward`] reading `exp(u vᵀ)` from the forward pass's cache instead of
/// recomputing it.
pub(crate) fn exp_bilinear_backward_cached(
    u: &[f64],
    v: &[f64],
    w: &[f64],
    gout: &[f64],
    cache: &[f64],
    d: ExpBilinearDims,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    dispatch_simd!(backward_impl(u, v, w, gout, d, Some(cache)))
}

#[inline(always)]
fn backward_impl<const FMA: bool>(
    u: &[f64],
    v: &[f64],
    w: &[f64],
    gout: &[f64],
    d: ExpBilinearDims,
    cache: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let ExpBilinearDims { g, b, m, k, p } = d;
    let tri = m * (m + 1) / 2;
    let mut gu = vec![0.0; g * b * m * k];
    let mut gv = vec![0.0; g * b * m * k];
    let mut gw = vec![0.0; g * p * m * m];
    let mut vt = vec![0.0; k * m];
    let mut gvt = vec![0.0; k * m];
    let mut row = vec![0.0; m];
    let mut s = vec![0.0; m];
    for gi in 0..g {
        let wg = &w[gi * p * m * m..(gi + 1) * p * m * m];
        let gwg = &mut gw[gi * p * m * m..(gi + 1) * p * m * m];
        for bi in 0..b {
            let blk = (gi * b + bi) * m * k;
            transpose_block(&v[blk..blk + m * k], m, k, &mut vt);
            gvt.fill(0.0);
            let go = &gout[(gi * b + bi) * p..(gi * b + bi + 1) * p];
            for i in 0..m {
                let u_row = &u[blk + i * k..blk + (i + 1) * k];
                let (row, s) = (&mut row[..m - i], &mut s[..m - i]);
                match cache {
                    Some(c) => {
                        let at = (gi * b + bi) * tri + cache_row(m, i);
                        row.copy_from_slice(&c[at..at + m - i]);
                    }
                    None => exp_row::<FMA>(u_row, &vt, m, i, row),
                }
                s.fill(0.0);
                for (pi, &gp) in go.iter().enumerate() {
                    let at = (pi * m + i) * m + i;
                    axpy::<FMA>(gp, &wg[at..at + m - i], s);
                    axpy::<FMA>(gp, row, &mut gwg[at..at + m - i]);
                }
                // S_ij = c_ij E_ij Σ_p g_p w_pij with c = 1 on the diagonal, 2 above it
                for (sj, &e) in s.iter_mut().zip(row.iter()) {
                    *sj *= 2.0 * e;
                }
                s[0] *= 0.5;
                // ū_i = Σ_{j≥i} S_ij v_j ;  v̄_j += S_ij u_i
                let gu_row = &mut gu[blk + i * k..blk + (i + 1) * k];
                for (c, guc) in gu_row.iter_mut().enumerate() {
                    *guc = dot::<FMA>(s, &vt[c * m + i..(c + 1) * m]);
                    axpy::<FMA>(u_row[c], s, &mut gvt[c * m + i..(c + 1) * m]);
                }
            }
            let gv_blk = &mut gv[blk..blk + m * k];
            for i in 0..m {
                for c in 0..k {
                    gv_blk[i * k + c] = gvt[c * m + i];
                }
            }
        }
    }
    // w̄ is symmetric (the gradient of Σ e_mm' w_mm' over the full matrix): mirror the upper triangle
    for block in gw.chunks_exact_mut(m * m) {
        for i in 0..m {
            for j in 0..i {
                block[i * m + j] = block[j * m + i];
            }
        }
    }
    (gu, gv, gw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(n: usize, seed: u64, scale: f64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                scale * (((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5)
            })
            .collect()
    }

    /// Symmetric operands from free parameters: `u = [x, q, 1]`, `v = [x, 1, q]` (so
    /// `u_i·v_j = x_i·x_j + q_i + q_j`) and `w = ω + ωᵀ`.
    fn symmetric(x: &[f64], q: &[f64], omega: &[f64], d: ExpBilinearDims) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let kx = d.k - 2;
        let rows = d.g * d.b * d.m;
        let (mut u, mut v) = (Vec::with_capacity(rows * d.k), Vec::with_capacity(rows * d.k));
        for r in 0..rows {
            u.extend_from_slice(&x[r * kx..(r + 1) * kx]);
            v.extend_from_slice(&x[r * kx..(r + 1) * kx]);
            u.extend_from_slice(&[q[r], 1.0]);
            v.extend_from_slice(&[1.0, q[r]]);
        }
        let mut w = omega.to_vec();
        for (blk, om) in w.chunks_exact_mut(d.m * d.m).zip(omega.chunks_exact(d.m * d.m)) {
            for i in 0..d.m {
                for j in 0..d.m {
                    blk[i * d.m + j] = om[i * d.m + j] + om[j * d.m + i];
                }
            }
        }
        (u, v, w)
    }

    /// Forward against the full double sum, and the chain-ruled backward against central
    /// differences in the free parameters of [`symmetric`], on host buffers.
    #[test]
    fn matches_full_sum_and_central_differences() {
        let d = ExpBilinearDims { g: 2, b: 3, m: 11, k: 4, p: 2 };
        let (kx, rows) = (d.k - 2, d.g * d.b * d.m);
        let (x, q, omega) = (lcg(rows * kx, 1, 1.2), lcg(rows, 2, 1.0), lcg(d.g * d.p * d.m * d.m, 3, 2.0));
        let gout = lcg(d.g * d.b * d.p, 4, 2.0);
        let (u, v, w) = symmetric(&x, &q, &omega, d);
        // the full double sum
        let out = exp_bilinear_forward(&u, &v, &w, d);
        for (gb, o) in out.chunks_exact(d.p).enumerate() {
            let gi = gb / d.b;
            for (pi, &val) in o.iter().enumerate() {
                let mut full = 0.0;
                for i in 0..d.m {
                    for j in 0..d.m {
                        let l: f64 = (0..d.k).map(|c| u[(gb * d.m + i) * d.k + c] * v[(gb * d.m + j) * d.k + c]).sum();
                        full += l.exp() * w[((gi * d.p + pi) * d.m + i) * d.m + j];
                    }
                }
                assert!((val - full).abs() <= 1e-13 * full.abs().max(1.0), "{val} vs {full}");
            }
        }
        let f = |x: &[f64], q: &[f64], omega: &[f64]| -> f64 {
            let (u, v, w) = symmetric(x, q, omega, d);
            exp_bilinear_forward(&u, &v, &w, d).iter().zip(&gout).map(|(a, b)| a * b).sum()
        };
        let (gu, gv, gw) = exp_bilinear_backward(&u, &v, &w, &gout, d);
        // the cached path (forward keeps exp(u vᵀ)) gives the same values and gradients
        let (out_c, cache) = exp_bilinear_forward_cached(&u, &v, &w, d);
        assert_eq!(out_c, out);
        assert_eq!(exp_bilinear_backward_cached(&u, &v, &w, &gout, &cache, d), (gu.clone(), gv.clone(), gw.clone()));
        let mut gx = vec![0.0; rows * kx];
        let mut gq = vec![0.0; rows];
        for r in 0..rows {
            for c in 0..kx {
                gx[r * kx + c] = gu[r * d.k + c] + gv[r * d.k + c];
            }
            gq[r] = gu[r * d.k + kx] + gv[r * d.k + kx + 1];
        }
        let mut gomega = gw.clone();
        for (blk, g) in gomega.chunks_exact_mut(d.m * d.m).zip(gw.chunks_exact(d.m * d.m)) {
            for i in 0..d.m {
                for j in 0..d.m {
                    blk[i * d.m + j] = g[i * d.m + j] + g[j * d.m + i];
                }
            }
        }
        let h = 1e-6;
        let mut args = [x.clone(), q.clone(), omega.clone()];
        for (which, grad) in [&gx, &gq, &gomega].into_iter().enumerate() {
            for (i, &g) in grad.iter().enumerate() {
                args[which][i] += h;
                let up = f(&args[0], &args[1], &args[2]);
                args[which][i] -= 2.0 * h;
                let down = f(&args[0], &args[1], &args[2]);
                args[which][i] += h;
                let num = (up - down) / (2.0 * h);
                assert!((g - num).abs() <= 1e-6 * (1.0 + num.abs()), "operand {which} index {i}: {g} vs {num}");
            }
        }
    }
}
