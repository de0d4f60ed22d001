//! Gauss–Hermite quadrature rules (host f64).

use super::consts::{FRAC_1_SQRT_PI, SQRT_PI};
use std::f64::consts::SQRT_2;

/// Newton iterations allowed per node; from the bisection bracket 2–3 suffice.
const MAX_NEWTON_STEPS: usize = 20;
/// Bisection narrows each node to this absolute width before Newton polishes it.
const BRACKET_WIDTH: f64 = 1e-8;

/// Nodes and weights `(xᵢ, wᵢ)` of the `n`-point Gauss–Hermite rule for the weight `e^{−x²}`:
/// `∫ f(x) e^{−x²} dx ≈ Σᵢ wᵢ f(xᵢ)`, exact for polynomials of degree `≤ 2n − 1`.
///
/// Nodes are returned in increasing order and are exactly symmetric (`0` is a node when `n` is
/// odd); `Σ wᵢ = √π`. Each node is isolated by Sturm-sequence bisection on the Jacobi matrix and
/// polished by Newton's method on the orthonormal Hermite recurrence, which also gives the
/// weights to full relative accuracy, the tiny outer ones included. Valid for `n ≤ 700` (beyond,
/// the recurrence overflows at the outer nodes); the outer weights underflow to zero from
/// `n ≈ 450`. `n = 0` gives empty vectors.
pub fn gauss_hermite(n: usize) -> (Vec<f64>, Vec<f64>) {
    let half = n.div_ceil(2);
    // All roots of Hₙ lie in (−√(2n+1), √(2n+1)).
    let bound = ((2 * n + 1) as f64).sqrt();
    // Nonnegative nodes, largest first, with their weights.
    let mut upper: Vec<(f64, f64)> = Vec::with_capacity(half);
    for i in 0..half {
        let x = if n % 2 == 1 && i == half - 1 {
            0.0
        } else {
            let above = upper.last().map_or(bound, |&(x, _)| x);
            newton_root(n, bisect_root(n, n - 1 - i, 0.0, above))
        };
        let (_, derivative) = orthonormal_hermite(n, x);
        upper.push((x, 2.0 / (derivative * derivative)));
    }
    let lower = upper.iter().map(|&(x, w)| (-x, w));
    let upper_ascending = upper.iter().rev().skip(n % 2).copied();
    lower.chain(upper_ascending).unzip()
}

/// Nodes and weights for expectations under a standard normal: `E[f(X)] ≈ Σᵢ wᵢ f(xᵢ)`,
/// `X ~ N(0, 1)` — the [`gauss_hermite`] rule with nodes scaled by `√2` and weights by `1/√π`
/// (so `Σ wᵢ = 1`).
pub fn gauss_hermite_normal(n: usize) -> (Vec<f64>, Vec<f64>) {
    let (x, w) = gauss_hermite(n);
    (x.into_iter().map(|x| SQRT_2 * x).collect(), w.into_iter().map(|w| FRAC_1_SQRT_PI * w).collect())
}

