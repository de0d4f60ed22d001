//! The unified skew-normal distribution `SUN_{p,s}(ξ, Ω, Δ, γ, Γ)` (Arellano-Valle & Azzalini
//! 2006; paper §2.1), host f64: density, CDF, the log of its normaliser `Φ_s(γ; Γ)`, sampling by
//! the additive representation, marginals, conditionals and the probit posterior (Theorem 1).
//!
//! Selection representation: with `(u₀, u₁) ~ N(0, M)`, `M = [[Γ, Δᵀ], [Δ, Ω̄]]`,
//! `z = ξ + D (u₁ | u₀ + γ > 0)`, where `Ω = D Ω̄ D`. The scale `D` is `diag(Ω)^{1/2}` by default
//! (`Ω̄` a correlation matrix); any positive diagonal works if `Δ` is in the units of that `D`,
//! which is what conditionals produce (`docs/papers/000-skew-gp.md`, section "Errata", item 2).
use burn::tensor::Device;
use faer::Mat;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::dense::{cholesky, column, row_major, solve_chol, solve_lower, symmetrise};
use super::genz::{log_mvn_cdf, MvnEstimate};
use super::lattice::QmcPoints;
use super::lin_ess::{LinEss, LinEssVariant};
use super::truncated::{ChainConfig, TruncatedNormal};
use crate::error::{check_finite, Error, Result};
use crate::special::LN_SQRT_2PI;

/// Below this acceptance rate `Φ_s(γ; Γ)`, [`Sun::sample`] draws the latent part by lin-ess
/// instead of rejection.
const MIN_ACCEPTANCE: f64 = 0.01;

/// A unified skew-normal distribution.
#[derive(Clone, Debug)]
pub struct Sun {
    xi: Vec<f64>,
    omega: Mat<f64>,
    scale: Vec<f64>,
    delta: Mat<f64>,
    gamma: Vec<f64>,
    big_gamma: Mat<f64>,
}

impl Sun {
    /// `SUN_{p,s}(ξ, Ω, Δ, γ, Γ)` with the standard scale `D = diag(Ω)^{1/2}`; `omega` `[p, p]`,
    /// `delta` `[p, s]`, `big_gamma` `[s, s]` row-major.
    ///
    /// Errors: inconsistent shapes, non-finite values, and a joint matrix `M` that is not
    /// positive definite ([`Error::NotPositiveDefinite`]).
    pub fn new(xi: &[f64], omega: &[f64], delta: &[f64], gamma: &[f64], big_gamma: &[f64]) -> Result<Self> {
        let p = xi.len();
        if omega.len() != p * p {
            return Err(Error::shape("Sun: Ω", [p, p], [omega.len()]));
        }
        let scale: Vec<f64> = (0..p).map(|i| omega[i * p + i].sqrt()).collect();
        Self::with_scale(xi, omega, delta, gamma, big_gamma, &scale)
    }

    /// As [`Sun::new`] with an explicit positive scale `D`.
    pub(crate) fn with_scale(
        xi: &[f64],
        omega: &[f64],
        delta: &[f64],
        gamma: &[f64],
        big_gamma: &[f64],
        scale: &[f64],
    ) -> Result<Self> {
        let (p, s) = (xi.len(), gamma.len());
        if omega.len() != p * p || delta.len() != p * s || big_gamma.len() != s * s || scale.len() != p {
            return Err(Error::shape(
                "Sun: ξ [p], Ω [p, p], Δ [p, s], γ [s], Γ [s, s], D [p]",
                [p, p * p, p * s, s, s * s, p],
                [xi.len(), omega.len(), delta.len(), gamma.len(), big_gamma.len(), scale.len()],
            ));
        }
        if p == 0 {
            return Err(Error::Empty { context: "Sun: dimension p = 0".into() });
        }
        for (name, v) in [("ξ", xi), ("Ω", omega), ("Δ", delta), ("γ", gamma), ("Γ", big_gamma), ("D", scale)] {
            check_finite(&format!("Sun: {name}"), v)?;
        }
        if let Some(i) = scale.iter().position(|d| *d <= 0.0) {
            return Err(Error::invalid("Sun: D", format!("scale {i} is {} (must be positive)", scale[i])));
        }
        let sun = Self {
            xi: xi.to_vec(),
            omega: Mat::from_fn(p, p, |i, j| omega[i * p + j]),
            scale: scale.to_vec(),
            delta: Mat::from_fn(p, s, |i, j| delta[i * s + j]),
            gamma: gamma.to_vec(),
            big_gamma: Mat::from_fn(s, s, |i, j| big_gamma[i * s + j]),
        };
        cholesky(sun.joint_matrix().as_ref(), 0)?;
        Ok(sun)
    }

