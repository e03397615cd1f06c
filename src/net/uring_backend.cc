#include "net/uring_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "core/clock.h"
#include "net/event_loop.h"

namespace stampede::net {
namespace {

constexpr unsigned kSubmissionEntries = 256;
// Completions can outnumber submissions (multishot): room for a burst from every connection.
// With IORING_FEAT_NODROP the kernel keeps any excess until the next wait rather than drop it.
constexpr unsigned kCompletionEntries = 4096;
// user_data of the POLL_REMOVE requests (skipped on success; -ENOENT for a poll already ended).
constexpr std::uint64_t kCancelTag = ~std::uint64_t{0};
// user_data of a channel's receive: this bit and the channel's slot; of a starved channel's
// poll: this bit, the poll bit and the slot; of its send: this bit, the send bit and the slot
// (poll generations stay below 2^29, so a registration's user_data has none of them).
constexpr std::uint64_t kChannelTag = std::uint64_t{1} << 62;
constexpr std::uint64_t kChannelPollBit = std::uint64_t{1} << 61;
constexpr std::uint64_t kChannelSendBit = std::uint64_t{1} << 60;
constexpr std::uint32_t kGenerationLimit = 1u << 29;
// The provided buffers of one loop: 4 MiB, room for a 16 KiB read on 256 connections at once.
constexpr unsigned kProvidedBuffers = 256;
constexpr unsigned kProvidedBufferBytes = 16 * 1024;

std::uint64_t pack(int fd, std::uint32_t generation) {
  return (std::uint64_t{generation} << 32) | static_cast<std::uint32_t>(fd);
}

std::string describe(const char* what, int negative_errno) {
  return std::string(what) + ": " + std::strerror(-negative_errno);
}

}  // namespace

Expected<std::unique_ptr<Poller>> UringPoller::create() {
  std::unique_ptr<UringPoller> poller(new UringPoller());
  io_uring_params params{};
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN;
  params.cq_entries = kCompletionEntries;
  int r = io_uring_queue_init_params(kSubmissionEntries, &poller->ring_, &params);
  if (r == -EINVAL) {  // before Linux 5.19: no COOP_TASKRUN
    params = io_uring_params{};
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = kCompletionEntries;
    r = io_uring_queue_init_params(kSubmissionEntries, &poller->ring_, &params);
  }
  if (r < 0) return make_error(describe("io_uring_setup", r));
  poller->ring_ready_ = true;
  if (!(params.features & IORING_FEAT_EXT_ARG) || !(params.features & IORING_FEAT_NODROP)) {
    return make_error("io_uring: the kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11)");
  }
  // Multishot poll (5.13) and skipping successful completions (5.17) are not in the feature
  // bits; IORING_FEAT_CQE_SKIP (5.17) stands for both.
  if (!(params.features & IORING_FEAT_CQE_SKIP)) {
    return make_error("io_uring: the kernel lacks IORING_FEAT_CQE_SKIP (Linux 5.17)");
  }
  poller->receive_error_ = receive_unavailable();
  if (poller->receive_error_.empty()) {
    int error = 0;
    poller->buffers_ =
        ProvidedBuffers::create(poller->ring_, kProvidedBuffers, kProvidedBufferBytes, error);
    if (!poller->buffers_) poller->receive_error_ = describe("io_uring_register_buf_ring", -error);
  }
  return std::unique_ptr<Poller>(std::move(poller));
}

std::string UringPoller::receive_unavailable() {
  utsname name{};
  int major = 0;
  int minor = 0;
  if (::uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2) {
    return "kernel version unknown";
  }
  if (major < 6) return std::string("Linux ") + name.release + " has no multishot receive (6.0)";
  return {};
}

UringPoller::~UringPoller() {
  // The ring first: after it, the kernel touches no buffer; then the channels give theirs back
  // (and close the duplicates of sockets closed with bytes unsent, which ends those streams).
  // Before it, the bytes the channels took: write() said Done for them.
  if (ring_ready_) {
    finish_sends();
    io_uring_queue_exit(&ring_);
  }
  channels_.clear();
  buffers_.reset();
}

// Submits and reaps until no send is in flight or listed (each channel's bytes are on its socket,
// or its socket failed), for at most kFinalSendsNs. Completions are collected as in wait() (a
// partial send goes again, a shutdown follows the last send) but never dispatched: the handlers
// may be gone.
void UringPoller::finish_sends() {
  const std::int64_t deadline = mono_ns() + kFinalSendsNs;
  for (;;) {
    prepare_sends();
    bool sending = false;
    for (const auto& channel : channels_)
      sending = sending || (channel && channel->send_armed_);
    const std::int64_t left = deadline - mono_ns();
    if (!sending || left <= 0) return;
    __kernel_timespec ts{left / 1'000'000'000, left % 1'000'000'000};
    io_uring_cqe* cqe = nullptr;
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
    reap();
  }
}

io_uring_sqe* UringPoller::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  while (!sqe) {  // the queue is full: hand it to the kernel and take a fresh entry
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringPoller::arm(int fd, Entry& entry) {
  io_uring_sqe* sqe = next_sqe();
  std::uint32_t mask = entry.events & ~(EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE);
  // The channel's receive reports what EPOLLIN and EPOLLRDHUP would.
  if (entry.channel != nullptr) mask &= ~(EPOLLIN | EPOLLRDHUP);
  if (entry.events & EPOLLET) {
    io_uring_prep_poll_multishot(sqe, fd, mask);
  } else {
    io_uring_prep_poll_add(sqe, fd, mask);
  }
  io_uring_sqe_set_data64(sqe, pack(fd, entry.generation));
  entry.armed = true;
}

void UringPoller::cancel(int fd, const Entry& entry) {
  if (!entry.armed) return;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_poll_remove(sqe, pack(fd, entry.generation));
  io_uring_sqe_set_data64(sqe, kCancelTag);
  io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
}

Expected<void> UringPoller::add(int fd, std::uint32_t events, IoHandler* handler) {
  if (fd < 0) {
    errno = EBADF;  // as epoll_ctl leaves it, for callers that report errno
    return make_error("io_uring poll add: " + std::string(std::strerror(EBADF)));
  }
  if (static_cast<std::size_t>(fd) >= entries_.size()) entries_.resize(fd + 1);
  // Still registered: its descriptor was closed without remove() and the kernel gave the number
  // out again (epoll forgets a registration at close). Its poll, which holds the old socket
  // open until then, is cancelled now.
  remove(fd);
  Entry& entry = entries_[fd];
  entry = Entry{handler, events, next_generation_++, 0, false, false, entry.channel};
  if (next_generation_ == kGenerationLimit) next_generation_ = 1;
  arm(fd, entry);
  // Readiness present at add(): bytes the channel holds already.
  UringChannel* channel = entry.channel;
  if (channel != nullptr && (events & EPOLLIN) &&
      (channel->head_ < channel->chunks_.size() || channel->ended())) {
    queue(fd, entry, EPOLLIN);
  }
  return {};
}

Expected<void> UringPoller::modify(int fd, std::uint32_t events, IoHandler* handler) {
  if (fd < 0 || static_cast<std::size_t>(fd) >= entries_.size() || entries_[fd].generation == 0) {
    return make_error("io_uring poll modify: " + std::string(std::strerror(ENOENT)));
  }
  remove(fd);
  return add(fd, events, handler);
}

void UringPoller::remove(int fd) {
  if (fd < 0 || static_cast<std::size_t>(fd) >= entries_.size()) return;
  Entry& entry = entries_[fd];
  if (entry.generation == 0) return;
  cancel(fd, entry);
  UringChannel* channel = entry.channel;  // the stream's, not the registration's
  entry = Entry{};
  entry.channel = channel;
}

UringChannel* UringPoller::open_channel(int fd) {
  if (!buffers_ || fd < 0) return nullptr;
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(channels_.size());
    channels_.emplace_back();
  }
  channels_[slot] = std::make_unique<UringChannel>(*buffers_, sends_, fd, slot);
  UringChannel* channel = channels_[slot].get();
  if (static_cast<std::size_t>(fd) >= entries_.size()) entries_.resize(fd + 1);
  Entry& entry = entries_[fd];
  entry.channel = channel;
  // Registered already (a connect that had to finish first): poll again without EPOLLIN.
  if (entry.generation != 0) {
    IoHandler* handler = entry.handler;
    const std::uint32_t events = entry.events;
    (void)add(fd, events, handler);
  }
  arm_receive(*channel);
  return channel;
}

void UringPoller::close_channel(UringChannel* channel) {
  if (channel == nullptr) return;
  const int fd = channel->fd_;
  if (static_cast<std::size_t>(fd) < entries_.size() && entries_[fd].channel == channel) {
    entries_[fd].channel = nullptr;
  }
  channel->detach();
  if (channel->send_error_ == 0 && channel->unsent_bytes() + channel->shutdown_wanted_ > 0) {
    // Bytes written and not sent yet: they leave through a duplicate of the socket, since the
    // owner closes its descriptor next. A send prepared from a completion (not submitted yet)
    // names the descriptor by its number: submitted now, it holds the socket itself.
    if (channel->send_armed_ && io_uring_sq_ready(&ring_) > 0) io_uring_submit(&ring_);
    channel->lingering_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (channel->lingering_fd_ >= 0) {
      channel->fd_ = channel->lingering_fd_;
    } else {
      channel->send_failed(errno);
    }
  }
  if (channel->idle()) {
    free_channel(*channel);
    return;
  }
  // Freed at the final completion of its receive and its poll, which the cancels bring (or, when
  // a cancel answers -EALREADY, the completion the receive was about to post).
  if (channel->armed_) cancel_receive(*channel);
  if (channel->poll_armed_) {
    io_uring_sqe* sqe = next_sqe();
    io_uring_prep_poll_remove(sqe, kChannelTag | kChannelPollBit | channel->slot_);
    io_uring_sqe_set_data64(sqe, kCancelTag);
    io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
  }
}

// The next send of `channel`: the rest of a partial one, else what was written since.
void UringPoller::start_send(UringChannel& channel) {
  channel.send_listed_ = false;
  if (channel.send_armed_) return;
  if (channel.sending_.empty()) std::swap(channel.sending_, channel.next_);
  if (channel.sending_.empty()) return;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_send(sqe, channel.fd_, channel.sending_.data() + channel.sent_,
                     channel.sending_.size() - channel.sent_, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, kChannelTag | kChannelSendBit | channel.slot_);
  channel.send_armed_ = true;
}

void UringPoller::sent(UringChannel& channel, int res) {
  if (channel.on_sent(res)) {
    start_send(channel);
  } else if (channel.shutdown_wanted_) {
    channel.shutdown_wanted_ = false;
    ::shutdown(channel.fd_, SHUT_WR);
  }
  if (channel.detached_) {
    if (channel.idle()) free_channel(channel);
    return;
  }
  if (channel.send_error_ != 0) {
    post_input(channel, EPOLLIN | EPOLLERR);  // read() says Error after the queued bytes
    post_output(channel);
  } else if (channel.owes_writable_ && channel.unsent_bytes() < UringChannel::kSendCap) {
    channel.owes_writable_ = false;
    post_output(channel);
  }
}

void UringPoller::post_output(UringChannel& channel) {
  Entry& entry = entries_[channel.fd_];
  if (entry.channel != &channel || entry.generation == 0 || !(entry.events & EPOLLOUT)) return;
  queue(channel.fd_, entry, channel.send_error_ != 0 ? EPOLLOUT | EPOLLERR : EPOLLOUT);
}

void UringPoller::free_channel(UringChannel& channel) {
  if (channel.resting_) std::erase(resting_, &channel);
  free_slots_.push_back(channel.slot_);
  channels_[channel.slot_].reset();
}

void UringPoller::cancel_receive(const UringChannel& channel) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_cancel64(sqe, kChannelTag | channel.slot_, 0);
  io_uring_sqe_set_data64(sqe, kCancelTag);
  io_uring_sqe_set_flags(sqe, IOSQE_CQE_SKIP_SUCCESS);
}

