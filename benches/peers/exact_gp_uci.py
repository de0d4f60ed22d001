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

Output: one JSON line per split, then a summary line
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="bostonHousing")
    p.add_argument("--splits", default="0..20")
    p.add_argument("--restarts", type=int, default=3)
    p.add_argument("--data", type=Path, default=None)
    a = p.parse_args()
    root = a.data or uci.default_data_root()

    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    lls, rmses = [], []
    for split in parse_range(a.splits):
        s = uci.load_split(root, a.dataset, split)
        d = s.d
        kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.full(d, math.sqrt(d)), (1e-2, 1e3)) + WhiteKernel(
            0.01, (1e-6, 1.0)
        )
        t0 = time.time()
        gp = GaussianProcessRegressor(kernel, n_restarts_optimizer=a.restarts, random_state=split)
        gp.fit(s.x_train, s.y_train.ravel())
        mean, std = gp.predict(s.x_test, return_std=True)  # std includes the White noise term
        m = mean * s.y_std + s.y_mean
        v = (std * s.y_std) ** 2
        y = s.y_test.ravel()
        ll = float(np.mean(-0.5 * np.log(2 * math.pi * v) - 0.5 * (y - m) ** 2 / v))
        rmse = float(np.sqrt(np.mean((y - m) ** 2)))
        lls.append(ll)
        rmses.append(rmse)
        print(json.dumps({"split": split, "test_ll": ll, "rmse": rmse, "fit_s": time.time() - t0,
                          "kernel": str(gp.kernel_)}), flush=True)
    k = len(lls)
    se = lambda v: float(np.std(v, ddof=1) / math.sqrt(k)) if k > 1 else None
    print(json.dumps({"example": "exact_gp_uci", "dataset": a.dataset, "splits": k,
                      "test_ll": float(np.mean(lls)), "test_ll_se": se(lls),
                      "rmse": float(np.mean(rmses)), "rmse_se": se(rmses)}))


if __name__ == "__main__":
    main()
