//! Differentiable dense linear algebra Burn lacks: Cholesky with a jitter ladder, triangular
//! inverse and solves, Cholesky solves and log-determinants.
//!
//! Design: the m×m factorisations (Cholesky, triangular inverse) and their backward passes run on
//! the host in f64 with `faer`, whatever the backend and precision (one device→host→device copy of
//! an m×m matrix per call; see `experiments/examples/linalg_bench.rs` for its cost). Triangular solves against
//! data-sized right-hand sides (`L⁻¹ Kuf`, m×b) are one custom op with a hand-written backward: on
//! CPU backends faer's blocked solve (half the flops of inverting and multiplying), on GPU backends
//! the host-formed inverse applied by the device's matmul, so the b×m work stays on the device.
mod cholesky;
mod exp_bilinear;
mod exp_bilinear_contract;
pub mod host;
mod ops;
mod product;
mod reduce;
mod triangular;
mod vector_state;

pub(crate) use crate::tensors::{from_host, to_host};
pub use cholesky::{cholesky, cholesky_with_jitter, logdet_from_cholesky};
pub use exp_bilinear_contract::exp_bilinear_contract;
pub use ops::GpLinalgOps;
pub(crate) use ops::{autodiff_prelude, register_host_grads, upstream_on_host};
pub(crate) use product::matmul_nt;
pub use product::{batched_matmul, matmul, matmul_transposed};
pub(crate) use reduce::row_sums;
pub(crate) use triangular::solve_lower_right;
pub use triangular::{cholesky_solve, solve_triangular, tri_inverse, Triangle};
pub(crate) use vector_state::clear_after;
pub(crate) use vector_state::clear_current_thread;
