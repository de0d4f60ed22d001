//! [`EpState`]: the EP sites of the training points and, in minibatch mode, their stored
//! directions and the site sums `S`, `e` in u-space (paper §2.3, "Training using minibatches";
//! `docs/papers/001-ep-classification.md`, section "Training schedules"). Not a Burn module: it is
//! data-indexed and never differentiated.
use faer::{Accum, Mat, MatRef, Par};

use burn::tensor::Tensor;

use super::model::EpGpClassifier;
use super::posterior::{EpSites, WhitenedPosterior};
use crate::error::Result;
use crate::kernels::Kernel;
use crate::linalg::host::matmul_into;
use crate::train::{f64_bytes, BlobReader};

/// Site sums in u-space with the directions they were stored with (minibatch mode).
#[derive(Clone, Debug)]
pub struct SiteSums {
    /// `υ_i^{st}` as columns `[m, n]`.
    pub directions: Mat<f64>,
    /// `S = Σ ν̃_i υ_iυ_iᵀ` `[m, m]`.
    pub s: Mat<f64>,
    /// `e = Σ μ̃_i υ_i` `[m]`.
    pub e: Vec<f64>,
}

impl SiteSums {
    /// No stored directions (every site zero).
    pub fn zeros(m: usize, n: usize) -> Self {
        Self { directions: Mat::zeros(m, n), s: Mat::zeros(m, m), e: vec![0.0; m] }
    }
    /// `S`, `e` recomputed from the stored directions and sites (removes drift; ours, not the paper's:
    /// `docs/papers/001-ep-classification.md`, section "Training schedules").
    ///
    /// `S` is summed over blocks of 4 096 columns, so no second `[m, n]` matrix is made: the
    /// directions are the run's O(nm) memory, and a scaled copy of them would double it.
    pub fn rebuild(&mut self, sites: &EpSites) {
        const BLOCK: usize = 4096;
        let (m, n) = (self.directions.nrows(), self.directions.ncols());
        self.s = Mat::zeros(m, m);
        for start in (0..n).step_by(BLOCK) {
            let dirs = self.directions.as_ref().subcols(start, BLOCK.min(n - start));
            let scaled = Mat::from_fn(m, dirs.ncols(), |r, c| dirs[(r, c)] * sites.nu[start + c]);
            matmul_into(self.s.as_mut(), Accum::Add, scaled.as_ref(), dirs.transpose(), 1.0, Par::Seq);
        }
        self.e = (0..m).map(|r| (0..n).map(|c| self.directions[(r, c)] * sites.mu[c]).sum()).collect();
    }
    /// `q` from the sums at the current `L = chol(K_uu)`: `A = LᵀSL`, `Lᵀe`.
    pub fn posterior(&self, l: MatRef<'_, f64>) -> Result<WhitenedPosterior> {
        let m = l.nrows();
        let mut sl = Mat::zeros(m, m);
        matmul_into(sl.as_mut(), Accum::Replace, self.s.as_ref(), l, 1.0, Par::Seq);
        let mut a = Mat::zeros(m, m);
        matmul_into(a.as_mut(), Accum::Replace, l.transpose(), sl.as_ref(), 1.0, Par::Seq);
        // symmetrise against round-off
        let a = Mat::from_fn(m, m, |r, c| 0.5 * (a[(r, c)] + a[(c, r)]));
        let lte: Vec<f64> = (0..m).map(|r| (0..m).map(|k| l[(k, r)] * self.e[k]).sum()).collect();
        WhitenedPosterior::new(a, &lte)
    }
}

/// What one step can change of an [`EpState`], kept to undo the step: every site in the batch
/// modes; in minibatch mode the batch's sites and stored directions and the site sums (not the
/// whole `[m, n]` direction matrix).
#[derive(Clone, Debug)]
pub struct Snapshot {
    idx: Vec<usize>,
    nu: Vec<f64>,
    mu: Vec<f64>,
    sums: Option<(Mat<f64>, Vec<f64>, Mat<f64>)>,
    skipped: usize,
}

/// The EP state of a training run.
#[derive(Clone, Debug)]
pub struct EpState {
    /// One site per training point.
    pub sites: EpSites,
    /// Minibatch mode only: stored directions and site sums.
    pub sums: Option<SiteSums>,
    /// Site updates skipped because the cavity was improper, over the whole run.
    pub skipped: usize,
}

