//! [`SkewGpPosterior`]: the exact SUN posterior of Theorem 1 at the training inputs (host f64),
//! its evidence (Corollary 1) and predictive probability (Corollary 2) by Genz, lin-ess draws of
//! its latent truncated normal `U₁`, and predictions by the joint-marginal route B (default) and
//! the paper's Theorem 2 route A.
use std::sync::Arc;

use burn::module::Module;
use burn::tensor::Tensor;
use faer::Mat;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::prior::SkewGp;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::models::ClassPredictive;
use crate::mvn::{
    cholesky_host, genz_order, gibbs_orthant, independent_groups, log_mvn_cdf_exact, log_mvn_cdf_host, minimax_shift,
    permute, probit_selection, rejection_orthant_within, row_major, solve_chol, solve_lower, symmetrise,
    tilted_log_cdf, tilted_log_means_with_last, ChainConfig, ChainStart, LinEss, LinEssVariant, MvnEstimate, QmcPoints,
    TruncatedNormal,
};
use crate::special::norm_cdf;
use crate::tensors::to_vec;

/// Route A: rejection proposals per test-latent draw of `V₁` before falling back to Gibbs.
const ROUTE_A_PROPOSALS: usize = 2000;

/// Route A: Gibbs sweeps per draw of `V₁` when rejection's acceptance is below `1/2000`.
const ROUTE_A_GIBBS_SWEEPS: usize = 50;

/// Test points per chunk of a prediction (bounds the `[m, n]` cross-covariance in memory).
const PREDICT_CHUNK: usize = 1024;

/// Test points per shared Genz pass of the exact ratios (bounds their `c` vectors and the
/// per-chunk partial sums in memory; each chunk repeats the denominator's factors).
const EXACT_CHUNK: usize = 4096;

/// Per-test-point predictive summaries.
#[derive(Clone, Debug, Default)]
pub struct Prediction {
    /// `p(y* = 1 | x*, D)`.
    pub prob: Vec<f64>,
    /// `q = Pr(f* > 0 | D)`, the posterior probability that the hard decision is class 1.
    pub hard_prob: Vec<f64>,
    /// Standard deviation of the hard decision `1{f* > 0}` over the posterior, `√(q(1 − q))`
    /// (the "second-order uncertainty" of the paper's Fig. 11).
    pub decision_std: Vec<f64>,
    /// Posterior mean of the latent `f*`.
    pub latent_mean: Vec<f64>,
    /// Posterior variance of `f*`.
    pub latent_var: Vec<f64>,
    /// Posterior skewness `E[(f* − μ)³] / E[(f* − μ)²]^{3/2}` of `f*`.
    pub skewness: Vec<f64>,
}

/// Posterior draws of `U₁` and what route B reuses from them.
#[derive(Clone, Debug)]
struct Draws {
    /// `U₁` draws `[S, s + n]`.
    u1: Mat<f64>,
    /// `C⁻¹ U₁ᵀ` `[s + n, S]` (`Γ̃ = C Cᵀ`).
    whitened: Mat<f64>,
}

/// The skew GP posterior at the training inputs: `f(X) | D ~ SUN_{n, s+n}(0, Ω, Δ̃, γ̃, Γ̃)`.
#[derive(Debug)]
pub struct SkewGpPosterior<K: Module> {
    model: SkewGp<K>,
    sun: Arc<SunState>,
}

/// The host state of a [`SkewGpPosterior`] beside its prior (shared, not copied, by the fitted
/// [`SkewGp`] that holds it).
#[derive(Debug, Clone)]
pub(crate) struct SunState {
    x: Tensor<2>,
    w: Vec<f64>,
    /// `D = diag(K(X, X) + jitter)^{1/2}`.
    scale: Vec<f64>,
    /// `γ̃ = [γ; 0]`.
    gamma_tilde: Vec<f64>,
    /// `Γ̃`.
    cov: Mat<f64>,
    /// Lower Cholesky factor of `Γ̃`.
    chol: Mat<f64>,
    draws: Option<Draws>,
}

