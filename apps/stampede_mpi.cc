// stampede-mpi: the load generator as one rank of an MPI job. Not run by hand: `mpirun -np N
// stampede [options] URL` starts stampede, which hands over to this binary (docs/distributed.md).
#include "cli/mpi_main.h"

int main(int argc, char** argv) {
  return stampede::loadgen::mpi_main(argc, argv);
}
