"""GPy's GP classifiers (EP and Laplace) on the PMLB folds of burn-gp's `skewgp_pmlb` example.

Outside peer for `experiments/examples/skewgp_pmlb.rs` (paper 000, Benavoli, Azzimonti & Piga 2020, §7.1:
"GP-L (Laplace) and GP-EP from GPy"): the same rows, the same 5-fold cross-validation folds (read
from the JSON-lines file that `skewgp_pmlb --folds-out FILE` writes), the same preprocessing and
the same initial kernel, with GPy doing the inference and the hyperparameter optimisation.

    skewgp_pmlb --sets hepatitis,sonar --max-train 240 --methods none --folds-out /tmp/folds.jsonl
    OMP_NUM_THREADS=1 .venv-ep/bin/python benches/peers/gpy_pmlb.py \
        --folds /tmp/folds.jsonl --out /tmp/gpy_pmlb.jsonl          # [--sets a,b] [--methods ep,laplace]

Requirements: GPy (tested with GPy 1.15.0, paramz 0.10.0, numpy 2.4.6, scipy 1.17.1, Python 3.11;
the same stack as `gpy_ep.py`, no extra pin file).

Protocol per fold (as in `skewgp_pmlb`):
  * data: `<data>/<folder>/<set>/<set>.tsv.gz` for folder in pmlb, pmlb_multiclass,
    pmlb_regression (first found; `<data>` = $BURN_GP_DATA, default /work/shared/data), a
    tab-separated table with a header row; the column named `target` is the label, every other
    column a feature (`burn_gp::data::load_pmlb_classification`).  The distinct target values,
    sorted, become classes 0..K; only the rows of class 0 or 1 are kept, in file order, and the
    fold's `train` / `test` indices select from those rows;
  * features standardised with the training rows' mean and population sd (ddof 0; sd := 1 for a
    constant column, i.e. sd <= 10 eps max(|mean|, 1), as `burn_gp::data::Standardiser`);
  * kernel `GPy.kern.RBF(d, ARD=True)` with variance 1 and every lengthscale = the upper median
    of the pairwise Euclidean distances of the standardised training inputs (all of them;
    1 if that median is 0), as `burn_gp::kernels::median_distance`;
  * `GPy.models.GPClassification` (Bernoulli likelihood, probit link) with inference
    `GPy.inference.latent_function_inference.EP()` or `Laplace()`;
  * hyperparameters (variance and lengthscales) maximise each method's approximate log marginal
    likelihood with GPy/paramz's default optimiser, scipy's L-BFGS-B (`m.optimize('lbfgsb',
    max_iters=--max-iters)`, which caps both iterations and objective evaluations), on GPy's
    log-transformed positive parameters.  EP runs with `ep_mode="nested"` by default: the sites
    are re-converged (warm-started from the previous sites) at every objective evaluation, so the
    optimiser sees the EP marginal likelihood of the current hyperparameters and its gradient
    (exact at an EP fixed point).  `--ep-mode alternated` is GPy's default mode instead: EP once at
    the start of each `optimize()` call, sites then fixed; `--rounds R` calls `optimize` R times
    with max_iters / R each (GPy's tutorial uses 5 rounds).  Laplace re-finds the mode at every
    evaluation (warm-started), GPy's only mode;
  * if the optimisation raises or ends with a non-finite objective or parameters (or non-finite
    predictions), or runs past `--fold-timeout` seconds (0 = no limit; GPy's nested EP can run for
    tens of minutes on one fold), the failure is counted and the fold falls back to the
    unoptimised model;
  * prediction `p(y=1|x) = m.predict(Xtest)[0]` (the Bernoulli predictive mean, probit link
    included: Phi(mu / sqrt(1 + var)));
  * scores on the test rows: information in bits `1 + y log2 p + (1 - y) log2(1 - p)` with p
    clipped to [1e-12, 1 - 1e-12] (mean over rows), accuracy (p > 0.5 predicts class 1), wall
    seconds from building the model (which already runs EP / Laplace once) through the
    optimisation and the prediction (the median heuristic and standardisation excluded).
  * EP's random site order uses numpy's global RNG, seeded with `--seed` + fold before each model.

Output (JSON lines, printed and written to `--out`): per set, fold means,
  {"set","folds","info_gpy_ep","acc_gpy_ep","time_gpy_ep_s","info_gpy_laplace",
   "acc_gpy_laplace","time_gpy_laplace_s","failures_ep","failures_laplace"}
(a method not run reports null; the set's row and feature counts go to stderr); then the summary (means over the sets)
  {"peer":"gpy_pmlb","sets":..,"info_gpy_ep":..,"info_gpy_laplace":..,"acc_gpy_ep":..,"acc_gpy_laplace":..}.
Progress goes to stderr.
"""

