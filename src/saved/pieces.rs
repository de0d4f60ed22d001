//! [`Blueprint`]s of the pieces models are built from: kernels, inducing points, likelihoods.
use burn::tensor::Device;

use super::{budget, Blueprint, Spec};
use crate::error::{Error, Result};
use crate::inducing::{FourierFeatures, InducingPoints, InducingVariables};
use crate::kernels::{AdditiveMatern, ArcSine, Kernel, Linear, Matern, MaternNu, Product, Rbf, SeparableMatern, Sum};
use crate::likelihoods::{BernoulliProbit, BinaryHinge, Gaussian, MultiClassHinge, RobustMax, Softmax};

impl Blueprint for Rbf {
    /// `Rbf` with the number of lengthscales.
    fn describe(&self) -> Spec {
        Spec::new("Rbf").sizes(&[self.params.lengthscales.len()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Rbf", Some(1), Some(0), Some(0))?;
        Rbf::new(&vec![1.0; budget::cells(&[spec.sizes[0].max(1)])?], 1.0, device)
    }
}

impl Blueprint for Linear {
    /// `Linear` with the number of variances.
    fn describe(&self) -> Spec {
        Spec::new("Linear").sizes(&[self.variances.len()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Linear", Some(1), Some(0), Some(0))?;
        Linear::new(&vec![1.0; budget::cells(&[spec.sizes[0].max(1)])?], device)
    }
}

impl<A: Kernel + Blueprint, B: Kernel + Blueprint> Blueprint for Sum<A, B> {
    /// `Sum` with its two summands.
    fn describe(&self) -> Spec {
        Spec::new("Sum").part(self.a.describe()).part(self.b.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Sum", Some(0), Some(0), Some(2))?;
        Ok(Sum::new(A::rebuild(&spec.parts[0], device)?, B::rebuild(&spec.parts[1], device)?))
    }
}

impl<A: Kernel + Blueprint, B: Kernel + Blueprint> Blueprint for Product<A, B> {
    /// `Product` with its two factors.
    fn describe(&self) -> Spec {
        Spec::new("Product").part(self.a.describe()).part(self.b.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Product", Some(0), Some(0), Some(2))?;
        Ok(Product::new(A::rebuild(&spec.parts[0], device)?, B::rebuild(&spec.parts[1], device)?))
    }
}

impl Blueprint for ArcSine {
    /// `ArcSine` with the number of weight variances.
    fn describe(&self) -> Spec {
        Spec::new("ArcSine").sizes(&[self.weight_variances.len()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("ArcSine", Some(1), Some(0), Some(0))?;
        ArcSine::new(&vec![1.0; budget::cells(&[spec.sizes[0].max(1)])?], 1.0, 1.0, device)
    }
}

impl Blueprint for Matern {
    /// `Matern` with the number of lengthscales and ν as 1, 3 or 5 (halves).
    fn describe(&self) -> Spec {
        Spec::new("Matern").sizes(&[self.params.lengthscales.len(), nu_code(self.nu)])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Matern", Some(2), Some(0), Some(0))?;
        Matern::new(nu_from_code(spec.sizes[1])?, &vec![1.0; budget::cells(&[spec.sizes[0].max(1)])?], 1.0, device)
    }
}

impl Blueprint for InducingPoints {
    /// `InducingPoints` with `[M, d]`.
    fn describe(&self) -> Spec {
        let [m, d] = self.z().dims();
        Spec::new("InducingPoints").sizes(&[m, d])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("InducingPoints", Some(2), Some(0), Some(0))?;
        let (m, d) = (spec.sizes[0], spec.sizes[1]);
        InducingPoints::new(&vec![0.0; budget::cells(&[m, d])?], m, d, device)
    }
}

/// The number of inducing variables of `inducing` for any kernel (`InducingPoints` holds them
/// whatever the kernel).
pub(super) fn inducing_count(inducing: &InducingPoints) -> usize {
    InducingVariables::<Rbf>::num_inducing(inducing)
}

impl Blueprint for Gaussian {
    fn describe(&self) -> Spec {
        Spec::new("Gaussian")
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Gaussian", Some(0), Some(0), Some(0))?;
        Gaussian::new(1.0, device)
    }
}

impl Blueprint for BernoulliProbit {
    fn describe(&self) -> Spec {
        Spec::new("BernoulliProbit").sizes(&[self.quadrature_points])
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("BernoulliProbit", Some(1), Some(0), Some(0))?;
        Ok(Self { quadrature_points: plausible_points(spec.sizes[0])? })
    }
}

impl Blueprint for MultiClassHinge {
    fn describe(&self) -> Spec {
        Spec::new("MultiClassHinge").sizes(&[self.quadrature_points])
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("MultiClassHinge", Some(1), Some(0), Some(0))?;
        Ok(Self { quadrature_points: plausible_points(spec.sizes[0])? })
    }
}

impl Blueprint for BinaryHinge {
    fn describe(&self) -> Spec {
        Spec::new("BinaryHinge")
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("BinaryHinge", Some(0), Some(0), Some(0))?;
        Ok(Self {})
    }
}

impl Blueprint for RobustMax {
    fn describe(&self) -> Spec {
        Spec::new("RobustMax").sizes(&[self.quadrature_points]).values(&[self.epsilon])
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("RobustMax", Some(1), Some(1), Some(0))?;
        Ok(Self { epsilon: spec.values[0], quadrature_points: plausible_points(spec.sizes[0])? })
    }
}

impl Blueprint for Softmax {
    fn describe(&self) -> Spec {
        Spec::new("Softmax").sizes(&[self.samples])
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("Softmax", Some(1), Some(0), Some(0))?;
        Ok(Self { samples: plausible_points(spec.sizes[0])? })
    }
}

/// Most quadrature points or Monte Carlo samples a saved likelihood may ask for: prediction
/// allocates `points × rows × classes` cells, so a damaged count would surface there.
const MAX_POINTS: usize = 1 << 12;

/// `n` if it is a plausible number of quadrature points or samples (`1..=4096`).
fn plausible_points(n: usize) -> Result<usize> {
    if (1..=MAX_POINTS).contains(&n) {
        Ok(n)
    } else {
        Err(Error::invalid("model file", format!("implausible count of {n} quadrature points or samples")))
    }
}

/// ν of a Matérn kernel as its numerator over 2.
fn nu_code(nu: MaternNu) -> usize {
    match nu {
        MaternNu::Half => 1,
        MaternNu::ThreeHalves => 3,
        MaternNu::FiveHalves => 5,
    }
}

/// The Matérn ν a file names by its numerator over 2.
fn nu_from_code(code: usize) -> Result<MaternNu> {
    match code {
        1 => Ok(MaternNu::Half),
        3 => Ok(MaternNu::ThreeHalves),
        5 => Ok(MaternNu::FiveHalves),
        other => Err(Error::invalid("model file", format!("Matérn ν = {other}/2 is not 1/2, 3/2 or 5/2"))),
    }
}

impl Blueprint for AdditiveMatern {
    /// `AdditiveMatern` with the number of dimensions and ν.
    fn describe(&self) -> Spec {
        Spec::new("AdditiveMatern").sizes(&[self.lengthscales.len(), nu_code(self.nu)])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("AdditiveMatern", Some(2), Some(0), Some(0))?;
        // Lengthscales and variances, one each a dimension.
        let ones = vec![1.0; budget::cells(&[spec.sizes[0].max(1), 2])? / 2];
        AdditiveMatern::new(nu_from_code(spec.sizes[1])?, &ones, &ones, device)
    }
}

impl Blueprint for SeparableMatern {
    /// `SeparableMatern` with the number of dimensions and ν.
    fn describe(&self) -> Spec {
        Spec::new("SeparableMatern").sizes(&[self.lengthscales.len(), nu_code(self.nu)])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("SeparableMatern", Some(2), Some(0), Some(0))?;
        let lengthscales = vec![1.0; budget::cells(&[spec.sizes[0].max(1)])?];
        SeparableMatern::new(nu_from_code(spec.sizes[1])?, &lengthscales, 1.0, device)
    }
}

impl Blueprint for FourierFeatures {
    /// `FourierFeatures` with F and the box's lower then upper ends.
    fn describe(&self) -> Spec {
        let (lower, upper, num_freq) = self.layout();
        Spec::new("FourierFeatures").sizes(&[num_freq]).values(&lower).values(&upper)
    }
    fn rebuild(spec: &Spec, _device: &Device) -> Result<Self> {
        spec.expect("FourierFeatures", Some(1), None, Some(0))?;
        let d = spec.values.len() / 2;
        // The features' frequencies; the model's covariance over them is larger still.
        budget::cells(&[d.max(1), spec.sizes[0], 2])?;
        FourierFeatures::from_layout(spec.values[..d].to_vec(), spec.values[d..].to_vec(), spec.sizes[0])
    }
}
