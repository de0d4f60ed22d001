"""The Bayesian signed-rank test that paper 000 (§7.1, Fig. 9) compares classifiers with.

Benavoli, Mangili, Corani, Zaffalon and Ruggeri (ICML 2014), "A Bayesian Wilcoxon signed-rank
test based on the Dirichlet process". The per-set differences `z_i = A_i − B_i` get a Dirichlet
process posterior whose prior is one pseudo-observation at 0 of weight `prior` (0.5). For a draw
of weights `w ~ Dir(prior, 1, …, 1)` over `(0, z_1, …, z_n)`, the posterior mass of "A better" is
`Σ_ij w_i w_j [z_i + z_j > 2r]`, of "B better" `Σ_ij w_i w_j [z_i + z_j < −2r]` and the rest is
the region of practical equivalence (rope, half-width r; sums exactly on a boundary count half,
as in the authors' `baycomp`). The test reports, for each of the three regions, the posterior
probability that it holds the largest mass (ties between regions split evenly): the numbers the
paper quotes ("100 % of the posterior mass is in the region in favour of SkewGP0").

Each draw costs O(n) after one sort, not O(n²): for sorted z, the j with `z_i + z_j > t` form a
suffix (IEEE addition is monotone), so the double sum is `Σ_i w_i · (suffix sum of w)`.

    python3 benches/peers/bayes_signed_rank.py --check   # against the O(n²) double sum

Standard library only, so that `skewgp_report.py` stays so.
"""

import bisect
import random
import sys


def _first_above(zs, i, t):
    """Smallest j with zs[i] + zs[j] > t (len(zs) when none)."""
    return bisect.bisect_right(zs, t, key=lambda v: zs[i] + v)


def _first_at_or_above(zs, i, t):
    """Smallest j with zs[i] + zs[j] >= t."""
    return bisect.bisect_left(zs, t, key=lambda v: zs[i] + v)


def boundaries(zs, rope):
    """Per sorted z_i, the index ranges of the j whose z_i + z_j lies above 2r, on it, below −2r
    or on it: (first above 2r, first at or above 2r, first at or above −2r, first above −2r).
    They depend on the differences only, so one sort and search serves every weight draw."""
    t = 2.0 * rope
    return [
        (_first_above(zs, i, t), _first_at_or_above(zs, i, t), _first_at_or_above(zs, i, -t), _first_above(zs, i, -t))
        for i in range(len(zs))
    ]


def region_masses(bounds, weights):
    """(left, rope, right) masses of one weight draw, weights aligned with the sorted z."""
    n = len(weights)
    suffix = [0.0] * (n + 1)
    for j in range(n - 1, -1, -1):
        suffix[j] = suffix[j + 1] + weights[j]
    right = 0.0
    left = 0.0
    for w, (above, at, below_end, at_end) in zip(weights, bounds):
        # z_i + z_j > 2r counts fully, == 2r half; likewise below −2r.
        right += w * (suffix[above] + 0.5 * (suffix[at] - suffix[above]))
        left += w * ((suffix[0] - suffix[below_end]) + 0.5 * (suffix[below_end] - suffix[at_end]))
    total = suffix[0] ** 2
    return left / total, 1.0 - (left + right) / total, right / total


def region_masses_direct(z, weights, rope):
    """The O(n²) double sum, for checking `region_masses`."""
    total = sum(weights) ** 2
    left = right = 0.0
    for zi, wi in zip(z, weights):
        for zj, wj in zip(z, weights):
            s = zi + zj
            h_right = 1.0 if s > 2.0 * rope else (0.5 if s == 2.0 * rope else 0.0)
            h_left = 1.0 if s < -2.0 * rope else (0.5 if s == -2.0 * rope else 0.0)
            right += wi * wj * h_right
            left += wi * wj * h_left
    return left / total, 1.0 - (left + right) / total, right / total


def _draw_weights(rng, alphas):
    g = [rng.gammavariate(a, 1.0) for a in alphas]
    s = sum(g)
    return [v / s for v in g]


def signed_rank_test(diffs, rope=0.01, prior=0.5, samples=20000, seed=0):
    """P(B better), P(practically equivalent), P(A better) for per-set differences A − B."""
    z = [0.0] + [float(d) for d in diffs]
    alphas = [prior] + [1.0] * len(diffs)
    order = sorted(range(len(z)), key=lambda k: z[k])
    zs = [z[k] for k in order]
    alphas = [alphas[k] for k in order]
    bounds = boundaries(zs, rope)
    rng = random.Random(seed)
    wins = [0.0, 0.0, 0.0]
    for _ in range(samples):
        masses = region_masses(bounds, _draw_weights(rng, alphas))
        top = max(masses)
        best = [k for k in range(3) if masses[k] == top]
        for k in best:
            wins[k] += 1.0 / len(best)
    return tuple(v / samples for v in wins)


def _check():
    rng = random.Random(1)
    worst = 0.0
    for trial in range(200):
        n = rng.randint(1, 40)
        z = [rng.choice([rng.gauss(0.0, 0.03), 0.01, -0.01, 0.0, 0.02]) for _ in range(n)]
        w = _draw_weights(rng, [0.5] + [1.0] * (n - 1))
        order = sorted(range(n), key=lambda k: z[k])
        zs = [z[k] for k in order]
        fast = region_masses(boundaries(zs, 0.01), [w[k] for k in order])
        slow = region_masses_direct(z, w, 0.01)
        worst = max(worst, max(abs(a - b) for a, b in zip(fast, slow)))
    print(f"largest difference from the O(n^2) sum over 200 random draws: {worst:.2e}")
    return worst < 1e-12


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(0 if _check() else 1)
    print(__doc__)
