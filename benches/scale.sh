#!/usr/bin/env bash
# Scaling benchmark (issue 93): one epoch of each sparse model at N = 10⁴ … 10⁷ training rows and
# prediction on 10⁶ held-out rows, one process per run (so each peak memory is that run's), then the
# table and the log-log figures. About 40 min on a 2-core Xeon; run it on an otherwise idle machine.
#
#   bash benches/scale.sh [OUT.jsonl]          # default docs/results/raw/scale_<date>.jsonl
#   NS="10000 100000" bash benches/scale.sh    # fewer sizes
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/results/raw/scale_$(date +%F).jsonl}"
ns="${NS:-10000 100000 1000000 10000000}"
test_rows="${TEST_ROWS:-1000000}"
# the binary once, so that edits during the run do not rebuild it
bin=$(cargo bench --bench scale --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
bench() { "$bin" "$@"; }
: > "$out"
lscpu | sed -n 's/^Model name: *//p' | sed 's/^/# CPU: /' >&2
for spec in "svgp-regression synthetic 1000" "svgp-classification synthetic 1000" "bsvm synthetic 1000" \
            "sep synthetic 200" "svgp-regression protein 1000" "svgp-classification magic 1000"; do
  read -r model source batch <<<"$spec"
  for n in $ns; do
    echo "# $model ($source) N = $n" >&2
    bench --model "$model" --source "$source" --rows "$n" --test-rows "$test_rows" --batch "$batch" >>"$out"
  done
done
bench --report "$out" --plot docs/results/figures
