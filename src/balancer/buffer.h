// Buffer: a byte queue for one direction of one connection. Bytes are appended at the back
// (read() into tail(), then commit()) and consumed from the front. Memory is kept between
// requests, so the steady state allocates nothing. One thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace stampede::balancer {

class Buffer {
 public:
  const char* data() const { return data_.get() + begin_; }
  std::size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  std::string_view view() const { return {data(), size()}; }

  void consume(std::size_t n) {
    begin_ += n;
    if (begin_ == end_) begin_ = end_ = 0;
  }
  void clear() { begin_ = end_ = 0; }
  // Drops bytes at the back so that `n` remain (n <= size()).
  void truncate(std::size_t n) { end_ = begin_ + n; }

  // At least `min_room` writable bytes after the data; returns where they start.
  char* tail(std::size_t min_room) {
    if (capacity_ - end_ < min_room) make_room(min_room);
    return data_.get() + end_;
  }
  std::size_t tail_room() const { return capacity_ - end_; }
  void commit(std::size_t n) { end_ += n; }

  void append(const char* p, std::size_t n) {
    if (n == 0) return;
    std::memcpy(tail(n), p, n);
    end_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }

 private:
  // Out of line: the rare path, so that append() and tail() stay small enough to inline.
  [[gnu::noinline]] void make_room(std::size_t min_room) {
    const std::size_t used = size();
    if (begin_ > 0 && capacity_ - used >= min_room && used <= capacity_ / 2) {
      std::memmove(data_.get(), data(), used);  // slide down: cheap when little is held
    } else {
      std::size_t cap = capacity_ ? capacity_ : 4096;
      while (cap - used < min_room)
        cap *= 2;
      std::unique_ptr<char[]> grown(new char[cap]);
      if (used) std::memcpy(grown.get(), data(), used);
      data_ = std::move(grown);
      capacity_ = cap;
    }
    begin_ = 0;
    end_ = used;
  }

  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace stampede::balancer
