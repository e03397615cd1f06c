#include "balancer/health.h"

#include <errno.h>
#include <sys/epoll.h>

#include "balancer/session_limits.h"
#include "balancer/upstream_opener.h"
#include "net/socket.h"

namespace stampede::balancer {

// One check: a connector from make_backend_connector() (the one the workers' connections use)
// connects (and handshakes, for a TLS backend), then the probe sends the request and reads up to
// the status line. Reports once. Every event retries whatever is pending (the handshake, the
// request, then the reading), so a stream that waits on the other readiness (TLS) needs no
// bookkeeping here.
class HealthChecker::Probe final : public net::IoHandler {
 public:
  Probe(HealthChecker& checker, std::size_t index) : checker_(checker), index_(index) {}
  ~Probe() { detach(); }

  // `session`: the backend's TLS session slot in the checker, which outlives the probe.
  void start(const BackendState& state, tls::SessionPtr& session) {
    request_ = "GET " + checker_.config_.health_path +
               " HTTP/1.1\r\nHost: " + state.address_text() +
               "\r\nUser-Agent: stampede-balance\r\nConnection: close\r\n\r\n";
    connector_ = make_backend_connector(state, session);
    bool connected = false;
    const int err = connector_->open(checker_.loop_, *this, checker_.loop_.now_ns(), connected);
    if (err != 0) {
      // Refused or unreachable: the backend's verdict; our descriptors, memory, ports or epoll
      // watches: none.
      return net::is_local_resource_error(err) || err == ENOSPC ? skip() : report(false);
    }
    registered_ = true;
    connecting_ = !connected;
    handshaking_ = connector_->has_handshake();
  }

  void on_events(std::uint32_t events) override {
    if (done_) return;
    if (connecting_) {
      if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
      if (const int err = connector_->connect_result(); err != 0) {
        return net::is_local_resource_error(err) ? skip() : report(false);
      }
      connecting_ = false;
    }
    if (handshaking_) {
      const net::IoStatus status = connector_->handshake();
      if (status == net::IoStatus::Error) return report(false);
      if (status != net::IoStatus::Done) return;
      handshaking_ = false;
    }
    net::Stream& stream = *connector_->stream();
    if (sent_ < request_.size()) {
      std::size_t n = 0;
      const net::IoStatus status =
          stream.write(request_.data() + sent_, request_.size() - sent_, n);
      if (status == net::IoStatus::Error) return report(false);
      if (status == net::IoStatus::Done) sent_ += n;
      if (sent_ < request_.size()) return;
    }
    read_status();
  }

  // The checker gave up waiting.
  void time_out() { report(false); }
  bool done() const { return done_; }

 private:
  void read_status() {
    char buf[512];
    for (;;) {
      std::size_t n = 0;
      auto status = connector_->stream()->read(buf, sizeof buf, n);
      if (status == net::IoStatus::WouldBlock) return;
      if (status != net::IoStatus::Done) return report(false);
      head_.append(buf, n);
      std::size_t eol = head_.find("\r\n");
      if (eol != std::string::npos) return report(status_ok(head_.substr(0, eol)));
      if (head_.size() > 4096) return report(false);
    }
  }

  static bool status_ok(std::string_view line) {
    if (line.size() < 12 || line.substr(0, 7) != "HTTP/1.") return false;
    const char d = line[9];
    return (d == '2' || d == '3') && line[10] >= '0' && line[10] <= '9' && line[11] >= '0' &&
           line[11] <= '9';
  }

  // Closes the socket; `clean` (a status line came) keeps its TLS session for the next check.
  void detach(bool clean = false) {
    if (registered_) {
      connector_->close(clean);
      registered_ = false;
    }
    connector_.reset();
  }

  void report(bool ok) {
    if (done_) return;
    done_ = true;
    detach(ok);
    checker_.on_result(index_, ok);  // may move this probe to finished_: nothing after this
  }

  // The check could not be made for want of our own resources (descriptors, memory, local
  // ports): no verdict on the backend, its streaks stay as they are.
  void skip() {
    if (done_) return;
    done_ = true;
    detach();
    checker_.on_skipped(index_);  // may move this probe to finished_: nothing after this
  }

  HealthChecker& checker_;
  std::size_t index_;
  std::unique_ptr<net::Connector> connector_;
  std::string request_;
  std::size_t sent_ = 0;
  std::string head_;
  bool registered_ = false;
  bool connecting_ = true;
  bool handshaking_ = false;
  bool done_ = false;
};

HealthChecker::HealthChecker(net::EventLoop& loop, const BalancerConfig& config,
                             std::span<BackendState* const> states)
    : loop_(loop),
      config_(config),
      states_(states.begin(), states.end()),
      tracks_(states.size()),
      round_timer_([this] { round(); }),
      timeout_timer_([this] { expire_outstanding(); }) {}

HealthChecker::~HealthChecker() = default;

void HealthChecker::start() {
  loop_.schedule(round_timer_, loop_.now_ns() + ns(config_.health_interval));
}

void HealthChecker::round() {
  expire_outstanding();
  finished_.clear();
  const std::int64_t now = loop_.update_time();
  for (std::size_t i = 0; i < states_.size(); ++i) {
    tracks_[i].probe = std::make_unique<Probe>(*this, i);
    tracks_[i].probe->start(*states_[i], tracks_[i].session);
  }
  loop_.schedule(timeout_timer_, now + ns(config_.effective_health_timeout()));
  loop_.schedule(round_timer_, now + ns(config_.health_interval));
}

void HealthChecker::expire_outstanding() {
  for (Track& t : tracks_) {
    if (t.probe && !t.probe->done()) t.probe->time_out();
  }
  finished_.clear();
}

void HealthChecker::on_skipped(std::size_t index) {
  ++skipped_;
  Track& t = tracks_[index];
  if (t.probe) finished_.push_back(std::move(t.probe));
}

void HealthChecker::on_result(std::size_t index, bool ok) {
  Track& t = tracks_[index];
  BackendState& state = *states_[index];
  ++probes_;
  successes_ += ok ? 1 : 0;
  if (state.up() != t.known_up) {  // passive detection changed it: count afresh
    t.ok_streak = 0;
    t.fail_streak = 0;
  }
  if (ok) {
    ++t.ok_streak;
    t.fail_streak = 0;
    if (!state.up() && t.ok_streak >= config_.rise) state.set_up(true);
  } else {
    ++t.fail_streak;
    t.ok_streak = 0;
    if (state.up() && t.fail_streak >= config_.fall) state.set_up(false);
  }
  t.known_up = state.up();
  if (t.probe) finished_.push_back(std::move(t.probe));
}

}  // namespace stampede::balancer
