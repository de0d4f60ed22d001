#!/usr/bin/env python3
"""Exact (full) GP regression on the standard UCI splits with scikit-learn — a reference point for
the deep GP's one-layer numbers (`dgp_uci --layers 1`).

A full GP with an ARD squared-exponential kernel, a learned signal variance and a learned Gaussian
noise (`ConstantKernel * RBF(ARD) + WhiteKernel`), hyperparameters by maximising the exact marginal
likelihood (L-BFGS-B, `--restarts` random restarts), X and y standardised with the training
statistics. It is the model that the paper's sparse FITC "GP-100" approximates, without the sparse
approximation. Test log-likelihood (mean over test points of log N(y; m, v + σ²)) and RMSE in
original units, mean ± standard error over the splits.

    .venv-peers/bin/python benches/peers/exact_gp_uci.py --dataset bostonHousing --splits 0..20

`--solver direct` fits the same model (same kernel, bounds, start, restarts drawn the same way and
scikit-learn's 1e-10 diagonal) with its own marginal likelihood and analytic gradient in O(n²)
memory. scikit-learn's gradient holds an n × n × (d + 2) array (4.3 GB for kin8nm's 7 373 training
rows; on red wine's 1 439 it had not finished one split with 3 restarts in ten minutes); the direct
solver needs one n × n inverse an evaluation.
Its optimum matches scikit-learn's (boston split 0, see `docs/results/deep_gp.md`); `--selftest`
checks its objective and gradient against scikit-learn's and central differences.

Output: one JSON line per split (with `test_seen`, the number of test rows whose inputs also occur
in the training set, and the test LL on those rows and on the others), then a summary line
`{"example":"exact_gp_uci","dataset":…,"splits":…,"test_ll":…,"test_ll_se":…,"rmse":…,"rmse_se":…}`.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (shared split loader of the peer scripts)


def parse_range(text: str) -> range:
    if ".." in text:
        a, b = text.split("..")
        return range(int(a), int(b))
    return range(int(text), int(text) + 1)


# Start and bounds of the kernel, shared by both solvers: signal variance, the d lengthscales,
# noise variance.
SIGNAL_START, SIGNAL_BOUNDS = 1.0, (1e-3, 1e3)
LENGTH_BOUNDS = (1e-2, 1e3)
NOISE_START, NOISE_BOUNDS = 0.01, (1e-6, 1.0)
JITTER = 1e-10  # GaussianProcessRegressor's default `alpha`


def length_start(d):
    """Every lengthscale starts at √d (d inputs, standardised)."""
    return math.sqrt(d)


def sklearn_kernel(d, length_bounds):
    """The model as scikit-learn's kernel: `ConstantKernel * RBF(ARD) + WhiteKernel`."""
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    return (ConstantKernel(SIGNAL_START, SIGNAL_BOUNDS) * RBF(np.full(d, length_start(d)), length_bounds)
            + WhiteKernel(NOISE_START, NOISE_BOUNDS))


