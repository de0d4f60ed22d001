#!/usr/bin/env python3
"""Simple baselines on the splits of `bsvm_pmlb --export`: is a set learnable beyond its majority class?

Reads the layout that `bsvm_pmlb --export DIR` writes (`DIR/<set>/split<k>/{x_train,x_test,
y_train,y_test}.csv` with z-scored features, and `meta.json` with the initial lengthscale), and for
each set and split prints one JSON line with the test accuracy of:

  * `majority`: the training part's most frequent class;
  * `svc_same_kernel`: scikit-learn's SVC (C = 1) with the RBF kernel that the Bayesian SVMs and
    the SVGP start from, exp(-|x - x'|^2 / (2 l^2)) with l = meta.json's median-heuristic
    lengthscale (gamma = 1 / (2 l^2));
  * `svc_default`: SVC with scikit-learn's defaults (C = 1, gamma = 'scale');
  * `logistic`: multinomial logistic regression (L2, C = 1).

    bsvm_pmlb --sets allbp,allhypo --splits 5 --epochs 1 --methods mc_bsvm --export /tmp/exp
    python3 benches/peers/sklearn_pmlb_baselines.py /tmp/exp > baselines.jsonl

Requirements: numpy and scikit-learn (tested with scikit-learn 1.9.1; `pip install scikit-learn`).
"""

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC


def read(path):
    return np.loadtxt(path, delimiter=",", ndmin=2)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    for meta_path in sorted(root.glob("*/split*/meta.json")):
        folder = meta_path.parent
        meta = json.loads(meta_path.read_text())
        x_train, x_test = read(folder / "x_train.csv"), read(folder / "x_test.csv")
        y_train = read(folder / "y_train.csv")[:, 0].astype(int)
        y_test = read(folder / "y_test.csv")[:, 0].astype(int)
        classes, counts = np.unique(y_train, return_counts=True)
        gamma = 1.0 / (2.0 * meta["lengthscale"] ** 2)
        models = {
            "svc_same_kernel": SVC(C=1.0, kernel="rbf", gamma=gamma),
            "svc_default": SVC(),
            "logistic": LogisticRegression(max_iter=5000),
        }
        line = {
            "set": meta["set"],
            "split": meta["split"],
            "n_train": len(y_train),
            "majority": float(np.mean(y_test == classes[counts.argmax()])),
        }
        for name, model in models.items():
            line[name] = float(model.fit(x_train, y_train).score(x_test, y_test))
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
