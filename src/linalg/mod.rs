//! Differentiable dense linear algebra Burn lacks: Cholesky with a jitter ladder, triangular
//! inverse and solves, Cholesky solves and log-determinants.
//!
//! Design: the m×m factorisations (Cholesky, triangular inverse) and their backward passes run on
//! the host in f64 with `faer`, whatever the backend and precision (one device→host→device copy of
//! an m×m matrix per call; see `examples/linalg_bench.rs` for its cost). Products with data-sized
//! matrices (`L⁻¹ Kuf`, m×b) are device matmuls against the explicit triangular inverse, so the hot
//! b×m work stays on the device and is differentiated by Burn's own autodiff.
mod cholesky;
mod exp_bilinear;
pub mod host;
mod ops;
mod product;
mod reduce;
mod triangular;

pub use cholesky::{cholesky, cholesky_with_jitter, logdet_from_cholesky};
pub use exp_bilinear::{exp_bilinear_backward, exp_bilinear_contract, exp_bilinear_forward, ExpBilinearDims};
pub use ops::GpLinalgOps;
pub(crate) use ops::{autodiff_prelude, from_host, register_host_grads, to_host, upstream_on_host};
pub use product::{batched_matmul, matmul, matmul_transposed};
pub use reduce::row_sums;
pub use triangular::{cholesky_solve, solve_triangular, tri_inverse, Triangle};
