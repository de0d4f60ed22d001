//! A regression stump (a regression tree of depth one): the split of `x` that best separates
//! the mean of `y` in least squares, with a permutation test of whether the split explains
//! more than chance would. The skew GP paper's Fig. 10 (§7.1) draws a regression tree over
//! (largest skewness statistic, information gain over GP-EP) to "detect structural changes in
//! the mean"; the permutation p-value says whether such a change is there.
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// The best single split of the points `(x, y)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stump {
    /// The split: points with `x ≤ threshold` go left (the midpoint between the two sides).
    pub threshold: f64,
    /// `(points, mean y)` on the left (`x ≤ threshold`) and on the right.
    pub left: (usize, f64),
    /// See `left`.
    pub right: (usize, f64),
    /// The fall in the sum of squares of `y` about its mean(s) that the split gives.
    pub gain: f64,
    /// The share of permutations of `y` over the same `x` whose best split gains at least as
    /// much, `(1 + count) / (1 + permutations)`.
    pub p_value: f64,
}

/// The best split of `points` (non-finite ones dropped) with at least `min_leaf` points a side,
/// and its permutation p-value over `permutations` shuffles of `y` (seeded); `None` with fewer
/// than `2 · min_leaf` points or no split between distinct `x`.
pub fn fit(points: &[(f64, f64)], min_leaf: usize, permutations: usize, seed: u64) -> Option<Stump> {
    let mut sorted: Vec<(f64, f64)> = points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let xs: Vec<f64> = sorted.iter().map(|p| p.0).collect();
    let mut ys: Vec<f64> = sorted.iter().map(|p| p.1).collect();
    let min_leaf = min_leaf.max(1);
    let (k, gain) = best_split(&xs, &ys, min_leaf)?;
    let n = ys.len();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (threshold, left, right) = (0.5 * (xs[k - 1] + xs[k]), (k, mean(&ys[..k])), (n - k, mean(&ys[k..])));
    let mut rng = StdRng::seed_from_u64(seed);
    let mut beaten = 0;
    for _ in 0..permutations {
        ys.shuffle(&mut rng);
        if best_split(&xs, &ys, min_leaf).is_some_and(|(_, g)| g >= gain - 1e-12 * gain.abs()) {
            beaten += 1;
        }
    }
    Some(Stump { threshold, left, right, gain, p_value: (1 + beaten) as f64 / (1 + permutations) as f64 })
}

/// For `y` ordered by the sorted `x`: the split index `k` (left = the first `k` points) with the
/// largest fall in the sum of squares, and that fall; splits only between distinct `x`.
fn best_split(xs: &[f64], ys: &[f64], min_leaf: usize) -> Option<(usize, f64)> {
    let n = ys.len();
    if n < 2 * min_leaf {
        return None;
    }
    let total: f64 = ys.iter().sum();
    let mut best: Option<(usize, f64)> = None;
    let mut left = 0.0;
    for k in 1..n {
        left += ys[k - 1];
        if k < min_leaf || n - k < min_leaf || xs[k - 1] == xs[k] {
            continue;
        }
        // SS_total − SS_split = k·ȳ_L² + (n−k)·ȳ_R² − n·ȳ²
        let right = total - left;
        let gain = left * left / k as f64 + right * right / (n - k) as f64 - total * total / n as f64;
        if best.is_none_or(|(_, g)| gain > g) {
            best = Some((k, gain));
        }
    }
    best
}