void UringPoller::arm_receive(UringChannel& channel) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_recv_multishot(sqe, channel.fd_, nullptr, 0, 0);
  io_uring_sqe_set_flags(sqe, IOSQE_BUFFER_SELECT);
  sqe->buf_group = ProvidedBuffers::kBufferGroup;
  io_uring_sqe_set_data64(sqe, kChannelTag | channel.slot_);
  channel.armed_ = true;
  channel.starved_ = false;
  channel.wants_poll_ = false;
}

// One-shot: wakes the owner of a starved channel, which reads the socket itself.
void UringPoller::arm_channel_poll(UringChannel& channel) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_poll_add(sqe, channel.fd_, EPOLLIN | EPOLLRDHUP);
  io_uring_sqe_set_data64(sqe, kChannelTag | kChannelPollBit | channel.slot_);
  channel.poll_armed_ = true;
  channel.wants_poll_ = false;
}

void UringPoller::rest(UringChannel& channel) {
  if (channel.resting_) return;
  channel.resting_ = true;
  resting_.push_back(&channel);
}

// Before each wait: a capped channel read below kResumeBelow, or a starved one while the ring
// has a free buffer, gets its receive again; a starved one whose owner drained the socket gets a
// poll. A capped channel that finds the ring empty turns starved, and its owner is woken to read
// the socket.
void UringPoller::tend_resting() {
  for (std::size_t i = 0; i < resting_.size();) {
    UringChannel& channel = *resting_[i];
    bool keep = !channel.ended() && !channel.detached_;  // a closed one only sends what it owes
    if (keep && !channel.armed_) {
      if (channel.capped_ && channel.queued_buffers() < UringChannel::kResumeBelow) {
        channel.capped_ = false;
      }
      if (!channel.capped_ && buffers_->available()) {
        arm_receive(channel);
        keep = false;
      } else if (!channel.capped_ && !channel.starved_) {
        channel.starved_ = true;
        post_input(channel, EPOLLIN);
      } else if (channel.starved_ && channel.wants_poll_ && !channel.poll_armed_) {
        arm_channel_poll(channel);
      }
    }
    if (keep) {
      ++i;
    } else {
      channel.resting_ = false;
      resting_[i] = resting_.back();
      resting_.pop_back();
    }
  }
}

