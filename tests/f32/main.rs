//! The integration tests that run in f32, the GPU backends' precision, on the default backend: a
//! binary of their own, because a backend's precision is fixed once per process and the `it`
//! binary runs in f64 (run in one process, whichever test touched the backend first chose the
//! precision of all the others).
#[path = "../common/mod.rs"]
mod common;

mod bsvm_hybrid;
mod skew_gp;
