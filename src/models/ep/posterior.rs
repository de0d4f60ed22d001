//! The EP posterior `q(u) = N(μ, Σ)` over the inducing values in whitened form, its site
//! cavities, parallel EP passes and the EP energy `log Z_q` (paper appendix A.1–A.5, eqs. 12–29), on
//! the host in f64.
//!
//! With `L = chol(K_uu)`, `Ψ = L⁻¹K_uf` and site sums in whitened coordinates
//! `A = Lᵀ S L`, `Lᵀe`: `B = I + A = L_B L_Bᵀ`, `β = L_B⁻¹ Lᵀe`, so `Σ = L B⁻¹ Lᵀ`,
//! `μ = L L_B⁻ᵀ β`, `υ_iᵀμ = (L_B⁻¹ψ_i)ᵀβ` and `υ_iᵀΣυ_i = ‖L_B⁻¹ψ_i‖²`. `B` has eigenvalues
//! ≥ 1, so its factorisation never fails for non-negative site precisions; `K_uu⁻¹ + S` is never
//! formed.
use faer::{Accum, Mat, MatRef, Par};

use super::site::{log_site_scale, site_from_tilted, tilted};
use crate::error::{check_finite, Error, Result};
use crate::linalg::host::{cholesky_lower, matmul_into, solve_lower_in_place, solve_upper_in_place};

/// Largest site precision kept (ours: `docs/papers/001-ep-classification.md`, section "Safeguards").
pub(crate) const MAX_SITE_PRECISION: f64 = 1e8;
/// A site whose cavity has `1 − ν̃ v̂` at or below this is left unchanged (improper cavity).
pub(crate) const CAVITY_GUARD: f64 = 1e-12;

/// The FITC quantities of a set of points at fixed hyperparameters.
#[derive(Clone, Debug)]
pub struct Fitc {
    /// `L = chol(K_uu)` `[m, m]` (K_uu includes σ0² and the jitter on its diagonal).
    pub l: Mat<f64>,
    /// `Ψ = L⁻¹ K_uf` `[m, n]`.
    pub psi: Mat<f64>,
    /// FITC conditional variances `s_i = k_ii − ‖ψ_i‖²`, clamped at 0 `[n]`.
    pub s: Vec<f64>,
}

impl Fitc {
    /// From `K_uu` `[m, m]`, `K_uf` `[m, n]` and the prior variances `k_ii` (σ0² included), all
    /// row-major.
    pub fn new(kuu: &[f64], kuf: &[f64], kdiag: &[f64], m: usize) -> Result<Self> {
        let n = kdiag.len();
        if kuu.len() != m * m || kuf.len() != m * n {
            return Err(Error::shape("Fitc::new: K_uu [m, m], K_uf [m, n]", [m * m, m * n], [kuu.len(), kuf.len()]));
        }
        let l = cholesky_lower(kuu, m).ok_or(Error::NotPositiveDefinite { n: m, jitter: 0.0, batch: 0 })?;
        let mut psi = MatRef::from_row_major_slice(kuf, m, n).to_owned();
        solve_lower_in_place(l.as_ref(), psi.as_mut(), Par::Seq);
        let s = (0..n).map(|i| (kdiag[i] - squared_norm(psi.col(i).iter())).max(0.0)).collect();
        Ok(Self { l, psi, s })
    }
    /// Number of inducing points.
    pub fn num_inducing(&self) -> usize {
        self.l.nrows()
    }
    /// Number of points.
    pub fn len(&self) -> usize {
        self.psi.ncols()
    }
    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The same quantities for the points `idx` only (shares `L`).
    pub fn select(&self, idx: &[usize]) -> Self {
        let m = self.num_inducing();
        let psi = Mat::from_fn(m, idx.len(), |r, k| self.psi[(r, idx[k])]);
        Self { l: self.l.clone(), psi, s: idx.iter().map(|&i| self.s[i]).collect() }
    }
    /// `A = Ψ diag(ν̃) Ψᵀ` and `Lᵀe = Ψ μ̃`: the whitened site sums with the current directions.
    pub(crate) fn site_sums(&self, nu: &[f64], mu: &[f64]) -> (Mat<f64>, Vec<f64>) {
        let (m, n) = (self.num_inducing(), self.len());
        let scaled = Mat::from_fn(m, n, |r, c| self.psi[(r, c)] * nu[c]);
        let mut a = Mat::zeros(m, m);
        matmul_into(a.as_mut(), Accum::Replace, scaled.as_ref(), self.psi.transpose(), 1.0, Par::Seq);
        let lte = (0..m).map(|r| (0..n).map(|c| self.psi[(r, c)] * mu[c]).sum()).collect();
        (a, lte)
    }
}

