#include "net/uring_channel.h"

#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace stampede::net {

std::unique_ptr<ProvidedBuffers> ProvidedBuffers::create(io_uring& ring, unsigned count,
                                                         unsigned size, int& error) {
  std::unique_ptr<ProvidedBuffers> buffers(new ProvidedBuffers());
  buffers->count_ = count;
  buffers->size_ = size;
  buffers->ring_bytes_ = sizeof(io_uring_buf) * count;
  const std::size_t bytes = buffers->ring_bytes_ + std::size_t{count} * size;
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (map == MAP_FAILED) {
    error = errno;
    return nullptr;
  }
  buffers->ring_ = static_cast<io_uring_buf_ring*>(map);
  buffers->memory_ = static_cast<char*>(map) + buffers->ring_bytes_;
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uintptr_t>(map);
  reg.ring_entries = count;
  reg.bgid = kBufferGroup;
  if (const int r = io_uring_register_buf_ring(&ring, &reg, 0); r < 0) {
    error = -r;
    return nullptr;
  }
  io_uring_buf_ring_init(buffers->ring_);
  const int mask = io_uring_buf_ring_mask(count);
  for (unsigned id = 0; id < count; ++id) {
    io_uring_buf_ring_add(buffers->ring_, buffers->memory_ + std::size_t{id} * size, size,
                          static_cast<unsigned short>(id), mask, static_cast<int>(id));
  }
  io_uring_buf_ring_advance(buffers->ring_, static_cast<int>(count));
  return buffers;
}

ProvidedBuffers::~ProvidedBuffers() {
  // The ring is unregistered by io_uring_queue_exit (the poller exits its ring first).
  if (ring_) ::munmap(ring_, ring_bytes_ + std::size_t{count_} * size_);
}

void ProvidedBuffers::give_back(unsigned id) {
  // In the slot after the ones given back before it; the tail moves for all of them in publish().
  // At most count_ buffers are out, so the slots never reach the kernel's head.
  io_uring_buf_ring_add(ring_, memory_ + std::size_t{id} * size_, size_,
                        static_cast<unsigned short>(id), io_uring_buf_ring_mask(count_),
                        static_cast<int>(unpublished_));
  ++unpublished_;
  --in_use_;
}

void ProvidedBuffers::publish() {
  if (unpublished_ == 0) return;
  io_uring_buf_ring_advance(ring_, static_cast<int>(unpublished_));
  unpublished_ = 0;
}

UringChannel::~UringChannel() {
  for (std::size_t i = head_; i < chunks_.size(); ++i)
    buffers_->give_back(chunks_[i].id);
  if (lingering_fd_ >= 0) ::close(lingering_fd_);
}

std::size_t UringChannel::queued_bytes() const {
  std::size_t bytes = 0;
  for (std::size_t i = head_; i < chunks_.size(); ++i)
    bytes += chunks_[i].length;
  return bytes;
}

IoStatus UringChannel::read(char* buffer, std::size_t capacity, std::size_t& n) {
  n = 0;
  while (n < capacity && head_ < chunks_.size()) {
    Chunk& chunk = chunks_[head_];
    const std::size_t take = std::min<std::size_t>(capacity - n, chunk.length);
    std::memcpy(buffer + n, buffers_->data(chunk.id) + chunk.offset, take);
    n += take;
    chunk.offset += static_cast<std::uint32_t>(take);
    chunk.length -= static_cast<std::uint32_t>(take);
    if (chunk.length == 0) {
      buffers_->give_back(chunk.id);
      ++head_;
    }
  }
  if (head_ == chunks_.size()) {
    chunks_.clear();  // keeps its capacity: no allocation in a steady state
    head_ = 0;
    // Starved: what the receive would have brought is still in the socket, after every byte
    // queued here and before anything a receive armed later brings.
    if (n < capacity && starved_ && !armed_ && !ended()) {
      std::size_t got = 0;
      (void)read_socket(buffer + n, capacity - n, got);
      n += got;
    }
  }
  if (n > 0) return IoStatus::Done;
  if (error_ != 0) {
    end_seen_ = true;
    return IoStatus::Error;
  }
  if (eof_) {
    end_seen_ = true;
    return IoStatus::Eof;
  }
  return IoStatus::WouldBlock;
}

