#!/usr/bin/env bash
# SVGP regression: burn-gp (`svgp_uci` example) against GPflow and GPyTorch on
# the same UCI split, same model, same optimiser, float64, 2 threads.
#
# usage: benches/peers/run.sh [--dataset kin8nm] [--split 0] [--m 128]
#            [--batch 256] [--epochs 10] [--lr 0.01] [--data DIR]
#            [--only ours,gpflow,gpytorch] [--no-install]
#
# Environment:
#   BURN_GP_DATA        data root (default: ../shared/data from the repo root)
#   PEERS_VENV          venv path (default: <repo>/.venv-peers)
#   PEERS_OUT           logs and results (default: <repo>/bench-out/peers)
#   THREADS             threads for every program (default 2)
#   INSTALL_TIMEOUT     seconds for venv creation + pip install (default 1800)
#   BUILD_TIMEOUT       seconds for `cargo build --release --example svgp_uci` (default 1800)
#   OURS_TIMEOUT        seconds for our run (default 900)
#   PEER_TIMEOUT        seconds for each peer run (default 900)
#
# Prints a table and, as its last line, one JSON object. Exits 0 when every
# selected run succeeded, 1 otherwise (the table is printed either way).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

DATASET=kin8nm SPLIT=0 M=128 BATCH=256 EPOCHS=10 LR=0.01
DATA=${BURN_GP_DATA:-$ROOT/../shared/data}
ONLY=ours,gpflow,gpytorch
INSTALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --dataset) DATASET=$2; shift 2 ;;
    --split) SPLIT=$2; shift 2 ;;
    --m) M=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --lr) LR=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
DATA=$(cd "$DATA" 2>/dev/null && pwd || echo "$DATA")

VENV=${PEERS_VENV:-$ROOT/.venv-peers}
OUT=${PEERS_OUT:-$ROOT/bench-out/peers}
THREADS=${THREADS:-2}
INSTALL_TIMEOUT=${INSTALL_TIMEOUT:-1800}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-1800}
OURS_TIMEOUT=${OURS_TIMEOUT:-900}
PEER_TIMEOUT=${PEER_TIMEOUT:-900}
REQ=$HERE/requirements.txt

export BURN_GP_DATA=$DATA
export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS
export RAYON_NUM_THREADS=$THREADS
export CUDA_VISIBLE_DEVICES=""     # CPU everywhere, also on a machine with a GPU
export TF_CPP_MIN_LOG_LEVEL=2
export PYTHONUNBUFFERED=1

mkdir -p "$OUT"
rm -f "$OUT"/*.status "$OUT"/*.out "$OUT"/*.err "$OUT"/*.load
selected() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
log() { echo "[peers] $*" >&2; }
# shellcheck source=common.sh
source "$HERE/common.sh"

ARGS=(--dataset "$DATASET" --split "$SPLIT" --m "$M" --batch "$BATCH" --epochs "$EPOCHS" --lr "$LR")

# ---------------------------------------------------------------- peer venv
venv_ok=0
if selected gpflow || selected gpytorch; then
  ensure_venv
fi

# --------------------------------------------------------------------- runs

if selected ours; then
  log "building svgp_uci (release)"
  if (cd "$ROOT" && timeout "$BUILD_TIMEOUT" cargo build --release --example svgp_uci) > "$OUT/ours.build.log" 2>&1; then
    (cd "$ROOT" && run_one ours "$OURS_TIMEOUT" cargo run -q --release --example svgp_uci -- "${ARGS[@]}" --json)
  else
    echo "failed: build (see ours.build.log)" > "$OUT/ours.status"
    log "svgp_uci did not build; last lines:"; tail -5 "$OUT/ours.build.log" >&2
  fi
fi

for peer in gpflow gpytorch; do
  selected "$peer" || continue
  if [ "$venv_ok" = 1 ]; then
    run_one "$peer" "$PEER_TIMEOUT" "$VENV/bin/python" "$HERE/${peer}_svgp.py" "${ARGS[@]}" \
      --data "$DATA" --threads "$THREADS"
  else
    echo "failed: peer venv not installed" > "$OUT/$peer.status"
  fi
done

# ------------------------------------------------------------------- report
CORES=$(nproc) python3 "$HERE/report.py" "$OUT" "$DATASET" "$SPLIT" "$ONLY" | tee "$OUT/report.txt"
exit "${PIPESTATUS[0]}"
