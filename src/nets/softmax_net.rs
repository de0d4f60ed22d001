//! The hybrid's baseline: the same trunk with a linear softmax layer on its features.
use burn::module::Module;
use burn::nn::loss::CrossEntropyLossConfig;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Int, Tensor};

use super::Trunk;

/// `trunk → Linear(out_dim → classes)` trained by softmax cross-entropy (no nonlinearity in between).
#[derive(Module, Debug)]
pub struct SoftmaxNet<T: Trunk> {
    /// Feature extractor.
    pub trunk: T,
    /// Output layer.
    pub fc: Linear,
}

impl<T: Trunk> SoftmaxNet<T> {
    /// Puts a `classes`-way linear layer on `trunk`.
    pub fn new(trunk: T, classes: usize, device: &Device) -> Self {
        let fc = LinearConfig::new(trunk.out_dim(), classes).init(device);
        Self { trunk, fc }
    }
    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.fc.weight.dims()[1]
    }
    /// Class logits `[B, classes]`.
    pub fn logits(&self, input: T::Input) -> Tensor<2> {
        self.fc.forward(self.trunk.features(input))
    }
    /// Mean cross-entropy of the batch `[1]`.
    pub fn loss(&self, input: T::Input, labels: Tensor<1, Int>) -> Tensor<1> {
        let logits = self.logits(input);
        CrossEntropyLossConfig::new().init(&logits.device()).forward(logits, labels)
    }
}
