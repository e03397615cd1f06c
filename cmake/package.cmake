# `make deb` (cpack -G DEB in the Release tree): one Debian package, stampede_VERSION_ARCH.deb,
# of everything `cmake --install` puts in place (cmake/install.cmake), under /usr: the binaries,
# libstampede.a with its headers, CMake and pkg-config files, the man pages and the completions.
# Its Depends come from dpkg-shlibdeps over the binaries (libssl3, liburing2, libluajit-5.1-2,
# libnghttp2-14, libfmt9, libwslay1, and libopenmpi3 for stampede-mpi when it is built), so
# they are the shared libraries the binaries really link. tests/integration/install installs
# and removes it with apt-get.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stampede)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "stampede developers <stampede@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "HTTP load generator, test server and load balancer, with a C++ library")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "stampede load-tests HTTP/1.1, HTTP/2 and WebSocket servers at a fixed rate or with a fixed\n"
    "number of connections, and measures latency from the intended send time. The package\n"
    "holds the stampede command (serve, balance, lab, merge), its man pages and bash and zsh\n"
    "completions, and the static library libstampede.a with its headers, CMake and\n"
    "pkg-config files.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Installed with DESTDIR and the prefix /usr (CPACK_INSTALL_PREFIX is the prefix with DESTDIR),
# so that the .pc file (written at install time, cmake/install.cmake) says /usr, not the staging
# directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
