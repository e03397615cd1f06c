// World: this process's place in an MPI job (MPI_COMM_WORLD) and the few collectives a sharded
// run needs (docs/distributed.md, "MPI").
//
// One World per process, made on the main thread before anything else and destroyed last (it
// calls MPI_Init and MPI_Finalize). Every collective must be called by every rank in the same
// order; MPI's default error handler ends the whole job on a communication failure, so none of
// these returns an error. abort() ends every rank of the job (mpirun then exits non-zero).
// barrier() and gather_text(), where a rank may wait long for the others (the start, the end of
// a run whose shards end apart), wait idle: they poll the collective with short sleeps instead
// of letting Open MPI spin on a core (world.cc, wait_idle).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stampede::mpi {

class World {
 public:
  // MPI_Init (single-threaded use: only the main thread calls MPI).
  World(int& argc, char**& argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // MPI's name for this rank's machine.
  const std::string& host() const { return host_; }

  void barrier() const;
  // Ends every rank with `status` (MPI_Abort); does not return.
  [[noreturn]] void abort(int status) const;

  // Every rank's `value`, in rank order, on every rank.
  std::vector<std::int64_t> all_gather(std::int64_t value) const;
  // Rank 0's `value` on every rank.
  std::int64_t broadcast(std::int64_t value) const;
  // Rank 0: every rank's `text`, in rank order (sizes with MPI_Igather, bytes with MPI_Gatherv);
  // other ranks: empty.
  std::vector<std::string> gather_text(const std::string& text) const;

  // Point to point, for the clock exchange (clock_sync.h): one int64 to or from `peer`.
  void send(int peer, std::int64_t value) const;
  std::int64_t receive(int peer) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
};

}  // namespace stampede::mpi
