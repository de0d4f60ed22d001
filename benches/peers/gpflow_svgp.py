#!/usr/bin/env python3
"""SVGP regression on a UCI split with GPflow (float64, CPU) — peer of `svgp_uci`.

Whitened SVGP with a full-covariance q(u), ARD RBF kernel, Gaussian likelihood,
trainable inducing inputs, all parameters trained jointly with Adam on
minibatches (ELBO scaled by N/|B|). The training step is a `tf.function`
(how GPflow users train); it is traced before the timed loop and the first
epoch, which still carries the graph's one-off instantiation, is left out of
`epoch_s` (epochs 2..N are timed; every epoch's time is in `epoch_times_s`).

The final stdout line is one JSON object (see uci.emit).
"""

import os
import sys

# Thread pools are sized when the libraries load: set them before any import.
for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")  # CPU only, even where a GPU exists
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import uci  # noqa: E402


def main() -> None:
    args = uci.parse_args("GPflow SVGP on a UCI regression split")

    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    import gpflow

    gpflow.config.set_default_float(np.float64)
    gpflow.config.set_default_jitter(1e-6)
    tf.random.set_seed(args.seed)

    data = uci.load_split(args.data, args.dataset, args.split)
    n, d = data.n, data.d
    z0 = uci.inducing_init(data.x_train, args.m, args.seed)
    schedule = uci.minibatch_schedule(n, args.batch, args.epochs, args.seed)

    kernel = gpflow.kernels.SquaredExponential(variance=1.0, lengthscales=np.ones(d))
    # Gaussian likelihood: variance = softplus(raw) + 1e-6 (GPflow's default bound).
    likelihood = gpflow.likelihoods.Gaussian(variance=0.1)
    model = gpflow.models.SVGP(
        kernel=kernel,
        likelihood=likelihood,
        inducing_variable=gpflow.inducing_variables.InducingPoints(z0),
        num_latent_gps=1,
        q_diag=False,  # full covariance, q_sqrt lower-triangular, init I
        whiten=True,   # q_mu init 0
        num_data=n,    # ELBO scaled by N/|B|
    )
    variables = model.trainable_variables  # kernel (2), likelihood (1), Z, q_mu, q_sqrt

    # Keras-2 Adam (tf_keras) works on plain tf.Variables; Keras 3's does not.
    try:
        from gpflow.keras import tf_keras
        adam = tf_keras.optimizers.Adam
    except ImportError:  # older GPflow
        adam = tf.optimizers.Adam
    opt = adam(learning_rate=args.lr, beta_1=0.9, beta_2=0.999, epsilon=1e-8)

    spec = (tf.TensorSpec([None, d], tf.float64), tf.TensorSpec([None, 1], tf.float64))

    @tf.function(input_signature=spec)
    def train_step(xb, yb):
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(variables)
            loss = model.training_loss((xb, yb))  # -ELBO (scaled)
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    # Trace once, outside the timed loop (no step is taken).
    train_step.get_concrete_function()

    x_tr, y_tr = data.x_train, data.y_train
    timer = uci.EpochTimer()
    loss = float("nan")
    for epoch in range(args.epochs):
        timer.start()
        for idx in schedule[epoch]:
            loss = train_step(x_tr[idx], y_tr[idx])
        loss = float(loss)  # waits for the last step
        timer.stop()
        print(f"epoch {epoch + 1:3d}  -elbo {loss:12.4f}  {timer.times[-1]:.3f}s", file=sys.stderr)

    mean, var = model.predict_y(data.x_test)
    rmse, test_ll = uci.metrics(data, mean.numpy(), var.numpy())
    print(
        f"noise {float(model.likelihood.variance.numpy()):.5f}  "
        f"signal {float(model.kernel.variance.numpy()):.4f}  "
        f"lengthscales {np.round(model.kernel.lengthscales.numpy(), 3).tolist()}",
        file=sys.stderr,
    )

    import tensorflow_probability as tfp

    uci.emit(
        "gpflow_svgp", args, timer.times, skip_first=True, rmse=rmse, test_ll=test_ll,
        final_loss=loss,
        timing="mean wall time of epochs 2..N of the tf.function training loop "
               "(step traced beforehand; epoch 1 carries graph instantiation)",
        versions={"gpflow": gpflow.__version__, "tensorflow": tf.__version__,
                  "tensorflow_probability": tfp.__version__, "numpy": np.__version__},
    )


if __name__ == "__main__":
    main()
