//! Image folders: `<dir>/{train,test}/<class>/<image>`, one folder per class (the layout of
//! torchvision's `ImageFolder` and burn-dataset's `ImageFolderDataset`), decoded into an
//! [`ImageSet`].
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use image::DynamicImage;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;

use super::images::ImageSet;
use super::io::bad_format;
use super::split::permutation;
use super::subset::Subset;
use crate::error::{Error, Result};

/// The most classes an image folder may have: labels are stored as `u8`.
pub const IMAGE_FOLDER_MAX_CLASSES: usize = 256;

/// The layout [`load_image_folder`] expects; part of its missing-folder hints.
const LAYOUT: &str = "expected an image folder laid out as DIR/train/<class>/<image> and \
    DIR/test/<class>/<image>: one folder per class, the same class folders in both";

/// Images read by [`load_image_folder`], with the class names their labels stand for.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageFolder {
    /// The decoded images, channel-major, in the seeded shuffled order; label `k` is class
    /// `classes[k]`.
    pub images: ImageSet,
    /// The class names: the training split's class folder names, sorted byte-wise. The test
    /// split uses the same list.
    pub classes: Vec<String>,
    /// The file each image was read from, in the same order as [`images`](Self::images).
    pub paths: Vec<PathBuf>,
}

/// Loads the training or the test split of an image folder: every image of
/// `<dir>/train/<class>/` or `<dir>/test/<class>/`, decoded (JPEG or PNG, the format is told by
/// the file's content, not its name) into an [`ImageSet`] of `shape = [channels, height, width]`.
///
/// - **Labels.** Class `k` is the `k`-th of the training split's class folder names sorted
///   byte-wise; the test split must have exactly the same class folders, so labels mean the same
///   in both. Names starting with `.` (folders and files) are skipped, and so are plain files
///   beside the class folders; a folder inside a class folder is an error (one level is read).
/// - **Pixels.** Every image must have `shape`'s height and width and its channel count, with
///   8 bits per channel: 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA). Nothing is converted
///   or resized. Interleaved pixels become channel-major (`c × h × w`) as in every [`ImageSet`].
/// - **Order.** The files are listed class by class, each class's files sorted by name, then
///   shuffled by a permutation drawn from `seed` (rand's [`StdRng`], as every seeded draw of
///   this crate), so that the first `N` images ([`ImageSet::subset`]) are a random, roughly
///   class-balanced sample, as in CIFAR-10's binary batches. The order is a function of the
///   sorted file list and `seed` only, never of the file system's listing order or of the
///   decoding threads (for a given `rand` version: a change of `StdRng`'s algorithm would change
///   it). Decoding runs in parallel (rayon).
///
/// Errors: `dir`, its `train/` or its `test/` folder missing ([`Error::MissingFile`] with the
/// expected layout); no class folders, or a class folder without images ([`Error::Empty`]); a
/// file that does not decode, an image of another size, channel count or bit depth than `shape`
/// asks for, a folder inside a class folder, a class folder name that is not UTF-8, a test class
/// folder missing or not among the training ones, or more than [`IMAGE_FOLDER_MAX_CLASSES`]
/// classes ([`Error::BadFormat`] naming the file or folder); `shape` with a zero, a channel
/// count above 4 or a size that overflows ([`Error::InvalidArgument`]); an unreadable file
/// ([`Error::Io`]).
pub fn load_image_folder(dir: &Path, subset: Subset, shape: [usize; 3], seed: u64) -> Result<ImageFolder> {
    let size = check_shape(shape)?;
    let classes = class_folders(&split_dir(dir, Subset::Train)?)?;
    let subset_dir = split_dir(dir, subset)?;
    if subset == Subset::Test {
        check_same_classes(&subset_dir, &classes, &class_folders(&subset_dir)?)?;
    }
    let mut files = Vec::new();
    let mut labels = Vec::new();
    for (label, class) in classes.iter().enumerate() {
        let in_class = image_files(&subset_dir.join(class))?;
        // `class_folders` caps the class count at 256, so every label fits a u8.
        let label = u8::try_from(label).map_err(|_| too_many_classes(&subset_dir, classes.len()))?;
        labels.extend(std::iter::repeat_n(label, in_class.len()));
        files.extend(in_class);
    }
    let order = permutation(files.len(), &mut StdRng::seed_from_u64(seed));
    let paths: Vec<PathBuf> = order.iter().map(|&i| files[i].clone()).collect();
    let labels: Vec<u8> = order.iter().map(|&i| labels[i]).collect();
    let pixels = decode_all(&paths, shape, size)?;
    let images = ImageSet::new(pixels, labels, shape, classes.len())?;
    Ok(ImageFolder { images, classes, paths })
}

