# Shell functions shared by the peer runners (sourced; expects VENV, REQ, OUT, INSTALL,
# INSTALL_TIMEOUT and a `log` function to be set by the caller).

# ensure_venv: sets venv_ok=1 when $VENV has the peers of $REQ installed, installing them unless
# INSTALL=0. The sha256 of the requirements file is stamped into the venv; a changed file re-runs pip.
ensure_venv() {
  venv_ok=0
  local want stamp t0
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
}

busy_cores() {  # cores kept busy by other processes over one second (from /proc/stat)
  local a b
  read -r -a a < <(grep '^cpu ' /proc/stat); sleep 1; read -r -a b < <(grep '^cpu ' /proc/stat)
  awk -v n="$(nproc)" -v a="${a[*]}" -v b="${b[*]}" 'BEGIN {
    split(a, x, " "); split(b, y, " "); tot = 0
    for (i = 2; i <= 9; i++) tot += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf "%.2f\n", (tot > 0 ? n * (tot - idle) / tot : 0) }'
}

run_one() {  # name timeout cmd...: runs cmd, keeps its output and status in $OUT/name.*
  local name=$1 limit=$2; shift 2
  log "running $name: $*"
  busy_cores > "$OUT/$name.load"   # shown in the report: a busy machine skews timings
  timeout "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  if [ $rc -eq 0 ]; then echo ok > "$OUT/$name.status"
  elif [ $rc -eq 124 ]; then echo "failed: timed out after ${limit}s" > "$OUT/$name.status"
  else echo "failed: exit $rc" > "$OUT/$name.status"; fi
  [ $rc -eq 0 ] || { log "$name failed (rc $rc); last lines of $OUT/$name.err:"; tail -5 "$OUT/$name.err" >&2; }
}
