// stampede-mpi: the generator's command line as one rank of an MPI job (mpirun -np N stampede
// [options] URL; docs/distributed.md, "MPI"). Rank K-1 of N runs shard K/N of the run the
// options describe; all ranks start at one instant of rank 0's clock (clock_sync.h); rank 0
// gathers every rank's result over MPI, merges them and prints the one report.
//
// Every rank checks the options; when any rank refuses them, every rank exits 2 (rank 0's line,
// or the line of each rank that refused, naming it). A rank whose run fails prints one line
// naming it and aborts the job. Rank 0 returns the job's status as the generator would: 0, 3 for
// a crossed threshold, 1 when --html cannot be written; the other ranks return 0 and print
// nothing.
#pragma once

namespace stampede::loadgen {

// Calls MPI_Init and MPI_Finalize: the process's main calls it once.
int mpi_main(int argc, char** argv);

}  // namespace stampede::loadgen
