# cmake -DIN=DIR -DOUT=DIR -DMPI_PAGE=ON|OFF -P compress_manuals.cmake: the man pages the build
# wrote (IN/*.1) compressed for installation as Debian's policy asks (OUT/*.1.gz, `gzip -9n`: no
# name or time stamp inside, so the same page gives the same bytes). With MPI_PAGE, also
# stampede-mpi.1.gz: a `.so` page that shows stampede(1), whose DISTRIBUTED RUNS section is
# about it (stampede-mpi is started by stampede under mpirun, with the generator's options).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(GLOB pages ${IN}/*.1)
if(MPI_PAGE)
  file(WRITE ${OUT}/stampede-mpi.1 ".so man1/stampede.1\n")
  list(APPEND pages ${OUT}/stampede-mpi.1)
endif()
foreach(page ${pages})
  get_filename_component(name ${page} NAME)
  execute_process(COMMAND gzip -9n -c ${page} OUTPUT_FILE ${OUT}/${name}.gz RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip ${page}: ${rc}")
  endif()
endforeach()
file(REMOVE ${OUT}/stampede-mpi.1)
