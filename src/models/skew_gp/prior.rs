//! [`SkewGp`]: the skew-Gaussian-process prior of eq. (14) as a Burn module — a kernel, the
//! pseudo-points `R`, the truncation `γ` and the (fixed) phases `L` — with the differentiable
//! pieces of the training objective.
use std::sync::Arc;

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};

use super::config::SkewGpConfig;
use super::posterior::SunState;
use super::train::SkewGpReport;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::mvn::{log_bvn_cdf, log_mvn_cdf, QmcPoints};
use crate::special::tensor::log_ndtr;
use crate::tensors::to_vec;

/// `f ~ SkewGP_s(0, K, Δ, γ, Γ)` with `Γ = L K̄(R, R) L`, `Δ(x) = K̄(x, R) L`, `K̄` the normalised
/// kernel `K(x, x')/√(K(x, x) K(x', x'))`. `K` carries a nugget `jitter` at coinciding inputs
/// (every diagonal: `K(X, X)`, `K(R, R)`, test variances), so the joint matrix of eq. (14) is a
/// correlation matrix and positive definite.
#[derive(Module, Debug)]
pub struct SkewGp<K: Module> {
    /// The scale kernel `K`.
    pub kernel: K,
    /// Pseudo-points `R` `[s, p]` (`None` when `s = 0`).
    pub pseudo_points: Option<Param<Tensor<2>>>,
    /// Truncation `γ` `[s]` (`None` when `s = 0`).
    pub gamma: Option<Param<Tensor<1>>>,
    /// Phases `l ∈ {−1, +1}^s` (not trained by gradients; searched by `fit`).
    #[module(skip)]
    pub phases: Vec<f64>,
    /// Nugget on the kernel's diagonal.
    #[module(skip)]
    pub jitter: f64,
    /// The posterior and report of the last [`fit`](Self::fit) (not a Burn parameter: kept by
    /// [`SavedModel`](crate::saved::SavedModel)).
    #[module(skip)]
    pub(crate) fitted: Option<Arc<SkewGpFitted>>,
    /// The objective, phase search, hold-out and sampler settings [`fit`](Self::fit) follows
    /// (from [`SkewGpConfig::init`](super::SkewGpConfig::init); a model built by
    /// [`new`](Self::new) has the defaults at its latent dimension).
    #[module(skip)]
    pub(crate) settings: SkewGpConfig,
}

/// What a fit leaves in a [`SkewGp`] beside its parameters.
#[derive(Debug)]
pub(crate) struct SkewGpFitted {
    /// The SUN posterior's host state at the training inputs.
    pub(crate) sun: Arc<SunState>,
    /// How the fit went (`None` for a model loaded from a file).
    pub(crate) report: Option<SkewGpReport>,
}

impl<K: Kernel> SkewGp<K> {
    /// A prior from its pieces: `pseudo_points` row-major `[s, p]`, `phases` and `gamma` `[s]`.
    pub fn new(
        kernel: K,
        pseudo_points: &[f64],
        phases: &[f64],
        gamma: &[f64],
        jitter: f64,
        device: &Device,
    ) -> Result<Self> {
        let s = phases.len();
        if gamma.len() != s {
            return Err(Error::shape("SkewGp: γ [s] for s phases", s, gamma.len()));
        }
        if phases.iter().any(|l| *l != 1.0 && *l != -1.0) {
            return Err(Error::invalid("phases", format!("each must be −1 or +1, got {phases:?}")));
        }
        crate::error::check_non_negative("jitter", jitter)?;
        crate::error::check_finite("SkewGp: γ", gamma)?;
        crate::error::check_finite("SkewGp: R", pseudo_points)?;
        let (pseudo, gam) = if let Some(p) = pseudo_points.len().checked_div(s) {
            if p * s != pseudo_points.len() || kernel.input_dim().is_some_and(|d| d != p) {
                return Err(Error::shape(
                    "SkewGp: R [s, p]",
                    [s, kernel.input_dim().unwrap_or(p)],
                    pseudo_points.len(),
                ));
            }
            let r = Tensor::<2>::from_data(TensorData::new(pseudo_points.to_vec(), [s, p]), device);
            let g = Tensor::<1>::from_data(TensorData::new(gamma.to_vec(), [s]), device);
            (Some(Param::from_tensor(r)), Some(Param::from_tensor(g)))
        } else {
            (None, None)
        };
        let settings = SkewGpConfig::new().with_latent_dim(s as i64).with_jitter(jitter);
        Ok(Self { kernel, pseudo_points: pseudo, gamma: gam, phases: phases.to_vec(), jitter, fitted: None, settings })
    }

