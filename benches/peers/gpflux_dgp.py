#!/usr/bin/env python3
"""Deep GP regression on UCI splits with GPflux (doubly stochastic VI) — peer of `dgp_uci`.

The same architecture as burn-gp's approximate-EP deep GP (`experiments/examples/dgp_uci.rs`): L GP layers
D → H → … → 1 with zero mean functions, an ARD squared-exponential kernel per GP function
(hyperparameters per function, as the paper), M inducing inputs per function (k-means centres of
the training inputs in layer 1, evenly spaced on the diagonal of [−1, 1]^H above), first-layer
lengthscales = the median pairwise distance, σ_f² = 1 (standardised y), Gaussian likelihood with
initial noise variance 0.01. GPflux's GP layers have no per-layer noise: a trainable `White`
kernel term (initial variance 0.01, the initial σ_l² of our hidden layers) stands in for it.
Inference is GPflux's doubly stochastic variational inference (Salimbeni & Deisenroth 2017):
whitened q(u) = N(q_mu, q_sqrt q_sqrtᵀ) per function (GPflux's default start q_mu = 0,
q_sqrt = I), one sample through the hidden layers per training point and step.

Training: Adam (lr as given), minibatch 50, ceil(6000·50/N) epochs unless `--epochs`,
`model.as_training_model().fit(...)` (how GPflux is meant to be trained; Keras reshuffles every
epoch). The first epoch (graph tracing) is left out of `epoch_s`.

Prediction: the predictive of y is a mixture over `--samples` forward samples through the hidden
layers (each a Gaussian with GPflux's y_mean, y_var); test log-likelihood = mean over test points of
log (1/S) Σ_s N(y; m_s, v_s), RMSE of the mixture mean, both in original units.

Data as burn-gp's loader and `uci.py`: the split files in $BURN_GP_DATA/uci_regression/<folder>/,
X and y standardised with the training statistics.

Output: one JSON line per split, then one summary line
`{"example":"gpflux_dgp","dataset":…,"splits":…,"test_ll":…,"test_ll_se":…,"rmse":…,"epoch_s":…}`.
"""

import argparse
import json
import math
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import uci  # noqa: E402

FOLDERS = {
    "boston": "bostonHousing",
    "naval": "naval-propulsion-plant",
    "power": "power-plant",
    "protein": "protein-tertiary-structure",
    "wine": "wine-quality-red",
    "red_wine": "wine-quality-red",
}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description="GPflux deep GP (DSVI) on UCI regression splits")
    p.add_argument("--dataset", default="boston")
    p.add_argument("--splits", default="0..1", help="K or A..B (B exclusive)")
    p.add_argument("--layers", type=int, default=2, help="number of GP layers L")
    p.add_argument("--hidden", type=int, default=2, help="width of every hidden layer")
    p.add_argument("--m", type=int, default=100, help="inducing points per GP function")
    p.add_argument("--batch", type=int, default=50)
    p.add_argument("--steps", type=int, default=6000, help="Adam steps when --epochs is 0")
    p.add_argument("--epochs", type=int, default=0)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument("--samples", type=int, default=100, help="forward samples for prediction")
    p.add_argument("--seed", type=int, default=123)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--data", default=None)
    a = p.parse_args()
    a.data = uci.default_data_root() if a.data is None else a.data
    a.folder = FOLDERS.get(a.dataset, a.dataset)
    if ".." in a.splits:
        lo, hi = a.splits.split("..")
        a.split_ids = list(range(int(lo), int(hi)))
    else:
        a.split_ids = [int(a.splits)]
    return a


def median_distance(x: np.ndarray, max_points: int = 1000, seed: int = 0) -> float:
    if x.shape[0] > max_points:
        x = x[np.random.default_rng(seed).choice(x.shape[0], max_points, replace=False)]
    d2 = np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    iu = np.triu_indices(x.shape[0], k=1)
    return float(np.median(np.sqrt(d2[iu])))