void UringPoller::post_input(UringChannel& channel, std::uint32_t events) {
  Entry& entry = entries_[channel.fd_];
  if (entry.channel != &channel || entry.generation == 0 || !(entry.events & EPOLLIN)) return;
  queue(channel.fd_, entry, events);
}

void UringPoller::queue(int fd, Entry& entry, std::uint32_t events) {
  entry.pending |= events;
  if (!entry.queued) {
    entry.queued = true;
    ready_.push_back(Ready{fd, entry.generation});
  }
}

void UringPoller::receive(const io_uring_cqe& cqe) {
  const auto slot = static_cast<std::uint32_t>(cqe.user_data & 0xffff'ffffu);
  if (slot >= channels_.size() || !channels_[slot]) return;
  UringChannel& channel = *channels_[slot];
  if (cqe.user_data & kChannelPollBit) {
    channel_polled(channel, cqe.res);
    return;
  }
  if (cqe.user_data & kChannelSendBit) {
    sent(channel, cqe.res);
    return;
  }
  const bool rearm = channel.on_completion(cqe.res, cqe.flags);
  if (channel.detached_) {
    if (channel.idle()) free_channel(channel);
    return;
  }
  if (channel.armed_ && !channel.capped_ && channel.queued_buffers() >= UringChannel::kBufferCap) {
    channel.capped_ = true;  // its owner is not keeping up: leave the ring to the others
    cancel_receive(channel);
  }
  if (channel.capped_ || channel.starved_) rest(channel);
  if (rearm) arm_receive(channel);
  if (cqe.res > 0) {
    post_input(channel, EPOLLIN);
  } else if (channel.ended()) {
    post_input(channel, EPOLLIN | EPOLLRDHUP);
  } else if (channel.starved_) {
    post_input(channel, EPOLLIN);  // the socket holds what found no buffer: its owner reads it
  }
}

void UringPoller::channel_polled(UringChannel& channel, int res) {
  channel.poll_armed_ = false;
  if (channel.detached_) {
    if (channel.idle()) free_channel(channel);
    return;
  }
  if (res != -ECANCELED) post_input(channel, EPOLLIN);
}

// A channel freed meanwhile is never listed (idle() counts the listing).
void UringPoller::prepare_sends() {
  for (UringChannel* channel : sends_) {
    start_send(*channel);
    if (channel->detached_ && channel->idle()) free_channel(*channel);
  }
  sends_.clear();
}

void UringPoller::reap() {
  unsigned head;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    collect(*cqe);
    ++seen;
  }
  io_uring_cq_advance(&ring_, seen);
}