    /// Latent dimension `s`.
    pub fn latent_dim(&self) -> usize {
        self.phases.len()
    }

    /// A copy with other phases (same kernel, `R`, `γ`).
    pub fn with_phases(&self, phases: &[f64]) -> Result<Self> {
        if phases.len() != self.latent_dim() || phases.iter().any(|l| *l != 1.0 && *l != -1.0) {
            return Err(Error::invalid("phases", format!("need {} values ±1, got {phases:?}", self.latent_dim())));
        }
        let mut out = self.clone();
        out.phases = phases.to_vec();
        Ok(out)
    }

    /// `γ` on the host (empty for `s = 0`).
    pub fn gamma_host(&self) -> Vec<f64> {
        self.gamma.as_ref().map(|g| to_vec(g.val())).unwrap_or_default()
    }

    /// `R` on the host, row-major `[s, p]` (empty for `s = 0`).
    pub fn pseudo_points_host(&self) -> Vec<f64> {
        self.pseudo_points.as_ref().map(|r| to_vec(r.val())).unwrap_or_default()
    }

    /// `√(K(x, x) + jitter)` `[m]`.
    pub fn scale(&self, x: Tensor<2>) -> Tensor<1> {
        self.kernel.k_diag(x).add_scalar(self.jitter).sqrt()
    }

    /// `K(x, x) + jitter·I` `[m, m]`.
    pub(crate) fn k_self(&self, x: Tensor<2>) -> Tensor<2> {
        let m = x.dims()[0];
        let eye = Tensor::<2>::eye(m, &x.device()).mul_scalar(self.jitter);
        self.kernel.k(x.clone(), x) + eye
    }

    /// The phases as a `[1, s]` tensor.
    fn phase_row(&self, device: &Device) -> Tensor<2> {
        Tensor::from_data(TensorData::new(self.phases.clone(), [1, self.latent_dim()]), device)
    }

    /// `Δ(x) = K̄(x, R) L` `[m, s]` (differentiable); `None` when `s = 0`.
    pub fn skewness(&self, x: Tensor<2>) -> Option<Tensor<2>> {
        let r = self.pseudo_points.as_ref()?.val();
        let device = x.device();
        let (dx, dr) = (self.scale(x.clone()), self.scale(r.clone()));
        let kxr = self.kernel.k(x, r);
        Some(kxr / dx.unsqueeze_dim::<2>(1) / dr.unsqueeze::<2>() * self.phase_row(&device))
    }

    /// `Γ = L K̄(R, R) L` `[s, s]` (with the nugget, so unit diagonal); `None` when `s = 0`.
    pub(crate) fn latent_cov(&self) -> Option<Tensor<2>> {
        let r = self.pseudo_points.as_ref()?.val();
        let device = r.device();
        let d = self.scale(r.clone());
        let l = self.phase_row(&device);
        let kbar = self.k_self(r) / d.clone().unsqueeze_dim::<2>(1) / d.unsqueeze::<2>();
        Some(kbar * l.clone().transpose() * l)
    }

