//! Plain elliptical slice sampling (Murray, Adams & MacKay 2010) for a [`TruncatedNormal`]
//! target, batched like [`super::LinEss`]: the baseline lin-ess is compared with.
//!
//! With the indicator likelihood `1{A x + b > 0}` the slice is the feasible set itself: an angle
//! is proposed uniformly in a bracket around 0, and the bracket is shrunk towards 0 after every
//! infeasible proposal until one is feasible. Every proposal costs a constraint check; lin-ess
//! needs exactly one.
use std::f64::consts::TAU;

use burn::tensor::{Tensor, TensorData};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::truncated::{run_chains, ChainConfig, ChainDraws, TruncatedNormal};
use crate::error::{Error, Result};
use crate::tensors::to_vec;

/// Most shrink iterations of one step before giving up (the bracket is then ~2π·2⁻²⁰⁰).
const MAX_SHRINKS: usize = 200;

/// The elliptical slice sampler for a [`TruncatedNormal`] target.
#[derive(Clone, Debug)]
pub struct EllipticalSlice {
    target: TruncatedNormal,
}

impl EllipticalSlice {
    /// A sampler for `target`.
    pub fn new(target: TruncatedNormal) -> Self {
        Self { target }
    }

    /// Runs the chains as [`super::LinEss::run`] does.
    pub fn run(&self, config: &ChainConfig, start: Option<&[f64]>) -> Result<ChainDraws> {
        let mut rng = StdRng::seed_from_u64(config.seed);
        let x0 = self.target.initial(config.chains, start, &mut rng)?;
        run_chains(config, x0, &mut rng, |x, rng| self.step(x, rng))
    }

    /// One ESS step of every chain: returns the new states, the number of proposals made and 0.
    pub fn step(&self, x: Tensor<2>, rng: &mut StdRng) -> Result<(Tensor<2>, usize, usize)> {
        let [c, d] = x.dims();
        let device = x.device();
        let nu = self.target.prior_draws(c, rng);
        let mut theta: Vec<f64> = (0..c).map(|_| rng.random::<f64>() * TAU).collect();
        let mut lo: Vec<f64> = theta.iter().map(|t| t - TAU).collect();
        let mut hi = theta.clone();
        let mut done = vec![false; c];
        let mut out = x.clone();
        let mut proposals = 0;
        for _ in 0..MAX_SHRINKS {
            let th = Tensor::<2>::from_data(TensorData::new(theta.clone(), [c, 1]), &device);
            let proposal = x.clone() * th.clone().cos() + nu.clone() * th.sin();
            let slack = to_vec(self.target.min_slack(proposal.clone()));
            let mut newly = vec![0.0; c];
            for k in 0..c {
                if done[k] {
                    continue;
                }
                proposals += 1;
                if slack[k] > 0.0 {
                    done[k] = true;
                    newly[k] = 1.0;
                } else {
                    if theta[k] < 0.0 {
                        lo[k] = theta[k];
                    } else {
                        hi[k] = theta[k];
                    }
                    theta[k] = lo[k] + rng.random::<f64>() * (hi[k] - lo[k]);
                }
            }
            let take = Tensor::<2>::from_data(TensorData::new(newly, [c, 1]), &device).greater_elem(0.5).expand([c, d]);
            out = out.mask_where(take, proposal);
            if done.iter().all(|d| *d) {
                return Ok((out, proposals, 0));
            }
        }
        Err(Error::NonFinite {
            context: format!("elliptical slice: a chain found no feasible angle in {MAX_SHRINKS} shrinks"),
            index: done.iter().position(|a| !a).unwrap_or(0),
        })
    }
}
