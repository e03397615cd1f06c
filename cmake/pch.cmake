# Precompiled headers: the standard library, fmt and nlohmann-json parsed once per build instead of
# once per file (they are most of each file's compile time). One PCH for the libraries and the
# binary (stampede_pch), one for the tests (stampede_test_pch, adding GoogleTest and GoogleMock),
# each reused by every target of its kind; STAMPEDE_PCH=OFF builds without them. -Winvalid-pch
# makes a PCH that GCC cannot use (different flags) a visible warning instead of a silent slowdown.
option(STAMPEDE_PCH "Use precompiled headers" ON)

set(STAMPEDE_PCH_HEADERS
  <algorithm> <atomic> <chrono> <cmath> <cstdint> <cstring> <functional> <map> <memory>
  <optional> <span> <string> <string_view> <thread> <utility> <vector>
  <fmt/format.h> <nlohmann/json.hpp>)

# stampede_pch_target(NAME [HEADERS...] LIBS...): the target whose PCH others reuse.
function(stampede_pch_target name)
  cmake_parse_arguments(arg "" "" "HEADERS;LIBS" ${ARGN})
  add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cc)
  target_link_libraries(${name} PRIVATE ${arg_LIBS})
  target_precompile_headers(${name} PRIVATE ${STAMPEDE_PCH_HEADERS} ${arg_HEADERS})
  target_compile_options(${name} PRIVATE -Winvalid-pch)
endfunction()

# stampede_use_pch(PCH_TARGET TARGETS...)
function(stampede_use_pch pch)
  if(NOT STAMPEDE_PCH)
    return()
  endif()
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM ${pch})
    target_compile_options(${target} PRIVATE -Winvalid-pch)
  endforeach()
endfunction()

if(STAMPEDE_PCH)
  stampede_pch_target(stampede_pch LIBS fmt::fmt nlohmann_json::nlohmann_json)
endif()
