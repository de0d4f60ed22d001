//! Variational Fourier features on a box `Π_d [a_d, b_d]`: the inducing-variable type.
use burn::module::Module;
use burn::tensor::Tensor;

use super::cross::{combine_features, dimension_features, FeatureGrid};
use super::gram::VffGram;
use super::spectral::dimension_grams;
use super::{FeatureStructure, FourierKernel};
use crate::error::{check_finite, Error, Result};
use crate::inducing::{InducingVariables, KuuFactor};
use crate::kernels::matern_rates;

/// Margin of the default interval, in initial lengthscales, on each side of the data (our default,
/// `docs/papers/002-decoupled-fourier-features.md`, section "Deviations": the boundary error of the
/// features decays like the kernel with the distance to the ends).
pub(crate) const MARGIN_LENGTHSCALES: f64 = 3.0;

/// Largest number of tensor-product (Kronecker) features accepted (our cap; paper §4.1.2: separable
/// features grow exponentially in D; `docs/papers/002-decoupled-fourier-features.md`, section "Deviations").
pub(crate) const MAX_KRONECKER_FEATURES: usize = 4096;

/// Variational Fourier features (Hensman, Durrande and Solin 2018): the RKHS inner products
/// `ζ_j = ⟨f, φ_j⟩_H` of a GP with a [`FourierKernel`] with the harmonics
/// `φ = [1, cos ω_m(x−a), sin ω_m(x−a)]`, `ω_m = 2πm/(b−a)`, `m = 1..F`, of each dimension.
///
/// Their `K_uu` is known in closed form as "diagonal plus rank ≤ 2" blocks
/// ([`InducingVariables::kuu_factor`] solves with it in `O(M)` by Woodbury) and their
/// cross-covariances are cosines and sines inside the box, decaying Matérn boundary terms outside.
/// The interval and `F` are fixed at construction (never trained). The kernel decides the
/// structure: [`crate::kernels::AdditiveMatern`] gives `D(2F+1)` features, one set per
/// dimension; [`crate::kernels::SeparableMatern`] gives `(2F+1)^D` tensor-product features.
#[derive(Module, Debug)]
pub struct FourierFeatures {
    /// Lower ends `a_d`.
    #[module(skip)]
    lower: Vec<f64>,
    /// Upper ends `b_d`.
    #[module(skip)]
    upper: Vec<f64>,
    /// Number of non-zero frequencies F per dimension.
    #[module(skip)]
    num_freq: usize,
}

/// Per-dimension margins `δ_d = max(0.1·range_d, 3ℓ_d)` for inputs `x` `[n, D]` (row-major) and
/// lengthscales `ℓ` `[D]`.
pub(crate) fn interval_margins(x: &[f64], n: usize, lengthscales: &[f64]) -> Result<Vec<f64>> {
    let (lo, hi) = column_ranges(x, n, lengthscales.len())?;
    Ok(lo.iter().zip(&hi).zip(lengthscales).map(|((a, b), l)| (0.1 * (b - a)).max(MARGIN_LENGTHSCALES * l)).collect())
}

/// Column minima and maxima of `x` `[n, d]`.
fn column_ranges(x: &[f64], n: usize, d: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    if n == 0 || d == 0 {
        return Err(Error::Empty { context: "inputs of the Fourier-feature interval".into() });
    }
    if x.len() != n * d {
        return Err(Error::shape("FourierFeatures: inputs", [n, d], [x.len()]));
    }
    check_finite("FourierFeatures: inputs", x)?;
    let mut lo = vec![f64::INFINITY; d];
    let mut hi = vec![f64::NEG_INFINITY; d];
    for row in x.chunks_exact(d) {
        for (k, v) in row.iter().enumerate() {
            lo[k] = lo[k].min(*v);
            hi[k] = hi[k].max(*v);
        }
    }
    Ok((lo, hi))
}

/// The number of frequencies F for a feature budget `|β|`: `F = round((m − 1)/2)` (at least 1)
/// with `m = |β|` features per dimension if `per_dimension`, else `m = |β|/D` (a total over the
/// dimensions of an additive kernel). So `|β| = 10` gives F = 5 (11 features) in 1-D, and
/// `|β| = 100` over D = 9 gives F = 5 (99 features). `|β| = 0` is an error.
pub fn num_freq_for_budget(beta: usize, dims: usize, per_dimension: bool) -> Result<usize> {
    if beta == 0 {
        return Err(Error::invalid("|β|", "the number of Fourier features must be positive"));
    }
    if dims == 0 {
        return Err(Error::invalid("dims", "needs at least one input dimension"));
    }
    let m = if per_dimension { beta as f64 } else { beta as f64 / dims as f64 };
    Ok((((m - 1.0) / 2.0).round() as usize).max(1))
}

