#include "support/scripted_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <list>
#include <stdexcept>
#include <vector>

#include "support/loopback.h"

namespace stampede::testing {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return s;
}

// The Content-Length of a request head, 0 when absent.
std::size_t content_length(const std::string& head) {
  const std::string h = lower(head);
  const std::size_t at = h.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  return static_cast<std::size_t>(std::strtoull(h.c_str() + at + 17, nullptr, 10));
}

// A socket bound to 127.0.0.1, port 0, that does not listen: connections to it are refused.
int bind_loopback(std::uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("bind failed");
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

ScriptedReply ok_reply(const std::string& request) {
  ScriptedReply r;
  r.close_after = lower(request).find("\r\nconnection: close") != std::string::npos;
  r.bytes = std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n") +
            (r.close_after ? "Connection: close\r\n" : "") + "\r\nOK";
  return r;
}

ScriptedServer::Script answer_ok() {
  return [](std::uint64_t, const std::string& request) { return ok_reply(request); };
}

ScriptedServer::Script answer_always(ScriptedReply reply) {
  return [reply](std::uint64_t, const std::string&) { return reply; };
}

ScriptedServer::Script answer_ok_after(std::chrono::milliseconds delay, std::uint64_t from) {
  return [delay, from](std::uint64_t index, const std::string& request) {
    ScriptedReply reply = ok_reply(request);
    if (index >= from) reply.delay = delay;
    return reply;
  };
}

struct ScriptedServer::Client {
  struct Pending {
    SteadyTime due;
    ScriptedReply reply;
  };
  int fd = -1;
  std::string in;
  std::string out;
  std::size_t sent = 0;       // bytes of `out` written
  std::size_t unsettled = 0;  // replies taken into `out` and not all written yet
  std::size_t piece = 0;      // ScriptedReply::piece of the last reply taken
  bool nodelay = false;
  std::deque<Pending> pending;
  bool close_when_flushed = false;
  bool half_close_when_flushed = false;
  bool shut = false;  // writing shut (half_close_after): waits for the peer's close
  bool closed = false;
};

ScriptedServer::ScriptedServer(Script script) : ScriptedServer(std::move(script), "127.0.0.1") {}

ScriptedServer::ScriptedServer(Script script, std::string address)
    : script_(std::move(script)), address_(std::move(address)) {
  LoopbackListener listener = listen_ipv4(address_.c_str(), 1024, SOCK_NONBLOCK);
  port_ = listener.port;
  listen_fd_ = listener.fd.release();
  if (::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  thread_ = std::thread([this] { serve(); });
}

ScriptedServer::~ScriptedServer() {
  char one = 1;
  [[maybe_unused]] auto n = ::write(wake_[1], &one, 1);
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

std::string ScriptedServer::url(const std::string& path) const {
  return "http://" + address_ + ":" + std::to_string(port_) + path;
}

std::string ScriptedServer::last_request() const {
  std::lock_guard lock(last_mutex_);
  return last_request_;
}

std::uint64_t ScriptedServer::replies_settled() const {
  std::lock_guard lock(last_mutex_);
  return settled_;
}

bool ScriptedServer::wait_settled(std::uint64_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(last_mutex_);
  return settled_changed_.wait_for(lock, timeout, [&] { return settled_ >= count; });
}

// The replies in `client.out` are done with (written, or never to be).
void ScriptedServer::settle(Client& client) {
  if (client.unsettled == 0) return;
  {
    std::lock_guard lock(last_mutex_);
    settled_ += client.unsettled;
  }
  client.unsettled = 0;
  settled_changed_.notify_all();
}

void ScriptedServer::take_requests(Client& client) {
  for (;;) {
    const std::size_t head_end = client.in.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    const std::size_t total = head_end + 4 + content_length(client.in.substr(0, head_end + 2));
    if (client.in.size() < total) return;
    std::string request = client.in.substr(0, total);
    client.in.erase(0, total);
    const std::uint64_t index = requests_.fetch_add(1);
    {
      std::lock_guard lock(last_mutex_);
      last_request_ = request;
    }
    ScriptedReply reply = script_(index, request);
    if (reply.silent) continue;
    const SteadyTime due = std::chrono::steady_clock::now() + reply.delay;
    client.pending.push_back({due, std::move(reply)});
  }
}

void ScriptedServer::on_readable(Client& client) {
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(client.fd, buffer, sizeof buffer);
    if (n > 0) {
      client.in.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) client.closed = true;
    break;
  }
  if (client.shut) {
    client.in.clear();  // after half_close_after: read and dropped
    return;
  }
  take_requests(client);
}

// Writes what is due; false once the connection is to be closed.
bool ScriptedServer::flush(Client& client) {
  const SteadyTime now = std::chrono::steady_clock::now();
  while (!client.close_when_flushed && !client.half_close_when_flushed && !client.pending.empty() &&
         client.pending.front().due <= now) {
    const ScriptedReply& reply = client.pending.front().reply;
    client.out += reply.bytes;
    client.piece = reply.piece;
    if (client.piece > 0 && !client.nodelay) {
      int one = 1;
      setsockopt(client.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      client.nodelay = true;
    }
    ++client.unsettled;
    client.close_when_flushed = reply.close_after;
    client.half_close_when_flushed = reply.half_close_after;
    client.pending.pop_front();
  }
  while (client.sent < client.out.size()) {
    std::size_t len = client.out.size() - client.sent;
    if (client.piece > 0) len = std::min(len, client.piece);
    const ssize_t n = ::send(client.fd, client.out.data() + client.sent, len, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EAGAIN) return true;
      return false;
    }
    client.sent += static_cast<std::size_t>(n);
  }
  client.out.clear();
  client.sent = 0;
  settle(client);
  if (client.half_close_when_flushed && !client.shut) {
    ::shutdown(client.fd, SHUT_WR);
    client.shut = true;
  }
  return !client.close_when_flushed && !client.closed;
}

void ScriptedServer::serve() {
  std::list<Client> clients;
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    int timeout_ms = 100;
    const SteadyTime now = std::chrono::steady_clock::now();
    for (const Client& c : clients) {
      fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
      if (!c.pending.empty()) {
        const auto wait =
            std::chrono::duration_cast<std::chrono::milliseconds>(c.pending.front().due - now);
        timeout_ms = std::clamp(static_cast<int>(wait.count()) + 1, 0, timeout_ms);
      }
    }
    ::poll(fds.data(), fds.size(), timeout_ms);
    if (fds[0].revents & POLLIN) break;
    if (fds[1].revents & POLLIN) {
      for (int fd;
           (fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        ++connections_;
        clients.emplace_back().fd = fd;
      }
    }
    std::size_t i = 2;
    for (auto it = clients.begin(); it != clients.end(); ++i) {
      if (i < fds.size() && fds[i].revents) on_readable(*it);
      if (!flush(*it)) {
        ::close(it->fd);
        settle(*it);
        it = clients.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Client& c : clients) {
    ::close(c.fd);
    settle(c);
  }
}

RefusedPort::RefusedPort() {
  fd_ = bind_loopback(port_);
}

RefusedPort::~RefusedPort() {
  ::close(fd_);
}

}  // namespace stampede::testing
