"""GPy's sparse EP GP classifier on the UCI splits of burn-gp's `ep_uci` example.

Outside peer for `experiments/examples/ep_uci.rs` (SEP / GFITC / SVI): the same PMLB data, the same
90/10 splits (read from the `<dataset>_<k>.json` files that `ep_uci --splits-out DIR` writes),
the same preprocessing, initialisation, iteration budget and metrics, with GPy doing the
inference and the optimisation.

    ep_uci --datasets pima --inducing 0.15 --splits 2 --modes sep --splits-out DIR --json
    .venv-gpy/bin/python benches/peers/gpy_ep.py --splits-dir DIR --datasets pima --inducing 0.15

(`benches/peers/ep_run.sh` does both and prints a table.)

Protocol per split (as in `ep_uci`):
  * data: `<data>/pmlb/<folder>/<folder>.tsv.gz` (header row, label column `target`, two values;
    the smaller -> -1, the larger -> +1; GPy's Bernoulli wants 0/1, so y01 = (y + 1) / 2);
  * features standardised with the training rows' mean and population sd (sd := 1 for constant
    columns);
  * m = round(fraction * n_train) inducing inputs, a random subset of the training inputs
    (numpy RandomState(seed + k); ours draws with its own Rust RNG, so the subsets differ);
  * kernel RBF(ARD, variance 1, every lengthscale = median pairwise Euclidean distance between the
    initial inducing inputs (upper median, like burn-gp's `median_distance`)) + White(1e-3);
    every kernel hyperparameter, the white variance included, and the inducing inputs Z are
    optimised (ours learns its sigma0^2 = 1e-3 too);
  * probit likelihood (GPy.likelihoods.Bernoulli, probit link);
  * `--iterations` (250) optimiser iterations in total;
  * metrics on the test rows: NLL = -mean log p(y|x) with p(y|x) = Phi(y mu / sqrt(1 + var))
    (natural log; mu, var from the latent predictive, white variance included), error rate
    (p of the true label < 0.5), training seconds (wall clock from building the model, which
    already runs EP once, to the end of the optimisation; prediction excluded).

GPy's sparse EP and how it differs from ours:
  * GPy (tested with GPy 1.15.0, numpy 2.4, scipy 1.17; Python 3.11) offers sparse EP for
    classification only as `GPy.models.SparseGPClassification`, a `GPy.core.SparseGP` whose
    default inference method is `GPy.inference.latent_function_inference.EPDTC`: sequential
    (not stochastic) EP with one Gaussian site per data point under the DTC (projected-process)
    prior q(f) ~ Q_nn = K_nm K_mm^-1 K_mn, sites swept in random order until the mean squared
    change of the site parameters < 1e-6 (epsilon), undamped (delta = 1), eta = 1.  The
    hyperparameter objective is the VarDTC (Titsias-style, with the trace term) log marginal
    likelihood of the Gaussian pseudo-observations mu_tilde with precisions tau_tilde plus
    log Z_tilde.  It keeps N site pairs (memory O(N + m^2)); SEP ties all N sites into one
    (memory O(m^2)); GFITC uses the FITC prior, not DTC.
  * EP and hyperparameters: GPy's default `ep_mode="alternated"` runs EP to convergence at the
    start of each `optimize()` call (warm-started from the previous sites) and then keeps the
    sites fixed while the optimiser moves the hyperparameters.  We therefore split the budget
    into `--rounds` (default 5, as in GPy's classification tutorial) calls of
    `optimize(max_iters=iterations / rounds)`.  `--ep-mode nested` instead reruns EP to
    convergence at every objective evaluation (one `optimize(max_iters=iterations)` call; much
    slower).  burn-gp's SEP interleaves one damped parallel EP pass with each hyperparameter step instead.
  * optimiser: GPy/paramz default, scipy's L-BFGS-B (`fmin_l_bfgs_b(maxiter=max_iters,
    maxfun=max_iters)`, so max_iters also caps objective evaluations), on GPy's log-transformed
    positive parameters; ours uses the authors' sign-adaptive step rule (SEP, GFITC-style) or
    Adam with a fixed learning rate (SVI).  L-BFGS-B stops early when it
    converges, so "250 iterations" is an upper bound here.
  * GPy is pure numpy/scipy with Python loops over the EP sites; times are single-threaded when
    `--threads 1` (BLAS thread variables are set before numpy is imported).

Output: one JSON line per dataset x fraction, the key set of `ep_uci --results FILE`:
  {"example":"gpy_ep","dataset":..,"inducing":..,"m":..,"mode":"gpy_ep","nll":..,"nll_sd":..,
   "error":..,"error_sd":..,"train_s":..,"splits":..,"splits_total":..,"paper_nll":null, ...}
nll_sd / error_sd are sample sds (ddof 1; 0 for one split), train_s the mean over splits; `m` is
that of the first split (as in ours).  A split that fails is reported on stderr and skipped;
"splits" counts the successful ones, "splits_total" those found; the exit status is 1 when any
split (or data set) failed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

# burn-gp dataset name -> PMLB folder (experiments/examples/ep_uci.rs)
PMLB_FOLDER = {
    "australian": "australian",
    "breast": "breast_w",
    "crabs": "prnn_crabs",
    "heart": "heart_statlog",
    "ionosphere": "ionosphere",
    "pima": "pima",
    "sonar": "sonar",
}


def default_data_root() -> Path:
    env = os.environ.get("BURN_GP_DATA")
    if env:
        return Path(env)
    shared = Path("/work/shared/data")
    if shared.is_dir():
        return shared
    return (REPO_ROOT / ".." / "shared" / "data").resolve()


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--splits-dir", type=Path, required=True,
                   help="folder with the <dataset>_<k>.json split files of `ep_uci --splits-out`")
    p.add_argument("--data", type=Path, default=None,
                   help="data root holding pmlb/<folder>/ (default: $BURN_GP_DATA or /work/shared/data)")
    p.add_argument("--datasets", default="pima", help="comma-separated (burn-gp names or PMLB folders)")
    p.add_argument("--inducing", default="0.15", help="comma-separated fractions of the training rows")
    p.add_argument("--iterations", type=int, default=250, help="optimiser iterations in total")
    p.add_argument("--rounds", type=int, default=5,
                   help="alternated mode: EP + optimize(max_iters=iterations/rounds), this many times")
    p.add_argument("--ep-mode", choices=["alternated", "nested"], default="alternated")
    p.add_argument("--max-splits", type=int, default=0, help="use at most this many split files (0 = all)")
    p.add_argument("--seed", type=int, default=0, help="split k uses seed + k (inducing subset, EP order)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--verbose", action="store_true", help="per-split lines on stderr")
    a = p.parse_args()
    if a.data is None:
        a.data = default_data_root()
    if a.iterations < 1 or a.rounds < 1:
        p.error("--iterations and --rounds must be at least 1")
    return a


def split_files(splits_dir: Path, folder: str) -> list[tuple[int, Path]]:
    out = []
    for path in splits_dir.glob(f"{folder}_*.json"):
        tail = path.stem[len(folder) + 1:]
        if tail.isdigit():
            out.append((int(tail), path))
    return sorted(out)


def load_table(root: Path, folder: str):
    import numpy as np

    for sub in ("pmlb", "pmlb_multiclass", "pmlb_regression"):
        for name in (f"{folder}.tsv.gz", f"{folder}.tsv"):
            path = root / sub / folder / name
            if path.is_file():
                opener = gzip.open if name.endswith(".gz") else open
                with opener(path, "rt") as fh:
                    header = fh.readline().rstrip("\n").split("\t")
                    data = np.loadtxt(fh, delimiter="\t", dtype=np.float64, ndmin=2)
                t = header.index("target")
                x = np.delete(data, t, axis=1)
                y_raw = data[:, t]
                values = np.unique(y_raw)
                if values.size != 2:
                    raise ValueError(f"{folder}: {values.size} target values; EP classification is binary")
                y = np.where(y_raw == values[1], 1.0, -1.0)
                return x, y
    raise FileNotFoundError(f"no pmlb/{folder}/{folder}.tsv(.gz) under {root}")


def standardise(x_tr, x_te):
    import numpy as np

    mean = x_tr.mean(axis=0)
    sd = x_tr.std(axis=0)  # population sd, like burn-gp's Standardiser
    sd = np.where(sd <= 10 * np.finfo(float).eps * np.maximum(np.abs(mean), 1.0), 1.0, sd)
    return (x_tr - mean) / sd, (x_te - mean) / sd


def median_distance(z) -> float:
    import numpy as np
    from scipy.spatial.distance import pdist

    d = np.sort(pdist(z))
    med = float(d[d.size // 2])
    return med if med > 0 else 1.0


def run_split(args, x, y, spec: dict, frac: float, seed: int) -> dict:
    import numpy as np
    import GPy
    from GPy.inference.latent_function_inference import EPDTC
    from scipy.special import log_ndtr

    tr = np.asarray(spec["train"], dtype=np.int64)
    te = np.asarray(spec["test"], dtype=np.int64)
    x_tr, x_te = standardise(x[tr], x[te])
    y_tr, y_te = y[tr], y[te]
    n, d = x_tr.shape
    m = max(int(round(frac * n)), 1)
    rng = np.random.RandomState(seed)
    z = x_tr[rng.choice(n, size=m, replace=False)].copy()
    ell = median_distance(z) if m >= 2 else 1.0
    np.random.seed(seed)  # EP's site order uses the global numpy RNG

    t0 = time.perf_counter()
    kernel = GPy.kern.RBF(d, variance=1.0, lengthscale=np.full(d, ell), ARD=True) + GPy.kern.White(d, variance=1e-3)
    model = GPy.models.SparseGPClassification(
        x_tr, ((y_tr + 1.0) / 2.0)[:, None], kernel=kernel, Z=z,
        likelihood=GPy.likelihoods.Bernoulli(),  # probit link by default
        inference_method=EPDTC(ep_mode=args.ep_mode),
    )
    if args.ep_mode == "nested":
        model.optimize(max_iters=args.iterations)
    else:
        base, extra = divmod(args.iterations, args.rounds)
        for r in range(args.rounds):
            iters = base + (1 if r < extra else 0)
            if iters > 0:
                model.optimize(max_iters=iters)
    train_s = time.perf_counter() - t0
    fevals = sum(int(getattr(o, "funct_eval", 0) or 0) for o in model.optimization_runs)

    mu, var = model._raw_predict(x_te)
    mu, var = mu.reshape(-1), var.reshape(-1)
    logp = log_ndtr(y_te * mu / np.sqrt(1.0 + var))
    if not np.all(np.isfinite(logp)):
        raise FloatingPointError("non-finite test log density")
    return {
        "m": m,
        "nll": float(-logp.mean()),
        "error": float(np.mean(logp < math.log(0.5))),
        "train_s": train_s,
        "objective": float(-model.log_likelihood()),
        "fevals": fevals,
    }


def mean_sd(v):
    n = len(v)
    mean = sum(v) / n
    var = sum((a - mean) ** 2 for a in v) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var)


def main() -> int:
    args = parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import warnings

    import numpy as np
    import GPy
    import scipy

    warnings.filterwarnings("ignore", category=RuntimeWarning)
    datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    fractions = [float(s) for s in args.inducing.split(",") if s.strip()]
    status = 0
    print(f"GPy {GPy.__version__}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"ep_mode {args.ep_mode}, rounds {args.rounds}", file=sys.stderr)
    for name in datasets:
        folder = PMLB_FOLDER.get(name, name)
        # ep_uci names the split files after its dataset name (`heart_3.json`), older runs after
        # the PMLB folder (`heart_statlog_3.json`)
        files = split_files(args.splits_dir, name) or split_files(args.splits_dir, folder)
        if args.max_splits > 0:
            files = files[: args.max_splits]
        if not files:
            print(f"{name}: no {name}_<k>.json or {folder}_<k>.json in {args.splits_dir}", file=sys.stderr)
            status = 1
            continue
        try:
            x, y = load_table(args.data, folder)
        except Exception as e:  # noqa: BLE001
            print(f"{name}: {e}", file=sys.stderr)
            status = 1
            continue
        for frac in fractions:
            results, m0 = [], None
            for k, path in files:
                try:
                    spec = json.loads(path.read_text())
                    if m0 is None:
                        m0 = max(int(round(frac * len(spec["train"]))), 1)
                    r = run_split(args, x, y, spec, frac, args.seed + k)
                except Exception as e:  # noqa: BLE001
                    print(f"{name} frac {frac} split {k}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
                    continue
                results.append(r)
                if args.verbose:
                    print(f"{name} m={r['m']} gpy_ep split {k}: NLL {r['nll']:.4f}, error {r['error']:.4f}, "
                          f"{r['train_s']:.2f} s, -logZ_EP {r['objective']:.3f}, {r['fevals']} L-BFGS-B evaluations", file=sys.stderr)
            print(f"{name} frac {frac}: {len(results)}/{len(files)} splits succeeded", file=sys.stderr)
            if len(results) < len(files):
                status = 1
            if not results:
                status = 1
                continue
            nll, nll_sd = mean_sd([r["nll"] for r in results])
            err, err_sd = mean_sd([r["error"] for r in results])
            train_s, _ = mean_sd([r["train_s"] for r in results])
            print(json.dumps({
                "example": "gpy_ep", "dataset": name, "inducing": frac, "m": m0, "mode": "gpy_ep",
                "nll": nll, "nll_sd": nll_sd, "error": err, "error_sd": err_sd, "train_s": train_s,
                "splits": len(results), "splits_total": len(files), "paper_nll": None,
                "iterations": args.iterations, "ep_mode": args.ep_mode,
                "rounds": args.rounds if args.ep_mode == "alternated" else 1,
                "gpy": GPy.__version__,
            }), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
