#!/usr/bin/env bash
# Runs a hybrid example (CNN + Bayesian SVM head, and the same CNN with softmax) for several seeds
# and training-set sizes and prints one markdown table: seed, images, epochs, hybrid accuracy and
# NLL, softmax accuracy and NLL, seconds. Also checks that the first seed repeats bit for bit when
# --repeat is given.
#
#   benches/hybrid_reliability.sh [--example mnist_hybrid] [--seeds "0 1 2 3 4"] [--sizes "6400 0"]
#                                 [--epochs "1 3"] [--repeat] [--out FILE] [-- extra example flags]
#
# --example mnist_hybrid_full (experiments/) for the research flags after `--` (--trace, --feature-norm, …).
# --sizes and --epochs are paired element by element (size 0 = all training images). The table
# goes to stdout and, with --out, to FILE; each run's JSON line is kept in FILE.jsonl.
# HYBRID_BIN=PATH runs that binary instead of building the example.
set -euo pipefail
cd "$(dirname "$0")/.."
example=mnist_hybrid seeds="0 1 2 3 4" sizes="6400 0" epochs="1 3" repeat=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --example) example=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --repeat) repeat=1; shift ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
extra=("$@")
bin=${HYBRID_BIN:-target/release/examples/$example}
[ -n "${HYBRID_BIN:-}" ] || cargo build --release --workspace --example "$example" >&2
read -r -a size_list <<<"$sizes"
read -r -a epoch_list <<<"$epochs"
if [ "${#size_list[@]}" != "${#epoch_list[@]}" ]; then
  echo "--sizes and --epochs need the same number of entries" >&2; exit 2
fi
jsonl=$(mktemp)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
avx512=$(grep -qw avx512f /proc/cpuinfo && echo "with AVX-512" || echo "without AVX-512")
header="$example, $(date -u +%Y-%m-%d), $cpu ($avx512), $(nproc) threads, flags: ${extra[*]:-none}"
run_one() { # seed size epochs tag
  local start end line
  start=$(date +%s%N)
  line=$("$bin" --seed "$1" --train-size "$2" --epochs "$3" --json --no-progress "${extra[@]}" 2>/dev/null | tail -1)
  end=$(date +%s%N)
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["seconds"]=float(sys.argv[2]); d["seed"]=int(sys.argv[3]); d["tag"]=sys.argv[4]; print(json.dumps(d))' \
    "$line" "$(( (end - start) / 1000000 ))e-3" "$1" "$4" >>"$jsonl"
}
for i in "${!size_list[@]}"; do
  for seed in $seeds; do
    run_one "$seed" "${size_list[$i]}" "${epoch_list[$i]}" run
  done
  if [ "$repeat" = 1 ]; then
    first=$(echo "$seeds" | awk '{print $1}')
    run_one "$first" "${size_list[$i]}" "${epoch_list[$i]}" repeat
  fi
done
table=$(python3 - "$jsonl" "$header" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
f = lambda v: "–" if v is None else f"{v:.4f}"
print(f"{sys.argv[2]}\n")
print("| seed | images | epochs | hybrid acc | hybrid NLL | softmax acc | softmax NLL | seconds | note |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    note = ""
    if r["tag"] == "repeat":
        twin = next(o for o in rows if o["tag"] == "run" and o["seed"] == r["seed"] and o["train_size"] == r["train_size"] and o["epochs"] == r["epochs"])
        same = all(twin[k] == r[k] for k in ("accuracy", "nll", "ece", "softmax_accuracy", "softmax_nll"))
        note = "repeat: identical" if same else "repeat: DIFFERS"
    print(f"| {r['seed']} | {r['train_size']} | {r['epochs']} | {f(r['accuracy'])} | {f(r['nll'])} | "
          f"{f(r.get('softmax_accuracy'))} | {f(r.get('softmax_nll'))} | {r['seconds']:.0f} | {note} |")
PY
)
echo "$table"
if [ -n "$out" ]; then echo "$table" >"$out"; cp "$jsonl" "$out.jsonl"; fi
rm -f "$jsonl"
