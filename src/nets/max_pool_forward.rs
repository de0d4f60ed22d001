//! A Burn `MaxPool2d` applied through burn-gp's host pooling on CPU backends.
use burn::backend::Dispatch;
use burn::nn::pool::MaxPool2d;
use burn::nn::PaddingConfig2d;
use burn::tensor::Tensor;

use super::trunk_ops::TrunkOps;

/// `pool.forward(x)`, faster on the CPU backends for the paper's trunks' pooling.
///
/// When `pool` is a 2×2 max-pool with stride 2, no padding, no dilation and floor mode (the
/// pooling of [`MnistTrunk`](super::MnistTrunk) and [`Cifar10Trunk`](super::Cifar10Trunk)), the
/// forward and backward passes run on the host in the tensor's precision without Burn's index
/// tensor: the same values and the same gradient (ties go to the first maximum in row-major
/// order, as in Burn). Other poolings, and every pooling on a GPU backend, go through Burn's
/// `MaxPool2d::forward` unchanged. Use it in a trunk of your own in place of `pool.forward(x)`.
///
/// ```
/// use burn::nn::pool::MaxPool2dConfig;
/// use burn::tensor::{Distribution, Tensor};
/// use burn_gp::prelude::*;
///
/// # fn main() -> burn_gp::Result<()> {
/// let device = default_device()?;
/// let pool = MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init();
/// let x = Tensor::<4>::random([2, 3, 9, 8], Distribution::Normal(0.0, 1.0), &device);
/// let y = burn_gp::nets::max_pool_forward(&pool, x.clone());
/// assert_eq!(y.dims(), [2, 3, 4, 4]);
/// assert_eq!(y.into_data(), pool.forward(x).into_data());
/// # Ok(())
/// # }
/// ```
pub fn max_pool_forward(pool: &MaxPool2d, x: Tensor<4>) -> Tensor<4> {
    let plain = pool.kernel_size == [2, 2]
        && pool.stride == [2, 2]
        && pool.dilation == [1, 1]
        && !pool.ceil_mode
        && matches!(pool.padding, PaddingConfig2d::Valid);
    if plain {
        Tensor::from_dispatch(Dispatch::max_pool2x2(x.into_dispatch()))
    } else {
        pool.forward(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::nn::pool::MaxPool2dConfig;
    use burn::tensor::Distribution;

    /// Output and input gradient equal Burn's own `MaxPool2d::forward` (odd sizes included).
    #[test]
    fn matches_burns_pooling_and_its_gradient() {
        let device = crate::device::default_device().unwrap().autodiff();
        let pool = MaxPool2dConfig::new([2, 2]).with_strides([2, 2]).init();
        let x = Tensor::<4>::random([3, 4, 7, 6], Distribution::Normal(0.0, 1.0), &device).require_grad();
        let w = Tensor::<4>::random([3, 4, 3, 3], Distribution::Normal(0.0, 1.0), &device);
        let run = |ours: bool| {
            let y = if ours { max_pool_forward(&pool, x.clone()) } else { pool.forward(x.clone()) };
            let grads = (y.clone() * w.clone()).sum().backward();
            [y, x.grad(&grads).unwrap()].map(crate::tensors::to_vec)
        };
        assert_eq!(run(true), run(false));
    }
}