/// The name of a split's folder.
fn split_name(subset: Subset) -> &'static str {
    match subset {
        Subset::Train => "train",
        Subset::Test => "test",
    }
}

/// `<dir>/train` or `<dir>/test`, or a [`Error::MissingFile`] naming the first missing folder.
fn split_dir(dir: &Path, subset: Subset) -> Result<PathBuf> {
    if !dir.is_dir() {
        return Err(Error::MissingFile { path: dir.to_path_buf(), hint: format!("no such folder; {LAYOUT}") });
    }
    let path = dir.join(split_name(subset));
    if path.is_dir() {
        Ok(path)
    } else {
        Err(Error::MissingFile { path, hint: format!("no {} folder; {LAYOUT}", split_name(subset)) })
    }
}

/// Checks `shape` (every size positive, at most 4 channels) and returns the bytes per image.
fn check_shape(shape: [usize; 3]) -> Result<usize> {
    let [channels, height, width] = shape;
    let size = shape.iter().try_fold(1usize, |acc, &k| acc.checked_mul(k));
    match size {
        Some(size) if size > 0 && channels <= 4 => Ok(size),
        _ => Err(Error::invalid(
            "shape",
            format!("[channels {channels}, height {height}, width {width}]: sizes must be positive, channels 1 to 4"),
        )),
    }
}

/// Whether a directory entry is hidden (its name starts with `.`).
fn is_hidden(name: &OsString) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// The non-hidden entries of `dir` as (name, path), sorted by name byte-wise.
fn visible_entries(dir: &Path) -> Result<Vec<(OsString, PathBuf)>> {
    let io = |source| Error::Io { path: dir.to_path_buf(), source };
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        if !is_hidden(&name) {
            entries.push((name, entry.path()));
        }
    }
    entries.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
    Ok(entries)
}

