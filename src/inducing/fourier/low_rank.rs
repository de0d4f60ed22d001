//! Batches of "diagonal plus low rank" SPD matrices `diag(α) + W Wᵀ` with rank r ≤ 2: solves and
//! log-determinants by the Woodbury identity and the matrix determinant lemma, as tensor ops
//! (differentiable by autodiff, no factorisation).
use burn::tensor::Tensor;

/// `K_b = diag(α_b) + W_b W_bᵀ` for `b` in a batch: `α` `[B, n]` (positive), `W` `[B, n, r]`,
/// `r ∈ {1, 2}` (or no `W`: diagonal).
///
/// The capacitance matrices `C_b = I_r + W_bᵀ diag(α_b)⁻¹ W_b` (eigenvalues ≥ 1) are inverted in
/// closed form once, at construction.
#[derive(Clone, Debug)]
pub(crate) struct DiagLowRank {
    alpha: Tensor<2>,
    w: Option<Tensor<3>>,
    /// `diag(α)⁻¹ W` `[B, n, r]`.
    scaled_w: Option<Tensor<3>>,
    /// `C⁻¹` `[B, r, r]`.
    cap_inv: Option<Tensor<3>>,
    /// `log det C` `[B]`.
    cap_logdet: Option<Tensor<1>>,
}

/// Entry `(i, j)` of a batch of small matrices `[B, r, r] → [B, 1, 1]`.
fn entry(c: &Tensor<3>, i: usize, j: usize) -> Tensor<3> {
    c.clone().narrow(1, i, 1).narrow(2, j, 1)
}

impl DiagLowRank {
    /// The batch `diag(α) + W Wᵀ`; `w = None` for a purely diagonal batch. Panics if `W` has rank
    /// columns other than 1 or 2 (callers build it from closed forms of known rank).
    pub(crate) fn new(alpha: Tensor<2>, w: Option<Tensor<3>>) -> Self {
        let Some(w) = w else {
            return Self { alpha, w: None, scaled_w: None, cap_inv: None, cap_logdet: None };
        };
        let [b, n, r] = w.dims();
        let scaled = w.clone() / alpha.clone().reshape([b, n, 1]);
        let cap = w.clone().swap_dims(1, 2).matmul(scaled.clone()) + Tensor::<2>::eye(r, &w.device()).unsqueeze::<3>();
        let (cap_inv, logdet) = match r {
            1 => (cap.clone().recip(), cap.log().reshape([b])),
            2 => {
                let (c00, c01, c10, c11) = (entry(&cap, 0, 0), entry(&cap, 0, 1), entry(&cap, 1, 0), entry(&cap, 1, 1));
                let det = c00.clone() * c11.clone() - c01.clone() * c10.clone();
                let top = Tensor::cat(vec![c11, c01.neg()], 2);
                let bottom = Tensor::cat(vec![c10.neg(), c00], 2);
                (Tensor::cat(vec![top, bottom], 1) / det.clone(), det.log().reshape([b]))
            }
            _ => panic!("DiagLowRank supports rank 1 or 2, got {r}"),
        };
        Self { alpha, w: Some(w), scaled_w: Some(scaled), cap_inv: Some(cap_inv), cap_logdet: Some(logdet) }
    }

    /// Batch size B.
    pub(crate) fn batch(&self) -> usize {
        self.alpha.dims()[0]
    }

    /// Matrix size n.
    pub(crate) fn size(&self) -> usize {
        self.alpha.dims()[1]
    }

    /// The device of the tensors.
    pub(crate) fn device(&self) -> burn::tensor::Device {
        self.alpha.device()
    }

    /// Item `b` of the batch as a batch of one.
    pub(crate) fn item(&self, b: usize) -> Self {
        let pick3 = |t: &Option<Tensor<3>>| t.as_ref().map(|t| t.clone().narrow(0, b, 1));
        Self {
            alpha: self.alpha.clone().narrow(0, b, 1),
            w: pick3(&self.w),
            scaled_w: pick3(&self.scaled_w),
            cap_inv: pick3(&self.cap_inv),
            cap_logdet: self.cap_logdet.as_ref().map(|t| t.clone().narrow(0, b, 1)),
        }
    }

    /// `K⁻¹ V` for `V` `[B, n, c]` (or `[1, n, c]` against a batch of one).
    pub(crate) fn solve(&self, v: Tensor<3>) -> Tensor<3> {
        let [b, n] = self.alpha.dims();
        let dv = v / self.alpha.clone().reshape([b, n, 1]);
        match (&self.w, &self.scaled_w, &self.cap_inv) {
            (Some(w), Some(sw), Some(ci)) => {
                let proj = w.clone().swap_dims(1, 2).matmul(dv.clone()); // Wᵀ D⁻¹ V  [B, r, c]
                dv - sw.clone().matmul(ci.clone().matmul(proj))
            }
            _ => dv,
        }
    }

    /// `log det K` `[B]`.
    pub(crate) fn logdet(&self) -> Tensor<1> {
        let b = self.batch();
        let diag = self.alpha.clone().log().sum_dim(1).reshape([b]);
        match &self.cap_logdet {
            Some(c) => diag + c.clone(),
            None => diag,
        }
    }

    /// The dense matrices `[B, n, n]` (test oracle and the dense `K_uu`).
    pub(crate) fn dense(&self) -> Tensor<3> {
        let [b, n] = self.alpha.dims();
        let eye = Tensor::<2>::eye(n, &self.alpha.device()).unsqueeze::<3>();
        let diag = self.alpha.clone().reshape([b, n, 1]) * eye;
        match &self.w {
            Some(w) => diag + w.clone().matmul(w.clone().swap_dims(1, 2)),
            None => diag,
        }
    }
}
