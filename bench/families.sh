#!/bin/sh
# The serial-chain paper's algorithm families against N: `skograph bench --algo` of
# every member on random serial chains of N links (bench/random_tree.py chain N), N = 5 .. 1000.
#
#   bench/families.sh [BUILD_DIR] [SIZES]     (defaults: build, "5 10 20 50 100 200 500 1000")
#
# Prints one markdown table of microseconds per call (each call from q and qd: kinematics, the
# model's SKO form, then the algorithm). O(N^3): M by a method, C by Newton-Euler, a dense Cholesky
# solve; O(N^2): innovations factors, conjugate gradients; O(N): articulated body.
set -eu
build=${1:-build}
sizes=${2:-"5 10 20 50 100 200 500 1000"}
here=$(dirname "$0")
skograph="$build/bin/skograph"
[ -x "$skograph" ] || { echo "bench/families.sh: $skograph not found (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
algos="mass mass-sko mass-symmetry mass-direct fd-crba fd-sko-crba fd-symmetry fd-direct fd-innovations fd-cg fd-pcg fd-sko fd id id-sko id-composite"
printf '| N |'
for a in $algos; do printf ' %s |' "$a"; done
printf '\n|---:|'
for a in $algos; do printf -- '---:|'; done
printf '\n'
for n in $sizes; do
  /usr/bin/python3 "$here/random_tree.py" chain "$n" > "$work/chain.urdf"
  printf '| %s |' "$n"
  for a in $algos; do
    reps=11
    [ "$n" -ge 500 ] && reps=3
    ns=$("$skograph" bench "$work/chain.urdf" --algo "$a" --reps "$reps" --json |
         /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["ns_per_call"])')
    printf ' %s |' "$(/usr/bin/python3 -c "print(f'{$ns / 1000:.3g}')")"
  done
  printf '\n'
done
