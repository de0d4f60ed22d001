//! The paper's CIFAR-10 trunk: conv(128) → conv(128) → pool → conv(128) → pool → fc(256) → fc(100).
use burn::config::Config;
use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{Linear, LinearConfig, Relu};
use burn::tensor::{Device, Tensor};

use super::conv_forward::conv_forward;
use super::input_standardiser::InputStandardiser;
use super::max_pool_forward::max_pool_forward;
use super::mnist_trunk::he_init;
use super::{check_image_batch, dense_tail, Trunk};
use crate::error::Result as GpResult;

/// Settings of [`Cifar10Trunk`]; the defaults are the paper's layer widths (paper 003, §4.2).
#[derive(Config, Debug)]
pub struct Cifar10TrunkConfig {
    /// Convolution width.
    #[config(default = 128)]
    pub width: usize,
    /// Width of the output features (the GP input dimension).
    #[config(default = 100)]
    pub out_dim: usize,
    /// Per-channel `(mean, standard deviation)` of the training images on the `[0, 1]` scale
    /// ([`ImageSet::channel_moments`](crate::data::ImageSet::channel_moments)): the trunk
    /// standardises its input with them ([`InputStandardiser`]). `None` (the default, paper 003's
    /// protocol): pixels enter on the `[0, 1]` scale.
    #[config(default = "None")]
    pub input_moments: Option<(Vec<f64>, Vec<f64>)>,
}

/// Three valid-padded 3×3 ReLU convolutions with two 2×2 max-pools, a ReLU fc(256), a linear fc(out_dim).
#[derive(Module, Debug)]
pub struct Cifar10Trunk {
    input: InputStandardiser,
    conv1: Conv2d,
    conv2: Conv2d,
    conv3: Conv2d,
    pool: MaxPool2d,
    fc1: Linear,
    fc2: Linear,
    activation: Relu,
}

impl Cifar10TrunkConfig {
    /// The paper's widths with the input standardised per channel by the moments of `train`
    /// (the usual CIFAR-10 recipe; pixels still enter on the `[0, 1]` scale).
    pub fn standardised_for(train: &crate::data::ImageSet) -> Self {
        Self::new().with_input_moments(Some(train.channel_moments()))
    }

    /// Builds the trunk for 3×32×32 images on `device`; errors if
    /// [`input_moments`](Self::input_moments) does not hold three finite means and three positive
    /// spreads.
    pub fn try_init(&self, device: &Device) -> GpResult<Cifar10Trunk> {
        let input = match &self.input_moments {
            Some((mean, std)) => InputStandardiser::new(3, mean, std, device)?,
            None => InputStandardiser::identity(3, device),
        };
        Ok(Cifar10Trunk { input, ..self.layers(device) })
    }

    /// Builds the trunk for 3×32×32 images on `device` ([`try_init`](Self::try_init) also checks
    /// [`input_moments`](Self::input_moments); here a zero spread gives non-finite features, which
    /// training reports as a non-finite objective).
    pub fn init(&self, device: &Device) -> Cifar10Trunk {
        match &self.input_moments {
            Some((mean, std)) => {
                Cifar10Trunk { input: InputStandardiser::unchecked(mean, std, device), ..self.layers(device) }
            }
            None => self.layers(device),
        }
    }

    fn layers(&self, device: &Device) -> Cifar10Trunk {
        let w = self.width;
        let conv = |c_in: usize| Conv2dConfig::new([c_in, w], [3, 3]).with_initializer(he_init()).init(device);
        Cifar10Trunk {
            input: InputStandardiser::identity(3, device),
            conv1: conv(3),
            conv2: conv(w),
            conv3: conv(w),
            pool: MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init(),
            // 32 → 30 → 28 → pool 14 → 12 → pool 6.
            fc1: LinearConfig::new(w * 6 * 6, 256).with_initializer(he_init()).init(device),
            fc2: LinearConfig::new(256, self.out_dim).with_initializer(he_init()).init(device),
            activation: Relu::new(),
        }
    }
}

impl Cifar10Trunk {
    /// The convolution width.
    pub(crate) fn width(&self) -> usize {
        self.conv1.weight.dims()[0]
    }
    /// Shape `[C, H, W]` of one input image.
    pub fn input_shape(&self) -> [usize; 3] {
        [3, 32, 32]
    }
}

impl Trunk for Cifar10Trunk {
    type Input = Tensor<4>;
    /// Errors unless `images` is `[B, C, H, W]` with this trunk's `[C, H, W]`, `B ≥ 1`, finite.
    fn check_input(&self, images: &Tensor<4>) -> GpResult<()> {
        check_image_batch(self.input_shape(), images)
    }
    fn out_dim(&self) -> usize {
        self.fc2.weight.dims()[1]
    }
    fn features(&self, images: Tensor<4>) -> Tensor<2> {
        let x = self.activation.forward(conv_forward(&self.conv1, self.input.forward(images)));
        let x = self.activation.forward(conv_forward(&self.conv2, x));
        let x = max_pool_forward(&self.pool, x);
        let x = self.activation.forward(conv_forward(&self.conv3, x));
        let x = max_pool_forward(&self.pool, x);
        dense_tail(x, &self.fc1, &self.fc2)
    }
}
