//! The block objectives on a [`SkewGp`] (paper §5.2, Proposition 2 / eq. (16), and ours:
//! `docs/papers/000-skew-gp.md`, section "Training objective"): block log-probabilities by the
//! batched, differentiable Genz estimator, combined into [`Objective`].
use burn::tensor::Tensor;

use super::config::Objective;
use super::prior::SkewGp;
use crate::error::{Error, Result};
use crate::kernels::Kernel;
use crate::mvn::{log_mvn_cdf, QmcPoints};
use crate::special::tensor::log_sum_exp_dim;
use crate::tensors::to_vec;

/// Splits the indices `idx` into consecutive blocks of at most `size` (all of size `size` but
/// the last).
pub fn partition(idx: &[usize], size: usize) -> Vec<Vec<usize>> {
    idx.chunks(size.max(1)).map(<[usize]>::to_vec).collect()
}

/// The per-block pieces of an objective evaluation.
#[derive(Debug)]
pub struct BlockTerms {
    /// `ln P_i = ln Φ_{s+|B|}(γ̃_{B_i}; Γ̃_{B_i})` `[b]` (differentiable).
    pub log_p: Tensor<1>,
    /// QMC standard error of each `ln P_i`.
    pub std_err: Vec<f64>,
    /// `ln Φ_s(γ; Γ)` `[1]` (differentiable).
    pub log_normaliser: Tensor<1>,
}

impl BlockTerms {
    /// `ln P_i` on the host.
    pub fn log_p_host(&self) -> Vec<f64> {
        to_vec(self.log_p.clone().detach())
    }

    /// The objective to maximise; `scale` multiplies the block-composite sum (`n / rows in the
    /// batch` on minibatches of blocks, else 1). [`Objective::PaperBound`] with a negative bound is
    /// an [`Error::InvalidArgument`] (it has no logarithm).
    pub fn combine(&self, objective: Objective, scale: f64) -> Result<Tensor<1>> {
        let b = self.log_p.dims()[0];
        let lz = self.log_normaliser.clone();
        Ok(match objective {
            Objective::BlockComposite => (self.log_p.clone().sum() - lz.mul_scalar(b as f64)).mul_scalar(scale),
            Objective::LogSumBlocks => log_sum_exp_dim(self.log_p.clone(), 0) - lz,
            Objective::PaperBound => {
                let bound = self.log_p.clone().exp().sum().sub_scalar((b - 1) as f64);
                let value = to_vec(bound.clone().detach())[0];
                if value.is_nan() || value <= 0.0 {
                    return Err(Error::invalid(
                        "objective",
                        format!(
                            "Proposition 2's bound Σ P_i − (b − 1) = {value:.3e} ≤ 0 with b = {b} blocks has no \
                             logarithm (the bound is vacuous); use Objective::BlockComposite"
                        ),
                    ));
                }
                bound.log() - lz
            }
        })
    }

    /// Proposition 2's right-hand side `(Σ_i P_i − (b − 1)) / Φ_s(γ; Γ)` itself (it may be
    /// negative), on the host.
    pub fn paper_bound_value(&self) -> f64 {
        let log_p = self.log_p_host();
        let lz = to_vec(self.log_normaliser.clone().detach())[0];
        let b = log_p.len() as f64;
        (log_p.iter().map(|l| l.exp()).sum::<f64>() - (b - 1.0)) / lz.exp()
    }
}

impl<K: Kernel> SkewGp<K> {
    /// `ln P_i` of the blocks `blocks` (row indices of `x`, labels `w = ±1`), each padded to
    /// `size`, and `ln Φ_s(γ; Γ)`, with the QMC `points` (dimension `≥ s + size − 1`).
    ///
    /// A non-finite block estimate is an [`Error::NonFinite`] naming the block (its position in
    /// `blocks`), never a NaN objective.
    pub fn block_terms(
        &self,
        x: &Tensor<2>,
        w: &[f64],
        blocks: &[Vec<usize>],
        size: usize,
        points: &QmcPoints,
    ) -> Result<BlockTerms> {
        let (upper, cov) = self.block_systems(x, w, blocks, size)?;
        let est = log_mvn_cdf(upper, cov, points)?;
        let log_normaliser = self.log_latent_normaliser(points, &x.device())?;
        Ok(BlockTerms { log_p: est.log_p, std_err: est.std_err, log_normaliser })
    }

    /// Checks that `x` and labels `y ∈ {0, 1}` agree and returns the signs `w = 2y − 1`.
    pub(crate) fn signs(&self, x: &Tensor<2>, labels: &[usize]) -> Result<Vec<f64>> {
        let n = crate::models::check_inputs("SkewGp", x, self.kernel.input_dim())?;
        crate::data::binary_signs("SkewGp labels (must be 0 or 1)", labels, n)
    }
}
