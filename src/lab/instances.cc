#include "lab/instances.h"

#include <signal.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "core/json_input.h"
#include "lab/http_client.h"
#include "lab/ready.h"

namespace stampede::lab {

InstancePool::~InstancePool() {
  for (Instance& instance : instances_)
    instance.process.reset();
}

Expected<std::unique_ptr<InstancePool>> InstancePool::start(const std::vector<InstanceSpec>& specs,
                                                            const PoolOptions& options,
                                                            const Interrupt& interrupt) {
  std::unique_ptr<InstancePool> pool(new InstancePool(options));
  for (const InstanceSpec& spec : specs) {
    Instance instance;
    instance.spec = spec;
    instance.delay = spec.delay;
    pool->instances_.push_back(std::move(instance));
  }
  for (Instance& instance : pool->instances_) {
    if (auto r = pool->spawn(instance); !r) return r.error();
  }
  for (Instance& instance : pool->instances_) {
    if (auto r = pool->await(instance, interrupt); !r) return r.error();
  }
  return pool;
}

std::string InstancePool::file_base(const Instance& instance) const {
  return fmt::format("{}/instance-{}-{}", options_.work_dir, instance.spec.name,
                     instance.generation);
}

Expected<void> InstancePool::spawn(Instance& instance) {
  ++instance.generation;
  const std::string base = file_base(instance);
  const std::uint16_t port =
      instance.address.length > 0 ? instance.address.port() : instance.spec.port;
  SpawnOptions spawn;
  spawn.label = "instance " + instance.spec.name;
  spawn.log_base = base;
  spawn.argv = {options_.stampede_path,
                "serve",
                "--id",
                instance.spec.name,
                "--host",
                instance.spec.host,
                "--port",
                std::to_string(port),
                "--ready-file",
                base + ".port",
                "--cores",
                "1",
                "--quiet",
                "--delay",
                fmt::format("{}ms", instance.delay.count())};
  if (instance.max_connections > 0) {
    spawn.argv.insert(
        spawn.argv.end(),
        {"--max-connections", std::to_string(instance.max_connections), "--over-limit", "reset"});
  }
  auto process = Process::spawn(spawn);
  if (!process) return process.error();
  instance.process = std::move(process).value();
  instance.killed = false;
  return {};
}

Expected<void> InstancePool::await(Instance& instance, const Interrupt& interrupt) {
  auto port = wait_for_port_file(*instance.process, file_base(instance) + ".port",
                                 options_.start_timeout, interrupt);
  if (!port) return port.error();  // names the instance
  auto address = net::resolve(instance.spec.host, *port);
  if (!address) return address.error();
  instance.address = *address;
  return {};
}

std::string InstancePool::host_port(std::size_t i) const {
  return instances_[i].address.to_string();
}

Expected<void> InstancePool::restart(std::size_t i, std::chrono::milliseconds delay,
                                     const Interrupt& interrupt) {
  Instance& instance = instances_[i];
  instance.process.reset();  // stops it (SIGTERM, then SIGKILL) and reaps it
  instance.delay = delay;
  if (auto r = spawn(instance); !r) return r;
  return await(instance, interrupt);
}

Expected<void> InstancePool::set_limit(std::size_t i, std::uint32_t max_connections,
                                       const Interrupt& interrupt) {
  instances_[i].max_connections = max_connections;
  return restart(i, instances_[i].delay, interrupt);
}

void InstancePool::kill(std::size_t i) {
  Instance& instance = instances_[i];
  if (instance.process == nullptr || instance.killed) return;
  instance.process->kill_group(SIGKILL);
  instance.killed = true;
}

void InstancePool::pause(std::size_t i) {
  Instance& instance = instances_[i];
  if (instance.process != nullptr && !instance.killed) instance.process->kill_group(SIGSTOP);
}

void InstancePool::resume(std::size_t i) {
  Instance& instance = instances_[i];
  if (instance.process != nullptr && !instance.killed) instance.process->kill_group(SIGCONT);
}

Expected<void> InstancePool::revive(const Interrupt& interrupt) {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    if (!instances_[i].killed) continue;
    if (auto r = restart(i, instances_[i].delay, interrupt); !r) return r;
  }
  return {};
}

Expected<void> InstancePool::reset_counts() {
  for (const Instance& instance : instances_) {
    if (instance.killed) continue;
    auto reply = http_get(instance.address, "/reset", options_.http_timeout);
    if (!reply) {
      return make_error(fmt::format("instance {} ({}) does not answer /reset: {}",
                                    instance.spec.name, instance.address.to_string(),
                                    reply.error().message));
    }
    if (reply->status != 200) {
      return make_error(
          fmt::format("instance {}: /reset answered {}", instance.spec.name, reply->status));
    }
  }
  return {};
}

std::vector<std::optional<std::uint64_t>> InstancePool::read_counts() {
  std::vector<std::optional<std::uint64_t>> counts;
  for (const Instance& instance : instances_) {
    std::optional<std::uint64_t> served;
    if (!instance.killed) {
      auto reply = http_get(instance.address, "/count", options_.http_timeout);
      if (reply && reply->status == 200) {
        const auto doc = parse_json_input(reply->body);
        if (doc && doc->is_object() && doc->contains("served") &&
            (*doc)["served"].is_number_unsigned()) {
          served = (*doc)["served"].get<std::uint64_t>();
        }
      }
    }
    counts.push_back(served);
  }
  return counts;
}

}  // namespace stampede::lab
