#include "topology.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "support/process.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPrefix = "stpd";

// iproute2's ip (children are started by path); empty when it is not installed.
std::string ip_path() {
  for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (::access(path, X_OK) == 0) return path;
  return {};
}

// Runs `ip args...`; the error text when it fails, else empty.
std::string ip(std::vector<std::string> args) {
  args.insert(args.begin(), ip_path());
  const RunResult r = run_command(std::move(args), 10s);
  if (r.status == 0) return {};
  return r.err.empty() ? "ip exited " + std::to_string(r.status) : r.err;
}

// Namespaces named "stpd<pid>-..." whose test process is gone.
void remove_leftovers() {
  const RunResult list = run_command({ip_path(), "netns", "list"}, 10s);
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    const std::string name = line.substr(0, line.find(' '));
    if (name.rfind(kPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 4, nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
    ip({"netns", "delete", name});
  }
}

}  // namespace

Topology::NamespaceVisit::NamespaceVisit(const std::string& name) {
  home_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  const int there = ::open(("/run/netns/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  const bool entered = home_ >= 0 && there >= 0 && ::setns(there, CLONE_NEWNET) == 0;
  if (there >= 0) ::close(there);
  if (!entered) throw std::runtime_error("cannot enter network namespace " + name);
}

Topology::NamespaceVisit::~NamespaceVisit() {
  // Back home; a thread that cannot return must not go on running tests in the wrong place.
  if (::setns(home_, CLONE_NEWNET) != 0) std::abort();
  ::close(home_);
}

Topology::Topology(int shards) : prefix_(kPrefix + std::to_string(::getpid()) + "-") {
  if (::geteuid() != 0) {
    unusable_ = "network namespaces need root";
    return;
  }
  if (ip_path().empty() || run_command({ip_path(), "netns", "list"}, 10s).status != 0) {
    unusable_ = "`ip netns` is not available (Debian: iproute2)";
    return;
  }
  remove_leftovers();
  server_ = prefix_ + "srv";
  if (std::string err = ip({"netns", "add", server_}); !err.empty()) {
    unusable_ = "cannot make a network namespace here: " + err;
    return;
  }
  made_.push_back(server_);
  build(shards);
  if (!error_.empty()) remove();
}

Topology::~Topology() {
  remove();
}

std::vector<std::string> Topology::in_shard_namespace(int k, std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {ip_path(), "netns", "exec", shard_namespace(k)});
  return argv;
}

void Topology::remove() {
  for (const std::string& name : made_)
    ip({"netns", "delete", name});
  made_.clear();
}

void Topology::build(int shards) {
  const auto step = [&](std::vector<std::string> args) {
    if (!error_.empty()) return;
    if (std::string err = ip(args); !err.empty()) error_ = "ip " + args[0] + " ...: " + err;
  };
  step({"-n", server_, "link", "set", "lo", "up"});
  step({"-n", server_, "link", "add", "br0", "type", "bridge"});
  step({"-n", server_, "addr", "add", std::string(kServerAddress) + "/24", "dev", "br0"});
  step({"-n", server_, "link", "set", "br0", "up"});
  for (int k = 1; k <= shards && error_.empty(); ++k) {
    const std::string name = prefix_ + "s" + std::to_string(k);
    const std::string port = "v" + std::to_string(k);
    shards_.push_back(name);
    step({"netns", "add", name});
    if (error_.empty()) made_.push_back(name);
    step({"-n", name, "link", "set", "lo", "up"});
    step({"-n", server_, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns",
          name});
    step({"-n", server_, "link", "set", port, "master", "br0", "up"});
    step({"-n", name, "addr", "add", "10.250.0." + std::to_string(k) + "/24", "dev", "eth0"});
    step({"-n", name, "link", "set", "eth0", "up"});
  }
}

}  // namespace stampede::testing
