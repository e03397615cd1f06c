# cmake -P bundle.cmake -DAR=ar -DOUT=libstampede.a -DLIBS="a.a;b.a": merges static libraries
# into one archive (the installed libstampede.a), with an ar MRI script.
file(REMOVE ${OUT})
set(script "create ${OUT}\n")
foreach(lib ${LIBS})
  string(APPEND script "addlib ${lib}\n")
endforeach()
string(APPEND script "save\nend\n")
file(WRITE ${OUT}.mri "${script}")
execute_process(COMMAND ${AR} -M INPUT_FILE ${OUT}.mri RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar -M failed (${rc}) making ${OUT}")
endif()