impl<K: Kernel> SkewGpPosterior<K> {
    /// Theorem 1 for the prior `model` (a model without autodiff) and the training rows `x`
    /// `[n, p]` with labels `y ∈ {0, 1}`: checks that the prior's joint matrix `M` (eq. 2) is
    /// positive definite ([`Error::NotPositiveDefinite`] otherwise, e.g. a pseudo-point on a
    /// training input with no nugget), builds `γ̃`, `Γ̃` and factors `Γ̃` (host f64).
    pub fn new(model: SkewGp<K>, x: Tensor<2>, y: &[usize]) -> Result<Self> {
        let w = model.signs(&x, y)?;
        let n = w.len();
        let s = model.latent_dim();
        let omega = to_vec(model.k_self(x.clone()));
        let scale = to_vec(model.scale(x.clone()));
        let delta = model.skewness(x.clone()).map(to_vec).unwrap_or_default();
        let big_gamma = model.latent_cov().map(to_vec).unwrap_or_default();
        check_joint_matrix(&omega, &scale, &delta, &big_gamma, s)?;
        let (cov, t) = probit_selection(&big_gamma, &delta, &omega, &scale, &w, s);
        let cov = Mat::from_fn(t, t, |i, j| cov[i * t + j]);
        let chol = cholesky_host(cov.as_ref(), 0)?;
        let mut gamma_tilde = model.gamma_host();
        gamma_tilde.extend(std::iter::repeat_n(0.0, n));
        Ok(Self { model, sun: Arc::new(SunState { x, w, scale, gamma_tilde, cov, chol, draws: None }) })
    }

    /// The prior.
    pub fn model(&self) -> &SkewGp<K> {
        &self.model
    }
    /// The posterior of prior `model` with the host state `sun` (how a fitted [`SkewGp`] lends
    /// out its posterior).
    pub(crate) fn from_parts(model: SkewGp<K>, sun: Arc<SunState>) -> Self {
        Self { model, sun }
    }
    /// The host state, shared.
    pub(crate) fn sun(&self) -> Arc<SunState> {
        Arc::clone(&self.sun)
    }
    /// The training inputs `[n, p]` the posterior conditions on.
    pub fn training_inputs(&self) -> &Tensor<2> {
        &self.sun.x
    }
    /// The training labels in `{0, 1}`.
    pub fn labels(&self) -> Vec<usize> {
        self.sun.w.iter().map(|&w| usize::from(w > 0.0)).collect()
    }
    /// `γ̃` `[s + n]`.
    pub fn gamma_tilde(&self) -> &[f64] {
        &self.sun.gamma_tilde
    }
    /// `Γ̃` row-major `[s + n, s + n]`.
    pub fn gamma_tilde_cov(&self) -> Vec<f64> {
        row_major(self.sun.cov.as_ref())
    }
    /// The lower Cholesky factor of `Γ̃`, row-major.
    pub fn gamma_tilde_chol(&self) -> Vec<f64> {
        row_major(self.sun.chol.as_ref())
    }

    /// Corollary 1: `ln p(D) = ln Φ_{s+n}(γ̃; Γ̃) − ln Φ_s(γ; Γ)` (Genz with `points`, of
    /// dimension `≥ s + n − 1`, beyond three dimensions; the standard error is that of the
    /// numerator).
    pub fn log_evidence(&self, points: &QmcPoints) -> Result<MvnEstimate> {
        let num = log_mvn_cdf_host(&self.sun.gamma_tilde, &self.gamma_tilde_cov(), points)?;
        let s = self.model.latent_dim();
        let big_gamma: Vec<f64> = (0..s * s).map(|k| self.sun.cov[(k / s, k % s)]).collect();
        let den = log_mvn_cdf_host(&self.sun.gamma_tilde[..s], &big_gamma, points)?;
        Ok(MvnEstimate { log_p: num.log_p - den.log_p, std_err: (num.std_err.powi(2) + den.std_err.powi(2)).sqrt() })
    }

