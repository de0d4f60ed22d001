#!/usr/bin/env python3
"""Comparison table for benches/peers/bsvm_run.sh (standard library only).

usage: bsvm_report.py OUT_DIR [--sets a,b] [--splits K] [--only ours,gpflow]
       bsvm_report.py --selftest

Reads, for each run (`ours`, `gpflow`), OUT_DIR/<run>.out (the program's
stdout: JSON lines, anything else is skipped), OUT_DIR/<run>.status (`ok`, or
why it failed) and OUT_DIR/<run>.load (busy cores before the run), all
optional:

- ours.out, from `bsvm_pmlb --json`: one line per set/split/method with keys
  `set, split, method` (`mc_bsvm`, `ovr_bsvm`, `svgp`), `accuracy, train_s,
  epoch_s` (optionally `classes, n_train, nll, epoch_times_s, error`);
- gpflow.out, from gpflow_multiclass.py: one line per set/split with
  `peer: "gpflow"`, `epoch_s, accuracy, nll, n_train, classes`, or `error`.

Prints, per set (mean over its splits), our MC-BSVM, OvR-BSVM and SVGP
s/epoch, GPflow's SVGP s/epoch, the ratios GPflow/MC-BSVM and GPflow/SVGP
(> 1: burn-gp is faster) and every model's test accuracy; a run that failed or
left no line shows as FAIL, with the reason under the table. The last stdout
line is one JSON object `{"bench": "bsvm_peers", ...}` with the median (over
sets) of both ratios. Exit status 0 when every expected set/split/method of
every run in --only has a result, 1 otherwise.

Expected rows: the sets of --sets (else every set named in any output) times
splits 0..K-1 of --splits (else every split seen for that set).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
from pathlib import Path

OURS_METHODS = ("mc_bsvm", "ovr_bsvm", "svgp")
GPFLOW = "gpflow"  # the peer's single model, keyed like a method
METHODS = OURS_METHODS + (GPFLOW,)
RUN_OF = {"mc_bsvm": "ours", "ovr_bsvm": "ours", "svgp": "ours", GPFLOW: "gpflow"}
LABEL = {"mc_bsvm": "MC-BSVM", "ovr_bsvm": "OvR-BSVM", "svgp": "SVGP", GPFLOW: "GPflow"}
RUNS = ("ours", "gpflow")
BUSY_WARN = 0.3  # busy cores above which timings are suspect


def is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def json_lines(path: Path) -> list[dict]:
    """Every line of `path` that is a JSON object (others, e.g. progress, are skipped)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    out = []
    for ln in text.splitlines():
        ln = ln.strip()
        if not ln.startswith("{"):
            continue
        try:
            rec = json.loads(ln)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def read_run(out: Path, run: str) -> dict:
    """Status, busy cores and result rows {(set, split, method): record} of one run."""
    status_file = out / f"{run}.status"
    status = status_file.read_text().strip() if status_file.exists() else "not run"
    try:
        load = float((out / f"{run}.load").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        load = None
    rows, set_errors, versions = {}, {}, None
    for rec in json_lines(out / f"{run}.out"):
        if run == "ours":
            method = rec.get("method")
            if method not in OURS_METHODS:
                continue
        else:
            if rec.get("peer", GPFLOW) != GPFLOW:
                continue
            method = GPFLOW
            versions = rec.get("versions") or versions
        if isinstance(rec.get("set"), str) and not isinstance(rec.get("split"), int):
            if rec.get("error"):  # a whole set failed (e.g. not exported)
                set_errors[(rec["set"], method)] = str(rec["error"])
            continue
        if not isinstance(rec.get("set"), str):
            continue  # e.g. an error line for the whole export: the status explains it
        rows[(rec["set"], rec["split"], method)] = rec
    return {"status": status, "load": load, "rows": rows, "set_errors": set_errors,
            "versions": versions}


def row_problem(rec: dict | None, run_status: str) -> str | None:
    """Why a (set, split, method) has no usable result, or None when it has one."""
    if rec is None:
        return "no result" + ("" if run_status == "ok" else f" ({run_status})")
    if rec.get("error"):
        return str(rec["error"]).splitlines()[0][:160]
    missing = [k for k in ("epoch_s", "accuracy") if not is_num(rec.get(k))]
    if missing:
        return f"line lacks numeric {'/'.join(missing)}"
    return None


def mean(xs):
    xs = [x for x in xs if is_num(x)]
    return sum(xs) / len(xs) if xs else None


def median(xs):
    xs = [x for x in xs if is_num(x)]
    return statistics.median(xs) if xs else None


def fmt(x, spec: str) -> str:
    return format(x, spec) if is_num(x) else "-"


def build(out: Path, sets: list[str] | None, splits: int | None, only: list[str]) -> tuple[str, dict, int]:
    """(table text, summary object, exit status)."""
    runs = {run: read_run(out, run) for run in RUNS}
    for run in RUNS:
        if run not in only and runs[run]["rows"]:  # outputs left from a previous bsvm_run.sh
            runs[run]["status"] = f"earlier run ({runs[run]['status']})"
    # Sets in order of first appearance (ours first: the example's own order).
    if sets is None:
        sets = []
        for run in RUNS:
            for s in [key[0] for key in runs[run]["rows"]] + [key[0] for key in runs[run]["set_errors"]]:
                if s not in sets:
                    sets.append(s)
    active = [m for m in METHODS if RUN_OF[m] in only or runs[RUN_OF[m]]["rows"]]

    per_set, notes, all_ok = {}, [], True
    table = []
    for s in sets:
        if splits is not None:
            ks = list(range(splits))
        else:
            ks = sorted({k for run in RUNS for (s2, k, _) in runs[run]["rows"] if s2 == s}) or [0]
        good = {m: {} for m in METHODS}  # method -> split -> record
        failed = []
        for m in active:
            run = runs[RUN_OF[m]]
            bad = {}  # reason -> splits, so that a crashed run takes one line per method
            for k in ks:
                rec = run["rows"].get((s, k, m))
                if rec is None and (s, m) in run["set_errors"]:
                    rec = {"error": run["set_errors"][(s, m)]}
                why = row_problem(rec, run["status"])
                if why is None:
                    good[m][k] = rec
                else:
                    bad.setdefault(why, []).append(k)
                    if RUN_OF[m] in only:
                        all_ok = False
            for why, bad_ks in bad.items():
                plural = "s" if len(bad_ks) > 1 else ""
                failed.append(f"{LABEL[m]} split{plural} {','.join(map(str, bad_ks))}: {why}")

        def avg(m, key):
            return mean(r.get(key) for r in good[m].values())

        def ratio(num, den):  # mean over the splits where both have a result
            both = sorted(set(good[num]) & set(good[den]))
            a = mean(good[num][k]["epoch_s"] for k in both)
            b = mean(good[den][k]["epoch_s"] for k in both)
            return a / b if is_num(a) and is_num(b) and b > 0 else None

        info = next((r for m in (GPFLOW,) + OURS_METHODS for r in good[m].values()), {})
        entry = {
            "splits": ks,
            "classes": info.get("classes"),
            "n_train": info.get("n_train"),
            "epoch_s": {m: avg(m, "epoch_s") for m in METHODS},
            "train_s": {m: avg(m, "train_s") for m in METHODS},
            "accuracy": {m: avg(m, "accuracy") for m in METHODS},
            "nll": {m: avg(m, "nll") for m in METHODS},
            "ok_splits": {m: sorted(good[m]) for m in METHODS},
            "gpflow_over_mc_bsvm": ratio(GPFLOW, "mc_bsvm"),
            "gpflow_over_svgp": ratio(GPFLOW, "svgp"),
            "failed": failed,
        }
        per_set[s] = entry
        notes += [f"{s}: {f}" for f in failed]

        def cell(m, key, spec):
            if m not in active:
                return "-"
            if not good[m]:
                return "FAIL"
            v = fmt(entry[key][m], spec)
            return v + ("*" if len(good[m]) < len(ks) else "")

        table.append((
            s, fmt(entry["classes"], "d"), fmt(entry["n_train"], "d"), str(len(ks)),
            cell("mc_bsvm", "epoch_s", ".4f"), cell("ovr_bsvm", "epoch_s", ".4f"),
            cell("svgp", "epoch_s", ".4f"), cell(GPFLOW, "epoch_s", ".4f"),
            fmt(entry["gpflow_over_mc_bsvm"], ".2f"), fmt(entry["gpflow_over_svgp"], ".2f"),
            cell("mc_bsvm", "accuracy", ".4f"), cell("ovr_bsvm", "accuracy", ".4f"),
            cell("svgp", "accuracy", ".4f"), cell(GPFLOW, "accuracy", ".4f"),
        ))
    if not sets:
        all_ok = False
        notes.append("no set has any result" + "".join(
            f"; {run}: {runs[run]['status']}" for run in RUNS if run in only))

    med_mc = median(e["gpflow_over_mc_bsvm"] for e in per_set.values())
    med_svgp = median(e["gpflow_over_svgp"] for e in per_set.values())

    head = ("set", "C", "n_train", "splits", "MC s/ep", "OvR s/ep", "SVGP s/ep", "GPflow s/ep",
            "GPf/MC", "GPf/SVGP", "acc MC", "acc OvR", "acc SVGP", "acc GPflow")
    widths = [max(len(h), *(len(r[i]) for r in table)) if table else len(h) for i, h in enumerate(head)]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    text = ["", "Multi-class classification on PMLB: burn-gp (MC-BSVM, one-vs-rest BSVM, SVGP "
                "RobustMax) against GPflow SVGP RobustMax, same data and inducing points",
            line(head), line(tuple("-" * w for w in widths))]
    text += [line(r) for r in table]
    text.append(line(("median", "", "", "", "", "", "", "", fmt(med_mc, ".2f"), fmt(med_svgp, ".2f"),
                      "", "", "", "")))
    text.append("  s/ep: seconds per epoch, mean over splits; GPf/MC, GPf/SVGP: GPflow s/epoch divided "
                "by ours (> 1 means burn-gp is faster); acc: test accuracy, mean over splits")
    text.append("  *: mean over the splits that succeeded only; FAIL: no split succeeded (reasons below)")
    for run in RUNS:
        r = runs[run]
        load = f", {r['load']:.2f} cores busy at start" if r["load"] is not None else ""
        vers = ", ".join(f"{k} {v}" for k, v in (r["versions"] or {}).items())
        text.append(f"  {run}: {r['status']}{load}" + (f" ({vers})" if vers else ""))
        if r["load"] is not None and r["load"] > BUSY_WARN:
            text.append(f"  WARNING: the machine was busy before the {run} run; its timings are "
                        "unreliable. Re-run on an idle machine.")
    for run in RUNS:
        for (s, k, m), rec in runs[run]["rows"].items():
            times = rec.get("epoch_times_s")
            if isinstance(times, list) and len(times) >= 3 and all(is_num(t) for t in times):
                timed = sorted(times[1:])  # epoch 1 may carry one-off costs
                spread = timed[-1] / max(timed[len(timed) // 2], 1e-12)
                if spread > 2.0:
                    text.append(f"  WARNING: {LABEL[m]} on {s} split {k}: uneven epoch times "
                                f"(slowest/median {spread:.1f}); something else probably ran meanwhile.")
    if notes:
        text.append("  failed:")
        text += [f"    {n}" for n in notes]

    summary = {
        "bench": "bsvm_peers",
        "ok": all_ok,
        "sets": sets,
        "median_gpflow_over_mc_bsvm": med_mc,
        "median_gpflow_over_svgp": med_svgp,
        "per_set": per_set,
        "runs": {run: {"status": runs[run]["status"], "busy_cores_at_start": runs[run]["load"],
                       "rows": len(runs[run]["rows"]), "versions": runs[run]["versions"]}
                 for run in RUNS},
    }
    return "\n".join(text), summary, 0 if all_ok else 1


# ---------------------------------------------------------------- self-test

def selftest() -> int:
    """Runs the report on fake outputs covering success, partial failure and crashes."""
    def ours(s, k, m, ep, acc, **kw):
        return json.dumps({"set": s, "split": k, "method": m, "accuracy": acc,
                           "train_s": ep * 5, "epoch_s": ep, **kw})

    def gpf(s, k, ep, acc, **kw):
        return json.dumps({"peer": "gpflow", "model": "svgp_robustmax", "set": s, "split": k,
                           "n_train": 500, "classes": 3, "epochs": 5, "batch": 256, "train_s": ep * 5,
                           "epoch_s": ep, "accuracy": acc, "nll": 0.5, **kw})

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "ours.out").write_text("\n".join([
            "training iris ...",  # progress lines are skipped
            ours("iris", 0, "mc_bsvm", 0.010, 0.95), ours("iris", 0, "ovr_bsvm", 0.030, 0.93),
            ours("iris", 0, "svgp", 0.020, 0.94),
            ours("iris", 1, "mc_bsvm", 0.030, 0.97), ours("iris", 1, "ovr_bsvm", 0.030, 0.93),
            ours("iris", 1, "svgp", 0.020, 0.96),
            ours("wine", 0, "mc_bsvm", 0.100, 0.90), ours("wine", 0, "svgp", 0.200, 0.91),
            json.dumps({"set": "wine", "split": 0, "method": "ovr_bsvm", "error": "diverged"}),
            # wine split 1 and everything of glass missing: the run crashed
        ]) + "\n")
        (out / "ours.status").write_text("failed: exit 101\n")
        (out / "gpflow.out").write_text("\n".join([
            gpf("iris", 0, 0.040, 0.96, epoch_times_s=[1.0, 0.04, 0.04, 0.04]),
            gpf("iris", 1, 0.080, 0.96),
            gpf("wine", 0, 0.500, 0.90),
            json.dumps({"peer": "gpflow", "set": "wine", "split": 1, "error": "FileNotFoundError: x"}),
            gpf("glass", 0, 0.300, 0.70), gpf("glass", 1, 0.300, 0.72),
            json.dumps({"peer": "gpflow", "set": "iris", "split": None, "error": "ignored: iris has rows"}),
            json.dumps({"peer": "gpflow", "set": "nosuch", "split": None, "error": "no split<k> folder"}),
        ]) + "\n")
        (out / "gpflow.status").write_text("failed: exit 1\n")
        (out / "gpflow.load").write_text("0.05\n")

        text, summary, rc = build(out, ["iris", "wine", "glass", "nosuch"], 2, ["ours", "gpflow"])
        print(text)
        print(json.dumps(summary))
        iris, wine, glass = (summary["per_set"][s] for s in ("iris", "wine", "glass"))
        assert rc == 1 and not summary["ok"]
        assert abs(iris["epoch_s"]["mc_bsvm"] - 0.02) < 1e-12
        assert abs(iris["gpflow_over_mc_bsvm"] - 3.0) < 1e-12      # 0.06 / 0.02
        assert abs(iris["gpflow_over_svgp"] - 3.0) < 1e-12
        assert abs(wine["gpflow_over_mc_bsvm"] - 5.0) < 1e-12      # split 0 only
        assert wine["accuracy"]["ovr_bsvm"] is None and glass["gpflow_over_mc_bsvm"] is None
        assert any("diverged" in f for f in wine["failed"])
        assert any("no result (failed: exit 101)" in f for f in glass["failed"])
        assert summary["median_gpflow_over_mc_bsvm"] == 4.0          # median of 3 and 5
        assert "GPflow splits 0,1: no split<k> folder" in summary["per_set"]["nosuch"]["failed"]
        assert not iris["failed"]
        assert "FAIL" in text and "*" in text

        # Everything present: exit 0. Only gpflow selected: ours' rows are an earlier run.
        for f in ("ours.out", "ours.status"):
            (out / f).unlink()
        (out / "gpflow.status").write_text("ok\n")
        text, summary, rc = build(out, ["iris", "glass"], 2, ["gpflow"])
        assert rc == 0 and summary["ok"] and summary["median_gpflow_over_mc_bsvm"] is None, summary
        # Sets inferred from the outputs; nothing at all -> failure.
        _, summary, rc = build(out, None, None, ["gpflow"])
        assert summary["sets"] == ["iris", "wine", "glass", "nosuch"] and rc == 1, summary["sets"]
        (out / "gpflow.out").unlink()
        text, summary, rc = build(out, None, None, ["ours", "gpflow"])
        assert rc == 1 and summary["sets"] == [] and "no set has any result" in text
    print("bsvm_report selftest: ok", file=sys.stderr)
    return 0


def main() -> None:
    p = argparse.ArgumentParser(description="Comparison table for bsvm_run.sh")
    p.add_argument("out", type=Path, nargs="?")
    p.add_argument("--sets", default=None, help="comma-separated sets expected (default: all seen)")
    p.add_argument("--splits", type=int, default=None,
                   help="number of splits expected per set (default: all seen)")
    p.add_argument("--only", default=",".join(RUNS), help="runs that must have succeeded")
    p.add_argument("--selftest", action="store_true", help="run on built-in fake outputs and check")
    a = p.parse_args()
    if a.selftest:
        sys.exit(selftest())
    if a.out is None:
        p.error("OUT_DIR is required")
    sets = [s for s in a.sets.split(",") if s] if a.sets else None
    only = [r for r in a.only.split(",") if r]
    text, summary, rc = build(a.out, sets, a.splits, only)
    print(text)
    print(json.dumps(summary))
    sys.exit(rc)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
