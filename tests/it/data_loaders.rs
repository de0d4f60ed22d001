//! Loaders on the real files in the data directory (skipped when there is none, unless
//! `BURN_GP_REQUIRE_DATA=1`), plus CIFAR-10 on a small synthetic copy.
use std::path::Path;
use std::time::Instant;

use burn_gp::data::{
    cifar10_source, load_breast_cancer, load_cifar10, load_cifar10_with_source, load_diabetes, load_digits,
    load_image_folder, load_iris, load_mnist, load_pmlb_classification, load_pmlb_regression, load_uci, load_wine,
    uci_num_splits, Cifar10Source, MnistVariant, Standardiser, Subset, CIFAR10_CLASSES, CIFAR10_FOLDER,
    CIFAR10_JPEG_FOLDER, CIFAR10_JPEG_SEED, CIFAR10_RECORD_BYTES, UCI_DATASETS,
};
use burn_gp::Error;

use crate::common::data_root_or_skip as root;

#[test]
fn mnist_train_and_test_match_the_published_counts() {
    let Some(root) = root() else { return };
    let train = load_mnist(&root, MnistVariant::Digits, Subset::Train).unwrap();
    assert_eq!((train.n, train.channels, train.height, train.width, train.num_classes), (60_000, 1, 28, 28, 10));
    assert_eq!(train.images.len(), 60_000 * 784);
    assert_eq!(train.class_counts(), vec![5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]);
    let test = load_mnist(&root, MnistVariant::Digits, Subset::Test).unwrap();
    assert_eq!(test.class_counts(), vec![980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]);
    let pixels = train.subset(0..100).unwrap().to_f64_normalised();
    assert!(pixels.iter().all(|p| (0.0..=1.0).contains(p)));
    assert_eq!(pixels.iter().cloned().fold(0.0, f64::max), 1.0);
}

#[test]
fn fashion_mnist_is_balanced() {
    let Some(root) = root() else { return };
    let train = load_mnist(&root, MnistVariant::Fashion, Subset::Train).unwrap();
    assert_eq!(train.class_counts(), vec![6000; 10]);
    let test = load_mnist(&root, MnistVariant::Fashion, Subset::Test).unwrap();
    assert_eq!(test.class_counts(), vec![1000; 10]);
}

#[test]
fn kin8nm_split_zero_covers_every_row() {
    let Some(root) = root() else { return };
    assert_eq!(uci_num_splits(&root, "kin8nm").unwrap(), 20);
    let split = load_uci(&root, "kin8nm", 0).unwrap();
    assert_eq!(split.train.n + split.test.n, 8192);
    assert_eq!((split.train.d, split.test.d), (8, 8));
    assert!(split.test.n > 700 && split.test.n < 900, "about 10% test rows, got {}", split.test.n);
    let z = Standardiser::fit(&split.train.x, split.train.n, 8).unwrap().transform(&split.train.x).unwrap();
    let mean0 = z.iter().step_by(8).sum::<f64>() / split.train.n as f64;
    assert!(mean0.abs() < 1e-10);
    let err = load_uci(&root, "kin8nm", 20).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { ref reason, .. } if reason.contains("20 splits")), "{err}");
}

#[test]
fn every_uci_set_has_its_documented_shape() {
    let Some(root) = root() else { return };
    let shapes = [
        ("bostonHousing", 506, 13, 20),
        ("concrete", 1030, 8, 20),
        ("energy", 768, 8, 20),
        ("kin8nm", 8192, 8, 20),
        ("naval-propulsion-plant", 11934, 16, 20),
        ("power-plant", 9568, 4, 20),
        ("protein-tertiary-structure", 45730, 9, 5),
        ("wine-quality-red", 1599, 11, 20),
        ("yacht", 308, 6, 20),
    ];
    assert_eq!(shapes.map(|s| s.0), UCI_DATASETS);
    for (name, rows, d, splits) in shapes {
        assert_eq!(uci_num_splits(&root, name).unwrap(), splits, "{name}");
        let last = load_uci(&root, name, splits - 1).unwrap();
        assert_eq!((last.train.n + last.test.n, last.train.d), (rows, d), "{name}");
    }
}

#[test]
fn pmlb_sets_load() {
    let Some(root) = root() else { return };
    let (banana, map) = load_pmlb_classification(&root, "banana").unwrap();
    assert_eq!(map.values, vec![-1.0, 1.0]);
    assert_eq!((banana.table.n, banana.table.d), (5300, 2));
    assert_eq!(banana.class_counts(), vec![2924, 2376]);
    let (thyroid, _) = load_pmlb_classification(&root, "new_thyroid").unwrap();
    assert_eq!((thyroid.table.n, thyroid.num_classes()), (215, 3));
    let (iris, _) = load_pmlb_classification(&root, "iris").unwrap();
    assert_eq!((iris.table.n, iris.table.d, iris.num_classes()), (150, 4, 3));
    let planes = load_pmlb_regression(&root, "215_2dplanes").unwrap();
    assert_eq!((planes.n, planes.d), (40768, 10));
    assert!(matches!(load_pmlb_classification(&root, "215_2dplanes"), Err(Error::InvalidArgument { .. })));
}

