# skograph_add_layer(NAME [PUBLIC targets...] [PRIVATE targets...] [SOURCES files...]
#                    [EXCLUDE_HEADERS names...])
# One library per layer (graph, operators, ...): target skograph_NAME, alias and exported name
# skograph::NAME, static or shared after BUILD_SHARED_LIBS. Its public headers are the files of
# NAME/include/skograph/NAME/, included as <skograph/NAME/...> from the source tree as from an
# install; headers beside the sources are the layer's own (included by file name, not installed).
# Without SOURCES: every .cpp of the calling folder. EXCLUDE_HEADERS: public headers of parts this
# build leaves out (not installed).
include_guard(GLOBAL)
include(GNUInstallDirs)

function(skograph_add_layer name)
  cmake_parse_arguments(ARG "" "" "PUBLIC;PRIVATE;SOURCES;EXCLUDE_HEADERS" ${ARGN})
  if(NOT ARG_SOURCES)
    file(GLOB ARG_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  endif()
  set(target skograph_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(skograph::${name} ALIAS ${target})
  # Shared: the layers find each other next to themselves wherever the prefix is.
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name}
                        VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                        INSTALL_RPATH "$ORIGIN")
  # The layer's headers; the generated skograph/config.hpp; the umbrella skograph/skograph.hpp.
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${SKOGRAPH_BUILD_INCLUDE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # The headers use C++20 (std::span, ranges): a consumer's target gets it from the package.
  target_compile_features(${target} PUBLIC cxx_std_20)
  # Warnings are the build's business, not the installed package's.
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC}
                        PRIVATE ${ARG_PRIVATE} $<BUILD_INTERFACE:skograph_warnings>)
  install(TARGETS ${target} EXPORT skographTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  set(excluded "")
  foreach(header IN LISTS ARG_EXCLUDE_HEADERS)
    list(APPEND excluded PATTERN ${header} EXCLUDE)
  endforeach()
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT development FILES_MATCHING PATTERN "*.hpp" ${excluded})
  skograph_unity_build(${target})
  set_property(GLOBAL APPEND PROPERTY SKOGRAPH_LAYERS ${name})
endfunction()