import argparse
import gzip
import json
import math
import os
import signal
import sys
import time
import warnings

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

PMLB_FOLDERS = ("pmlb", "pmlb_multiclass", "pmlb_regression")
CONSTANT_TOL = 10.0 * np.finfo(float).eps
METHODS = ("ep", "laplace")


def data_root():
    """The data root: $BURN_GP_DATA, else /work/shared/data."""
    return os.environ.get("BURN_GP_DATA") or "/work/shared/data"


def pmlb_path(root, name):
    """First of <root>/<folder>/<name>/<name>.tsv.gz (or .tsv) over PMLB_FOLDERS."""
    for folder in PMLB_FOLDERS:
        stem = os.path.join(root, folder, name, name + ".tsv")
        for path in (stem + ".gz", stem):
            if os.path.isfile(path):
                return path
    raise FileNotFoundError(f"PMLB set {name!r} not found under {root}/{{{','.join(PMLB_FOLDERS)}}}")


def load_binary(root, name):
    """Rows of class 0 or 1 (classes = sorted distinct target values), in file order: X, y (0/1)."""
    path = pmlb_path(root, name)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [line.rstrip("\r\n") for line in f]
    header = lines[0].split("\t")
    if header.count("target") != 1:
        raise ValueError(f"{path}: header needs exactly one 'target' column")
    rows = [[float(v) for v in line.split("\t")] for line in lines[1:] if line.strip()]
    data = np.array(rows, dtype=float)
    if data.shape[1] != len(header) or not np.all(np.isfinite(data)):
        raise ValueError(f"{path}: ragged or non-finite table")
    t = header.index("target")
    target = data[:, t] + 0.0
    if np.any(np.mod(target, 1.0) != 0.0):
        raise ValueError(f"{path}: non-integer target (a regression set?)")
    x = np.delete(data, t, axis=1)
    values = np.unique(target)  # sorted
    labels = np.searchsorted(values, target)
    keep = labels <= 1
    return x[keep], labels[keep].astype(float)


def standardise(x_train, x_test):
    """Training mean / population sd (sd := 1 for constant columns), applied to both parts."""
    mean = x_train.mean(axis=0)
    sd = np.sqrt(np.mean((x_train - mean) ** 2, axis=0))
    sd = np.where(sd <= CONSTANT_TOL * np.maximum(np.abs(mean), 1.0), 1.0, sd)
    return (x_train - mean) / sd, (x_test - mean) / sd


