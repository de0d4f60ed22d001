//! Data-parallel batch EP (paper §2.3, "Distributed training"; `docs/papers/001-ep-classification.md`,
//! section "Training schedules"): the training rows are split into shards; every shard computes its FITC
//! quantities, site sums, cavities, site updates, `log s̃` terms and the
//! gradient of its share of the surrogate's data term on its own thread (and device, when the
//! [`ShardReducer`] names devices), and only `O(m² + md)` numbers per shard are combined, by the
//! reducer's all-reduce. The result equals the single-shard run up to the order of floating-point
//! summation.
use std::ops::Range;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor};
use faer::Mat;

use super::frozen::frozen_posterior;
use super::model::{EpGpClassifier, FrozenPosterior};
use super::posterior::{cavity, update_sites, Cavity, EpSites, Fitc, PassReport, WhitenedPosterior};
use super::reducer::ShardReducer;
use super::site::{log_site_scale, tilted};
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::optim::{flatten_gradients, gradients_from_flat};

/// Contiguous, nearly equal ranges of `0..n` for `k` shards (`1 ≤ k ≤ n`).
pub(crate) fn shard_ranges(n: usize, k: usize) -> Result<Vec<Range<usize>>> {
    if k == 0 || k > n {
        return Err(Error::invalid("shards", format!("need 1 ≤ shards ≤ n = {n}, got {k}")));
    }
    Ok((0..k).map(|p| p * n / k..(p + 1) * n / k).collect())
}

/// The training data split into shards, each on its device.
#[derive(Clone, Debug)]
pub(crate) struct Shards {
    /// Row range of each shard.
    pub ranges: Vec<Range<usize>>,
    /// Inputs of each shard, on its device.
    pub x: Vec<Tensor<2>>,
    /// Labels of each shard.
    pub y: Vec<Vec<f64>>,
    /// The device of each shard.
    pub devices: Vec<Device>,
}

impl Shards {
    /// Splits `x` `[n, d]` and `y` into shards with the given ranges, shard `p` on `devices[p]`
    /// (all on `x`'s device when `devices` is `None`).
    pub(crate) fn new(x: &Tensor<2>, y: &[f64], ranges: Vec<Range<usize>>, devices: Option<&[Device]>) -> Result<Self> {
        let devices: Vec<Device> = match devices {
            None => vec![x.device(); ranges.len()],
            Some(d) if d.len() == ranges.len() => d.to_vec(),
            Some(d) => return Err(Error::shape("Shards::new: one device per shard", ranges.len(), d.len())),
        };
        let xs =
            ranges.iter().zip(&devices).map(|(r, dev)| x.clone().narrow(0, r.start, r.len()).to_device(dev)).collect();
        let ys = ranges.iter().map(|r| y[r.clone()].to_vec()).collect();
        Ok(Self { ranges, x: xs, y: ys, devices })
    }
    /// The FITC quantities of every shard at the model's current hyperparameters (one thread per
    /// shard, on the shard's device).
    pub(crate) fn fitc<K: Kernel>(&self, model: &EpGpClassifier<K>) -> Result<Vec<Fitc>> {
        per_shard_with(replicas(model, &self.devices), |p, local| local.fitc(&self.x[p]))
    }
}

/// Runs `f(p)` for every shard on its own thread and collects the results in shard order.
fn per_shard<T: Send>(k: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    per_shard_with(vec![(); k], |p, ()| f(p))
}

/// Runs `f(p, items[p])` for every shard on its own thread (each item moved into its thread) and
/// collects the results in shard order.
fn per_shard_with<I: Send, T: Send>(items: Vec<I>, f: impl Fn(usize, I) -> Result<T> + Sync) -> Result<Vec<T>> {
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items.into_iter().enumerate().map(|(p, item)| scope.spawn(move || f(p, item))).collect();
        handles.into_iter().map(|h| h.join().expect("an EP shard thread panicked")).collect()
    })
}

/// A copy of `model` per shard on the shard's device, each with its own autodiff leaves.
fn replicas<K: Kernel>(model: &EpGpClassifier<K>, devices: &[Device]) -> Vec<EpGpClassifier<K>> {
    devices.iter().map(|d| model.clone().fork(d)).collect()
}

