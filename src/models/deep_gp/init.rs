//! Data-driven initialisation of a [`DeepGp`] from a [`DeepGpConfig`] (the paper and its code).
//!
//! First layer: inducing inputs by k-means (or a random subset), every lengthscale the median
//! pairwise distance of the inputs, `σ_f = std(y)`, `σ = 0.1·std(y)`, tied-factor entries
//! (`ρ = log R_ii`, off-diagonals of `R`, `t`) ~ N(0, 1). Higher layers: `ℓ = e`, `σ_f = 1`, `σ = 0.1`,
//! inducing inputs evenly spaced on the diagonal of `[−1, 1]^D`, tied-factor entries ~ N(0, 0.01).
//! With `input_projection = Some(K)` a `Linear` layer starting at the first K principal directions
//! comes first, and the first layer's initialisation uses the projected inputs.
use burn::module::Param;
use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::block::DeepGpBlock;
use super::config::{DeepGpConfig, MeanFunction};
use super::layer::DeepGpLayer;
use super::model::DeepGp;
use super::moment_linear::MomentLinear;
use super::values::LayerValues;
use crate::data::Pca;
use crate::error::{check_finite, Error, Result};
use crate::inducing::inducing_subset;
use crate::inducing::{inducing_kmeans, kmeans_random_start, InducingInit};
use crate::kernels::median_distance;

/// Most points used by the median-distance heuristic (a seeded random subset beyond that).
const MEDIAN_MAX_POINTS: usize = 1000;

fn normals(rng: &mut StdRng, len: usize, scale: f64) -> Vec<f64> {
    (0..len).map(|_| scale * Distribution::<f64>::sample(&StandardNormal, rng)).collect()
}

/// Upper-triangular R `[d, m, m]` with `R_ii = exp(scale·ε)` and off-diagonals `scale·ε`.
fn random_r(rng: &mut StdRng, d: usize, m: usize, scale: f64) -> Vec<f64> {
    let mut r = vec![0.0; d * m * m];
    for f in 0..d {
        for i in 0..m {
            for j in i..m {
                let e = scale * Distribution::<f64>::sample(&StandardNormal, rng);
                r[(f * m + i) * m + j] = if i == j { e.exp() } else { e };
            }
        }
    }
    r
}

/// A trainable `Linear` layer that starts as the PCA projection `x ↦ (x − mean)·W`.
fn projection_layer(pca: &Pca, device: &Device) -> MomentLinear {
    let (d, k) = (pca.input_dim, pca.num_components);
    let weight = Tensor::<2>::from_data(TensorData::new(pca.components.clone(), [d, k]), device);
    let bias = Tensor::<1>::from_data(TensorData::new(pca.bias(), [k]), device);
    MomentLinear::new(Linear { weight: Param::from_tensor(weight), bias: Some(Param::from_tensor(bias)) })
}

impl DeepGpConfig {
    /// Builds the model for training data `x` `[n, d]` and `y` `[n, output_dim]` on their device
    /// (the one it trains on, as [`DeepGp::fit`] takes them).
    ///
    /// Typed errors: `d ≠ input_dim` or `y`'s shape ([`Error::ShapeMismatch`]), a zero hidden
    /// width or `num_inducing > n` ([`Error::InvalidArgument`]), NaN/Inf in `x` or `y`
    /// ([`Error::NonFinite`]).
    pub fn init(&self, x: &Tensor<2>, y: &Tensor<2>) -> Result<DeepGp> {
        let ([n, d], device) = (x.dims(), x.device());
        if y.dims()[0] != n {
            return Err(Error::shape("DeepGpConfig::init: y rows vs x rows", n, y.dims()[0]));
        }
        let (x, y) = (crate::tensors::to_vec(x.clone()), crate::tensors::to_vec(y.clone()));
        self.init_on_rows(&x, &y, n, d, &device)
    }

