# Fails when any C++ file under src/, include/, apps/, tests/, examples/ or bench/ is not clang-formatted.
file(GLOB_RECURSE files ${ROOT}/src/*.cc ${ROOT}/src/*.h ${ROOT}/include/*.h ${ROOT}/apps/*.cc
     ${ROOT}/tests/*.cc ${ROOT}/tests/*.h ${ROOT}/examples/*.cc ${ROOT}/bench/*.cc)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files} RESULT_VARIABLE rc
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-format differences (run 'make format'):\n${out}")
endif()
