# Installation: `cmake --install build [--prefix P]` puts in place
#   lib/libstampede.a             the public API and every module it needs, in one archive
#   include/stampede/*.h          the public headers (the only ones installed)
#   lib/cmake/stampede/           find_package(stampede) -> stampede::stampede
#   lib/pkgconfig/stampede.pc     pkg-config --cflags --libs stampede
#   bin/stampede                  the command line
#   bin/stampede-mpi              the generator under mpirun (when MPI was found)
#   share/man/man1/stampede*.1.gz a man page per subcommand, gzipped (written by the build: apps/),
#                                 and stampede-mpi's (a .so of stampede.1) with stampede-mpi
#   share/bash-completion/completions/stampede, share/zsh/vendor-completions/_stampede
# `make install [PREFIX=/usr/local]` runs it; `make deb` packages the same files
# (cmake/package.cmake): the component `runtime` (bin/, share/) as stampede, `dev` (lib/,
# include/) as stampede-dev.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The C++ standard the public headers need (C++17: std::string_view, std::optional; the library
# itself is C++20, which its users need not be). Both package files state it, and
# tests/integration/install builds the example at it and checks the headers need no less.
set(STAMPEDE_PUBLIC_CXX_STANDARD 17)

# The libraries stampede_api links, in link order (update when the API needs another module).
# Not stampede_script (LuaJIT): request scripts are the command line's, not the API's.
set(STAMPEDE_BUNDLED stampede_api stampede_loadgen_report stampede_loadgen stampede_report
    stampede_server stampede_metrics stampede_h2
    stampede_ws stampede_tls stampede_net stampede_http stampede_stats stampede_core llhttp)
set(STAMPEDE_BUNDLE ${PROJECT_BINARY_DIR}/libstampede.a)
set(bundled_files "")
foreach(lib ${STAMPEDE_BUNDLED})
  list(APPEND bundled_files $<TARGET_FILE:${lib}>)
endforeach()
add_custom_command(OUTPUT ${STAMPEDE_BUNDLE}
  COMMAND ${CMAKE_COMMAND} -DAR=${CMAKE_AR} -DOUT=${STAMPEDE_BUNDLE} "-DLIBS=${bundled_files}"
          -P ${PROJECT_SOURCE_DIR}/cmake/bundle.cmake
  DEPENDS ${STAMPEDE_BUNDLED} ${PROJECT_SOURCE_DIR}/cmake/bundle.cmake
  COMMENT "Bundling libstampede.a" VERBATIM)
add_custom_target(stampede_bundle ALL DEPENDS ${STAMPEDE_BUNDLE})

# A sanitized build installs sanitized objects: their users must link the runtimes too.
set(STAMPEDE_LINK_OPTIONS "")
if(STAMPEDE_SANITIZE)
  set(STAMPEDE_LINK_OPTIONS "-fsanitize=address,undefined")
elseif(STAMPEDE_TSAN)
  set(STAMPEDE_LINK_OPTIONS "-fsanitize=thread")
endif()

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/stampede)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/stampedeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stampedeConfig.cmake INSTALL_DESTINATION ${config_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stampedeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)

install(FILES ${STAMPEDE_BUNDLE} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/stampede
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/stampedeConfig.cmake
  ${PROJECT_BINARY_DIR}/stampedeConfigVersion.cmake DESTINATION ${config_dir} COMPONENT dev)
# The .pc file names the prefix given at install time (cmake --install --prefix).
install(CODE "
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(STAMPEDE_LINK_OPTIONS \"${STAMPEDE_LINK_OPTIONS}\")
  set(STAMPEDE_PUBLIC_CXX_STANDARD \"${STAMPEDE_PUBLIC_CXX_STANDARD}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/stampede.pc.in\"
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/stampede.pc\" @ONLY)"
  COMPONENT dev)
install(TARGETS stampede RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
if(TARGET stampede-mpi)
  install(TARGETS stampede-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
install(DIRECTORY ${STAMPEDE_MANUAL_DIR}/man1.gz/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
  COMPONENT runtime FILES_MATCHING PATTERN "*.1.gz")
install(FILES ${STAMPEDE_MANUAL_DIR}/bash/stampede
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT runtime)
install(FILES ${STAMPEDE_MANUAL_DIR}/zsh/_stampede
  DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime)

# What the rules above install, without the test suite: `make install` and `make deb` build this.
add_custom_target(stampede_installable)
add_dependencies(stampede_installable stampede stampede_bundle stampede_manuals)
if(TARGET stampede-mpi)
  add_dependencies(stampede_installable stampede-mpi)
endif()
