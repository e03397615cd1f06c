# llhttp: Node.js's HTTP/1.1 parser, compiled from the C sources that Debian's node-llhttp ships.
set(LLHTTP_DIR /usr/share/llhttp CACHE PATH "llhttp C sources (Debian node-llhttp)")
set(LLHTTP_INCLUDE /usr/share/include/llhttp CACHE PATH "llhttp header (Debian node-llhttp)")
if(NOT EXISTS ${LLHTTP_DIR}/llhttp.c)
  message(FATAL_ERROR "llhttp sources not found in ${LLHTTP_DIR}: apt-get install node-llhttp")
endif()
add_library(llhttp STATIC ${LLHTTP_DIR}/llhttp.c ${LLHTTP_DIR}/api.c ${LLHTTP_DIR}/http.c)
target_include_directories(llhttp SYSTEM PUBLIC ${LLHTTP_INCLUDE})
set_target_properties(llhttp PROPERTIES C_STANDARD 99 POSITION_INDEPENDENT_CODE ON)
