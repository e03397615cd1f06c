// Topology: network namespaces a test makes for itself (docs/distributed.md, "Separate network
// stacks"): a server namespace holding a bridge at 10.250.0.254/24, and `shards` namespaces,
// each joined to the bridge by a veth pair and holding 10.250.0.K/24 (K from 1). Every address
// lives inside these namespaces, none in the test's own.
//
// Names start with "stpd<pid>-", unique per test process; namespaces left by a test process
// that is gone (a crashed run) are removed when a Topology is made. The destructor removes this
// one's, on every path. Needs root and iproute2 (`ip netns`): usable() says why not.
#pragma once

#include <string>
#include <vector>

namespace stampede::testing {

class Topology {
 public:
  static constexpr const char* kServerAddress = "10.250.0.254";

  explicit Topology(int shards);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  // Empty when namespaces cannot be made here at all, else why (the test skips with it).
  const std::string& unusable_reason() const { return unusable_; }
  // Empty when made; else the step that failed (the test fails with it).
  const std::string& error() const { return error_; }
  const std::string& server_namespace() const { return server_; }
  // Shard K's namespace (K from 1).
  const std::string& shard_namespace(int k) const { return shards_[k - 1]; }
  // `argv` run by `ip netns exec` in shard K's namespace.
  std::vector<std::string> in_shard_namespace(int k, std::vector<std::string> argv) const;

  // Runs `make` with this thread in the server namespace, then returns it to its own: sockets
  // made there stay there (a listener for the shards), threads started there too.
  template <typename Make>
  auto in_server_namespace(Make make) const {
    NamespaceVisit visit(server_);
    return make();
  }

 private:
  // Enters a namespace for its lifetime (this thread only).
  class NamespaceVisit {
   public:
    explicit NamespaceVisit(const std::string& name);
    ~NamespaceVisit();
    NamespaceVisit(const NamespaceVisit&) = delete;
    NamespaceVisit& operator=(const NamespaceVisit&) = delete;

   private:
    int home_ = -1;
  };

  void build(int shards);
  void remove();
  std::string prefix_;
  std::string server_;
  std::vector<std::string> shards_;
  std::vector<std::string> made_;
  std::string unusable_, error_;
};

}  // namespace stampede::testing