/// Whether `path` is a directory, following symbolic links.
fn is_dir(path: &Path) -> Result<bool> {
    std::fs::metadata(path).map(|m| m.is_dir()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}

/// The class folder names in a split folder, sorted byte-wise (plain files are skipped).
fn class_folders(split: &Path) -> Result<Vec<String>> {
    let mut classes = Vec::new();
    for (name, path) in visible_entries(split)? {
        if !is_dir(&path)? {
            continue;
        }
        let name = name.into_string().map_err(|_| bad_format(&path, "a class folder name must be UTF-8"))?;
        classes.push(name);
    }
    if classes.is_empty() {
        return Err(Error::Empty {
            context: format!("no class folders in {} (expected one folder of images per class)", split.display()),
        });
    }
    if classes.len() > IMAGE_FOLDER_MAX_CLASSES {
        return Err(too_many_classes(split, classes.len()));
    }
    Ok(classes)
}

/// The error for a split folder with `count` classes, more than labels can hold.
fn too_many_classes(split: &Path, count: usize) -> Error {
    bad_format(
        split,
        format!("{count} class folders; at most {IMAGE_FOLDER_MAX_CLASSES} fit the 8-bit labels of an ImageSet"),
    )
}

/// Checks that the test split's class folders are exactly the training split's.
fn check_same_classes(test_dir: &Path, train: &[String], test: &[String]) -> Result<()> {
    if let Some(missing) = train.iter().find(|c| !test.contains(c)) {
        return Err(bad_format(
            &test_dir.join(missing),
            format!("class {missing:?} of the training split has no folder in the test split (labels follow train/'s class folders)"),
        ));
    }
    if let Some(extra) = test.iter().find(|c| !train.contains(c)) {
        return Err(bad_format(
            &test_dir.join(extra),
            format!("class {extra:?} of the test split is not a class folder of the training split (labels follow train/'s class folders)"),
        ));
    }
    Ok(())
}

/// The image files of a class folder, sorted by name; at least one.
fn image_files(class_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for (_, path) in visible_entries(class_dir)? {
        if is_dir(&path)? {
            return Err(bad_format(
                &path,
                "a folder inside a class folder: images are read one level deep, as <split>/<class>/<image>",
            ));
        }
        files.push(path);
    }
    if files.is_empty() {
        return Err(Error::Empty { context: format!("class folder {} has no images", class_dir.display()) });
    }
    Ok(files)
}

/// Decodes every file into one channel-major buffer of `size` bytes per image, in parallel; the
/// first failing file in `paths` order is the error, whatever order the threads finish in. The
/// first file is decoded alone before the buffer is allocated, so that a `shape` that fits no
/// image is an error rather than a huge allocation.
fn decode_all(paths: &[PathBuf], shape: [usize; 3], size: usize) -> Result<Vec<u8>> {
    if let Some(first) = paths.first() {
        decode(first, shape)?;
    }
    let total = paths.len().checked_mul(size).ok_or_else(|| {
        Error::invalid("shape", format!("{} images of {size} bytes do not fit in memory", paths.len()))
    })?;
    let mut pixels = vec![0u8; total];
    let first_error = pixels
        .par_chunks_mut(size)
        .zip(paths.par_iter())
        .filter_map(|(out, path)| decode(path, shape).map(|px| to_channel_major(&px, shape[0], out)).err())
        .find_first(|_| true);
    match first_error {
        Some(err) => Err(err),
        None => Ok(pixels),
    }
}

/// Decodes the image at `path` and checks it has `shape` and 8 bits per channel; returns its
/// interleaved pixels (`h × w × c`).
fn decode(path: &Path, [channels, height, width]: [usize; 3]) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let image = image::load_from_memory(&bytes).map_err(|e| bad_format(path, format!("not a readable image: {e}")))?;
    let (got_width, got_height) = (image.width() as usize, image.height() as usize);
    let color = image.color();
    let got_channels = match &image {
        DynamicImage::ImageLuma8(_) => 1,
        DynamicImage::ImageLumaA8(_) => 2,
        DynamicImage::ImageRgb8(_) => 3,
        DynamicImage::ImageRgba8(_) => 4,
        _ => {
            return Err(bad_format(
                path,
                format!("{got_width}×{got_height} {color:?} pixels: only 8-bit images are read"),
            ))
        }
    };
    if (got_channels, got_height, got_width) != (channels, height, width) {
        return Err(bad_format(
            path,
            format!(
                "a {got_width}×{got_height} image with {got_channels} channel(s) ({color:?}); expected {width}×{height} with {channels} (shape [{channels}, {height}, {width}])"
            ),
        ));
    }
    Ok(image.into_bytes())
}