    /// The test-point pieces `(ω* [m], Δ(X*) [m, s] row-major, K(X*, X) [m, n] row-major)`.
    fn test_pieces(&self, x_test: &Tensor<2>) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let omega = to_vec(self.model.scale(x_test.clone()));
        let delta = self.model.skewness(x_test.clone()).map(to_vec).unwrap_or_default();
        let kxn = to_vec(self.model.kernel.k(x_test.clone(), self.sun.x.clone()));
        (omega, delta, kxn)
    }

    /// Checks test inputs against the training inputs' width.
    fn check_test(&self, x_test: &Tensor<2>) -> Result<usize> {
        crate::models::check_inputs("SkewGpPosterior: test inputs", x_test, Some(self.sun.x.dims()[1]))
    }

    /// Corollary 2 (eq. (13)) written out (the paper's dummy label `1/2` read as in
    /// `docs/papers/000-skew-gp.md`, section "Errata"): `p(y* = 1 | x*, D) = Φ_{s+n+1}(γ̃*; Γ̃*) /
    /// Φ_{s+n}(γ̃; Γ̃)`, `Γ̃* = [[Γ̃, c], [cᵀ, K(x*, x*) + 1]]`, `c = [ω* Δ(x*)ᵀ; W K(X, x*)]`.
    ///
    /// Only the independent groups of variables ([`independent_groups`]) that `x*` is correlated
    /// with enter (the others cancel, negligible ones are dropped). Beyond three dimensions
    /// numerator and denominator are estimated with common random numbers: the variables in
    /// Genz's greedy order, `x*` last, the same `points` (dimension `≥ s + n`), each point mapped
    /// to a draw of the denominator's truncated normal by Botev's minimax exponential tilting
    /// (Genz's separation of variables with the shifts that solve the minimax problem,
    /// [`crate::mvn::tilted_log_cdf`]). The ratio is then an importance-sampling average of
    /// `x*`'s conditional probability with even weights; Genz's own weights, on posteriors of a
    /// few hundred training points, concentrate on a few points and bias the ratios (see
    /// `docs/results/log/skew_gp-minimax-tilting.md`). The test points that touch the same groups
    /// share one pass over `points`: the denominator's factors are computed once a point and
    /// each test point adds its last one, so `m` test points cost `O(N(t² + m t))` for `N`
    /// points and `t` variables, not `O(m N t²)`, plus one Newton solve of dimension `2(t − 1)`
    /// per group. No Markov chain is involved, so this is the low-variance prediction (lin-ess
    /// draws of `U₁` mix slowly on such posteriors). Where a label's probability is tiny, refine
    /// it with [`Self::refine_small_probabilities`].
    pub fn predict_exact(&self, x_test: &Tensor<2>, points: &QmcPoints) -> Result<Vec<f64>> {
        self.exact_ratios(x_test, points, 1.0)
    }

    /// `q = Pr(f* > 0 | D)` by the same ratio as [`Self::predict_exact`] without the probit
    /// noise (`K(x*, x*)` in place of `K(x*, x*) + 1`): the posterior probability that the hard
    /// decision is class 1; its decision standard deviation is `√(q(1 − q))`.
    pub fn predict_exact_hard(&self, x_test: &Tensor<2>, points: &QmcPoints) -> Result<Vec<f64>> {
        self.exact_ratios(x_test, points, 0.0)
    }

    /// `Φ_{t+1}([γ̃; 0]; [[Γ̃, c], [cᵀ, K(x*, x*) + noise]]) / Φ_t(γ̃; Γ̃)` per test point, in
    /// chunks of [`EXACT_CHUNK`] test points.
    fn exact_ratios(&self, x_test: &Tensor<2>, points: &QmcPoints, noise: f64) -> Result<Vec<f64>> {
        let m = self.check_test(x_test)?;
        if m <= EXACT_CHUNK {
            return self.exact_ratios_chunk(x_test, points, noise, 0);
        }
        let mut out = Vec::with_capacity(m);
        for start in (0..m).step_by(EXACT_CHUNK) {
            let rows: Vec<usize> = (start..(start + EXACT_CHUNK).min(m)).collect();
            out.extend(self.exact_ratios_chunk(&crate::models::select_rows(x_test, &rows), points, noise, start)?);
        }
        Ok(out)
    }

    /// [`Self::exact_ratios`] for one chunk of test points (`first`: the index of its first test
    /// point, for errors): the test points are grouped by the variables they touch, and each
    /// group's ratios come from one Genz pass over its denominator
    /// ([`Denominator::ratios_with_last`]).
    fn exact_ratios_chunk(&self, x_test: &Tensor<2>, points: &QmcPoints, noise: f64, first: usize) -> Result<Vec<f64>> {
        let m = x_test.dims()[0];
        let (omega, delta, kxn) = self.test_pieces(x_test);
        let cov = self.gamma_tilde_cov();
        let groups = independent_groups(&self.sun.gamma_tilde, &cov);
        let mut sets: Vec<RatioGroup> = Vec::new();
        for j in 0..m {
            let (u, cu) = self.touched_columns(&groups, &omega, &delta, &kxn, j);
            match sets.iter_mut().find(|g| g.vars == u) {
                Some(g) => g.rows.push((j, cu)),
                None => sets.push(RatioGroup { vars: u, rows: vec![(j, cu)] }),
            }
        }
        let mut out = vec![0.0; m];
        for RatioGroup { vars, rows } in &sets {
            let (ua, uc) = permute(&self.sun.gamma_tilde, &cov, vars);
            let denominator = Denominator::new(ua, uc, first + rows[0].0)?;
            let last: Vec<(usize, &[f64], f64)> =
                rows.iter().map(|(j, cu)| (first + *j, cu.as_slice(), omega[*j] * omega[*j] + noise)).collect();
            for ((j, _, _), p) in last.iter().zip(denominator.ratios_with_last(&last, points)?) {
                out[*j - first] = p;
            }
        }
        Ok(out)
    }

    /// Test point `j`'s column `c = [ω* Δ(x*)ᵀ; W K(X, x*)]` restricted to the variables of the
    /// independent `groups` it touches: `(variables, sorted; c at them)`.
    fn touched_columns(
        &self,
        groups: &[Vec<usize>],
        omega: &[f64],
        delta: &[f64],
        kxn: &[f64],
        j: usize,
    ) -> (Vec<usize>, Vec<f64>) {
        let (t, s, n) = (self.sun.gamma_tilde.len(), self.model.latent_dim(), self.sun.w.len());
        let c: Vec<f64> = (0..t)
            .map(|i| if i < s { omega[j] * delta[j * s + i] } else { self.sun.w[i - s] * kxn[j * n + (i - s)] })
            .collect();
        let mut u: Vec<usize> = groups.iter().filter(|g| g.iter().any(|&i| c[i] != 0.0)).flatten().copied().collect();
        u.sort_unstable();
        let cu = u.iter().map(|&i| c[i]).collect();
        (u, cu)
    }

    /// Corollary 2's ratio again, by minimax exponential tilting ([`tilted_log_cdf`]), at the
    /// test points whose `prob` (from [`Self::predict_exact`] at the same `x_test`) or its
    /// complement is below `below`: the smaller of `p(y* = 1)` and `p(y* = 0)` is
    /// `Φ_{t+1}/Φ_t` with the test variable's sign chosen, numerator and denominator each
    /// tilted at `points` (dimension `≥ s + n`). The shared pass of [`Self::predict_exact`] is
    /// tilted towards the denominator's mass, not each numerator's: where a label is improbable
    /// few of its draws land where that numerator's mass is, and its relative error grows; a
    /// numerator tilted on its own keeps it bounded (on a car_evaluation row of probability
    /// 10⁻⁶ the two differed by a factor of 1.3, Genz's untilted lattice by orders of magnitude;
    /// see `docs/results/skew_gp.md`). Test points whose variables form groups of fewer than
    /// three are exact already and are left alone. Returns how many were refined.
    pub fn refine_small_probabilities(
        &self,
        x_test: &Tensor<2>,
        prob: &mut [f64],
        below: f64,
        points: &QmcPoints,
    ) -> Result<usize> {
        let m = self.check_test(x_test)?;
        if prob.len() != m {
            return Err(Error::shape("refine_small_probabilities: prob [m]", m, prob.len()));
        }
        if below.is_nan() || below < 0.0 {
            return Err(Error::invalid("refine_small_probabilities: below", format!("{below} is not a probability")));
        }
        let rows: Vec<usize> = (0..m).filter(|&j| prob[j].min(1.0 - prob[j]) < below).collect();
        let cov = self.gamma_tilde_cov();
        let groups = independent_groups(&self.sun.gamma_tilde, &cov);
        let mut denominators: Vec<(Vec<usize>, f64)> = Vec::new();
        let mut refined = 0;
        for chunk in rows.chunks(PREDICT_CHUNK) {
            let (omega, delta, kxn) = self.test_pieces(&crate::models::select_rows(x_test, chunk));
            for (k, &j) in chunk.iter().enumerate() {
                let (u, cu) = self.touched_columns(&groups, &omega, &delta, &kxn, k);
                if u.len() < 3 {
                    continue;
                }
                let (ua, uc) = permute(&self.sun.gamma_tilde, &cov, &u);
                let log_den = match denominators.iter().find(|(v, _)| *v == u) {
                    Some((_, l)) => *l,
                    None => {
                        let l = tilted_log_cdf(&ua, &uc, points)?.log_p;
                        denominators.push((u.clone(), l));
                        l
                    }
                };
                let sign = if prob[j] < 0.5 { 1.0 } else { -1.0 };
                let signed: Vec<f64> = cu.iter().map(|c| sign * c).collect();
                let (a, full) = bordered(&ua, &uc, &signed, omega[k] * omega[k] + 1.0);
                let small = (tilted_log_cdf(&a, &full, points)?.log_p - log_den).exp();
                prob[j] = if sign > 0.0 { small } else { 1.0 - small };
                refined += 1;
            }
        }
        Ok(refined)
    }

    /// Draws `U₁ ~ N(0, Γ̃)` restricted to `U₁ + γ̃ > 0` by lin-ess (chains batched on the device of
    /// the training inputs, started as `start` says) and keeps them for [`Self::predict`]; returns
    /// the number of rounding rejections.
    pub fn sample(&mut self, config: &ChainConfig, variant: LinEssVariant, start: ChainStart) -> Result<usize> {
        let target = TruncatedNormal::orthant(&self.gamma_tilde_chol(), &self.sun.gamma_tilde, &self.sun.x.device())?;
        let starts = target.starts(config.chains, start, &mut StdRng::seed_from_u64(config.seed ^ 0x57a7))?;
        let run = LinEss::new(target, variant).run(config, starts.as_deref())?;
        let t = self.sun.gamma_tilde.len();
        self.set_draws(to_vec(run.samples), t)?;
        Ok(run.rounding_rejections)
    }

    /// Uses the given draws of `U₁` (row-major `[S, s + n]`, e.g. exact rejection draws in tests);
    /// every draw must satisfy `U₁ + γ̃ > 0`.
    pub fn set_draws(&mut self, u1: Vec<f64>, t: usize) -> Result<()> {
        if t != self.sun.gamma_tilde.len() || u1.is_empty() || !u1.len().is_multiple_of(t) {
            return Err(Error::shape("SkewGpPosterior: U₁ draws [S, s + n]", self.sun.gamma_tilde.len(), t));
        }
        let count = u1.len() / t;
        if let Some(k) = (0..u1.len())
            .find(|&k| (u1[k] + self.sun.gamma_tilde[k % t]).is_nan() || u1[k] + self.sun.gamma_tilde[k % t] <= 0.0)
        {
            return Err(Error::invalid("U₁ draws", format!("draw {} breaks constraint {}", k / t, k % t)));
        }
        let u1 = Mat::from_fn(count, t, |r, c| u1[r * t + c]);
        let whitened = solve_lower(self.sun.chol.as_ref(), u1.transpose());
        Arc::make_mut(&mut self.sun).draws = Some(Draws { u1, whitened });
        Ok(())
    }

    /// The kept `U₁` draws `[S, s + n]`, if sampled.
    pub fn draws(&self) -> Option<Vec<f64>> {
        self.sun
            .draws
            .as_ref()
            .map(|d| (0..d.u1.nrows() * d.u1.ncols()).map(|k| d.u1[(k / d.u1.ncols(), k % d.u1.ncols())]).collect())
    }

    /// The predictive at the rows of `x_test` as every classifier gives it: decisions and class
    /// probabilities from [`predict_details`](Self::predict_details) (route B), with the
    /// latent posterior mean and variance as the class-1 marginal (see
    /// [`ClassPredictive::binary`]). Needs [`Self::sample`] (or [`Self::set_draws`]) first.
    pub fn predict(&self, x_test: &Tensor<2>) -> Result<ClassPredictive> {
        let p = self.predict_details(x_test)?;
        ClassPredictive::binary(&p.latent_mean, &p.latent_var, &p.prob)
    }

    /// Route B (Theorem 1 with the marginal (3) at the test inputs; `docs/papers/000-skew-gp.md`,
    /// section "Prediction"), Rao-Blackwellised: with `a_j = Γ̃⁻¹Δ̃_{*j}ᵀ`,
    /// `v_j = 1 − Δ̃_{*j}a_j` and `μ_jk = ω_j a_jᵀU₁⁽ᵏ⁾`, `f*_j | U₁⁽ᵏ⁾ ~ N(μ_jk, ω_j² v_j)`:
    /// `p_j = mean_k Φ(μ_jk/√(1 + ω_j²v_j))`, `q_j = mean_k Φ(μ_jk/(ω_j√v_j))`, and the moments
    /// of the normal mixture. Needs [`Self::sample`] (or [`Self::set_draws`]) first.
    pub fn predict_details(&self, x_test: &Tensor<2>) -> Result<Prediction> {
        let m = self.check_test(x_test)?;
        let draws = self.sun.draws.as_ref().ok_or_else(|| Error::invalid("predict", "sample the posterior first"))?;
        let mut out = Prediction::default();
        for start in (0..m).step_by(PREDICT_CHUNK) {
            let end = (start + PREDICT_CHUNK).min(m);
            let idx: Vec<usize> = (start..end).collect();
            let part = crate::models::select_rows(x_test, &idx);
            self.predict_chunk(&part, draws, &mut out);
        }
        Ok(out)
    }

    /// Route B on one chunk of test rows, appended to `out`.
    fn predict_chunk(&self, x_test: &Tensor<2>, draws: &Draws, out: &mut Prediction) {
        let m = x_test.dims()[0];
        let (t, s, n) = (self.sun.gamma_tilde.len(), self.model.latent_dim(), self.sun.w.len());
        let (omega, delta, kxn) = self.test_pieces(x_test);
        let dt = Mat::from_fn(t, m, |i, j| {
            if i < s {
                delta[j * s + i]
            } else {
                self.sun.w[i - s] * kxn[j * n + i - s] / omega[j]
            }
        });
        let a = solve_lower(self.sun.chol.as_ref(), dt.as_ref());
        let mu = a.transpose() * &draws.whitened; // [m, S]
        let samples = draws.u1.nrows() as f64;
        for j in 0..m {
            let v = (1.0 - (0..t).map(|i| a[(i, j)].powi(2)).sum::<f64>()).max(0.0);
            let (w, var0) = (omega[j], omega[j] * omega[j] * v);
            let mus: Vec<f64> = (0..mu.ncols()).map(|k| w * mu[(j, k)]).collect();
            let mean = mus.iter().sum::<f64>() / samples;
            let prob = mus.iter().map(|u| norm_cdf(u / (1.0 + var0).sqrt())).sum::<f64>() / samples;
            let q = if var0 > 0.0 {
                mus.iter().map(|u| norm_cdf(u / var0.sqrt())).sum::<f64>() / samples
            } else {
                mus.iter().filter(|u| **u > 0.0).count() as f64 / samples
            };
            let m2 = mus.iter().map(|u| (u - mean).powi(2)).sum::<f64>() / samples;
            let m3 = mus.iter().map(|u| (u - mean).powi(3)).sum::<f64>() / samples;
            let var = m2 + var0;
            out.prob.push(prob);
            out.hard_prob.push(q);
            out.decision_std.push((q * (1.0 - q)).max(0.0).sqrt());
            out.latent_mean.push(mean);
            out.latent_var.push(var);
            out.skewness.push(if var > 0.0 { m3 / var.powf(1.5) } else { 0.0 });
        }
    }

    /// Eq. (15): draws of the training latents `f(X) = D(U₀ + Δ̃Γ̃⁻¹U₁)`, one per kept `U₁`,
    /// `[S, n]` (host), with `U₀ ~ N(0, Ω̄ − Δ̃Γ̃⁻¹Δ̃ᵀ)` (symmetrised; jitter if needed).
    pub(crate) fn sample_training_latents(&self, seed: u64) -> Result<Mat<f64>> {
        let draws = self.sun.draws.as_ref().ok_or_else(|| Error::invalid("sample_training_latents", "sample first"))?;
        let (t, s, n) = (self.sun.gamma_tilde.len(), self.model.latent_dim(), self.sun.w.len());
        // Δ̃ᵀ [t, n] = [Δᵀ; W D Ω̄]: Γ̃'s last n columns without the identity, divided by D W
        let dtil_t = Mat::from_fn(t, n, |i, j| {
            let v = self.sun.cov[(i, s + j)] - if i == s + j { 1.0 } else { 0.0 };
            v * self.sun.w[j] / self.sun.scale[j]
        });
        let b = solve_lower(self.sun.chol.as_ref(), dtil_t.as_ref()); // C⁻¹Δ̃ᵀ
        let obar = Mat::from_fn(n, n, |i, j| {
            let k = self.sun.w[i] * (self.sun.cov[(s + i, s + j)] - if i == j { 1.0 } else { 0.0 }) * self.sun.w[j];
            k / (self.sun.scale[i] * self.sun.scale[j])
        });
        let cov0 = &obar - b.transpose() * &b;
        let l0 = cholesky_host(symmetrise(cov0.as_ref()).as_ref(), 0)?;
        let skew = b.transpose() * &draws.whitened; // [n, S]
        let count = draws.u1.nrows();
        let mut rng = StdRng::seed_from_u64(seed);
        let eta = Mat::from_fn(n, count, |_, _| -> f64 { StandardNormal.sample(&mut rng) });
        let u0 = &l0 * &eta;
        Ok(Mat::from_fn(count, n, |k, i| self.sun.scale[i] * (u0[(i, k)] + skew[(i, k)])))
    }

    /// Route A (the paper's Theorem 2): for every training-latent draw `f⁽ᵏ⁾` (eq. 15), the test
    /// latent is `SUN_{1,s}(ξ*, Ω*, Δ*, γ*⁽ᵏ⁾, Γ*)`; `V₁` is drawn by rejection and the Gaussian
    /// part integrated out: `p = mean_k Φ((ξ*⁽ᵏ⁾ + ω*Δ*Γ*⁻¹V₁⁽ᵏ⁾)/√(1 + ω*²σ₀²))`. `O(n³)` once,
    /// then `O(n²)` per test point; meant for small problems and tests.
    pub fn predict_route_a(&self, x_test: &Tensor<2>, seed: u64) -> Result<Vec<f64>> {
        let m = self.check_test(x_test)?;
        let f = self.sample_training_latents(seed)?; // [S, n]
        let (s, n) = (self.model.latent_dim(), self.sun.w.len());
        let count = f.nrows();
        let (omega, delta_star, kxn) = self.test_pieces(x_test);
        // K = D Ω̄ D from Γ̃'s lower block: W K W + I
        let kmat = Mat::from_fn(n, n, |i, j| {
            self.sun.w[i] * (self.sun.cov[(s + i, s + j)] - if i == j { 1.0 } else { 0.0 }) * self.sun.w[j]
        });
        let lk = cholesky_host(kmat.as_ref(), 0)?;
        // Δ(X) [n, s] from Γ̃'s off-diagonal block: W D Δ
        let delta_x = Mat::from_fn(n, s, |i, j| self.sun.cov[(s + i, j)] * self.sun.w[i] / self.sun.scale[i]);
        let ddelta = Mat::from_fn(n, s, |i, j| self.sun.scale[i] * delta_x[(i, j)]); // D Δ(X)
        let kinv_ddelta = solve_chol(lk.as_ref(), ddelta.as_ref()); // K⁻¹DΔ [n, s]
        let kinv_f = solve_chol(lk.as_ref(), f.transpose()); // K⁻¹f [n, S]
        let big_gamma = Mat::from_fn(s, s, |i, j| self.sun.cov[(i, j)]);
        let gamma_star = symmetrise((&big_gamma - ddelta.transpose() * &kinv_ddelta).as_ref());
        let gamma_base = &self.sun.gamma_tilde[..s];
        // γ*⁽ᵏ⁾ = γ + ΔᵀDK⁻¹f⁽ᵏ⁾ : [s, S]
        let gshift = ddelta.transpose() * &kinv_f;
        let lg = if s > 0 { Some(cholesky_host(gamma_star.as_ref(), 0)?) } else { None };
        let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
        let mut out = Vec::with_capacity(m);
        for j in 0..m {
            let kx = Mat::from_fn(n, 1, |i, _| kxn[j * n + i]);
            let alpha = solve_chol(lk.as_ref(), kx.as_ref()); // K⁻¹k*
            let w = omega[j];
            let omega_star = w * w - (0..n).map(|i| kx[(i, 0)] * alpha[(i, 0)]).sum::<f64>();
            // Δ* = Δ(x*) − αᵀDΔ(X)/ω*
            let dstar: Vec<f64> = (0..s)
                .map(|c| delta_star[j * s + c] - (0..n).map(|i| alpha[(i, 0)] * ddelta[(i, c)]).sum::<f64>() / w)
                .collect();
            let (coef, sigma0) = match &lg {
                Some(lg) => {
                    let c = solve_chol(lg.as_ref(), Mat::from_fn(s, 1, |i, _| dstar[i]).as_ref()); // Γ*⁻¹Δ*ᵀ
                    let q: f64 = (0..s).map(|i| c[(i, 0)] * dstar[i]).sum();
                    ((0..s).map(|i| c[(i, 0)]).collect::<Vec<f64>>(), (omega_star / (w * w) - q).max(0.0))
                }
                None => (Vec::new(), (omega_star / (w * w)).max(0.0)),
            };
            let mut total = 0.0;
            for k in 0..count {
                let xi: f64 = (0..n).map(|i| alpha[(i, 0)] * f[(k, i)]).sum();
                let skew = match &lg {
                    Some(lg) => {
                        let g: Vec<f64> = (0..s).map(|c| gamma_base[c] + gshift[(c, k)]).collect();
                        let v1 = rejection_orthant_within(lg.as_ref(), &g, 1, ROUTE_A_PROPOSALS, &mut rng)
                            .unwrap_or_else(|| gibbs_orthant(lg.as_ref(), &g, ROUTE_A_GIBBS_SWEEPS, &mut rng));
                        (0..s).map(|c| coef[c] * v1[c]).sum::<f64>()
                    }
                    None => 0.0,
                };
                total += norm_cdf((xi + w * skew) / (1.0 + w * w * sigma0).sqrt());
            }
            out.push(total / count as f64);
        }
        Ok(out)
    }
}

