//! Triangular inverse and triangular / Cholesky solves.
use burn::backend::Dispatch;
use burn::tensor::Tensor;

use super::ops::GpLinalgOps;
use super::product::batched_matmul;
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
/// The triangular inverse is formed on the host (n×n) and applied by the backend's matmul, so on a
/// GPU the n×k work stays on the device.
pub fn solve_triangular<const D: usize>(
    t: Tensor<D>,
    b: Tensor<D>,
    triangle: Triangle,
    transpose: bool,
) -> Result<Tensor<D>> {
    check_solve_shapes("solve_triangular", &t.dims(), &b.dims())?;
    // For upper U, U⁻¹ = (Uᵀ)⁻ᵀ with Uᵀ lower.
    let (lower, flip) = match triangle {
        Triangle::Lower => (t, false),
        Triangle::Upper => (t.swap_dims(D - 2, D - 1), true),
    };
    let inv_lower = tri_inverse(lower);
    // inverse of T: lower case V, upper case Vᵀ; apply op(T)⁻¹.
    let transpose_inverse = flip != transpose;
    let op_inv = if transpose_inverse { inv_lower.swap_dims(D - 2, D - 1) } else { inv_lower };
    Ok(product(op_inv, b))
}

/// `a · b` with faer on CPU backends when the batch dims agree, else Burn's broadcasting matmul.
fn product<const D: usize>(a: Tensor<D>, b: Tensor<D>) -> Tensor<D> {
    if a.dims()[..D - 2] == b.dims()[..D - 2] {
        // Shapes were checked by the caller, so the product cannot fail.
        batched_matmul(a, b, false, false).expect("shapes checked by check_solve_shapes")
    } else {
        a.matmul(b)
    }
}

/// Solves `A X = B` given the lower Cholesky factor `L` of `A`: `X = L⁻ᵀ L⁻¹ B`; differentiable.
pub fn cholesky_solve<const D: usize>(l: Tensor<D>, b: Tensor<D>) -> Result<Tensor<D>> {
    check_solve_shapes("cholesky_solve", &l.dims(), &b.dims())?;
    let v = tri_inverse(l);
    let vb = product(v.clone(), b);
    Ok(product(v.swap_dims(D - 2, D - 1), vb))
}
