//! The paper's CIFAR-10 hybrid (CNN trunk + Bayesian SVM head) on a slice of the real images
//! (`cifar-10-jpeg/`, or the binary version where present), trained by the library's CIFAR-10
//! recipe (`HybridConfig::cifar10`) in f32 as the examples run: it must learn well past chance in
//! a few epochs, and a seed must repeat a run bit for bit.
//!
//! The learning test is `#[ignore]`d: it is a learning run, 8–10 min on an idle 2-core Xeon in
//! the test profile and about 30 min on CI's cores (it took CI's `.ci/run` from 28 to 57 min), and
//! long learning runs belong in benchmarks. Run it with
//! `cargo test --test hybrid_cifar -- --ignored` (docs/results/cifar10.md). The bit-for-bit test
//! (two steps, three runs) stays in `cargo test`: it trains on the real images through the whole
//! pipeline.
//!
//! On a 2-core Xeon (family 6 model 167) the learning test reached 0.390, the objective falling
//! from 3.39 to 2.47 (the MNIST recipe, `HybridConfig::classes`, reached 0.203 with the same
//! budget); the bound, 0.25, leaves room for the runs of other CPU models (chance is 0.10).
mod common;
use std::sync::Mutex;

use burn_gp::data::{load_cifar10, ImageSet, Subset};
use burn_gp::nets::{image_batch, Cifar10Trunk, Cifar10TrunkConfig, HybridConfig, HybridNet};
use burn_gp::train::History;
use common::data_root_or_skip;
use common::hybrids::{assert_a_seed_repeats, f32_device, train_image_hybrid};

/// Epochs of the learning test (2 000 images, batch 128: 16 steps an epoch).
const EPOCHS: usize = 8;
/// Least test accuracy of the learning test (chance: 0.10).
const BOUND: f64 = 0.25;

/// The backend's generator is global: tests that seed it must not run at the same time.
static SEEDED: Mutex<()> = Mutex::new(());

/// The first `train` training and `test` test images of CIFAR-10, if the data is there.
fn cifar(train: usize, test: usize) -> Option<(ImageSet, ImageSet)> {
    let root = data_root_or_skip()?;
    let tr = load_cifar10(&root, Subset::Train).unwrap();
    let te = load_cifar10(&root, Subset::Test).unwrap();
    Some((tr.subset(0..train).unwrap(), te.subset(0..test).unwrap()))
}

/// Accuracy of `net` (without autodiff) on `set`.
fn accuracy(net: &HybridNet<Cifar10Trunk>, set: &ImageSet) -> f64 {
    let mut hits = 0;
    for chunk in (0..set.n).collect::<Vec<_>>().chunks(500) {
        let pred = net.predict(image_batch(set, chunk, &f32_device()).unwrap().images).unwrap();
        hits += pred.classes().iter().zip(chunk).filter(|(a, &i)| **a == set.labels[i] as usize).count();
    }
    hits as f64 / set.n as f64
}

/// Trains the paper's hybrid from `seed` by the library's recipe (see `common::hybrids`).
fn train(set: &ImageSet, seed: u64, epochs: usize, batch: usize) -> (HybridNet<Cifar10Trunk>, History) {
    train_image_hybrid(|d| Cifar10TrunkConfig::new().init(d), &HybridConfig::cifar10(), set, seed, epochs, batch)
}

#[test]
#[ignore = "a learning run: 8 min on an idle 2-core Xeon, about 30 min on CI's cores; run it with \
            cargo test --test hybrid_cifar -- --ignored"]
fn hybrid_learns_real_cifar10() {
    let Some((train_set, test_set)) = cifar(2000, 1000) else { return };
    let _guard = SEEDED.lock().unwrap_or_else(|p| p.into_inner());
    // 2 000 images, batch 128, EPOCHS epochs. Chance is 0.10.
    let (net, history) = train(&train_set, 0, EPOCHS, 128);
    let acc = accuracy(&net, &test_set);
    let objective: Vec<f64> = history.records.iter().map(|r| r.objective).collect();
    eprintln!("seed 0: test accuracy {acc:.4}, objective per epoch {objective:?}");
    assert!(acc >= BOUND, "test accuracy {acc} after {EPOCHS} epochs of 2000 images");
    assert!(objective[EPOCHS - 1] < objective[0], "objective {objective:?}");
}

#[test]
fn a_seed_repeats_a_cifar_hybrid_run_bit_for_bit() {
    // 256 images, batch 128: two steps a run.
    let Some((train_set, test_set)) = cifar(256, 100) else { return };
    let _guard = SEEDED.lock().unwrap_or_else(|p| p.into_inner());
    assert_a_seed_repeats(|d| Cifar10TrunkConfig::new().init(d), &HybridConfig::cifar10(), &train_set, &test_set, 128);
}
