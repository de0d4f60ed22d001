//! A Gaussian restricted to a polyhedron, `x ~ N(0, Σ)` on `{x : A x + b > 0}`, as the target
//! of the batched slice samplers ([`super::LinEss`], [`super::EllipticalSlice`]).
use burn::tensor::{Device, Tensor, TensorData};
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};

use super::gibbs::truncated_normal_above;
use crate::error::{check_finite, Error, Result};
use crate::tensors::to_vec;

/// Where the chains of a slice sampler on an orthant target `x > −b` start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChainStart {
    /// `x_i = max(−b_i, 0) + |ν_i|` with `ν ~ N(0, Σ)`: feasible and on the prior's scale, but
    /// with every coordinate above its bound by a prior draw's size, far from a typical draw of a
    /// target with thousands of constraints.
    Dispersed,
    /// Sequential truncated draws (the GHK simulator, the sampling side of Genz's integrand):
    /// `x = L z` with `z_i ~ N(0, 1)` truncated to keep `x_i > −b_i` given `z_1 … z_{i−1}`. Feasible
    /// by construction and close to the target (exact for one constraint, and for independent
    /// coordinates), so the chains start near stationarity; `O(d²)` per chain on the host.
    #[default]
    Sequential,
}

/// `N(0, Σ)` restricted to `{x : A x + b > 0}`; `A = I` when no matrix is given (the orthant
/// `x > −b` of a SUN posterior). Holds `Lᵀ` (`Σ = L Lᵀ`), `Aᵀ` and `b` on the sampling device.
#[derive(Clone, Debug)]
pub struct TruncatedNormal {
    /// `Lᵀ` `[d, d]` (upper triangular).
    chol_t: Tensor<2>,
    /// `Aᵀ` `[d, m]`, or `None` for `A = I`.
    a_t: Option<Tensor<2>>,
    /// `b` `[1, m]`.
    b: Tensor<2>,
    /// `b` on the host.
    b_host: Vec<f64>,
    /// Dimension `d`.
    dim: usize,
}

impl TruncatedNormal {
    /// The orthant target `x > −b` (`A = I`) with `Σ = L Lᵀ` given by its lower factor `l`
    /// (row-major `d × d`).
    pub fn orthant(l: &[f64], b: &[f64], device: &Device) -> Result<Self> {
        Self::new(l, None, b, device)
    }

    /// The target `N(0, L Lᵀ)` on `{x : A x + b > 0}`, `a` row-major `[m, d]` (`None`: `A = I`).
    pub fn new(l: &[f64], a: Option<&[f64]>, b: &[f64], device: &Device) -> Result<Self> {
        let m = b.len();
        let d = match a {
            None => m,
            Some(a) if m > 0 && a.len() % m == 0 => a.len() / m,
            Some(a) => return Err(Error::shape("TruncatedNormal: A [m, d] for b [m]", m, a.len())),
        };
        if l.len() != d * d || d == 0 {
            return Err(Error::shape("TruncatedNormal: lower factor [d, d]", [d, d], [l.len()]));
        }
        check_finite("TruncatedNormal: factor", l)?;
        check_finite("TruncatedNormal: b", b)?;
        let mut lt = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..=i {
                lt[j * d + i] = l[i * d + j];
            }
        }
        let a_t = a.map(|a| {
            let mut at = vec![0.0; d * m];
            for i in 0..m {
                for j in 0..d {
                    at[j * m + i] = a[i * d + j];
                }
            }
            Tensor::<2>::from_data(TensorData::new(at, [d, m]), device)
        });
        Ok(Self {
            chol_t: Tensor::from_data(TensorData::new(lt, [d, d]), device),
            a_t,
            b: Tensor::from_data(TensorData::new(b.to_vec(), [1, m]), device),
            b_host: b.to_vec(),
            dim: d,
        })
    }

    /// Dimension `d` of `x`.
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// Number of constraints `m`.
    pub fn constraints(&self) -> usize {
        self.b_host.len()
    }
    /// The device the chains run on.
    pub fn device(&self) -> Device {
        self.b.device()
    }
    /// `A x` for chains `x` `[c, d]` (`x` itself when `A = I`): `[c, m]`.
    pub fn project(&self, x: Tensor<2>) -> Tensor<2> {
        match &self.a_t {
            None => x,
            Some(a_t) => x.matmul(a_t.clone()),
        }
    }
    /// `b` `[1, m]`.
    pub fn offset(&self) -> Tensor<2> {
        self.b.clone()
    }
    /// Fresh prior draws `ν = L η`, one per chain: `[c, d]` (η from `rng`, on the host).
    pub(crate) fn prior_draws(&self, chains: usize, rng: &mut StdRng) -> Tensor<2> {
        let eta: Vec<f64> = (0..chains * self.dim).map(|_| StandardNormal.sample(rng)).collect();
        let eta = Tensor::<2>::from_data(TensorData::new(eta, [chains, self.dim]), &self.device());
        eta.matmul(self.chol_t.clone())
    }
    /// The smallest slack `min_i (A x + b)_i` of each chain: `[c, 1]`.
    pub(crate) fn min_slack(&self, x: Tensor<2>) -> Tensor<2> {
        (self.project(x) + self.offset()).min_dim(1)
    }
    /// Strictly feasible starts for `chains` chains: `start` if given (checked), either one point
    /// `[d]` for every chain or one per chain `[chains, d]` row-major; else, for `A = I`, the
    /// [`ChainStart::Dispersed`] start. With a general `A` a start must be given.
    pub fn initial(&self, chains: usize, start: Option<&[f64]>, rng: &mut StdRng) -> Result<Tensor<2>> {
        let x = match (start, &self.a_t) {
            (Some(s), _) if s.len() == self.dim => {
                Tensor::<2>::from_data(TensorData::new(s.to_vec(), [1, self.dim]), &self.device()).repeat_dim(0, chains)
            }
            (Some(s), _) if s.len() == chains * self.dim => {
                Tensor::<2>::from_data(TensorData::new(s.to_vec(), [chains, self.dim]), &self.device())
            }
            (Some(s), _) => return Err(Error::shape("TruncatedNormal: start [d] or [chains, d]", self.dim, s.len())),
            (None, None) => {
                let floor = Tensor::<2>::from_data(
                    TensorData::new(self.b_host.iter().map(|b| (-b).max(0.0)).collect::<Vec<f64>>(), [1, self.dim]),
                    &self.device(),
                );
                self.prior_draws(chains, rng).abs().clamp_min(1e-3) + floor
            }
            (None, Some(_)) => {
                return Err(Error::invalid("start", "a general constraint matrix A needs a feasible start"))
            }
        };
        let slack = to_vec(self.min_slack(x.clone()));
        if let Some(k) = slack.iter().position(|v| v.is_nan() || *v <= 0.0) {
            return Err(Error::invalid(
                "start",
                format!("chain {k} not strictly feasible (smallest slack {})", slack[k]),
            ));
        }
        Ok(x)
    }

    /// Starts `[chains, d]` row-major for the orthant target (`A = I`) as `start` says:
    /// [`ChainStart::Sequential`] draws them here, [`ChainStart::Dispersed`] returns `None`
    /// (drawn by [`Self::initial`]).
    pub fn starts(&self, chains: usize, start: ChainStart, rng: &mut StdRng) -> Result<Option<Vec<f64>>> {
        match start {
            ChainStart::Dispersed => Ok(None),
            ChainStart::Sequential => self.sequential_starts(chains, rng).map(Some),
        }
    }

    /// [`ChainStart::Sequential`] draws `[chains, d]` row-major (orthant targets only).
    fn sequential_starts(&self, chains: usize, rng: &mut StdRng) -> Result<Vec<f64>> {
        if self.a_t.is_some() {
            return Err(Error::invalid("start", "sequential starts need the orthant target (A = I)"));
        }
        let d = self.dim;
        let lt = to_vec(self.chol_t.clone());
        // Row-major L from Lᵀ, for contiguous rows.
        let l: Vec<f64> = (0..d * d).map(|k| lt[(k % d) * d + k / d]).collect();
        let mut out = vec![0.0; chains * d];
        for x in out.chunks_exact_mut(d) {
            let mut z = vec![0.0; d];
            for i in 0..d {
                let row = &l[i * d..i * d + i];
                let s: f64 = row.iter().zip(&z).map(|(a, b)| a * b).sum();
                let lii = l[i * d + i];
                let bound = -self.b_host[i];
                z[i] = truncated_normal_above(0.0, 1.0, (bound - s) / lii, rng);
                x[i] = s + lii * z[i];
                if x[i] <= bound {
                    // rounding at the boundary: stay strictly feasible, z consistent with x
                    x[i] = bound + f64::EPSILON.sqrt() * bound.abs().max(1.0);
                    z[i] = (x[i] - s) / lii;
                }
            }
        }
        Ok(out)
    }
}

