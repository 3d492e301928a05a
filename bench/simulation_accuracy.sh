#!/bin/sh
# Cost against accuracy of `skograph simulate`: fixed-step RK4 (--method rk4) at several
# steps beside Dormand-Prince (the default) at several tolerances, on the closed-chain examples.
#
#   bench/simulation_accuracy.sh [BUILD_DIR] [SECONDS]        (defaults: build, 1)
#
# Each run simulates SECONDS from the example's state, samples every 0.01 s (RK4: every step).
# Prints one markdown table: energy drift, largest position residual, right-hand-side evaluations
# (one forward dynamics each) and CPU seconds per simulated second (user time of the whole
# command, the fastest of three runs). "stops at t" marks runs that could not go on.
set -eu
build=${1:-build}
duration=${2:-1}
here=$(dirname "$0")
models="$here/../examples/models"
skograph="$build/bin/skograph"
[ -x "$skograph" ] || { echo "bench/simulation_accuracy.sh: $skograph not found (make build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run MODEL OPTIONS...: one table row.
run() {
  model=$1
  shift
  best=""
  for _ in 1 2 3; do
    if /usr/bin/time -f "%U" -o "$work/time" "$skograph" simulate "$models/$model.yaml" \
         --state "$models/${model}_state.json" --t "$duration" --json "$@" > "$work/out" 2> "$work/err"; then
      seconds=$(tail -1 "$work/time")
      best=$(echo "$best $seconds" | awk '{m=$1; for (i=2;i<=NF;i++) if ($i<m) m=$i; print m}')
    else
      stop=$(grep -o 'at t = [0-9.e-]* s' "$work/err" | head -1)
      echo "| $model | $* | stops $stop | | | |"
      return
    fi
  done
  /usr/bin/python3 - "$work/out" "$best" "$duration" "$model" "$*" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
cpu = float(sys.argv[2]) / float(sys.argv[3])
print("| %s | %s | %.2g | %.1g | %d | %.3f |" % (sys.argv[4], sys.argv[5], report["energy_drift"],
      report["position_residual"], report["evaluations"], cpu))
PY
}

echo "| model | integrator | energy drift | position residual | evaluations | CPU s per simulated s |"
echo "|---|---|---:|---:|---:|---:|"
for model in fourbar_internal_cut fourbar_chain stewart_platform; do
  for step in 1e-3 2.5e-4 1e-4; do run "$model" --method rk4 --dt "$step"; done
  for tolerance in 1e-6 1e-8 1e-9 1e-10; do
    run "$model" --dt 0.01 --rtol "$tolerance" --atol "$tolerance"
  done
done