/// Checks that `M = [[Γ, Δᵀ], [Δ, Ω̄]]` is positive definite, without jitter: `Ω̄ = D⁻¹ΩD⁻¹` by
/// Cholesky, then the Schur complement `Γ − ΔᵀΩ̄⁻¹Δ`.
fn check_joint_matrix(omega: &[f64], scale: &[f64], delta: &[f64], big_gamma: &[f64], s: usize) -> Result<()> {
    let n = scale.len();
    let t = s + n;
    let obar: Vec<f64> = (0..n * n).map(|k| omega[k] / (scale[k / n] * scale[k % n])).collect();
    let singular = || Error::NotPositiveDefinite { n: t, jitter: 0.0, batch: 0 };
    let l = crate::linalg::host::cholesky_lower(&obar, n).ok_or_else(singular)?;
    if s == 0 {
        return Ok(());
    }
    let half = solve_lower(l.as_ref(), Mat::from_fn(n, s, |i, j| delta[i * s + j]).as_ref());
    let schur: Vec<f64> =
        (0..s * s).map(|k| big_gamma[k] - (0..n).map(|i| half[(i, k / s)] * half[(i, k % s)]).sum::<f64>()).collect();
    crate::linalg::host::cholesky_lower(&schur, s).map(|_| ()).ok_or_else(singular)
}

