#include "recording_ws.h"

#include <sys/socket.h>
#include <sys/time.h>

#include "support/loopback.h"
#include "ws/handshake.h"
#include "ws/session.h"

namespace stampede::testing {
namespace {

// Records each message and echoes it, as stampede serve does.
class RecordingEcho final : public ws::SessionHandler {
 public:
  explicit RecordingEcho(RecordingWsServer& server) : server_(server) {}
  void attach(ws::Session& session) { session_ = &session; }
  void on_message(const ws::Message& message) override {
    server_.record(message.text, message.payload);
    session_->send(message);
  }

 private:
  RecordingWsServer& server_;
  ws::Session* session_ = nullptr;
};

// Writes what the session queued; false when the socket failed.
bool flush(int fd, ws::Session& session) {
  const std::string_view out = session.output();
  if (out.empty()) return true;
  if (!send_all(fd, out)) return false;
  session.consume_output(out.size());
  return true;
}

}  // namespace

RecordingWsServer::RecordingWsServer()
    : loop_([this](int fd) { serve(fd); }, AcceptLoop::Threads::PerConnection) {}

std::vector<ReceivedMessage> RecordingWsServer::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

void RecordingWsServer::record(bool text, std::string_view payload) {
  std::lock_guard lock(mutex_);
  messages_.push_back({text, std::string(payload)});
}

// One connection: the upgrade, then messages until the close handshake, EOF or a timeout.
void RecordingWsServer::serve(int fd) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string head;
  char buffer[16384];
  std::size_t end = std::string::npos;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  constexpr std::string_view kKey = "Sec-WebSocket-Key: ";
  const std::size_t at = head.find(kKey);
  if (at == std::string::npos || at > end) return;
  const std::size_t key_at = at + kKey.size();
  std::string answer;
  ws::append_accept(answer,
                    std::string_view(head).substr(key_at, head.find("\r\n", key_at) - key_at));
  if (!send_all(fd, answer)) return;
  RecordingEcho echo(*this);
  ws::Session session(ws::Role::Server, echo);
  echo.attach(session);
  if (!session.reset()) return;
  const std::string rest = head.substr(end + 4);  // frames right behind the upgrade
  if (!rest.empty() && (!session.feed(rest.data(), rest.size()) || !flush(fd, session))) return;
  while (!session.done()) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    if (!session.feed(buffer, static_cast<std::size_t>(n)) || !flush(fd, session)) return;
  }
}

}  // namespace stampede::testing
