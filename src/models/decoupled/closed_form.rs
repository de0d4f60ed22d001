//! The optimal variational parameters of a decoupled GP with a Gaussian likelihood, full batch
//! (paper App. B and B.2): for tests and small problems (`O(N M_α² + M_α³)` on the host).
use faer::prelude::*;

use super::model::DecoupledGp;
use crate::error::{Error, Result};
use crate::inducing::InducingVariables;
use crate::kernels::Kernel;
use crate::likelihoods::Gaussian;
use crate::linalg::host;
use crate::models::{check_inputs, check_targets};
use crate::tensors::to_vec;
use burn::tensor::{Tensor, TensorData};

fn host_mat(t: Tensor<2>) -> Mat<f64> {
    let [r, c] = t.dims();
    host::to_mat(&to_vec(t.detach()), r, c)
}

fn to_tensor(m: &Mat<f64>, device: &burn::tensor::Device) -> Tensor<2> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    host::push_row_major(m.as_ref(), &mut v);
    Tensor::from_data(TensorData::new(v, [m.nrows(), m.ncols()]), device)
}

impl<K: Kernel, I: InducingVariables<K>> DecoupledGp<K, I, Gaussian> {
    /// Sets `(a_γ, m_β, S)` to the maximiser of the full-batch ELBO on `(x, y)` for the current
    /// kernel, bases and noise:
    /// `S* = K_β (K_β + σ⁻² K_βX K_Xβ)⁻¹ K_β`, `a_α* = (K_αX K_Xα + σ² K_α)⁻¹ K_αX y` with
    /// `α = γ ∪ β`, `a_γ*` its first `M_γ` entries and `m_β* = K_β a_α,β* + K_βγ a_γ*`.
    /// The predictive mean is then the DTC/SGPR mean with inducing variables `α`.
    pub fn with_optimal_variational(self, x: Tensor<2>, y: Tensor<2>) -> Result<Self> {
        let n = check_inputs("DecoupledGp::with_optimal_variational", &x, self.kernel.input_dim())?;
        check_targets("DecoupledGp::with_optimal_variational", &y, n, 1)?;
        let device = x.device();
        let noise = self.likelihood.variance.to_vec()[0];
        let factor = self.cov_basis.kuu_factor(&self.kernel, self.jitter)?;
        let kb = host_mat(factor.dense());
        let kxb = host_mat(self.cov_basis.kfu(&self.kernel, x.clone()));
        let yv = host_mat(y);
        let mb = kb.nrows();
        let (kxa, ka, mg) = match &self.mean_basis {
            Some(g) => {
                let z = g.points.z();
                let kxg = host_mat(self.kernel.k(x, z.clone()));
                let kg = host_mat(self.kernel.k(z.clone(), z.clone()));
                let kgb = host_mat(self.cov_basis.kfu(&self.kernel, z));
                let mg = kg.nrows();
                let ma = mg + mb;
                let kxa = Mat::from_fn(n, ma, |i, j| if j < mg { kxg[(i, j)] } else { kxb[(i, j - mg)] });
                let ka = Mat::from_fn(ma, ma, |i, j| match (i < mg, j < mg) {
                    (true, true) => kg[(i, j)],
                    (true, false) => kgb[(i, j - mg)],
                    (false, true) => kgb[(j, i - mg)],
                    (false, false) => kb[(i - mg, j - mg)],
                });
                (kxa, ka, mg)
            }
            None => (kxb.clone(), kb.clone(), 0),
        };
        let system = &(kxa.transpose() * &kxa) + &(&ka * Scale(noise));
        let a_alpha = system.partial_piv_lu().solve(kxa.transpose() * &yv);
        if (0..a_alpha.nrows()).any(|i| !a_alpha[(i, 0)].is_finite()) {
            return Err(Error::NonFinite { context: "closed-form a_α (singular K_α?)".into(), index: 0 });
        }
        let a_gamma = Mat::from_fn(mg, 1, |i, _| a_alpha[(i, 0)]);
        let a_rest = Mat::from_fn(mb, 1, |i, _| a_alpha[(mg + i, 0)]);
        let mut m_beta = &kb * &a_rest;
        if mg > 0 {
            let kbg = Mat::from_fn(mb, mg, |i, j| ka[(mg + i, j)]);
            m_beta = &m_beta + &(&kbg * &a_gamma);
        }
        let inner = &kb + &(&(kxb.transpose() * &kxb) * Scale(1.0 / noise));
        let s = &kb * inner.partial_piv_lu().solve(&kb);
        let mut flat = Vec::with_capacity(mb * mb);
        host::push_row_major(Mat::from_fn(mb, mb, |i, j| 0.5 * (s[(i, j)] + s[(j, i)])).as_ref(), &mut flat);
        let l_s = host::cholesky_lower(&flat, mb).ok_or(Error::NotPositiveDefinite { n: mb, jitter: 0.0, batch: 0 })?;
        let a_gamma = (mg > 0).then(|| to_tensor(&a_gamma, &device));
        self.with_variational(a_gamma, to_tensor(&m_beta, &device), to_tensor(&l_s, &device))
    }
}
