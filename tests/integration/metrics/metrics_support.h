// What the /metrics tests share: a raw GET, its body, promtool's lint. Header-only (the test
// binary is one unity build: helpers defined twice would clash).
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/until_close.h"

namespace stampede::testing {

// One HTTP/1.0 GET to 127.0.0.1:port: the whole response (head and body), "" when refused.
inline std::string get_raw(std::uint16_t port, const std::string& target) {
  return exchange_until_close(port, "GET " + target + " HTTP/1.0\r\nHost: x\r\n\r\n",
                              std::chrono::seconds(5));
}

inline std::string body_of(const std::string& response) {
  const std::size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

// promtool check metrics on `text`: its output (empty when the text is clean); "skip" when
// promtool is not installed.
inline std::string promtool_lint(const std::string& text) {
  if (access("/usr/bin/promtool", X_OK) != 0) return "skip";
  TempDir dir;
  const std::string path = dir.file("metrics.txt");
  std::ofstream(path) << text;
  const auto lint =
      run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + path + " 2>&1"},
                  std::chrono::seconds(20));
  return lint.status == 0 ? lint.out : "status " + std::to_string(lint.status) + ": " + lint.out;
}

}  // namespace stampede::testing
