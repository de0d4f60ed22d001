//! Gauss–Legendre nodes (computed, not tabulated) and an adaptive composite Gauss–Legendre rule,
//! used by the deterministic low-dimensional normal CDFs.
use std::sync::OnceLock;

/// Nodes per panel of the adaptive rule.
const PANEL_NODES: usize = 20;
/// Deepest bisection of one initial panel (2¹⁶ sub-panels at most).
const MAX_DEPTH: usize = 16;

/// The `n`-point Gauss–Legendre rule on `[−1, 1]`: `(nodes, weights)`, nodes ascending.
///
/// Nodes are the roots of the Legendre polynomial `P_n`, found by Newton's method from Chebyshev
/// starting values (converged to round-off); weights `2 / ((1 − x²) P_n'(x)²)`.
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut nodes = vec![0.0; n];
    let mut weights = vec![0.0; n];
    for i in 0..n.div_ceil(2) {
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        let mut dp = 1.0;
        for _ in 0..100 {
            let (p, d) = legendre_and_derivative(n, x);
            dp = d;
            let step = p / d;
            x -= step;
            if step.abs() < 1e-16 {
                let (_, d) = legendre_and_derivative(n, x);
                dp = d;
                break;
            }
        }
        let w = 2.0 / ((1.0 - x * x) * dp * dp);
        nodes[i] = -x;
        nodes[n - 1 - i] = x;
        weights[i] = w;
        weights[n - 1 - i] = w;
    }
    (nodes, weights)
}

/// `(P_n(x), P_n'(x))` by the three-term recurrence.
fn legendre_and_derivative(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let kf = k as f64;
        let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
        p0 = p1;
        p1 = p2;
    }
    let nf = n as f64;
    (p1, nf * (x * p1 - p0) / (x * x - 1.0))
}

/// The cached 20-point rule.
fn panel_rule() -> &'static (Vec<f64>, Vec<f64>) {
    static RULE: OnceLock<(Vec<f64>, Vec<f64>)> = OnceLock::new();
    RULE.get_or_init(|| gauss_legendre(PANEL_NODES))
}

/// The 20-point Gauss–Legendre estimate of `∫_a^b f`.
fn panel(f: &mut impl FnMut(f64) -> f64, a: f64, b: f64) -> f64 {
    let (x, w) = panel_rule();
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    half * x.iter().zip(w).map(|(xi, wi)| wi * f(mid + half * xi)).sum::<f64>()
}

/// `∫ f` over the consecutive panels `[breaks[i], breaks[i+1]]`, each bisected until the 20-point
/// rule on it and on its two halves agree to `rel_tol` of the whole integral (estimated first
/// from one pass over the panels; the same absolute tolerance for every sub-panel, so a
/// tolerance near round-off cannot trigger endless bisection); intended for smooth, non-negative
/// integrands, for which the breaks should bracket every kink or narrow peak.
pub fn integrate(mut f: impl FnMut(f64) -> f64, breaks: &[f64], rel_tol: f64) -> f64 {
    let coarse: f64 = breaks.windows(2).map(|w| panel(&mut f, w[0], w[1]).abs()).sum();
    let tol = rel_tol * coarse + f64::MIN_POSITIVE;
    breaks
        .windows(2)
        .map(|w| {
            let whole = panel(&mut f, w[0], w[1]);
            refine(&mut f, w[0], w[1], whole, tol, 0)
        })
        .sum()
}

/// Recursive bisection of one panel whose 20-point estimate is `whole`.
fn refine(f: &mut impl FnMut(f64) -> f64, a: f64, b: f64, whole: f64, tol: f64, depth: usize) -> f64 {
    let mid = 0.5 * (a + b);
    let (left, right) = (panel(f, a, mid), panel(f, mid, b));
    if (left + right - whole).abs() <= tol || depth >= MAX_DEPTH {
        return left + right;
    }
    refine(f, a, mid, left, tol, depth + 1) + refine(f, mid, b, right, tol, depth + 1)
}

/// Sorted, de-duplicated break points: `lo`, `hi`, and the `extra` points inside `(lo, hi)`,
/// with every gap wider than `max_gap` split evenly.
pub(crate) fn breakpoints(lo: f64, hi: f64, extra: &[f64], max_gap: f64) -> Vec<f64> {
    let mut pts: Vec<f64> = extra.iter().copied().filter(|p| p.is_finite() && *p > lo && *p < hi).collect();
    pts.push(lo);
    pts.push(hi);
    pts.sort_by(f64::total_cmp);
    pts.dedup();
    let mut out = vec![pts[0]];
    for w in pts.windows(2) {
        let pieces = ((w[1] - w[0]) / max_gap).ceil().max(1.0) as usize;
        for i in 1..=pieces {
            out.push(w[0] + (w[1] - w[0]) * i as f64 / pieces as f64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_integrates_polynomials_exactly() {
        for n in [1, 2, 5, 10, 20] {
            let (x, w) = gauss_legendre(n);
            assert!((w.iter().sum::<f64>() - 2.0).abs() < 1e-14);
            // ∫_{-1}^{1} x^{2k} = 2/(2k+1), exact for 2k ≤ 2n − 1
            for k in 0..n {
                let est: f64 = x.iter().zip(&w).map(|(xi, wi)| wi * xi.powi(2 * k as i32)).sum();
                assert!((est - 2.0 / (2 * k + 1) as f64).abs() < 1e-14, "n {n}, k {k}: {est}");
            }
        }
    }

    #[test]
    fn adaptive_rule_resolves_a_narrow_peak() {
        // ∫ exp(−x²/(2·0.01²)) over [−1, 1] = 0.01·√(2π)
        let f = |x: f64| (-0.5 * (x / 0.01).powi(2)).exp();
        let est = integrate(f, &breakpoints(-1.0, 1.0, &[0.0], 0.5), 1e-14);
        let exact = 0.01 * (2.0 * std::f64::consts::PI).sqrt();
        assert!((est - exact).abs() < 1e-14 * exact, "{est} vs {exact}");
    }
}
