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

namespace stampede::testing {

// One HTTP/1.0 GET to 127.0.0.1:port: the whole response (head and body), "" when refused.
inline std::string get_raw(std::uint16_t port, const std::string& target) {
  net::Fd fd = connect_loopback(port);
  if (!fd) return "";
  timeval tv{5, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  send_all(fd.get(), "GET " + target + " HTTP/1.0\r\nHost: x\r\n\r\n");
  std::string out;
  char buffer[8192];
  for (int i = 0; i < 1000; ++i) {
    const ssize_t n = recv_some(fd.get(), buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
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
