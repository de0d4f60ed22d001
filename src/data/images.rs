//! [`ImageSet`]: labelled 8-bit images in channel-major (`n × c × h × w`) layout.
use std::ops::Range;

use super::labels::{check_labels, count_classes};
use super::select::gather_rows;
use super::table::Table;
use crate::error::{Error, Result};

/// Labelled 8-bit images, row-major `n × channels × height × width` (channel-major per image).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageSet {
    /// Pixel bytes, `n × channels × height × width`.
    pub images: Vec<u8>,
    /// Class label of each image, in `0..num_classes`.
    pub labels: Vec<u8>,
    /// Number of images.
    pub n: usize,
    /// Colour channels per image (1 for MNIST, 3 for CIFAR-10).
    pub channels: usize,
    /// Image height in pixels.
    pub height: usize,
    /// Image width in pixels.
    pub width: usize,
    /// Number of classes.
    pub num_classes: usize,
}

impl ImageSet {
    /// An image set; `n = labels.len()`. Errors: no images ([`Error::Empty`]), a zero dimension
    /// ([`Error::InvalidArgument`]), a pixel count other than `n·c·h·w` ([`Error::ShapeMismatch`]),
    /// a label `≥ num_classes` ([`Error::LabelOutOfRange`]).
    pub fn new(
        images: Vec<u8>,
        labels: Vec<u8>,
        [channels, height, width]: [usize; 3],
        num_classes: usize,
    ) -> Result<Self> {
        if channels == 0 || height == 0 || width == 0 || num_classes == 0 {
            return Err(Error::invalid(
                "shape",
                format!("channels {channels}, height {height}, width {width} and num_classes {num_classes} must all be positive"),
            ));
        }
        let n = labels.len();
        if n == 0 {
            return Err(Error::Empty { context: "ImageSet::new (no images)".to_string() });
        }
        let expected = [n, channels, height, width].iter().try_fold(1usize, |acc, &k| acc.checked_mul(k));
        if expected != Some(images.len()) {
            return Err(Error::shape(
                "ImageSet::new images (n·c·h·w bytes)",
                [n, channels, height, width],
                images.len(),
            ));
        }
        check_labels("ImageSet labels", labels.iter().map(|&l| usize::from(l)), num_classes)?;
        Ok(Self { images, labels, n, channels, height, width, num_classes })
    }

    /// Values per image, `channels · height · width`.
    pub fn pixels_per_image(&self) -> usize {
        self.channels * self.height * self.width
    }

    /// The pixels of image `i`, or `None` past the end.
    pub fn image(&self, i: usize) -> Option<&[u8]> {
        let size = self.pixels_per_image();
        let start = i.checked_mul(size)?;
        self.images.get(start..start.checked_add(size)?)
    }

    /// Every pixel scaled to `[0, 1]` (divided by 255), same layout as [`images`](Self::images).
    pub fn to_f64_normalised(&self) -> Vec<f64> {
        self.images.iter().map(|&p| f64::from(p) / 255.0).collect()
    }

    /// Mean and standard deviation of each channel over every pixel of every image, on the
    /// `[0, 1]` scale of [`to_f64_normalised`](Self::to_f64_normalised): the per-channel
    /// standardisation of a CIFAR-10 recipe, fitted on the training set.
    pub fn channel_moments(&self) -> (Vec<f64>, Vec<f64>) {
        let plane = self.height * self.width;
        let mut sum = vec![0.0f64; self.channels];
        let mut sq = vec![0.0f64; self.channels];
        for image in self.images.chunks_exact(self.pixels_per_image()) {
            for (c, pixels) in image.chunks_exact(plane).enumerate() {
                let (s, q) =
                    pixels.iter().fold((0u64, 0u64), |(s, q), &p| (s + u64::from(p), q + u64::from(p) * u64::from(p)));
                sum[c] += s as f64;
                sq[c] += q as f64;
            }
        }
        let count = (self.n * plane) as f64;
        let mean: Vec<f64> = sum.iter().map(|s| s / count / 255.0).collect();
        let std = sq.iter().zip(&mean).map(|(q, m)| (q / count / 65025.0 - m * m).max(0.0).sqrt()).collect();
        (mean, std)
    }

    /// The labels as class indices.
    pub fn labels_usize(&self) -> Vec<usize> {
        self.labels.iter().map(|&l| usize::from(l)).collect()
    }

    /// How many images each class has.
    pub fn class_counts(&self) -> Vec<usize> {
        count_classes(self.labels.iter().map(|&l| usize::from(l)), self.num_classes)
    }

