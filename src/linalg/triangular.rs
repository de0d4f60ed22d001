//! Triangular inverse and triangular / Cholesky solves.
use burn::backend::Dispatch;
use burn::tensor::Tensor;

use super::ops::GpLinalgOps;
use crate::error::{Error, Result};

/// Which triangle of the coefficient matrix holds the factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Triangle {
    /// Lower triangular.
    Lower,
    /// Upper triangular.
    Upper,
}

/// Inverse of a batch `[..., n, n]` of lower-triangular matrices; differentiable.
pub fn tri_inverse<const D: usize>(l: Tensor<D>) -> Tensor<D> {
    Tensor::from_dispatch(Dispatch::tri_inverse(l.into_dispatch()))
}

fn check_solve_shapes(ctx: &str, a: &[usize], b: &[usize]) -> Result<()> {
    let d = a.len();
    if a[d - 1] != a[d - 2] {
        return Err(Error::shape(ctx, "square coefficient matrices [..., n, n]", a));
    }
    if b[d - 2] != a[d - 1] {
        return Err(Error::shape(ctx, format!("right-hand side with {} rows", a[d - 1]), b));
    }
    let batch_ok = a[..d - 2].iter().zip(&b[..d - 2]).all(|(x, y)| x == y || *x == 1 || *y == 1);
    if !batch_ok {
        return Err(Error::shape(ctx, a, b));
    }
    Ok(())
}

/// Solves `op(T) X = B` for a triangular `T` `[..., n, n]` and many right-hand sides
/// `B` `[..., n, k]`, where `op(T) = Tᵀ` if `transpose`; differentiable in `T` and `B`.
///
/// With equal batch dims this is one custom op (faer's triangular solve on CPU backends; on GPU
/// backends the host-formed inverse applied by the device's matmul, so the n×k work stays on the
/// device), whose backward is two more solves' worth of work; a broadcast batch falls back to the
/// triangular inverse and Burn's broadcasting matmul.
pub fn solve_triangular<const D: usize>(
    t: Tensor<D>,
    b: Tensor<D>,
    triangle: Triangle,
    transpose: bool,
) -> Result<Tensor<D>> {
    check_solve_shapes("solve_triangular", &t.dims(), &b.dims())?;
    // For upper U = Lᵀ with L lower: op(U) = Lᵀ when not transposed, L when transposed.
    let (lower, flip) = match triangle {
        Triangle::Lower => (t, false),
        Triangle::Upper => (t.swap_dims(D - 2, D - 1), true),
    };
    Ok(lower_solve(lower, b, flip != transpose))
}

/// `op(L)⁻¹ B` for lower `L` (shapes checked by the caller).
fn lower_solve<const D: usize>(l: Tensor<D>, b: Tensor<D>, transpose: bool) -> Tensor<D> {
    if l.dims()[..D - 2] == b.dims()[..D - 2] {
        Tensor::from_dispatch(Dispatch::tri_solve(l.into_dispatch(), b.into_dispatch(), transpose, false))
    } else {
        let inv = tri_inverse(l);
        let op_inv = if transpose { inv.swap_dims(D - 2, D - 1) } else { inv };
        op_inv.matmul(b)
    }
}

/// Solves `X op(L) = B` for lower-triangular `L` `[n, n]` and `B` `[k, n]`, `op(L) = Lᵀ` if
/// `transpose`; differentiable. `B L⁻ᵀ` without transposing anything: the row-major `[k, n]`
/// layout that the SVGP conditional reduces over.
pub(crate) fn solve_lower_right(l: Tensor<2>, b: Tensor<2>, transpose: bool) -> Result<Tensor<2>> {
    let (ld, bd) = (l.dims(), b.dims());
    if ld[0] != ld[1] || bd[1] != ld[0] {
        return Err(Error::shape("solve_lower_right: L [n, n], B [k, n]", ld, bd));
    }
    Ok(Tensor::from_dispatch(Dispatch::tri_solve(l.into_dispatch(), b.into_dispatch(), transpose, true)))
}

