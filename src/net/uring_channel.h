// UringChannel: the receiving side of one plain TCP socket on an io_uring loop (uring_backend.h).
// One multishot IORING_OP_RECV per socket fills buffers the kernel picks from the loop's
// provided-buffer ring (ProvidedBuffers: 256 x 16 KiB); read() copies from them and gives each
// buffer back as soon as it is emptied, so a request costs no recv system call and no poll.
//
// The ring is shared by every socket of the loop, and a receive takes buffers as fast as its
// peer sends, whether or not the owner reads them. So that no one socket can hold the ring:
// - A channel holds at most kBufferCap unread buffers (256 KiB). At the cap the poller cancels
//   its receive; the peer's further bytes wait in the socket (TCP flow control pushes back), and
//   the receive is armed again once the owner has read the channel below kResumeBelow.
// - A receive that finds no free buffer (-ENOBUFS: at least 16 owners sit at their cap) ends
//   without losing a byte: the channel falls back to readiness. Its read() calls recv itself
//   once the queued buffers are read, a one-shot poll wakes its owner for more, and the receive
//   is armed again as soon as the ring has a free buffer. The peer never sees an error.
// Bytes reach read() in the order they arrived, whichever way they came: the channel reads the
// socket itself only while no receive is in flight and nothing is queued before it.
//
// Ownership: the UringPoller owns every channel; a TcpStream holds a pointer from
// EventLoop::open_channel() until its destructor calls EventLoop::close_channel(). A closed
// channel stays alive until its receive's (and its poll's) final completion: cancelling a
// multishot receive can answer -EALREADY, and until that final completion the kernel may still
// write into a buffer and name this channel in user_data.
//
// read() follows net::Stream's contract: Done with n > 0 (shorter than asked: nothing more
// queued, wait for the next EPOLLIN), WouldBlock, Eof once the queued bytes are read and the
// peer ended, Error (error() is the errno) after them when the receive failed.
// Loop thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/socket.h"

struct io_uring;
struct io_uring_buf_ring;

namespace stampede::net {

// The provided-buffer ring of one io_uring (buffer group kBufferGroup): `count` buffers of
// `size` bytes each, registered with the kernel at create().
class ProvidedBuffers {
 public:
  static constexpr unsigned kBufferGroup = 0;
  // Null when the kernel has no buffer rings (before Linux 5.19) or memory is short; `error`
  // says why.
  static std::unique_ptr<ProvidedBuffers> create(io_uring& ring, unsigned count, unsigned size,
                                                 int& error);
  ~ProvidedBuffers();
  ProvidedBuffers(const ProvidedBuffers&) = delete;
  ProvidedBuffers& operator=(const ProvidedBuffers&) = delete;

  const char* data(unsigned id) const { return memory_ + std::size_t{id} * size_; }
  // The kernel filled buffer `id` (a completion named it); it is in use until give_back(id).
  void taken() { ++in_use_; }
  // Hands buffer `id` back to the kernel.
  void give_back(unsigned id);
  // Whether the kernel has a buffer to pick (a starved receive may be armed again).
  bool available() const { return in_use_ < count_; }
  unsigned in_use() const { return in_use_; }
  unsigned count() const { return count_; }
  unsigned size() const { return size_; }

 private:
  ProvidedBuffers() = default;

  io_uring_buf_ring* ring_ = nullptr;  // the shared ring of buffer descriptors
  char* memory_ = nullptr;             // count_ * size_ bytes
  std::size_t ring_bytes_ = 0;
  unsigned count_ = 0;
  unsigned size_ = 0;
  unsigned in_use_ = 0;
};

class UringChannel {
 public:
  // Unread buffers at which the receive is cancelled, and below which it is armed again.
  static constexpr std::size_t kBufferCap = 16;
  static constexpr std::size_t kResumeBelow = kBufferCap / 2;

  UringChannel(ProvidedBuffers& buffers, int fd, std::uint32_t slot)
      : buffers_(&buffers), fd_(fd), slot_(slot) {}
  ~UringChannel();
  UringChannel(const UringChannel&) = delete;
  UringChannel& operator=(const UringChannel&) = delete;

  IoStatus read(char* buffer, std::size_t capacity, std::size_t& n);
  int error() const { return error_; }
  // Bytes received and not read yet, and the buffers that hold them.
  std::size_t queued_bytes() const;
  std::size_t queued_buffers() const { return chunks_.size() - head_; }

 private:
  friend class UringPoller;
  friend struct UringPollerProbe;  // tests
  struct Chunk {
    std::uint16_t id;
    std::uint32_t offset;
    std::uint32_t length;
  };

  // One completion of the receive. Returns true when the receive ended and should be armed
  // again at once (it ended without EOF, error, cap or -ENOBUFS).
  bool on_completion(int res, std::uint32_t flags);
  // Reads the socket itself (starved: no receive in flight, nothing queued).
  IoStatus read_socket(char* buffer, std::size_t capacity, std::size_t& n);
  // The stream let go: queued buffers go back at once; later ones as they arrive.
  void detach();
  bool ended() const { return eof_ || error_ != 0; }
  // The end arrived with bytes that a handler read without reaching it (a Done shorter than
  // asked says "wait for the next edge"): the poller posts one more EPOLLIN for it.
  bool owes_end() const { return ended() && !end_seen_ && !end_told_ && head_ == chunks_.size(); }

  ProvidedBuffers* buffers_;
  int fd_;
  std::uint32_t slot_;  // index in the poller's table, in user_data
  std::vector<Chunk> chunks_;
  std::size_t head_ = 0;  // chunks_[head_, end) are unread
  int error_ = 0;
  bool eof_ = false;
  bool armed_ = false;       // the receive is in flight (its final completion not seen yet)
  bool starved_ = false;     // ended with -ENOBUFS: read() reads the socket until a buffer is free
  bool capped_ = false;      // kBufferCap reached: the receive is cancelled until read below
  bool resting_ = false;     // in the poller's list of channels without a receive (capped, starved)
  bool poll_armed_ = false;  // a one-shot poll for readiness (starved) is in flight
  bool wants_poll_ = false;  // read() drained the socket: a poll may be armed
  bool detached_ = false;    // closed by its stream: freed at the final completion
  bool end_seen_ = false;    // read() returned Eof or Error
  bool end_told_ = false;    // an EPOLLIN was posted again for an end read() has not returned
};

}  // namespace stampede::net
