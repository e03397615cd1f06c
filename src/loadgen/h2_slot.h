// H2Client::Slot: one stream of an H2Client, from its permit to its one record; internal to
// h2_client.cc and h2_client_hooks.cc. The per-request state is reset by one assignment
// (H2Client::take: the H2SlotState part); the buffers are not touched by it, so a client
// allocates nothing per request once they have grown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loadgen/h2_client.h"
#include "loadgen/h2_generated.h"
#include "loadgen/hooks.h"

namespace stampede::loadgen {

// A stream's response headers a hook reads (HookSet::capture_headers), captured as an HTTP/1.1
// response parser captures them: several fields of one name joined with ", ", the final head's
// only (a 1xx's are dropped when its final status comes; trailers are not captured).
class H2CapturedHeaders final : public ResponseHeaders {
 public:
  // The names (a HookSet's, outliving this object) and no values.
  void reset(const std::vector<std::string>* names);
  // A field of the response head; kept when its name is one of the names.
  void add(std::string_view name, std::string_view value);
  std::optional<std::string_view> header(std::string_view name) const override;

 private:
  const std::vector<std::string>* names_ = nullptr;
  std::vector<std::string> values_;
  std::vector<bool> present_;
};

// The per-request part of a Slot, reset by one assignment.
struct H2SlotState {
  bool used = false;
  std::int32_t id = 0;  // 0: not submitted yet (its socket is connecting)
  std::uint64_t index = 0;
  std::int64_t intended_ns = 0;
  std::int64_t begin_ns = 0;  // latency (uncorrected) and the timeout count from here
  std::int64_t start_ns = 0;  // submitted to the session: time to first byte counts from here
  std::int64_t first_byte_ns = 0;
  bool waited = false;     // SendPermit::waited_for_connection
  bool generated = false;  // the request is buffers.request (a hook's), not the run's
  int status = 0;
  bool final_head = false;  // the final (non-1xx) response head has been read
  bool ended = false;       // the server's END_STREAM arrived
  bool reset_by_peer = false;
  std::uint32_t reset_code = 0;
  bool failed = false;  // decided by us (a timeout, headers too large): fail_name / fail_err
  std::string_view fail_name;
  int fail_err = 0;
  std::size_t header_bytes = 0;
  std::uint64_t bytes = 0;  // --log: its HEADERS and DATA frames read, 9-byte headers included
  std::size_t body_sent = 0;
};

struct H2Client::Slot : H2SlotState {
  // Kept across requests (their capacity, not their contents).
  struct Buffers {
    std::string body;           // the request body being sent
    H2Fields request;           // a generated request, between take() and submit()
    std::string response;       // the response body, when HookSet::capture_body
    H2CapturedHeaders headers;  // when HookSet::capture_headers
  };
  Buffers buffers;
};

}  // namespace stampede::loadgen
