#!/usr/bin/env bash
# Every speed row of burn-gp against its peer, back to back in one run, one table of ratios.
#
#   benches/peers/all.sh                 # the full workloads (about 40 min on a 2-core machine)
#   benches/peers/all.sh --quick         # shortened workloads (about 10 min), same rows
#   benches/peers/all.sh --rows svgp,cnn --threads 1 --markdown docs/results/peers.md
#
# Rows (ours against the peer; ratio = our seconds / the peer's seconds, below 1 means we are faster):
#   svgp    SVGP kin8nm split 0, M 128, batch 256, f64   vs GPflow 2.11 (tf.function) and GPyTorch  (run.sh)
#   dgp     DGP-2 boston split 0, M 100, batch 50         vs GPflux DSVI                             (dgp_run.sh)
#   cnn     MNIST trunk + softmax, batch 128, f32         vs the same network in PyTorch            (torch_cnn.py)
#           and the Bayesian-SVM head's cost over the softmax network (mnist_hybrid, same run)
#   bsvm    multi-class BSVM on iris/glass/vehicle/yeast/vowel, 50 epochs (--quick 20) vs GPflow SVGP RobustMax (bsvm_run.sh)
#   sep     minibatch SEP epoch vs our own SVI epoch on MNIST odd/even (ep_mnist)
#   linalg  Cholesky + solve + backward vs faer directly, n = 256…1024 (linalg_bench)
#
# Options: --quick, --rows LIST (default all), --threads N (default 2), --no-install (never touch the
# venv), --markdown FILE (also write the table as Markdown), --repeat N (run the svgp and dgp rows N
# times, ours and the peers alternating, and report medians: their peers' times swing most). Environment: BURN_GP_DATA (data root,
# default ../shared/data), PEERS_VENV (default <repo>/.venv-peers; needs requirements.txt plus
# `pip install gpflux`), PEERS_OUT (default <repo>/bench-out/all).
# Prints the table and, as its last line, one JSON object {"bench":"all",...} (keys: cpu, avx512,
# threads, date, quick, rows: [{row, ours_s, peer_s, ratio, target, metric_ours, metric_peer, note}],
# plus `ratios` (one per run) on the repeated rows).
# Exit status 0 when every selected row produced its numbers.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"

QUICK=0 ROWS=svgp,dgp,cnn,bsvm,sep,linalg THREADS=2 INSTALL=1 MARKDOWN="" REPEAT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --rows) ROWS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --markdown) MARKDOWN=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
export BURN_GP_DATA=${BURN_GP_DATA:-$ROOT/../shared/data}
export PEERS_VENV=${PEERS_VENV:-$ROOT/.venv-peers}
OUT=${PEERS_OUT:-$ROOT/bench-out/all}
mkdir -p "$OUT"
rm -rf "$OUT"/*.out "$OUT"/*.err "$OUT"/svgp_* "$OUT"/dgp_*
export THREADS RAYON_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS \
  OPENBLAS_NUM_THREADS=$THREADS TF_NUM_INTRAOP_THREADS=$THREADS TF_NUM_INTEROP_THREADS=1
PY="$PEERS_VENV/bin/python"
has() { [[ ",$ROWS," == *",$1,"* ]]; }
log() { echo "[all.sh $(date +%H:%M:%S)] $*" >&2; }
no_install=(); [ "$INSTALL" = 1 ] || no_install=(--no-install)

log "building the release examples"
cargo build --release --workspace --examples >"$OUT/build.log" 2>&1 || { log "cargo build failed (see $OUT/build.log)"; exit 1; }
BIN=$ROOT/target/release/examples

if has svgp; then
  epochs=10; [ "$QUICK" = 1 ] && epochs=4
  for i in $(seq 1 "$REPEAT"); do
    log "svgp ($i/$REPEAT): ours, GPflow, GPyTorch ($epochs epochs)"
    PEERS_OUT="$OUT/svgp_$i" "$HERE/run.sh" --epochs "$epochs" "${no_install[@]}" >"$OUT/svgp_$i.out" 2>"$OUT/svgp_$i.err"
  done
fi
if has dgp; then
  epochs=0; [ "$QUICK" = 1 ] && epochs=60
  for i in $(seq 1 "$REPEAT"); do
    log "dgp ($i/$REPEAT): ours, GPflux (epochs $epochs; 0 = 6000 steps)"
    PEERS_OUT="$OUT/dgp_$i" "$HERE/dgp_run.sh" --splits 0 --epochs "$epochs" --threads "$THREADS" \
      >"$OUT/dgp_$i.out" 2>"$OUT/dgp_$i.err"
  done
fi
if has cnn; then
  size=(); [ "$QUICK" = 1 ] && size=(--train-size 12800 --test-size 2000)
  log "cnn: mnist_hybrid (1 epoch each network), PyTorch"
  "$BIN/mnist_hybrid" --epochs 1 "${size[@]}" --json --no-progress >"$OUT/cnn_ours.out" 2>"$OUT/cnn_ours.err"
  "$PY" "$HERE/torch_cnn.py" --data "$BURN_GP_DATA" --epochs 1 --threads "$THREADS" "${size[@]}" \
    >"$OUT/cnn_peer.out" 2>"$OUT/cnn_peer.err"
fi
if has bsvm; then
  epochs=(--epochs 50); [ "$QUICK" = 1 ] && epochs=(--epochs 20)
  log "bsvm: bsvm_pmlb, GPflow"
  PEERS_OUT="$OUT/bsvm" "$HERE/bsvm_run.sh" --sets iris,glass,vehicle,yeast,vowel --splits 1 "${epochs[@]}" \
    "${no_install[@]}" >"$OUT/bsvm.out" 2>"$OUT/bsvm.err"
fi
if has sep; then
  size=(--epochs 1); [ "$QUICK" = 1 ] && size=(--epochs 1 --train-size 10000)
  log "sep: ep_mnist SEP and SVI"
  "$BIN/ep_mnist" "${size[@]}" --eval-every 0 --json --no-progress >"$OUT/sep.out" 2>"$OUT/sep.err"
fi
if has linalg; then
  reps=5; [ "$QUICK" = 1 ] && reps=3
  log "linalg: linalg_bench"
  "$BIN/linalg_bench" --sizes 256,512,1024 --reps "$reps" --json >"$OUT/linalg.out" 2>"$OUT/linalg.err"
fi

md=(); [ -n "$MARKDOWN" ] && md=(--markdown "$MARKDOWN")
python3 "$HERE/all_report.py" "$OUT" --rows "$ROWS" --threads "$THREADS" --quick "$QUICK" "${md[@]}"