def median_distance(x):
    """Upper median of the pairwise Euclidean distances between the rows of x (1 if it is 0)."""
    diff = x[:, None, :] - x[None, :, :]
    dist = np.sqrt(np.sum(diff * diff, axis=-1))
    iu = np.triu_indices(x.shape[0], k=1)
    dists = np.sort(dist[iu])
    med = dists[len(dists) // 2]
    return float(med) if med > 0 else 1.0


def information_bits(p, y):
    """Mean of 1 + y log2 p + (1 - y) log2(1 - p), p clipped to [1e-12, 1 - 1e-12]."""
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return float(np.mean(1.0 + y * np.log2(p) + (1.0 - y) * np.log2(1.0 - p)))


def build_model(GPy, method, x, y, ell, ep_mode):
    """GPClassification with RBF-ARD(variance 1, lengthscales ell) and EP or Laplace inference."""
    d = x.shape[1]
    kernel = GPy.kern.RBF(d, variance=1.0, lengthscale=np.full(d, ell), ARD=True)
    lfi = GPy.inference.latent_function_inference
    inference = lfi.EP(ep_mode=ep_mode) if method == "ep" else lfi.Laplace()
    return GPy.models.GPClassification(x, y[:, None], kernel=kernel, inference_method=inference)


def healthy(m):
    """Finite objective and parameters."""
    return bool(np.isfinite(m.log_likelihood()) and np.all(np.isfinite(m.optimizer_array)))


def fold_timed_out(signum, frame):
    """SIGALRM handler of `--fold-timeout`: the fold's fit counts as a failure."""
    raise TimeoutError("fold ran past --fold-timeout")


def run_fold(GPy, args, method, x_tr, y_tr, x_te, seed):
    """Fits one method on one fold; returns (p_test, seconds, failed, message)."""
    ell = median_distance(x_tr)
    t0 = time.perf_counter()
    np.random.seed(seed)
    failed, message = False, ""
    if args.fold_timeout > 0:
        signal.signal(signal.SIGALRM, fold_timed_out)
        signal.alarm(args.fold_timeout)
    try:
        m = build_model(GPy, method, x_tr, y_tr, ell, args.ep_mode)
        rounds = args.rounds if (method == "ep" and args.ep_mode == "alternated") else 1
        per_round = max(1, args.max_iters // rounds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(rounds):
                m.optimize("lbfgsb", max_iters=per_round, messages=False)
        if not healthy(m):
            raise FloatingPointError("non-finite objective or parameters after optimisation")
        p = np.asarray(m.predict(x_te)[0]).ravel()
        if not np.all(np.isfinite(p)):
            raise FloatingPointError("non-finite predictions")
        signal.alarm(0)
    except Exception as exc:  # noqa: BLE001 -- any failure falls back to the initial model
        signal.alarm(0)
        failed, message = True, f"{type(exc).__name__}: {exc}"
        np.random.seed(seed)
        m = build_model(GPy, method, x_tr, y_tr, ell, args.ep_mode)
        p = np.asarray(m.predict(x_te)[0]).ravel()
    return p, time.perf_counter() - t0, failed, message


def mean_or_none(values):
    return float(np.mean(values)) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folds", required=True, help="JSON-lines folds file from skewgp_pmlb --folds-out")
    ap.add_argument("--sets", default="", help="comma-separated sets (default: all in the folds file)")
    ap.add_argument("--methods", default="ep,laplace", help="comma-separated subset of ep,laplace")
    ap.add_argument("--max-iters", type=int, default=1000, help="L-BFGS-B max_iters (paramz default 1000)")
    ap.add_argument("--ep-mode", choices=("nested", "alternated"), default="nested")
    ap.add_argument("--rounds", type=int, default=5, help="optimize() calls with --ep-mode alternated")
    ap.add_argument("--max-folds", type=int, default=0, help="run only the first K folds per set (0 = all)")
    ap.add_argument("--fold-timeout", type=int, default=0, help="seconds per fold and method before it counts as a failure (0 = none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="", help="JSON-lines output file (also printed)")
    args = ap.parse_args()

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        ap.error(f"--methods must be a subset of {','.join(METHODS)}, got {args.methods!r}")

    import GPy  # noqa: E402 -- after the thread variables

    folds = {}
    order = []
    with open(args.folds) as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                if rec["set"] not in folds:
                    folds[rec["set"]] = []
                    order.append(rec["set"])
                folds[rec["set"]].append(rec)
    sets = [s.strip().replace("-", "_") for s in args.sets.split(",") if s.strip()] or order
    missing = [s for s in sets if s not in folds]
    if missing:
        ap.error(f"sets not in {args.folds}: {missing}")

    root = data_root()
    out = open(args.out, "w") if args.out else None

    def emit(obj):
        line = json.dumps(obj)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    per_set = []
    for name in sets:
        x, y = load_binary(root, name)
        recs = sorted(folds[name], key=lambda r: r["fold"])
        if args.max_folds > 0:
            recs = recs[: args.max_folds]
        print(f"{name}: {len(y)} class-0/1 rows, {x.shape[1]} features", file=sys.stderr, flush=True)
        scores = {m: {"info": [], "acc": [], "time": [], "fail": 0} for m in methods}
        for rec in recs:
            tr, te = np.asarray(rec["train"]), np.asarray(rec["test"])
            if max(tr.max(), te.max()) >= len(y):
                raise ValueError(f"{name} fold {rec['fold']}: index beyond the {len(y)} class-0/1 rows")
            x_tr, x_te = standardise(x[tr], x[te])
            for method in methods:
                p, secs, failed, msg = run_fold(GPy, args, method, x_tr, y[tr], x_te, args.seed + rec["fold"])
                s = scores[method]
                s["info"].append(information_bits(p, y[te]))
                s["acc"].append(float(np.mean((p > 0.5) == (y[te] == 1.0))))
                s["time"].append(secs)
                s["fail"] += int(failed)
                print(
                    f"{name} fold {rec['fold']} {method}: info {s['info'][-1]:.4f} acc {s['acc'][-1]:.4f} "
                    f"{secs:.1f}s" + (f" FAILED ({msg}); unoptimised model used" if failed else ""),
                    file=sys.stderr,
                    flush=True,
                )
        row = {"set": name, "folds": len(recs)}
        for method in METHODS:
            s = scores.get(method)
            row[f"info_gpy_{method}"] = mean_or_none(s["info"]) if s else None
            row[f"acc_gpy_{method}"] = mean_or_none(s["acc"]) if s else None
            row[f"time_gpy_{method}_s"] = mean_or_none(s["time"]) if s else None
        for method in METHODS:
            row[f"failures_{method}"] = scores[method]["fail"] if method in scores else None
        emit(row)
        per_set.append(row)

    summary = {"peer": "gpy_pmlb", "sets": len(per_set)}
    for key in ("info_gpy_ep", "info_gpy_laplace", "acc_gpy_ep", "acc_gpy_laplace"):
        vals = [r[key] for r in per_set if r[key] is not None]
        summary[key] = mean_or_none(vals)
    emit(summary)
    if out:
        out.close()


if __name__ == "__main__":
    main()
