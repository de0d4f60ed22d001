"""The skew-GP PMLB table of `docs/results/skew_gp.md`: burn-gp's methods next to GPy's.

Joins, per set, the set lines of `skewgp_pmlb --json` (or of `skewgp_pmlb --summarise … --json`,
which merges one-fold runs) with the lines of `benches/peers/gpy_pmlb.py` run on the same folds,
and prints the markdown table (average information in bits, fold means; lattice standard errors;
accuracies) with a mean row over the sets that have every column, then SkewGP2's and SkewGP0's
per-set wins / ties (within 0.0005 bits) / losses against the other methods, with a two-sided
sign test (ties dropped), the mean and median differences, and the paper's own test (§7.1,
Fig. 9): the Bayesian signed-rank test with a rope of 0.01 bits (`bayes_signed_rank.py`, 50 000
posterior draws, seed 0), as P(first better) / P(equivalent) / P(second better).

    skewgp_pmlb --summarise f0.jsonl,f1.jsonl --json > ours.jsonl
    python3 benches/peers/skewgp_report.py --ours ours.jsonl --gpy gpy.jsonl [--folds 5]

`--long-ep FILE…` adds a column from other merged `skewgp_pmlb` lines whose GP-EP was trained
with another budget (`--methods gpep --ep-iterations 1000`), labelled `--long-ep-label`, and that
column's comparisons with our GP-EP, the skew GPs and GPy; sets without it leave the means.
With `--long-ep-skew0` the same lines' SkewGP0 at their kernel (`info_skew0ep`, from
`--methods gpep,skew0ep`) is one more column, with its comparisons.

Only sets with all `--folds` folds in both files enter the table; the others are listed on
stderr. Standard library only.
"""

import argparse
import json
import math
import sys

from bayes_signed_rank import signed_rank_test


def read_lines(paths, key):
    """JSON lines with `key` (later lines of a set replace earlier ones)."""
    out = {}
    for path in paths:
        with open(path) as fh:
            for line in fh:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if key in rec and "set" in rec and "error" not in rec:
                    out[rec["set"]] = rec
    return out


