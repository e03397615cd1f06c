#include "faults_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "support/loopback.h"

namespace stampede::faults {

Stampede::Stampede(std::vector<std::string> args, std::vector<std::string> launcher) {
  std::vector<std::string> argv = std::move(launcher);
  argv.push_back(STAMPEDE_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--ready-file", dir_.file("ready")});
  process_ = std::make_unique<testing::ChildProcess>(argv);
  port_ = static_cast<std::uint16_t>(testing::wait_for_port_file(dir_.file("ready"), 10000ms));
}

Stampede::~Stampede() {
  process_.reset();
}

std::string Stampede::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

int connect_loopback(std::uint16_t port, bool nonblocking) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  if (nonblocking) fcntl(fd, F_SETFL, O_NONBLOCK);
  return fd;
}

std::string Reply::header(const std::string& lower_name) const {
  std::string h = head;
  for (char& c : h)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  const std::size_t at = h.find("\r\n" + lower_name + ":");
  if (at == std::string::npos) return "";
  std::size_t from = at + 3 + lower_name.size();
  while (from < h.size() && h[from] == ' ')
    ++from;
  return head.substr(from, h.find("\r\n", from) - from);
}

namespace {

// Fills the reply from `raw`; true when it holds a whole response (Content-Length framed).
bool parse_reply(Reply& r, bool closed) {
  const std::size_t end = r.raw.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  r.head = r.raw.substr(0, end + 2);
  if (r.head.rfind("HTTP/1.", 0) == 0 && r.head.size() > 12) r.status = std::atoi(&r.head[9]);
  const std::string length = r.header("content-length");
  r.body = r.raw.substr(end + 4);
  if (length.empty()) return closed;
  const std::size_t want = std::stoul(length);
  if (r.body.size() < want) return false;
  r.body.resize(want);
  return true;
}

}  // namespace

std::optional<Reply> exchange(std::uint16_t port, const std::string& request,
                              std::chrono::milliseconds timeout) {
  const int fd = connect_loopback(port);
  if (fd < 0) return std::nullopt;
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return std::nullopt;
  }
  Reply r;
  const auto until = Clock::now() + timeout;
  bool done = false;
  while (!done && Clock::now() < until) {
    if (!testing::wait_readable(fd, std::chrono::milliseconds(20))) continue;
    char chunk[16384];
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) r.raw.append(chunk, static_cast<std::size_t>(n));
    done = parse_reply(r, n <= 0) || n <= 0;
  }
  close(fd);
  if (r.raw.empty()) return std::nullopt;
  parse_reply(r, true);
  return r;
}

std::uint64_t raise_nofile() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised{limit.rlim_max, limit.rlim_max};
    setrlimit(RLIMIT_NOFILE, &raised);
  }
  return limit.rlim_max;
}

std::string RateFigures::text() const {
  return fmt::format("{} requests, {:.2f}% success, p50 {:.3f} ms, p99 {:.3f} ms", total,
                     success_pct(), p50_ms, p99_ms);
}

RateFigures run_rate(const std::string& url, int rps, int seconds, int connections) {
  const testing::RunResult r = testing::run_command(
      {STAMPEDE_BINARY, url, "--rps", std::to_string(rps), "-t", std::to_string(seconds), "-c",
       std::to_string(connections), "-k", "--json"},
      std::chrono::milliseconds(seconds * 1000 + 20000));
  RateFigures f;
  const auto json = nlohmann::json::parse(r.out, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return f;
  f.ran = true;
  f.total = json.value("totalRequests", std::uint64_t{0});
  f.errors = json.value("totalErrors", std::uint64_t{0});
  f.p50_ms = json["percentiles"].value("50", 0.0);
  f.p99_ms = json["percentiles"].value("99", 0.0);
  return f;
}

}  // namespace stampede::faults
