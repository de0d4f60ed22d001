//! Linear elliptical slice sampling (lin-ess; Gessner, Kanjilal & Hennig 2020): rejection-free
//! MCMC for a Gaussian restricted to a polyhedron, many chains at once on a tensor axis.
//!
//! From the current `x` and a prior draw `ν`, the ellipse `x(θ) = x cos θ + ν sin θ` meets each
//! constraint `(A x(θ))_i + b_i > 0` in one arc: with `r_i = √((Ax)_i² + (Aν)_i²)`,
//! `φ_i = atan2((Aν)_i, (Ax)_i)` and `α_i = acos(−b_i / r_i)`, the violated arc is
//! `(φ_i + α_i, φ_i + 2π − α_i)` (none when `r_i ≤ b_i`). It never contains `θ = 0` (the current
//! point is feasible). The next angle is drawn uniformly on the feasible set, so every step moves
//! and no proposal is wasted:
//! - [`LinEssVariant::ConnectedArc`] draws on the feasible arc that contains 0,
//!   `(max_i b_i − 2π, min_i a_i)`: only elementwise ops and min/max reductions, all on the device;
//! - [`LinEssVariant::FullUnion`] (Gessner et al.'s sampler) draws on the whole feasible set, the
//!   complement of the union of the violated arcs, merged per chain on the host.
//!
//! Both leave the target invariant (the slice is symmetric in the two ends of a move).
use std::f64::consts::TAU;

use burn::tensor::{Tensor, TensorData};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::truncated::{run_chains, ChainConfig, ChainDraws, TruncatedNormal};
use crate::error::Result;
use crate::tensors::to_vec;

/// How lin-ess picks the next angle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LinEssVariant {
    /// Uniform on the feasible arc around the current point (device-only min/max reductions).
    ConnectedArc,
    /// Uniform on all feasible arcs (Gessner et al.; the arcs are merged on the host).
    FullUnion,
}

/// The lin-ess sampler for a [`TruncatedNormal`] target.
#[derive(Clone, Debug)]
pub struct LinEss {
    target: TruncatedNormal,
    variant: LinEssVariant,
}

impl LinEss {
    /// A sampler for `target` with the given angle rule.
    pub fn new(target: TruncatedNormal, variant: LinEssVariant) -> Self {
        Self { target, variant }
    }

    /// The target.
    pub fn target(&self) -> &TruncatedNormal {
        &self.target
    }

    /// Runs `config.chains` chains from `start` (or the target's default feasible start) and
    /// returns `config.samples` draws after `config.burn_in` steps per chain.
    pub fn run(&self, config: &ChainConfig, start: Option<&[f64]>) -> Result<ChainDraws> {
        let mut rng = StdRng::seed_from_u64(config.seed);
        let x0 = self.target.initial(config.chains, start, &mut rng)?;
        run_chains(config, x0, &mut rng, |x, rng| Ok(self.step(x, rng)))
    }

    /// One lin-ess step of every chain `x` `[c, d]`: returns the new states, the number of
    /// proposals (= chains) and of rounding rejections (chains kept in place because the exact
    /// angle landed on a boundary in floating point; expected 0).
    pub fn step(&self, x: Tensor<2>, rng: &mut StdRng) -> (Tensor<2>, usize, usize) {
        let [c, d] = x.dims();
        let device = x.device();
        let nu = self.target.prior_draws(c, rng);
        let (px, pn) = (self.target.project(x.clone()), self.target.project(nu.clone()));
        let b = self.target.offset();
        let r = (px.clone().powi_scalar(2) + pn.clone().powi_scalar(2)).sqrt();
        let phi = pn.atan2(px);
        let ratio = (b.neg() / r).clamp(-1.0, 1.0);
        let active = ratio.clone().greater_elem(-1.0);
        let alpha = ratio.acos();
        let start = (phi + alpha.clone()).remainder_scalar(TAU);
        let end = start.clone() + alpha.mul_scalar(-2.0).add_scalar(TAU);
        let start = start.mask_fill(active.clone().bool_not(), TAU);
        let end = end.mask_fill(active.bool_not(), 0.0);
        let u: Vec<f64> = (0..c).map(|_| rng.random::<f64>()).collect();
        let theta = match self.variant {
            LinEssVariant::ConnectedArc => {
                let hi = start.min_dim(1).clamp_min(0.0);
                let lo = end.max_dim(1).sub_scalar(TAU).clamp_max(0.0);
                let u = Tensor::<2>::from_data(TensorData::new(u, [c, 1]), &device);
                lo.clone() + u * (hi - lo)
            }
            LinEssVariant::FullUnion => {
                let (s, e) = (to_vec(start), to_vec(end));
                let m = s.len() / c;
                let th: Vec<f64> =
                    (0..c).map(|k| feasible_angle(&s[k * m..(k + 1) * m], &e[k * m..(k + 1) * m], u[k])).collect();
                Tensor::<2>::from_data(TensorData::new(th, [c, 1]), &device)
            }
        };
        let proposal = x.clone() * theta.clone().cos() + nu * theta.sin();
        let ok = self.target.min_slack(proposal.clone()).greater_elem(0.0);
        let rejected = c - to_vec(ok.clone().float()).iter().filter(|v| **v > 0.5).count();
        (x.mask_where(ok.expand([c, d]), proposal), c, rejected)
    }
}

/// An angle drawn uniformly (`u ∈ [0, 1)`) from `[0, 2π)` minus the union of the violated arcs
/// `(start_i, end_i)` (inactive constraints have `start = 2π`, `end = 0`). The feasible set always
/// contains a neighbourhood of 0 (and of 2π).
pub(crate) fn feasible_angle(start: &[f64], end: &[f64], u: f64) -> f64 {
    let mut arcs: Vec<(f64, f64)> =
        start.iter().zip(end).filter(|(s, e)| e > s).map(|(s, e)| (s.max(0.0), e.min(TAU))).collect();
    arcs.sort_by(|x, y| x.0.total_cmp(&y.0));
    // feasible gaps between the merged violated arcs
    let mut gaps = Vec::with_capacity(arcs.len() + 1);
    let mut cursor = 0.0;
    for (s, e) in arcs {
        if s > cursor {
            gaps.push((cursor, s));
        }
        cursor = cursor.max(e);
    }
    if cursor < TAU {
        gaps.push((cursor, TAU));
    }
    let total: f64 = gaps.iter().map(|(a, b)| b - a).sum();
    let mut target = u * total;
    for (a, b) in &gaps {
        let len = b - a;
        if target < len {
            return a + target;
        }
        target -= len;
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::feasible_angle;
    use std::f64::consts::TAU;

    #[test]
    fn feasible_angle_avoids_the_union_of_arcs() {
        let start = [1.0, 1.5, 4.0, TAU];
        let end = [2.0, 3.0, 5.0, 0.0];
        // feasible: [0,1) ∪ [3,4) ∪ [5,2π): total 1 + 1 + (2π − 5)
        let total = 2.0 + TAU - 5.0;
        assert!((feasible_angle(&start, &end, 0.5 / total) - 0.5).abs() < 1e-12);
        assert!((feasible_angle(&start, &end, 1.5 / total) - 3.5).abs() < 1e-12);
        assert!((feasible_angle(&start, &end, 2.5 / total) - 5.5).abs() < 1e-12);
        for i in 0..100 {
            let t = feasible_angle(&start, &end, i as f64 / 100.0);
            assert!(!(1.0..3.0).contains(&t) && !(4.0..5.0).contains(&t), "{t}");
        }
    }
}
