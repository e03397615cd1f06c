#include "support/test_io.h"

#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace stampede::testing {

std::optional<net::IoBackend> forced_io() {
  const char* text = std::getenv("STAMPEDE_TEST_IO");
  if (text == nullptr || *text == '\0') return std::nullopt;
  const auto backend = net::parse_io_backend(text);
  if (!backend) {
    throw std::runtime_error(std::string("STAMPEDE_TEST_IO: expected uring or epoll, got ") + text);
  }
  return backend;
}

std::vector<std::string> with_forced_io(std::vector<std::string> argv) {
  const auto forced = forced_io();
  if (!forced || argv.empty()) return argv;
  const std::string_view program = argv[0];
  const auto slash = program.rfind('/');
  if (program.substr(slash == std::string_view::npos ? 0 : slash + 1) != "stampede") return argv;
  for (const auto& arg : argv) {
    if (arg == "--io" || arg.starts_with("--io=")) return argv;
  }
  std::size_t at = 1;  // the generator: stampede [options] URL
  if (argv.size() > 1) {
    const std::string& sub = argv[1];
    if (sub == "serve" || sub == "balance") {
      at = 2;
    } else if (sub == "lab" || sub == "merge") {
      return argv;  // no loops of their own (the lab's instances are its own commands)
    }
  }
  const std::string name(net::io_backend_name(*forced));
  argv.insert(argv.begin() + static_cast<std::ptrdiff_t>(at), {"--io", name});
  return argv;
}

}  // namespace stampede::testing
