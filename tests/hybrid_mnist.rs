//! The CNN + Bayesian SVM hybrid on a slice of the real MNIST files, trained by the library's
//! recipe ([`HybridConfig`]'s defaults): it must leave chance for every seed, and a seed must
//! repeat a run bit for bit. In f32, as the hybrid examples run.
//!
//! The recipe before issue 16 (each feature vector standardised over its own entries,
//! `FeatureNorm::Rows`) fails the first test: with the same budget it reached 0.44 / 0.41 / 0.14
//! for seeds 0 / 1 / 2 (`--feature-norm rows --lr-final-fraction 1`); the default recipe 0.941 /
//! 0.945 / 0.930 (`mnist_hybrid --train-size 2000 --test-size 1000 --epochs 5 --no-softmax`; 0.951 /
//! 0.950 / 0.951 before issue 20's half-median lengthscales).
mod common;
use std::sync::Mutex;

use burn_gp::data::{load_mnist, ImageSet, MnistVariant, Subset};
use burn_gp::nets::{image_batch, HybridConfig, HybridNet, MnistTrunkConfig, Trunk};
use burn_gp::train::History;
use common::data_root_or_skip;
use common::hybrids::{assert_a_seed_repeats, f32_device, train_image_hybrid};

/// The backend's generator is global: tests that seed it must not run at the same time.
static SEEDED: Mutex<()> = Mutex::new(());

/// The first `train` training and `test` test images of MNIST, if the data is there.
fn mnist(train: usize, test: usize) -> Option<(ImageSet, ImageSet)> {
    let root = data_root_or_skip()?;
    let tr = load_mnist(&root, MnistVariant::Digits, Subset::Train).unwrap();
    let te = load_mnist(&root, MnistVariant::Digits, Subset::Test).unwrap();
    Some((tr.subset(0..train).unwrap(), te.subset(0..test).unwrap()))
}

/// Accuracy of `net` (without autodiff) on `set`.
fn accuracy<T: Trunk<Input = burn::tensor::Tensor<4>>>(net: &HybridNet<T>, set: &ImageSet) -> f64 {
    let idx: Vec<usize> = (0..set.n).collect();
    let pred = net.predict(image_batch(set, &idx, &f32_device()).unwrap().images).unwrap();
    pred.classes().iter().zip(set.labels_usize()).filter(|(a, b)| **a == *b).count() as f64 / set.n as f64
}

/// Trains the paper's hybrid from `seed` by the library's recipe (see `common::hybrids`).
fn train(set: &ImageSet, seed: u64, epochs: usize, batch: usize) -> (HybridNet<burn_gp::nets::MnistTrunk>, History) {
    train_image_hybrid(|d| MnistTrunkConfig::new().init(d), &HybridConfig::classes(10), set, seed, epochs, batch)
}

#[test]
fn hybrid_learns_real_mnist_for_three_seeds() {
    let Some((train_set, test_set)) = mnist(2000, 1000) else { return };
    let _guard = SEEDED.lock().unwrap_or_else(|p| p.into_inner());
    // 2 000 images, batch 128 (the examples' default), 5 epochs: 80 steps. Chance is 0.10.
    for seed in 0..3 {
        let (net, history) = train(&train_set, seed, 5, 128);
        let acc = accuracy(&net, &test_set);
        let objective: Vec<f64> = history.records.iter().map(|r| r.objective).collect();
        eprintln!("seed {seed}: test accuracy {acc:.4}, objective per epoch {objective:?}");
        assert!(acc >= 0.9, "seed {seed}: test accuracy {acc} after 80 steps");
        assert!(objective[4] < objective[0], "seed {seed}: objective {objective:?}");
    }
}

#[test]
fn a_seed_repeats_a_hybrid_run_bit_for_bit() {
    let Some((train_set, test_set)) = mnist(640, 200) else { return };
    let _guard = SEEDED.lock().unwrap_or_else(|p| p.into_inner());
    assert_a_seed_repeats(|d| MnistTrunkConfig::new().init(d), &HybridConfig::classes(10), &train_set, &test_set, 64);
}
