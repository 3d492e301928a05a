# SuiteSparse 5.12 on Debian ships no CMake config (pitfalls.md): find CHOLMOD by hand.
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
  message(FATAL_ERROR "CHOLMOD not found: apt-get install libsuitesparse-dev (make deps does it)")
endif()