fn squared_norm<'a>(v: impl Iterator<Item = &'a f64>) -> f64 {
    v.map(|x| x * x).sum()
}

/// `q(u)` in whitened form: `L_B = chol(I + A)` and `β = L_B⁻¹ Lᵀe`.
#[derive(Clone, Debug)]
pub struct WhitenedPosterior {
    /// `chol(I + A)` `[m, m]`.
    pub lb: Mat<f64>,
    /// `β = L_B⁻¹ Lᵀe` `[m]`.
    pub beta: Vec<f64>,
}

/// The marginals of `t_i = υ_iᵀu` under `q`, and `G = L_B⁻¹Ψ`.
#[derive(Clone, Debug)]
pub struct Projection {
    /// `t̂_i = υ_iᵀμ`.
    pub t_hat: Vec<f64>,
    /// `v̂_i = υ_iᵀΣυ_i`.
    pub v_hat: Vec<f64>,
    /// `G = L_B⁻¹Ψ` `[m, n]`.
    pub g: Mat<f64>,
}

impl WhitenedPosterior {
    /// From the whitened site sums `A = LᵀSL` (symmetric PSD) and `Lᵀe`.
    pub fn new(mut a: Mat<f64>, lte: &[f64]) -> Result<Self> {
        let m = a.nrows();
        for i in 0..m {
            a[(i, i)] += 1.0;
        }
        let flat: Vec<f64> = (0..m * m).map(|k| a[(k / m, k % m)]).collect();
        check_finite("EP posterior: I + LᵀSL", &flat)?;
        let lb = cholesky_lower(&flat, m).ok_or(Error::NotPositiveDefinite { n: m, jitter: 0.0, batch: 0 })?;
        let mut beta = Mat::from_fn(m, 1, |r, _| lte[r]);
        solve_lower_in_place(lb.as_ref(), beta.as_mut(), Par::Seq);
        Ok(Self { lb, beta: beta.col(0).iter().copied().collect() })
    }
    /// The posterior of the current sites along their current directions (batch EP).
    pub fn from_sites(fitc: &Fitc, nu: &[f64], mu: &[f64]) -> Result<Self> {
        let (a, lte) = fitc.site_sums(nu, mu);
        Self::new(a, &lte)
    }
    /// The prior: no site contributes.
    pub fn prior(m: usize) -> Result<Self> {
        Self::new(Mat::zeros(m, m), &vec![0.0; m])
    }
    /// `g(θ) − g(θ_prior) = −Σ_j log (L_B)_jj + ½‖β‖²` (paper eqs. 27–28 in whitened form:
    /// `docs/papers/001-ep-classification.md`, section "Whitened form").
    pub fn log_normaliser_ratio(&self) -> f64 {
        let m = self.lb.nrows();
        -(0..m).map(|j| self.lb[(j, j)].ln()).sum::<f64>() + 0.5 * squared_norm(self.beta.iter())
    }
    /// Means and variances of `υ_iᵀu` for whitened directions `psi` `[m, n]` (`ψ_i = Lᵀυ_i`).
    pub fn project(&self, psi: MatRef<'_, f64>) -> Projection {
        let mut g = psi.to_owned();
        solve_lower_in_place(self.lb.as_ref(), g.as_mut(), Par::Seq);
        let n = g.ncols();
        let t_hat = (0..n).map(|c| g.col(c).iter().zip(&self.beta).map(|(x, b)| x * b).sum()).collect();
        let v_hat = (0..n).map(|c| squared_norm(g.col(c).iter())).collect();
        Projection { t_hat, v_hat, g }
    }
    /// `L_B⁻ᵀ β`, the whitened mean `L⁻¹μ`.
    pub(crate) fn whitened_mean(&self) -> Vec<f64> {
        let m = self.beta.len();
        let mut x = Mat::from_fn(m, 1, |r, _| self.beta[r]);
        solve_upper_in_place(self.lb.transpose(), x.as_mut(), Par::Seq);
        x.col(0).iter().copied().collect()
    }
    /// `μ = L L_B⁻ᵀβ` `[m]` and `R = L L_B⁻ᵀ` `[m, m]` (`Σ = RRᵀ`) in u-space.
    pub fn u_space(&self, l: MatRef<'_, f64>) -> (Vec<f64>, Mat<f64>) {
        let m = self.beta.len();
        // R = L L_B⁻ᵀ  ⇔  Rᵀ = L_B⁻¹ Lᵀ
        let mut rt = l.transpose().to_owned();
        solve_lower_in_place(self.lb.as_ref(), rt.as_mut(), Par::Seq);
        let wm = self.whitened_mean();
        let mu = (0..m).map(|r| (0..m).map(|k| l[(r, k)] * wm[k]).sum()).collect();
        (mu, rt.transpose().to_owned())
    }
}