    /// [`Self::init`] from host rows `x` `[n, d]` and `y` `[n, output_dim]` (row-major).
    fn init_on_rows(&self, x: &[f64], y: &[f64], n: usize, d: usize, device: &Device) -> Result<DeepGp> {
        self.validate()?;
        if d != self.input_dim {
            return Err(Error::shape("DeepGpConfig::init: input width of the first layer", self.input_dim, d));
        }
        if n == 0 {
            return Err(Error::Empty { context: "DeepGpConfig::init: training inputs".into() });
        }
        if x.len() != n * d {
            return Err(Error::shape("DeepGpConfig::init: x", [n, d], [x.len()]));
        }
        if y.len() != n * self.output_dim {
            return Err(Error::shape("DeepGpConfig::init: y", [n, self.output_dim], [y.len()]));
        }
        check_finite("DeepGpConfig::init: x", x)?;
        check_finite("DeepGpConfig::init: y", y)?;
        let m = self.num_inducing;
        if m > n {
            return Err(Error::invalid(
                "num_inducing",
                format!("M = {m} exceeds the number of training points N = {n}"),
            ));
        }
        // the first GP layer's inputs: x itself, or its PCA projection (the linear layer's start)
        let pca = self.input_projection.map(|k| Pca::fit(x, n, d, k)).transpose()?;
        let projected = pca.as_ref().map(|p| p.transform(x)).transpose()?;
        let (x, d) = match (&projected, &pca) {
            (Some(xp), Some(p)) => (xp.as_slice(), p.num_components),
            _ => (x, d),
        };
        let mut rng = StdRng::seed_from_u64(self.seed);
        let y_mean = y.iter().sum::<f64>() / y.len() as f64;
        let y_std = (y.iter().map(|v| (v - y_mean).powi(2)).sum::<f64>() / y.len() as f64).sqrt();
        let y_std = if y_std > 0.0 { y_std } else { 1.0 };

        let widths = self.widths();
        let num_layers = widths.len() - 1;
        let mut blocks = Vec::with_capacity(num_layers);
        for l in 0..num_layers {
            let (din, dout) = (widths[l], widths[l + 1]);
            let h = if self.shared_hyperparameters { 1 } else { dout };
            let first = l == 0;
            let z_one: Vec<f64> = if first {
                match self.inducing_init {
                    InducingInit::KMeansRandomStart => {
                        kmeans_random_start(x, n, d, m, self.kmeans_iterations, self.seed)?
                    }
                    InducingInit::KMeans => inducing_kmeans(x, n, d, m, self.kmeans_iterations, self.seed)?,
                    InducingInit::Subset => inducing_subset(x, n, d, m, self.seed)?,
                }
            } else {
                (0..m)
                    .flat_map(|i| {
                        let v = if m > 1 { -1.0 + 2.0 * i as f64 / (m - 1) as f64 } else { 0.0 };
                        std::iter::repeat_n(v, din)
                    })
                    .collect()
            };
            let z: Vec<f64> = (0..dout).flat_map(|_| z_one.iter().copied()).collect();
            let (ell, sf2, sn2, scale) = if first {
                let med = if n >= 2 { median_distance(x, n, d, MEDIAN_MAX_POINTS, self.seed)? } else { 1.0 };
                (med, y_std * y_std, (0.1 * y_std).powi(2), 1.0)
            } else {
                (1f64.exp(), 1.0, 0.01, 0.1)
            };
            let r = random_r(&mut rng, dout, m, scale);
            let t = normals(&mut rng, dout * m, scale);
            let hidden = l + 1 < num_layers;
            let mean_weight = (hidden && self.mean_function == MeanFunction::Identity)
                .then(|| (0..din * dout).map(|k| if k / dout == k % dout { 1.0 } else { 0.0 }).collect());
            let values = LayerValues {
                input_dim: din,
                output_dim: dout,
                num_inducing: m,
                z,
                lengthscales: vec![ell; h * din],
                signal_variance: vec![sf2; h],
                noise_variance: sn2,
                r,
                t,
                mean_weight,
                jitter: self.jitter,
                noise_floor: self.noise_floor,
            };
            let gp = DeepGpLayer::from_values(&values, device)?;
            blocks.push(match (&pca, first) {
                (Some(p), true) => DeepGpBlock::with_linear(projection_layer(p, device), gp)?,
                _ => DeepGpBlock::gp(gp),
            });
        }
        DeepGp::new(blocks, n)
    }
}
