//! Image minibatches as tensors.
use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::data::ImageSet;
use crate::error::{Error, Result};
use crate::likelihoods::one_hot;

/// One minibatch: pixels scaled to `[0, 1]`, one-hot targets and integer labels.
pub struct ImageBatch {
    /// Images `[B, C, H, W]`.
    pub images: Tensor<4>,
    /// One-hot targets `[B, classes]` (for the Bayesian SVM head).
    pub targets: Tensor<2>,
    /// Labels `[B]` (for cross-entropy).
    pub labels: Tensor<1, Int>,
    /// Labels on the host.
    pub label_values: Vec<usize>,
}

/// Rows `idx` of `set` as an [`ImageBatch`] on `device`.
pub fn image_batch(set: &ImageSet, idx: &[usize], device: &Device) -> Result<ImageBatch> {
    if idx.is_empty() {
        return Err(Error::Empty { context: "image batch indices".into() });
    }
    let per = set.pixels_per_image();
    let mut pixels = Vec::with_capacity(idx.len() * per);
    let mut label_values = Vec::with_capacity(idx.len());
    for &i in idx {
        let img = set.image(i).ok_or_else(|| Error::invalid("idx", format!("image {i} of {}", set.n)))?;
        pixels.extend(img.iter().map(|&p| p as f32 / 255.0));
        label_values.push(set.labels[i] as usize);
    }
    batch_from_pixels(pixels, label_values, [set.channels, set.height, set.width], set.num_classes, device)
}

/// A minibatch of `label_values.len()` images from their pixels on the `[0, 1]` scale
/// (`[B, C, H, W]` row-major) and labels in `0..classes`.
pub(crate) fn batch_from_pixels(
    pixels: Vec<f32>,
    label_values: Vec<usize>,
    [c, h, w]: [usize; 3],
    classes: usize,
    device: &Device,
) -> Result<ImageBatch> {
    let b = label_values.len();
    let images = Tensor::<4>::from_data(TensorData::new(pixels, [b, c, h, w]), device);
    let targets = one_hot(&label_values, classes, device)?;
    let ints: Vec<i64> = label_values.iter().map(|&l| l as i64).collect();
    let labels = Tensor::<1, Int>::from_data(TensorData::new(ints, [b]), device);
    Ok(ImageBatch { images, targets, labels, label_values })
}
