//! A Burn `Conv2d` applied through burn-gp's host convolution on CPU backends.
use burn::backend::Dispatch;
use burn::nn::conv::Conv2d;
use burn::nn::PaddingConfig2d;
use burn::tensor::Tensor;

use super::trunk_ops::TrunkOps;

/// `conv.forward(x)`, faster on the CPU backends for the paper's trunks' convolutions.
///
/// When `conv` has stride 1, no padding, no dilation, one group and a bias (every convolution of
/// [`MnistTrunk`](super::MnistTrunk) and [`Cifar10Trunk`](super::Cifar10Trunk)), the forward pass
/// and both gradients run as one matrix product per image (im2col and faer, in the tensors'
/// precision) instead of Burn's CPU convolution; the same values up to rounding
/// (`cargo bench --bench trunk_profile` times both). Other convolutions, and every convolution
/// on a GPU backend, go through Burn's `Conv2d::forward` unchanged. Use it in a trunk of your
/// own in place of `conv.forward(x)`.
///
/// ```
/// use burn::nn::conv::Conv2dConfig;
/// use burn::tensor::{Distribution, Tensor};
/// use burn_gp::prelude::*;
///
/// # fn main() -> burn_gp::Result<()> {
/// let device = default_device()?;
/// let conv = Conv2dConfig::new([3, 8], [3, 3]).init(&device);
/// let x = Tensor::<4>::random([2, 3, 10, 10], Distribution::Normal(0.0, 1.0), &device);
/// let y = burn_gp::nets::conv_forward(&conv, x.clone());
/// assert_eq!(y.dims(), [2, 8, 8, 8]);
/// let difference = (y - conv.forward(x)).abs().max().into_scalar::<f64>();
/// assert!(difference < 1e-4);
/// # Ok(())
/// # }
/// ```
pub fn conv_forward(conv: &Conv2d, x: Tensor<4>) -> Tensor<4> {
    let plain = conv.stride == [1, 1]
        && conv.dilation == [1, 1]
        && conv.groups == 1
        && matches!(conv.padding, PaddingConfig2d::Valid);
    match &conv.bias {
        Some(bias) if plain => Tensor::from_dispatch(Dispatch::conv2d_valid(
            x.into_dispatch(),
            conv.weight.val().into_dispatch(),
            bias.val().into_dispatch(),
        )),
        _ => conv.forward(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::nn::conv::Conv2dConfig;
    use burn::tensor::Distribution;

    /// Output and every gradient (input, weight, bias) equal Burn's own `Conv2d::forward`.
    #[test]
    fn matches_burns_convolution_and_its_gradients() {
        let device = crate::device::default_device().unwrap().autodiff();
        let conv = Conv2dConfig::new([3, 4], [3, 2]).init(&device);
        let x = Tensor::<4>::random([5, 3, 7, 6], Distribution::Normal(0.0, 1.0), &device).require_grad();
        let w = Tensor::<4>::random([5, 4, 5, 5], Distribution::Normal(0.0, 1.0), &device);
        let run = |ours: bool| {
            let y = if ours { conv_forward(&conv, x.clone()) } else { conv.forward(x.clone()) };
            let grads = (y.clone() * w.clone()).sum().backward();
            let pieces = [
                y,
                x.grad(&grads).unwrap(),
                conv.weight.grad(&grads).unwrap(),
                conv.bias.as_ref().unwrap().grad(&grads).unwrap().reshape([1, 1, 1, 4]),
            ];
            pieces.map(crate::tensors::to_vec)
        };
        let (ours, burn) = (run(true), run(false));
        let tol = if crate::device::precision(&device) == crate::device::Precision::F64 { 1e-10 } else { 1e-4 };
        for (name, (a, b)) in ["output", "input grad", "weight grad", "bias grad"].iter().zip(ours.iter().zip(&burn)) {
            assert_eq!(a.len(), b.len(), "{name}");
            let worst = a.iter().zip(b).map(|(p, q)| (p - q).abs() / (1.0 + q.abs())).fold(0.0, f64::max);
            assert!(worst < tol, "{name}: {worst}");
        }
    }
}