/// The cavity of one site along its direction (paper eqs. 14–15 projected on `υ_i`;
/// `docs/papers/001-ep-classification.md`, section "Cavities"), and the detached scalars the
/// surrogate objective needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cavity {
    /// Cavity mean `a`.
    pub a: f64,
    /// Cavity variance `c`.
    pub c: f64,
    /// `κ = (ν̃t̂ − μ̃)/(1 − ν̃v̂)`, so that `a = t̂ + v̂κ`.
    pub kappa: f64,
    /// `C = ν̃/(1 − ν̃v̂)`, so that `c = v̂ + C v̂²`.
    pub cfac: f64,
    /// False when `1 − ν̃v̂ ≤` `CAVITY_GUARD`: the site cannot be removed and is left as it is.
    pub proper: bool,
}

/// The cavity of a site `(ν̃, μ̃)` whose direction has posterior mean `t̂` and variance `v̂`.
pub fn cavity(t_hat: f64, v_hat: f64, nu: f64, mu: f64) -> Cavity {
    let d = 1.0 - nu * v_hat;
    if d <= CAVITY_GUARD || !d.is_finite() {
        return Cavity { a: t_hat, c: v_hat, kappa: 0.0, cfac: 0.0, proper: false };
    }
    let (kappa, cfac) = ((nu * t_hat - mu) / d, nu / d);
    Cavity { a: t_hat + v_hat * kappa, c: v_hat / d, kappa, cfac, proper: true }
}

/// The site parameters of every training point and their counters.
#[derive(Clone, Debug, Default)]
pub struct EpSites {
    /// Site precisions `ν̃ ≥ 0`.
    pub nu: Vec<f64>,
    /// Site precision-means `μ̃`.
    pub mu: Vec<f64>,
}

impl EpSites {
    /// `n` sites that contribute nothing (q = prior).
    pub fn zeros(n: usize) -> Self {
        Self { nu: vec![0.0; n], mu: vec![0.0; n] }
    }
    /// The sites as a checkpoint blob: every `ν̃`, then every `μ̃`.
    pub(crate) fn to_blob(&self) -> Vec<u8> {
        crate::train::f64_bytes(&[&self.nu[..], &self.mu[..]].concat())
    }
    /// The sites of the next blob (one of [`to_blob`](Self::to_blob) of as many sites).
    pub(crate) fn load_blob(&mut self, blobs: &mut crate::train::BlobReader<'_>) -> Result<()> {
        let n = self.nu.len();
        let mut values = blobs.f64s(Some(2 * n))?;
        self.mu = values.split_off(n);
        self.nu = values;
        Ok(())
    }
}

