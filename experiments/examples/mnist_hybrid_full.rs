//! CNN + multi-class Bayesian SVM head on MNIST (Wistuba & Rawat 2018, §4.2), next to the same CNN
//! with a softmax layer trained with the same budget in the same run: the main job
//! (`examples/mnist_hybrid.rs`, which shows its workflow) with every research flag. With the flags
//! both take it prints the same numbers and the same JSON line (`"example":"mnist_hybrid"`, and
//! figures named `mnist_hybrid_*.svg`).
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example mnist_hybrid_full -- --trace t.csv
//! cargo run --release -p burn-gp-experiments --example mnist_hybrid_full --features wgpu -- --device wgpu
//! ```
//! Data: <data>/mnist/ with the four IDX files (.gz or raw) from https://yann.lecun.com/exdb/mnist/; `--data` or `BURN_GP_DATA` sets `<data>`.
//! Defaults (the library's recipe, `burn_gp::nets::HybridConfig`): batch 128, 3 epochs, Adam lr 1e-3
//! for the network, kernel and inducing points, natural-gradient steps (ρ = 0.02) for the head's
//! q(u), features standardised across the batch before the head (`--feature-norm`), P = 128 (`--m`), f32
//! (`--precision f64` for double). `--seed` seeds the network's initialisation too: the same seed,
//! backend and thread count repeat a run bit for bit on one machine (another CPU model may differ in
//! the last digits: `docs/results/hybrid_reliability.md`). `--trace FILE` writes one CSV row per step.
//! `--plot DIR` writes `mnist_hybrid_curves.svg` (training curves of both networks),
//! `mnist_hybrid_reliability.svg` and `mnist_hybrid_softmax_reliability.svg` (reliability
//! diagrams, 15 bins).
//! With `--json` the last stdout line is
//! `{"example":"mnist_hybrid","accuracy":…,"nll":…,"ece":…,"epoch_s":…,"softmax_accuracy":…, …}`
//! (also `dataset`, `mean_vr`, `softmax_nll`, `softmax_ece`, `softmax_epoch_s`, `epochs`, `batch`,
//! `lr`, `m`, `train_size`, `backend`, and `calibration_size`). With `--calibration N` the last N
//! training images are held out to fit a temperature for each network (`burn_gp::calibration`; the
//! hybrid's on its latent means), and the line adds `temperature`, `nll_calibrated`,
//! `ece_calibrated`, `softmax_temperature`, `softmax_nll_calibrated` and `softmax_ece_calibrated`;
//! for the hybrid's own arg-max probabilities with one fitted factor on its latent variances
//! (`burn_gp::calibration::VarianceScaling`) `variance_scale`, `nll_variance_scaled` and
//! `ece_variance_scaled`; and for `softmax(f̄_c / (T·√(1 + λ·v_c)))` with `T` and `λ` fitted
//! together (`burn_gp::calibration::MeanFieldScaling`) `mean_field_temperature`,
//! `mean_field_weight`, `nll_mean_field` and `ece_mean_field`; with the softmax network too,
//! `nll_calibrated_minus_softmax` and `nll_calibrated_minus_softmax_se`, the hybrid's
//! temperature-scaled NLL minus the softmax network's, paired per test image, with its standard
//! error, and `nll_calibrated_minus_softmax_calibrated` and `_se`, the same against the softmax
//! network's temperature-scaled NLL (all `null` without it).
//! `--save FILE` / `--save-softmax FILE` keep both networks for `adversarial`; `--load FILE`
//! with `--load-softmax FILE` evaluates both saved networks again without training.
use burn_gp_experiments::hybrid;

fn main() {
    hybrid::main("mnist_hybrid", hybrid::ImageData::Mnist);
}
