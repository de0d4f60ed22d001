//! CIFAR-10: the binary version, `<root>/cifar-10-batches-bin/{data_batch_1..5,test_batch}.bin`,
//! or, when that is absent, the JPEG images `<root>/cifar-10-jpeg/{train,test}/<class>/*.jpg`.
use std::fmt;
use std::path::Path;

use super::image_folder::load_image_folder;
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

/// Folder of CIFAR-10 as JPEG images, `{train,test}/<class>/*.jpg` (read when
/// [`CIFAR10_FOLDER`] is absent).
pub const CIFAR10_JPEG_FOLDER: &str = "cifar-10-jpeg";

/// Seed of the fixed shuffle of the JPEG images (see [`load_image_folder`]): the same files give
/// the same order on every run, so the first `N` images are always the same sample.
pub const CIFAR10_JPEG_SEED: u64 = 0;

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

/// Where CIFAR-10 can be obtained, when neither layout is there.
const SOURCE_EITHER: &str = "download the CIFAR-10 binary version from \
    https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz and extract it into DIR \
    (it creates DIR/cifar-10-batches-bin/), or put CIFAR-10 as images in \
    DIR/cifar-10-jpeg/{train,test}/<class>/*.jpg (one folder per class name)";

/// Which copy of CIFAR-10 a loader reads (see [`cifar10_source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cifar10Source {
    /// The binary version in [`CIFAR10_FOLDER`]: the original pixels, in the batches' order.
    Binary,
    /// The JPEG images in [`CIFAR10_JPEG_FOLDER`]: pixels decoded from lossy (quality 75) JPEGs,
    /// so results on them are close to, but not the same as, results on the binary version; in
    /// the fixed shuffle of [`CIFAR10_JPEG_SEED`].
    Jpeg,
}

impl Cifar10Source {
    /// The folder under the data directory this copy lives in.
    pub fn folder(self) -> &'static str {
        match self {
            Cifar10Source::Binary => CIFAR10_FOLDER,
            Cifar10Source::Jpeg => CIFAR10_JPEG_FOLDER,
        }
    }
}

impl fmt::Display for Cifar10Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cifar10Source::Binary => write!(f, "binary version ({CIFAR10_FOLDER}/)"),
            Cifar10Source::Jpeg => write!(f, "JPEG images, quality 75, lossy ({CIFAR10_JPEG_FOLDER}/)"),
        }
    }
}

/// The copy of CIFAR-10 [`load_cifar10`] reads under `root`: the binary version when
/// `<root>/cifar-10-batches-bin/` exists, else the JPEG images when `<root>/cifar-10-jpeg/`
/// exists, else `None`. Only the folders are looked at, not the files in them.
pub fn cifar10_source(root: &Path) -> Option<Cifar10Source> {
    [Cifar10Source::Binary, Cifar10Source::Jpeg].into_iter().find(|s| root.join(s.folder()).is_dir())
}

/// Loads one CIFAR-10 binary batch file (`.gz` is decompressed): records of one label byte
/// and 3072 pixel bytes. A length that is not a whole number of records is
/// [`Error::BadFormat`], a label `≥ 10` is [`Error::LabelOutOfRange`].
pub fn load_cifar10_batch(path: &Path) -> Result<ImageSet> {
    let mut images = Vec::new();
    let mut labels = Vec::new();
    append_batch(path, &mut images, &mut labels)?;
    ImageSet::new(images, labels, [3, SIDE, SIDE], CIFAR10_CLASSES.len())
}

/// Loads the CIFAR-10 training set (50 000 images) or the test set (10 000 images), labels
/// `0..10` in the order of [`CIFAR10_CLASSES`], images `3 × 32 × 32`.
///
/// From the binary version `<root>/cifar-10-batches-bin/` when that folder exists (the five data
/// batches in order, or the test batch); otherwise from the JPEG images
/// `<root>/cifar-10-jpeg/{train,test}/<class>/*.jpg` through [`load_image_folder`] with
/// [`CIFAR10_JPEG_SEED`], whose class folders must be exactly [`CIFAR10_CLASSES`]
/// ([`Error::BadFormat`] otherwise). When neither folder exists the [`Error::MissingFile`] names
/// the binary file tried and both layouts. [`load_cifar10_with_source`] also says which was read.
pub fn load_cifar10(root: &Path, subset: Subset) -> Result<ImageSet> {
    load_cifar10_with_source(root, subset).map(|(images, _)| images)
}

/// [`load_cifar10`], also saying which copy was read ([`cifar10_source`]); report it with the
/// results, since the JPEG copy is lossy.
pub fn load_cifar10_with_source(root: &Path, subset: Subset) -> Result<(ImageSet, Cifar10Source)> {
    match cifar10_source(root) {
        Some(Cifar10Source::Binary) => Ok((load_binary(root, subset, SOURCE)?, Cifar10Source::Binary)),
        Some(Cifar10Source::Jpeg) => Ok((load_jpeg(root, subset)?, Cifar10Source::Jpeg)),
        None => load_binary(root, subset, SOURCE_EITHER).map(|images| (images, Cifar10Source::Binary)),
    }
}