class DirectGp:
    """k(x, x') = c exp(-½ Σ_k (x_k - x'_k)² / ℓ_k²) + σ² δ, fitted by L-BFGS-B on the log scale."""

    def __init__(self, x, y, theta):
        import scipy.linalg as sl

        self.x, self.theta = x, theta
        self.chol = sl.cho_factor(self._with_noise(self._kernel(x, x, theta), theta), lower=True)
        self.alpha = sl.cho_solve(self.chol, y)

    @staticmethod
    def _kernel(a, b, theta):
        ell = np.exp(theta[1:-1])
        sa, sb = a / ell, b / ell
        sq = (sa * sa).sum(1)[:, None] + (sb * sb).sum(1)[None, :] - 2.0 * sa @ sb.T
        return math.exp(theta[0]) * np.exp(-0.5 * np.maximum(sq, 0.0))

    @staticmethod
    def _with_noise(kf, theta):
        """K_f + (σ² + jitter) I, as a new array."""
        k = kf.copy()
        k[np.diag_indices_from(k)] += math.exp(theta[-1]) + JITTER
        return k

    @staticmethod
    def objective(theta, x, y):
        """Negative log marginal likelihood and its gradient in θ = log(c, ℓ, σ²)."""
        import scipy.linalg as sl
        from scipy.linalg import lapack

        n = x.shape[0]
        kf = DirectGp._kernel(x, x, theta)
        try:
            chol = sl.cho_factor(DirectGp._with_noise(kf, theta), lower=True, overwrite_a=True)
        except np.linalg.LinAlgError:
            return np.inf, np.zeros_like(theta)
        alpha = sl.cho_solve(chol, y)
        nll = 0.5 * y @ alpha + np.log(np.diag(chol[0])).sum() + 0.5 * n * math.log(2 * math.pi)
        kinv, info = lapack.dpotri(chol[0], lower=1, overwrite_c=1)
        if info != 0:
            return np.inf, np.zeros_like(theta)
        kinv = np.tril(kinv) + np.tril(kinv, -1).T
        # W = αα' - K⁻¹; ∂(-log p)/∂θ = -½ Σ W ∘ ∂K/∂θ
        w = np.outer(alpha, alpha)
        w -= kinv
        del kinv
        trace_w = np.trace(w)
        w *= kf  # M = W ∘ K_f, symmetric
        grad = np.empty_like(theta)
        grad[0] = -0.5 * w.sum()
        # Σ_ij M_ij (x_ik - x_jk)² = 2 Σ_i x_ik² (M1)_i - 2 x_k' M x_k
        row = w.sum(1)
        mx = w @ x
        ell2 = np.exp(2.0 * theta[1:-1])
        spread = 2.0 * (x * x * row[:, None]).sum(0) - 2.0 * (x * mx).sum(0)
        grad[1:-1] = -0.5 * spread / ell2
        grad[-1] = -0.5 * math.exp(theta[-1]) * trace_w
        return float(nll), grad

    @classmethod
    def fit(cls, x, y, restarts, rng, length_bounds=LENGTH_BOUNDS):
        from scipy.optimize import minimize

        d = x.shape[1]
        bounds = [SIGNAL_BOUNDS] + [length_bounds] * d + [NOISE_BOUNDS]
        log_bounds = np.log(np.array(bounds))
        starts = [np.log(np.array([SIGNAL_START] + [length_start(d)] * d + [NOISE_START]))]
        # scikit-learn draws its restarts log-uniformly inside the bounds
        starts += [rng.uniform(log_bounds[:, 0], log_bounds[:, 1]) for _ in range(restarts)]
        best = None
        for start in starts:
            res = minimize(cls.objective, start, args=(x, y), jac=True, method="L-BFGS-B",
                           bounds=log_bounds)
            if best is None or res.fun < best.fun:
                best = res
        fitted = cls(x, y, best.x)
        fitted.nll = float(best.fun)
        return fitted

    def predict(self, xs):
        """Mean and standard deviation of y* (the noise included, as scikit-learn's with White)."""
        import scipy.linalg as sl

        ks = self._kernel(xs, self.x, self.theta)
        mean = ks @ self.alpha
        v = sl.solve_triangular(self.chol[0], ks.T, lower=True)
        var = math.exp(self.theta[0]) - (v * v).sum(0) + math.exp(self.theta[-1])
        return mean, np.sqrt(np.maximum(var, 1e-12))

    def describe(self) -> str:
        t = np.exp(self.theta)
        return (f"{math.sqrt(t[0]):.3g}**2 * RBF(length_scale={np.round(t[1:-1], 3).tolist()}) + "
                f"WhiteKernel(noise_level={t[-1]:.3g}); -log p = {self.nll:.4f}")


