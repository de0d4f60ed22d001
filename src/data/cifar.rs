//! CIFAR-10, binary version: `<root>/cifar-10-batches-bin/{data_batch_1..5,test_batch}.bin`.
use std::path::Path;

use super::images::ImageSet;
use super::io::{bad_format, read_bytes};
use super::labels::check_labels;
use super::root::require_gz_or_raw;
use super::subset::Subset;
use crate::error::{Error, Result};

/// Class names of CIFAR-10, by label.
pub const CIFAR10_CLASSES: [&str; 10] =
    ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"];

/// Folder the CIFAR-10 binary archive extracts to.
pub const CIFAR10_FOLDER: &str = "cifar-10-batches-bin";

/// Side of a CIFAR-10 image in pixels.
const SIDE: usize = 32;

/// Bytes per image: 3 channels (R, G, B planes) of 32×32.
const PIXELS: usize = 3 * SIDE * SIDE;

/// Bytes per record: one label byte then the pixels.
pub const CIFAR10_RECORD_BYTES: usize = 1 + PIXELS;

/// Where CIFAR-10 can be obtained.
const SOURCE: &str = "download the CIFAR-10 binary version from \
    https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and extract it into DIR \
    (it creates DIR/cifar-10-batches-bin/)";

/// Loads one CIFAR-10 binary batch file (`.gz` is decompressed): records of one label byte
/// and 3072 pixel bytes. A length that is not a whole number of records is
/// [`Error::BadFormat`], a label `≥ 10` is [`Error::LabelOutOfRange`].
pub fn load_cifar10_batch(path: &Path) -> Result<ImageSet> {
    let mut images = Vec::new();
    let mut labels = Vec::new();
    append_batch(path, &mut images, &mut labels)?;
    ImageSet::new(images, labels, [3, SIDE, SIDE], CIFAR10_CLASSES.len())
}

/// Loads the CIFAR-10 training set (the five data batches, 50 000 images, in order) or the
/// test set (10 000 images) from `<root>/cifar-10-batches-bin/`.
pub fn load_cifar10(root: &Path, subset: Subset) -> Result<ImageSet> {
    let dir = root.join(CIFAR10_FOLDER);
    let names: Vec<String> = match subset {
        Subset::Train => (1..=5).map(|k| format!("data_batch_{k}.bin")).collect(),
        Subset::Test => vec!["test_batch.bin".to_string()],
    };
    let mut images = Vec::new();
    let mut labels = Vec::new();
    for name in names {
        let path = require_gz_or_raw(&dir.join(name), SOURCE)?;
        append_batch(&path, &mut images, &mut labels)?;
    }
    ImageSet::new(images, labels, [3, SIDE, SIDE], CIFAR10_CLASSES.len())
}

/// Reads the batch file `path` and appends its pixels and labels.
fn append_batch(path: &Path, images: &mut Vec<u8>, labels: &mut Vec<u8>) -> Result<()> {
    let bytes = read_bytes(path)?;
    if bytes.is_empty() {
        return Err(Error::Empty { context: format!("CIFAR-10 batch {}", path.display()) });
    }
    if !bytes.len().is_multiple_of(CIFAR10_RECORD_BYTES) {
        return Err(bad_format(
            path,
            format!(
                "{} bytes is not a whole number of {CIFAR10_RECORD_BYTES}-byte records (truncated after record {})",
                bytes.len(),
                bytes.len() / CIFAR10_RECORD_BYTES
            ),
        ));
    }
    let first = labels.len();
    for record in bytes.chunks_exact(CIFAR10_RECORD_BYTES) {
        labels.push(record[0]);
        images.extend_from_slice(&record[1..]);
    }
    check_labels(&path.display().to_string(), labels[first..].iter().map(|&l| usize::from(l)), CIFAR10_CLASSES.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testutil::{temp_dir, write_file, write_gz};

    /// The bytes of a CIFAR-10 binary batch holding `labels` with images `pixels(i)`.
    fn encode_cifar10_batch(labels: &[u8], mut pixels: impl FnMut(usize) -> [u8; PIXELS]) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(labels.len() * CIFAR10_RECORD_BYTES);
        for (i, &label) in labels.iter().enumerate() {
            bytes.push(label);
            bytes.extend_from_slice(&pixels(i));
        }
        bytes
    }

    /// Image `i` has every red byte `i`, green `100 + i`, blue `200 + i`.
    fn planes(i: usize) -> [u8; PIXELS] {
        let mut img = [0u8; PIXELS];
        for (c, plane) in img.chunks_exact_mut(SIDE * SIDE).enumerate() {
            plane.fill((100 * c + i) as u8);
        }
        img
    }

    #[test]
    fn reads_records_channel_major() {
        let dir = temp_dir("cifar-batch");
        let path = write_file(&dir, "b.bin", &encode_cifar10_batch(&[3, 9], planes));
        let set = load_cifar10_batch(&path).unwrap();
        assert_eq!((set.n, set.channels, set.height, set.width, set.num_classes), (2, 3, 32, 32, 10));
        assert_eq!(set.labels, vec![3, 9]);
        let img = set.image(1).unwrap();
        assert_eq!((img[0], img[1023], img[1024], img[2048], img[3071]), (1, 1, 101, 201, 201));
    }

    #[test]
    fn truncated_file_is_bad_format() {
        let dir = temp_dir("cifar-trunc");
        let bytes = encode_cifar10_batch(&[1, 2], planes);
        let path = write_file(&dir, "b.bin", &bytes[..bytes.len() - 5]);
        let err = load_cifar10_batch(&path).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("after record 1")), "{err}");
        let empty = write_file(&dir, "e.bin", &[]);
        assert!(matches!(load_cifar10_batch(&empty), Err(Error::Empty { .. })));
    }

    #[test]
    fn bad_label_is_out_of_range() {
        let dir = temp_dir("cifar-label");
        let path = write_file(&dir, "b.bin", &encode_cifar10_batch(&[1, 10], planes));
        let err = load_cifar10_batch(&path).unwrap_err();
        assert!(
            matches!(err, Error::LabelOutOfRange { label: 10, num_classes: 10, ref context } if context.contains("b.bin")),
            "{err}"
        );
    }

    #[test]
    fn loads_train_batches_in_order_and_test_gz() {
        let root = temp_dir("cifar-root");
        let dir = root.join(CIFAR10_FOLDER);
        for k in 1..=5u8 {
            write_file(&dir, &format!("data_batch_{k}.bin"), &encode_cifar10_batch(&[k, k - 1], planes));
        }
        write_gz(&dir, "test_batch.bin.gz", &encode_cifar10_batch(&[7], planes));
        let train = load_cifar10(&root, Subset::Train).unwrap();
        assert_eq!(train.n, 10);
        assert_eq!(train.labels, vec![1, 0, 2, 1, 3, 2, 4, 3, 5, 4]);
        let test = load_cifar10(&root, Subset::Test).unwrap();
        assert_eq!(test.labels, vec![7]);
    }

    #[test]
    fn missing_batch_says_where_to_get_cifar() {
        let root = temp_dir("cifar-missing");
        let err = load_cifar10(&root, Subset::Test).unwrap_err();
        match err {
            Error::MissingFile { path, hint } => {
                assert!(path.ends_with("cifar-10-batches-bin/test_batch.bin"), "{}", path.display());
                assert!(hint.contains("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"), "{hint}");
                assert!(hint.contains("--data DIR") && hint.contains("BURN_GP_DATA"), "{hint}");
            }
            other => panic!("unexpected {other}"),
        }
    }
}