/// Brackets the `index`-th root of `Hₙ` (ascending, from 0), known to lie in `(lo, hi)`, to
/// [`BRACKET_WIDTH`] by bisection, and returns the bracket's midpoint.
fn bisect_root(n: usize, index: usize, mut lo: f64, mut hi: f64) -> f64 {
    while hi - lo > BRACKET_WIDTH {
        let mid = 0.5 * (lo + hi);
        if roots_below(n, mid) > index {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The number of roots of `Hₙ` below `x`: the Sturm count of the Jacobi matrix of the Hermite
/// recurrence (zero diagonal, off-diagonal `√(k/2)`), whose eigenvalues are those roots.
fn roots_below(n: usize, x: f64) -> usize {
    // Pivots of the LDLᵀ factorisation of J − xI; their negative count is the answer.
    let mut pivot = 1.0;
    let mut count = 0;
    for k in 0..n {
        let coupling_squared = k as f64 / 2.0;
        pivot = -x - if k == 0 { 0.0 } else { coupling_squared / pivot };
        if pivot == 0.0 {
            pivot = -f64::EPSILON * (1.0 + x.abs());
        }
        count += usize::from(pivot < 0.0);
    }
    count
}

/// The root of `Hₙ` nearest `guess`, by Newton's method.
fn newton_root(n: usize, guess: f64) -> f64 {
    let mut x = guess;
    for _ in 0..MAX_NEWTON_STEPS {
        let (value, derivative) = orthonormal_hermite(n, x);
        let step = value / derivative;
        x -= step;
        if step.abs() <= 4.0 * f64::EPSILON * x.abs() {
            break;
        }
    }
    x
}

/// The orthonormal Hermite polynomial `h̃ₙ(x)` (with `∫ h̃ₙ² e^{−x²} dx = 1`) and its derivative
/// `√(2n)·h̃ₙ₋₁(x)`, from the three-term recurrence.
fn orthonormal_hermite(n: usize, x: f64) -> (f64, f64) {
    let mut previous = 0.0;
    let mut current = SQRT_PI.sqrt().recip();
    for j in 1..=n {
        let jf = j as f64;
        let next = x * (2.0 / jf).sqrt() * current - ((jf - 1.0) / jf).sqrt() * previous;
        previous = current;
        current = next;
    }
    (current, (2.0 * n as f64).sqrt() * previous)
}

#[cfg(test)]
mod tests {
    use super::{gauss_hermite, gauss_hermite_normal};
    use crate::special::consts::SQRT_PI;
    use crate::special::test_util::rel_err;

    /// The 5-point rule, `(xᵢ, wᵢ)`: roots of `H₅` and `wᵢ = 2⁴·5!·√π / (5² H₄(xᵢ)²)`, mpmath at 50 digits.
    const RULE_5: [(f64, f64); 5] = [
        (-2.0201828704560856, 0.019953242059045913),
        (-0.9585724646138185, 0.3936193231522412),
        (0.0, 0.9453087204829419),
        (0.9585724646138185, 0.3936193231522412),
        (2.0201828704560856, 0.019953242059045913),
    ];

    /// `(n, largest node, its weight)`, mpmath at 60 digits.
    const OUTER_NODES: [(usize, f64, f64); 2] =
        [(20, 5.387480890011233, 2.2293936455341513e-13), (100, 13.40648733814491, 5.908067865031207e-79)];

    #[test]
    fn five_point_rule_matches_mpmath() {
        let (x, w) = gauss_hermite(5);
        for (i, &(xr, wr)) in RULE_5.iter().enumerate() {
            assert!(rel_err(x[i], xr) < 1e-15, "node {i}: {} vs {xr}", x[i]);
            assert!(rel_err(w[i], wr) < 1e-14, "weight {i}: {} vs {wr}", w[i]);
        }
    }

    #[test]
    fn outer_nodes_and_weights_match_mpmath() {
        for (n, xr, wr) in OUTER_NODES {
            let (x, w) = gauss_hermite(n);
            assert!(rel_err(x[n - 1], xr) < 1e-15, "n = {n}: {} vs {xr}", x[n - 1]);
            assert!(rel_err(w[n - 1], wr) < 1e-12, "n = {n}: {} vs {wr}", w[n - 1]);
        }
    }

    #[test]
    fn weights_sum_to_sqrt_pi_and_nodes_are_symmetric_and_sorted() {
        for n in (1..=100).chain([150, 200, 300, 500, 700]) {
            let (x, w) = gauss_hermite(n);
            assert_eq!((x.len(), w.len()), (n, n));
            assert!(rel_err(w.iter().sum(), SQRT_PI) < 1e-13, "n = {n}: sum {}", w.iter().sum::<f64>());
            assert!(x.windows(2).all(|p| p[0] < p[1]), "n = {n}: nodes not increasing");
            assert!((0..n).all(|i| x[i] == -x[n - 1 - i] && w[i] == w[n - 1 - i]), "n = {n}");
            // Outer weights underflow to zero for n ≳ 450; the rest are positive.
            assert!(w.iter().all(|&wi| wi > 0.0 || (n > 400 && wi == 0.0)), "n = {n}");
        }
        assert_eq!(gauss_hermite(0), (vec![], vec![]));
    }

    #[test]
    fn rule_is_exact_for_polynomials_of_degree_up_to_2n_minus_1() {
        for n in [1, 2, 3, 4, 5, 8, 10, 16, 20, 30] {
            let (x, w) = gauss_hermite(n);
            // ∫ x^k e^{−x²} dx = Γ((k+1)/2) for even k, 0 for odd k.
            let mut even_moment = SQRT_PI;
            for k in 0..2 * n as i32 {
                let quad: f64 = x.iter().zip(&w).map(|(x, w)| w * x.powi(k)).sum();
                let scale: f64 = x.iter().zip(&w).map(|(x, w)| w * x.abs().powi(k)).sum();
                let exact = if k % 2 == 0 { even_moment } else { 0.0 };
                assert!((quad - exact).abs() <= 1e-13 * scale, "n = {n}, k = {k}: {quad} vs {exact}");
                if k % 2 == 1 {
                    even_moment *= f64::from(k) / 2.0;
                }
            }
        }
    }

    #[test]
    fn large_rule_integrates_smooth_functions() {
        // ∫ cos(x) e^{−x²} dx = √π e^{−1/4}.
        let (x, w) = gauss_hermite(100);
        let quad: f64 = x.iter().zip(&w).map(|(x, w)| w * x.cos()).sum();
        assert!(rel_err(quad, SQRT_PI * (-0.25f64).exp()) < 1e-13);
    }

    #[test]
    fn normal_rule_gives_standard_normal_expectations() {
        let (x, w) = gauss_hermite_normal(20);
        let e = |f: &dyn Fn(f64) -> f64| x.iter().zip(&w).map(|(&x, w)| w * f(x)).sum::<f64>();
        assert!(rel_err(e(&|_| 1.0), 1.0) < 1e-14);
        assert!(e(&|x| x).abs() < 1e-15);
        assert!(rel_err(e(&|x| x * x), 1.0) < 1e-14);
        assert!(rel_err(e(&|x| x.powi(4)), 3.0) < 1e-14);
        assert!(rel_err(e(&f64::exp), 0.5f64.exp()) < 1e-14);
    }
}
