// Expected<T>: a value or a Failure, for code paths that must not throw (GCC 12 has no
// std::expected).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace stampede {

// An error with a one-line, user-facing message (no trailing newline).
struct Failure {
  std::string message;
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Expected(Failure error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const Failure& error() const { return std::get<1>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Failure> v_;
};

// Expected<void>: success or a Failure.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Failure error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Failure& error() const { return error_; }

 private:
  Failure error_;
  bool ok_ = true;
};

inline Failure make_error(std::string message) {
  return Failure{std::move(message)};
}

}  // namespace stampede
