// H2ClientSession: an nghttp2 (1.52) client session for tests, with no I/O of its own: submit
// requests, take the bytes to send (preface first), give it the bytes that came back, read the
// answers by stream. Tests wrap it in their transport (a socket, an in-memory stream).
//
// Contract: one thread; the object must not move while the session lives (nghttp2 holds its
// address). A request's body is copied and handed out as the peer's windows allow.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::testing {

struct H2Answer {
  int status = 0;
  std::map<std::string, std::string> headers;  // the last value of each name
  std::string body;
  bool done = false;  // END_STREAM received
};

// A header field pointing into `name` and `value` (which must outlive its use).
nghttp2_nv h2_field(std::string_view name, std::string_view value);

// Everything `session` (a client's or a server's) has queued to send, taken out of it.
std::string h2_output(nghttp2_session* session);

class H2ClientSession {
 public:
  // `window`: the SETTINGS_INITIAL_WINDOW_SIZE announced; none: an empty SETTINGS frame.
  explicit H2ClientSession(std::optional<std::uint32_t> window = std::nullopt);
  ~H2ClientSession();
  H2ClientSession(const H2ClientSession&) = delete;
  H2ClientSession& operator=(const H2ClientSession&) = delete;

  nghttp2_session* session() { return session_; }
  // Submits a request for `path` at `authority` over http; with a `body`, its DATA follows
  // (END_STREAM on the last frame), else HEADERS end the stream. The stream id, or < 0.
  std::int32_t request(std::string_view method, std::string_view path, std::string_view authority,
                       const std::vector<nghttp2_nv>& extra = {},
                       std::optional<std::string> body = std::nullopt);
  // Everything the session has queued.
  std::string take_output() { return h2_output(session_); }
  void receive(std::string_view bytes);
  bool answered(std::int32_t id) { return answers[id].done; }

  std::map<std::int32_t, H2Answer> answers;
  std::vector<std::int32_t> finished;       // stream ids in the order their answers ended
  std::map<std::int32_t, int> reset_codes;  // RST_STREAM received, by stream
  int goaway_code = -1;                     // GOAWAY's error code, once one came

 private:
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                       std::uint8_t, void* user);
  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                     std::size_t length, void* user);
  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user);
  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*);

  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, std::string> bodies_;  // request bodies not yet handed to nghttp2
};

}  // namespace stampede::testing
