//! The fast gradient sign method (Goodfellow et al. 2015), the attack of paper 003 §4.3.
use burn::tensor::Tensor;

use crate::error::{Error, Result};

/// One FGSM step: `clip(x + ε·sign(∇ₓ loss), 0, 1)` for the images `x` `[B, C, H, W]` (pixels on
/// the `[0, 1]` scale, tracked on an autodiff device: `x.require_grad()`) and the loss computed
/// from them. The result is on the device without autodiff. A loss that does not depend on `x`
/// is [`Error::InvalidArgument`]; a negative or non-finite `eps` too.
pub fn fgsm(images: Tensor<4>, loss: Tensor<1>, eps: f64) -> Result<Tensor<4>> {
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(Error::invalid("eps", format!("need a finite ε ≥ 0, got {eps}")));
    }
    let grads = loss.backward();
    let g = images.grad(&grads).ok_or_else(|| Error::invalid("fgsm", "no gradient reached the input images"))?;
    Ok((images.inner() + g.sign().mul_scalar(eps)).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use burn::tensor::{Tensor, TensorData};

    use super::*;

    #[test]
    fn each_pixel_moves_by_eps_along_its_gradient_sign_within_the_unit_box() {
        let device = crate::device::default_device().unwrap().autodiff();
        let pixels = vec![0.5, 0.98, 0.02, 0.5, 0.3, 0.7];
        let x = Tensor::<4>::from_data(TensorData::new(pixels.clone(), [1, 1, 2, 3]), &device).require_grad();
        // loss = Σ w·x: the gradient is w
        let w = vec![1.0, 1.0, -1.0, -2.0, 0.0, 3.0];
        let wt = Tensor::<4>::from_data(TensorData::new(w.clone(), [1, 1, 2, 3]), &device);
        let loss = (x.clone() * wt).sum();
        let adv = crate::tensors::to_vec(fgsm(x, loss, 0.05).unwrap());
        let want: Vec<f64> = pixels
            .iter()
            .zip(&w)
            .map(|(p, g): (&f64, &f64)| {
                (p + 0.05
                    * if *g > 0.0 {
                        1.0
                    } else if *g < 0.0 {
                        -1.0
                    } else {
                        0.0
                    })
                .clamp(0.0, 1.0)
            })
            .collect();
        for (a, b) in adv.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{adv:?} vs {want:?}");
        }
        let x = Tensor::<4>::from_data(TensorData::new(pixels, [1, 1, 2, 3]), &device).require_grad();
        let constant = x.clone().sum().mul_scalar(0.0).detach().require_grad();
        assert!(fgsm(x.clone(), x.clone().sum(), -1.0).is_err());
        assert!(fgsm(x, constant, 0.1).is_err());
    }
}
