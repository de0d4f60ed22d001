//! [`FullEpPosterior`]: the EP posterior over the training latents `f` of a full (non-sparse) GP
//! classifier, in the stable form of Rasmussen & Williams (2006, §3.6.3, Algorithm 3.5 and eq.
//! 3.65; `docs/papers/000-skew-gp.md`, section "GP-EP baseline"), on the host in f64.
//!
//! With site precisions `ν̃`, precision-means `μ̃`, `S = diag(ν̃)` and prior covariance `K`:
//! `B = I + S^½KS^½ = L_B L_Bᵀ`, `Σ = K − KS^½B⁻¹S^½K`, `μ = Σμ̃ = Kb` with
//! `b = μ̃ − S^½B⁻¹S^½Kμ̃`. `B` has eigenvalues ≥ 1, so its factorisation does not fail for a
//! positive semi-definite `K` and non-negative site precisions.
use faer::{Mat, MatRef, Par};

use crate::error::{check_finite, Error, Result};
use crate::linalg::host::{cholesky_lower, inverse_from_cholesky, par_for, solve_lower_in_place, solve_upper_in_place};
use crate::models::ep::{cavity, log_site_scale, tilted, Cavity, EpSites};

/// `q(f) = N(μ, Σ)` of the sites at one prior covariance `K`.
#[derive(Clone, Debug)]
pub struct FullEpPosterior {
    /// `L_B = chol(I + S^½KS^½)` `[n, n]`.
    pub lb: Mat<f64>,
    /// `√ν̃` `[n]`.
    pub(crate) sqrt_nu: Vec<f64>,
    /// `b = K⁻¹μ` `[n]`: the predictive mean at `x*` is `k(X, x*)ᵀb`.
    pub b: Vec<f64>,
}

impl FullEpPosterior {
    /// The posterior of `sites` under the prior covariance `k` `[n, n]` (symmetric; its jitter
    /// included): one Cholesky factor, `n³/3` flops.
    pub fn new(k: MatRef<'_, f64>, sites: &EpSites) -> Result<Self> {
        let n = k.nrows();
        if k.ncols() != n || sites.nu.len() != n || sites.mu.len() != n {
            return Err(Error::shape(
                "FullEpPosterior: K [n, n], site precisions, site means",
                [n, n, n, n],
                [k.nrows(), k.ncols(), sites.nu.len(), sites.mu.len()],
            ));
        }
        check_finite("site precisions", &sites.nu)?;
        check_finite("site precision-means", &sites.mu)?;
        let sqrt_nu: Vec<f64> = sites.nu.iter().map(|v| v.max(0.0).sqrt()).collect();
        let mut b = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                b[i * n + j] = sqrt_nu[i] * k[(i, j)] * sqrt_nu[j];
            }
            b[i * n + i] += 1.0;
        }
        check_finite("full EP posterior: I + S^½KS^½", &b)?;
        let lb = cholesky_lower(&b, n).ok_or(Error::NotPositiveDefinite { n, jitter: 0.0, batch: 0 })?;
        // b = μ̃ − S^½ L_B⁻ᵀ L_B⁻¹ S^½ K μ̃
        let mut t = Mat::from_fn(n, 1, |i, _| sqrt_nu[i] * (0..n).map(|j| k[(i, j)] * sites.mu[j]).sum::<f64>());
        solve_lower_in_place(lb.as_ref(), t.as_mut(), Par::Seq);
        solve_upper_in_place(lb.transpose(), t.as_mut(), Par::Seq);
        let b = (0..n).map(|i| sites.mu[i] - sqrt_nu[i] * t[(i, 0)]).collect();
        Ok(Self { lb, sqrt_nu, b })
    }

    /// Number of training points.
    pub fn len(&self) -> usize {
        self.b.len()
    }

    /// True when there are no training points.
    pub fn is_empty(&self) -> bool {
        self.b.is_empty()
    }

    /// Latent means and variances at the points whose cross-covariances with the training
    /// inputs are the columns of `kx` `[n, m]` and whose prior variances are `kdiag` `[m]`:
    /// `kxᵀb` and `kdiag − ‖L_B⁻¹S^½kx‖²` (Algorithm 3.6; `n²m/2` flops). With `kx = K` and
    /// `kdiag = diag K` these are the training marginals of `q`.
    pub fn latent(&self, kx: MatRef<'_, f64>, kdiag: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
        let (n, m) = (kx.nrows(), kx.ncols());
        if n != self.len() || kdiag.len() != m {
            return Err(Error::shape(
                "FullEpPosterior::latent: k(X, x*) [n, m], k(x*, x*) [m]",
                [self.len(), m],
                [n, kdiag.len()],
            ));
        }
        let mean = (0..m).map(|j| (0..n).map(|i| kx[(i, j)] * self.b[i]).sum()).collect();
        let mut v = Mat::from_fn(n, m, |i, j| self.sqrt_nu[i] * kx[(i, j)]);
        solve_lower_in_place(self.lb.as_ref(), v.as_mut(), par_for(n));
        let var = (0..m).map(|j| (kdiag[j] - v.col(j).iter().map(|x| x * x).sum::<f64>()).max(0.0)).collect();
        Ok((mean, var))
    }

    /// `log Z_EP` (R&W eq. 3.65 in the form of `docs/papers/000-skew-gp.md`, section "GP-EP
    /// baseline"): `−Σ_j log (L_B)_jj + ½μ̃ᵀμ + Σ_i log s̃_i`, with each `log s̃_i` from the cavity
    /// of the training marginal `N(mean_i, var_i)` (from [`Self::latent`] at `K`) and labels
    /// `y = ±1`; also returns the cavities.
    pub fn log_z(&self, mean: &[f64], var: &[f64], y: &[f64], sites: &EpSites) -> (f64, Vec<Cavity>) {
        let n = self.len();
        let ratio = -(0..n).map(|j| self.lb[(j, j)].ln()).sum::<f64>()
            + 0.5 * sites.mu.iter().zip(mean).map(|(a, b)| a * b).sum::<f64>();
        let cav: Vec<Cavity> = (0..n).map(|i| cavity(mean[i], var[i], sites.nu[i], sites.mu[i])).collect();
        let scales: f64 = (0..n)
            .map(|i| {
                let t = tilted(y[i], cav[i].a, cav[i].c, 0.0);
                log_site_scale(t.log_z, sites.nu[i], sites.mu[i], cav[i].a, cav[i].c)
            })
            .sum();
        (ratio + scales, cav)
    }

    /// `G = bbᵀ − S^½B⁻¹S^½` `[n, n]` row-major: `∂log Z_EP/∂θ = ½ tr(G ∂K/∂θ)` with the sites
    /// held fixed (R&W eq. 5.27; at an EP fixed point this is the gradient of the converged
    /// `log Z_EP`). `2n³/3` flops.
    pub(crate) fn gradient_weights(&self) -> Vec<f64> {
        let n = self.len();
        let inv = inverse_from_cholesky(self.lb.as_ref());
        let mut g = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                g[i * n + j] = self.b[i] * self.b[j] - self.sqrt_nu[i] * inv[(i, j)] * self.sqrt_nu[j];
            }
        }
        g
    }
}