IoStatus UringChannel::write(const char* data, std::size_t length, std::size_t& n) {
  n = 0;
  if (send_error_ != 0) return IoStatus::Error;
  n = take(data, length);
  return n == 0 && length > 0 ? IoStatus::WouldBlock : IoStatus::Done;
}

IoStatus UringChannel::writev(const iovec* parts, int count, std::size_t& n) {
  n = 0;
  if (send_error_ != 0) return IoStatus::Error;
  std::size_t asked = 0;
  for (int i = 0; i < count; ++i) {
    asked += parts[i].iov_len;
    const std::size_t took = take(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len);
    n += took;
    if (took < parts[i].iov_len) break;
  }
  return n == 0 && asked > 0 ? IoStatus::WouldBlock : IoStatus::Done;
}

std::size_t UringChannel::take(const char* data, std::size_t length) {
  const std::size_t unsent = unsent_bytes();
  const std::size_t n = std::min(length, kSendCap - std::min(unsent, kSendCap));
  // Less than offered, whether none (WouldBlock) or some (a short Done): the caller waits for
  // EPOLLOUT, as after a send() that filled the socket, so one is owed.
  if (n < length) owes_writable_ = true;
  if (n == 0) return 0;
  next_.insert(next_.end(), data, data + n);
  if (!send_armed_ && !send_listed_) {
    send_listed_ = true;
    sends_->push_back(this);
  }
  return n;
}

void UringChannel::shutdown_write() {
  if (unsent_bytes() == 0) {
    ::shutdown(fd_, SHUT_WR);
  } else {
    shutdown_wanted_ = true;  // after the last send (UringPoller::sent)
  }
}

bool UringChannel::on_sent(int res) {
  send_armed_ = false;
  if (res < 0) {
    send_failed(-res);
    return false;
  }
  sent_ += static_cast<std::size_t>(res);
  if (sent_ >= sending_.size()) {
    sending_.clear();  // keeps its capacity, as next_ does
    sent_ = 0;
  } else if (res == 0) {
    send_failed(EPIPE);  // no progress: never submit the same bytes again and again
    return false;
  }
  return unsent_bytes() > 0;
}

void UringChannel::send_failed(int err) {
  send_error_ = err;
  if (error_ == 0) error_ = err;
  sending_.clear();
  next_.clear();
  sent_ = 0;
  shutdown_wanted_ = false;
}

IoStatus UringChannel::read_socket(char* buffer, std::size_t capacity, std::size_t& n) {
  const IoStatus status = read_some(fd_, buffer, capacity, n);
  switch (status) {
    case IoStatus::Done:
      wants_poll_ = n < capacity;  // a short read: the owner now waits for EPOLLIN
      break;
    case IoStatus::WouldBlock:
      wants_poll_ = true;
      break;
    case IoStatus::Eof:
      eof_ = true;
      break;
    case IoStatus::Error:
      error_ = errno;
      break;
  }
  return status;
}

bool UringChannel::on_completion(int res, std::uint32_t flags) {
  if (!(flags & IORING_CQE_F_MORE)) armed_ = false;
  if (flags & IORING_CQE_F_BUFFER) {
    const auto id = static_cast<std::uint16_t>(flags >> IORING_CQE_BUFFER_SHIFT);
    buffers_->taken();
    if (res > 0 && !detached_) {
      chunks_.push_back(Chunk{id, 0, static_cast<std::uint32_t>(res)});
    } else {
      buffers_->give_back(id);
    }
  }
  if (res == 0) {
    eof_ = true;
  } else if (res == -ENOBUFS) {
    starved_ = !armed_;
  } else if (res < 0 && res != -ECANCELED) {
    error_ = -res;
  }
  return !armed_ && !starved_ && !capped_ && !ended() && !detached_;
}

void UringChannel::detach() {
  detached_ = true;
  for (std::size_t i = head_; i < chunks_.size(); ++i)
    buffers_->give_back(chunks_[i].id);
  chunks_.clear();
  head_ = 0;
}

}  // namespace stampede::net
