"""Shared workload definition for the peer SVGP benchmarks (GPflow, GPyTorch).

Everything that must be identical between the peer scripts lives here: data
loading and standardisation, the inducing-point initialisation, the minibatch
schedule, the command line, the metrics and the JSON result line. Only numpy
is needed, so the module can be imported before either framework.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]


def default_data_root() -> Path:
    """`$BURN_GP_DATA`, else `../shared/data` relative to the repo root."""
    env = os.environ.get("BURN_GP_DATA")
    if env:
        return Path(env)
    return (REPO_ROOT / ".." / "shared" / "data").resolve()


def parse_args(description: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--dataset", default="kin8nm")
    p.add_argument("--split", type=int, default=0)
    p.add_argument("--m", type=int, default=128, help="number of inducing points")
    p.add_argument("--batch", type=int, default=256, help="minibatch size")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.01, help="Adam learning rate")
    p.add_argument("--data", type=Path, default=None,
                   help="data root holding uci_regression/<dataset>/ "
                        "(default: $BURN_GP_DATA or ../shared/data from the repo root)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the inducing subset and of the minibatch shuffles")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    if a.data is None:
        a.data = default_data_root()
    return a


def dataset_dir(root: Path, dataset: str) -> Path:
    """Accepts the data root (`root/uci_regression/<dataset>`) or the folder itself."""
    for cand in (root / "uci_regression" / dataset, root / dataset, root):
        if (cand / "data.txt").is_file():
            return cand
    raise FileNotFoundError(f"no data.txt for {dataset!r} under {root}")


def _indices(path: Path) -> np.ndarray:
    return np.loadtxt(path, dtype=np.int64, ndmin=1)


@dataclass
class Split:
    x_train: np.ndarray  # [n, d] standardised, float64
    y_train: np.ndarray  # [n, 1] standardised
    x_test: np.ndarray   # [t, d] standardised with the training statistics
    y_test: np.ndarray   # [t, 1] ORIGINAL units
    y_mean: float
    y_std: float

    @property
    def n(self) -> int:
        return self.x_train.shape[0]

    @property
    def d(self) -> int:
        return self.x_train.shape[1]


def _mean_std(a: np.ndarray):
    mean = a.mean(axis=0)
    std = a.std(axis=0)  # population std (ddof = 0)
    std = np.where(std == 0.0, 1.0, std)
    return mean, std


def load_split(root: Path, dataset: str, split: int) -> Split:
    """UCI regression split in the layout of Gal & Ghahramani's repository."""
    ddir = dataset_dir(Path(root), dataset)
    data = np.loadtxt(ddir / "data.txt", dtype=np.float64, ndmin=2)
    feats = _indices(ddir / "index_features.txt")
    target = int(_indices(ddir / "index_target.txt")[0])
    tr = _indices(ddir / f"index_train_{split}.txt")
    te = _indices(ddir / f"index_test_{split}.txt")

    x_tr, x_te = data[np.ix_(tr, feats)], data[np.ix_(te, feats)]
    y_tr, y_te = data[tr, target][:, None], data[te, target][:, None]
    x_mean, x_std = _mean_std(x_tr)
    y_mean, y_std = _mean_std(y_tr)
    return Split(
        x_train=np.ascontiguousarray((x_tr - x_mean) / x_std),
        y_train=np.ascontiguousarray((y_tr - y_mean) / y_std),
        x_test=np.ascontiguousarray((x_te - x_mean) / x_std),
        y_test=np.ascontiguousarray(y_te),
        y_mean=float(y_mean[0]),
        y_std=float(y_std[0]),
    )


def inducing_init(x_train: np.ndarray, m: int, seed: int = 0) -> np.ndarray:
    """`m` distinct rows of the standardised training inputs, chosen with `seed`."""
    rng = np.random.default_rng(seed)
    idx = rng.choice(x_train.shape[0], size=min(m, x_train.shape[0]), replace=False)
    return np.array(x_train[idx], dtype=np.float64, copy=True)


def minibatch_schedule(n: int, batch: int, epochs: int, seed: int = 0) -> list[list[np.ndarray]]:
    """Per epoch, a fresh permutation cut into ceil(n / batch) minibatches.

    Precomputed so that both peers see exactly the same minibatches and the
    shuffling stays out of the timed loop.
    """
    rng = np.random.default_rng(seed + 1)  # stream independent of the inducing subset
    out = []
    for _ in range(epochs):
        perm = rng.permutation(n)
        out.append([perm[i:i + batch] for i in range(0, n, batch)])
    return out


def metrics(split: Split, mean_std: np.ndarray, var_std: np.ndarray) -> tuple[float, float]:
    """RMSE and mean Gaussian test log-likelihood in original units.

    `mean_std`, `var_std`: predictive mean and variance of y (latent variance
    plus noise) in standardised units.
    """
    mean = np.asarray(mean_std, dtype=np.float64).reshape(-1) * split.y_std + split.y_mean
    var = np.asarray(var_std, dtype=np.float64).reshape(-1) * split.y_std ** 2
    y = split.y_test.reshape(-1)
    rmse = float(np.sqrt(np.mean((y - mean) ** 2)))
    ll = -0.5 * np.log(2.0 * math.pi * var) - 0.5 * (y - mean) ** 2 / var
    return rmse, float(np.mean(ll))


class EpochTimer:
    """Wall time of each epoch of the training loop (time.perf_counter)."""

    def __init__(self):
        self.times: list[float] = []
        self._t0 = None

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self):
        self.times.append(time.perf_counter() - self._t0)


def emit(example: str, args: argparse.Namespace, times: list[float], skip_first: bool,
         rmse: float, test_ll: float, **extra) -> None:
    """Prints the result line (always the final stdout line)."""
    timed = times[1:] if (skip_first and len(times) > 1) else times
    rec = {
        "example": example,
        "dataset": args.dataset,
        "split": args.split,
        "epoch_s": sum(timed) / len(timed),
        "rmse": rmse,
        "test_ll": test_ll,
        "epochs": len(times),
        "epochs_timed": f"{len(times) - len(timed) + 1}..{len(times)}",
        "epoch_times_s": [round(t, 6) for t in times],
        "m": args.m,
        "batch": args.batch,
        "lr": args.lr,
        "threads": args.threads,
    }
    rec.update(extra)
    print(json.dumps(rec), flush=True)
