//! Data-parallel batch EP (spec §2.9, §3.5): the training rows are split into shards; every shard
//! computes its site sums, cavities, site updates and `log s̃` terms on its own thread, and only
//! `O(m²)` statistics are combined. The result equals the single-shard run up to the order of
//! floating-point summation.
//!
//! Burn 0.22.1's collective `all_reduce` exists only for its GPU (CubeCL) backends (`burn-flex`
//! leaves it unimplemented), so the shard sums are combined on the host; the surrogate's data term
//! is the sum of the shards' terms in one autodiff graph.
use std::ops::Range;

use burn::tensor::Tensor;
use faer::Mat;

use super::model::{EpGpClassifier, FrozenPosterior};
use super::posterior::{cavity, update_sites, Cavity, EpSites, Fitc, PassReport, WhitenedPosterior};
use super::site::{log_site_scale, tilted};
use super::train::frozen_posterior;
use crate::error::{Error, Result};
use crate::kernels::Kernel;

/// Contiguous, nearly equal ranges of `0..n` for `k` shards (`1 ≤ k ≤ n`).
pub fn shard_ranges(n: usize, k: usize) -> Result<Vec<Range<usize>>> {
    if k == 0 || k > n {
        return Err(Error::invalid("shards", format!("need 1 ≤ shards ≤ n = {n}, got {k}")));
    }
    Ok((0..k).map(|p| p * n / k..(p + 1) * n / k).collect())
}

/// The training data split into shards.
#[derive(Clone, Debug)]
pub struct Shards {
    /// Row range of each shard.
    pub ranges: Vec<Range<usize>>,
    /// Inputs of each shard.
    pub x: Vec<Tensor<2>>,
    /// Labels of each shard.
    pub y: Vec<Vec<f64>>,
}

impl Shards {
    /// Splits `x` `[n, d]` and `y` into `k` shards with the given ranges.
    pub fn new(x: &Tensor<2>, y: &[f64], ranges: Vec<Range<usize>>) -> Self {
        let xs = ranges.iter().map(|r| x.clone().narrow(0, r.start, r.len())).collect();
        let ys = ranges.iter().map(|r| y[r.clone()].to_vec()).collect();
        Self { ranges, x: xs, y: ys }
    }
    /// The FITC quantities of every shard at the model's current hyperparameters.
    pub fn fitc<K: Kernel>(&self, model: &EpGpClassifier<K>) -> Result<Vec<Fitc>> {
        self.x.iter().map(|x| model.fitc(x)).collect()
    }
}

/// Runs `f(p)` for every shard on its own thread and collects the results in shard order.
fn per_shard<T: Send>(k: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = (0..k).map(|p| scope.spawn(move || f(p))).collect();
        handles.into_iter().map(|h| h.join().expect("an EP shard thread panicked")).collect()
    })
}

/// `q` from the sum of the shards' whitened site sums.
pub fn posterior_from_shards(fitcs: &[Fitc], ranges: &[Range<usize>], sites: &EpSites) -> Result<WhitenedPosterior> {
    let parts =
        per_shard(fitcs.len(), |p| Ok(fitcs[p].site_sums(&sites.nu[ranges[p].clone()], &sites.mu[ranges[p].clone()])))?;
    let m = fitcs[0].num_inducing();
    let mut a = Mat::<f64>::zeros(m, m);
    let mut lte = vec![0.0; m];
    for (ap, ep) in parts {
        for c in 0..m {
            for r in 0..m {
                a[(r, c)] += ap[(r, c)];
            }
        }
        lte.iter_mut().zip(&ep).for_each(|(t, e)| *t += e);
    }
    WhitenedPosterior::new(a, &lte)
}

/// One parallel EP pass over all shards (every cavity from the same `q`).
pub fn sharded_pass(fitcs: &[Fitc], shards: &Shards, sites: &mut EpSites, damping: f64) -> Result<PassReport> {
    let q = posterior_from_shards(fitcs, &shards.ranges, sites)?;
    let current = &*sites;
    let updated = per_shard(fitcs.len(), |p| {
        let r = shards.ranges[p].clone();
        let proj = q.project(fitcs[p].psi.as_ref());
        let cav: Vec<Cavity> = r
            .clone()
            .enumerate()
            .map(|(k, i)| cavity(proj.t_hat[k], proj.v_hat[k], current.nu[i], current.mu[i]))
            .collect();
        let mut local = EpSites { nu: current.nu[r.clone()].to_vec(), mu: current.mu[r.clone()].to_vec() };
        let idx: Vec<usize> = (0..r.len()).collect();
        let report = update_sites(&mut local, &idx, &shards.y[p], &fitcs[p].s, &cav, damping);
        Ok((local, report))
    })?;
    let mut report = PassReport::default();
    for (p, (local, rp)) in updated.into_iter().enumerate() {
        let r = shards.ranges[p].clone();
        sites.nu[r.clone()].copy_from_slice(&local.nu);
        sites.mu[r].copy_from_slice(&local.mu);
        report.max_change = report.max_change.max(rp.max_change);
        report.skipped += rp.skipped;
    }
    Ok(report)
}

/// After the site updates: `q` from the new sites, each shard's surrogate constants and the
/// EP energy `log Z_q`.
pub fn sharded_frozen(fitcs: &[Fitc], shards: &Shards, sites: &EpSites) -> Result<(Vec<FrozenPosterior>, f64)> {
    let q = posterior_from_shards(fitcs, &shards.ranges, sites)?;
    let parts = per_shard(fitcs.len(), |p| {
        let r = shards.ranges[p].clone();
        let fitc = &fitcs[p];
        let proj = q.project(fitc.psi.as_ref());
        let cav: Vec<Cavity> = r
            .clone()
            .enumerate()
            .map(|(k, i)| cavity(proj.t_hat[k], proj.v_hat[k], sites.nu[i], sites.mu[i]))
            .collect();
        let log_s: f64 = r
            .clone()
            .enumerate()
            .map(|(k, i)| {
                let c = cav[k];
                log_site_scale(tilted(shards.y[p][k], c.a, c.c, fitc.s[k]).log_z, sites.nu[i], sites.mu[i], c.a, c.c)
            })
            .sum();
        Ok((frozen_posterior(&q, fitc, &proj, &cav), log_s))
    })?;
    let log_z = q.log_normaliser_ratio() + parts.iter().map(|(_, l)| l).sum::<f64>();
    Ok((parts.into_iter().map(|(f, _)| f).collect(), log_z))
}

/// `L̃` with the data term summed over the shards (one autodiff graph).
pub fn sharded_surrogate<K: Kernel>(
    model: &EpGpClassifier<K>,
    shards: &Shards,
    frozen: &[FrozenPosterior],
) -> Result<Tensor<1>> {
    let mut total = model.surrogate_prior(&frozen[0])?;
    for (p, f) in frozen.iter().enumerate() {
        total = total + model.surrogate_likelihood(shards.x[p].clone(), &shards.y[p], f, 1.0)?;
    }
    Ok(total)
}