    /// Dimension `p`.
    pub fn dim(&self) -> usize {
        self.xi.len()
    }
    /// Latent (skewness) dimension `s`.
    pub fn latent_dim(&self) -> usize {
        self.gamma.len()
    }
    /// Location `ξ`.
    pub fn xi(&self) -> &[f64] {
        &self.xi
    }
    /// Scale `D`.
    pub fn scale(&self) -> &[f64] {
        &self.scale
    }
    /// Truncation `γ`.
    pub fn gamma(&self) -> &[f64] {
        &self.gamma
    }
    /// `Γ` row-major `[s, s]`.
    pub fn big_gamma(&self) -> Vec<f64> {
        row_major(self.big_gamma.as_ref())
    }
    /// `Δ` row-major `[p, s]`.
    pub fn delta(&self) -> Vec<f64> {
        row_major(self.delta.as_ref())
    }

    /// `Ω̄ = D⁻¹ Ω D⁻¹`.
    pub(crate) fn omega_bar(&self) -> Mat<f64> {
        let p = self.dim();
        Mat::from_fn(p, p, |i, j| self.omega[(i, j)] / (self.scale[i] * self.scale[j]))
    }

    /// The joint matrix `M = [[Γ, Δᵀ], [Δ, Ω̄]]` `[s + p, s + p]` of the selection representation.
    pub(crate) fn joint_matrix(&self) -> Mat<f64> {
        let (p, s) = (self.dim(), self.latent_dim());
        let ob = self.omega_bar();
        Mat::from_fn(s + p, s + p, |i, j| match (i < s, j < s) {
            (true, true) => self.big_gamma[(i, j)],
            (true, false) => self.delta[(j - s, i)],
            (false, true) => self.delta[(i - s, j)],
            (false, false) => ob[(i - s, j - s)],
        })
    }

    /// `ln Φ_s(γ; Γ)`, the log normaliser (exact for `s ≤ 3`, else Genz with `points`).
    pub fn log_normaliser(&self, points: &QmcPoints) -> Result<MvnEstimate> {
        log_mvn_cdf(&self.gamma, &row_major(self.big_gamma.as_ref()), points)
    }

    /// `ln p(z)`: `ln φ_p(z − ξ; Ω) + ln Φ_s(γ + ΔᵀΩ̄⁻¹D⁻¹(z − ξ); Γ − ΔᵀΩ̄⁻¹Δ) − ln Φ_s(γ; Γ)`.
    pub fn log_pdf(&self, z: &[f64], points: &QmcPoints) -> Result<f64> {
        let p = self.dim();
        if z.len() != p {
            return Err(Error::shape("Sun::log_pdf: z", p, z.len()));
        }
        let t: Vec<f64> = (0..p).map(|i| (z[i] - self.xi[i]) / self.scale[i]).collect();
        let ob = self.omega_bar();
        let l = cholesky(ob.as_ref(), 0)?;
        // ln φ_p(z − ξ; Ω) = ln φ_p(t; Ω̄) − Σ ln D_i
        let wt = solve_lower(l.as_ref(), column(&t).as_ref());
        let quad: f64 = (0..p).map(|i| wt[(i, 0)].powi(2)).sum();
        let log_det: f64 = (0..p).map(|i| 2.0 * l[(i, i)].ln() + 2.0 * self.scale[i].ln()).sum();
        let log_phi = -0.5 * quad - 0.5 * log_det - p as f64 * LN_SQRT_2PI;
        if self.latent_dim() == 0 {
            return Ok(log_phi);
        }
        let ob_inv_delta = solve_chol(l.as_ref(), self.delta.as_ref()); // Ω̄⁻¹Δ [p, s]
        let s = self.latent_dim();
        let shift: Vec<f64> =
            (0..s).map(|j| self.gamma[j] + (0..p).map(|i| ob_inv_delta[(i, j)] * t[i]).sum::<f64>()).collect();
        let cond = Mat::from_fn(s, s, |i, j| {
            self.big_gamma[(i, j)] - (0..p).map(|k| self.delta[(k, i)] * ob_inv_delta[(k, j)]).sum::<f64>()
        });
        let num = log_mvn_cdf(&shift, &row_major(symmetrise(cond.as_ref()).as_ref()), points)?;
        Ok(log_phi + num.log_p - self.log_normaliser(points)?.log_p)
    }

