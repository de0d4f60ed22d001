//! CNN + multi-class Bayesian SVM head on Fashion-MNIST (Wistuba & Rawat 2018, §4.2), next to the same CNN
//! with a softmax layer trained with the same budget in the same run.
//!
//! ```text
//! cargo run --release -p burn-gp-experiments --example fashion_hybrid
//! cargo run --release -p burn-gp-experiments --example fashion_hybrid --features wgpu -- --device wgpu
//! ```
//! Data: <data>/fashion-mnist/ with the four IDX files from https://github.com/zalandoresearch/fashion-mnist (data/fashion/); `--data` or `BURN_GP_DATA` sets `<data>`.
//! Defaults: the library's recipe (`burn_gp::nets::HybridConfig`; see `mnist_hybrid`), batch 128,
//! 3 epochs, Adam lr 1e-3, ρ = 0.02, batch-standardised features, P = 128 (`--m`), f32.
//! `--plot DIR` writes `fashion_hybrid_curves.svg` (training curves of both networks),
//! `fashion_hybrid_reliability.svg` and `fashion_hybrid_softmax_reliability.svg` (reliability
//! diagrams, 15 bins).
//! With `--json` the last stdout line is
//! `{"example":"fashion_hybrid","accuracy":…,"nll":…,"ece":…,"epoch_s":…,"softmax_accuracy":…, …}`
//! (also `dataset`, `mean_vr`, `softmax_nll`, `softmax_epoch_s`, `epochs`, `batch`, `lr`, `m`,
//! `train_size`, `backend`).
use burn_gp_experiments::hybrid;

fn main() {
    hybrid::main("fashion_hybrid", hybrid::ImageData::Fashion);
}
