#!/usr/bin/env python3
"""Multi-class SVGP (RobustMax) with GPflow on data exported by `bsvm_pmlb` — peer of MC-BSVM.

usage: gpflow_multiclass.py --export DIR [--sets a,b,c] [--splits 0,1]
                            [--threads N] [--epochs E] [--batch B] [--lr LR]
                            [--fixed-z] [--optimizer tf_keras|keras3]

`--export DIR` holds one folder per set and split, `DIR/<set>/split<k>/`,
written by `cargo run --release -p burn-gp-experiments --example bsvm_pmlb -- --export DIR`:

    x_train.csv, x_test.csv   comma-separated floats, no header, z-scored with train statistics
    y_train.csv, y_test.csv   one integer label 0..C-1 per line
    z.csv                     initial inducing inputs, P rows x D columns
    meta.json                 {"set", "split", "classes", "lengthscale", "variance",
                               "num_inducing", "epochs", "batch", "lr", "seed"},
                              optionally "train_z", "train_kernel" (booleans, default true)

(`DIR` may also be a single `split<k>` folder.) For every split the model is
GPflow's `SVGP`: SquaredExponential ARD kernel (variance `meta.variance`, every
lengthscale `meta.lengthscale`), `MultiClass(C)` likelihood with its default
RobustMax inverse link (epsilon 1e-3, not trained), C latent GPs sharing the
inducing inputs Z (initialised to z.csv), whitened, q_mu = 0 and q_sqrt = I
initially, float64, ELBO scaled by N/|B|. All trainable parameters (kernel
variance and lengthscales unless meta `train_kernel` is false, Z unless meta
`train_z` is false or --fixed-z is given, q_mu, q_sqrt) are trained jointly
with Adam(lr, beta 0.9/0.999, eps 1e-8) on minibatches of `batch` rows from a
fresh shuffle each epoch (one full batch when N <= batch; the last batch of an
epoch is the remainder).

The step is a `tf.function` traced before the loop (`trace_s`). `train_s` is
the wall time of all epochs; `epoch_s` is the mean of epochs 2..E, because
epoch 1 still carries the graph's one-off instantiation (with E = 1 it is
epoch 1). Accuracy is the argmax of `predict_y`'s mean (class probabilities),
`nll` the mean of -log p(y_test | x_test) under the same probabilities
(= GPflow's `predict_log_density`).

Prints one JSON line per set/split on stdout (keys `peer, model, set, split,
n_train, classes, epochs, batch, train_s, epoch_s, accuracy, nll`, and more);
a split that fails prints a line with an `error` key instead and the script
goes on. Exit status 1 when any split failed or none was found.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

PEER = "gpflow"
MODEL = "svgp_robustmax"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--export", type=Path, required=True,
                   help="export root (DIR/<set>/split<k>/) or one split folder")
    p.add_argument("--sets", default=None, help="comma-separated set names (default: all in DIR)")
    p.add_argument("--splits", default=None,
                   help="comma-separated split numbers (default: all exported)")
    p.add_argument("--threads", type=int, default=None,
                   help="TF intra-op threads and OMP/MKL/OpenBLAS threads "
                        "(default: $OMP_NUM_THREADS, else 2); TF inter-op is 1")
    p.add_argument("--epochs", type=int, default=None, help="override meta.json epochs")
    p.add_argument("--batch", type=int, default=None, help="override meta.json batch")
    p.add_argument("--lr", type=float, default=None, help="override meta.json lr")
    p.add_argument("--fixed-z", action="store_true",
                   help="keep the inducing inputs at z.csv (default: meta train_z, else trained)")
    p.add_argument("--optimizer", choices=("tf_keras", "keras3"), default="tf_keras",
                   help="Adam implementation: tf_keras (Keras 2, as gpflow_svgp.py; default) or "
                        "keras3 (`tf.optimizers.Adam`, Keras 3 under TF >= 2.16)")
    a = p.parse_args(argv)
    if a.threads is None:
        try:
            a.threads = max(1, int(os.environ.get("OMP_NUM_THREADS", "")))
        except ValueError:
            a.threads = 2
    return a


ARGS = parse_args() if __name__ == "__main__" else None

# Thread pools are sized when the libraries load: set them before numpy / TF.
if ARGS is not None:
    for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[_v] = str(ARGS.threads)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")  # CPU only, even where a GPU exists
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import numpy as np  # noqa: E402


# ------------------------------------------------------------------ export

def split_number(path: Path) -> int | None:
    """`split<k>` -> k, anything else -> None."""
    name = path.name
    if name.startswith("split") and name[5:].isdigit():
        return int(name[5:])
    return None


def find_splits(root: Path, sets: list[str] | None, splits: list[int] | None):
    """(set, split, folder) for every split to run: sets in --sets order (else by name), then splits.

    A requested set or split with no folder is returned with folder None, so
    that it is reported as an error rather than silently skipped.
    """
    if (root / "meta.json").is_file():  # a single split folder
        meta = json.loads((root / "meta.json").read_text())
        return [(str(meta.get("set", root.parent.name)),
                 int(meta.get("split", split_number(root) or 0)), root)]
    if not root.is_dir():
        raise FileNotFoundError(f"export folder {root} does not exist")
    names = sets if sets else sorted(d.name for d in root.iterdir() if d.is_dir())
    out = []
    for name in names:
        found = {}
        if (root / name).is_dir():
            for d in (root / name).iterdir():
                k = split_number(d)
                if k is not None and d.is_dir():
                    found[k] = d
        wanted = splits if splits is not None else sorted(found)
        if not wanted:
            out.append((name, None, None))
        for k in wanted:
            out.append((name, k, found.get(k)))
    return out


def load_split(folder: Path) -> dict:
    """Arrays and meta of one exported split, checked for consistent shapes and labels."""
    meta = json.loads((folder / "meta.json").read_text())
    x_tr = np.loadtxt(folder / "x_train.csv", delimiter=",", dtype=np.float64, ndmin=2)
    x_te = np.loadtxt(folder / "x_test.csv", delimiter=",", dtype=np.float64, ndmin=2)
    y_tr = np.loadtxt(folder / "y_train.csv", dtype=np.int64, ndmin=1)
    y_te = np.loadtxt(folder / "y_test.csv", dtype=np.int64, ndmin=1)
    z = np.loadtxt(folder / "z.csv", delimiter=",", dtype=np.float64, ndmin=2)
    c = int(meta["classes"])
    d = x_tr.shape[1]
    if c < 2:
        raise ValueError(f"meta.json: classes = {c}, need at least 2")
    if x_tr.shape[0] != y_tr.shape[0] or x_te.shape[0] != y_te.shape[0]:
        raise ValueError(f"row counts differ: x_train {x_tr.shape[0]} / y_train {y_tr.shape[0]}, "
                         f"x_test {x_te.shape[0]} / y_test {y_te.shape[0]}")
    if x_te.shape[1] != d or z.shape[1] != d:
        raise ValueError(f"column counts differ: x_train {d}, x_test {x_te.shape[1]}, z {z.shape[1]}")
    for name, y in (("y_train", y_tr), ("y_test", y_te)):
        if y.size and (y.min() < 0 or y.max() >= c):
            raise ValueError(f"{name} labels span {y.min()}..{y.max()}, outside 0..{c - 1}")
    if "num_inducing" in meta and int(meta["num_inducing"]) != z.shape[0]:
        raise ValueError(f"meta num_inducing {meta['num_inducing']} but z.csv has {z.shape[0]} rows")
    return {"meta": meta, "x_train": x_tr, "y_train": y_tr, "x_test": x_te, "y_test": y_te,
            "z": z, "classes": c}


def minibatches(n: int, batch: int, epochs: int, seed: int) -> list[list[np.ndarray]]:
    """Per epoch, a fresh permutation cut into ceil(n / batch) minibatches (one if n <= batch).

    Precomputed so that the shuffling stays out of the timed loop.
    """
    rng = np.random.default_rng(seed + 1)
    out = []
    for _ in range(epochs):
        if n <= batch:
            out.append([np.arange(n)])
        else:
            perm = rng.permutation(n)
            out.append([perm[i:i + batch] for i in range(0, n, batch)])
    return out


def finite(x):
    """float(x), or None when not finite (keeps the JSON line strict)."""
    x = float(x)
    return x if math.isfinite(x) else None


# ------------------------------------------------------------------- model

def make_adam(kind: str, lr: float):
    """Adam(lr, beta 0.9/0.999, eps 1e-8).

    Under TF >= 2.16 `tf.optimizers` is Keras 3's. GPflow 2.11 documents the
    Keras-2 optimisers of the `tf_keras` package (`gpflow.keras.tf_keras`),
    which `gpflow_svgp.py` uses too, so that is the default; Keras 3.15's Adam
    also trains GPflow's variables and gives the same iterates.
    """
    import tensorflow as tf

    if kind == "keras3":
        cls = tf.optimizers.Adam
    else:
        from gpflow.keras import tf_keras
        cls = tf_keras.optimizers.Adam
    return cls(learning_rate=lr, beta_1=0.9, beta_2=0.999, epsilon=1e-8)


def run_split(data: dict, set_name: str, split: int, args: argparse.Namespace) -> dict:
    import gpflow
    import tensorflow as tf

    meta = data["meta"]
    epochs = int(args.epochs if args.epochs is not None else meta["epochs"])
    batch = int(args.batch if args.batch is not None else meta["batch"])
    lr = float(args.lr if args.lr is not None else meta["lr"])
    seed = int(meta.get("seed", 0))
    if epochs < 1 or batch < 1:
        raise ValueError(f"epochs ({epochs}) and batch ({batch}) must be positive")
    x_tr, x_te, z = data["x_train"], data["x_test"], data["z"]
    y_tr = data["y_train"].astype(np.float64)[:, None]  # GPflow's MultiClass takes [N, 1] labels
    c = data["classes"]
    n, d = x_tr.shape
    p = z.shape[0]

    tf.random.set_seed(seed)
    kernel = gpflow.kernels.SquaredExponential(
        variance=float(meta.get("variance", 1.0)),
        lengthscales=np.full(d, float(meta["lengthscale"])),
    )
    model = gpflow.models.SVGP(
        kernel=kernel,
        likelihood=gpflow.likelihoods.MultiClass(c),  # invlink RobustMax(c), epsilon 1e-3 fixed
        inducing_variable=gpflow.inducing_variables.InducingPoints(z.copy()),  # shared by all C
        num_latent_gps=c,
        q_diag=False,
        q_mu=np.zeros((p, c)),
        q_sqrt=np.tile(np.eye(p)[None], (c, 1, 1)),
        whiten=True,
        num_data=n,  # ELBO scaled by N/|B|
    )
    train_z = bool(meta.get("train_z", True)) and not args.fixed_z
    train_kernel = bool(meta.get("train_kernel", True))
    gpflow.set_trainable(model.inducing_variable, train_z)
    gpflow.set_trainable(model.kernel, train_kernel)
    variables = model.trainable_variables  # [kernel variance, lengthscales,] [Z,] q_mu, q_sqrt
    opt = make_adam(args.optimizer, lr)

    spec = (tf.TensorSpec([None, d], tf.float64), tf.TensorSpec([None, 1], tf.float64))

    @tf.function(input_signature=spec)
    def train_step(xb, yb):
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(variables)
            loss = model.training_loss((xb, yb))  # -ELBO (scaled)
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    t0 = time.perf_counter()
    train_step.get_concrete_function()  # trace once, no step taken
    trace_s = time.perf_counter() - t0

    schedule = minibatches(n, batch, epochs, seed)
    # Minibatch tensors are sliced in numpy inside the loop, as GPflow users do.
    times, loss = [], float("nan")
    for epoch in range(epochs):
        t0 = time.perf_counter()
        for idx in schedule[epoch]:
            loss = train_step(x_tr[idx], y_tr[idx])
        loss = float(loss)  # waits for the last step
        times.append(time.perf_counter() - t0)
        print(f"[gpflow] {set_name} split{split} epoch {epoch + 1:3d}  -elbo {loss:12.4f}  "
              f"{times[-1]:.3f}s", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    probs = np.concatenate([
        model.predict_y(x_te[i:i + 4096])[0].numpy() for i in range(0, x_te.shape[0], 4096)
    ]) if x_te.shape[0] else np.zeros((0, c))
    predict_s = time.perf_counter() - t0
    y_te = data["y_test"]
    accuracy = float(np.mean(np.argmax(probs, axis=1) == y_te)) if y_te.size else float("nan")
    p_true = probs[np.arange(y_te.size), y_te]
    nll = float(-np.mean(np.log(np.maximum(p_true, 1e-300)))) if y_te.size else float("nan")

    timed = times[1:] if len(times) > 1 else times
    return {
        "peer": PEER,
        "model": MODEL,
        "set": set_name,
        "split": split,
        "n_train": n,
        "n_test": int(y_te.size),
        "dim": d,
        "classes": c,
        "num_inducing": p,
        "epochs": epochs,
        "batch": batch,
        "lr": lr,
        "steps_per_epoch": len(schedule[0]),
        "train_s": finite(sum(times)),
        "epoch_s": finite(sum(timed) / len(timed)),
        "accuracy": finite(accuracy),
        "nll": finite(nll),
        "final_loss": finite(loss),
        "trace_s": round(trace_s, 6),
        "predict_s": round(predict_s, 6),
        "epoch_times_s": [round(t, 6) for t in times],
        "threads": args.threads,
        "optimizer": args.optimizer,
        "train_z": train_z,
        "train_kernel": train_kernel,
        "trainable_tensors": len(variables),
        "timing": "epoch_s: mean wall time of epochs 2..E of the tf.function training loop "
                  "(traced beforehand; epoch 1 carries graph instantiation); train_s: all epochs",
    }


def versions() -> dict:
    import gpflow
    import tensorflow as tf
    import tensorflow_probability as tfp

    return {"gpflow": gpflow.__version__, "tensorflow": tf.__version__,
            "tensorflow_probability": tfp.__version__, "numpy": np.__version__}


def main(args: argparse.Namespace) -> int:
    import gpflow
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    gpflow.config.set_default_float(np.float64)
    gpflow.config.set_default_jitter(1e-6)
    vers = versions()

    sets = [s for s in args.sets.split(",") if s] if args.sets else None
    splits = [int(k) for k in args.splits.split(",") if k] if args.splits else None
    try:
        todo = find_splits(args.export, sets, splits)
    except (OSError, ValueError) as e:
        print(json.dumps({"peer": PEER, "model": MODEL, "error": f"{type(e).__name__}: {e}"}))
        return 1
    if not todo:
        print(json.dumps({"peer": PEER, "model": MODEL, "error": f"no split folders under {args.export}"}))
        return 1

    failed = 0
    for set_name, split, folder in todo:
        try:
            if folder is None:
                what = f"split{split}" if split is not None else "split<k> folder"
                raise FileNotFoundError(f"no {what} under {args.export / set_name}")
            rec = run_split(load_split(folder), set_name, split, args)
            rec["versions"] = vers
        except Exception as e:  # noqa: BLE001 -- one bad set must not stop the others
            failed += 1
            traceback.print_exc(file=sys.stderr)
            rec = {"peer": PEER, "model": MODEL, "set": set_name, "split": split,
                   "error": f"{type(e).__name__}: {e}".strip()[:2000]}
        print(json.dumps(rec), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(ARGS))
