//! Differentiable multivariate normal log-CDFs on Burn tensors: Genz's estimator batched over
//! blocks, and the deterministic bivariate one.
use burn::backend::Dispatch;
use burn::tensor::{Int, Tensor, TensorData};

use super::genz::estimate_from_log_integrand;
use super::lattice::QmcPoints;
use super::ops::GpMvnOps;
use super::reorder::genz_order;
use crate::error::{Error, Result};
use crate::linalg::cholesky;
use crate::special::tensor::log_sum_exp_dim;
use crate::tensors::to_vec;

/// Genz estimates `ln Φ̂_d(a_i; Σ_i)` of a batch of blocks.
#[derive(Debug)]
pub struct LogMvnCdf {
    /// `ln Φ̂` per block `[b]` (differentiable in the limits and covariances).
    pub log_p: Tensor<1>,
    /// Standard error of each `ln Φ̂` over the QMC shifts (detached, host).
    pub std_err: Vec<f64>,
    /// The (detached) variable order used for each block.
    pub order: Vec<Vec<usize>>,
}

/// `ln Φ_d(a_i; Σ_i)` for a batch of `b` blocks (`upper` `[b, d]`, `cov` `[b, d, d]`) by Genz's
/// separation of variables in log space with the quasi-random `points` (dimension `≥ d − 1`),
/// differentiable with respect to `upper` and `cov`.
///
/// Per block: the greedy variable order is computed on detached host copies (no gradient flows
/// through it) and applied by `gather`; the permuted covariance is factorised by the
/// differentiable [`cholesky`] (its jitter ladder applies); the log integrand at every point is
/// the custom op [`GpMvnOps::genz_log_integrand`] with its hand-written reverse pass; the
/// estimate is the log-mean-exp over the points. With `points` fixed the result is a smooth
/// function of the inputs, so gradients are exact gradients of the estimate.
///
/// Errors: shapes ([`Error::ShapeMismatch`]), a non-positive-definite block
/// ([`Error::NotPositiveDefinite`], `batch` = the block), and a NaN input or a non-finite
/// estimate ([`Error::NonFinite`], `index` = the block).
pub fn log_mvn_cdf(upper: Tensor<2>, cov: Tensor<3>, points: &QmcPoints) -> Result<LogMvnCdf> {
    let [b, d] = upper.dims();
    if cov.dims() != [b, d, d] {
        return Err(Error::shape("log_mvn_cdf: cov must be [b, d, d] for upper [b, d]", [b, d, d], cov.dims()));
    }
    if d == 0 || b == 0 {
        return Err(Error::shape("log_mvn_cdf: upper", "[b ≥ 1, d ≥ 1]", [b, d]));
    }
    if points.dim() + 1 < d {
        return Err(Error::shape("log_mvn_cdf: QMC points of dimension ≥ d − 1", d - 1, points.dim()));
    }
    let device = upper.device();
    let (a_host, c_host) = (to_vec(upper.clone().detach()), to_vec(cov.clone().detach()));
    let block_of = |i: usize, per: usize| i / per;
    if let Some(i) = a_host.iter().position(|v| v.is_nan()) {
        return Err(Error::NonFinite {
            context: format!("log_mvn_cdf: upper limits of block {}", block_of(i, d)),
            index: block_of(i, d),
        });
    }
    if let Some(i) = c_host.iter().position(|v| !v.is_finite()) {
        let blk = block_of(i, d * d);
        return Err(Error::NonFinite { context: format!("log_mvn_cdf: covariance of block {blk}"), index: blk });
    }
    let order: Vec<Vec<usize>> =
        (0..b).map(|i| genz_order(&a_host[i * d..(i + 1) * d], &c_host[i * d * d..(i + 1) * d * d])).collect();
    let int = |v: Vec<i64>, shape: Vec<usize>| Tensor::<3, Int>::from_data(TensorData::new(v, shape), &device);
    let rows: Vec<i64> = order.iter().flat_map(|p| p.iter().flat_map(|&r| std::iter::repeat_n(r as i64, d))).collect();
    let cols: Vec<i64> = order.iter().flat_map(|p| (0..d).flat_map(|_| p.iter().map(|&c| c as i64))).collect();
    let flat: Vec<i64> = order.iter().flat_map(|p| p.iter().map(|&c| c as i64)).collect();
    let upper_p = upper.gather(1, Tensor::<2, Int>::from_data(TensorData::new(flat, [b, d]), &device));
    let cov_p = cov.gather(1, int(rows, vec![b, d, d])).gather(2, int(cols, vec![b, d, d]));
    let l = cholesky(cov_p)?;
    let log_f = Tensor::<2>::from_dispatch(Dispatch::genz_log_integrand(
        upper_p.into_dispatch(),
        l.into_dispatch(),
        points.clone(),
    ));
    let host_f = to_vec(log_f.clone().detach());
    let n = points.len();
    let mut std_err = Vec::with_capacity(b);
    for blk in 0..b {
        let est = estimate_from_log_integrand(&host_f[blk * n..(blk + 1) * n], points.shifts());
        if !est.log_p.is_finite() {
            return Err(Error::NonFinite {
                context: format!("log_mvn_cdf: Genz estimate of block {blk} is {}", est.log_p),
                index: blk,
            });
        }
        std_err.push(est.std_err);
    }
    let log_p = (log_sum_exp_dim(log_f, 1) - (n as f64).ln()).reshape([b]);
    Ok(LogMvnCdf { log_p, std_err, order })
}

/// Elementwise `ln Φ₂(h, k; ρ)` for standard bivariate normals, deterministic (about 1e-14
/// relative) and differentiable in all three inputs (analytic gradient: `φ(h)Φ((k − ρh)/s)`,
/// `φ(k)Φ((h − ρk)/s)`, `φ₂(h, k; ρ)`, divided by `Φ₂`).
pub fn log_bvn_cdf<const D: usize>(h: Tensor<D>, k: Tensor<D>, rho: Tensor<D>) -> Tensor<D> {
    Tensor::from_dispatch(Dispatch::log_bvn_cdf(h.into_dispatch(), k.into_dispatch(), rho.into_dispatch()))
}