/// Solves `A X = B` given the lower Cholesky factor `L` of `A`: `X = L⁻ᵀ L⁻¹ B`; differentiable.
pub fn cholesky_solve<const D: usize>(l: Tensor<D>, b: Tensor<D>) -> Result<Tensor<D>> {
    check_solve_shapes("cholesky_solve", &l.dims(), &b.dims())?;
    let y = lower_solve(l.clone(), b, false);
    Ok(lower_solve(l, y, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::{Device, TensorData};

    fn lcg(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
            })
            .collect()
    }

    /// `Σ W ⊙ X` for `X op(L) = B` with `L = tril(P₁) + 1.5 I` (`P₁` the first n² parameters) and
    /// `B` the next k·n, as tensor ops from the parameter vector `p` (so gradients reach it).
    fn loss(p: Tensor<1>, n: usize, k: usize, transpose: bool, w: &[f64], device: &Device) -> Tensor<1> {
        let t = |v: Vec<f64>, r: usize, c: usize| Tensor::<2>::from_data(TensorData::new(v, [r, c]), device);
        let tril = t((0..n * n).map(|q| if q / n >= q % n { 1.0 } else { 0.0 }).collect(), n, n);
        let l = p.clone().slice(0..n * n).reshape([n, n]) * tril + Tensor::<2>::eye(n, device).mul_scalar(1.5);
        let b = p.slice(n * n..n * n + k * n).reshape([k, n]);
        (solve_lower_right(l, b, transpose).unwrap() * t(w.to_vec(), k, n)).sum()
    }

    #[test]
    fn right_solve_inverts_its_product_and_its_gradient_matches_finite_differences() {
        let device = crate::device::default_device().unwrap();
        if crate::device::precision(&device) != crate::device::Precision::F64 {
            return;
        }
        let (n, k) = (5, 3);
        let vec1 = |v: &[f64], d: &Device| Tensor::<1>::from_data(TensorData::new(v.to_vec(), [v.len()]), d);
        for transpose in [false, true] {
            // X op(L) = B: multiplying back gives B.
            let lv: Vec<f64> =
                lcg(n * n, 3).iter().enumerate().map(|(q, v)| if q / n > q % n { *v } else { 0.0 }).collect();
            let l = Tensor::<2>::from_data(TensorData::new(lv, [n, n]), &device)
                + Tensor::<2>::eye(n, &device).mul_scalar(1.5);
            let bv = lcg(k * n, 4);
            let b = Tensor::<2>::from_data(TensorData::new(bv.clone(), [k, n]), &device);
            let x = solve_lower_right(l.clone(), b, transpose).unwrap();
            let op_l = if transpose { l.transpose() } else { l };
            let back = crate::tensors::to_vec(x.matmul(op_l));
            assert!(back.iter().zip(&bv).all(|(a, b)| (a - b).abs() < 1e-12), "transpose={transpose}");
            // gradient with respect to L (its lower triangle) and B against central differences
            let p = lcg(n * n + k * n, 5);
            let w = lcg(k * n, 6);
            let ad = device.clone().autodiff();
            let pt = vec1(&p, &ad).require_grad();
            let grads = loss(pt.clone(), n, k, transpose, &w, &ad).backward();
            let auto = crate::tensors::to_vec(pt.grad(&grads).unwrap());
            let f = |v: &[f64]| crate::tensors::to_vec(loss(vec1(v, &device), n, k, transpose, &w, &device))[0];
            for q in 0..p.len() {
                let (mut up, mut down) = (p.clone(), p.clone());
                up[q] += 1e-6;
                down[q] -= 1e-6;
                let fd = (f(&up) - f(&down)) / 2e-6;
                assert!(
                    (auto[q] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                    "transpose={transpose} p{q}: {} vs {fd}",
                    auto[q]
                );
            }
        }
    }
}
