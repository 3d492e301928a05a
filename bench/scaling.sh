#!/bin/sh
# Scaling of the command-line path and the library path at 10^2 .. 10^MAX bodies.
#
#   bench/scaling.sh [BUILD_DIR] [MAX_EXPONENT]        (defaults: build, 6)
#
# Random trees from bench/random_tree.py (URDF with joints in shuffled order, DOT with edges in
# shuffled order) in a temporary directory, then per size:
#   graph      skograph graph tree.dot --json > /dev/null: wall time and peak memory
#   cli id/fd  skograph bench tree.urdf --algo id|fd: wall time of the whole command (reading the
#              file, the model, the timing loop) and peak memory; its per-call time per link
#   library    skograph_bench BM_Scaling*/N (bench/scaling_bench.cpp): model build, inverse and
#              forward dynamics per link, peak memory of that process
# Prints one markdown table. Wall times and peak memory come from /usr/bin/time.
set -eu
build=${1:-build}
max=${2:-6}
python=/usr/bin/python3
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
skograph="$build/bin/skograph"
bench="$build/bin/skograph_bench"
for tool in "$skograph" "$bench" /usr/bin/time "$python"; do
  [ -x "$tool" ] || { echo "bench/scaling.sh: $tool not found (build first: make build)" >&2; exit 2; }
done

# time_of COMMAND...: runs it, prints "seconds kilobytes" of wall time and peak memory.
time_of() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2>&1
  cat "$work/time"
}
# per_link NS_PER_CALL LINKS
per_link() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.0f", t / n }'; }
megabytes() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

echo "| bodies | graph --json | bench id: command | id per link | bench fd: command | fd per link | library: build / id / fd per link | library peak |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
exponent=2
while [ "$exponent" -le "$max" ]; do
  n=$(awk -v e="$exponent" 'BEGIN { printf "%d", 10 ^ e }')
  "$python" "$here/random_tree.py" urdf "$n" > "$work/tree.urdf"
  "$python" "$here/random_tree.py" dot "$n" > "$work/tree.dot"
  set -- $(time_of "$skograph" graph "$work/tree.dot" --json)
  graph="$1 s, $(megabytes "$2") MB"
  cells=""
  for algo in id fd; do
    set -- $(time_of "$skograph" bench "$work/tree.urdf" --algo "$algo")
    ns=$(sed -n 's/.*: [a-z]* \([0-9.e+-]*\) ns per call.*/\1/p' "$work/out")
    cells="$cells | $1 s, $(megabytes "$2") MB | $(per_link "$ns" "$n") ns"
  done
  library=""
  for what in BuildModel InverseDynamics ForwardDynamics; do
    "$bench" --benchmark_filter="BM_Scaling$what/$n\$" --benchmark_format=json > "$work/library.json"
    seconds=$(sed -n 's/.*"ns_per_link": \([0-9.e+-]*\).*/\1/p' "$work/library.json")
    peak=$(sed -n 's/.*"peak_rss_MB": \([0-9.e+-]*\).*/\1/p' "$work/library.json")
    library="$library${library:+ / }$(awk -v t="$seconds" 'BEGIN { printf "%.0f", t * 1e9 }')"
  done
  echo "| 10^$exponent | $graph$cells | $library ns | $(awk -v m="$peak" 'BEGIN { printf "%.0f", m }') MB |"
  exponent=$((exponent + 1))
done
