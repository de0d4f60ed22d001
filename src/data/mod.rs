//! Host-side dataset loaders, preprocessing and minibatching (plain Rust, no tensors).
//!
//! Every loader takes the data directory (find it with [`data_root`]: `--data DIR`, else
//! `$BURN_GP_DATA`, else `../shared/data`) and returns typed errors: a missing file is
//! [`Error::MissingFile`](crate::error::Error::MissingFile) naming the path tried and where the
//! data can be obtained; a malformed one is [`Error::BadFormat`](crate::error::Error::BadFormat)
//! naming the file and what is wrong. Files may be gzipped (`.gz`) or raw.
//!
//! | data | loader | layout under the data directory |
//! |---|---|---|
//! | UCI regression, standard splits | [`load_uci`], [`uci_num_splits`] | `uci_regression/<name>/` |
//! | MNIST, Fashion-MNIST | [`load_mnist`] | `mnist/`, `fashion-mnist/` (IDX) |
//! | CIFAR-10 | [`load_cifar10`], [`load_cifar10_with_source`] | `cifar-10-batches-bin/` (binary version), else `cifar-10-jpeg/` (JPEG images) |
//! | image folders (torchvision's `ImageFolder` layout) | [`load_image_folder`] | `<dir>/{train,test}/<class>/<image>` (JPEG, PNG) |
//! | PMLB | [`load_pmlb_classification`], [`load_pmlb_regression`] | `pmlb*/<name>/<name>.tsv.gz` |
//! | scikit-learn sets | [`load_iris`], [`load_wine`], [`load_breast_cancer`], [`load_digits`], [`load_diabetes`] | `sklearn/<name>/` |
//!
//! Tabular data comes as a [`Table`] (row-major `n × d` features, `f64` targets) or a
//! [`ClassTable`] (class indices `0..K` and class names); images as an [`ImageSet`]. Fit a
//! [`Standardiser`] / [`TargetStandardiser`] on the training part only, and draw minibatches
//! with [`MiniBatches`].
//!
//! ```no_run
//! use burn_gp::data::{data_root, load_uci, Standardiser, TargetStandardiser};
//! # fn main() -> burn_gp::Result<()> {
//! let root = data_root(None)?;
//! let split = load_uci(&root, "kin8nm", 0)?;
//! let xs = Standardiser::fit(&split.train.x, split.train.n, split.train.d)?;
//! let ys = TargetStandardiser::fit(&split.train.y)?;
//! let (x_train, y_train) = (xs.transform(&split.train.x)?, ys.transform(&split.train.y));
//! # let _ = (x_train, y_train);
//! # Ok(())
//! # }
//! ```

mod augment;
mod batches;
mod cifar;
mod idx;
mod image_folder;
mod images;
mod io;
mod labels;
mod mnist;
mod pca;
mod pmlb;
mod random_function;
mod root;
mod select;
mod sklearn;
mod split;
mod standardise;
mod subset;
mod synthetic;
mod table;
#[cfg(test)]
mod testutil;
mod text;
mod uci;

pub use augment::ImageAugmentation;
pub use batches::MiniBatches;
pub use cifar::{
    cifar10_source, load_cifar10, load_cifar10_batch, load_cifar10_with_source, Cifar10Source, CIFAR10_CLASSES,
    CIFAR10_FOLDER, CIFAR10_JPEG_FOLDER, CIFAR10_JPEG_SEED, CIFAR10_RECORD_BYTES,
};
pub use idx::{load_idx_images, load_idx_labels, IdxImages, IDX_IMAGES_MAGIC, IDX_LABELS_MAGIC};
pub use image_folder::{load_image_folder, ImageFolder, IMAGE_FOLDER_MAX_CLASSES};
pub use images::ImageSet;
pub(crate) use labels::check_binary_labels;
pub(crate) use labels::{binary_signs, check_labels};
pub use labels::{signed_binary_labels, ClassTable, LabelMap};
pub use mnist::{load_mnist, load_mnist_dir, MnistVariant, FASHION_MNIST_CLASSES};
pub use pca::Pca;
pub use pmlb::{load_pmlb_classification, load_pmlb_regression, pmlb_path, read_pmlb_tsv, PmlbFrame, PMLB_FOLDERS};
pub use random_function::RandomFunction;
pub use root::{data_root, require_dir, DATA_DIR_HINT, DATA_ENV};
pub use sklearn::{load_breast_cancer, load_diabetes, load_digits, load_iris, load_wine, SKLEARN_FOLDER};
pub use split::{random_split, stratified_split, IndexSplit};
pub use standardise::{Standardiser, TargetStandardiser};
pub use subset::Subset;
pub use synthetic::matern32_draw;
pub use table::{Table, Target};
pub use uci::{load_uci, load_uci_table, uci_num_splits, UciSplit, UCI_DATASETS, UCI_FOLDER};
