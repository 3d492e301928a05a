#!/bin/sh
# The lane kernels' object files (rigid/lanes/): each defines only its instruction set's table,
# skograph::lanes::<set>::kernels, and xsimd's functions on its own batch type (an inline function
# compiled with -mavx2 or -mavx512f that another object also defines could be the copy the linker
# keeps for baseline code, which would then run wide instructions on any CPU), and none fuses a
# multiply and an add
# (-ffp-contract=off: the lanes round operation by operation as the single-state code does).
# Argument: the objects, separated by ';' (CMake's list).
status=0
for object in $(echo "$1" | tr ';' ' '); do
  case "$object" in
    *avx512*) set_name=avx512 arch=avx512f ;;
    *avx2*) set_name=avx2 arch=avx2 ;;
    *) echo "unexpected object $object"; exit 1 ;;
  esac
  # Allowed: the table (and AddressSanitizer's marker of it), and xsimd's functions on this
  # instruction set's own batch type, which no other object defines (their names carry the set).
  others=$(nm -C --defined-only "$object" | awk '$2 ~ /^[A-Z]$/ { $1 = ""; $2 = ""; print }' |
           sed 's/^ *//' | grep -v "^skograph::lanes::$set_name::kernels\$" |
           grep -v "^__odr_asan\._ZN8skograph5lanes[0-9]*${set_name}7kernelsE\$" |
           grep -v "xsimd::$arch\b" || true)
  if [ -n "$others" ]; then
    echo "$object defines external symbols another object could share:"
    echo "$others"
    status=1
  fi
  fused=$(objdump -d "$object" | grep -c 'vfn\?m\(add\|sub\)')
  if [ "$fused" != 0 ]; then
    echo "$object has $fused fused multiply-add instructions"
    status=1
  fi
done
exit $status