/// Settings of a batched slice-sampling run.
#[derive(Clone, Debug)]
pub struct ChainConfig {
    /// Independent chains, advanced together as one `[chains, d]` tensor.
    pub chains: usize,
    /// Steps discarded at the start of every chain.
    pub burn_in: usize,
    /// Draws kept in total (the last step's chains are truncated to this number).
    pub samples: usize,
    /// Seed of the host random numbers.
    pub seed: u64,
}

impl Default for ChainConfig {
    fn default() -> Self {
        Self { chains: 16, burn_in: 100, samples: 2000, seed: 0 }
    }
}

impl ChainConfig {
    /// Checks the settings.
    pub fn check(&self) -> Result<()> {
        if self.chains == 0 || self.samples == 0 {
            return Err(Error::invalid("chains/samples", "need at least one chain and one sample"));
        }
        Ok(())
    }
    /// Steps after burn-in needed for `samples` draws.
    pub fn kept_steps(&self) -> usize {
        self.samples.div_ceil(self.chains)
    }
}

/// Draws of a sampling run: `[samples, d]` on the sampling device, with diagnostics.
#[derive(Debug)]
pub struct ChainDraws {
    /// The draws, chain-interleaved by step (rows `t·c .. (t+1)·c` are step `t`'s chains).
    pub samples: Tensor<2>,
    /// Chain-steps whose proposal broke a constraint by rounding and was not taken.
    pub rounding_rejections: usize,
    /// Constraint evaluations of proposals (one per chain-step for lin-ess; more for ESS).
    pub proposals: usize,
}

/// Runs `step(x, rng) -> (x', proposals, rejections)` from `x0` `[c, d]` for the burn-in and the
/// kept steps, stacking the kept states.
pub(crate) fn run_chains(
    config: &ChainConfig,
    x0: Tensor<2>,
    rng: &mut StdRng,
    mut step: impl FnMut(Tensor<2>, &mut StdRng) -> Result<(Tensor<2>, usize, usize)>,
) -> Result<ChainDraws> {
    config.check()?;
    let mut x = x0;
    let (mut proposals, mut rejections) = (0, 0);
    let mut kept = Vec::with_capacity(config.kept_steps());
    for t in 0..config.burn_in + config.kept_steps() {
        let (next, p, r) = step(x, rng)?;
        x = next;
        proposals += p;
        rejections += r;
        if t >= config.burn_in {
            kept.push(x.clone());
        }
    }
    let samples = Tensor::cat(kept, 0).slice(0..config.samples);
    Ok(ChainDraws { samples, rounding_rejections: rejections, proposals })
}
