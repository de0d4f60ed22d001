#!/usr/bin/env bash
# Deep GP peer comparison: burn-gp's approximate-EP deep GP (experiments/examples/dgp_uci.rs) against GPflux's
# doubly stochastic VI deep GP (benches/peers/gpflux_dgp.py) on the same UCI splits, layers, M,
# minibatch, learning rate and epochs. Prints s/epoch, test LL and RMSE side by side.
#
#   benches/peers/dgp_run.sh                                   # boston DGP-2, M=100, splits 0..2
#   benches/peers/dgp_run.sh --dataset energy --splits 0..5 --lr 0.005
#   benches/peers/dgp_run.sh --only gpflux                     # peer only
#
# Options: --dataset --splits --layers --hidden --m --batch --epochs (0 = ceil(6000·50/N)) --lr
#          --threads --only ours|gpflux
# Environment: BURN_GP_DATA, GPFLUX_VENV (default <repo>/.venv-peers; needs `pip install gpflux`),
#              PEERS_OUT (default <repo>/bench-out/peers-dgp).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DATASET=boston SPLITS=0..2 LAYERS=2 HIDDEN=2 M=100 BATCH=50 EPOCHS=0 LR=0.005 THREADS=1 ONLY=ours,gpflux
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dataset) DATASET=$2; shift 2 ;;
    --splits) SPLITS=$2; shift 2 ;;
    --layers) LAYERS=$2; shift 2 ;;
    --hidden) HIDDEN=$2; shift 2 ;;
    --m) M=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --lr) LR=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
VENV="${GPFLUX_VENV:-$ROOT/.venv-peers}"
OUT="${PEERS_OUT:-$ROOT/bench-out/peers-dgp}"
mkdir -p "$OUT"
export RAYON_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS
tag="${DATASET}_L${LAYERS}_H${HIDDEN}_M${M}_${SPLITS}"
status=0
if [[ ",$ONLY," == *",ours,"* ]]; then
  cargo build --release -p burn-gp-experiments --example dgp_uci >"$OUT/build.log" 2>&1 || { echo "cargo build failed (see $OUT/build.log)"; status=1; }
  ./target/release/examples/dgp_uci --dataset "$DATASET" --splits "$SPLITS" --layers "$LAYERS" --hidden "$HIDDEN" \
    --m "$M" --batch "$BATCH" --epochs "$EPOCHS" --lr "$LR" --json --no-progress \
    >"$OUT/ours_$tag.out" 2>"$OUT/ours_$tag.err" || status=1
fi
if [[ ",$ONLY," == *",gpflux,"* ]]; then
  if "$VENV/bin/python" -c "import gpflux" 2>/dev/null; then
    "$VENV/bin/python" benches/peers/gpflux_dgp.py --dataset "$DATASET" --splits "$SPLITS" --layers "$LAYERS" \
      --hidden "$HIDDEN" --m "$M" --batch "$BATCH" --epochs "$EPOCHS" --lr "$LR" --threads "$THREADS" \
      >"$OUT/gpflux_$tag.out" 2>"$OUT/gpflux_$tag.err" || status=1
  else
    echo "gpflux is not importable from $VENV (pip install gpflux)"; status=1
  fi
fi
python3 - "$OUT/ours_$tag.out" "$OUT/gpflux_$tag.out" <<'EOF'
import json, sys
rows = []
for name, path in zip(["burn-gp (AEP)", "GPflux (DSVI)"], sys.argv[1:]):
    try:
        line = [l for l in open(path) if l.startswith("{")][-1]
        r = json.loads(line)
        rows.append((name, r))
    except Exception:
        rows.append((name, None))
print("| implementation | splits | epochs | s/epoch | test LL | RMSE |")
print("|---|---|---|---|---|---|")
for name, r in rows:
    if r is None:
        print(f"| {name} | — | — | — | failed | — |")
        continue
    se = lambda v: "—" if v is None else f"{v:.3f}"
    print(f"| {name} | {r['splits']} | {r['epochs']} | {r['epoch_s']:.4f} | "
          f"{r['test_ll']:.3f} ± {se(r.get('test_ll_se'))} | {r['rmse']:.3f} ± {se(r.get('rmse_se'))} |")
EOF
exit $status
