// Child processes for integration tests: spawn the stampede binary, learn its port from a
// ready-file without sleeping, and always stop it (the destructor kills and reaps, then removes
// the temporary directory that held its output).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

namespace stampede::testing {

class ChildProcess {
 public:
  // Starts `argv` (argv[0] is the program path) with stdout/stderr sent to files in a TempDir
  // of its own, removed by the destructor.
  explicit ChildProcess(std::vector<std::string> argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Sends `sig`; returns false if the process is gone.
  bool signal(int sig);
  // Waits up to `timeout` for the process to exit; returns its exit status (or -signal), or
  // nullopt-like -1000 on timeout.
  int wait(std::chrono::milliseconds timeout);
  bool running();
  std::string stdout_text() const;
  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1000;
  TempDir dir_;
  std::string out_path_, err_path_;
};

// The whole content of the file at `path`; empty when it cannot be read.
std::string read_file(const std::string& path);

// Polls `path` (inotify-free, short back-off) until it holds a port number or `timeout` passes.
// Returns 0 on timeout. The poll is a bounded wait for a file, not a sleep to synchronise state.
int wait_for_port_file(const std::string& path, std::chrono::milliseconds timeout);

// Runs `argv` to completion (bounded by `timeout`, killed after), capturing stdout and stderr.
struct RunResult {
  int status = -1;
  std::string out, err;
};
RunResult run_command(std::vector<std::string> argv, std::chrono::milliseconds timeout);

#ifdef STAMPEDE_BINARY  // defined for every test binary (tests/CMakeLists.txt), not this library
// Runs the stampede binary under test with `args` (no program name), bounded by `timeout`.
inline RunResult run_stampede(std::vector<std::string> args,
                              std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  args.insert(args.begin(), STAMPEDE_BINARY);
  return run_command(std::move(args), timeout);
}
#endif

}  // namespace stampede::testing
