//! Principal-component projection of a row-major data matrix (host side, f64, faer's
//! self-adjoint eigendecomposition of the `d × d` sample covariance).
use faer::{Mat, Side};

use crate::error::{check_finite, Error, Result};

/// The leading `k` principal directions of `x` `[n, d]` and its column means.
#[derive(Debug, Clone)]
pub struct Pca {
    /// Input width d.
    pub input_dim: usize,
    /// Number of components k.
    pub num_components: usize,
    /// Column means `[d]`.
    pub mean: Vec<f64>,
    /// Projection `[d, k]` row-major: column j is the j-th principal direction (unit length),
    /// ordered by decreasing variance; the sign makes its largest-magnitude entry positive.
    pub components: Vec<f64>,
    /// Sample variance along each direction `[k]` (eigenvalues of the covariance, divisor n).
    pub variances: Vec<f64>,
}

impl Pca {
    /// Fits the first `k` components of `x` `[n, d]`. Typed errors: `k` outside `1..=d`,
    /// a length that is not `n·d`, no rows, non-finite values.
    pub fn fit(x: &[f64], n: usize, d: usize, k: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::Empty { context: "Pca::fit: x".into() });
        }
        if x.len() != n * d {
            return Err(Error::shape("Pca::fit: x", [n, d], [x.len()]));
        }
        if k == 0 || k > d {
            return Err(Error::invalid("num_components", format!("must be in 1..={d} (the input width), got {k}")));
        }
        check_finite("Pca::fit: x", x)?;
        let mut mean = vec![0.0; d];
        for row in x.chunks_exact(d) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        let centred = Mat::from_fn(n, d, |i, j| x[i * d + j] - mean[j]);
        let cov = centred.transpose() * &centred * faer::Scale(1.0 / n as f64);
        let evd = cov
            .self_adjoint_eigen(Side::Lower)
            .map_err(|e| Error::invalid("x", format!("eigendecomposition of the covariance failed: {e:?}")))?;
        let (u, s) = (evd.U(), evd.S());
        let mut components = vec![0.0; d * k];
        let mut variances = Vec::with_capacity(k);
        for j in 0..k {
            let col = d - 1 - j; // eigenvalues come in nondecreasing order
            variances.push(s[col].max(0.0));
            let pivot = (0..d).max_by(|&a, &b| u[(a, col)].abs().total_cmp(&u[(b, col)].abs())).unwrap_or(0);
            let sign = if u[(pivot, col)] < 0.0 { -1.0 } else { 1.0 };
            for i in 0..d {
                components[i * k + j] = sign * u[(i, col)];
            }
        }
        Ok(Self { input_dim: d, num_components: k, mean, components, variances })
    }

    /// `(x − mean) · components` `[n, k]` row-major.
    pub fn transform(&self, x: &[f64]) -> Result<Vec<f64>> {
        let (d, k) = (self.input_dim, self.num_components);
        if !x.len().is_multiple_of(d) {
            return Err(Error::shape("Pca::transform: x", format!("[n, {d}]"), [x.len()]));
        }
        let mut out = Vec::with_capacity(x.len() / d * k);
        for row in x.chunks_exact(d) {
            for j in 0..k {
                out.push((0..d).map(|i| (row[i] - self.mean[i]) * self.components[i * k + j]).sum());
            }
        }
        Ok(out)
    }

    /// The bias `−mean · components` `[k]` that makes `x W + b` equal [`Pca::transform`].
    pub fn bias(&self) -> Vec<f64> {
        let (d, k) = (self.input_dim, self.num_components);
        (0..k).map(|j| -(0..d).map(|i| self.mean[i] * self.components[i * k + j]).sum::<f64>()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_the_axis_of_largest_variance_and_centres() {
        // points on the line (t, 2t) + small noise along (2, −1): first direction ∝ (1, 2)
        let n = 50;
        let x: Vec<f64> = (0..n)
            .flat_map(|i| {
                let t = i as f64 / 10.0 - 2.5;
                let e = 0.01 * ((i * 7 % 11) as f64 - 5.0);
                [1.0 + t + 2.0 * e, -3.0 + 2.0 * t - e]
            })
            .collect();
        let pca = Pca::fit(&x, n, 2, 2).unwrap();
        let s5 = 5f64.sqrt();
        assert!((pca.components[0] - 1.0 / s5).abs() < 1e-3 && (pca.components[2] - 2.0 / s5).abs() < 1e-3);
        assert!(pca.variances[0] > 100.0 * pca.variances[1]);
        let z = pca.transform(&x).unwrap();
        let mean0 = z.chunks_exact(2).map(|r| r[0]).sum::<f64>() / n as f64;
        assert!(mean0.abs() < 1e-12);
        // x W + b equals the transform
        let b = pca.bias();
        let r0 = x[0] * pca.components[0] + x[1] * pca.components[2] + b[0];
        assert!((r0 - z[0]).abs() < 1e-12);
        // sample variance along the direction is its eigenvalue
        let var0 = z.chunks_exact(2).map(|r| r[0] * r[0]).sum::<f64>() / n as f64;
        assert!((var0 - pca.variances[0]).abs() < 1e-10 * var0);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(Pca::fit(&[1.0, 2.0], 1, 2, 3), Err(Error::InvalidArgument { .. })));
        assert!(matches!(Pca::fit(&[1.0, 2.0], 1, 2, 0), Err(Error::InvalidArgument { .. })));
        assert!(matches!(Pca::fit(&[1.0], 1, 2, 1), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(Pca::fit(&[1.0, f64::NAN], 1, 2, 1), Err(Error::NonFinite { .. })));
    }
}
