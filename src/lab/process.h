// Process control for the lab: child processes in their own process group with their output in
// log files, stopped (SIGTERM, then SIGKILL to the whole group) and reaped by their owner's
// destructor, so no process outlives the lab on any path; and a scratch directory removed the
// same way.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "net/fd.h"

namespace stampede::lab {

// A scratch directory (mkdtemp) removed with its contents by the destructor. Move-only.
class TempDir {
 public:
  // Creates $TMPDIR/PREFIX-XXXXXX (/tmp when TMPDIR is unset).
  static Expected<TempDir> create(std::string_view prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// How a child ended.
struct ExitStatus {
  bool signaled = false;
  int code = 0;                  // the exit status, or the signal number when `signaled`
  std::string describe() const;  // "exit status 1", "killed by signal 9 (Killed)"
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0]: the program's path (no PATH search)
  std::string log_base;           // stdout to LOG_BASE.out, stderr to LOG_BASE.err
  std::string label;              // names the process in messages: "instance a", "balancer"
};

// One child process, leader of its own process group (so a `sh -c` and what it starts are
// stopped together). The child gets an empty signal mask, default SIGPIPE, stdin from
// /dev/null, and SIGKILL if the lab's spawning thread dies first (PR_SET_PDEATHSIG).
//
// Owned by one thread. kill_group() may also be called from another thread while the owner is
// not inside stop(); the group stays reserved until stop() reaps the leader, so the signal can
// never reach a recycled process id.
class Process {
 public:
  static Expected<std::unique_ptr<Process>> spawn(const SpawnOptions& options);
  ~Process();  // stop(kStopGrace)
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  static constexpr std::chrono::milliseconds kStopGrace{2000};

  pid_t pid() const { return pid_; }
  const std::string& label() const { return label_; }

  // Sends `sig` to the process group (every process CMD started).
  void kill_group(int sig) const;
  // The exit status once the leader has ended (it is not reaped), else nullopt.
  std::optional<ExitStatus> ended();
  // Waits up to `timeout` for the leader to end; true when it has. Wakes at once on exit.
  bool wait_end(std::chrono::milliseconds timeout);
  // SIGCONT (a stopped group could not act on SIGTERM) and SIGTERM to the group, up to `grace` for
  // the leader, then SIGKILL to the group (whatever is left of it), and reaps the leader. Returns
  // how it ended. Idempotent.
  ExitStatus stop(std::chrono::milliseconds grace = kStopGrace);

  // The last lines of its stderr (then stdout when stderr is empty), at most `max_bytes`,
  // joined with " | "; empty when it printed nothing.
  std::string output_tail(std::size_t max_bytes = 400) const;

 private:
  Process(pid_t pid, std::string label, std::string log_base);

  pid_t pid_;
  net::Fd pidfd_;  // invalid when pidfd_open is unavailable: wait_end() then polls
  std::string label_;
  std::string log_base_;
  std::optional<ExitStatus> reaped_;
};

}  // namespace stampede::lab
