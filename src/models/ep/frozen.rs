//! [`frozen_posterior`]: the constants of the EP surrogate objective, shared by the single-device
//! and the sharded training steps.
use faer::{Accum, Mat, Par};

use super::model::FrozenPosterior;
use super::posterior::{Cavity, Fitc, Projection, WhitenedPosterior};
use crate::linalg::host::matmul_into;

/// The surrogate's constants from `q`, its projections onto the current directions and the sites'
/// cavities along them (`docs/papers/001-ep-classification.md`, section "Surrogate objective"):
/// `w̄_i = Σ̄υ_i = R̄ G_i` with `G = L_B⁻¹Ψ`.
pub fn frozen_posterior(q: &WhitenedPosterior, fitc: &Fitc, p: &Projection, cav: &[Cavity]) -> FrozenPosterior {
    let (mu, r) = q.u_space(fitc.l.as_ref());
    let (m, b) = (p.g.nrows(), p.g.ncols());
    let mut w = Mat::zeros(m, b);
    matmul_into(w.as_mut(), Accum::Replace, r.as_ref(), p.g.as_ref(), 1.0, Par::Seq);
    let row_major = |a: &Mat<f64>| (0..a.nrows() * a.ncols()).map(|k| a[(k / a.ncols(), k % a.ncols())]).collect();
    FrozenPosterior {
        mu,
        r: row_major(&r),
        w: row_major(&w),
        kappa: cav.iter().map(|c| c.kappa).collect(),
        cfac: cav.iter().map(|c| c.cfac).collect(),
    }
}
