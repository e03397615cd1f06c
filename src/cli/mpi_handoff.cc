#include "cli/mpi_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/error_line.h"

namespace stampede::loadgen {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
}

int exec_stampede_mpi(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string binary =
      (ec ? std::filesystem::path(".") : self.parent_path()) / "stampede-mpi";
  ::execv(binary.c_str(), argv);
  print_error_line("launched by mpirun, but cannot run " + binary + ": " + std::strerror(errno) +
                   " (build it with Open MPI installed: libopenmpi-dev; docs/distributed.md)");
  return 2;
}

}  // namespace stampede::loadgen
