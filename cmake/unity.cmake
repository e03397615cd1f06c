# Unity builds: each library (and each test binary, tests/CMakeLists.txt) compiles as one source,
# so the headers its files share (CLI11, fmt, nlohmann-json, OpenSSL, the project's own) are
# parsed and their templates instantiated once instead of once per file. A name in a file's
# anonymous namespace must therefore be unique within its library. STAMPEDE_UNITY=OFF compiles
# file by file (quicker to rebuild after one edit).
option(STAMPEDE_UNITY "Compile each library and test binary as one unity source" ON)

# stampede_use_unity(TARGETS...)
function(stampede_use_unity)
  if(NOT STAMPEDE_UNITY)
    return()
  endif()
  foreach(target ${ARGN})
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  endforeach()
endfunction()