def fmt(value, digits=3):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", nargs="+", required=True, help="skewgp_pmlb --json output file(s)")
    ap.add_argument("--gpy", nargs="+", required=True, help="gpy_pmlb.py output file(s)")
    ap.add_argument("--folds", type=int, default=5, help="folds a set needs to enter the table")
    ap.add_argument("--long-ep", nargs="*", default=[], help="merged skewgp_pmlb lines of GP-EP at another budget")
    ap.add_argument("--long-ep-label", default="GP-EP, 1 000 steps", help="name of the --long-ep column")
    ap.add_argument(
        "--long-ep-skew0", action="store_true", help="with --long-ep: also its lines' SkewGP0 at their kernel"
    )
    args = ap.parse_args()

    ours = read_lines(args.ours, "info_skew2")
    gpy = read_lines(args.gpy, "info_gpy_ep")
    long_ep = {
        name: {
            "info_gpep_long": rec.get("info_gpep"),
            "acc_gpep_long": rec.get("acc_gpep"),
            "info_skew0ep_long": rec.get("info_skew0ep"),
        }
        for name, rec in read_lines(args.long_ep, "info_gpep").items()
        if rec.get("folds") == args.folds
    }
    cols = [
        ("info_skew2", "SkewGP2"),
        ("info_skew0", "SkewGP0"),
        ("info_gpep", "GP-EP (ours)"),
        ("info_skew0ep", "SkewGP0 at GP-EP's kernel"),
        ("info_gpy_ep", "GPy EP"),
        ("info_gpy_laplace", "GPy Laplace"),
    ]
    accs = ["acc_skew2", "acc_skew0", "acc_gpep", "acc_gpy_ep", "acc_gpy_laplace"]
    if args.long_ep:
        cols.insert(3, ("info_gpep_long", args.long_ep_label))
        accs.insert(3, "acc_gpep_long")
    skew0_long = bool(args.long_ep) and args.long_ep_skew0
    if skew0_long:
        cols.insert(4, ("info_skew0ep_long", f"SkewGP0 at the kernel of {args.long_ep_label}"))
    head = ["set", "rows", "d"] + [c[1] for c in cols]
    head += ["lattice s.e. SkewGP2 / SkewGP0 / SkewGP0-at-EP (bits)", "points per shift"]
    head += ["acc SkewGP2", "acc SkewGP0", "acc GP-EP"]
    head += [f"acc {args.long_ep_label}"] if args.long_ep else []
    head += ["acc GPy EP", "acc GPy Laplace", "GPy failures EP / Laplace"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rows = []
    for name, rec in ours.items():
        peer = gpy.get(name)
        if rec.get("folds") != args.folds or peer is None or peer.get("folds") != args.folds:
            have = f"ours {rec.get('folds')} folds, GPy {peer.get('folds') if peer else 0}"
            print(f"{name}: left out ({have})", file=sys.stderr)
            continue
        merged = {**rec, **peer, **long_ep.get(name, {})}
        rows.append(merged)
        se = " / ".join(fmt(merged.get(f"qmc_se_{m}"), 4) for m in ("skew2", "skew0", "skew0ep"))
        pts = " / ".join(fmt(merged.get(f"qmc_points_{m}"), 0) for m in ("skew2", "skew0", "skew0ep"))
        cells = [name, str(rec["rows"]), str(rec["features"])]
        cells += [fmt(merged.get(k)) for k, _ in cols] + [se, pts] + [fmt(merged.get(k)) for k in accs]
        cells.append(f"{peer.get('failures_ep', 0)} / {peer.get('failures_laplace', 0)}")
        print("| " + " | ".join(cells) + " |")
    complete = [r for r in rows if all(r.get(k) is not None for k, _ in cols)]
    cells = [f"**mean, {len(complete)} sets**", "", ""]
    cells += [f"**{fmt(mean([r[k] for r in complete]))}**" for k, _ in cols] + ["", ""]
    cells += [fmt(mean([r[k] for r in complete])) for k in accs] + [""]
    print("| " + " | ".join(cells) + " |")
    # Per-set comparisons of SkewGP2 and SkewGP0 with each other column (information).
    print(
        "\n| pair (information) | wins / ties / losses | two-sided sign test p | mean difference | median difference"
        " | Bayesian signed-rank, rope 0.01: P(first better) / P(equivalent) / P(second better) |"
    )
    print("|---|---|---|---|---|---|")
    names = dict(cols)
    firsts = ["info_skew2", "info_skew0"] + (["info_gpep_long"] if args.long_ep else [])
    firsts += ["info_skew0ep_long"] if skew0_long else []
    for i, a in enumerate(firsts):
        for b, label in cols:
            if b == a or b in firsts[:i]:
                continue
            diffs = [r[a] - r[b] for r in complete]
            wins = sum(d > 0.0005 for d in diffs)
            losses = sum(d < -0.0005 for d in diffs)
            ties = len(diffs) - wins - losses
            cells = [f"{names[a]} vs {label}", f"{wins} / {ties} / {losses}", f"{sign_test_p(wins, losses):.3f}"]
            cells += [f"{mean(diffs):+.3f}", f"{median(diffs):+.3f}"]
            p_second, p_rope, p_first = signed_rank_test(diffs, rope=0.01, samples=50000, seed=0)
            cells.append(f"{p_first:.3f} / {p_rope:.3f} / {p_second:.3f}")
            print("| " + " | ".join(cells) + " |")


def sign_test_p(wins, losses):
    """Two-sided sign test: P(a split at least this uneven | p = 1/2), ties dropped."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def median(values):
    v = sorted(values)
    if not v:
        return float("nan")
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])


if __name__ == "__main__":
    main()
