#!/usr/bin/env bash
# Speed peer of the ODVFF benchmark (paper 002, Table 5 settings) on protein: seconds per 1000
# training iterations of burn-gp's odvgp_regression (ODVFF, ODVGP, SVGP) and of GPflow's SVGP
# (benches/peers/dff_gpflow.py; GPflow 2 has no orthogonally decoupled model), same split, same
# additive Matérn-3/2 prior, minibatch 400, |γ| = 300, |β| = 100, M = 400, float64, CPU.
#
#   benches/peers/dff_run.sh                          # protein split 0, 1000 iterations, 2 threads
#   benches/peers/dff_run.sh --iterations 2000 --threads 1 --only ours
#
# Options: --split --iterations --threads --only ours,gpflow --no-install
# Environment: BURN_GP_DATA (data root, default ../shared/data), DFF_VENV (default
#   /work/.venv-dff, created from benches/peers/dff_requirements.txt), PEERS_OUT (default
#   <repo>/bench-out/peers-dff). Our timings are the optimisation time of `--iterations` steps
#   (rounded up to whole epochs, evaluation excluded) scaled to 1000; GPflow's exclude tracing
#   and 20 warm-up steps. The last stdout line is one JSON object.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SPLIT=0 ITER=1000 THREADS=2 ONLY=ours,gpflow INSTALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --split) SPLIT=$2; shift 2 ;;
    --iterations) ITER=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "dff_run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
DATA=${BURN_GP_DATA:-$ROOT/../shared/data}
VENV=${DFF_VENV:-/work/.venv-dff}
OUT=${PEERS_OUT:-$ROOT/bench-out/peers-dff}
REQ=$HERE/dff_requirements.txt
INSTALL_TIMEOUT=${INSTALL_TIMEOUT:-1800}
mkdir -p "$OUT"
export BURN_GP_DATA=$DATA RAYON_NUM_THREADS=$THREADS OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS \
  OPENBLAS_NUM_THREADS=$THREADS CUDA_VISIBLE_DEVICES="" TF_CPP_MIN_LOG_LEVEL=2 PYTHONUNBUFFERED=1
selected() { case ",$ONLY," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
log() { echo "[dff-peers] $*" >&2; }
# shellcheck source=common.sh
source "$HERE/common.sh"
status=0
declare -A S_PER_1000 TEST_LL
if selected ours; then
  log "building odvgp_regression (release)"
  if (cd "$ROOT" && cargo build --release -p burn-gp-experiments --example odvgp_regression) > "$OUT/build.log" 2>&1; then
    BIN=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/examples/odvgp_regression
    for method in odvff odvgp svgp; do
      run_one "ours_$method" 3600 "$BIN" --dataset protein --method "$method" --splits 1 --first-split "$SPLIT" \
        --iterations "$ITER" --json --no-progress
      line=$(tail -1 "$OUT/ours_$method.out" 2>/dev/null)
      S_PER_1000[$method]=$(python3 -c "import json,sys; r=json.loads(sys.argv[1]); print(r['train_s'])" "$line" 2>/dev/null || echo nan)
      TEST_LL[$method]=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['test_ll'])" "$line" 2>/dev/null || echo nan)
      iters=$(grep -o '[0-9]* iterations in' "$OUT/ours_$method.err" | head -1 | cut -d' ' -f1)
      S_PER_1000[$method]=$(python3 -c "print(1000*float('${S_PER_1000[$method]}')/float('${iters:-nan}'))" 2>/dev/null || echo nan)
      [ "$(cat "$OUT/ours_$method.status")" = ok ] || status=1
    done
  else
    log "build failed, see $OUT/build.log"; status=1
  fi
fi
if selected gpflow; then
  ensure_venv
  if [ "$venv_ok" = 1 ]; then
    run_one gpflow_svgp 3600 "$VENV/bin/python" "$HERE/dff_gpflow.py" --dataset protein-tertiary-structure \
      --split "$SPLIT" --iterations "$ITER" --threads "$THREADS" --data "$DATA"
    line=$(tail -1 "$OUT/gpflow_svgp.out" 2>/dev/null)
    S_PER_1000[gpflow_svgp]=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['s_per_1000'])" "$line" 2>/dev/null || echo nan)
    TEST_LL[gpflow_svgp]=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['test_ll'])" "$line" 2>/dev/null || echo nan)
    [ "$(cat "$OUT/gpflow_svgp.status")" = ok ] || status=1
  else
    status=1
  fi
fi
echo "protein split $SPLIT, $ITER iterations, minibatch 400, $THREADS thread(s)"
echo "| run | s / 1000 iterations | test log-lik (after $ITER it) | busy cores before |"
echo "|---|---|---|---|"
json="{\"bench\":\"dff_peers\",\"split\":$SPLIT,\"iterations\":$ITER,\"threads\":$THREADS"
for k in odvff odvgp svgp gpflow_svgp; do
  [ -n "${S_PER_1000[$k]:-}" ] || continue
  name=$k; [ "$k" = gpflow_svgp ] || name="burn-gp $k"
  load=$(cat "$OUT/$( [ "$k" = gpflow_svgp ] && echo gpflow_svgp || echo "ours_$k").load" 2>/dev/null)
  printf '| %s | %.2f | %.4f | %s |\n' "$name" "${S_PER_1000[$k]}" "${TEST_LL[$k]}" "$load"
  json="$json,\"$k\":{\"s_per_1000\":${S_PER_1000[$k]},\"test_ll\":${TEST_LL[$k]}}"
done
echo "$json}"
exit $status