    /// `ln Pr(Z ≤ z) = ln Φ_{s+p}([γ; D⁻¹(z − ξ)]; [[Γ, −Δᵀ], [−Δ, Ω̄]]) − ln Φ_s(γ; Γ)`.
    pub fn log_cdf(&self, z: &[f64], points: &QmcPoints) -> Result<f64> {
        let (p, s) = (self.dim(), self.latent_dim());
        if z.len() != p {
            return Err(Error::shape("Sun::log_cdf: z", p, z.len()));
        }
        let mut upper = self.gamma.clone();
        upper.extend((0..p).map(|i| (z[i] - self.xi[i]) / self.scale[i]));
        let mut m = self.joint_matrix();
        for i in 0..s {
            for j in s..s + p {
                m[(i, j)] = -m[(i, j)];
                m[(j, i)] = -m[(j, i)];
            }
        }
        Ok(log_mvn_cdf(&upper, &row_major(m.as_ref()), points)?.log_p - self.log_normaliser(points)?.log_p)
    }

    /// `n` draws `[n, p]` (row-major) by the additive representation
    /// `z = ξ + D (V₀ + ΔΓ⁻¹V₁)`, `V₀ ~ N(0, Ω̄ − ΔΓ⁻¹Δᵀ)`, `V₁ ~ N(0, Γ)` restricted to
    /// `V₁ + γ > 0`. `V₁` is drawn by rejection when its acceptance rate `Φ_s(γ; Γ)` is at least
    /// 1 %, otherwise by lin-ess (16 chains, 100 burn-in steps) on `device`.
    pub fn sample(&self, n: usize, seed: u64, device: &Device) -> Result<Vec<f64>> {
        let (p, s) = (self.dim(), self.latent_dim());
        let mut rng = StdRng::seed_from_u64(seed);
        let (v1, coef) = if s == 0 {
            (Vec::new(), Mat::zeros(p, 0))
        } else {
            let lg = cholesky(self.big_gamma.as_ref(), 0)?;
            let points = QmcPoints::lattice(s.saturating_sub(1), 512, 8, seed)?;
            let acceptance = self.log_normaliser(&points)?.log_p.exp();
            let v1 = if acceptance >= MIN_ACCEPTANCE {
                rejection_orthant(lg.as_ref(), &self.gamma, n, &mut rng)?
            } else {
                let target = TruncatedNormal::orthant(&row_major(lg.as_ref()), &self.gamma, device)?;
                let config = ChainConfig { chains: 16, burn_in: 100, samples: n, seed };
                crate::tensors::to_vec(LinEss::new(target, LinEssVariant::ConnectedArc).run(&config, None)?.samples)
            };
            // ΔΓ⁻¹ as [p, s]
            let coef = solve_chol(lg.as_ref(), self.delta.transpose()).transpose().to_owned();
            (v1, coef)
        };
        let ob = self.omega_bar();
        let cov0 =
            Mat::from_fn(p, p, |i, j| ob[(i, j)] - (0..s).map(|k| coef[(i, k)] * self.delta[(j, k)]).sum::<f64>());
        let l0 = cholesky(symmetrise(cov0.as_ref()).as_ref(), 0)?;
        let mut out = Vec::with_capacity(n * p);
        let mut eta = vec![0.0; p];
        for r in 0..n {
            eta.iter_mut().for_each(|e| *e = StandardNormal.sample(&mut rng));
            for i in 0..p {
                let v0: f64 = (0..=i).map(|k| l0[(i, k)] * eta[k]).sum();
                let skew: f64 = (0..s).map(|k| coef[(i, k)] * v1[r * s + k]).sum();
                out.push(self.xi[i] + self.scale[i] * (v0 + skew));
            }
        }
        Ok(out)
    }

    /// The marginal law of the components `idx` (same `γ`, `Γ`; rows of `ξ`, `Ω`, `Δ`, `D`).
    pub fn marginal(&self, idx: &[usize]) -> Result<Sun> {
        let (p, s) = (self.dim(), self.latent_dim());
        if let Some(&i) = idx.iter().find(|&&i| i >= p) {
            return Err(Error::invalid("Sun::marginal", format!("index {i} out of range 0..{p}")));
        }
        let q = idx.len();
        let xi: Vec<f64> = idx.iter().map(|&i| self.xi[i]).collect();
        let omega: Vec<f64> = (0..q * q).map(|k| self.omega[(idx[k / q], idx[k % q])]).collect();
        let delta: Vec<f64> = idx.iter().flat_map(|&i| (0..s).map(move |j| self.delta[(i, j)])).collect();
        let scale: Vec<f64> = idx.iter().map(|&i| self.scale[i]).collect();
        Sun::with_scale(&xi, &omega, &delta, &self.gamma, &self.big_gamma(), &scale)
    }

