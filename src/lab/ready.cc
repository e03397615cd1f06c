#include "lab/ready.h"

#include <charconv>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "lab/http_client.h"

namespace stampede::lab {
namespace {

constexpr std::chrono::milliseconds kPoll{5};

std::uint16_t read_port(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return 0;
  unsigned port = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || port == 0 || port > 65535) return 0;
  return static_cast<std::uint16_t>(port);
}

// Waits one poll step: returns at once when the process ends.
void pause(Process* process) {
  if (process != nullptr) {
    process->wait_end(kPoll);
  } else {
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace

Failure exited_early(Process& process, const ExitStatus& status) {
  const std::string tail = process.output_tail();
  return make_error(fmt::format("{} exited ({}) before it was ready{}{}", process.label(),
                                status.describe(), tail.empty() ? "" : ": ", tail));
}

Expected<std::uint16_t> wait_for_port_file(Process& process, const std::string& path,
                                           std::chrono::milliseconds timeout,
                                           const Interrupt& interrupt) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (const std::uint16_t port = read_port(path); port != 0) return port;
    if (auto status = process.ended()) return exited_early(process, *status);
    if (interrupt.requested()) return make_error("interrupted");
    if (std::chrono::steady_clock::now() >= deadline) {
      return make_error(
          fmt::format("{} did not start listening within {} ms", process.label(), timeout.count()));
    }
    pause(&process);
  }
}

Expected<void> wait_for_listener(Process* process, const net::Address& address,
                                 std::chrono::milliseconds timeout, const Interrupt& interrupt) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (can_connect(address, std::chrono::milliseconds(200))) return {};
    if (process != nullptr) {
      if (auto status = process->ended()) return exited_early(*process, *status);
    }
    if (interrupt.requested()) return make_error("interrupted");
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string who = process ? process->label() : std::string("the balancer");
      return make_error(fmt::format("{} is not listening on {} after {} ms", who,
                                    address.to_string(), timeout.count()));
    }
    pause(process);
  }
}

}  // namespace stampede::lab
