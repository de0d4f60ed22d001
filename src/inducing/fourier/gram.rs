//! The structured Gram matrix `K_β = Cov(β, β)` of multi-dimensional Fourier features: block
//! diagonal over dimensions (additive kernel) or a Kronecker product (separable kernel), each
//! factor "diagonal plus rank ≤ 2" per cos/sin block. Solves and log-determinants cost
//! `O(M_β r c)` (additive) or `O(M_β D M₁ c)` (Kronecker, mode-wise); nothing is factorised.
use burn::tensor::Tensor;

use super::spectral::DimensionGrams;
use super::FeatureStructure;

/// `K_β` for `D` dimensions with `F` frequencies each (`M₁ = 2F + 1` features per dimension,
/// ordered `[1, cos_1..cos_F, sin_1..sin_F]`, dimension-major).
#[derive(Clone, Debug)]
pub struct VffGram {
    grams: DimensionGrams,
    structure: FeatureStructure,
}

impl VffGram {
    /// The Gram matrix of the given per-dimension blocks combined by `structure`.
    pub(crate) fn new(grams: DimensionGrams, structure: FeatureStructure) -> Self {
        Self { grams, structure }
    }

    /// Number of input dimensions D.
    pub fn dims(&self) -> usize {
        self.grams.cos.batch()
    }

    /// Features per dimension `M₁ = 2F + 1`.
    pub(crate) fn features_per_dim(&self) -> usize {
        self.grams.cos.size() + self.grams.sin.size()
    }

    /// The device of the tensors.
    pub fn device(&self) -> burn::tensor::Device {
        self.grams.cos.device()
    }

    /// How the dimensions combine.
    pub fn structure(&self) -> FeatureStructure {
        self.structure
    }

    /// Total number of features `M_β` (`D·M₁` additive, `M₁^D` Kronecker).
    pub fn size(&self) -> usize {
        self.structure.num_features(self.dims(), self.features_per_dim())
    }

    /// `K⁻¹ V` per dimension: `[B, M₁, c]` with `grams` of batch `B`.
    fn block_solve(grams: &DimensionGrams, v: Tensor<3>) -> Tensor<3> {
        let nc = grams.cos.size();
        let ns = grams.sin.size();
        let cos = grams.cos.solve(v.clone().narrow(1, 0, nc));
        let sin = grams.sin.solve(v.narrow(1, nc, ns));
        Tensor::cat(vec![cos, sin], 1)
    }

    /// `K_β⁻¹ V` for `V` `[M_β, c]`.
    pub fn solve(&self, v: Tensor<2>) -> Tensor<2> {
        let [mb, c] = v.dims();
        let (d, m1) = (self.dims(), self.features_per_dim());
        match self.structure {
            FeatureStructure::Additive => Self::block_solve(&self.grams, v.reshape([d, m1, c])).reshape([mb, c]),
            FeatureStructure::Kronecker => {
                // K⁻¹ = ⊗_d K_d⁻¹: apply K_d⁻¹ along mode d of V viewed as [M₁, …, M₁, c].
                let mut v = v;
                for dim in 0..d {
                    let before = m1.pow(dim as u32);
                    let after = mb * c / (before * m1);
                    let grams = DimensionGrams { cos: self.grams.cos.item(dim), sin: self.grams.sin.item(dim) };
                    let moved = v.reshape([before, m1, after]).swap_dims(0, 1).reshape([1, m1, before * after]);
                    let solved = Self::block_solve(&grams, moved).reshape([m1, before, after]).swap_dims(0, 1);
                    v = solved.reshape([mb, c]);
                }
                v
            }
        }
    }

    /// `log det K_β` `[1]`.
    pub fn logdet(&self) -> Tensor<1> {
        let per_dim = (self.grams.cos.logdet() + self.grams.sin.logdet()).sum();
        match self.structure {
            FeatureStructure::Additive => per_dim,
            FeatureStructure::Kronecker => {
                per_dim.mul_scalar(self.features_per_dim().pow(self.dims() as u32 - 1) as f64)
            }
        }
    }

    /// Every dimension's dense `[D, M₁, M₁]` Gram matrix (cos and sin blocks on the diagonal).
    pub(crate) fn dimension_dense(&self) -> Tensor<3> {
        let (cos, sin) = (self.grams.cos.dense(), self.grams.sin.dense());
        let [d, nc, _] = cos.dims();
        let ns = sin.dims()[1];
        let device = cos.device();
        let top = Tensor::cat(vec![cos, Tensor::zeros([d, nc, ns], &device)], 2);
        let bottom = Tensor::cat(vec![Tensor::zeros([d, ns, nc], &device), sin], 2);
        Tensor::cat(vec![top, bottom], 1)
    }

    /// The dense `[M_β, M_β]` matrix (test oracle; the [`crate::inducing::InducingVariables::kuu`]
    /// of Fourier features).
    pub fn dense(&self) -> Tensor<2> {
        let blocks = self.dimension_dense();
        let [d, m1, _] = blocks.dims();
        match self.structure {
            FeatureStructure::Additive => {
                let eye = Tensor::<2>::eye(d, &blocks.device()).reshape([d, 1, d, 1]);
                (blocks.reshape([d, m1, 1, m1]) * eye).reshape([d * m1, d * m1])
            }
            FeatureStructure::Kronecker => {
                let mut k = blocks.clone().narrow(0, 0, 1).reshape([m1, m1]);
                for dim in 1..d {
                    let b = blocks.clone().narrow(0, dim, 1).reshape([1, m1, 1, m1]);
                    let p = k.dims()[0];
                    k = (k.reshape([p, 1, p, 1]) * b).reshape([p * m1, p * m1]);
                }
                k
            }
        }
    }
}
