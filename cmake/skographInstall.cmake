# `cmake --install BUILD [--prefix P]`: the libraries and headers (<skograph/...>), the program,
# the docs, and the package files other projects use:
#   find_package(skograph [COMPONENTS graph operators aggregation rigid io sparse viz])
#   target_link_libraries(app PRIVATE skograph::skograph)      # or skograph::io, ...
#   pkg-config --cflags --libs skograph
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# skograph::skograph: every layer this build holds.
add_library(skograph_all INTERFACE)
add_library(skograph::skograph ALIAS skograph_all)
set_target_properties(skograph_all PROPERTIES EXPORT_NAME skograph)
get_property(SKOGRAPH_LAYERS GLOBAL PROPERTY SKOGRAPH_LAYERS)
foreach(layer IN LISTS SKOGRAPH_LAYERS)
  target_link_libraries(skograph_all INTERFACE skograph_${layer})
endforeach()
install(TARGETS skograph_all EXPORT skographTargets)

set(SKOGRAPH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/skograph)
install(EXPORT skographTargets NAMESPACE skograph:: DESTINATION ${SKOGRAPH_CMAKE_DIR}
        COMPONENT development)
configure_package_config_file(cmake/skographConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/skographConfig.cmake
                              INSTALL_DESTINATION ${SKOGRAPH_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/skographConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)  # 0.x: minor releases may break
install(FILES ${CMAKE_BINARY_DIR}/package/skographConfig.cmake
              ${CMAKE_BINARY_DIR}/package/skographConfigVersion.cmake
              cmake/skographDependencies.cmake
        DESTINATION ${SKOGRAPH_CMAKE_DIR} COMPONENT development)

# Headers that are not in a layer's folder: the umbrella and the generated configuration.
install(FILES include/skograph/skograph.hpp ${SKOGRAPH_BUILD_INCLUDE_DIR}/skograph/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/skograph COMPONENT development)

# pkg-config: every layer built, dependents first, then the third-party libraries (a static link
# needs them; a shared one only privately). Public headers need Eigen (Boost and nlohmann-json
# headers live in /usr/include); the libraries the layers use privately are plain -l flags, since
# their own pkg-config files would add compile flags (sdformat12's -std=c++17) ours do not need.
set(SKOGRAPH_PC_LIBS "")
foreach(layer IN LISTS SKOGRAPH_LAYERS)
  string(PREPEND SKOGRAPH_PC_LIBS "-lskograph_${layer} ")
endforeach()
set(SKOGRAPH_PC_REQUIRES "eigen3")
set(SKOGRAPH_PC_PLAIN_LIBS "-lurdfdom_model -ltinyxml -lconsole_bridge -lyaml-cpp -lmujoco \
-lsdformat12 -lignition-math6 -ltinyxml2 -lcholmod -lsuitesparseconfig -lboost_graph")
if(SKOGRAPH_HAVE_VIZ)
  string(APPEND SKOGRAPH_PC_PLAIN_LIBS " -lcgraph -lgvc -lcairo")
endif()
set(SKOGRAPH_PC_PRIVATE "")
if(BUILD_SHARED_LIBS)
  set(SKOGRAPH_PC_PRIVATE ".private")
  string(APPEND SKOGRAPH_PC_LIBS "\nLibs.private: ${SKOGRAPH_PC_PLAIN_LIBS}")
else()
  string(APPEND SKOGRAPH_PC_LIBS "${SKOGRAPH_PC_PLAIN_LIBS}")
endif()
# Relocatable: the prefix is found from the .pc file's own folder (cmake --install --prefix P).
file(RELATIVE_PATH SKOGRAPH_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/skograph.pc.in ${CMAKE_BINARY_DIR}/package/skograph.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/skograph.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

install(FILES README.md CHANGELOG.md ARCHITECTURE.md LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT runtime)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT runtime)
