//! The image hybrids of the learning tests (`tests/hybrid_mnist.rs`, `tests/hybrid_cifar.rs`):
//! trained by the library's recipe in f32, as the examples run.
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use burn_gp::data::ImageSet;
use burn_gp::device::{device_with_precision, Precision};
use burn_gp::nets::{fit_hybrid, image_batch, HybridConfig, HybridNet, Trunk};
use burn_gp::tensors::to_vec;
use burn_gp::train::{History, TrainConfig};

/// The default backend in f32, without autodiff.
pub fn f32_device() -> Device {
    device_with_precision(&burn_gp::device::default_backend_name(), Some(Precision::F32)).expect("device")
}

/// Trains the trunk that `make` builds, with a 10-class Bayesian SVM head, from `seed` by the
/// library's recipe `recipe` (Adam at 1e-3 annealed to 0, batch `batch`) on `set`, and returns it without
/// autodiff, with its history. The backend is seeded before the trunk is built, so a seed
/// repeats a run; callers serialise tests that seed it.
pub fn train_image_hybrid<T: Trunk<Input = Tensor<4>>>(
    make: impl Fn(&Device) -> T,
    recipe: &HybridConfig,
    set: &ImageSet,
    seed: u64,
    epochs: usize,
    batch: usize,
) -> (HybridNet<T>, History) {
    let dev = f32_device().autodiff();
    dev.seed(seed);
    let mut recipe = recipe.clone();
    recipe.head.seed = seed;
    let net = recipe.init(make(&dev), set, &dev).unwrap();
    let config = TrainConfig { batch_size: batch, progress: false, ..recipe.train_config(epochs, seed) };
    let (net, history) = fit_hybrid(net, set, &recipe, &config, |_, _| Ok(Vec::new())).unwrap();
    (net.valid(), history)
}

/// Trains one epoch (batch `batch`) from seed 7 twice and from seed 8 once, with the trunk `make`
/// builds and the recipe `recipe`, and asserts that seed 7 repeats its objective and its latent marginals on `test` bit
/// for bit while seed 8 gives other marginals.
pub fn assert_a_seed_repeats<T: Trunk<Input = Tensor<4>>>(
    make: impl Fn(&Device) -> T,
    recipe: &HybridConfig,
    train: &ImageSet,
    test: &ImageSet,
    batch: usize,
) {
    let run = |seed| {
        let (net, history) = train_image_hybrid(&make, recipe, train, seed, 1, batch);
        let idx: Vec<usize> = (0..test.n).collect();
        let (mean, var) = net.marginals(image_batch(test, &idx, &f32_device()).unwrap().images).unwrap();
        (history.records[0].objective, to_vec(mean), to_vec(var))
    };
    let (first, again, other) = (run(7), run(7), run(8));
    assert_eq!(first.0.to_bits(), again.0.to_bits(), "objective {} vs {}", first.0, again.0);
    assert!(first.1 == again.1 && first.2 == again.2, "the same seed gave different predictions");
    assert!(first.1 != other.1, "another seed gave the same predictions");
}
