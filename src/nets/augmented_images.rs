//! [`AugmentedImages`]: a training set of images that are cropped and flipped afresh every time a
//! minibatch is drawn ([`ImageAugmentation`]), reproducibly from a seed.
use std::sync::atomic::{AtomicU64, Ordering};

use burn::tensor::{Device, Tensor};

use super::batch::batch_from_pixels;
use super::{ImageBatch, TrainingSet};
use crate::data::{ImageAugmentation, ImageSet};
use crate::error::{Error, Result};

/// An [`ImageSet`] whose minibatches are augmented: the `k`-th call of
/// [`batch`](TrainingSet::batch) (or [`image_batch`](Self::image_batch)) draws each image's crop
/// and flip from a generator seeded by `(seed, k)`, so a training run that draws its batches in
/// the same order repeats bit for bit. Evaluate on the plain [`ImageSet`].
#[derive(Debug)]
pub struct AugmentedImages {
    set: ImageSet,
    augmentation: ImageAugmentation,
    seed: u64,
    calls: AtomicU64,
}

impl AugmentedImages {
    /// `set` augmented by `augmentation`, with draws seeded by `seed`; errors if the padding is
    /// not smaller than the images.
    pub fn new(set: ImageSet, augmentation: ImageAugmentation, seed: u64) -> Result<Self> {
        augmentation.validate([set.channels, set.height, set.width])?;
        Ok(Self { set, augmentation, seed, calls: AtomicU64::new(0) })
    }

    /// The images without augmentation.
    pub fn images(&self) -> &ImageSet {
        &self.set
    }

    /// The images `idx`, augmented (one new draw per call), as a minibatch on `device`.
    pub fn image_batch(&self, idx: &[usize], device: &Device) -> Result<ImageBatch> {
        if idx.is_empty() {
            return Err(Error::Empty { context: "image batch indices".into() });
        }
        let call = self.calls.fetch_add(1, Ordering::Relaxed);
        let mut rng = ImageAugmentation::batch_rng(self.seed, call);
        let shape = [self.set.channels, self.set.height, self.set.width];
        let mut image = vec![0u8; self.set.pixels_per_image()];
        let mut pixels = Vec::with_capacity(idx.len() * image.len());
        let mut labels = Vec::with_capacity(idx.len());
        for &i in idx {
            let source =
                self.set.image(i).ok_or_else(|| Error::invalid("idx", format!("image {i} of {}", self.set.n)))?;
            self.augmentation.apply(source, shape, self.augmentation.draw(&mut rng), &mut image);
            pixels.extend(image.iter().map(|&p| p as f32 / 255.0));
            labels.push(usize::from(self.set.labels[i]));
        }
        batch_from_pixels(pixels, labels, shape, self.set.num_classes, device)
    }
}

impl TrainingSet for AugmentedImages {
    type Input = Tensor<4>;
    fn len(&self) -> usize {
        self.set.n
    }
    fn outputs(&self) -> usize {
        self.set.num_classes
    }
    /// Augmented pixels scaled to `[0, 1]` `[B, C, H, W]` and one-hot labels `[B, classes]`.
    fn batch(&self, idx: &[usize], device: &Device) -> Result<(Tensor<4>, Tensor<2>)> {
        let b = self.image_batch(idx, device)?;
        Ok((b.images, b.targets))
    }
    /// The next batch draws its crops and flips as the `batches + 1`-th of the run.
    fn resume_after(&self, batches: u64) {
        self.calls.store(batches, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::to_vec;

    fn set() -> ImageSet {
        let pixels = (0..4 * 3 * 8 * 8).map(|i| (i % 251) as u8).collect();
        ImageSet::new(pixels, vec![0, 1, 2, 1], [3, 8, 8], 3).unwrap()
    }

    #[test]
    fn batches_repeat_from_the_seed_and_change_between_calls() {
        let device = crate::device::default_device().unwrap();
        let draw = |seed| {
            let aug = AugmentedImages::new(set(), ImageAugmentation { pad: 2, flip: true }, seed).unwrap();
            let first = to_vec(aug.batch(&[0, 1, 2, 3], &device).unwrap().0);
            let second = to_vec(aug.batch(&[0, 1, 2, 3], &device).unwrap().0);
            (first, second)
        };
        let (a1, a2) = draw(5);
        let (b1, b2) = draw(5);
        assert_eq!((&a1, &a2), (&b1, &b2));
        assert_ne!(a1, a2, "two calls drew the same crops");
        assert_ne!(a1, draw(6).0, "another seed drew the same crops");
        let aug = AugmentedImages::new(set(), ImageAugmentation { pad: 0, flip: false }, 5).unwrap();
        let plain = to_vec(crate::nets::image_batch(&set(), &[2, 0], &device).unwrap().images);
        assert_eq!(to_vec(aug.batch(&[2, 0], &device).unwrap().0), plain, "no padding and no flip is the identity");
        let (_, targets) = aug.batch(&[1, 2], &device).unwrap();
        assert_eq!(to_vec(targets), vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(AugmentedImages::new(set(), ImageAugmentation { pad: 8, flip: false }, 0).is_err());
        assert!(aug.batch(&[4], &device).is_err());
    }
}
