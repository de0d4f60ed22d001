//! `K_uu` in a form that solves and gives log-determinants: a dense Cholesky factor for inducing
//! points, the closed-form structure for Fourier features.
use burn::tensor::Tensor;

use super::fourier::VffGram;
use crate::error::Result;
use crate::linalg::{cholesky, logdet_from_cholesky, tri_inverse};

/// A dense `K_uu = L Lᵀ`: the factor and its inverse.
#[derive(Clone, Debug)]
pub struct CholeskyFactor {
    /// Lower Cholesky factor `L`.
    pub l: Tensor<2>,
    /// Its inverse `L⁻¹`.
    pub l_inv: Tensor<2>,
}

/// A factorised `K_uu` (differentiable with respect to everything it was built from).
#[derive(Clone, Debug)]
pub enum KuuFactor {
    /// Dense Cholesky factorisation.
    Cholesky(Box<CholeskyFactor>),
    /// Closed-form variational-Fourier-feature Gram matrix (no factorisation).
    Fourier(Box<VffGram>),
}

impl KuuFactor {
    /// Factorises a dense SPD `K_uu` (see [`cholesky`] for the jitter ladder and its errors).
    pub fn cholesky(kuu: Tensor<2>) -> Result<Self> {
        let l = cholesky(kuu)?;
        let l_inv = tri_inverse(l.clone());
        Ok(Self::Cholesky(Box::new(CholeskyFactor { l, l_inv })))
    }

    /// Size M.
    pub fn size(&self) -> usize {
        match self {
            Self::Cholesky(c) => c.l.dims()[0],
            Self::Fourier(g) => g.size(),
        }
    }

    /// `K_uu⁻¹ V` for `V` `[M, c]`.
    pub fn solve(&self, v: Tensor<2>) -> Tensor<2> {
        match self {
            Self::Cholesky(c) => c.l_inv.clone().transpose().matmul(c.l_inv.clone().matmul(v)),
            Self::Fourier(g) => g.solve(v),
        }
    }

    /// `log det K_uu` `[1]`.
    pub fn logdet(&self) -> Tensor<1> {
        match self {
            Self::Cholesky(c) => logdet_from_cholesky(c.l.clone()),
            Self::Fourier(g) => g.logdet(),
        }
    }

    /// The dense `K_uu` `[M, M]`.
    pub fn dense(&self) -> Tensor<2> {
        match self {
            Self::Cholesky(c) => c.l.clone().matmul(c.l.clone().transpose()),
            Self::Fourier(g) => g.dense(),
        }
    }

    /// The dense `K_uu⁻¹` `[M, M]`.
    pub fn inverse(&self) -> Tensor<2> {
        match self {
            Self::Cholesky(c) => c.l_inv.clone().transpose().matmul(c.l_inv.clone()),
            Self::Fourier(g) => g.solve(Tensor::eye(g.size(), &g.device())),
        }
    }
}