void UringPoller::wait(std::int64_t timeout_ns) {
  if (buffers_) buffers_->publish();
  if (!resting_.empty()) tend_resting();
  prepare_sends();
  io_uring_cqe* cqe = nullptr;
  if (timeout_ns == 0) {
    io_uring_submit_and_get_events(&ring_);
  } else if (timeout_ns < 0) {
    io_uring_submit_and_wait(&ring_, 1);
  } else {
    __kernel_timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
  }
  // -EINTR and -ETIME leave nothing to collect; the loop goes round again.
  reap();
}

void UringPoller::collect(const io_uring_cqe& cqe) {
  if (cqe.user_data == kCancelTag) return;
  if (cqe.user_data & kChannelTag) {
    receive(cqe);
    return;
  }
  const int fd = static_cast<int>(cqe.user_data & 0xffff'ffffu);
  const auto generation = static_cast<std::uint32_t>(cqe.user_data >> 32);
  if (static_cast<std::size_t>(fd) >= entries_.size()) return;
  Entry& entry = entries_[fd];
  if (entry.generation != generation) return;  // from a removed registration
  if (!(cqe.flags & IORING_CQE_F_MORE)) entry.armed = false;
  if (cqe.res > 0) {
    entry.pending |= static_cast<std::uint32_t>(cqe.res);
  } else if (cqe.res < 0 && cqe.res != -ECANCELED) {
    entry.pending |= EPOLLERR;  // the poll itself failed: the handler finds out why
  }
  // Queued also with nothing to report when the poll ended, so dispatch() re-arms it.
  if (entry.pending != 0 || !entry.armed) queue(fd, entry, 0);
}

void UringPoller::dispatch() {
  // Handlers may add (growing entries_) or remove registrations: index afresh after each call.
  // An end a handler left unread queues its descriptor again (ready_ grows during the loop).
  for (std::size_t i = 0; i < ready_.size(); ++i) {
    const Ready ready = ready_[i];
    if (entries_[ready.fd].generation != ready.generation) continue;
    const std::uint32_t mask = std::exchange(entries_[ready.fd].pending, 0);
    entries_[ready.fd].queued = false;
    if (mask != 0) entries_[ready.fd].handler->on_events(mask);
    Entry& entry = entries_[ready.fd];
    if (entry.generation != ready.generation) continue;
    if (!entry.armed) arm(ready.fd, entry);
    if (entry.channel != nullptr && entry.channel->owes_end()) {
      entry.channel->end_told_ = true;
      queue(ready.fd, entry, EPOLLIN | EPOLLRDHUP);
    }
  }
  ready_.clear();
}

}  // namespace stampede::net
