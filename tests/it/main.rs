//! The integration tests, in one binary (each links Burn once; one binary builds and links much
//! faster than one per file). Run one group with a filter, e.g. `cargo test --test it svgp::`.
//!
//! `tests/hybrid_mnist.rs` stays a binary of its own: it checks that a seeded run repeats bit for
//! bit, which tests drawing from the same device's generator in parallel threads would break.
//! `tests/f32/` holds the tests that run in f32: a backend's precision is fixed once per process,
//! and this binary runs in f64.
#[path = "../common/mod.rs"]
mod common;
mod ep_support;

/// Records each thread's largest allocation, for the damaged-file loads of `saved_mutation`.
#[global_allocator]
static ALLOCATOR: saved_mutation::TrackingAllocator = saved_mutation::TrackingAllocator;

mod backend_agreement;
mod bsvm_golden;
mod bsvm_math;
mod bsvm_train;
mod checkpoints;
mod chunked_prediction;
mod data_loaders;
mod decoupled_fourier;
mod deep_gp;
mod ep_classifier;
mod ep_training;
mod full_ep;
mod image_prediction;
mod kernels;
#[cfg(feature = "learner")]
mod learner;
mod lifecycle;
mod likelihoods;
mod linalg;
mod metrics;
mod mvn;
mod real_data;
mod saved_mutation;
mod skew_gp;
mod special_tensor;
mod svgp;