    /// The images `indices`, in the order given (repeats allowed).
    pub fn select(&self, indices: &[usize]) -> Result<Self> {
        let images = gather_rows("ImageSet::select", &self.images, self.pixels_per_image(), indices)?;
        let labels = gather_rows("ImageSet::select", &self.labels, 1, indices)?;
        Ok(Self { images, labels, n: indices.len(), ..*self })
    }

    /// The contiguous images `range` (e.g. the first 1000 for a quick run).
    pub fn subset(&self, range: Range<usize>) -> Result<Self> {
        if range.end > self.n || range.start > range.end {
            return Err(Error::invalid("range", format!("{range:?} is not within the {} images", self.n)));
        }
        self.select(&range.collect::<Vec<_>>())
    }

    /// Flattened normalised pixels as features (`d = c·h·w`) with the labels as class targets.
    pub fn to_table(&self) -> Result<Table<usize>> {
        Table::new(self.to_f64_normalised(), self.labels_usize(), self.pixels_per_image())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> ImageSet {
        // 3 images of 1×2×2, labels 0, 2, 1.
        ImageSet::new((0..12).collect(), vec![0, 2, 1], [1, 2, 2], 3).unwrap()
    }

    #[test]
    fn channel_moments_match_a_direct_computation() {
        // 2 images of 2×1×2: channel 0 holds 0, 255, 51, 102; channel 1 is constant 255.
        let s = ImageSet::new(vec![0, 255, 255, 255, 51, 102, 255, 255], vec![0, 1], [2, 1, 2], 2).unwrap();
        let (mean, std) = s.channel_moments();
        let c0 = [0.0, 1.0, 0.2, 0.4];
        let m0 = c0.iter().sum::<f64>() / 4.0;
        let s0 = (c0.iter().map(|v| (v - m0) * (v - m0)).sum::<f64>() / 4.0).sqrt();
        assert!((mean[0] - m0).abs() < 1e-12 && (std[0] - s0).abs() < 1e-12, "{mean:?} {std:?}");
        assert!((mean[1] - 1.0).abs() < 1e-12 && std[1].abs() < 1e-6, "{mean:?} {std:?}");
    }

    #[test]
    fn construction_and_accessors() {
        let s = tiny();
        assert_eq!(s.n, 3);
        assert_eq!(s.pixels_per_image(), 4);
        assert_eq!(s.image(1), Some(&[4, 5, 6, 7][..]));
        assert_eq!(s.image(3), None);
        assert_eq!(s.labels_usize(), vec![0, 2, 1]);
        assert_eq!(s.class_counts(), vec![1, 1, 1]);
        let f = s.to_f64_normalised();
        assert_eq!(f[0], 0.0);
        assert!((f[11] - 11.0 / 255.0).abs() < 1e-15);
        let t = s.to_table().unwrap();
        assert_eq!((t.n, t.d), (3, 4));
        assert_eq!(t.y, vec![0, 2, 1]);
    }

    #[test]
    fn constructor_validates() {
        assert!(matches!(ImageSet::new(vec![0; 7], vec![0, 0], [1, 2, 2], 3), Err(Error::ShapeMismatch { .. })));
        assert!(matches!(ImageSet::new(vec![], vec![], [1, 2, 2], 3), Err(Error::Empty { .. })));
        assert!(matches!(ImageSet::new(vec![0; 4], vec![0], [0, 2, 2], 3), Err(Error::InvalidArgument { .. })));
        assert!(matches!(
            ImageSet::new(vec![0; 8], vec![0, 3], [1, 2, 2], 3),
            Err(Error::LabelOutOfRange { label: 3, num_classes: 3, .. })
        ));
        assert!(matches!(ImageSet::new(vec![0; 4], vec![0], [usize::MAX, 2, 2], 3), Err(Error::ShapeMismatch { .. })));
    }

    #[test]
    fn subset_and_select() {
        let s = tiny();
        let sub = s.subset(1..3).unwrap();
        assert_eq!(sub.n, 2);
        assert_eq!(sub.labels, vec![2, 1]);
        assert_eq!(sub.images, (4..12).collect::<Vec<u8>>());
        let sel = s.select(&[2, 0]).unwrap();
        assert_eq!(sel.images, vec![8, 9, 10, 11, 0, 1, 2, 3]);
        assert_eq!(sel.labels, vec![1, 0]);
        assert!(matches!(s.subset(2..4), Err(Error::InvalidArgument { .. })));
        assert!(matches!(s.subset(1..1), Err(Error::Empty { .. })));
        assert!(matches!(s.select(&[3]), Err(Error::InvalidArgument { .. })));
    }
}
