#!/usr/bin/env bash
# Multi-class Bayesian SVM: burn-gp (`bsvm_pmlb` example: MC-BSVM, one-vs-rest
# BSVM, SVGP RobustMax) against GPflow's SVGP RobustMax on PMLB multi-class
# sets, on exactly the data and inducing points our run exports.
#
# usage: benches/peers/bsvm_run.sh [--sets a,b,c] [--splits K] [--epochs E]
#            [--batch B] [--export DIR] [--only ours,gpflow] [--no-install]
#
# --sets/--splits/--epochs/--batch are passed to `bsvm_pmlb` only when given
# (otherwise its defaults apply; they are recorded in each split's meta.json,
# which GPflow reads) and to gpflow_multiclass.py as overrides.
# --export DIR: where our run writes the data and GPflow reads it (default
# $PEERS_OUT/export, emptied before our run; a DIR given here is not emptied).
# `--only gpflow` re-runs the peer on the export of an earlier run; our earlier
# results, if any, are then shown as such.
#
# Environment:
#   PEERS_VENV          venv path (default: <repo>/.venv-peers, shared with run.sh)
#   PEERS_OUT           logs and results (default: <repo>/bench-out/bsvm-peers)
#   THREADS             threads for every program (default 2)
#   INSTALL_TIMEOUT     seconds for venv creation + pip install (default 1800)
#   BUILD_TIMEOUT       seconds for `cargo build --release -p burn-gp-experiments --example bsvm_pmlb` (default 1800)
#   OURS_TIMEOUT        seconds for our run, all sets (default 3600)
#   PEER_TIMEOUT        seconds for the GPflow run, all sets (default 3600)
#
# Prints a table and, as its last line, one JSON object {"bench":"bsvm_peers",...}.
# Exits 0 when every selected run produced a result for every set and split,
# 1 otherwise (the table is printed either way).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

SETS="" SPLITS="" EPOCHS="" BATCH="" EXPORT=""
ONLY=ours,gpflow
INSTALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --sets) SETS=$2; shift 2 ;;
    --splits) SPLITS=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --export) EXPORT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) sed -n '2,28p' "$0" | cut -c3-; exit 0 ;;
    *) echo "bsvm_run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -n "$SPLITS" ] && ! [[ $SPLITS =~ ^[1-9][0-9]*$ ]]; then
  echo "bsvm_run.sh: --splits takes a count (splits 0..K-1), got $SPLITS" >&2; exit 2
fi

VENV=${PEERS_VENV:-$ROOT/.venv-peers}
OUT=${PEERS_OUT:-$ROOT/bench-out/bsvm-peers}
THREADS=${THREADS:-2}
INSTALL_TIMEOUT=${INSTALL_TIMEOUT:-1800}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-1800}
OURS_TIMEOUT=${OURS_TIMEOUT:-3600}
PEER_TIMEOUT=${PEER_TIMEOUT:-3600}
REQ=$HERE/requirements.txt
CLEAR_EXPORT=0
[ -n "$EXPORT" ] || { EXPORT=$OUT/export; CLEAR_EXPORT=1; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
case "$EXPORT" in /*) ;; *) EXPORT=$PWD/$EXPORT ;; esac  # cargo runs from the repo root

export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS OPENBLAS_NUM_THREADS=$THREADS
export RAYON_NUM_THREADS=$THREADS
export CUDA_VISIBLE_DEVICES=""     # CPU everywhere, also on a machine with a GPU
export TF_CPP_MIN_LOG_LEVEL=2
export PYTHONUNBUFFERED=1

selected() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
log() { echo "[bsvm-peers] $*" >&2; }
# shellcheck source=common.sh
source "$HERE/common.sh"
for name in ours gpflow; do   # results of runs not selected are kept (shown as earlier runs)
  if selected "$name"; then rm -f "$OUT/$name".{status,out,err,load,build.log}; fi
done

# Options given on our command line, forwarded to both sides.
OURS_ARGS=(--export "$EXPORT" --json)
PEER_ARGS=(--export "$EXPORT" --threads "$THREADS")
REPORT_ARGS=(--only "$ONLY")
if [ -n "$SETS" ]; then OURS_ARGS+=(--sets "$SETS"); PEER_ARGS+=(--sets "$SETS"); REPORT_ARGS+=(--sets "$SETS"); fi
if [ -n "$SPLITS" ]; then
  OURS_ARGS+=(--splits "$SPLITS"); REPORT_ARGS+=(--splits "$SPLITS")
  PEER_ARGS+=(--splits "$(seq -s, 0 $((SPLITS - 1)))")
fi
if [ -n "$EPOCHS" ]; then OURS_ARGS+=(--epochs "$EPOCHS"); PEER_ARGS+=(--epochs "$EPOCHS"); fi
if [ -n "$BATCH" ]; then OURS_ARGS+=(--batch "$BATCH"); PEER_ARGS+=(--batch "$BATCH"); fi

# ---------------------------------------------------------------- peer venv
venv_ok=0
if selected gpflow; then
  ensure_venv
fi

# --------------------------------------------------------------------- runs

if selected ours; then
  [ "$CLEAR_EXPORT" = 1 ] && rm -rf "$EXPORT"
  mkdir -p "$EXPORT"
  log "building bsvm_pmlb (release)"
  if (cd "$ROOT" && timeout "$BUILD_TIMEOUT" cargo build --release -p burn-gp-experiments --example bsvm_pmlb) > "$OUT/ours.build.log" 2>&1; then
    (cd "$ROOT" && run_one ours "$OURS_TIMEOUT" cargo run -q --release -p burn-gp-experiments --example bsvm_pmlb -- "${OURS_ARGS[@]}")
  else
    echo "failed: build (see ours.build.log)" > "$OUT/ours.status"
    log "bsvm_pmlb did not build; last lines:"; tail -5 "$OUT/ours.build.log" >&2
  fi
fi

if selected gpflow; then
  if [ "$venv_ok" != 1 ]; then
    echo "failed: peer venv not installed" > "$OUT/gpflow.status"
  elif [ ! -d "$EXPORT" ]; then
    echo "failed: no export at $EXPORT (run with ours first)" > "$OUT/gpflow.status"
  else
    run_one gpflow "$PEER_TIMEOUT" "$VENV/bin/python" "$HERE/gpflow_multiclass.py" "${PEER_ARGS[@]}"
  fi
fi

# ------------------------------------------------------------------- report
python3 "$HERE/bsvm_report.py" "$OUT" "${REPORT_ARGS[@]}" | tee "$OUT/report.txt"
exit "${PIPESTATUS[0]}"
