// ConnectionTokens: the options a head's Connection fields name (RFC 9110 7.6.1), whose fields
// are hop-by-hop too. One for the balancer's head rewrites (every request and response it
// relays) and the generator's HTTP/2 translation of generated requests (RFC 9113 8.2.2).
//
// Splitting: every element of a comma-separated list, OWS (spaces, tabs) trimmed around it;
// empty elements (" , ,") are skipped (RFC 9110 5.6.1). Elements are not checked to be tokens:
// one with other bytes (a quote, a space inside) equals no field name a parser accepts, so it
// matches nothing, but it counts toward kMax. contains() compares ASCII case-insensitively.
//
// Bounded: at most kMax options, kept as views into the caller's head (which must outlive the
// object), without allocating. A head naming more is hostile: no peer needs 17 hop-by-hop
// fields, and keeping only the first kMax would forward the rest as if end to end. The object
// then reports overflow(), and every caller refuses the head whole: the balancer answers such a
// request 400 and such a response 502 (docs/balancer.md), the generator counts such a generated
// request as "request malformed" (docs/output.md). Pure; one object per head, any thread.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "http/header.h"

namespace stampede::http {

class ConnectionTokens {
 public:
  static constexpr std::size_t kMax = 16;

  // One Connection field's value ("close, x-foo"). Past kMax options: overflow(), and the rest
  // of the list is not read.
  void add_list(std::string_view value);
  // add_list() of every field named Connection (any case) in `headers`.
  void add_fields(std::span<const Header> headers);

  bool contains(std::string_view name) const;
  // The head named more than kMax options: refuse it.
  bool overflow() const { return overflow_; }
  std::size_t size() const { return count_; }

 private:
  std::string_view tokens_[kMax];
  std::size_t count_ = 0;
  bool overflow_ = false;
};

// Inline: they run for every field of every head the balancer relays.
inline void ConnectionTokens::add_fields(std::span<const Header> headers) {
  for (const Header& h : headers) {
    if (iequals(h.name, "connection")) add_list(h.value);
  }
}

inline bool ConnectionTokens::contains(std::string_view name) const {
  for (std::size_t i = 0; i < count_; ++i) {
    if (iequals(tokens_[i], name)) return true;
  }
  return false;
}

}  // namespace stampede::http
