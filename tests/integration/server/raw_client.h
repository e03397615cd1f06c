// A blocking HTTP/1.1 client over a raw socket, for talking bytes to the test server: every
// read is bounded by a receive timeout, and responses are framed by http::ResponseParser.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "http/response_parser.h"
#include "net/fd.h"

namespace stampede::server::testing {

struct Reply {
  int status = 0;
  bool keep_alive = false;
  std::string body;
  std::optional<std::string> instance;      // x-instance
  std::optional<std::string> content_type;  // content-type
  std::optional<std::string> connection;    // connection
};

class RawClient {
 public:
  // Connects to 127.0.0.1:port; reads give up after `timeout`.
  explicit RawClient(std::uint16_t port,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  bool connected() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }
  // Sends every byte (blocking).
  bool send(std::string_view bytes);
  // Reads one response (the next one when pipelined). nullopt on timeout, EOF or bad bytes.
  // `head_request`: the response answers a HEAD (no body).
  std::optional<Reply> read_reply(bool head_request = false);
  // Sends a request and reads its response.
  std::optional<Reply> exchange(std::string_view request);
  // Reads raw bytes until the peer closes (or the timeout): everything received.
  std::string read_until_close();
  // Reads raw bytes until `needle` has been received (or timeout/EOF); returns all bytes so far.
  std::string read_until(std::string_view needle);
  // Whether bytes (or the end of the stream) are waiting to be read, waiting up to `wait`.
  bool readable(std::chrono::milliseconds wait);
  // True when the peer has closed (EOF or reset) within the timeout, with no more bytes.
  bool closed_by_peer();

 private:
  // One recv into buffered_; false on timeout, EOF or error.
  bool receive();

  net::Fd fd_;
  std::string buffered_;
  http::ResponseParser parser_;
  bool eof_ = false;
};

// Sends `request` on a fresh connection to 127.0.0.1:`port` and reads every byte until the
// server closes it (bounded by RawClient's timeout); empty when the send fails.
std::string answer_until_close(std::uint16_t port, std::string_view request);

// "GET <target> HTTP/1.1" with a Host header and the extra header lines given (each ending
// in \r\n), and an empty body.
std::string get(std::string_view target, std::string_view extra_headers = "");

}  // namespace stampede::server::testing
