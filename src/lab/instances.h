// The pool of instances: `stampede serve --id NAME` child processes on loopback ports, started,
// restarted with another delay, killed (the outage) and stopped by the pool; their counters read
// and reset over HTTP (/count, /reset).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "lab/config.h"
#include "lab/interrupt.h"
#include "lab/process.h"
#include "net/socket.h"

namespace stampede::lab {

struct PoolOptions {
  std::string stampede_path;  // the binary run as `serve`
  std::string work_dir;       // ready files and logs go here
  std::chrono::milliseconds start_timeout{10000};
  std::chrono::milliseconds http_timeout{2000};  // each /count or /reset
};

// Owned and used by the lab's main thread; kill() may be called from another thread while the
// main thread runs load (see Process::kill_group). The destructor stops every instance.
class InstancePool {
 public:
  // Starts every instance (all spawned first, then each awaited): port 0 becomes a free port,
  // kept for restarts. Fails naming the instance that did not start (and why: its stderr).
  static Expected<std::unique_ptr<InstancePool>> start(const std::vector<InstanceSpec>& specs,
                                                       const PoolOptions& options,
                                                       const Interrupt& interrupt);
  ~InstancePool();

  std::size_t size() const { return instances_.size(); }
  const std::string& name(std::size_t i) const { return instances_[i].spec.name; }
  std::chrono::milliseconds delay(std::size_t i) const { return instances_[i].delay; }
  const net::Address& address(std::size_t i) const { return instances_[i].address; }
  std::uint16_t port(std::size_t i) const { return instances_[i].address.port(); }
  std::string host_port(std::size_t i) const;  // "127.0.0.1:41234" ("[::1]:41234")
  bool alive(std::size_t i) const {
    return instances_[i].process != nullptr && !instances_[i].killed;
  }

  // Stops instance i and starts it again on the same port with `delay`.
  Expected<void> restart(std::size_t i, std::chrono::milliseconds delay,
                         const Interrupt& interrupt);
  // Stops instance i and starts it again on the same port refusing (resetting) every connection
  // past `max_connections` (`--over-limit reset`); 0: no cap. Kept across restarts.
  Expected<void> set_limit(std::size_t i, std::uint32_t max_connections,
                           const Interrupt& interrupt);
  // Instance i's cap (0: none).
  std::uint32_t limit(std::size_t i) const { return instances_[i].max_connections; }
  // SIGKILL to instance i, now (the outage). restart() brings it back.
  void kill(std::size_t i);
  // SIGSTOP / SIGCONT to instance i (the hang): stopped, it keeps its sockets open and the
  // kernel keeps accepting connections for it, but it answers nothing. Like kill(), callable
  // from another thread. Process::stop() continues a stopped instance before it ends it.
  void pause(std::size_t i);
  void resume(std::size_t i);
  // Restarts every killed instance with its delay.
  Expected<void> revive(const Interrupt& interrupt);

  // GET /reset on every live instance; the error names the one that did not answer.
  Expected<void> reset_counts();
  // GET /count on each: `served`, or nullopt for one that is dead or does not answer.
  std::vector<std::optional<std::uint64_t>> read_counts();

 private:
  struct Instance {
    InstanceSpec spec;
    std::chrono::milliseconds delay{0};
    net::Address address;
    std::unique_ptr<Process> process;
    bool killed = false;
    int generation = 0;  // starts so far: names the ready file and logs of each start
    std::uint32_t max_connections = 0;  // the limit scenario's cap; 0: none
  };

  explicit InstancePool(PoolOptions options) : options_(std::move(options)) {}
  Expected<void> spawn(Instance& instance);
  Expected<void> await(Instance& instance, const Interrupt& interrupt);
  std::string file_base(const Instance& instance) const;

  PoolOptions options_;
  std::vector<Instance> instances_;
};

}  // namespace stampede::lab
