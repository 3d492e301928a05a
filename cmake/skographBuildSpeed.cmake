# skograph_unity_build(TARGET) compiles the target's sources four to a unit (CMake's unity build),
# so the headers and the Eigen templates they share are parsed and instantiated once per four files
# instead of once per file: `make demo` (the program alone, 5.2 minutes of compiling before, most of
# it Eigen's templates instantiated again in each source) builds faster on a 2-core machine. The
# sources of one library therefore never define two functions of one name in their anonymous
# namespaces (shared helpers live in a private header of the layer). `make sanitize` uses the unity
# build too. SKOGRAPH_UNITY_BUILD=OFF compiles each source alone (quicker after editing one file;
# `make fuzz` builds so): configure with it to check that every source includes what it uses.
# (Precompiled headers were tried: 5% on top, and GCC 12's false string-overflow warnings appear
# with them.)
include_guard(GLOBAL)
option(SKOGRAPH_UNITY_BUILD "Compile each library's sources four to a unit" ON)

function(skograph_unity_build target)
  if(SKOGRAPH_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 4)
  endif()
endfunction()
