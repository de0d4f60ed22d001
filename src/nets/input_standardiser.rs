//! [`InputStandardiser`]: a fixed per-channel standardisation of the images a trunk takes, part of
//! the network (saved and loaded with it), so that every caller feeds pixels on the `[0, 1]`
//! scale, FGSM's ε included.
use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};

use crate::error::{Error, Result};

/// `(x − mean_c) / std_c` on each channel `c` of images `[B, C, H, W]`; the mean and standard
/// deviation are constants (no gradient), fitted on the training images with
/// [`ImageSet::channel_moments`](crate::data::ImageSet::channel_moments).
#[derive(Module, Debug)]
pub struct InputStandardiser {
    mean: Param<Tensor<1>>,
    inv_std: Param<Tensor<1>>,
}

impl InputStandardiser {
    /// The identity on `channels` channels (mean 0, standard deviation 1).
    pub fn identity(channels: usize, device: &Device) -> Self {
        Self::from_parts(vec![0.0; channels], vec![1.0; channels], device)
    }

    /// Subtracts `mean[c]` and divides by `std[c]`; errors unless both have `channels` finite
    /// entries and every `std` is positive.
    pub fn new(channels: usize, mean: &[f64], std: &[f64], device: &Device) -> Result<Self> {
        if mean.len() != channels || std.len() != channels {
            return Err(Error::shape(
                "InputStandardiser mean / std (one per channel)",
                channels,
                mean.len().max(std.len()),
            ));
        }
        if mean.iter().any(|m| !m.is_finite()) || std.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(Error::invalid("std", format!("means {mean:?} must be finite and spreads {std:?} positive")));
        }
        Ok(Self::unchecked(mean, std, device))
    }

    /// As [`new`](Self::new) without the checks (a zero spread divides by zero).
    pub(crate) fn unchecked(mean: &[f64], std: &[f64], device: &Device) -> Self {
        Self::from_parts(mean.to_vec(), std.iter().map(|s| 1.0 / s).collect(), device)
    }

    fn from_parts(mean: Vec<f64>, inv_std: Vec<f64>, device: &Device) -> Self {
        let constant = |v: Vec<f64>| {
            let n = v.len();
            Param::from_tensor(Tensor::<1>::from_data(TensorData::new(v, [n]), device)).set_require_grad(false)
        };
        Self { mean: constant(mean), inv_std: constant(inv_std) }
    }

    /// The standardised images.
    pub fn forward(&self, images: Tensor<4>) -> Tensor<4> {
        let c = self.mean.dims()[0];
        let shape = [1, c, 1, 1];
        (images - self.mean.val().reshape(shape)) * self.inv_std.val().reshape(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::to_vec;

    #[test]
    fn standardises_each_channel_and_rejects_bad_moments() {
        let device = crate::device::default_device().unwrap();
        // One image of 2 channels × 1 × 2: channel 0 = (0.2, 0.6), channel 1 = (1.0, 0.0).
        let images = Tensor::<4>::from_data(TensorData::new(vec![0.2, 0.6, 1.0, 0.0], [1, 2, 1, 2]), &device);
        let norm = InputStandardiser::new(2, &[0.4, 0.5], &[0.2, 0.25], &device).unwrap();
        let out = to_vec(norm.forward(images.clone()));
        let want = [-1.0, 1.0, 2.0, -2.0];
        assert!(out.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6), "{out:?}");
        assert_eq!(to_vec(InputStandardiser::identity(2, &device).forward(images.clone())), to_vec(images));
        assert!(InputStandardiser::new(2, &[0.4], &[0.2, 0.2], &device).is_err());
        assert!(InputStandardiser::new(2, &[0.4, 0.5], &[0.2, 0.0], &device).is_err());
        assert!(InputStandardiser::new(2, &[f64::NAN, 0.5], &[0.2, 0.1], &device).is_err());
    }
}