impl FourierFeatures {
    /// The box `[(a_d, b_d)]` and the frequencies F per dimension.
    pub(crate) fn layout(&self) -> (Vec<f64>, Vec<f64>, usize) {
        (self.lower.clone(), self.upper.clone(), self.num_freq)
    }
    /// Features with a box and F taken as given (a saved model's, checked when it was built).
    pub(crate) fn from_layout(lower: Vec<f64>, upper: Vec<f64>, num_freq: usize) -> Result<Self> {
        if lower.len() != upper.len() || lower.is_empty() || num_freq == 0 {
            return Err(Error::invalid(
                "FourierFeatures",
                format!("{} lower and {} upper ends, F = {num_freq}", lower.len(), upper.len()),
            ));
        }
        if lower.iter().zip(&upper).any(|(a, b)| !(a.is_finite() && b.is_finite() && a < b)) {
            return Err(Error::invalid("FourierFeatures", "every interval must be finite with a < b"));
        }
        Ok(Self { lower, upper, num_freq })
    }
    /// Features of `kernel` on the box `intervals` `[(a_d, b_d)]` with `num_freq` = F ≥ 1
    /// frequencies per dimension.
    ///
    /// Errors: a count of intervals other than the kernel's dimensions
    /// ([`Error::ShapeMismatch`]); an interval that is not finite with `a < b`, `F = 0`
    /// (no features beyond the constant), or more than `MAX_KRONECKER_FEATURES` tensor-product
    /// features ([`Error::InvalidArgument`]).
    pub fn new<K: FourierKernel>(kernel: &K, intervals: &[(f64, f64)], num_freq: usize) -> Result<Self> {
        let d = kernel.num_dims();
        if intervals.len() != d {
            return Err(Error::shape("FourierFeatures::new: one interval per kernel dimension", d, intervals.len()));
        }
        if let Some((k, (a, b))) =
            intervals.iter().enumerate().find(|(_, (a, b))| !(a.is_finite() && b.is_finite() && a < b))
        {
            return Err(Error::invalid("interval", format!("dimension {k}: need finite a < b, got [{a}, {b}]")));
        }
        if num_freq == 0 {
            return Err(Error::invalid("num_freq", "need at least one frequency (|β| ≥ 3 per dimension)"));
        }
        let total = K::STRUCTURE.num_features(d, 2 * num_freq + 1);
        if K::STRUCTURE == FeatureStructure::Kronecker && total > MAX_KRONECKER_FEATURES {
            return Err(Error::invalid(
                "num_freq",
                format!("{total} Kronecker features (more than {MAX_KRONECKER_FEATURES}); use fewer frequencies or an additive kernel"),
            ));
        }
        Ok(Self {
            lower: intervals.iter().map(|p| p.0).collect(),
            upper: intervals.iter().map(|p| p.1).collect(),
            num_freq,
        })
    }

    /// Features on the smallest box holding the rows of `x` `[n, D]`, widened by `margins` `[D]`
    /// on each side.
    pub fn covering<K: FourierKernel>(
        kernel: &K,
        x: &[f64],
        n: usize,
        num_freq: usize,
        margins: &[f64],
    ) -> Result<Self> {
        let d = kernel.num_dims();
        if margins.len() != d {
            return Err(Error::shape("FourierFeatures::covering: margins", d, margins.len()));
        }
        if let Some(m) = margins.iter().find(|m| !(m.is_finite() && **m >= 0.0)) {
            return Err(Error::invalid("margins", format!("must be finite and ≥ 0, got {m}")));
        }
        let (lo, hi) = column_ranges(x, n, d)?;
        let intervals: Vec<(f64, f64)> = lo
            .iter()
            .zip(&hi)
            .zip(margins)
            .map(|((a, b), m)| {
                // a constant column still gets a non-empty interval
                let pad = if b > a { *m } else { m.max(1.0) };
                (a - pad, b + pad)
            })
            .collect();
        Self::new(kernel, &intervals, num_freq)
    }

    /// Features for training inputs `x` `[n, D]`. Without `intervals`, the default box: the data
    /// range widened by `interval_margins` of the kernel's current lengthscales (≥ 3 of them on
    /// each side). Given `intervals` that do not contain every row of `x`, the result is a typed
    /// error ([`FourierFeatures::check_covers`]), not a silent widening: the features are exact
    /// for points outside the box, but their approximation degrades there.
    pub fn for_data<K: FourierKernel>(
        kernel: &K,
        x: &[f64],
        n: usize,
        num_freq: usize,
        intervals: Option<&[(f64, f64)]>,
    ) -> Result<Self> {
        match intervals {
            Some(iv) => {
                let f = Self::new(kernel, iv, num_freq)?;
                f.check_covers(x, n)?;
                Ok(f)
            }
            None => {
                let ls = crate::tensors::to_vec(kernel.factor_lengthscales());
                let margins = interval_margins(x, n, &ls)?;
                Self::covering(kernel, x, n, num_freq, &margins)
            }
        }
    }