/// What one EP pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassReport {
    /// Largest change of any `ν̃` or `μ̃`.
    pub max_change: f64,
    /// Sites left unchanged because their cavity was improper.
    pub skipped: usize,
}

/// Damped update of sites `idx` from their cavities: `site ← ρ·new + (1 − ρ)·old`, `ν̃` clamped to
/// `[0, MAX_SITE_PRECISION]`. `y`, `s` and `cav` are indexed like `idx`.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn update_sites(
    sites: &mut EpSites,
    idx: &[usize],
    y: &[f64],
    s: &[f64],
    cav: &[Cavity],
    damping: f64,
) -> PassReport {
    let mut report = PassReport::default();
    for (k, &i) in idx.iter().enumerate() {
        let cv = cav[k];
        if !cv.proper {
            report.skipped += 1;
            continue;
        }
        let t = tilted(y[k], cv.a, cv.c, s[k]);
        let (nu_new, mu_new) = site_from_tilted(&t, cv.a, cv.c);
        if !(nu_new.is_finite() && mu_new.is_finite()) {
            report.skipped += 1;
            continue;
        }
        let nu = (damping * nu_new + (1.0 - damping) * sites.nu[i]).clamp(0.0, MAX_SITE_PRECISION);
        let mu = damping * mu_new + (1.0 - damping) * sites.mu[i];
        report.max_change = report.max_change.max((nu - sites.nu[i]).abs()).max((mu - sites.mu[i]).abs());
        sites.nu[i] = nu;
        sites.mu[i] = mu;
    }
    report
}

/// One parallel EP pass over all points with damping `ρ` (paper appendix A.4, eq. 25): every cavity
/// from the same `q`, then every site updated.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn ep_pass(fitc: &Fitc, y: &[f64], sites: &mut EpSites, damping: f64) -> Result<PassReport> {
    let q = WhitenedPosterior::from_sites(fitc, &sites.nu, &sites.mu)?;
    let p = q.project(fitc.psi.as_ref());
    let n = fitc.len();
    let cav: Vec<Cavity> = (0..n).map(|i| cavity(p.t_hat[i], p.v_hat[i], sites.nu[i], sites.mu[i])).collect();
    let idx: Vec<usize> = (0..n).collect();
    Ok(update_sites(sites, &idx, y, &fitc.s, &cav, damping))
}

/// Parallel EP passes until the largest site change is below `tol`, at most `max_passes`;
/// returns the number of passes run and the last report.
pub fn run_ep(
    fitc: &Fitc,
    y: &[f64],
    sites: &mut EpSites,
    damping: f64,
    tol: f64,
    max_passes: usize,
) -> Result<(usize, PassReport)> {
    let mut last = PassReport::default();
    for pass in 1..=max_passes {
        last = ep_pass(fitc, y, sites, damping)?;
        if last.max_change < tol {
            return Ok((pass, last));
        }
    }
    Ok((max_passes, last))
}

/// The EP estimate of the log marginal likelihood at the given sites (paper eqs. 26–29, eq. 29
/// corrected as in `docs/papers/001-ep-classification.md`, section "Errata"):
/// `log Z_q = −Σ_j log (L_B)_jj + ½‖β‖² + Σ_i log s̃_i`.
pub fn log_z_q(fitc: &Fitc, y: &[f64], sites: &EpSites) -> Result<f64> {
    let q = WhitenedPosterior::from_sites(fitc, &sites.nu, &sites.mu)?;
    let p = q.project(fitc.psi.as_ref());
    let mut total = q.log_normaliser_ratio();
    for (i, &yi) in y.iter().enumerate().take(fitc.len()) {
        let cv = cavity(p.t_hat[i], p.v_hat[i], sites.nu[i], sites.mu[i]);
        let t = tilted(yi, cv.a, cv.c, fitc.s[i]);
        total += log_site_scale(t.log_z, sites.nu[i], sites.mu[i], cv.a, cv.c);
    }
    Ok(total)
}
