// UringPoller: the io_uring backend of the EventLoop (poller.h gives the contract).
//
// Each registered descriptor gets one IORING_OP_POLL_ADD: multishot for an EPOLLET
// registration (each wake-up of the socket posts a completion carrying the epoll mask, as
// epoll's edge trigger does), one-shot and re-armed after every dispatch for a level-triggered
// one (so it reports again while the descriptor stays ready). add/remove only queue
// submission entries; wait() hands them to the kernel in the same io_uring_enter that waits
// (io_uring_submit_and_wait_timeout, nanosecond timeout), so a steady loop makes one system call
// per iteration for its readiness and none for registrations beyond one per connection.
//
// A plain TCP stream (TcpStream with an EventLoop) opens a UringChannel (uring_channel.h) for its
// socket: then its poll leaves out EPOLLIN and EPOLLRDHUP, and one multishot IORING_OP_RECV
// into the loop's provided buffers brings the bytes; each completion posts EPOLLIN to the
// descriptor's handler, which reads them from the channel. Without buffer rings or multishot
// receive (kernels before 6.0) open_channel() returns null and every stream reads by readiness.
// A channel whose owner stops reading is held to a cap of the shared buffers, and a channel that
// finds the buffers exhausted reads by readiness until one is free (uring_channel.h says how).
// Its writes go out as IORING_OP_SEND requests, prepared in wait() for every channel written to
// since the last one and submitted in the same io_uring_enter that waits; the poll then leaves
// out nothing, but the channel posts EPOLLOUT itself when its unsent bytes fall below its cap.
// The buffers read out of channels go back to the kernel in one ring advance per wait(). The
// destructor submits and reaps the channels' sends until every byte written is on its socket (or
// the socket failed, or kFinalSendsNs passed) before it tears the ring down: a server's last
// answers, written just before its loop ends, still leave.
//
// Completions are folded per descriptor before dispatch (one on_events call with the union of
// the masks, like one epoll_event). A completion names its registration by (fd, generation) in
// user_data, so one that arrives after remove() (or after remove and add of the same fd number)
// is dropped, and the kernel-side request is cancelled with POLL_REMOVE.
#pragma once

#include <liburing.h>

#include <memory>
#include <string>
#include <vector>

#include "net/poller.h"
#include "net/uring_channel.h"

namespace stampede::net {

class UringPoller final : public Poller {
 public:
  // How long the destructor waits at most for the sends of its channels to reach their sockets
  // (a peer that reads nothing would hold it forever).
  static constexpr std::int64_t kFinalSendsNs = 2'000'000'000;
  // An Error when the kernel has no io_uring, forbids it (seccomp, io_uring_disabled), or lacks
  // what this backend needs (IORING_FEAT_EXT_ARG, multishot poll: Linux 5.13 on).
  static Expected<std::unique_ptr<Poller>> create();
  // Empty when this kernel has multishot receive into provided buffers (Linux 6.0); else why not.
  static std::string receive_unavailable();
  ~UringPoller() override;
  // Empty when this ring reads plain TCP through channels; else why not (the kernel version, or
  // the error that registering the provided buffers met).
  const std::string& receive_error() const { return receive_error_; }

  Expected<void> add(int fd, std::uint32_t events, IoHandler* handler) override;
  Expected<void> modify(int fd, std::uint32_t events, IoHandler* handler) override;
  void remove(int fd) override;
  void wait(std::int64_t timeout_ns) override;
  void dispatch() override;
  UringChannel* open_channel(int fd) override;
  void close_channel(UringChannel* channel) override;
  std::size_t live_channels() const override { return channels_.size() - free_slots_.size(); }

 private:
  friend struct UringPollerProbe;  // tests/unit/net: feeds it completions the kernel rarely posts
  struct Entry {
    IoHandler* handler = nullptr;
    std::uint32_t events = 0;
    std::uint32_t generation = 0;     // 0: no registration
    std::uint32_t pending = 0;        // mask collected for the next dispatch
    bool queued = false;              // in ready_
    bool armed = false;               // a poll request of this generation is (being) submitted
    UringChannel* channel = nullptr;  // the open channel of the socket, kept across add/remove
  };
  struct Ready {
    int fd;
    std::uint32_t generation;
  };

  UringPoller() = default;
  io_uring_sqe* next_sqe();
  void arm(int fd, Entry& entry);
  void cancel(int fd, const Entry& entry);
  void collect(const io_uring_cqe& cqe);
  void receive(const io_uring_cqe& cqe);
  void arm_receive(UringChannel& channel);
  void start_send(UringChannel& channel);
  void sent(UringChannel& channel, int res);
  void post_output(UringChannel& channel);
  void arm_channel_poll(UringChannel& channel);
  void cancel_receive(const UringChannel& channel);
  void channel_polled(UringChannel& channel, int res);
  void rest(UringChannel& channel);
  void tend_resting();
  void post_input(UringChannel& channel, std::uint32_t events);
  void free_channel(UringChannel& channel);
  void queue(int fd, Entry& entry, std::uint32_t events);
  void prepare_sends();
  void reap();
  void finish_sends();

  io_uring ring_{};
  bool ring_ready_ = false;
  std::vector<Entry> entries_;  // indexed by fd
  std::vector<Ready> ready_;
  std::uint32_t next_generation_ = 1;
  std::unique_ptr<ProvidedBuffers> buffers_;             // null: no channels
  std::vector<std::unique_ptr<UringChannel>> channels_;  // by slot; null when free
  std::vector<std::uint32_t> free_slots_;
  std::vector<UringChannel*> resting_;  // channels without a receive: capped or starved
  std::vector<UringChannel*> sends_;    // channels with bytes to send and no send in flight
  std::string receive_error_;
};

}  // namespace stampede::net
