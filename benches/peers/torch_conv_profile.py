#!/usr/bin/env python3
"""PyTorch peer of `cargo bench --bench trunk_profile` (CPU, float32).

Times each convolution of the paper's MNIST and CIFAR-10 trunks alone, at batch 128, the way
`benches/trunk_profile.rs` does: the forward pass; the forward and backward pass with only the
input tracked, less the forward; the forward and backward pass with only the weight and bias
tracked, less the forward. The loss is the output's sum. Median of `--reps` runs after one
warm-up. Prints the same Markdown table (path "PyTorch"), then one JSON line:
{"peer":"pytorch","threads":…,"torch":…,"layers":[{"layer":…,"forward_s":…,"input_grad_s":…,"weight_grad_s":…},…]}.

    python benches/peers/torch_conv_profile.py --threads 2
"""
import argparse
import json
import statistics
import time

LAYERS = [
    ("MNIST conv1 1→32 5×5 on 28×28", (1, 32, 5, 28)),
    ("MNIST conv2 32→64 3×3 on 24×24", (32, 64, 3, 24)),
    ("CIFAR-10 conv1 3→128 3×3 on 32×32", (3, 128, 3, 32)),
    ("CIFAR-10 conv2 128→128 3×3 on 30×30", (128, 128, 3, 30)),
    ("CIFAR-10 conv3 128→128 3×3 on 14×14", (128, 128, 3, 14)),
]


def timed(reps, f):
    f()
    runs = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()

    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(0)
    print(f"The paper's trunks' convolutions, batch {args.batch}, f32, PyTorch {torch.__version__}, "
          f"{args.threads} threads, median of {args.reps} runs")
    print()
    print("| layer | path | forward s | input-gradient s | weight-gradient s | step s |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name, (c_in, c_out, k, side) in LAYERS:
        conv = nn.Conv2d(c_in, c_out, k)
        x = torch.randn(args.batch, c_in, side, side)

        def forward():
            with torch.no_grad():
                conv(x)

        def input_grad():
            xs = x.clone().requires_grad_(True)
            for p in conv.parameters():
                p.requires_grad_(False)
            conv(xs).sum().backward()
            for p in conv.parameters():
                p.requires_grad_(True)

        def weight_grad():
            conv.zero_grad(set_to_none=True)
            conv(x).sum().backward()

        f = timed(args.reps, forward)
        gx = max(timed(args.reps, input_grad) - f, 0.0)
        gw = max(timed(args.reps, weight_grad) - f, 0.0)
        print(f"| {name} | PyTorch | {f:.4f} | {gx:.4f} | {gw:.4f} | {f + gx + gw:.4f} |")
        rows.append({"layer": name, "forward_s": f, "input_grad_s": gx, "weight_grad_s": gw})
    print(json.dumps({"peer": "pytorch", "threads": args.threads, "torch": torch.__version__, "layers": rows}))


if __name__ == "__main__":
    main()
