//! [`Blueprint`]s of the networks: the paper's trunks, the feature normaliser and networks with
//! a GP head.
use burn::tensor::Device;

use super::{budget, Blueprint, Spec};
use crate::error::{Error, Result};
use crate::inducing::InducingPoints;
use crate::kernels::Kernel;
use crate::models::Svgp;
use crate::nets::{
    Cifar10Trunk, Cifar10TrunkConfig, FeatureNorm, FeatureNormalizer, HeadLikelihood, HybridNet, MnistTrunk,
    MnistTrunkConfig, SoftmaxNet, Trunk,
};

impl Blueprint for MnistTrunk {
    /// `MnistTrunk` with channels, side and feature width.
    fn describe(&self) -> Spec {
        let [c, side, _] = self.input_shape();
        Spec::new("MnistTrunk").sizes(&[c, side, self.out_dim()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("MnistTrunk", Some(3), Some(0), Some(0))?;
        let (c, side, out) = (spec.sizes[0], spec.sizes[1], spec.sizes[2]);
        if c == 0 || !(5..=1024).contains(&side) || out == 0 {
            return Err(Error::invalid("model file", format!("implausible MNIST trunk {c}×{side}² → {out}")));
        }
        // The input and output layers' widths (Burn allocates its layers lazily; the loader
        // checks the whole trunk's parameter count against the weights before they are).
        budget::cells(&[c])?;
        budget::cells(&[out])?;
        Ok(MnistTrunkConfig::new().with_channels(c).with_side(side).with_out_dim(out).init(device))
    }
}

impl Blueprint for Cifar10Trunk {
    /// `Cifar10Trunk` with convolution width and feature width.
    fn describe(&self) -> Spec {
        Spec::new("Cifar10Trunk").sizes(&[self.width(), self.out_dim()])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("Cifar10Trunk", Some(2), Some(0), Some(0))?;
        if spec.sizes.iter().any(|&s| s == 0 || s > 1 << 16) {
            return Err(Error::invalid("model file", format!("implausible CIFAR-10 trunk widths {:?}", spec.sizes)));
        }
        Ok(Cifar10TrunkConfig::new().with_width(spec.sizes[0]).with_out_dim(spec.sizes[1]).init(device))
    }
}

impl Blueprint for FeatureNormalizer {
    /// `FeatureNormalizer` with its kind (0 batch, 1 batch-affine, 2 rows, 3 identity) and width.
    fn describe(&self) -> Spec {
        let (kind, dim) = self.kind_and_dim();
        let code = match kind {
            FeatureNorm::Batch => 0,
            FeatureNorm::BatchAffine => 1,
            FeatureNorm::Rows => 2,
            FeatureNorm::Identity => 3,
        };
        Spec::new("FeatureNormalizer").sizes(&[code, dim])
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("FeatureNormalizer", Some(2), Some(0), Some(0))?;
        let kind = match spec.sizes[0] {
            0 => FeatureNorm::Batch,
            1 => FeatureNorm::BatchAffine,
            2 => FeatureNorm::Rows,
            3 => FeatureNorm::Identity,
            other => return Err(Error::invalid("model file", format!("unknown feature normaliser {other}"))),
        };
        // Running mean and variance, and a scale and shift for the affine kind.
        budget::cells(&[spec.sizes[1].max(1), 4])?;
        Ok(FeatureNormalizer::new(kind, spec.sizes[1].max(1), device))
    }
}

impl<T, K, L> Blueprint for HybridNet<T, K, L>
where
    T: Trunk + Blueprint,
    K: Kernel + Blueprint,
    L: HeadLikelihood + Blueprint,
{
    /// `HybridNet` with its trunk, normaliser and head.
    fn describe(&self) -> Spec {
        Spec::new("HybridNet").part(self.trunk.describe()).part(self.norm.describe()).part(self.head.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("HybridNet", Some(0), Some(0), Some(3))?;
        let trunk = T::rebuild(&spec.parts[0], device)?;
        let norm = FeatureNormalizer::rebuild(&spec.parts[1], device)?;
        let head = Svgp::<K, InducingPoints, L>::rebuild(&spec.parts[2], device)?;
        HybridNet::new(trunk, norm, head)
    }
}

impl<T: Trunk + Blueprint> Blueprint for SoftmaxNet<T> {
    /// `SoftmaxNet` with its number of classes and its trunk.
    fn describe(&self) -> Spec {
        Spec::new("SoftmaxNet").sizes(&[self.classes()]).part(self.trunk.describe())
    }
    fn rebuild(spec: &Spec, device: &Device) -> Result<Self> {
        spec.expect("SoftmaxNet", Some(1), Some(0), Some(1))?;
        let classes = spec.sizes[0];
        if !(2..=1 << 20).contains(&classes) {
            return Err(Error::invalid("model file", format!("implausible softmax layer with {classes} classes")));
        }
        Ok(SoftmaxNet::new(T::rebuild(&spec.parts[0], device)?, classes, device))
    }
}
