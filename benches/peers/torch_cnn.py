#!/usr/bin/env python3
"""PyTorch peer of the softmax network in `mnist_hybrid` (CPU, float32).

The same network as `burn_gp::nets::MnistTrunk` + `SoftmaxNet`: conv(1→32, 5×5, valid) → ReLU →
conv(32→64, 3×3, valid) → ReLU → max-pool 2×2 → fc(7744→1024) → ReLU → fc(1024→100) →
fc(100→10), trained by softmax cross-entropy with Adam (lr 1e-3, β 0.9/0.999, ε 1e-8) and the
half-cosine learning-rate schedule to 0 over all steps, batch 128, a fresh shuffle each epoch,
pixels divided by 255. Initialisation as burn-gp's: Kaiming-normal (gain √2, fan-in) weights and
biases for the trunk's layers, Kaiming-uniform (gain 1/√3) for the output layer.

`epoch_s` is the wall time of the training loop divided by the epochs (data loading, evaluation
and model construction outside it). The last stdout line is one JSON object:
{"peer":"pytorch","epoch_s":…,"accuracy":…,"nll":…,"threads":…,"train_size":…,"torch":…}.

    python benches/peers/torch_cnn.py --data ../shared/data --epochs 1 --threads 2
"""
import argparse
import gzip
import json
import math
import os
import pathlib
import time

import numpy as np


def read_idx(path: pathlib.Path) -> np.ndarray:
    """One IDX file (raw or .gz) as a numpy array of its declared shape."""
    for candidate in (path, path.with_name(path.name + ".gz")):
        if candidate.exists():
            opener = gzip.open if candidate.suffix == ".gz" else open
            with opener(candidate, "rb") as f:
                raw = f.read()
            dims = raw[3]
            shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims))
            return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)
    raise FileNotFoundError(f"{path} (or .gz) not found")


def load_mnist(root: pathlib.Path, split: str):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(root / f"{prefix}-images-idx3-ubyte").astype(np.float32) / 255.0
    labels = read_idx(root / f"{prefix}-labels-idx1-ubyte").astype(np.int64)
    return images[:, None, :, :], labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("BURN_GP_DATA", "../shared/data"))
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--train-size", type=int, default=0, help="first N training images (0: all)")
    parser.add_argument("--test-size", type=int, default=0, help="first N test images (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(args.seed)

    root = pathlib.Path(args.data) / "mnist"
    x_train, y_train = load_mnist(root, "train")
    x_test, y_test = load_mnist(root, "test")
    if args.train_size:
        x_train, y_train = x_train[: args.train_size], y_train[: args.train_size]
    if args.test_size:
        x_test, y_test = x_test[: args.test_size], y_test[: args.test_size]
    x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train)
    x_test, y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)

    net = nn.Sequential(
        nn.Conv2d(1, 32, 5), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 11 * 11, 1024), nn.ReLU(), nn.Linear(1024, 100), nn.Linear(100, 10),
    )
    with torch.no_grad():
        layers = [m for m in net if isinstance(m, (nn.Conv2d, nn.Linear))]
        for layer in layers[:-1]:
            fan_in = layer.weight[0].numel()
            std = math.sqrt(2.0) / math.sqrt(fan_in)
            layer.weight.normal_(0.0, std)
            layer.bias.normal_(0.0, std)
        out = layers[-1]
        bound = 1.0 / math.sqrt(out.weight.shape[1])
        out.weight.uniform_(-bound, bound)
        out.bias.uniform_(-bound, bound)

    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    n = x_train.shape[0]
    steps_per_epoch = math.ceil(n / args.batch)
    total = steps_per_epoch * args.epochs
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))
    )
    generator = torch.Generator().manual_seed(args.seed + 1)
    orders = [torch.randperm(n, generator=generator) for _ in range(args.epochs)]
    loss_fn = nn.CrossEntropyLoss()

    net.train()
    start = time.perf_counter()
    for order in orders:
        for s in range(steps_per_epoch):
            idx = order[s * args.batch: (s + 1) * args.batch]
            optimiser.zero_grad(set_to_none=True)
            loss = loss_fn(net(x_train[idx]), y_train[idx])
            loss.backward()
            optimiser.step()
            schedule.step()
    epoch_s = (time.perf_counter() - start) / args.epochs

    net.eval()
    with torch.no_grad():
        logits = torch.cat([net(x_test[i: i + 1000]) for i in range(0, x_test.shape[0], 1000)])
        log_probs = torch.log_softmax(logits, dim=1)
        accuracy = float((logits.argmax(1) == y_test).float().mean())
        nll = float(-log_probs[torch.arange(len(y_test)), y_test].mean())
    print(
        f"pytorch {torch.__version__}: {n} images, {args.epochs} epochs, {epoch_s:.2f} s per epoch, "
        f"test accuracy {accuracy:.4f}, NLL {nll:.4f}"
    )
    print(json.dumps({
        "peer": "pytorch", "epoch_s": epoch_s, "accuracy": accuracy, "nll": nll, "threads": args.threads,
        "train_size": n, "epochs": args.epochs, "batch": args.batch, "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