impl EpState {
    /// Zero sites for `n` points (`m` inducing points; `stored` keeps directions and sums).
    pub fn new(n: usize, m: usize, stored: bool) -> Self {
        Self { sites: EpSites::zeros(n), sums: stored.then(|| SiteSums::zeros(m, n)), skipped: 0 }
    }
    /// The parts of the state a step on the points `idx` can change.
    pub fn snapshot(&self, idx: &[usize]) -> Snapshot {
        let sums = self.sums.as_ref().map(|sm| {
            let m = sm.directions.nrows();
            let cols = Mat::from_fn(m, idx.len(), |r, k| sm.directions[(r, idx[k])]);
            (sm.s.clone(), sm.e.clone(), cols)
        });
        Snapshot {
            idx: idx.to_vec(),
            nu: idx.iter().map(|&i| self.sites.nu[i]).collect(),
            mu: idx.iter().map(|&i| self.sites.mu[i]).collect(),
            sums,
            skipped: self.skipped,
        }
    }
    /// Undoes everything since `snapshot` was taken.
    pub fn restore(&mut self, snapshot: Snapshot) {
        for (k, &i) in snapshot.idx.iter().enumerate() {
            self.sites.nu[i] = snapshot.nu[k];
            self.sites.mu[i] = snapshot.mu[k];
        }
        if let (Some(sm), Some((s, e, cols))) = (self.sums.as_mut(), snapshot.sums) {
            sm.s = s;
            sm.e = e;
            for (k, &i) in snapshot.idx.iter().enumerate() {
                for r in 0..cols.nrows() {
                    sm.directions[(r, i)] = cols[(r, k)];
                }
            }
        }
        self.skipped = snapshot.skipped;
    }
    /// The state as checkpoint blobs: the sites, the stored directions and sums (empty in the
    /// batch modes) and the count of skipped updates.
    pub(crate) fn to_blobs(&self) -> Vec<Vec<u8>> {
        let sums = self.sums.as_ref().map_or_else(Vec::new, |sm| {
            let mut values: Vec<f64> = sm.directions.col_iter().flat_map(|c| c.iter().copied()).collect();
            values.extend(sm.s.col_iter().flat_map(|c| c.iter().copied()));
            values.extend(&sm.e);
            f64_bytes(&values)
        });
        vec![self.sites.to_blob(), sums, (self.skipped as u64).to_le_bytes().to_vec()]
    }
    /// The state of the next blobs (those of [`to_blobs`](Self::to_blobs) of a state of the same
    /// shape).
    pub(crate) fn load_blobs(&mut self, blobs: &mut BlobReader<'_>) -> Result<()> {
        self.sites.load_blob(blobs)?;
        match self.sums.as_mut() {
            Some(sm) => {
                let (m, n) = (sm.directions.nrows(), sm.directions.ncols());
                let v = blobs.f64s(Some(m * n + m * m + m))?;
                sm.directions = Mat::from_fn(m, n, |r, c| v[c * m + r]);
                sm.s = Mat::from_fn(m, m, |r, c| v[m * n + c * m + r]);
                sm.e = v[m * n + m * m..].to_vec();
            }
            None => _ = blobs.f64s(Some(0))?,
        }
        self.skipped = blobs.count()?;
        Ok(())
    }
    /// `q(u)` of `model` for training inputs `x`: from the stored sums and the current `K_uu`
    /// (minibatch mode, O(m³)) or from the sites along the current directions (batch, O(nm²)).
    pub fn posterior<K: Kernel>(&self, model: &EpGpClassifier<K>, x: &Tensor<2>) -> Result<WhitenedPosterior> {
        match &self.sums {
            Some(sums) => sums.posterior(model.chol_kuu()?.as_ref()),
            None => {
                let fitc = model.fitc(x)?;
                WhitenedPosterior::from_sites(&fitc, &self.sites.nu, &self.sites.mu)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::models::ep::Backoff;

    /// Every part of a minibatch-mode state and the step sizes survive their checkpoint blobs (a
    /// skipped count and halved steps, which the resume tests' short runs never produce,
    /// included); blobs of another shape are typed errors.
    #[test]
    fn an_ep_state_and_its_step_sizes_round_trip_through_checkpoint_blobs() {
        let (n, m) = (5, 3);
        let mut state = EpState::new(n, m, true);
        let value = |k: usize| (k as f64 * 0.37).sin();
        state.sites.nu = (0..n).map(value).collect();
        state.sites.mu = (0..n).map(|i| value(i + 10)).collect();
        let sums = state.sums.as_mut().unwrap();
        sums.directions = Mat::from_fn(m, n, |r, c| value(20 + r * n + c));
        sums.s = Mat::from_fn(m, m, |r, c| value(40 + r * m + c));
        sums.e = (0..m).map(|r| value(60 + r)).collect();
        state.skipped = 7;
        let backoff = Backoff::new(0.9);
        backoff.halve();
        let mut blobs = state.to_blobs();
        blobs.push(backoff.to_blob());
        let path = std::path::Path::new("state.ckpt");
        let mut back = EpState::new(n, m, true);
        let restored = Backoff::new(0.5);
        let mut reader = BlobReader::new(path, &blobs);
        back.load_blobs(&mut reader).unwrap();
        restored.load_blob(&mut reader).unwrap();
        reader.finish().unwrap();
        assert_eq!(back.to_blobs(), state.to_blobs());
        assert_eq!((back.skipped, restored.damping.get(), restored.lr_scale.get()), (7, 0.45, 0.5));
        // a batch-mode state (no sums) and a state of other size refuse these blobs
        for mut other in [EpState::new(n, m, false), EpState::new(n + 1, m, true), EpState::new(n, m + 1, true)] {
            let result = other.load_blobs(&mut BlobReader::new(path, &blobs));
            assert!(matches!(result, Err(Error::BadFormat { .. })), "{result:?}");
        }
    }
}
