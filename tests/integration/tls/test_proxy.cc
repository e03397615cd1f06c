#include "test_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "support/loopback.h"

namespace stampede::testing {
namespace {

int connect_to(const std::string& host, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Copies bytes both ways until either side closes (or the proxy stops: sockets shut down).
void relay(int a, int b) {
  char buffer[16384];
  for (;;) {
    pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    if (::poll(fds, 2, 10000) <= 0) return;
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0 || !send_all(fds[1 - i].fd, {buffer, static_cast<std::size_t>(n)})) return;
    }
  }
}

// "host:port" -> host, port (IPv4 only: the tests use 127.0.0.1).
bool split_authority(const std::string& authority, std::string& host, int& port) {
  const std::size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return false;
  host = authority.substr(0, colon);
  port = std::atoi(authority.c_str() + colon + 1);
  return port > 0;
}

}  // namespace

TestProxy::TestProxy(bool refuse_connect) : refuse_connect_(refuse_connect) {
  LoopbackListener listener = listen_loopback(128);
  port_ = listener.port;
  listener_ = listener.fd.release();
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) std::abort();
  acceptor_ = std::thread([this] { accept_loop(); });
}

TestProxy::~TestProxy() {
  ::close(stop_pipe_[1]);
  acceptor_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : sockets_)
      ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_)
    t.join();
  for (int fd : sockets_)
    ::close(fd);
  ::close(stop_pipe_[0]);
  ::close(listener_);
}

std::vector<std::string> TestProxy::request_lines() const {
  std::lock_guard lock(mutex_);
  return lines_;
}

::testing::AssertionResult TestProxy::saw(std::size_t count, const std::string& line) const {
  const std::vector<std::string> lines = request_lines();
  if (lines.size() == count && std::all_of(lines.begin(), lines.end(),
                                           [&line](const std::string& l) { return l == line; })) {
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << "expected " << count << " x [" << line << "], got " << lines.size() << ":";
  for (const std::string& l : lines)
    failure << "\n  [" << l << "]";
  return failure;
}

void TestProxy::track(int fd) {
  std::lock_guard lock(mutex_);
  sockets_.push_back(fd);
}

void TestProxy::accept_loop() {
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 || fds[1].revents != 0) return;
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    track(client);
    threads_.emplace_back([this, client] { serve(client); });
  }
}

// Reads the request head, then tunnels (CONNECT) or forwards (absolute form).
void TestProxy::serve(int client) {
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    const ssize_t n = ::read(client, buffer, sizeof buffer);
    if (n <= 0) return;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  const std::string line = head.substr(0, head.find("\r\n"));
  {
    std::lock_guard lock(mutex_);
    lines_.push_back(line);
  }
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos) return;
  const std::string method = line.substr(0, sp1);
  const std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string host, authority = target;
  std::string rest = head;
  if (method != "CONNECT") {
    if (target.rfind("http://", 0) != 0) return;
    const std::size_t slash = target.find('/', 7);
    authority = target.substr(7, slash == std::string::npos ? std::string::npos : slash - 7);
    const std::string path = slash == std::string::npos ? "/" : target.substr(slash);
    rest = method + " " + path + head.substr(sp2);
  }
  int port = 0;
  if (!split_authority(authority, host, port)) return;
  if (method == "CONNECT" && refuse_connect_) {
    const std::string refused = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n";
    send_all(client, refused);
    return;
  }
  const int upstream = connect_to(host, port);
  if (upstream < 0) return;
  track(upstream);
  if (method == "CONNECT") {
    const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
    if (!send_all(client, ok)) return;
    const std::size_t end = head.find("\r\n\r\n") + 4;
    if (end < head.size() && !send_all(upstream, std::string_view(head).substr(end))) return;
  } else if (!send_all(upstream, rest)) {
    return;
  }
  relay(client, upstream);
  ::shutdown(client, SHUT_RDWR);
  ::shutdown(upstream, SHUT_RDWR);
}

}  // namespace stampede::testing