def selftest() -> None:
    """The direct objective and gradient against scikit-learn's and central differences."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 3))
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=60)
    theta = np.log(np.array([1.3, 0.7, 1.5, 2.0, 0.05]))
    nll, grad = DirectGp.objective(theta, x, y)
    kernel = ConstantKernel(1.3) * RBF([0.7, 1.5, 2.0]) + WhiteKernel(0.05)
    gp = GaussianProcessRegressor(kernel, optimizer=None).fit(x, y)
    lml, lml_grad = gp.log_marginal_likelihood(kernel.theta, eval_gradient=True)
    h = 1e-6
    fd = np.array([(DirectGp.objective(theta + e, x, y)[0] - DirectGp.objective(theta - e, x, y)[0]) / (2 * h)
                   for e in np.eye(theta.size) * h])
    errors = {"nll_vs_sklearn": abs(nll + lml), "grad_vs_sklearn": float(np.max(np.abs(grad + lml_grad))),
              "grad_vs_differences": float(np.max(np.abs(grad - fd)))}
    print(json.dumps(errors))
    assert errors["nll_vs_sklearn"] < 1e-9 and errors["grad_vs_sklearn"] < 1e-9, errors
    assert errors["grad_vs_differences"] < 1e-6, errors


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="bostonHousing")
    p.add_argument("--splits", default="0..20")
    p.add_argument("--restarts", type=int, default=3)
    p.add_argument("--data", type=Path, default=None)
    p.add_argument("--solver", choices=["sklearn", "direct"], default="sklearn",
                   help="scikit-learn's GaussianProcessRegressor, or the O(n²)-memory direct solver")
    p.add_argument("--min-lengthscale", type=float, default=LENGTH_BOUNDS[0],
                   help="lower bound of every lengthscale (standardised inputs; default 0.01, scikit-learn's here)")
    p.add_argument("--selftest", action="store_true",
                   help="check the direct solver's objective and gradient against scikit-learn's, then exit")
    a = p.parse_args()
    if not LENGTH_BOUNDS[0] <= a.min_lengthscale < LENGTH_BOUNDS[1]:
        p.error(f"--min-lengthscale must lie in [{LENGTH_BOUNDS[0]}, {LENGTH_BOUNDS[1]}), got {a.min_lengthscale}")
    if a.restarts < 0:
        p.error(f"--restarts must be 0 or more, got {a.restarts}")
    if a.selftest:
        selftest()
        return
    root = a.data or uci.default_data_root()
    length_bounds = (a.min_lengthscale, LENGTH_BOUNDS[1])

    from sklearn.gaussian_process import GaussianProcessRegressor

    lls, rmses = [], []
    for split in parse_range(a.splits):
        s = uci.load_split(root, a.dataset, split)
        t0 = time.time()
        if a.solver == "direct":
            fit = DirectGp.fit(s.x_train, s.y_train.ravel(), a.restarts, np.random.RandomState(split),
                               length_bounds)
            mean, std = fit.predict(s.x_test)
            kernel_text = fit.describe()
        else:
            gp = GaussianProcessRegressor(sklearn_kernel(s.d, length_bounds), n_restarts_optimizer=a.restarts,
                                          random_state=split)
            gp.fit(s.x_train, s.y_train.ravel())
            mean, std = gp.predict(s.x_test, return_std=True)  # std includes the White noise term
            kernel_text = str(gp.kernel_)
        m = mean * s.y_std + s.y_mean
        v = (std * s.y_std) ** 2
        y = s.y_test.ravel()
        point_ll = -0.5 * np.log(2 * math.pi * v) - 0.5 * (y - m) ** 2 / v
        ll = float(np.mean(point_ll))
        rmse = float(np.sqrt(np.mean((y - m) ** 2)))
        lls.append(ll)
        rmses.append(rmse)
        # test rows whose inputs also occur in the training set (red wine repeats rows)
        train_rows = {row.tobytes() for row in s.x_train}
        seen = np.array([row.tobytes() in train_rows for row in s.x_test])
        part = lambda mask: float(np.mean(point_ll[mask])) if mask.any() else None
        print(json.dumps({"split": split, "test_ll": ll, "rmse": rmse, "fit_s": time.time() - t0,
                          "test_seen": int(seen.sum()), "test_ll_seen": part(seen),
                          "test_ll_unseen": part(~seen), "kernel": kernel_text}), flush=True)
    k = len(lls)
    se = lambda v: float(np.std(v, ddof=1) / math.sqrt(k)) if k > 1 else None
    print(json.dumps({"example": "exact_gp_uci", "dataset": a.dataset, "splits": k, "solver": a.solver,
                      "restarts": a.restarts, "min_lengthscale": a.min_lengthscale,
                      "test_ll": float(np.mean(lls)), "test_ll_se": se(lls),
                      "rmse": float(np.mean(rmses)), "rmse_se": se(rmses)}))


if __name__ == "__main__":
    main()
