#!/usr/bin/env python3
"""Comparison table for benches/peers/run.sh (standard library only).

usage: report.py OUT_DIR DATASET SPLIT [ONLY]

Reads, for each of ours / gpflow / gpytorch, OUT_DIR/<name>.out (the
program's stdout; its last line is the JSON result) and OUT_DIR/<name>.status
(`ok`, or why it failed), prints a table and, as the last line, one JSON
object with every result and our speed ratio against each peer. Exits 1
when any run named in ONLY (comma separated; default all) has no result.
"""

import json
import math
import os
import sys
from pathlib import Path

RUNS = [  # (name, label)
    ("ours", "burn-gp svgp_uci"),
    ("gpflow", "GPflow"),
    ("gpytorch", "GPyTorch"),
]
REQUIRED = ("epoch_s", "rmse", "test_ll")


def last_json(path: Path):
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return None, "no output"
    if not lines:
        return None, "no output"
    try:
        rec = json.loads(lines[-1])
    except json.JSONDecodeError:
        return None, "last stdout line is not JSON"
    if not isinstance(rec, dict) or any(
        not isinstance(rec.get(k), (int, float)) or isinstance(rec.get(k), bool) for k in REQUIRED
    ):
        return None, f"JSON line lacks numeric {'/'.join(REQUIRED)}"
    return rec, None


def same_epochs(rec) -> None:
    """Puts every program on the same footing: `epoch_s` becomes the mean of epochs 2..N of its
    `epoch_times_s` (epoch 1 carries one-off costs: GPflow's graph instantiation, our allocator
    warming up), when the program reports them."""
    times = rec.get("epoch_times_s")
    if isinstance(times, list) and len(times) >= 2 and all(isinstance(t, (int, float)) for t in times):
        rec["epoch_s"] = sum(times[1:]) / (len(times) - 1)
        rec["timing"] = "mean wall time of epochs 2..N"


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, spec)


def main() -> None:
    out, dataset, split = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    only = (sys.argv[4] if len(sys.argv) > 4 else ",".join(n for n, _ in RUNS)).split(",")
    results = {}
    for name, label in RUNS:
        status_file = out / f"{name}.status"
        status = status_file.read_text().strip() if status_file.exists() else "not run"
        rec, why = (None, None)
        if status == "ok":
            rec, why = last_json(out / f"{name}.out")
            if rec is None:
                status = f"failed: {why}"
            else:
                same_epochs(rec)
        try:
            load = float((out / f"{name}.load").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            load = None
        results[name] = {"label": label, "status": status, "result": rec, "load": load}

    ours = results["ours"]["result"]
    rows = []
    for name, label in RUNS:
        r = results[name]
        rec = r["result"]
        ratio = None
        if rec is not None and ours is not None and rec["epoch_s"] > 0:
            ratio = ours["epoch_s"] / rec["epoch_s"]
        r["ours_over_peer_epoch_s"] = ratio
        rows.append((
            label,
            fmt(rec and rec["epoch_s"], ".4f"),
            fmt(rec and rec["rmse"], ".5f"),
            fmt(rec and rec["test_ll"], ".4f"),
            fmt(ratio, ".3f") if name != "ours" else ("1.000" if ours else "-"),
            fmt(r["load"], ".2f"),
            "ok" if rec is not None else r["status"],
        ))

    head = ("peer", "s/epoch", "RMSE", "test LL", "ours/peer", "busy", "status")
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(  # noqa: E731
        c.ljust(w) if i in (0, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
    )
    print(f"\nSVGP on {dataset} split {split} (RMSE and test LL in original units; "
          f"ours/peer = our s/epoch / peer s/epoch, < 1 means we are faster)")
    print(line(head))
    print(line(tuple("-" * w for w in widths)))
    for row in rows:
        print(line(row))
    cores = int(os.environ.get("CORES") or os.cpu_count() or 1)
    busy = [n for n, _ in RUNS if results[n]["load"] is not None and results[n]["load"] > 0.3]
    print(f"  busy = cores (of {cores}) used by other processes in the second before the run")
    if busy:
        print(f"  WARNING: the machine was busy before {', '.join(busy)}; its timings are unreliable "
              "(GPyTorch's 2 OpenMP threads slow down 5-20x when a core is taken). Re-run on an idle machine.")
    for name, _ in RUNS:
        times = (results[name]["result"] or {}).get("epoch_times_s")
        if isinstance(times, list) and len(times) >= 3:
            timed = sorted(times[1:])  # epoch 1 may carry one-off costs
            ratio = timed[-1] / max(timed[len(timed) // 2], 1e-12)
            if ratio > 2.0:
                print(f"  WARNING: {name}'s epoch times are uneven (slowest/median {ratio:.1f}); "
                      "something else probably ran meanwhile. Re-run on an idle machine.")
    for name, _ in RUNS:
        rec = results[name]["result"]
        if rec and rec.get("timing"):
            print(f"  {name}: {rec['timing']}")
    print(json.dumps({
        "bench": "peers",
        "dataset": dataset,
        "split": split,
        "runs": {
            name: {
                "status": "ok" if r["result"] is not None else r["status"],
                "epoch_s": r["result"] and r["result"]["epoch_s"],
                "rmse": r["result"] and r["result"]["rmse"],
                "test_ll": r["result"] and r["result"]["test_ll"],
                "ours_over_peer_epoch_s": r["ours_over_peer_epoch_s"] if name != "ours" else None,
                "versions": (r["result"] or {}).get("versions"),
                "backend": (r["result"] or {}).get("backend"),
                "busy_cores_at_start": r["load"],
            }
            for name, r in results.items()
        },
    }))
    sys.exit(0 if all(results[n]["result"] is not None for n, _ in RUNS if n in only) else 1)


if __name__ == "__main__":
    main()