/// Writes interleaved pixels (`h × w × channels`) into `out` channel-major (`channels × h × w`).
fn to_channel_major(interleaved: &[u8], channels: usize, out: &mut [u8]) {
    let plane = out.len() / channels;
    for (c, dst) in out.chunks_exact_mut(plane).enumerate() {
        for (d, px) in dst.iter_mut().zip(interleaved.chunks_exact(channels)) {
            *d = px[c];
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use image::{ExtendedColorType, ImageFormat};

    use super::*;
    use crate::data::testutil::{temp_dir, write_file};

    /// `w × h` interleaved pixels with `channels` channels: byte `(seed + 7·pixel + 50·c) mod 256`.
    fn pattern(w: usize, h: usize, channels: usize, seed: u8) -> Vec<u8> {
        (0..w * h).flat_map(|p| (0..channels).map(move |c| seed.wrapping_add((7 * p + 50 * c) as u8))).collect()
    }

    /// The bytes of an image file in `format`.
    fn encode(pixels: &[u8], w: usize, h: usize, color: ExtendedColorType, format: ImageFormat) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        image::write_buffer_with_format(&mut out, pixels, w as u32, h as u32, color, format).unwrap();
        out.into_inner()
    }

    /// A PNG of `pattern(w, h, channels, seed)`.
    fn png(w: usize, h: usize, channels: usize, seed: u8) -> Vec<u8> {
        let color = match channels {
            1 => ExtendedColorType::L8,
            2 => ExtendedColorType::La8,
            3 => ExtendedColorType::Rgb8,
            _ => ExtendedColorType::Rgba8,
        };
        encode(&pattern(w, h, channels, seed), w, h, color, ImageFormat::Png)
    }

    /// `pattern` rearranged channel-major, as the loader returns it.
    fn planar(w: usize, h: usize, channels: usize, seed: u8) -> Vec<u8> {
        let px = pattern(w, h, channels, seed);
        (0..channels).flat_map(|c| px.iter().skip(c).step_by(channels).copied().collect::<Vec<_>>()).collect()
    }

    /// The seed of the file `dir/<split>/<class>/<k>.png` written by `write_folder`.
    fn file_seed(class: usize, k: usize) -> u8 {
        (31 * class + 3 * k) as u8
    }

    /// Writes `per_class` 3×2 RGB PNGs into each class of `classes` (in the order given), in
    /// both splits; files are written in reverse name order when `reverse_files`.
    fn write_folder(dir: &Path, classes: &[&str], per_class: usize, reverse_files: bool) {
        for split in ["train", "test"] {
            for class in classes {
                let mut ks: Vec<usize> = (0..per_class).collect();
                if reverse_files {
                    ks.reverse();
                }
                let c = class_seed(class);
                for k in ks {
                    write_file(dir, &format!("{split}/{class}/{k:03}.png"), &png(3, 2, 3, file_seed(c, k)));
                }
            }
        }
    }

    /// A number per class name, for distinct pixels per class.
    fn class_seed(class: &str) -> usize {
        class.bytes().map(usize::from).sum()
    }

    /// The (class, k) of a file written by `write_folder`.
    fn identify(path: &Path) -> (String, usize) {
        let class = path.parent().unwrap().file_name().unwrap().to_str().unwrap().to_string();
        let k = path.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        (class, k)
    }

    #[test]
    fn labels_follow_sorted_class_names_and_png_pixels_round_trip() {
        let dir = temp_dir("imgfolder-labels");
        write_folder(&dir, &["cat", "Zebra", "ant", "bee"], 3, false);
        for subset in [Subset::Train, Subset::Test] {
            let got = load_image_folder(&dir, subset, [3, 2, 3], 0).unwrap();
            // byte-wise: upper case before lower case
            assert_eq!(got.classes, vec!["Zebra", "ant", "bee", "cat"]);
            let set = &got.images;
            assert_eq!((set.n, set.channels, set.height, set.width, set.num_classes), (12, 3, 2, 3, 4));
            assert_eq!(set.class_counts(), vec![3; 4]);
            assert_eq!(got.paths.len(), 12);
            for (i, path) in got.paths.iter().enumerate() {
                assert!(path.starts_with(dir.join(split_name(subset))), "{}", path.display());
                let (class, k) = identify(path);
                assert_eq!(got.classes[usize::from(set.labels[i])], class);
                assert_eq!(
                    set.image(i).unwrap(),
                    planar(3, 2, 3, file_seed(class_seed(&class), k)),
                    "{}",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn grey_alpha_and_jpeg_images_load() {
        for (channels, tag) in [(1, "grey"), (2, "grey-alpha"), (4, "rgba")] {
            let dir = temp_dir("imgfolder-channels");
            for split in ["train", "test"] {
                write_file(&dir, &format!("{split}/a/x.png"), &png(4, 5, channels, 9));
            }
            let got = load_image_folder(&dir, Subset::Train, [channels, 5, 4], 0).unwrap();
            assert_eq!(got.images.images, planar(4, 5, channels, 9), "{tag}");
        }
        // JPEG is lossy: a flat colour decodes to within a few levels.
        let dir = temp_dir("imgfolder-jpeg");
        let flat: Vec<u8> = (0..8 * 8).flat_map(|_| [200u8, 40, 120]).collect();
        let grey = vec![77u8; 8 * 8];
        for split in ["train", "test"] {
            write_file(
                &dir,
                &format!("{split}/rgb/0.jpg"),
                &encode(&flat, 8, 8, ExtendedColorType::Rgb8, ImageFormat::Jpeg),
            );
            write_file(
                &dir,
                &format!("{split}/grey/0.jpg"),
                &encode(&grey, 8, 8, ExtendedColorType::L8, ImageFormat::Jpeg),
            );
        }
        let err = load_image_folder(&dir, Subset::Train, [3, 8, 8], 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref path, .. } if path.ends_with("grey/0.jpg")), "{err}");
        std::fs::remove_dir_all(dir.join("train/grey")).unwrap();
        std::fs::remove_dir_all(dir.join("test/grey")).unwrap();
        let got = load_image_folder(&dir, Subset::Test, [3, 8, 8], 0).unwrap();
        let img = got.images.image(0).unwrap();
        for (c, want) in [200i32, 40, 120].into_iter().enumerate() {
            assert!(img[c * 64..(c + 1) * 64].iter().all(|&p| (i32::from(p) - want).abs() <= 3), "{c}: {img:?}");
        }
    }

    #[test]
    fn order_is_deterministic_and_independent_of_creation_order() {
        let a = temp_dir("imgfolder-order-a");
        let b = temp_dir("imgfolder-order-b");
        write_folder(&a, &["x", "y", "z"], 5, false);
        write_folder(&b, &["z", "x", "y"], 5, true);
        for seed in [0, 7] {
            let got_a = load_image_folder(&a, Subset::Train, [3, 2, 3], seed).unwrap();
            let got_b = load_image_folder(&b, Subset::Train, [3, 2, 3], seed).unwrap();
            assert_eq!(got_a.images, got_b.images);
            assert_eq!(got_a.classes, got_b.classes);
            let rel = |g: &ImageFolder, root: &Path| -> Vec<PathBuf> {
                g.paths.iter().map(|p| p.strip_prefix(root).unwrap().to_path_buf()).collect()
            };
            assert_eq!(rel(&got_a, &a), rel(&got_b, &b));
            assert_eq!(load_image_folder(&a, Subset::Train, [3, 2, 3], seed).unwrap(), got_a);
        }
    }

    #[test]
    fn seeded_shuffle_is_a_permutation_that_depends_on_the_seed() {
        let dir = temp_dir("imgfolder-shuffle");
        write_folder(&dir, &["a", "b", "c"], 8, false);
        let sorted: Vec<PathBuf> = ["a", "b", "c"]
            .iter()
            .flat_map(|c| (0..8).map(move |k| Path::new("train").join(c).join(format!("{k:03}.png"))))
            .collect();
        let mut orders = Vec::new();
        for seed in [0, 1, 2] {
            let got = load_image_folder(&dir, Subset::Train, [3, 2, 3], seed).unwrap();
            let rel: Vec<PathBuf> = got.paths.iter().map(|p| p.strip_prefix(&*dir).unwrap().to_path_buf()).collect();
            let mut as_set = rel.clone();
            as_set.sort();
            assert_eq!(as_set, sorted, "seed {seed}: every file exactly once");
            assert_ne!(rel, sorted, "seed {seed}: shuffled, not class by class");
            assert_eq!(got.images.class_counts(), vec![8; 3]);
            orders.push(rel);
        }
        assert_ne!(orders[0], orders[1]);
        assert_ne!(orders[1], orders[2]);
    }

    #[test]
    fn hidden_entries_and_loose_files_are_skipped() {
        let dir = temp_dir("imgfolder-hidden");
        write_folder(&dir, &["a", "b"], 2, false);
        write_file(&dir, "train/a/.DS_Store", b"not an image");
        write_file(&dir, "train/.git/HEAD", b"ref: refs/heads/main");
        write_file(&dir, "train/README.txt", b"a loose file beside the class folders");
        write_file(&dir, "test/.cache/x.png", &png(3, 2, 3, 0));
        let got = load_image_folder(&dir, Subset::Train, [3, 2, 3], 0).unwrap();
        assert_eq!((got.classes.clone(), got.images.n), (vec!["a".to_string(), "b".to_string()], 4));
        assert_eq!(load_image_folder(&dir, Subset::Test, [3, 2, 3], 0).unwrap().images.n, 4);
    }

    #[test]
    fn missing_folders_say_which_and_the_layout() {
        let dir = temp_dir("imgfolder-missing");
        let gone = dir.join("nope");
        let err = load_image_folder(&gone, Subset::Train, [3, 2, 3], 0).unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref path, ref hint } if *path == gone && hint.contains("DIR/train/<class>/<image>")),
            "{err}"
        );
        write_file(&dir, "train/a/0.png", &png(3, 2, 3, 0));
        let err = load_image_folder(&dir, Subset::Test, [3, 2, 3], 0).unwrap_err();
        assert!(
            matches!(err, Error::MissingFile { ref path, ref hint } if path.ends_with("test") && hint.contains("no test folder")),
            "{err}"
        );
        let only_test = temp_dir("imgfolder-only-test");
        write_file(&only_test, "test/a/0.png", &png(3, 2, 3, 0));
        let err = load_image_folder(&only_test, Subset::Test, [3, 2, 3], 0).unwrap_err();
        assert!(matches!(err, Error::MissingFile { ref path, .. } if path.ends_with("train")), "{err}");
    }

    #[test]
    fn empty_folders_are_empty_errors() {
        let dir = temp_dir("imgfolder-empty");
        std::fs::create_dir_all(dir.join("train/.hidden")).unwrap();
        write_file(&dir, "train/notes.txt", b"x");
        let err = load_image_folder(&dir, Subset::Train, [3, 2, 3], 0).unwrap_err();
        assert!(matches!(err, Error::Empty { ref context } if context.contains("no class folders")), "{err}");
        write_file(&dir, "train/a/0.png", &png(3, 2, 3, 0));
        write_file(&dir, "train/b/.keep", b"");
        let err = load_image_folder(&dir, Subset::Train, [3, 2, 3], 0).unwrap_err();
        assert!(
            matches!(err, Error::Empty { ref context } if context.contains("has no images") && context.contains("b")),
            "{err}"
        );
    }

    #[test]
    fn undecodable_and_misshapen_images_name_the_file() {
        let dir = temp_dir("imgfolder-bad");
        write_folder(&dir, &["a", "b"], 2, false);
        let shape = [3, 2, 3];
        let notes = write_file(&dir, "train/b/notes.txt", b"these are not pixels");
        let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref path, ref reason } if *path == notes && reason.contains("not a readable image")),
            "{err}"
        );
        std::fs::remove_file(&notes).unwrap();

        let big = write_file(&dir, "train/a/big.png", &png(4, 2, 3, 0));
        let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
        match err {
            Error::BadFormat { path, reason } => {
                assert_eq!(path, big);
                assert!(reason.contains("4×2") && reason.contains("expected 3×2"), "{reason}");
            }
            other => panic!("unexpected {other}"),
        }
        std::fs::remove_file(&big).unwrap();

        let grey = write_file(&dir, "train/a/grey.png", &png(3, 2, 1, 0));
        let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref path, ref reason } if *path == grey && reason.contains("1 channel(s)") && reason.contains("with 3")),
            "{err}"
        );
        std::fs::remove_file(&grey).unwrap();

        let wide: Vec<u8> = pattern(3, 2, 3, 0).iter().flat_map(|&b| [b, b]).collect();
        let deep =
            write_file(&dir, "train/a/deep.png", &encode(&wide, 3, 2, ExtendedColorType::Rgb16, ImageFormat::Png));
        let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref path, ref reason } if *path == deep && reason.contains("8-bit")),
            "{err}"
        );
        std::fs::remove_file(&deep).unwrap();

        let nested = dir.join("train/a/more");
        std::fs::create_dir_all(&nested).unwrap();
        let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref path, .. } if *path == nested), "{err}");
        std::fs::remove_dir(&nested).unwrap();
        load_image_folder(&dir, Subset::Train, shape, 0).unwrap();
        // a shape no image has is an error before the (here 13 TB) buffer is allocated
        let err = load_image_folder(&dir, Subset::Train, [3, 1 << 20, 1 << 20], 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("expected 1048576×1048576")),
            "{err}"
        );
    }

    #[test]
    fn the_first_bad_file_in_order_is_reported() {
        let dir = temp_dir("imgfolder-first-bad");
        write_folder(&dir, &["a", "b"], 6, false);
        write_file(&dir, "train/a/bad1.png", b"x");
        write_file(&dir, "train/b/bad2.png", b"y");
        let path_of = |r: Result<ImageFolder>| match r {
            Err(Error::BadFormat { path, .. }) => path,
            other => panic!("unexpected {other:?}"),
        };
        let first = path_of(load_image_folder(&dir, Subset::Train, [3, 2, 3], 5));
        for _ in 0..5 {
            assert_eq!(path_of(load_image_folder(&dir, Subset::Train, [3, 2, 3], 5)), first);
        }
    }

    #[test]
    fn test_classes_must_be_the_training_classes() {
        let dir = temp_dir("imgfolder-classes");
        write_folder(&dir, &["a", "b", "c"], 1, false);
        std::fs::remove_dir_all(dir.join("test/b")).unwrap();
        let err = load_image_folder(&dir, Subset::Test, [3, 2, 3], 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref path, ref reason } if path.ends_with("test/b") && reason.contains("\"b\"")),
            "{err}"
        );
        // the training split alone still loads
        assert_eq!(load_image_folder(&dir, Subset::Train, [3, 2, 3], 0).unwrap().classes.len(), 3);
        write_file(&dir, "test/b/0.png", &png(3, 2, 3, 0));
        write_file(&dir, "test/d/0.png", &png(3, 2, 3, 0));
        let err = load_image_folder(&dir, Subset::Test, [3, 2, 3], 0).unwrap_err();
        assert!(
            matches!(err, Error::BadFormat { ref path, ref reason } if path.ends_with("test/d") && reason.contains("\"d\"")),
            "{err}"
        );
        std::fs::remove_dir_all(dir.join("test/d")).unwrap();
        assert_eq!(load_image_folder(&dir, Subset::Test, [3, 2, 3], 0).unwrap().images.n, 3);
    }

    #[test]
    fn more_than_256_classes_and_bad_shapes_are_rejected() {
        let dir = temp_dir("imgfolder-many");
        for k in 0..=IMAGE_FOLDER_MAX_CLASSES {
            std::fs::create_dir_all(dir.join(format!("train/c{k:03}"))).unwrap();
        }
        let err = load_image_folder(&dir, Subset::Train, [3, 2, 3], 0).unwrap_err();
        assert!(matches!(err, Error::BadFormat { ref reason, .. } if reason.contains("257 class folders")), "{err}");
        for shape in [[0, 2, 3], [3, 0, 3], [3, 2, 0], [5, 2, 3], [4, usize::MAX, 2]] {
            let err = load_image_folder(&dir, Subset::Train, shape, 0).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument { .. }), "{shape:?}: {err}");
        }
    }
}
