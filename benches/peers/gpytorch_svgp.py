#!/usr/bin/env python3
"""SVGP regression on a UCI split with GPyTorch (float64, CPU) — peer of `svgp_uci`.

Whitened SVGP (`VariationalStrategy`) with a full-covariance q(u)
(`CholeskyVariationalDistribution`, m = 0 and L = I initially), zero mean,
ARD RBF kernel with an output scale, Gaussian likelihood, trainable inducing
inputs, all parameters trained jointly with Adam on minibatches.

The objective is GPyTorch's `VariationalELBO` times N, i.e. exactly the
N/|B|-scaled minibatch ELBO that GPflow's `training_loss` uses (GPyTorch's own
loss is that divided by N; Adam is nearly invariant to the scale, this makes it
exact). PyTorch runs eagerly, so there is nothing to trace: every epoch of the
training loop is timed.

The final stdout line is one JSON object (see uci.emit).
"""

import os
import sys

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")  # CPU only, even where a GPU exists
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import uci  # noqa: E402


def main() -> None:
    args = uci.parse_args("GPyTorch SVGP on a UCI regression split")

    import torch

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(args.seed)

    import gpytorch
    import linear_operator

    data = uci.load_split(args.data, args.dataset, args.split)
    n, d = data.n, data.d
    z0 = torch.from_numpy(uci.inducing_init(data.x_train, args.m, args.seed))
    schedule = uci.minibatch_schedule(n, args.batch, args.epochs, args.seed)

    class SVGP(gpytorch.models.ApproximateGP):
        def __init__(self, z: torch.Tensor):
            q_u = gpytorch.variational.CholeskyVariationalDistribution(z.size(0), mean_init_std=0.0)
            strategy = gpytorch.variational.VariationalStrategy(  # whitened
                self, z, q_u, learn_inducing_locations=True, jitter_val=1e-6
            )
            super().__init__(strategy)
            self.mean_module = gpytorch.means.ZeroMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel(ard_num_dims=d))

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    model = SVGP(z0)
    model.covar_module.base_kernel.lengthscale = torch.ones(1, d)
    model.covar_module.outputscale = 1.0
    # Same parameterisation as GPflow's Gaussian likelihood: softplus(raw) + 1e-6.
    likelihood = gpytorch.likelihoods.GaussianLikelihood(
        noise_constraint=gpytorch.constraints.GreaterThan(1e-6)
    )
    likelihood.noise = 0.1

    model.train()
    likelihood.train()
    params = list(model.parameters()) + list(likelihood.parameters())
    opt = torch.optim.Adam(params, lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    mll = gpytorch.mlls.VariationalELBO(likelihood, model, num_data=n)

    x_tr = torch.from_numpy(data.x_train)
    y_tr = torch.from_numpy(data.y_train.reshape(-1))
    timer = uci.EpochTimer()
    loss_v = float("nan")
    with gpytorch.settings.max_cholesky_size(10**6):  # exact Cholesky throughout, never CG
        for epoch in range(args.epochs):
            timer.start()
            for idx in schedule[epoch]:
                idx_t = torch.from_numpy(idx)
                xb, yb = x_tr[idx_t], y_tr[idx_t]
                opt.zero_grad(set_to_none=True)
                loss = -mll(model(xb), yb) * n  # -ELBO scaled by N/|B|
                loss.backward()
                opt.step()
            loss_v = float(loss.detach())
            timer.stop()
            print(f"epoch {epoch + 1:3d}  -elbo {loss_v:12.4f}  {timer.times[-1]:.3f}s", file=sys.stderr)

        model.eval()
        likelihood.eval()
        with torch.no_grad():
            pred = likelihood(model(torch.from_numpy(data.x_test)))
            mean, var = pred.mean.numpy(), pred.variance.numpy()
    rmse, test_ll = uci.metrics(data, mean, var)
    print(
        f"noise {float(likelihood.noise):.5f}  "
        f"signal {float(model.covar_module.outputscale):.4f}  "
        f"lengthscales {np.round(model.covar_module.base_kernel.lengthscale.detach().numpy().ravel(), 3).tolist()}",
        file=sys.stderr,
    )

    uci.emit(
        "gpytorch_svgp", args, timer.times, skip_first=False, rmse=rmse, test_ll=test_ll,
        final_loss=loss_v,
        timing="mean wall time of epochs 1..N of the eager training loop (nothing is compiled)",
        versions={"gpytorch": gpytorch.__version__, "linear_operator": linear_operator.__version__,
                  "torch": torch.__version__, "numpy": np.__version__},
    )


if __name__ == "__main__":
    main()
