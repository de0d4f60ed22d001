//! CNN + multi-class Bayesian SVM head on CIFAR-10 (Wistuba & Rawat 2018, §4.2), next to the same CNN
//! with a softmax layer trained with the same budget in the same run.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example cifar_hybrid
//! cargo run --release -p burn-gp-experiments --example cifar_hybrid --features wgpu -- --device wgpu
//! ```
//! Data: <data>/cifar-10-batches-bin/ (data_batch_1..5.bin, test_batch.bin, the binary version
//! from https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz) if present, else
//! <data>/cifar-10-jpeg/{train,test}/<class>/*.jpg (the 60 000 images as JPEG, quality 75, in
//! ../shared/data; read by `burn_gp::data::load_image_folder` in a fixed shuffled order, so
//! `--train-size N` takes a class-balanced subset); the first stderr line says which was read.
//! `--data` or `BURN_GP_DATA` sets `<data>`.
//! `--augment`: the usual CIFAR-10 recipe for both networks (random crops of 4-pixel padded
//! images and horizontal flips, drawn from `--seed`; inputs standardised per channel with the
//! training images' moments). Results: docs/results/cifar10.md.
//! Defaults: the library's CIFAR-10 recipe (`burn_gp::nets::HybridConfig::cifar10`: the MNIST
//! recipe of `mnist_hybrid` with the head's lengthscales at 2 × the median feature distance,
//! `--lengthscale-factor`), batch 128, 3 epochs, Adam lr 1e-3, ρ = 0.02, batch-standardised
//! features, P = 128 (`--m`), f32.
//! `--plot DIR` writes `cifar_hybrid_curves.svg` (training curves of both networks),
//! `cifar_hybrid_reliability.svg` and `cifar_hybrid_softmax_reliability.svg` (reliability
//! diagrams, 15 bins).
//! With `--json` the last stdout line is
//! `{"example":"cifar_hybrid","accuracy":…,"nll":…,"ece":…,"epoch_s":…,"softmax_accuracy":…, …}`
//! (also `dataset`, `mean_vr`, `softmax_nll`, `softmax_epoch_s`, `test_acc_by_epoch`,
//! `softmax_test_acc_by_epoch`, `augment`, `lengthscale_factor`, `epochs`, `batch`, `lr`, `m`, `train_size`, `backend`;
//! docs/examples.md lists every key).
use burn_gp_experiments::hybrid;

fn main() {
    hybrid::main("cifar_hybrid", hybrid::ImageData::Cifar10);
}
