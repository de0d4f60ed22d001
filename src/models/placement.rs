//! Data-driven initial kernel and inducing inputs, shared by the Bayesian SVMs and the GP heads of
//! networks.
use burn::tensor::Device;

use crate::device::{precision, Precision};
use crate::error::{Error, Result};
use crate::inducing::{inducing_kmeans, inducing_subset, kmeans_random_start, InducingInit, InducingPoints};
use crate::kernels::{median_distance, Rbf};

/// ARD RBF kernel (σ² = 1, every lengthscale `lengthscale_factor` times the median pairwise
/// distance of up to 1 000 rows) and `num_inducing` inducing points placed on the rows of `x`
/// `[n, d]` by `init` with `seed`.
pub(crate) fn rbf_and_inducing(
    x: &[f64],
    (n, d): (usize, usize),
    num_inducing: usize,
    (init, lengthscale_factor): (InducingInit, f64),
    seed: u64,
    device: &Device,
) -> Result<(Rbf, InducingPoints)> {
    if d == 0 || x.len() != n * d {
        return Err(Error::shape("inducing placement inputs", [n, d], [x.len()]));
    }
    if num_inducing == 0 || num_inducing > n {
        return Err(Error::invalid("num_inducing", format!("need 1 ≤ P ≤ n = {n} placement rows, got {num_inducing}")));
    }
    let lengthscale = median_distance(x, n, d, 1000, seed)? * lengthscale_factor;
    let z = match init {
        InducingInit::Subset => inducing_subset(x, n, d, num_inducing, seed)?,
        InducingInit::KMeans => inducing_kmeans(x, n, d, num_inducing, 30, seed)?,
        InducingInit::KMeansRandomStart => kmeans_random_start(x, n, d, num_inducing, 30, seed)?,
    };
    Ok((Rbf::ard(d, lengthscale, 1.0, device)?, InducingPoints::new(&z, num_inducing, d, device)?))
}

/// `jitter`, else the default relative jitter on `K_ZZ` for `device`'s precision: 1e-6 in f64,
/// 1e-4 in f32.
pub(crate) fn jitter_or_default(jitter: Option<f64>, device: &Device) -> f64 {
    jitter.unwrap_or(match precision(device) {
        Precision::F64 => 1e-6,
        Precision::F32 => 1e-4,
    })
}