    /// The law of the other components given `z[idx] = z1` (paper §2.1 with `γ₂|₁` corrected and the
    /// prior scale kept, `docs/papers/000-skew-gp.md`, section "Errata", items 1–2:
    /// `ξ₂|₁ = ξ₂ + Ω₂₁Ω₁₁⁻¹(z₁ − ξ₁)`, `Ω₂|₁ = Ω₂₂ − Ω₂₁Ω₁₁⁻¹Ω₁₂`, `Δ₂|₁ = Δ₂ − Ω̄₂₁Ω̄₁₁⁻¹Δ₁`,
    /// `γ₂|₁ = γ + Δ₁ᵀΩ̄₁₁⁻¹D₁⁻¹(z₁ − ξ₁)`, `Γ₂|₁ = Γ − Δ₁ᵀΩ̄₁₁⁻¹Δ₁`, scale `D₂`).
    pub fn conditional(&self, idx: &[usize], z1: &[f64]) -> Result<Sun> {
        let (p, s) = (self.dim(), self.latent_dim());
        if z1.len() != idx.len() || idx.iter().any(|&i| i >= p) || idx.is_empty() || idx.len() >= p {
            return Err(Error::invalid(
                "Sun::conditional",
                "needs 1..p−1 distinct indices in range and one value each",
            ));
        }
        let rest: Vec<usize> = (0..p).filter(|i| !idx.contains(i)).collect();
        let (q1, q2) = (idx.len(), rest.len());
        let ob = self.omega_bar();
        let ob11 = Mat::from_fn(q1, q1, |i, j| ob[(idx[i], idx[j])]);
        let ob21 = Mat::from_fn(q2, q1, |i, j| ob[(rest[i], idx[j])]);
        let l11 = cholesky(ob11.as_ref(), 0)?;
        let t1: Vec<f64> = (0..q1).map(|i| (z1[i] - self.xi[idx[i]]) / self.scale[idx[i]]).collect();
        let w = solve_chol(l11.as_ref(), column(&t1).as_ref()); // Ω̄₁₁⁻¹ t₁
        let a = solve_chol(l11.as_ref(), ob21.transpose()).transpose().to_owned(); // Ω̄₂₁Ω̄₁₁⁻¹ [q2, q1]
        let delta1 = Mat::from_fn(q1, s, |i, j| self.delta[(idx[i], j)]);
        let b = solve_chol(l11.as_ref(), delta1.as_ref()); // Ω̄₁₁⁻¹Δ₁ [q1, s]
        let xi: Vec<f64> = (0..q2)
            .map(|i| self.xi[rest[i]] + self.scale[rest[i]] * (0..q1).map(|k| ob21[(i, k)] * w[(k, 0)]).sum::<f64>())
            .collect();
        let omega: Vec<f64> = (0..q2 * q2)
            .map(|k| {
                let (i, j) = (k / q2, k % q2);
                let obc = ob[(rest[i], rest[j])] - (0..q1).map(|m| a[(i, m)] * ob21[(j, m)]).sum::<f64>();
                obc * self.scale[rest[i]] * self.scale[rest[j]]
            })
            .collect();
        let delta: Vec<f64> = (0..q2 * s)
            .map(|k| {
                let (i, j) = (k / s, k % s);
                self.delta[(rest[i], j)] - (0..q1).map(|m| a[(i, m)] * delta1[(m, j)]).sum::<f64>()
            })
            .collect();
        let gamma: Vec<f64> =
            (0..s).map(|j| self.gamma[j] + (0..q1).map(|m| delta1[(m, j)] * w[(m, 0)]).sum::<f64>()).collect();
        let big_gamma: Vec<f64> = (0..s * s)
            .map(|k| {
                let (i, j) = (k / s, k % s);
                self.big_gamma[(i, j)] - (0..q1).map(|m| delta1[(m, i)] * b[(m, j)]).sum::<f64>()
            })
            .collect();
        let big_gamma = row_major(symmetrise(Mat::from_fn(s, s, |i, j| big_gamma[i * s + j]).as_ref()).as_ref());
        let scale: Vec<f64> = rest.iter().map(|&i| self.scale[i]).collect();
        Sun::with_scale(&xi, &omega, &delta, &gamma, &big_gamma, &scale)
    }

