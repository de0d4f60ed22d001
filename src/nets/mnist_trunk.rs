//! The paper's MNIST trunk: conv(32, 5×5) → conv(64, 3×3) → max-pool → fc(1024) → fc(100).
use burn::config::Config;
use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{Initializer, Linear, LinearConfig, Relu};
use burn::tensor::{Device, Tensor};

use super::conv_forward::conv_forward;
use super::max_pool_forward::max_pool_forward;
use super::{check_image_batch, dense_tail, Trunk};
use crate::error::Result as GpResult;

/// Settings of [`MnistTrunk`]; the defaults are the paper's layer widths (paper 003, §4.2).
#[derive(Config, Debug)]
pub struct MnistTrunkConfig {
    /// Input channels (1 for MNIST / Fashion-MNIST).
    #[config(default = 1)]
    pub channels: usize,
    /// Image side in pixels.
    #[config(default = 28)]
    pub side: usize,
    /// Width of the output features (the GP input dimension).
    #[config(default = 100)]
    pub out_dim: usize,
}

/// Two valid-padded ReLU convolutions, a 2×2 max-pool, a ReLU fc(1024) and a linear fc(out_dim).
#[derive(Module, Debug)]
pub struct MnistTrunk {
    conv1: Conv2d,
    conv2: Conv2d,
    pool: MaxPool2d,
    fc1: Linear,
    fc2: Linear,
    activation: Relu,
    input: [usize; 3],
}

/// He (Kaiming-normal) initialisation, as for the hybrid smoke test T18 (`docs/papers/003-bayesian-svm.md`,
/// section "Network heads").
pub(crate) fn he_init() -> Initializer {
    Initializer::KaimingNormal { gain: std::f64::consts::SQRT_2, fan_out_only: false }
}

impl MnistTrunkConfig {
    /// Builds the trunk on `device`.
    pub fn init(&self, device: &Device) -> MnistTrunk {
        let after_convs = self.side.saturating_sub(4).saturating_sub(2) / 2;
        let flat = 64 * after_convs * after_convs;
        MnistTrunk {
            conv1: Conv2dConfig::new([self.channels, 32], [5, 5]).with_initializer(he_init()).init(device),
            conv2: Conv2dConfig::new([32, 64], [3, 3]).with_initializer(he_init()).init(device),
            pool: MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init(),
            fc1: LinearConfig::new(flat, 1024).with_initializer(he_init()).init(device),
            fc2: LinearConfig::new(1024, self.out_dim).with_initializer(he_init()).init(device),
            activation: Relu::new(),
            input: [self.channels, self.side, self.side],
        }
    }
}

impl MnistTrunk {
    /// Shape `[C, H, W]` of one input image.
    pub fn input_shape(&self) -> [usize; 3] {
        self.input
    }
}

impl Trunk for MnistTrunk {
    type Input = Tensor<4>;
    /// Errors unless `images` is `[B, C, H, W]` with this trunk's `[C, H, W]`, `B ≥ 1`, finite.
    fn check_input(&self, images: &Tensor<4>) -> GpResult<()> {
        check_image_batch(self.input_shape(), images)
    }
    fn out_dim(&self) -> usize {
        self.fc2.weight.dims()[1]
    }
    fn features(&self, images: Tensor<4>) -> Tensor<2> {
        let x = self.activation.forward(conv_forward(&self.conv1, images));
        let x = self.activation.forward(conv_forward(&self.conv2, x));
        let x = max_pool_forward(&self.pool, x);
        dense_tail(x, &self.fc1, &self.fc2)
    }
}
