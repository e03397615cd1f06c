# `make deb` (cpack -G DEB in the Release tree): two Debian packages of what `cmake --install`
# puts in place (cmake/install.cmake), under /usr, split by install component as Debian splits a
# tool from its library:
#   stampede_VERSION_ARCH.deb      (runtime) the binaries, the man pages (gzipped) and the bash
#                                  and zsh completions. Its Depends come from dpkg-shlibdeps over
#                                  the binaries (libssl3, liburing2, libluajit-5.1-2,
#                                  libnghttp2-14, libfmt9, libwslay1, and libopenmpi3 for
#                                  stampede-mpi when it is built): the shared libraries they link.
#   stampede-dev_VERSION_ARCH.deb  (dev) libstampede.a with its headers, CMake and pkg-config
#                                  files. A static library's users link what it needs, so its
#                                  Depends are the -dev packages of the libraries stampede.pc
#                                  Requires and Libs name (fmt, openssl, zlib, liburing, libnghttp2,
#                                  wslay): a program builds against it with no other install.
# tests/integration/install installs and removes both with apt-get.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stampede)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "stampede developers <stampede@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "HTTP load generator, test server and load balancer")
# Description lines stay under 80 columns (lintian's extended-description-line-too-long).
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "stampede load-tests HTTP/1.1, HTTP/2 and WebSocket servers at a fixed rate\n"
    "or with a fixed number of connections, and measures latency from the intended\n"
    "send time. The package holds the stampede command (serve, balance, lab, merge,\n"
    "compare), its man pages and bash and zsh completions; the C++ library is in\n"
    "stampede-dev.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME stampede)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME stampede-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libfmt-dev, libssl-dev, zlib1g-dev, liburing-dev, libnghttp2-dev, libwslay-dev")
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
    "stampede's C++ library: libstampede.a, a static library of load tests,\n"
    "callbacks and the test server, with its headers (C++17 or later), and its\n"
    "CMake (find_package(stampede)) and pkg-config files. The command is in the\n"
    "package stampede.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Installed with DESTDIR and the prefix /usr (CPACK_INSTALL_PREFIX is the prefix with DESTDIR),
# so that the .pc file (written at install time, cmake/install.cmake) says /usr, not the staging
# directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