    /// Theorem 1: the posterior of `z` under this prior and the probit likelihood
    /// `Π Φ(w_i z_i)` with signs `w` (`±1`): `SUN_{p, s+p}(ξ, Ω, [Δ, Ω̄DW], [γ; Wξ],
    /// [[Γ, ΔᵀDW], [WDΔ, WΩW + I]])`.
    pub fn probit_posterior(&self, w: &[f64]) -> Result<Sun> {
        let (p, s) = (self.dim(), self.latent_dim());
        crate::data::check_binary_labels(w, p)?;
        let ob = self.omega_bar();
        let t = s + p;
        let delta: Vec<f64> = (0..p * t)
            .map(|k| {
                let (i, j) = (k / t, k % t);
                if j < s {
                    self.delta[(i, j)]
                } else {
                    ob[(i, j - s)] * self.scale[j - s] * w[j - s]
                }
            })
            .collect();
        let mut gamma = self.gamma.clone();
        gamma.extend((0..p).map(|i| w[i] * self.xi[i]));
        let (tg, _) =
            probit_selection(&self.big_gamma(), &self.delta(), &row_major(self.omega.as_ref()), &self.scale, w, s);
        Sun::with_scale(&self.xi, &row_major(self.omega.as_ref()), &delta, &gamma, &tg, &self.scale)
    }
}

/// The latent covariance of Theorem 1, `Γ̃ = [[Γ, ΔᵀDW], [WDΔ, WΩW + I]]` `[s+n, s+n]`
/// (row-major), from `Γ` `[s, s]`, `Δ` `[n, s]`, `Ω` `[n, n]`, the scale `D` and signs `w`;
/// also returns its size `s + n`.
pub(crate) fn probit_selection(
    big_gamma: &[f64],
    delta: &[f64],
    omega: &[f64],
    scale: &[f64],
    w: &[f64],
    s: usize,
) -> (Vec<f64>, usize) {
    let n = w.len();
    let t = s + n;
    let mut out = vec![0.0; t * t];
    for i in 0..t {
        for j in 0..t {
            out[i * t + j] = match (i < s, j < s) {
                (true, true) => big_gamma[i * s + j],
                (true, false) => delta[(j - s) * s + i] * scale[j - s] * w[j - s],
                (false, true) => delta[(i - s) * s + j] * scale[i - s] * w[i - s],
                (false, false) => {
                    let (a, b) = (i - s, j - s);
                    w[a] * omega[a * n + b] * w[b] + if a == b { 1.0 } else { 0.0 }
                }
            };
        }
    }
    (out, t)
}

/// `n` draws `[n, s]` of `N(0, L Lᵀ)` restricted to `v + γ > 0`, by rejection (at most
/// `1000·n + 10⁶` proposals; errors beyond). Coordinates are drawn in order and a proposal is
/// abandoned at its first violated constraint.
pub fn rejection_orthant(l: faer::MatRef<'_, f64>, gamma: &[f64], n: usize, rng: &mut StdRng) -> Result<Vec<f64>> {
    let budget = 1000 * n + 1_000_000;
    rejection_orthant_within(l, gamma, n, budget, rng).ok_or_else(|| {
        Error::invalid(
            "rejection sampling",
            format!("acceptance too low: fewer than {n} draws after {budget} proposals"),
        )
    })
}

/// [`rejection_orthant`] with at most `budget` proposals: `None` when they run out.
pub(crate) fn rejection_orthant_within(
    l: faer::MatRef<'_, f64>,
    gamma: &[f64],
    n: usize,
    budget: usize,
    rng: &mut StdRng,
) -> Option<Vec<f64>> {
    let s = gamma.len();
    let mut lower = Vec::with_capacity(s * s);
    crate::linalg::host::push_row_major(l, &mut lower);
    let mut out = Vec::with_capacity(n * s);
    let mut eta = vec![0.0; s];
    let mut v = vec![0.0; s];
    let mut tries = 0usize;
    'propose: while out.len() < n * s {
        tries += 1;
        if tries > budget {
            return None;
        }
        for i in 0..s {
            eta[i] = StandardNormal.sample(rng);
            let row = &lower[i * s..i * s + i + 1];
            v[i] = row.iter().zip(&eta[..=i]).map(|(a, b)| a * b).sum();
            if v[i] + gamma[i] <= 0.0 || v[i].is_nan() {
                continue 'propose;
            }
        }
        out.extend_from_slice(&v);
    }
    Some(out)
}
