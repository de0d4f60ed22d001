#!/usr/bin/env python3
"""The table of benches/peers/all.sh: one row per workload, ours against its peer, from the outputs
that all.sh leaves in OUT. `ratio` is our seconds over the peer's (below 1: burn-gp is faster).

    python3 benches/peers/all_report.py bench-out/all --rows svgp,cnn --threads 2 [--markdown FILE]
    python3 benches/peers/all_report.py --selftest
"""
import argparse
import datetime
import json
import os
import platform
import sys
import tempfile
from pathlib import Path


def json_lines(path: Path):
    """Every line of `path` that parses as a JSON object (none if the file is missing)."""
    out = []
    try:
        for line in path.read_text().splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    except OSError:
        pass
    return out


def last(path: Path, **match):
    """The last JSON object of `path` whose keys equal `match`, or None."""
    hits = [r for r in json_lines(path) if all(r.get(k) == v for k, v in match.items())]
    return hits[-1] if hits else None


def cpu_facts():
    model, avx512 = platform.processor() or "unknown", False
    try:
        text = Path("/proc/cpuinfo").read_text()
        for line in text.splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                avx512 = "avx512f" in line.split()
    except OSError:
        pass
    return model, avx512


def row(name, workload, peer, ours_s, peer_s, target, metric_ours="", metric_peer="", note=""):
    ratio = ours_s / peer_s if ours_s and peer_s else None
    return {"row": name, "workload": workload, "peer": peer, "ours_s": ours_s, "peer_s": peer_s,
            "ratio": ratio, "target": target, "met": None if ratio is None else ratio <= target,
            "metric_ours": metric_ours, "metric_peer": metric_peer, "note": note}


