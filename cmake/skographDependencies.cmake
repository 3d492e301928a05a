# The third-party packages of each skograph layer, found the CMake way (Debian 12 packages).
# Used twice: by the build (CMakeLists.txt) and, installed, by skographConfig.cmake for a project
# that links skograph (static libraries carry their private dependencies to the final link).
# skograph_find(PACKAGE ARGS...) is find_package(... REQUIRED) in the build and find_dependency
# in the installed package (which then reports the missing package and sets skograph_FOUND).
include_guard(GLOBAL)

# Core of every layer: graph, operators, aggregation, rigid; the threads of model's batches.
macro(skograph_find_core_dependencies)
  skograph_find(Boost 1.74 COMPONENTS graph)
  skograph_find(Eigen3 3.4 NO_MODULE)
  skograph_find(Threads)
endmacro()

# io: URDF (urdfdom, its TinyXML and console_bridge), YAML, MJCF (MuJoCo), SDF (sdformat), JSON.
macro(skograph_find_io_dependencies)
  skograph_find(nlohmann_json 3.10)
  skograph_find(urdfdom)
  skograph_find(console_bridge)
  skograph_find(yaml-cpp)
  skograph_find(mujoco)
  skograph_find(sdformat12)
  skograph_find(tinyxml2)
  # TinyXML (1) ships no CMake file on Debian: urdfdom's own XML parser, which gives us lines.
  if(NOT TARGET skograph_deps::tinyxml)
    find_path(SKOGRAPH_TINYXML_INCLUDE_DIR tinyxml.h)
    find_library(SKOGRAPH_TINYXML_LIBRARY tinyxml)
    if(SKOGRAPH_TINYXML_INCLUDE_DIR AND SKOGRAPH_TINYXML_LIBRARY)
      add_library(skograph_deps::tinyxml UNKNOWN IMPORTED)
      set_target_properties(skograph_deps::tinyxml PROPERTIES
        IMPORTED_LOCATION "${SKOGRAPH_TINYXML_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${SKOGRAPH_TINYXML_INCLUDE_DIR}"
        INTERFACE_COMPILE_DEFINITIONS TIXML_USE_STL)
    else()
      skograph_missing("TinyXML (Debian: libtinyxml-dev)")
    endif()
  endif()
endmacro()

# sparse: CHOLMOD. SuiteSparse 5.12 on Debian ships no CMake config (pitfalls.md).
macro(skograph_find_sparse_dependencies)
  if(NOT TARGET SuiteSparse::CHOLMOD)
    find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
    find_library(CHOLMOD_LIBRARY cholmod)
    find_library(SUITESPARSE_CONFIG_LIBRARY suitesparseconfig)
    if(CHOLMOD_INCLUDE_DIR AND CHOLMOD_LIBRARY)
      add_library(SuiteSparse::CHOLMOD UNKNOWN IMPORTED)
      set_target_properties(SuiteSparse::CHOLMOD PROPERTIES
        IMPORTED_LOCATION "${CHOLMOD_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${CHOLMOD_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${SUITESPARSE_CONFIG_LIBRARY}")
    else()
      skograph_missing("CHOLMOD (Debian: libsuitesparse-dev)")
    endif()
  endif()
endmacro()

# viz: Graphviz (cgraph, gvc) and cairo, through their pkg-config files. QUIET: the build leaves
# the layer out when they are missing (SKOGRAPH_VIZ=AUTO).
macro(skograph_find_viz_dependencies)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND AND NOT TARGET PkgConfig::GRAPHVIZ)
    pkg_check_modules(GRAPHVIZ QUIET IMPORTED_TARGET GLOBAL libcgraph libgvc)
    pkg_check_modules(CAIRO QUIET IMPORTED_TARGET GLOBAL cairo)
  endif()
  if(TARGET PkgConfig::GRAPHVIZ AND TARGET PkgConfig::CAIRO)
    set(SKOGRAPH_VIZ_DEPENDENCIES_FOUND TRUE)
  else()
    set(SKOGRAPH_VIZ_DEPENDENCIES_FOUND FALSE)
  endif()
endmacro()
