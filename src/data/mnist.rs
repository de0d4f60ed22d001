//! MNIST and Fashion-MNIST: the four IDX files of `<root>/mnist/` or `<root>/fashion-mnist/`.
use std::path::Path;

use super::idx::{load_idx_images, load_idx_labels};
use super::images::ImageSet;
use super::io::bad_format;
use super::labels::check_labels;
use super::root::{require_dir, require_gz_or_raw};
use super::subset::Subset;
use crate::error::Result;

/// Class names of Fashion-MNIST, by label.
pub const FASHION_MNIST_CLASSES: [&str; 10] =
    ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"];

/// Which MNIST-layout dataset to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MnistVariant {
    /// LeCun et al.'s handwritten digits, folder `mnist/`.
    Digits,
    /// Zalando's Fashion-MNIST, folder `fashion-mnist/`.
    Fashion,
}

impl MnistVariant {
    /// The folder under the data root.
    pub fn folder(self) -> &'static str {
        match self {
            MnistVariant::Digits => "mnist",
            MnistVariant::Fashion => "fashion-mnist",
        }
    }

    /// Where the files can be obtained.
    fn source(self) -> &'static str {
        match self {
            MnistVariant::Digits => {
                "MNIST's four *-ubyte.gz files come from http://yann.lecun.com/exdb/mnist/ \
                 (mirror: https://ossci-datasets.s3.amazonaws.com/mnist/); put them in DIR/mnist/"
            }
            MnistVariant::Fashion => {
                "Fashion-MNIST's four *-ubyte.gz files come from https://github.com/zalandoresearch/fashion-mnist \
                 (data/fashion/) or Debian's dataset-fashion-mnist package; put them in DIR/fashion-mnist/"
            }
        }
    }
}

/// Number of classes in MNIST and Fashion-MNIST.
const MNIST_CLASSES: usize = 10;

/// Loads the training or test part of MNIST or Fashion-MNIST from `<root>/<variant folder>/`.
pub fn load_mnist(root: &Path, variant: MnistVariant, subset: Subset) -> Result<ImageSet> {
    let dir = require_dir(&root.join(variant.folder()), variant.source())?;
    load_mnist_files(&dir, subset, variant.source())
}

/// Loads the training or test part of any folder holding the four files in MNIST layout
/// (`{train,t10k}-{images-idx3,labels-idx1}-ubyte`, each gzipped or raw) with 10 classes.
pub fn load_mnist_dir(dir: &Path, subset: Subset) -> Result<ImageSet> {
    load_mnist_files(dir, subset, "a folder in MNIST layout (four IDX files)")
}

/// [`load_mnist_dir`] with a hint for missing files.
fn load_mnist_files(dir: &Path, subset: Subset, source: &str) -> Result<ImageSet> {
    let prefix = match subset {
        Subset::Train => "train",
        Subset::Test => "t10k",
    };
    let images_path = require_gz_or_raw(&dir.join(format!("{prefix}-images-idx3-ubyte")), source)?;
    let labels_path = require_gz_or_raw(&dir.join(format!("{prefix}-labels-idx1-ubyte")), source)?;
    let images = load_idx_images(&images_path)?;
    let labels = load_idx_labels(&labels_path)?;
    if labels.len() != images.n {
        return Err(bad_format(
            &labels_path,
            format!("holds {} labels but {} holds {} images", labels.len(), images_path.display(), images.n),
        ));
    }
    check_labels(&labels_path.display().to_string(), labels.iter().map(|&l| usize::from(l)), MNIST_CLASSES)?;
    ImageSet::new(images.pixels, labels, [1, images.height, images.width], MNIST_CLASSES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::idx::encode_idx;
    use crate::data::testutil::{temp_dir, write_file, write_gz};
    use crate::error::Error;

    /// Writes a 3-image 2×2 MNIST-layout test split (images gzipped, labels raw) into `dir`.
    fn write_split(dir: &Path, labels: &[u8]) {
        let n = labels.len() as u32;
        write_gz(dir, "t10k-images-idx3-ubyte.gz", &encode_idx(&[3, 2, 2], &(0..12).collect::<Vec<u8>>()));
        write_file(dir, "t10k-labels-idx1-ubyte", &encode_idx(&[n], labels));
    }

    #[test]
    fn loads_a_small_mnist_layout_folder() {
        let root = temp_dir("mnist-ok");
        write_split(&root.join("fashion-mnist"), &[9, 0, 3]);
        let set = load_mnist(&root, MnistVariant::Fashion, Subset::Test).unwrap();
        assert_eq!((set.n, set.channels, set.height, set.width, set.num_classes), (3, 1, 2, 2, 10));
        assert_eq!(set.labels, vec![9, 0, 3]);
        assert_eq!(set.image(2), Some(&[8, 9, 10, 11][..]));
    }

    #[test]
    fn missing_files_say_where_to_get_them() {
        let root = temp_dir("mnist-missing");
        let err = load_mnist(&root, MnistVariant::Digits, Subset::Train).unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref hint, .. } if hint.contains("lecun") && hint.contains("BURN_GP_DATA")),
            "{err}"
        );
        write_split(&root.join("mnist"), &[0, 1, 2]);
        let err = load_mnist(&root, MnistVariant::Digits, Subset::Train).unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref path, .. } if path.ends_with("train-images-idx3-ubyte")),
            "{err}"
        );
    }

    #[test]
    fn label_count_mismatch_is_bad_format() {
        let dir = temp_dir("mnist-count");
        write_split(&dir, &[0, 1]);
        let err = load_mnist_dir(&dir, Subset::Test).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("2 labels") && reason.contains("3 images")),
            "{err}"
        );
    }

    #[test]
    fn labels_above_nine_are_out_of_range() {
        let dir = temp_dir("mnist-label");
        write_split(&dir, &[0, 10, 1]);
        let err = load_mnist_dir(&dir, Subset::Test).unwrap_err();
        assert!(matches!(err, Error::LabelOutOfRange { label: 10, num_classes: 10, .. }), "{err}");
    }
}
