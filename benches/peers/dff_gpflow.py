#!/usr/bin/env python3
"""GPflow SVGP on a UCI split with the ODVFF paper's benchmark settings — the speed peer of
`odvgp_regression --method svgp` (benches/peers/dff_run.sh).

Additive Matérn-3/2 prior (one gpflow.kernels.Matern32 per input column, variance 1/D,
lengthscale 1), Gaussian likelihood (variance 0.1), whitened SVGP with a full-covariance q(u)
and M trainable inducing inputs (a random subset of the standardised training inputs), all
parameters trained jointly by Adam on minibatches, float64, CPU. GPflow 2 has no orthogonally
decoupled model (the ODVGP reference code was written for GPflow 1), so SVGP is the only GPflow
row.

Timing: the training step is a `tf.function`, traced before the timed loop; `--warmup` steps
run untimed, then `--iterations` steps are timed (seconds per 1000 iterations). The test
metrics are in standardised target units (the paper's). The final stdout line is one JSON
object.
"""

import argparse
import json
import math
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import uci  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="protein-tertiary-structure")
    p.add_argument("--split", type=int, default=0)
    p.add_argument("--m", type=int, default=400, help="inducing points (|γ| + |β| of the paper)")
    p.add_argument("--batch", type=int, default=400)
    p.add_argument("--iterations", type=int, default=1000, help="timed Adam steps")
    p.add_argument("--warmup", type=int, default=20, help="untimed Adam steps first")
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--data", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()

    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import gpflow

    gpflow.config.set_default_float(np.float64)
    gpflow.config.set_default_jitter(1e-6)
    tf.random.set_seed(args.seed)

    root = args.data or uci.default_data_root()
    data = uci.load_split(root, args.dataset, args.split)
    n, d = data.n, data.d
    kernel = gpflow.kernels.Sum(
        [gpflow.kernels.Matern32(variance=1.0 / d, lengthscales=1.0, active_dims=[i]) for i in range(d)]
    )
    model = gpflow.models.SVGP(
        kernel=kernel,
        likelihood=gpflow.likelihoods.Gaussian(variance=0.1),
        inducing_variable=gpflow.inducing_variables.InducingPoints(uci.inducing_init(data.x_train, args.m, args.seed)),
        num_latent_gps=1,
        q_diag=False,
        whiten=True,
        num_data=n,
    )
    variables = model.trainable_variables
    try:
        from gpflow.keras import tf_keras
        adam = tf_keras.optimizers.Adam
    except ImportError:
        adam = tf.optimizers.Adam
    opt = adam(learning_rate=args.lr)
    spec = (tf.TensorSpec([None, d], tf.float64), tf.TensorSpec([None, 1], tf.float64))

    @tf.function(input_signature=spec)
    def train_step(xb, yb):
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(variables)
            loss = model.training_loss((xb, yb))
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    train_step.get_concrete_function()
    rng = np.random.default_rng(args.seed + 1)
    total = args.warmup + args.iterations
    batches = []
    while len(batches) < total:
        perm = rng.permutation(n)
        batches.extend(perm[i:i + args.batch] for i in range(0, n - args.batch + 1, args.batch))
    x_tr, y_tr = data.x_train, data.y_train
    for idx in batches[:args.warmup]:
        loss = train_step(x_tr[idx], y_tr[idx])
    float(loss)
    t0 = time.perf_counter()
    for idx in batches[args.warmup:total]:
        loss = train_step(x_tr[idx], y_tr[idx])
    loss = float(loss)
    elapsed = time.perf_counter() - t0

    mean, var = model.predict_y(data.x_test)
    y = (data.y_test.reshape(-1) - data.y_mean) / data.y_std
    mu, v = mean.numpy().reshape(-1), var.numpy().reshape(-1)
    test_ll = float(np.mean(-0.5 * np.log(2 * math.pi * v) - 0.5 * (y - mu) ** 2 / v))
    rmse = float(np.sqrt(np.mean((y - mu) ** 2)))
    print(json.dumps({
        "peer": "gpflow_svgp", "dataset": args.dataset, "split": args.split, "m": args.m,
        "batch": args.batch, "iterations": args.iterations, "warmup": args.warmup,
        "s_per_1000": 1000.0 * elapsed / args.iterations, "final_loss": loss,
        "test_ll": test_ll, "rmse": rmse, "threads": args.threads,
        "versions": {"gpflow": gpflow.__version__, "tensorflow": tf.__version__, "numpy": np.__version__},
    }), flush=True)


if __name__ == "__main__":
    main()
