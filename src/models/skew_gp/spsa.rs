//! Simultaneous perturbation stochastic approximation (Spall 1998), the paper's optimiser, on the
//! flattened float parameters of any Burn module.
use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Tensor, TensorData};
use rand::rngs::StdRng;
use rand::RngExt;

use crate::tensors::to_vec;

/// Every float parameter of a module, concatenated in visiting order.
pub fn flatten_params<M: Module>(module: &M) -> Vec<f64> {
    struct Collect(Vec<f64>);
    impl ModuleVisitor for Collect {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0.extend(to_vec(param.val()));
        }
    }
    let mut c = Collect(Vec::new());
    module.visit(&mut c);
    c.0
}

/// `module` with its float parameters replaced, in visiting order, by `values` (as produced by
/// [`flatten_params`]); parameter ids are kept.
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub fn assign_params<M: Module>(module: M, values: &[f64]) -> M {
    struct Assign<'a> {
        values: &'a [f64],
        at: usize,
    }
    impl ModuleMapper for Assign<'_> {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            let (values, at) = (self.values, self.at);
            let mut len = 0;
            let param = param.map(|t| {
                let shape = t.shape();
                len = shape.num_elements();
                let fresh = Tensor::<D>::from_data(TensorData::new(values[at..at + len].to_vec(), shape), &t.device());
                if t.is_require_grad() {
                    fresh.require_grad()
                } else {
                    fresh
                }
            });
            self.at += len;
            param
        }
    }
    module.map(&mut Assign { values, at: 0 })
}

/// A Rademacher direction of `p` coordinates from `rng` (`p` draws: a resumed run replays them).
pub(crate) fn direction(rng: &mut StdRng, p: usize) -> Vec<f64> {
    (0..p).map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 }).collect()
}

/// SPSA gains: step `a_k = a / (k + 1 + A)^0.602`, perturbation `c_k = c / (k + 1)^0.101`
/// (Spall's recommended exponents), `k` counted from 0.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)] // public for the crate's integration tests, not part of the API
pub struct Spsa {
    /// Step gain `a`.
    pub a: f64,
    /// Perturbation size `c`.
    pub c: f64,
    /// Stability constant `A` (about 10 % of the planned steps).
    pub big_a: f64,
}

impl Spsa {
    /// One SPSA step from `theta`: draws a Rademacher direction `Δ`, evaluates `loss` at
    /// `θ ± c_kΔ` (the caller keeps its random numbers common to both), and returns the new
    /// parameters and the mean of the two losses. `ĝ_i = (L₊ − L₋)/(2c_kΔ_i)`.
    pub fn step(
        &self,
        k: usize,
        theta: &[f64],
        rng: &mut StdRng,
        mut loss: impl FnMut(&[f64]) -> crate::Result<f64>,
    ) -> crate::Result<(Vec<f64>, f64)> {
        let kf = k as f64;
        let ak = self.a / (kf + 1.0 + self.big_a).powf(0.602);
        let ck = self.c / (kf + 1.0).powf(0.101);
        let delta = direction(rng, theta.len());
        let plus: Vec<f64> = theta.iter().zip(&delta).map(|(t, d)| t + ck * d).collect();
        let minus: Vec<f64> = theta.iter().zip(&delta).map(|(t, d)| t - ck * d).collect();
        let (lp, lm) = (loss(&plus)?, loss(&minus)?);
        let scale = (lp - lm) / (2.0 * ck);
        let next = theta.iter().zip(&delta).map(|(t, d)| t - ak * scale / d).collect();
        Ok((next, 0.5 * (lp + lm)))
    }
}
