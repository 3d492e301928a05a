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
  case "$(basename "$object")" in
    *avx512*) set_name=avx512 arch=avx512f ;;
    *avx2*) set_name=avx2 arch=avx2 ;;
    *) echo "unexpected object $object"; exit 1 ;;
  esac
  symbols=$(nm -C --defined-only "$object") || { echo "nm failed on $object"; exit 1; }
  if ! echo "$symbols" | grep -q " skograph::lanes::$set_name::kernels\$"; then
    echo "$object does not define skograph::lanes::$set_name::kernels"
    status=1
  fi
  # Allowed: the table (and AddressSanitizer's marker of it), xsimd's functions on this
  # instruction set's own batch type, which no other object defines (their names carry the set),
  # and xsimd's reduction of large angles (sincos) with its constant tables, renamed for this set
  # (rigid/lanes/lane_kernels.hpp). Global and unique symbols count, and so would a static
  # initializer (run at load time on any CPU).
  others=$(echo "$symbols" | awk '$2 ~ /^[A-Zu]$/ { $1 = ""; $2 = ""; print }' |
           sed 's/^ *//' | grep -v "^skograph::lanes::$set_name::kernels\$" |
           grep -v "^__odr_asan\._ZN8skograph5lanes[0-9]*${set_name}7kernelsE\$" |
           grep -v "xsimd::$arch\b" |
           grep -v "^xsimd::detail::skograph_\(ieee754\|kernel\)_rem_pio2_${set_name}(")
  initializers=$(echo "$symbols" | grep "_GLOBAL__sub_I")
  if [ -n "$others$initializers" ]; then
    echo "$object defines symbols another object could share, or a static initializer:"
    echo "$others$initializers"
    status=1
  fi
  code=$(objdump -d "$object") || { echo "objdump failed on $object"; exit 1; }
  if [ -z "$(echo "$code" | grep -m1 'ret')" ]; then
    echo "objdump found no code in $object"
    status=1
  fi
  fused=$(echo "$code" | grep -c 'vfn\?m\(add\|sub\)')
  if [ "$fused" != 0 ]; then
    echo "$object has $fused fused multiply-add instructions"
    status=1
  fi
done
exit $status
