//! [`Subset`]: which half of a dataset with a fixed train/test division to load.

/// The training or the test part of a dataset published with a fixed division (MNIST, CIFAR-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subset {
    /// The training images.
    Train,
    /// The held-out test images.
    Test,
}
