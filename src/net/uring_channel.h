// UringChannel: one plain TCP socket's bytes on an io_uring loop (uring_backend.h), both ways.
// One multishot IORING_OP_RECV per socket fills buffers the kernel picks from the loop's
// provided-buffer ring (ProvidedBuffers: 256 x 16 KiB); read() copies from them and gives each
// buffer back as soon as it is emptied (the kernel sees the buffers given back in one ring
// advance per loop iteration, ProvidedBuffers::publish()). write() copies into the channel and
// the poller sends with IORING_OP_SEND, submitted with its next wait: a steady request costs no
// recv, no send and no poll system call of its own.
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
// Sending: one IORING_OP_SEND at a time, so bytes leave in the order written. write() appends to
// `next_` while a send is in flight from `sending_` (which the kernel may read until the send's
// completion, so it never moves meanwhile); a send that took part of its bytes (a partial send)
// is submitted again for the rest before `next_` goes. write() says Done for the bytes it took:
// they are the kernel's to send, as with send(). It takes at most kSendCap unsent bytes: a write
// that meets the cap takes what fits (a short Done) or nothing (WouldBlock), and either way the
// poller posts EPOLLOUT once the sends bring the channel below the cap (a caller that writes once
// per event waits for it after a short Done, as after a send() that filled the socket).
// A send that fails keeps its errno: write() and, after the queued input, read() return Error
// with it. shutdown_write() waits until every byte written has been sent. A channel closed with
// bytes unsent keeps a duplicate of the socket until they are sent (the owner's descriptor may be
// closed and its number reused meanwhile), as close() after send() would have delivered them.
// When the loop ends, the poller's destructor sends what every channel holds before the ring
// goes, for at most UringPoller::kFinalSendsNs (a peer that reads nothing).
//
// read() follows net::Stream's contract: Done with n > 0 (shorter than asked: nothing more
// queued, wait for the next EPOLLIN), WouldBlock, Eof once the queued bytes are read and the
// peer ended, Error (error() is the errno) after them when the receive (or a send) failed.
// Loop thread only.
#pragma once

#include <sys/uio.h>

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
  // Hands buffer `id` back: the kernel may pick it once publish() has run.
  void give_back(unsigned id);
  // Makes every buffer given back since the last call visible to the kernel, in one advance of
  // the ring's tail (one release store for all of them). The poller calls it before each wait.
  void publish();
  // Buffers given back and not published yet.
  unsigned unpublished() const { return unpublished_; }
  // Whether the kernel has a buffer to pick once published (a starved receive may be armed).
  bool available() const { return in_use_ < count_; }
  unsigned in_use() const { return in_use_; }
  unsigned count() const { return count_; }
  unsigned size() const { return size_; }

 private:
  friend struct UringPollerProbe;  // tests
  ProvidedBuffers() = default;

  io_uring_buf_ring* ring_ = nullptr;  // the shared ring of buffer descriptors
  char* memory_ = nullptr;             // count_ * size_ bytes
  std::size_t ring_bytes_ = 0;
  unsigned count_ = 0;
  unsigned size_ = 0;
  unsigned in_use_ = 0;
  unsigned unpublished_ = 0;  // added to the ring after its tail
};

class UringChannel {
 public:
  // Unread buffers at which the receive is cancelled, and below which it is armed again.
  static constexpr std::size_t kBufferCap = 16;
  static constexpr std::size_t kResumeBelow = kBufferCap / 2;
  // Unsent bytes at which write() says WouldBlock.
  static constexpr std::size_t kSendCap = 256 * 1024;

  // `sends` is the poller's list of channels with bytes to send and no send in flight.
  UringChannel(ProvidedBuffers& buffers, std::vector<UringChannel*>& sends, int fd,
               std::uint32_t slot)
      : buffers_(&buffers), sends_(&sends), fd_(fd), slot_(slot) {}
  ~UringChannel();
  UringChannel(const UringChannel&) = delete;
  UringChannel& operator=(const UringChannel&) = delete;

  IoStatus read(char* buffer, std::size_t capacity, std::size_t& n);
  IoStatus write(const char* data, std::size_t length, std::size_t& n);
  IoStatus writev(const iovec* parts, int count, std::size_t& n);
  void shutdown_write();
  int error() const { return error_; }
  // Bytes written and not sent yet.
  std::size_t unsent_bytes() const { return sending_.size() - sent_ + next_.size(); }
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
  // Whether every request that names this channel has ended (it may be freed once detached).
  bool idle() const { return !armed_ && !poll_armed_ && !send_armed_ && !send_listed_; }
  bool ended() const { return eof_ || error_ != 0; }
  // Sending: takes up to the cap from `data`; lists the channel for a send when none is in
  // flight. Returns the bytes taken.
  std::size_t take(const char* data, std::size_t length);
  // One send's completion; returns true when the bytes written since owe another send.
  bool on_sent(int res);
  // A failed send: its errno for write() and read(); the unsent bytes are dropped.
  void send_failed(int err);
  // The end arrived with bytes that a handler read without reaching it (a Done shorter than
  // asked says "wait for the next edge"): the poller posts one more EPOLLIN for it.
  bool owes_end() const { return ended() && !end_seen_ && !end_told_ && head_ == chunks_.size(); }

  ProvidedBuffers* buffers_;
  std::vector<UringChannel*>* sends_;
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

  std::vector<char> sending_;   // the bytes of the send in flight (the kernel's until it completes)
  std::size_t sent_ = 0;        // of sending_, sent already
  std::vector<char> next_;      // written since: the next send
  int send_error_ = 0;          // a send failed: write() says Error with it
  int lingering_fd_ = -1;       // closed with bytes unsent: a duplicate of the socket, to send them
  bool send_armed_ = false;     // a send is in flight (its completion not seen yet)
  bool send_listed_ = false;    // in sends_: a send is to be submitted with the next wait
  bool owes_writable_ = false;  // write() took less than offered: EPOLLOUT once below kSendCap
  bool shutdown_wanted_ = false;  // shutdown_write() came with bytes unsent
};

}  // namespace stampede::net
