#!/usr/bin/env bash
# Sparse EP classification peer comparison: burn-gp's EP GP classifier (experiments/examples/ep_uci.rs; SEP,
# GFITC-style, SVI) against GPy's sparse EP classifier (SparseGPClassification with EPDTC,
# benches/peers/gpy_ep.py) on the same PMLB/UCI 90/10 splits, fractions of inducing points and
# iteration budget. Prints test NLL, error and training seconds per split side by side.
#
#   benches/peers/ep_run.sh                                        # pima, 15 %, 2 splits, SEP vs GPy
#   benches/peers/ep_run.sh --datasets pima,sonar --inducing 0.15,0.25 --splits 5 --modes sep,gfitc,svi
#   benches/peers/ep_run.sh --only gpy                             # peer only (reuses the split files)
#
# Options: --datasets --inducing --splits --iterations --threads --modes (ours; default sep)
#          --only ours,gpy
# Environment: BURN_GP_DATA (data root), GPY_VENV (default <repo>/.venv-gpy if present, else
#              <repo>/.venv-peers; needs `pip install GPy`), PEERS_OUT (default
#              <repo>/bench-out/peers-ep), EP_UCI_BIN (use this ep_uci binary instead of
#              `cargo build --release -p burn-gp-experiments --example ep_uci`), GPY_EP_ARGS (extra gpy_ep.py options,
#              e.g. "--rounds 1" or "--ep-mode nested").
# The split files go to $PEERS_OUT/splits/<dataset>_<k>.json (written by ours, read by GPy).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DATASETS=pima INDUCING=0.15 SPLITS=2 ITERATIONS=250 THREADS=1 MODES=sep ONLY=ours,gpy
while [[ $# -gt 0 ]]; do
  case "$1" in
    --datasets) DATASETS=$2; shift 2 ;;
    --inducing) INDUCING=$2; shift 2 ;;
    --splits) SPLITS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -n "${GPY_VENV:-}" ]]; then VENV=$GPY_VENV
elif [[ -x "$ROOT/.venv-gpy/bin/python" ]]; then VENV=$ROOT/.venv-gpy
else VENV=$ROOT/.venv-peers; fi
OUT="${PEERS_OUT:-$ROOT/bench-out/peers-ep}"
SPLITS_DIR="$OUT/splits"
mkdir -p "$OUT" "$SPLITS_DIR"
export RAYON_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS
data_args=()
[[ -n "${BURN_GP_DATA:-}" ]] && data_args=(--data "$BURN_GP_DATA")
tag="${DATASETS//,/-}_${INDUCING//,/-}_s${SPLITS}_it${ITERATIONS}"
ours_out="$OUT/ours_$tag.out" gpy_out="$OUT/gpy_$tag.out"
status=0
if [[ ",$ONLY," == *",ours,"* ]]; then
  rm -f "$ours_out"
  bin="${EP_UCI_BIN:-}"
  if [[ -z "$bin" ]]; then
    bin=./target/release/examples/ep_uci
    cargo build --release -p burn-gp-experiments --example ep_uci >"$OUT/build.log" 2>&1 || { echo "cargo build failed (see $OUT/build.log)"; status=1; }
  fi
  "$bin" --datasets "$DATASETS" --inducing "$INDUCING" --splits "$SPLITS" --modes "$MODES" \
    --iterations "$ITERATIONS" --splits-out "$SPLITS_DIR" --results "$ours_out" --no-progress "${data_args[@]}" \
    >"$OUT/ours_$tag.table" 2>"$OUT/ours_$tag.err" || { echo "ep_uci failed (see $OUT/ours_$tag.err)"; status=1; }
fi
if [[ ",$ONLY," == *",gpy,"* ]]; then
  rm -f "$gpy_out"
  if "$VENV/bin/python" -c "import GPy" 2>/dev/null; then
    # shellcheck disable=SC2086
    "$VENV/bin/python" benches/peers/gpy_ep.py --splits-dir "$SPLITS_DIR" --datasets "$DATASETS" \
      --inducing "$INDUCING" --iterations "$ITERATIONS" --threads "$THREADS" --max-splits "$SPLITS" \
      --verbose "${data_args[@]}" ${GPY_EP_ARGS:-} >"$gpy_out" 2>"$OUT/gpy_$tag.err" \
      || { echo "gpy_ep.py failed or had failed runs (see $OUT/gpy_$tag.err)"; status=1; }
    grep -h "splits succeeded" "$OUT/gpy_$tag.err" || true
  else
    echo "GPy is not importable from $VENV (pip install GPy; see benches/peers/gpy_ep.py)"; status=1
  fi
fi
python3 - "$DATASETS" "$INDUCING" "$ours_out" "$gpy_out" <<'EOF'
import json, sys
datasets = [s for s in sys.argv[1].split(",") if s]
fracs = [float(s) for s in sys.argv[2].split(",") if s]
rows = []
for path in sys.argv[3:]:
    try:
        rows += [json.loads(l) for l in open(path) if l.startswith("{")]
    except OSError:
        pass
names = {"sep": "burn-gp SEP", "gfitc": "burn-gp GFITC", "svi": "burn-gp SVI", "gpy_ep": "GPy EPDTC"}
order = {"sep": 0, "gfitc": 1, "svi": 2, "gpy_ep": 3}
print("| dataset | m | implementation | test NLL (mean ± sd) | error (mean ± sd) | train s per split | splits |")
print("|---|---|---|---|---|---|---|")
for d in datasets:
    for f in fracs:
        sel = sorted((r for r in rows if r["dataset"] == d and abs(r["inducing"] - f) < 1e-9),
                     key=lambda r: order.get(r["mode"], 9))
        if not sel:
            print(f"| {d} | {f:.0%} | — | failed | — | — | 0 |")
            continue
        for r in sel:
            splits = f"{r['splits']}" + (f"/{r['splits_total']}" if r.get("splits_total", r["splits"]) != r["splits"] else "")
            print(f"| {d} | {f:.0%} ({r['m']}) | {names.get(r['mode'], r['mode'])} | "
                  f"{r['nll']:.3f} ± {r['nll_sd']:.3f} | {r['error']:.3f} ± {r['error_sd']:.3f} | "
                  f"{r['train_s']:.2f} | {splits} |")
EOF
exit $status