/// The test points whose Corollary 2 ratios share a denominator: the variables they touch (the
/// union of the independent groups they are correlated with) and, per test point, its index and
/// its `c` on those variables.
struct RatioGroup {
    /// The variables touched, ascending.
    vars: Vec<usize>,
    /// `(test point, c on vars)`.
    rows: Vec<(usize, Vec<f64>)>,
}

/// The denominator `Φ_t(a; Σ)` of Corollary 2's ratios, prepared once for a group of test
/// points: exact for `t < 3`; otherwise the variables in the greedy Genz order, the Cholesky
/// factor and the minimax tilt.
enum Denominator {
    /// `t < 3`: the limits, the covariance (row-major) and `ln Φ_t(a; Σ)`, all exact.
    Exact { a: Vec<f64>, cov: Vec<f64>, log_p: f64 },
    /// The limits in the greedy order, that order, the lower Cholesky factor in it and the
    /// minimax shifts `μ` ([`minimax_shift`]).
    Tilted { a: Vec<f64>, order: Vec<usize>, factor: Mat<f64>, mu: Vec<f64> },
}

impl Denominator {
    /// Prepares `Φ_t(a; Σ)` (`item` names the test point in errors).
    fn new(a: Vec<f64>, cov: Vec<f64>, item: usize) -> Result<Self> {
        let t = a.len();
        if t < 3 {
            let log_p = log_mvn_cdf_exact(&a, &cov)?.unwrap_or(0.0);
            return Ok(Self::Exact { a, cov, log_p });
        }
        let order = genz_order(&a, &cov);
        let (pa, pc) = permute(&a, &cov, &order);
        let factor = cholesky_host(Mat::from_fn(t, t, |i, j| pc[i * t + j]).as_ref(), item)?;
        let mu = minimax_shift(&pa, &row_major(factor.as_ref()));
        Ok(Self::Tilted { a: pa, order, factor, mu })
    }