#[test]
fn sklearn_sets_load() {
    let Some(root) = root() else { return };
    let iris = load_iris(&root).unwrap();
    assert_eq!((iris.table.n, iris.table.d), (150, 4));
    assert_eq!(iris.class_names, vec!["setosa", "versicolor", "virginica"]);
    assert_eq!(iris.class_counts(), vec![50, 50, 50]);
    assert_eq!(iris.table.row(0), Some(&[5.1, 3.5, 1.4, 0.2][..]));
    let wine = load_wine(&root).unwrap();
    assert_eq!((wine.table.n, wine.table.d), (178, 13));
    assert_eq!(wine.class_counts(), vec![59, 71, 48]);
    let cancer = load_breast_cancer(&root).unwrap();
    assert_eq!((cancer.table.n, cancer.table.d), (569, 30));
    assert_eq!(cancer.class_names, vec!["malignant", "benign"]);
    assert_eq!(cancer.class_counts(), vec![212, 357]);
    let digits = load_digits(&root).unwrap();
    assert_eq!((digits.table.n, digits.table.d, digits.num_classes()), (1797, 64, 10));
    assert!(digits.table.x.iter().all(|&p| (0.0..=16.0).contains(&p)));
    let diabetes = load_diabetes(&root).unwrap();
    assert_eq!((diabetes.n, diabetes.d), (442, 10));
    assert_eq!(diabetes.y[0], 151.0);
}

#[test]
fn cifar10_missing_files_say_where_to_get_them() {
    let Some(root) = root() else { return };
    match load_cifar10(&root, Subset::Test) {
        Ok(test) => assert_eq!((test.n, test.channels, test.height, test.width), (10_000, 3, 32, 32)),
        Err(Error::MissingFile { hint, .. }) => {
            assert!(hint.contains("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"), "{hint}");
            assert!(hint.contains("--data DIR") && hint.contains("BURN_GP_DATA"), "{hint}");
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

#[test]
fn cifar10_jpeg_folder_has_the_published_counts() {
    let Some(root) = root() else { return };
    let dir = root.join(CIFAR10_JPEG_FOLDER);
    let start = Instant::now();
    let train = load_image_folder(&dir, Subset::Train, [3, 32, 32], CIFAR10_JPEG_SEED).unwrap();
    let test = load_image_folder(&dir, Subset::Test, [3, 32, 32], CIFAR10_JPEG_SEED).unwrap();
    eprintln!("cifar-10-jpeg: decoded 60 000 JPEGs in {:.2} s", start.elapsed().as_secs_f64());
    assert_eq!(train.classes, CIFAR10_CLASSES);
    assert_eq!(train.classes[0], "airplane");
    assert_eq!(test.classes, train.classes);
    let (tr, te) = (&train.images, &test.images);
    assert_eq!((tr.n, tr.channels, tr.height, tr.width, tr.num_classes), (50_000, 3, 32, 32, 10));
    assert_eq!((te.n, te.channels, te.height, te.width, te.num_classes), (10_000, 3, 32, 32, 10));
    assert_eq!(tr.class_counts(), vec![5000; 10]);
    assert_eq!(te.class_counts(), vec![1000; 10]);
    // the seeded shuffle makes the first images a class-balanced-ish sample
    let first = tr.subset(0..1000).unwrap().class_counts();
    assert!(first.iter().all(|&k| k >= 50), "first 1000 training images per class: {first:?}");
    for (set, folder) in [(tr, &train), (te, &test)] {
        for (i, path) in folder.paths.iter().enumerate() {
            let class = path.parent().and_then(|p| p.file_name()).and_then(|c| c.to_str());
            assert_eq!(class, Some(CIFAR10_CLASSES[usize::from(set.labels[i])]), "{}", path.display());
        }
    }
    let mean = tr.images.iter().map(|&p| f64::from(p)).sum::<f64>() / tr.images.len() as f64;
    assert!((110.0..135.0).contains(&mean), "mean pixel {mean} (CIFAR-10's is about 121)");
    if cifar10_source(&root) == Some(Cifar10Source::Jpeg) {
        let (via_cifar, source) = load_cifar10_with_source(&root, Subset::Test).unwrap();
        assert_eq!((&via_cifar, source), (te, Cifar10Source::Jpeg));
    }
}

/// Writes a CIFAR-10 binary batch with the given labels; image `i` has every byte equal to `i`.
fn write_cifar_batch(path: &Path, labels: &[u8]) {
    let mut bytes = Vec::new();
    for (i, &label) in labels.iter().enumerate() {
        bytes.push(label);
        bytes.extend(std::iter::repeat_n(i as u8, CIFAR10_RECORD_BYTES - 1));
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn cifar10_synthetic_root_loads() {
    let root = std::env::temp_dir().join(format!("burn-gp-it-cifar-{}", std::process::id()));
    let dir = root.join(CIFAR10_FOLDER);
    std::fs::create_dir_all(&dir).unwrap();
    for k in 1..=5u8 {
        write_cifar_batch(&dir.join(format!("data_batch_{k}.bin")), &[k, 0, 9]);
    }
    write_cifar_batch(&dir.join("test_batch.bin"), &[4, 2]);
    let train = load_cifar10(&root, Subset::Train).unwrap();
    assert_eq!((train.n, train.channels, train.height, train.width), (15, 3, 32, 32));
    assert_eq!(&train.labels[..6], &[1, 0, 9, 2, 0, 9]);
    assert_eq!(train.image(4).unwrap()[3071], 1);
    let test = load_cifar10(&root, Subset::Test).unwrap();
    assert_eq!(test.class_counts(), vec![0, 0, 1, 0, 1, 0, 0, 0, 0, 0]);
    write_cifar_batch(&dir.join("test_batch.bin"), &[4, 12]);
    assert!(matches!(load_cifar10(&root, Subset::Test), Err(Error::LabelOutOfRange { label: 12, .. })));
    std::fs::remove_dir_all(&root).unwrap();
}
