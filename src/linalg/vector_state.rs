//! Leaving the x86 vector registers clean after faer's matrix kernels.
//!
//! faer's x86 matrix-multiply kernels (AVX-512 assembly) return with the upper halves of the
//! vector registers still set: they end without a `vzeroupper`. On Intel cores every legacy-SSE
//! instruction that runs next on that thread then pays for it (a false dependency on those upper
//! halves and a merge with them). glibc's `exp`, behind every RBF kernel matrix, and all Rust code
//! built for the baseline x86-64 target are legacy SSE. On a Xeon of family 6, model 167,
//! `linalg_bench --vector-state` times `exp` over 4·10⁶ values at 0.024 s on a clean thread and
//! 0.55–0.57 s after one faer product (`docs/results/benchmarks.md` has the end-to-end effect).
//! Whether a core pays depends on its microarchitecture; the benchmark measures it on the machine
//! at hand.
//!
//! Every host kernel of [`super::host`] ends with [`clear_after`], and the crate's host code
//! multiplies and solves through its wrappers (`host::matmul_into`, `host::solve_lower_in_place`,
//! `host::solve_upper_in_place`), so the code that runs after burn-gp's linear algebra (the
//! kernels' `exp`, the EP site updates, im2col) starts clean. Not covered: faer's operator products
//! (`&a * &b`) in the skew and decoupled GPs' m×m algebra. The Genz integrand's rayon tasks
//! clear their own thread first ([`clear_current_thread`]).

use faer::Par;

/// Clears the vector registers of the calling thread (zeroes their upper halves), where the CPU
/// has AVX: for the start of a rayon task of legacy-SSE arithmetic, whose worker may have run a
/// faer kernel before the queued clearing of [`clear_after`] reached it.
#[cfg(target_arch = "x86_64")]
pub(crate) fn clear_current_thread() {
    #[target_feature(enable = "avx")]
    fn vzeroupper() {
        std::arch::x86_64::_mm256_zeroupper();
    }
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX (checked above), the one feature `vzeroupper` needs. The
        // intrinsic tells the compiler that the upper halves are clobbered, so no live value is lost.
        unsafe { vzeroupper() }
    }
}

/// Nothing to clear off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn clear_current_thread() {}

/// Clears the vector registers of the threads a faer kernel ran on with parallelism `par`: the
/// calling thread now, and, when `par` used rayon's pool, every thread of the pool as its next
/// job. That job is queued without waiting for it (`rayon::spawn_broadcast`): a blocking
/// `rayon::broadcast` has to wake the workers, which made an SVGP epoch on kin8nm about 4 %
/// slower (`docs/results/benchmarks.md`). A worker runs the queued job only once its own queue is
/// empty, so parallel loops of legacy-SSE arithmetic also clear their thread at the start of each
/// task ([`clear_current_thread`]).
pub(crate) fn clear_after(par: Par) {
    clear_current_thread();
    if matches!(par, Par::Rayon(_)) {
        rayon::spawn_broadcast(|_| clear_current_thread());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn clearing_keeps_values_and_works_inside_the_pool() {
        // from the main thread, sequential and pooled
        let a = [1.5f64, -2.25, 3.0];
        clear_after(Par::Seq);
        clear_after(Par::rayon(0));
        assert_eq!(a.iter().map(|v| v.exp()).sum::<f64>(), 1.5f64.exp() + (-2.25f64).exp() + 3.0f64.exp());
        // from inside rayon's workers (the queued clearing must not deadlock a parallel loop)
        let sums: Vec<f64> = (0..8)
            .into_par_iter()
            .map(|k| {
                clear_after(Par::rayon(0));
                (0..100).map(|i| f64::from(i + k).sqrt()).sum()
            })
            .collect();
        let expected: Vec<f64> = (0..8).map(|k| (0..100).map(|i| f64::from(i + k).sqrt()).sum()).collect();
        assert_eq!(sums, expected);
    }
}