/// CIFAR-10 from the JPEG folder, its class folders checked against [`CIFAR10_CLASSES`].
fn load_jpeg(root: &Path, subset: Subset) -> Result<ImageSet> {
    let dir = root.join(CIFAR10_JPEG_FOLDER);
    let folder = load_image_folder(&dir, subset, [3, SIDE, SIDE], CIFAR10_JPEG_SEED)?;
    if folder.classes != CIFAR10_CLASSES {
        return Err(bad_format(
            &dir.join("train"),
            format!("class folders {:?} are not CIFAR-10's {:?}", folder.classes, CIFAR10_CLASSES),
        ));
    }
    Ok(folder.images)
}

/// CIFAR-10 from the binary batches; `source` is the missing-file hint.
fn load_binary(root: &Path, subset: Subset, source: &str) -> Result<ImageSet> {
    let dir = root.join(CIFAR10_FOLDER);
    let names: Vec<String> = match subset {
        Subset::Train => (1..=5).map(|k| format!("data_batch_{k}.bin")).collect(),
        Subset::Test => vec!["test_batch.bin".to_string()],
    };
    let mut images = Vec::new();
    let mut labels = Vec::new();
    for name in names {
        let path = require_gz_or_raw(&dir.join(name), source)?;
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
                assert!(hint.contains("cifar-10-jpeg/{train,test}/<class>/*.jpg"), "{hint}");
                assert!(hint.contains("--data DIR") && hint.contains("BURN_GP_DATA"), "{hint}");
            }
            other => panic!("unexpected {other}"),
        }
        assert_eq!(cifar10_source(&root), None);
        // an incomplete binary folder is read (and fails), with the binary version's hint only
        std::fs::create_dir_all(root.join(CIFAR10_FOLDER)).unwrap();
        std::fs::create_dir_all(root.join(CIFAR10_JPEG_FOLDER)).unwrap();
        assert_eq!(cifar10_source(&root), Some(Cifar10Source::Binary));
        match load_cifar10(&root, Subset::Test).unwrap_err() {
            Error::MissingFile { hint, .. } => assert!(!hint.contains("cifar-10-jpeg"), "{hint}"),
            other => panic!("unexpected {other}"),
        }
    }

    /// Writes one 32×32 RGB PNG per class and split under `<root>/cifar-10-jpeg/`, class `k`'s
    /// image filled with the byte `k`, for the class names `classes`.
    fn write_jpeg_folder(root: &Path, classes: &[&str]) {
        for split in ["train", "test"] {
            for (k, class) in classes.iter().enumerate() {
                let mut png = std::io::Cursor::new(Vec::new());
                image::write_buffer_with_format(
                    &mut png,
                    &[k as u8; PIXELS],
                    SIDE as u32,
                    SIDE as u32,
                    image::ExtendedColorType::Rgb8,
                    image::ImageFormat::Png,
                )
                .unwrap();
                write_file(root, &format!("{CIFAR10_JPEG_FOLDER}/{split}/{class}/0000.png"), &png.into_inner());
            }
        }
    }

    #[test]
    fn jpeg_folder_is_read_when_the_binary_version_is_absent() {
        let root = temp_dir("cifar-jpeg");
        write_jpeg_folder(&root, &CIFAR10_CLASSES);
        assert_eq!(cifar10_source(&root), Some(Cifar10Source::Jpeg));
        for subset in [Subset::Train, Subset::Test] {
            let (set, source) = load_cifar10_with_source(&root, subset).unwrap();
            assert_eq!(source, Cifar10Source::Jpeg);
            assert_eq!((set.n, set.channels, set.height, set.width, set.num_classes), (10, 3, 32, 32, 10));
            assert_eq!(set.class_counts(), vec![1; 10]);
            for i in 0..set.n {
                assert!(set.image(i).unwrap().iter().all(|&p| p == set.labels[i]));
            }
            assert_eq!(load_cifar10(&root, subset).unwrap(), set);
        }
        assert!(Cifar10Source::Jpeg.to_string().contains("lossy"));
        // the binary version wins when both are there
        let dir = root.join(CIFAR10_FOLDER);
        write_file(&dir, "test_batch.bin", &encode_cifar10_batch(&[7], planes));
        let (set, source) = load_cifar10_with_source(&root, Subset::Test).unwrap();
        assert_eq!((source, set.labels), (Cifar10Source::Binary, vec![7]));
    }

    #[test]
    fn jpeg_folder_with_other_classes_is_bad_format() {
        let root = temp_dir("cifar-jpeg-classes");
        let mut classes = CIFAR10_CLASSES;
        classes[3] = "kitten";
        write_jpeg_folder(&root, &classes);
        let err = load_cifar10(&root, Subset::Train).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("kitten")), "{err}");
    }
}
