// TestStream: an in-memory net::Stream that fails on command, so a connection's state machine
// (generator client, server connection, balancer session and upstream) runs in a unit test with
// no socket and no peer: the test feeds the peer's bytes, reads what the connection wrote, and
// makes the n-th operation go wrong (a short read, EAGAIN, a reset, TLS's WANT_WRITE inside a
// read, a close in the middle of a write).
//
// Behaviour (without a fault):
// - read() hands out the fed bytes in order, at most set_read_limit() per call (a Done shorter
//   than the buffer means "drained", as on a socket: the test delivers the next edge itself);
//   with nothing fed it is WouldBlock, or Eof once feed_eof() was called and the bytes are gone.
// - write()/writev() append to written(), at most the write capacity (unlimited by default;
//   set_write_capacity() / add_write_capacity()); WouldBlock when it is used up.
// - shutdown_write() is recorded (write_shut()); later writes fail with EPIPE.
// Operations are counted from 1 over handshake(), read(), write() and writev(); fail_at(k, ...)
// replaces the k-th one's outcome:
//   WouldBlock:    WouldBlock, nothing moved;
//   WantWrite:     WouldBlock with wants_write() true until the next operation;
//   Short:         a read or write of at most `bytes` bytes (at least one when any can move);
//   Reset:         Error ECONNRESET, and every later operation fails the same way;
//   Eof:           a read sees Eof (the fed bytes after it stay unread);
//   CloseMidWrite: a write takes `bytes` bytes (the peer gets that prefix), then the stream is
//                  reset as above: that call and every later one fail with EPIPE.
// fd() is an eventfd owned by the stream, so the stream can be registered with a real
// EventLoop; it becomes readable only when the test calls notify(), so events reach the
// connection when the test calls its handler, or through the loop (run_once) after notify():
// one readable edge per call, as a socket gives when bytes arrive.
// writes() counts the write() and writev() calls (each one a send on a socket), whatever their
// outcome.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "net/fd.h"
#include "net/stream.h"

namespace stampede::testing {

class TestStream final : public net::Stream {
 public:
  enum class Fault : std::uint8_t { WouldBlock, WantWrite, Short, Reset, Eof, CloseMidWrite };

  TestStream();

  void feed(std::string_view bytes) { input_.append(bytes); }
  void feed_eof() { eof_ = true; }
  void set_read_limit(std::size_t bytes) { read_limit_ = bytes; }
  void set_write_capacity(std::size_t bytes) { write_capacity_ = bytes; }
  void add_write_capacity(std::size_t bytes) { write_capacity_ += bytes; }
  void fail_at(std::size_t operation, Fault fault, std::size_t bytes = 0) {
    faults_[operation] = {fault, bytes};
  }

  const std::string& written() const { return written_; }
  // What was written since the last call.
  std::string take_written();
  std::size_t unread() const { return input_.size() - read_pos_; }
  bool write_shut() const { return write_shut_; }
  std::size_t operations() const { return operations_; }
  std::size_t writes() const { return writes_; }
  // A readable edge on fd() for the loop it is registered with.
  void notify();
  bool handshake_called() const { return handshakes_ > 0; }

  int fd() const override { return fd_.get(); }
  net::IoStatus handshake() override;
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override;
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) override;
  net::IoStatus writev(const iovec* parts, int count, std::size_t& n) override;
  void shutdown_write() override { write_shut_ = true; }
  bool wants_write() const override { return wants_write_; }
  int error() const override { return error_; }

 private:
  struct Planned {
    Fault fault;
    std::size_t bytes;
  };
  // Counts the operation; the fault planned for it, if any.
  std::optional<Planned> next();
  net::IoStatus fail(int err);
  // What a handshake or a read returns when `fault` is planned for it; nullopt for Short, which
  // each handles its own way.
  std::optional<net::IoStatus> fail_now(Fault fault);
  // Appends up to `length` bytes within the capacity; returns how many.
  std::size_t take(const char* data, std::size_t length, std::size_t limit);

  net::Fd fd_;
  std::string input_;
  std::size_t read_pos_ = 0;
  bool eof_ = false;
  std::size_t read_limit_ = static_cast<std::size_t>(-1);
  std::size_t write_capacity_ = static_cast<std::size_t>(-1);
  std::string written_;
  std::size_t taken_ = 0;  // written_.size() at the last take_written()
  std::map<std::size_t, Planned> faults_;
  std::size_t operations_ = 0;
  std::size_t handshakes_ = 0;
  std::size_t writes_ = 0;
  bool wants_write_ = false;
  bool write_shut_ = false;
  int error_ = 0;  // once set, every operation fails with it
};

}  // namespace stampede::testing
