// For tests that run mpirun: the start of a command line (/usr/bin/env and its assignments) that
// the ranks need in this build, or empty when they need none.
//
// Under AddressSanitizer, Open MPI's own allocations leak from MPI_Init on (in its libraries and
// its plug-ins, whose frames LeakSanitizer cannot even name, so they cannot be suppressed one by
// one): the ranks run with ASAN_OPTIONS as given plus detect_leaks=0. Our code in stampede-mpi
// is the generator's, the merge's and the reports', leak-checked by the tests that run them in
// stampede; only the MPI glue (src/mpi, cli/mpi_main.cc) goes unchecked for leaks there.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace stampede::testing {

inline std::vector<std::string> mpi_sanitizer_env() {
#if defined(__SANITIZE_ADDRESS__)
  const char* given = std::getenv("ASAN_OPTIONS");
  std::string options = given ? std::string(given) + ":" : std::string();
  return {"/usr/bin/env", "ASAN_OPTIONS=" + options + "detect_leaks=0"};
#else
  return {};
#endif
}

}  // namespace stampede::testing
