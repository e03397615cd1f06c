// The generator under mpirun (docs/distributed.md, "MPI"): plain stampede never links or loads
// MPI; when mpirun started it (Open MPI sets OMPI_COMM_WORLD_SIZE in every rank's environment) it
// hands the command line to stampede-mpi, the binary beside it that does link MPI.
#pragma once

namespace stampede::loadgen {

// True when this process is a rank of an Open MPI job.
bool launched_by_mpirun();

// Replaces this process with stampede-mpi from this binary's directory, given the same argv.
// Returns only when that fails: 2, after one line on stderr.
int exec_stampede_mpi(char** argv);

}  // namespace stampede::loadgen