    /// `Φ_{t+1}([a; 0]; [[Σ, c], [cᵀ, v]]) / Φ_t(a; Σ)` for each `(item, c, v)` of `last` (`c` in
    /// the original variable order, `item` the test point named in errors). Beyond `t < 3` the new
    /// variable comes last and every ratio is taken from one tilted pass over `points`,
    /// numerators and denominator with common random numbers ([`tilted_log_means_with_last`]).
    fn ratios_with_last(&self, last: &[(usize, &[f64], f64)], points: &QmcPoints) -> Result<Vec<f64>> {
        let (a, order, factor, mu) = match self {
            Self::Exact { a, cov, log_p } => {
                return last.iter().map(|&(_, c, v)| exact_ratio(a, cov, *log_p, c, v)).collect()
            }
            Self::Tilted { a, order, factor, mu } => (a, order, factor, mu),
        };
        let t = a.len();
        let mut rows = Vec::with_capacity(last.len() * (t + 1));
        for &(item, c, v) in last {
            let pc: Vec<f64> = order.iter().map(|&p| c[p]).collect();
            let row = solve_lower(factor.as_ref(), Mat::from_fn(t, 1, |i, _| pc[i]).as_ref());
            let rest = v - (0..t).map(|i| row[(i, 0)].powi(2)).sum::<f64>();
            if rest.is_nan() || rest <= 0.0 {
                return Err(Error::NotPositiveDefinite { n: t + 1, jitter: 0.0, batch: item });
            }
            rows.extend((0..t).map(|i| row[(i, 0)]));
            rows.push(rest.sqrt());
        }
        let factor = row_major(factor.as_ref()); // zeros above the diagonal
        let (log_den, log_nums) = tilted_log_means_with_last(a, &factor, mu, &rows, &vec![0.0; last.len()], points)?;
        Ok(log_nums.iter().map(|num| (num - log_den).exp()).collect())
    }
}

