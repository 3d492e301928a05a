#!/bin/sh
# skograph as a package. Installs the build tree into a scratch prefix, then, as a user
# would: builds examples/cpp with find_package(skograph) and runs its programs on example models,
# compiles a program with `pkg-config --cflags --libs skograph` alone, and runs the installed
# program. Usage: install_and_build_examples.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

# find_package(skograph COMPONENTS ...) from a project that knows nothing of the build tree.
cmake -S "$source/examples/cpp" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/examples" -j2 > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
models=$source/examples/models
"$work/examples/robot_dynamics" "$models/arm7.urdf"
"$work/examples/robot_dynamics" "$models/humanoid.xml"
"$work/examples/closed_chain" "$models/fourbar_chain.yaml"
"$work/examples/closed_chain" "$models/stewart_platform.yaml"
"$work/examples/sparse_factor" "$models/humanoid.yaml" "$work/M.mtx"
head -1 "$work/M.mtx" | grep -q "MatrixMarket matrix coordinate real symmetric"

# A bad file: one line naming it, status 2, from the library's exceptions.
if "$work/examples/robot_dynamics" "$source/examples/bad/missing_child.urdf" 2> "$work/bad.txt"; then
  echo "a bad file was accepted"; exit 1
fi
test "$(wc -l < "$work/bad.txt")" -eq 1 && grep -q missing_child.urdf "$work/bad.txt"

# pkg-config alone (relocated prefix: the .pc file finds it from its own folder).
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name skograph.pc)")"
test "$(pkg-config --modversion skograph)" = "$("$prefix/bin/skograph" --version | cut -d' ' -f2)"
# The umbrella header and the library's version.
cat > "$work/umbrella.cpp" <<'PROGRAM'
#include <skograph/skograph.hpp>
#include <iostream>
int main(int, char** argv) {
  const skograph::Model model = skograph::load_model(argv[1]);
  std::cout << skograph::version() << " " << model.dof_count() << "\n";
}
PROGRAM
c++ -O1 -o "$work/pkg_config_program" "$work/umbrella.cpp" $(pkg-config --cflags --libs skograph)
test "$("$work/pkg_config_program" "$models/space_arm.urdf")" = "$(pkg-config --modversion skograph) 12"
# The Python package, where the install put it (PREFIX/lib/python3.X/dist-packages).
package=$(find "$prefix" -path "*dist-packages/skograph/__init__.py" | head -1)
if [ -n "$package" ]; then
  (cd "$work" && PYTHONPATH="$(dirname "$(dirname "$package")")" /usr/bin/python3 -c \
    "import skograph, sys; m = skograph.load_model(sys.argv[1]); print('python:', m, skograph.__file__)" \
    "$models/arm7.urdf") | grep -q "$prefix"
fi
echo "installed $("$prefix/bin/skograph" --version): examples built and run"