def median(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else 0.5 * (v[mid - 1] + v[mid])


def repeated(name, workload, peer, pairs, target, metric_ours, metric_peer, note):
    """One row from the (ours_s, peer_s) pairs of repeated runs: median times and median ratio."""
    ratios = [o / p for o, p in pairs if o and p]
    r = row(name, workload, peer, median(o for o, _ in pairs), median(p for _, p in pairs), target,
            metric_ours, metric_peer, note)
    if len(pairs) > 1:
        r["ratio"] = median(ratios)
        r["met"] = None if r["ratio"] is None else r["ratio"] <= target
        r["ratios"] = ratios
        if ratios:
            r["note"] += f"; median of {len(pairs)} runs, ratios {min(ratios):.2f}–{max(ratios):.2f}"
    return r


def svgp_rows(out: Path):
    recs = [last(p, bench="peers") or {} for p in sorted(out.glob("svgp_*.out"))] or [{}]
    runs = [rec.get("runs", {}) for rec in recs]
    ours_ll = (runs[0].get("ours") or {}).get("test_ll")
    rows = []
    for peer, label in (("gpflow", "GPflow (tf.function)"), ("gpytorch", "GPyTorch (eager)")):
        pairs = [((r.get("ours") or {}).get("epoch_s"), (r.get(peer) or {}).get("epoch_s")) for r in runs]
        rows.append(repeated(f"svgp/{peer}", "SVGP kin8nm split 0, M 128, batch 256, f64", label, pairs, 0.5,
                             fmt_ll(ours_ll), fmt_ll((runs[0].get(peer) or {}).get("test_ll")), "s per epoch"))
    return rows


def fmt_ll(v):
    return "" if v is None else f"test LL {v:.3f}"


def dgp_rows(out: Path):
    def first(dirs, pattern):
        return next((last(p) for p in sorted(dirs.glob(pattern)) if last(p)), None) or {}
    runs = [(first(d, "ours_*.out"), first(d, "gpflux_*.out")) for d in sorted(out.glob("dgp_*")) if d.is_dir()]
    runs = runs or [({}, {})]
    ours, peer = runs[0]
    pairs = [(o.get("epoch_s"), p.get("epoch_s")) for o, p in runs]
    return [repeated("dgp", "DGP-2 boston split 0, M 100, batch 50", "GPflux (DSVI)", pairs, 0.6,
                     fmt_ll(ours.get("test_ll")), fmt_ll(peer.get("test_ll")),
                     f"s per epoch, {ours.get('epochs', '?')} epochs")]


def cnn_rows(out: Path):
    ours = last(out / "cnn_ours.out", example="mnist_hybrid") or {}
    peer = last(out / "cnn_peer.out", peer="pytorch") or {}
    acc = lambda v: "" if v is None else f"acc {v:.4f}"
    n = ours.get("train_size", "?")
    return [
        row("cnn", f"MNIST trunk + softmax, {n} images, batch 128, f32", f"PyTorch {peer.get('torch', '')}",
            ours.get("softmax_epoch_s"), peer.get("epoch_s"), 1.0, acc(ours.get("softmax_accuracy")),
            acc(peer.get("accuracy")), "s per epoch"),
        row("cnn/head", "the Bayesian-SVM head over the softmax network (same run)", "burn-gp softmax",
            ours.get("epoch_s"), ours.get("softmax_epoch_s"), 1.1, acc(ours.get("accuracy")),
            acc(ours.get("softmax_accuracy")), "hybrid epoch / softmax epoch"),
    ]


def bsvm_rows(out: Path):
    rec = last(out / "bsvm.out", bench="bsvm_peers") or {}
    med = rec.get("median_gpflow_over_mc_bsvm")
    per_set = rec.get("per_set") or {}
    accs = lambda m: [e["accuracy"][m] for e in per_set.values()
                      if isinstance(e.get("accuracy"), dict) and e["accuracy"].get(m) is not None]
    mean = lambda v: f"mean acc {sum(v) / len(v):.4f} ({len(v)} sets)" if v else ""
    return [row("bsvm", "MC-BSVM iris/glass/vehicle/yeast/vowel, split 0", "GPflow SVGP RobustMax",
                1.0 if med else None, med, 0.5, mean(accs("mc_bsvm")), mean(accs("gpflow")),
                "median over sets of s per epoch (ours = 1)")]


def sep_rows(out: Path):
    lines = json_lines(out / "sep.out")
    by = {r.get("mode"): r for r in lines if r.get("example") == "ep_mnist"}
    sep, svi = by.get("sep") or {}, by.get("svi") or {}
    per_epoch = lambda r: r["train_s"] / r["epochs"] if r.get("train_s") and r.get("epochs") else None
    err = lambda r: "" if r.get("error") is None else f"error {r['error']:.4f}"
    return [row("sep", f"minibatch SEP vs SVI epoch, MNIST odd/even, {sep.get('train_size', '?')} images, m 200",
                "burn-gp SVI", per_epoch(sep), per_epoch(svi), 1.3, err(sep), err(svi), "s per epoch")]


def linalg_rows(out: Path):
    return [row(f"linalg/{r['n']}", f"Cholesky + solve (256 rhs) + backward, n = {r['n']}", "faer directly",
                r.get("ours_s"), r.get("faer_s"), 1.2, note="median s")
            for r in json_lines(out / "linalg.out") if r.get("example") == "linalg_bench"]


BUILDERS = {"svgp": svgp_rows, "dgp": dgp_rows, "cnn": cnn_rows, "bsvm": bsvm_rows, "sep": sep_rows,
            "linalg": linalg_rows}


def num(v, spec):
    return "—" if v is None else format(v, spec)


def render(rows, header):
    lines = [header, "",
             "| row | workload | peer | ours s | peer s | ratio | target | met | ours | peer |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        met = "—" if r["met"] is None else ("yes" if r["met"] else "no")
        ratio = num(r["ratio"], ".2f")
        if len(r.get("ratios") or []) > 1:
            ratio += f" (median of {len(r['ratios'])}: {min(r['ratios']):.2f}–{max(r['ratios']):.2f})"
        lines.append(f"| {r['row']} | {r['workload']} | {r['peer']} | {num(r['ours_s'], '.4g')} | "
                     f"{num(r['peer_s'], '.4g')} | {ratio} | ≤ {r['target']} | {met} | "
                     f"{r['metric_ours']} | {r['metric_peer']} |")
    lines.append("")
    lines.append("ratio = ours / peer (below 1: burn-gp is faster); `bsvm` gives GPflow's median s/epoch "
                 "over ours' as the peer column with ours = 1.")
    return "\n".join(lines)


def build(out: Path, rows_wanted, threads, quick):
    model, avx512 = cpu_facts()
    rows = [r for name in rows_wanted for r in BUILDERS[name](out)]
    date = datetime.date.today().isoformat()
    header = (f"burn-gp against its peers, {date}: {model} ({'with' if avx512 else 'without'} AVX-512), "
              f"{os.cpu_count()} cores, {threads} threads per program{', --quick' if quick else ''}")
    ok = bool(rows) and all(r["ratio"] is not None for r in rows)
    summary = {"bench": "all", "cpu": model, "avx512": avx512, "threads": threads, "date": date,
               "quick": bool(quick), "ok": ok, "rows": rows}
    return render(rows, header), summary, 0 if ok else 1


def selftest() -> int:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        for i, peer_s in ((1, 0.08), (2, 0.16), (3, 0.05)):
            (out / f"svgp_{i}.out").write_text("table\n" + json.dumps({"bench": "peers", "runs": {
                "ours": {"epoch_s": 0.04, "test_ll": 0.66}, "gpflow": {"epoch_s": peer_s, "test_ll": 0.65},
                "gpytorch": {"epoch_s": None}}}) + "\n")
        (out / "cnn_ours.out").write_text(json.dumps({"example": "mnist_hybrid", "epoch_s": 11.0,
                                                      "softmax_epoch_s": 10.0, "accuracy": 0.99}) + "\n")
        (out / "cnn_peer.out").write_text(json.dumps({"peer": "pytorch", "epoch_s": 8.0}) + "\n")
        (out / "linalg.out").write_text("| n |\n" + json.dumps(
            {"example": "linalg_bench", "n": 256, "ours_s": 0.006, "faer_s": 0.005}) + "\n")
        text, summary, rc = build(out, ["svgp", "cnn", "linalg"], 2, 0)
        r = {x["row"]: x for x in summary["rows"]}
        # ratios 0.5, 0.25, 0.8 over three repeats: the median ratio is 0.5
        assert abs(r["svgp/gpflow"]["ratio"] - 0.5) < 1e-12 and r["svgp/gpflow"]["met"], r
        assert all(abs(a - b) < 1e-12 for a, b in zip(r["svgp/gpflow"]["ratios"], [0.5, 0.25, 0.8]))
        assert "median of 3 runs" in r["svgp/gpflow"]["note"], r["svgp/gpflow"]
        assert r["svgp/gpytorch"]["ratio"] is None and rc == 1, r
        assert abs(r["cnn"]["ratio"] - 1.25) < 1e-12 and not r["cnn"]["met"]
        assert abs(r["cnn/head"]["ratio"] - 1.1) < 1e-12 and r["cnn/head"]["met"]
        assert abs(r["linalg/256"]["ratio"] - 1.2) < 1e-12
        assert "| svgp/gpflow |" in text and "0.50 (median of 3: 0.25–0.80)" in text
    print("all_report selftest: ok", file=sys.stderr)
    return 0


def main() -> None:
    p = argparse.ArgumentParser(description="Table of benches/peers/all.sh")
    p.add_argument("out", type=Path, nargs="?")
    p.add_argument("--rows", default=",".join(BUILDERS))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--quick", type=int, default=0)
    p.add_argument("--markdown", type=Path)
    p.add_argument("--selftest", action="store_true")
    a = p.parse_args()
    if a.selftest:
        sys.exit(selftest())
    if a.out is None:
        p.error("OUT is required")
    wanted = [r for r in a.rows.split(",") if r]
    unknown = [r for r in wanted if r not in BUILDERS]
    if unknown:
        p.error(f"unknown rows {unknown}; known: {', '.join(BUILDERS)}")
    text, summary, rc = build(a.out, wanted, a.threads, a.quick)
    if a.markdown:
        a.markdown.write_text(text + "\n")
    print(text)
    print(json.dumps(summary))
    sys.exit(rc)


if __name__ == "__main__":
    main()
