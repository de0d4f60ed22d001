//! Predictions of image networks over a whole [`ImageSet`], a chunk of images at a time, so the
//! memory of a forward pass is bounded by the chunk, not by the set.
use burn::tensor::{Device, Tensor};

use super::{image_batch, HybridNet, SoftmaxNet, Trunk};
use crate::data::ImageSet;
use crate::error::Result;
use crate::models::ClassPredictive;
use crate::tensors::to_vec;

/// Images per forward pass.
const CHUNK: usize = 500;

/// The image indices of `set` in chunks of [`CHUNK`].
fn chunks(n: usize) -> impl Iterator<Item = Vec<usize>> {
    (0..n.div_ceil(CHUNK)).map(move |k| (k * CHUNK..((k + 1) * CHUNK).min(n)).collect())
}

/// The rows `[n, C]` that `rows_of` gives for the images of `set` on `device`, a chunk at a time.
fn rows_per_chunk(set: &ImageSet, device: &Device, rows_of: impl Fn(Tensor<4>) -> Tensor<2>) -> Result<Vec<f64>> {
    let mut rows = Vec::new();
    for idx in chunks(set.n) {
        rows.extend(to_vec(rows_of(image_batch(set, &idx, device)?.images)));
    }
    Ok(rows)
}

impl<T: Trunk<Input = Tensor<4>>> HybridNet<T> {
    /// The class marginals of every image of `set` (pixels scaled to `[0, 1]` as in training),
    /// computed on `device` in chunks of 500 images: use a network without autodiff (`valid()`).
    pub fn predict_images(&self, set: &ImageSet, device: &Device) -> Result<ClassPredictive> {
        let (mut mean, mut var) = (Vec::new(), Vec::new());
        for idx in chunks(set.n) {
            let (m, v) = self.marginals(image_batch(set, &idx, device)?.images)?;
            mean.extend(to_vec(m));
            var.extend(to_vec(v));
        }
        ClassPredictive::new(mean, var, set.num_classes)
    }
}

impl<T: Trunk<Input = Tensor<4>>> SoftmaxNet<T> {
    /// The class logits `[n, C]` (row-major) of every image of `set`, computed on `device` in
    /// chunks of 500 images.
    pub fn logits_of_images(&self, set: &ImageSet, device: &Device) -> Result<Vec<f64>> {
        rows_per_chunk(set, device, |images| self.logits(images))
    }
    /// The softmax class probabilities `[n, C]` (row-major) of every image of `set`.
    pub fn probabilities_of_images(&self, set: &ImageSet, device: &Device) -> Result<Vec<f64>> {
        rows_per_chunk(set, device, |images| burn::tensor::activation::softmax(self.logits(images), 1))
    }
}
