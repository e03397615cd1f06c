#include "mpi/world.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <thread>

namespace stampede::mpi {
namespace {

// Completes `request` without holding a core. Open MPI's blocking collectives wait by polling
// (opal_progress and the shared-memory transport) for as long as the slowest rank takes, on the
// cores the other ranks and the target need; this polls with MPI_Test and sleeps between polls,
// 20 us at first, doubling up to 1 ms, so a rank that has finished waits idle and learns that the
// others are done at most about 1 ms late.
void wait_idle(MPI_Request& request) {
  using std::chrono::microseconds;
  microseconds pause{20};
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, microseconds{1000});
  }
}

}  // namespace

World::World(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

World::~World() {
  MPI_Finalize();
}

void World::barrier() const {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  wait_idle(request);
}

void World::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

std::vector<std::int64_t> World::all_gather(std::int64_t value) const {
  std::vector<std::int64_t> all(static_cast<std::size_t>(size_));
  MPI_Allgather(&value, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  return all;
}

std::int64_t World::broadcast(std::int64_t value) const {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  return value;
}

std::vector<std::string> World::gather_text(const std::string& text) const {
  // MPI counts are int: a result line is a few hundred kilobytes at most (its histograms are
  // compressed), far below; a larger one ends the job rather than being cut.
  if (text.size() > static_cast<std::size_t>(INT_MAX)) abort(1);
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  // The first collective after the run: the rank whose shard ended first waits here for the last.
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_idle(request);
  std::vector<int> offsets(lengths.size());
  std::string all;
  if (rank_ == 0) {
    long long total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = static_cast<int>(total);
      total += lengths[i];
      if (total > INT_MAX) abort(1);
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    texts.push_back(
        all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return texts;
}

void World::send(int peer, std::int64_t value) const {
  MPI_Send(&value, 1, MPI_INT64_T, peer, 0, MPI_COMM_WORLD);
}

std::int64_t World::receive(int peer) const {
  std::int64_t value = 0;
  MPI_Recv(&value, 1, MPI_INT64_T, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return value;
}

}  // namespace stampede::mpi
