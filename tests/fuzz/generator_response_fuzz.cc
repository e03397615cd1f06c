// Fuzz target: the generator's response handling (loadgen::Connection over a socket, its
// ResponseParser, its error accounting), end to end through loadgen::run.
// Input: byte 0 flags (bit 0: -k keep-alive; bit 1: HEAD instead of GET; bit 2: two connections
// instead of one), then the bytes a server answers. A listener on a loopback port (port 0), on a
// thread of this process, answers every connection it accepts: it reads the request head, writes
// the input bytes, closes its writing side and reads until the generator closes (each wait
// bounded by poll). The generator runs -n 3 with a 300 ms timeout, without progress lines.
// Oracle: the run starts and ends (bounded: every request ends in a response, EOF or the
// timeout); exactly 3 requests are counted; requests = responses counted by status + transport
// failures, exactly; every error code is a documented one for a plain-HTTP run (docs/output.md:
// a status, ECONNRESET, ETIMEDOUT, EPROTO, EPIPE); no local error; no crash or sanitizer report.
// Over sockets (the generator has no stream seam yet; issue 16's test stream should replace
// them), so a few hundred executions per second at best.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "fuzz_check.h"
#include "loadgen/config.h"
#include "loadgen/runner.h"

namespace {

namespace loadgen = stampede::loadgen;

constexpr int kPollMs = 200;  // the longest the listener waits for one event
constexpr std::uint64_t kRequests = 3;

// Waits for `fd` to be readable; false after kPollMs without.
bool wait_readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, kPollMs) == 1;
}

// One accepted connection: read the head (or give up), answer `reply`, half-close, drain.
void answer_gr(int fd, std::string_view reply) {
  std::string got;
  char buf[4096];
  while (got.find("\r\n\r\n") == std::string::npos && wait_readable(fd)) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t sent = 0;
  while (sent < reply.size()) {
    const ssize_t n = ::send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  // Until the generator closes: closing with unread bytes would reset the connection.
  for (int i = 0; i < 8 && wait_readable(fd); ++i) {
    if (::recv(fd, buf, sizeof buf, 0) <= 0) break;
  }
  ::close(fd);
}

// A loopback listener answering every connection with `reply` until stop_.
class ReplyServer {
 public:
  explicit ReplyServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    FUZZ_CHECK(fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
                   ::listen(fd_, 16) == 0 &&
                   ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0,
               "listener: errno %d", errno);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ReplyServer() {
    stop_.store(true);
    thread_.join();
    ::close(fd_);
  }
  ReplyServer(const ReplyServer&) = delete;
  ReplyServer& operator=(const ReplyServer&) = delete;

  int port() const { return port_; }

 private:
  void serve() {
    while (!stop_.load()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) != 1) continue;
      const int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn >= 0) answer_gr(conn, reply_);
    }
  }

  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

bool is_documented(const std::string& code) {
  if (code.size() == 3 && code[0] >= '1' && code[0] <= '9' &&
      code.find_first_not_of("0123456789") == std::string::npos) {
    return true;
  }
  return code == "ECONNRESET" || code == "ETIMEDOUT" || code == "EPROTO" || code == "EPIPE";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 8192) return 0;
  const std::uint8_t flags = data[0];
  ReplyServer server(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));

  loadgen::Config config;
  config.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  config.max_requests = kRequests;
  config.concurrency = (flags & 4) != 0 ? 2 : 1;
  config.cores = 1;
  config.keep_alive = (flags & 1) != 0;
  if ((flags & 2) != 0) config.method = "HEAD";
  config.timeout = std::chrono::milliseconds(300);

  const auto started = std::chrono::steady_clock::now();
  auto result = loadgen::run(config);
  const auto took = std::chrono::steady_clock::now() - started;
  FUZZ_CHECK(result.ok(), "run refused: %s", result.ok() ? "" : result.error().message.c_str());
  FUZZ_CHECK(
      took < std::chrono::seconds(10), "run took %lld ms",
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  const loadgen::RunResult& r = *result;
  FUZZ_CHECK(r.total_requests == kRequests, "%llu requests counted",
             static_cast<unsigned long long>(r.total_requests));
  FUZZ_CHECK(r.local_errors.empty(), "local error %s", r.local_errors.begin()->first.c_str());
  std::uint64_t responses = 0;
  std::uint64_t failed_responses = 0;
  for (const auto& [status, count] : r.status_counts) {
    responses += count;
    if (status < 200 || status >= 400) failed_responses += count;
  }
  std::uint64_t transport = 0;
  std::uint64_t coded = 0;
  for (const auto& [code, count] : r.error_codes) {
    FUZZ_CHECK(is_documented(code), "undocumented error code '%s'", code.c_str());
    coded += count;
    if (code.front() == 'E') transport += count;
  }
  FUZZ_CHECK(responses + transport == r.total_requests,
             "%llu responses + %llu transport failures != %llu requests",
             static_cast<unsigned long long>(responses), static_cast<unsigned long long>(transport),
             static_cast<unsigned long long>(r.total_requests));
  FUZZ_CHECK(coded == r.total_errors && failed_responses + transport == r.total_errors,
             "errors %llu: coded %llu, failed responses %llu + transport %llu",
             static_cast<unsigned long long>(r.total_errors),
             static_cast<unsigned long long>(coded),
             static_cast<unsigned long long>(failed_responses),
             static_cast<unsigned long long>(transport));
  return 0;
}