/// `Φ_{t+1}([a; 0]; [[Σ, c], [cᵀ, v]]) / Φ_t(a; Σ)` for `t < 3`, exactly, given `ln Φ_t(a; Σ)`.
fn exact_ratio(a: &[f64], cov: &[f64], log_p: f64, c: &[f64], v: f64) -> Result<f64> {
    let (fa, fc) = bordered(a, cov, c, v);
    Ok((log_mvn_cdf_exact(&fa, &fc)?.unwrap_or(0.0) - log_p).exp())
}

/// The limits `[a; 0]` and covariance `[[Σ, c], [cᵀ, v]]` (row-major) of a test point's
/// numerator `Φ_{t+1}`, from the denominator's `a` `[t]`, `Σ` `[t, t]` and the test column `c`.
fn bordered(a: &[f64], cov: &[f64], c: &[f64], v: f64) -> (Vec<f64>, Vec<f64>) {
    let (t, d) = (a.len(), a.len() + 1);
    let mut fa = a.to_vec();
    fa.push(0.0);
    let fc = (0..d * d)
        .map(|k| match (k / d < t, k % d < t) {
            (true, true) => cov[(k / d) * t + k % d],
            (true, false) => c[k / d],
            (false, true) => c[k % d],
            (false, false) => v,
        })
        .collect();
    (fa, fc)
}