/// `q` from the shards' whitened site sums `A_p = Ψ_p diag(ν̃) Ψ_pᵀ`, `Ψ_p μ̃`, combined by the
/// reducer.
pub(crate) fn posterior_from_shards(
    fitcs: &[Fitc],
    ranges: &[Range<usize>],
    sites: &EpSites,
    reducer: &dyn ShardReducer,
) -> Result<WhitenedPosterior> {
    let m = fitcs[0].num_inducing();
    let parts = per_shard(fitcs.len(), |p| {
        let (a, lte) = fitcs[p].site_sums(&sites.nu[ranges[p].clone()], &sites.mu[ranges[p].clone()]);
        let mut buffer: Vec<f64> = (0..m * m).map(|k| a[(k / m, k % m)]).collect();
        buffer.extend(lte);
        Ok(buffer)
    })?;
    let total = reducer.all_reduce_sum(parts)?;
    WhitenedPosterior::new(Mat::from_fn(m, m, |r, c| total[r * m + c]), &total[m * m..])
}

/// One parallel EP pass over all shards (every cavity from the same `q`).
pub(crate) fn sharded_pass(
    fitcs: &[Fitc],
    shards: &Shards,
    sites: &mut EpSites,
    damping: f64,
    reducer: &dyn ShardReducer,
) -> Result<PassReport> {
    let q = posterior_from_shards(fitcs, &shards.ranges, sites, reducer)?;
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

/// After the site updates: `q` from the new sites and, per shard, the surrogate constants and
/// `Σ_{i∈D_p} log s̃_i`.
pub(crate) fn sharded_frozen(
    fitcs: &[Fitc],
    shards: &Shards,
    sites: &EpSites,
    reducer: &dyn ShardReducer,
) -> Result<(WhitenedPosterior, Vec<(FrozenPosterior, f64)>)> {
    let q = posterior_from_shards(fitcs, &shards.ranges, sites, reducer)?;
    let parts = per_shard(fitcs.len(), |p| {
        let fitc = &fitcs[p];
        let proj = q.project(fitc.psi.as_ref());
        let cav: Vec<Cavity> = shards.ranges[p]
            .clone()
            .enumerate()
            .map(|(k, i)| cavity(proj.t_hat[k], proj.v_hat[k], sites.nu[i], sites.mu[i]))
            .collect();
        let log_s: f64 = shards.ranges[p]
            .clone()
            .enumerate()
            .map(|(k, i)| {
                let c = cav[k];
                log_site_scale(tilted(shards.y[p][k], c.a, c.c, fitc.s[k]).log_z, sites.nu[i], sites.mu[i], c.a, c.c)
            })
            .sum();
        Ok((frozen_posterior(&q, fitc, &proj, &cav), log_s))
    })?;
    Ok((q, parts))
}

/// The sharded half of a training step after [`sharded_frozen`]: every shard computes the value
/// and gradient of its share of the surrogate's data term (its own autodiff graph, on its
/// device); the reducer sums them with the shards' `Σ log s̃`; the master adds the prior term.
/// Returns `−L̃`, the gradient of `−L̃` for the optimiser, and `log Z_q`.
pub(crate) fn sharded_objective<K: Kernel>(
    model: &EpGpClassifier<K>,
    shards: &Shards,
    q: &WhitenedPosterior,
    frozen: &[(FrozenPosterior, f64)],
    reducer: &dyn ShardReducer,
) -> Result<(f64, GradientsParams, f64)> {
    let parts = per_shard_with(replicas(model, &shards.devices), |p, local| {
        let (constants, log_s) = &frozen[p];
        let term = local.surrogate_likelihood(shards.x[p].clone(), &shards.y[p], constants, 1.0)?;
        let value = term.clone().into_scalar::<f64>();
        let grads = GradientsParams::from_grads(term.backward(), &local);
        let mut buffer = vec![*log_s, value];
        buffer.extend(flatten_gradients(&local, &grads));
        Ok(buffer)
    })?;
    let total = reducer.all_reduce_sum(parts)?;
    let prior = model.surrogate_prior(&frozen[0].0)?;
    let prior_value = prior.clone().into_scalar::<f64>();
    let prior_grads = flatten_gradients(model, &GradientsParams::from_grads(prior.backward(), model));
    let minus_grad: Vec<f64> = prior_grads.iter().zip(&total[2..]).map(|(a, b)| -(a + b)).collect();
    let log_z = q.log_normaliser_ratio() + total[0];
    Ok((-(prior_value + total[1]), gradients_from_flat(model, &minus_grad)?, log_z))
}