    /// `ln Φ_s(γ; Γ)` `[1]` (differentiable): `0` for `s = 0`, `ln Φ(γ₁/√Γ₁₁)` for `s = 1`, the
    /// deterministic bivariate CDF for `s = 2`, Genz with `points` (dimension `≥ s − 1`) above;
    /// `device` is where the `s = 0` zero lives.
    pub(crate) fn log_latent_normaliser(&self, points: &QmcPoints, device: &Device) -> Result<Tensor<1>> {
        let (Some(gamma), Some(cov)) = (self.gamma.as_ref(), self.latent_cov()) else {
            return Ok(Tensor::zeros([1], device));
        };
        let g = gamma.val();
        let s = self.latent_dim();
        let diag = |i: usize| cov.clone().slice([i..i + 1, i..i + 1]).reshape([1]);
        Ok(match s {
            1 => log_ndtr(g / diag(0).sqrt()),
            2 => {
                let (s0, s1) = (diag(0).sqrt(), diag(1).sqrt());
                let h = g.clone().slice(0..1) / s0.clone();
                let k = g.slice(1..2) / s1.clone();
                let rho = cov.slice([0..1, 1..2]).reshape([1]) / (s0 * s1);
                log_bvn_cdf(h, k, rho)
            }
            _ => log_mvn_cdf(g.unsqueeze::<2>(), cov.unsqueeze::<3>(), points)?.log_p,
        })
    }

    /// The Theorem 1 selection system of each block of rows of `x` (labels `w = ±1`): upper limits
    /// `γ̃_B = [γ; 0]` `[b, s + size]` and covariances `Γ̃_B = [[Γ, Δ_BᵀD_BW_B], [W_BD_BΔ_B,
    /// W_BK_BBW_B + I]]` `[b, s + size, s + size]` (differentiable). Blocks shorter than `size`
    /// are padded with independent dummy variables (limit 40, unit variance), which contribute
    /// `ln Φ(40) = 0` to the CDF.
    pub(crate) fn block_systems(
        &self,
        x: &Tensor<2>,
        w: &[f64],
        blocks: &[Vec<usize>],
        size: usize,
    ) -> Result<(Tensor<2>, Tensor<3>)> {
        let s = self.latent_dim();
        let device = x.device();
        let t = s + size;
        let mut uppers = Vec::with_capacity(blocks.len());
        let mut covs = Vec::with_capacity(blocks.len());
        let big_gamma = self.latent_cov();
        let gamma = self.gamma.as_ref().map(|g| g.val());
        for block in blocks {
            let m = block.len();
            if m == 0 || m > size {
                return Err(Error::invalid("blocks", format!("block of {m} rows for block size {size}")));
            }
            let xb = crate::models::select_rows(x, block);
            let wb: Vec<f64> = block.iter().map(|&i| w[i]).collect();
            let wcol = Tensor::<2>::from_data(TensorData::new(wb.clone(), [m, 1]), &device);
            let kww =
                self.k_self(xb.clone()) * wcol.clone().matmul(wcol.clone().transpose()) + Tensor::<2>::eye(m, &device);
            let lower = match (&big_gamma, self.skewness(xb.clone())) {
                (Some(bg), Some(delta)) => {
                    let wdd = delta * (self.scale(xb).unsqueeze_dim::<2>(1) * wcol); // W D Δ [m, s]
                    let top = Tensor::cat(vec![bg.clone(), wdd.clone().transpose()], 1);
                    Tensor::cat(vec![top, Tensor::cat(vec![wdd, kww], 1)], 0)
                }
                _ => kww,
            };
            let pad = size - m;
            let full = if pad == 0 {
                lower
            } else {
                let right = Tensor::cat(vec![lower, Tensor::zeros([s + m, pad], &device)], 1);
                let bottom = Tensor::cat(vec![Tensor::zeros([pad, s + m], &device), Tensor::eye(pad, &device)], 1);
                Tensor::cat(vec![right, bottom], 0)
            };
            covs.push(full.unsqueeze::<3>());
            let mut tail = vec![0.0; m];
            tail.extend(std::iter::repeat_n(40.0, pad));
            let tail = Tensor::<1>::from_data(TensorData::new(tail, [size]), &device);
            let upper = match &gamma {
                Some(g) => Tensor::cat(vec![g.clone(), tail], 0),
                None => tail,
            };
            uppers.push(upper.reshape([1, t]));
        }
        Ok((Tensor::cat(uppers, 0), Tensor::cat(covs, 0)))
    }
}
