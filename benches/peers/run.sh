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

ARGS=(--dataset "$DATASET" --split "$SPLIT" --m "$M" --batch "$BATCH" --epochs "$EPOCHS" --lr "$LR")

# ---------------------------------------------------------------- peer venv
venv_ok=0
if selected gpflow || selected gpytorch; then
  want=$(sha256sum "$REQ" | cut -d' ' -f1)
  stamp=$VENV/.peers-requirements.sha256
  if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    venv_ok=1
  elif [ "$INSTALL" = 0 ]; then
    log "venv $VENV missing or out of date and --no-install given"
  else
    log "installing peers into $VENV (about 3.4 GB of wheels, mostly torch's CUDA libraries; see README)"
    t0=$(date +%s)
    if timeout "$INSTALL_TIMEOUT" bash -c '
        set -e
        [ -x "$1/bin/python" ] || python3 -m venv "$1"
        "$1/bin/python" -m pip install -q --upgrade pip
        "$1/bin/python" -m pip install -r "$2"
      ' _ "$VENV" "$REQ" > "$OUT/install.log" 2>&1; then
      echo "$want" > "$stamp"
      venv_ok=1
      log "installed in $(( $(date +%s) - t0 )) s"
    else
      log "peer install failed (rc $?), see $OUT/install.log"; tail -5 "$OUT/install.log" >&2
    fi
  fi
fi

# --------------------------------------------------------------------- runs
busy_cores() {  # cores kept busy by other processes over one second (from /proc/stat)
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat); sleep 1; read -r -a b < <(grep '^cpu ' /proc/stat)
  awk -v n="$(nproc)" -v a="${a[*]}" -v b="${b[*]}" 'BEGIN {
    split(a, x, " "); split(b, y, " "); tot = 0
    for (i = 2; i <= 9; i++) tot += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf "%.2f\n", (tot > 0 ? n * (tot - idle) / tot : 0) }'
}

run_one() {  # name timeout cmd...
  local name=$1 limit=$2; shift 2
  log "running $name: $*"
  busy_cores > "$OUT/$name.load"   # shown in the table: a busy machine skews timings
  timeout "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  if [ $rc -eq 0 ]; then echo ok > "$OUT/$name.status"
  elif [ $rc -eq 124 ]; then echo "failed: timed out after ${limit}s" > "$OUT/$name.status"
  else echo "failed: exit $rc" > "$OUT/$name.status"; fi
  [ $rc -eq 0 ] || { log "$name failed (rc $rc); last lines of $OUT/$name.err:"; tail -5 "$OUT/$name.err" >&2; }
}

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