    /// [`Error::InvalidArgument`] naming the first row of `x` `[n, D]` outside the box.
    pub fn check_covers(&self, x: &[f64], n: usize) -> Result<()> {
        let d = self.dims();
        let (lo, hi) = column_ranges(x, n, d)?;
        for k in 0..d {
            if lo[k] < self.lower[k] || hi[k] > self.upper[k] {
                return Err(Error::invalid(
                    "interval",
                    format!(
                        "dimension {k}: inputs span [{}, {}], outside the Fourier interval [{}, {}]; widen it (≥ {MARGIN_LENGTHSCALES} lengthscales beyond the data)",
                        lo[k], hi[k], self.lower[k], self.upper[k]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Number of input dimensions D.
    pub fn dims(&self) -> usize {
        self.lower.len()
    }
    /// Number of non-zero frequencies F per dimension.
    pub fn num_freq(&self) -> usize {
        self.num_freq
    }
    /// Features per dimension `M₁ = 2F + 1`.
    pub(crate) fn features_per_dim(&self) -> usize {
        2 * self.num_freq + 1
    }
    /// The box `[(a_d, b_d)]`.
    pub fn intervals(&self) -> Vec<(f64, f64)> {
        self.lower.iter().copied().zip(self.upper.iter().copied()).collect()
    }
    /// The highest frequency `ω_F = 2πF/(b_d − a_d)` of each dimension (compare with the rates
    /// `λ_d = √(2ν)/ℓ_d`: the features resolve the prior well while `ω_F ≳ 3λ`).
    pub fn max_frequencies(&self) -> Vec<f64> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(a, b)| 2.0 * std::f64::consts::PI * self.num_freq as f64 / (b - a))
            .collect()
    }

    fn grid(&self, device: &burn::tensor::Device) -> FeatureGrid {
        FeatureGrid::new(&self.lower, &self.upper, self.num_freq, device)
    }

    fn check_kernel<K: FourierKernel>(&self, kernel: &K) -> Result<()> {
        if kernel.num_dims() != self.dims() {
            return Err(Error::shape("FourierFeatures: kernel dimensions", self.dims(), kernel.num_dims()));
        }
        Ok(())
    }

    /// The structured Gram matrix `K_β` of `kernel`'s features, `jitter` added to its diagonal.
    pub(crate) fn gram<K: FourierKernel>(&self, kernel: &K, jitter: f64) -> Result<VffGram> {
        self.check_kernel(kernel)?;
        let variances = kernel.factor_variances();
        let grid = self.grid(&variances.device());
        let rates = matern_rates(kernel.nu(), kernel.factor_lengthscales());
        let grams = dimension_grams(kernel.nu(), variances, rates, grid.omegas.clone(), grid.lengths(), jitter);
        Ok(VffGram::new(grams, K::STRUCTURE))
    }

    /// Per-dimension features `[n, D, 2F+1]` of `x` `[n, D]` (before the additive/Kronecker
    /// combination).
    pub(crate) fn dimension_features<K: FourierKernel>(&self, kernel: &K, x: Tensor<2>) -> Tensor<3> {
        let grid = self.grid(&x.device());
        dimension_features(kernel.nu(), x, &grid, matern_rates(kernel.nu(), kernel.factor_lengthscales()))
    }
}

impl<K: FourierKernel> InducingVariables<K> for FourierFeatures {
    fn num_inducing(&self) -> usize {
        K::STRUCTURE.num_features(self.dims(), self.features_per_dim())
    }
    fn kuu(&self, kernel: &K, jitter: f64) -> Tensor<2> {
        // The dimensions were checked against the kernel at construction.
        self.gram(kernel, jitter).expect("FourierFeatures built for this kernel's dimensions").dense()
    }
    fn kuf(&self, kernel: &K, x: Tensor<2>) -> Tensor<2> {
        self.kfu(kernel, x).transpose()
    }
    fn kfu(&self, kernel: &K, x: Tensor<2>) -> Tensor<2> {
        combine_features(self.dimension_features(kernel, x), K::STRUCTURE)
    }
    fn kuu_factor(&self, kernel: &K, jitter: f64) -> Result<KuuFactor> {
        Ok(KuuFactor::Fourier(Box::new(self.gram(kernel, jitter)?)))
    }
}
