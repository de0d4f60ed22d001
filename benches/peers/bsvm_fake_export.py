#!/usr/bin/env python3
"""Writes a synthetic export in the layout of `bsvm_pmlb --export` (numpy only).

usage: bsvm_fake_export.py OUT [--sets blobs3,blobs4] [--splits 1] [--n 300]
                           [--d 4] [--classes 3] [--p 16] [--epochs 5]
                           [--batch 128] [--lr 0.01] [--seed 0]

For testing `gpflow_multiclass.py` and `bsvm_run.sh --only gpflow` without
cargo: each set is C Gaussian blobs in D dimensions (set name `<name><C>`
picks C from a trailing number, else --classes), 80/20 train/test, z-scored
with the training statistics, Z = P random training rows. Files as described
in gpflow_multiclass.py.
"""

import argparse
import json
import re
from pathlib import Path

import numpy as np


def write_split(folder: Path, name: str, split: int, c: int, a: argparse.Namespace) -> None:
    rng = np.random.default_rng([a.seed, split, c])
    centres = rng.normal(scale=2.0, size=(c, a.d))
    y = rng.integers(0, c, size=a.n)
    x = centres[y] + rng.normal(size=(a.n, a.d))
    n_tr = int(round(0.8 * a.n))
    mean, std = x[:n_tr].mean(0), x[:n_tr].std(0)
    x = (x - mean) / np.where(std == 0, 1.0, std)
    z = x[rng.choice(n_tr, size=min(a.p, n_tr), replace=False)]

    folder.mkdir(parents=True, exist_ok=True)
    np.savetxt(folder / "x_train.csv", x[:n_tr], delimiter=",", fmt="%.17g")
    np.savetxt(folder / "x_test.csv", x[n_tr:], delimiter=",", fmt="%.17g")
    np.savetxt(folder / "y_train.csv", y[:n_tr], fmt="%d")
    np.savetxt(folder / "y_test.csv", y[n_tr:], fmt="%d")
    np.savetxt(folder / "z.csv", z, delimiter=",", fmt="%.17g")
    meta = {"set": name, "split": split, "classes": c, "lengthscale": float(np.sqrt(a.d)),
            "variance": 1.0, "num_inducing": int(z.shape[0]), "epochs": a.epochs,
            "batch": a.batch, "lr": a.lr, "seed": a.seed}
    (folder / "meta.json").write_text(json.dumps(meta) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--sets", default="blobs3")
    p.add_argument("--splits", type=int, default=1, help="number of splits (0..K-1)")
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--classes", type=int, default=3)
    p.add_argument("--p", type=int, default=16)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    for name in filter(None, a.sets.split(",")):
        m = re.search(r"(\d+)$", name)
        c = int(m.group(1)) if m and int(m.group(1)) >= 2 else a.classes
        for k in range(a.splits):
            write_split(a.out / name / f"split{k}", name, k, c, a)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
