#include "support/test_stream.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace stampede::testing {

TestStream::TestStream() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

void TestStream::notify() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd_.get(), &one, sizeof one);
}

std::string TestStream::take_written() {
  std::string out = written_.substr(taken_);
  taken_ = written_.size();
  return out;
}

std::optional<TestStream::Planned> TestStream::next() {
  ++operations_;
  wants_write_ = false;
  const auto it = faults_.find(operations_);
  if (it == faults_.end()) return std::nullopt;
  return it->second;
}

net::IoStatus TestStream::fail(int err) {
  error_ = err;
  return net::IoStatus::Error;
}

std::optional<net::IoStatus> TestStream::fail_now(Fault fault) {
  switch (fault) {
    case Fault::WouldBlock:
      return net::IoStatus::WouldBlock;
    case Fault::WantWrite:
      wants_write_ = true;
      return net::IoStatus::WouldBlock;
    case Fault::Reset:
    case Fault::CloseMidWrite:
      return fail(ECONNRESET);
    case Fault::Eof:
      return net::IoStatus::Eof;
    case Fault::Short:
      break;
  }
  return std::nullopt;
}

net::IoStatus TestStream::handshake() {
  ++handshakes_;
  const std::optional<Planned> planned = next();
  if (error_ != 0) return net::IoStatus::Error;
  if (!planned) return net::IoStatus::Done;
  if (const auto status = fail_now(planned->fault)) return *status;
  return net::IoStatus::WouldBlock;  // Short: the handshake needs another round
}

net::IoStatus TestStream::read(char* buffer, std::size_t capacity, std::size_t& n) {
  n = 0;
  const std::optional<Planned> planned = next();
  if (error_ != 0) return net::IoStatus::Error;
  std::size_t limit = std::min(capacity, read_limit_);
  if (planned) {
    if (const auto status = fail_now(planned->fault)) return *status;
    limit = std::min(limit, std::max<std::size_t>(planned->bytes, 1));  // Short
  }
  const std::size_t available = input_.size() - read_pos_;
  if (available == 0) return eof_ ? net::IoStatus::Eof : net::IoStatus::WouldBlock;
  n = std::min(limit, available);
  std::memcpy(buffer, input_.data() + read_pos_, n);
  read_pos_ += n;
  return net::IoStatus::Done;
}

std::size_t TestStream::take(const char* data, std::size_t length, std::size_t limit) {
  const std::size_t n = std::min({length, limit, write_capacity_});
  written_.append(data, n);
  if (write_capacity_ != static_cast<std::size_t>(-1)) write_capacity_ -= n;
  return n;
}

net::IoStatus TestStream::write(const char* data, std::size_t length, std::size_t& n) {
  const iovec part{const_cast<char*>(data), length};
  return writev(&part, 1, n);
}

net::IoStatus TestStream::writev(const iovec* parts, int count, std::size_t& n) {
  n = 0;
  ++writes_;
  const std::optional<Planned> planned = next();
  if (error_ != 0) return net::IoStatus::Error;
  if (write_shut_) return fail(EPIPE);
  std::size_t limit = static_cast<std::size_t>(-1);
  if (planned) {
    switch (planned->fault) {
      case Fault::Eof:
        return fail(EPIPE);
      case Fault::Short:
        limit = std::max<std::size_t>(planned->bytes, 1);
        break;
      case Fault::CloseMidWrite:
        for (std::size_t left = planned->bytes, i = 0;
             i < static_cast<std::size_t>(count) && left > 0; ++i)
          left -= take(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len, left);
        return fail(EPIPE);
      case Fault::WouldBlock:
      case Fault::WantWrite:
      case Fault::Reset:
        return *fail_now(planned->fault);  // as in a read
    }
  }
  if (write_capacity_ == 0) {
    for (int i = 0; i < count; ++i) {
      if (parts[i].iov_len > 0) return net::IoStatus::WouldBlock;
    }
    return net::IoStatus::Done;
  }
  for (int i = 0; i < count && limit > 0; ++i) {
    const std::size_t put =
        take(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len, limit);
    n += put;
    limit -= put;
    if (put < parts[i].iov_len) break;
  }
  return net::IoStatus::Done;
}

}  // namespace stampede::testing
