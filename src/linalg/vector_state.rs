//! Leaving the x86 vector registers clean after faer's matrix kernels.
//!
//! faer's x86 matrix-multiply kernels (AVX-512 assembly) return with the upper halves of the
//! vector registers still set: they end without a `vzeroupper`. On Intel cores every legacy-SSE
//! instruction that runs next on that thread then pays for it (a false dependency on those upper
//! halves and a merge with them). glibc's `exp`, behind every RBF kernel matrix, and all Rust code
//! built for the baseline x86-64 target are legacy SSE. On a Xeon of family 6, model 167,
//! `linalg_bench --vector-state` times `exp` over 4·10⁶ values at 0.024 s on a clean thread and
//! 0.56–0.60 s after one faer product (`docs/results/benchmarks.md` has the end-to-end effect).
//! Whether a core pays depends on its microarchitecture; the benchmark measures it on the machine
//! at hand.
//!
//! Every host kernel of [`super::host`] ends with [`clear_after`], so the code that runs after
//! burn-gp's linear algebra (the kernels' `exp`, the EP site updates, …) starts clean.

use faer::Par;

/// Zeroes the upper halves of the vector registers of the calling thread, where the CPU has AVX.
#[cfg(target_arch = "x86_64")]
fn zero_upper() {
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

/// Nothing to do off x86-64.
#[cfg(not(target_arch = "x86_64"))]
fn zero_upper() {}

/// Clears the vector registers of the threads a faer kernel ran on with parallelism `par`: the
/// calling thread, and every thread of rayon's pool when `par` used it.
pub(crate) fn clear_after(par: Par) {
    zero_upper();
    if matches!(par, Par::Rayon(_)) {
        rayon::broadcast(|_| zero_upper());
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
        // from inside rayon's workers (a broadcast nested in a parallel loop must not deadlock)
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