def run_split(args, split_id: int, tf, tf_keras, gpflow, gpflux):
    from scipy.cluster.vq import kmeans2

    data = uci.load_split(args.data, args.folder, split_id)
    n, d = data.n, data.d
    epochs = args.epochs or math.ceil(args.steps * args.batch / n)
    np.random.seed(args.seed + split_id)
    tf.random.set_seed(args.seed + split_id)

    widths = [d] + [args.hidden] * (args.layers - 1) + [1]
    layers = []
    for l_idx in range(args.layers):
        din, dout = widths[l_idx], widths[l_idx + 1]
        last = l_idx == args.layers - 1
        if l_idx == 0:
            z, _ = kmeans2(data.x_train, args.m, minit="points", seed=args.seed + split_id)
            ell = median_distance(data.x_train, seed=args.seed + split_id)
        else:
            z = np.tile(np.linspace(-1.0, 1.0, args.m)[:, None], (1, din))
            ell = math.e
        kernels = []
        for _ in range(dout):
            k = gpflow.kernels.SquaredExponential(variance=1.0, lengthscales=np.full(din, ell))
            if not last:
                k = k + gpflow.kernels.White(variance=0.01)
            kernels.append(k)
        kernel = gpflow.kernels.SeparateIndependent(kernels)
        inducing = gpflow.inducing_variables.SeparateIndependentInducingVariables(
            [gpflow.inducing_variables.InducingPoints(z.copy()) for _ in range(dout)]
        )
        layers.append(
            gpflux.layers.GPLayer(
                kernel,
                inducing,
                num_data=n,
                num_latent_gps=dout,
                mean_function=gpflow.mean_functions.Zero(),
                name=f"gp{l_idx}",
            )
        )
    likelihood = gpflux.layers.LikelihoodLayer(gpflow.likelihoods.Gaussian(variance=0.01))
    model = gpflux.models.DeepGP(layers, likelihood)

    training = model.as_training_model()
    training.compile(tf_keras.optimizers.Adam(learning_rate=args.lr))

    times = []

    class Timer(tf_keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            times.append(time.perf_counter() - self.t0)

    t_start = time.perf_counter()
    training.fit(
        {"inputs": data.x_train, "targets": data.y_train},
        epochs=epochs,
        batch_size=args.batch,
        shuffle=True,
        verbose=0,
        callbacks=[Timer()],
    )
    train_s = time.perf_counter() - t_start

    predict = model.as_prediction_model()
    means, variances = [], []
    for _ in range(args.samples):
        out = predict(data.x_test)
        means.append(np.asarray(out.y_mean).reshape(-1))
        variances.append(np.asarray(out.y_var).reshape(-1))
    mu = np.stack(means) * data.y_std + data.y_mean  # [S, T]
    var = np.stack(variances) * data.y_std**2
    y = data.y_test.reshape(-1)
    log_p = -0.5 * np.log(2 * math.pi * var) - 0.5 * (y - mu) ** 2 / var
    mx = log_p.max(axis=0)
    test_ll = float(np.mean(mx + np.log(np.mean(np.exp(log_p - mx), axis=0))))
    rmse = float(np.sqrt(np.mean((y - mu.mean(axis=0)) ** 2)))
    timed = times[1:] if len(times) > 1 else times
    rec = {
        "example": "gpflux_dgp_split",
        "dataset": args.dataset,
        "split": split_id,
        "test_ll": test_ll,
        "rmse": rmse,
        "epoch_s": sum(timed) / len(timed),
        "epochs": epochs,
        "train_s": train_s,
    }
    print(json.dumps(rec), flush=True)
    return rec


def mean_se(v):
    v = np.asarray(v, dtype=np.float64)
    if len(v) < 2:
        return float(v.mean()), None
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v)))


def main() -> None:
    args = parse_args()
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import gpflow
    import gpflux
    import tf_keras

    gpflow.config.set_default_float(np.float64)
    gpflow.config.set_default_jitter(1e-6)
    tf_keras.backend.set_floatx("float64")

    recs = [run_split(args, k, tf, tf_keras, gpflow, gpflux) for k in args.split_ids]
    ll, ll_se = mean_se([r["test_ll"] for r in recs])
    rmse, rmse_se = mean_se([r["rmse"] for r in recs])
    print(
        json.dumps(
            {
                "example": "gpflux_dgp",
                "dataset": args.dataset,
                "layers": args.layers,
                "hidden": args.hidden,
                "m": args.m,
                "splits": len(recs),
                "split_ids": args.split_ids,
                "epochs": recs[0]["epochs"],
                "lr": args.lr,
                "test_ll": ll,
                "test_ll_se": ll_se,
                "test_ll_per_split": [r["test_ll"] for r in recs],
                "rmse": rmse,
                "rmse_se": rmse_se,
                "epoch_s": float(np.mean([r["epoch_s"] for r in recs])),
                "threads": args.threads,
                "gpflux": gpflux.__version__,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
