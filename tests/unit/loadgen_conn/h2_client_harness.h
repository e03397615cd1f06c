// The fixture of the HTTP/2 client's tests over a TestStream (h2_client_stream_test.cc,
// h2_client_hooks_test.cc): ScriptedH2Server, the server side made of nghttp2's own server
// session, which records what each stream carried and does with each request what the test says;
// and H2ClientOverStream, which carries bytes between it and the client. One thread, no socket.
#pragma once

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "connection_harness.h"
#include "loadgen/h2_request.h"
#include "support/fake_connector.h"
#include "support/h2_client_session.h"
#include "support/test_stream.h"

namespace stampede::loadgen {

// nghttp2's server session, driven by the test: what it decides to do with each request is
// `on_request` (answer, reset, nothing), called when a request's END_STREAM arrived.
class ScriptedH2Server {
 public:
  explicit ScriptedH2Server(std::uint32_t max_streams) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close_cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_cb);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // Lets the oversized header block out (nghttp2 refuses to send more than 64 KiB).
    nghttp2_option_set_max_send_header_block_length(option, 1 << 20);
    nghttp2_session_server_new2(&session_, cb, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(cb);
    std::vector<nghttp2_settings_entry> iv = {{NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 16384}};
    if (max_streams > 0) iv.push_back({NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams});
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, iv.data(), iv.size());
  }
  ~ScriptedH2Server() { nghttp2_session_del(session_); }

  void answer(std::int32_t id, int status, const std::string& extra_value = {}) {
    const std::string code = std::to_string(status);
    std::vector<nghttp2_nv> nv = {testing::h2_field(":status", code)};
    if (!extra_value.empty()) {
      nv.push_back(testing::h2_field("x-big", extra_value));
      nv.push_back(testing::h2_field("x-big-too", extra_value));
    }
    nghttp2_data_provider provider{};
    provider.read_callback = body_cb;
    nghttp2_submit_response(session_, id, nv.data(), nv.size(), &provider);
  }
  // A 200-type answer with `fields` (name, value) after :status, and the body "hello".
  void answer_with(std::int32_t id, int status,
                   const std::vector<std::pair<std::string, std::string>>& fields) {
    const std::string code = std::to_string(status);
    std::vector<nghttp2_nv> nv = {testing::h2_field(":status", code)};
    for (const auto& [name, value] : fields)
      nv.push_back(testing::h2_field(name, value));
    nghttp2_data_provider provider{};
    provider.read_callback = body_cb;
    nghttp2_submit_response(session_, id, nv.data(), nv.size(), &provider);
  }
  void reset(std::int32_t id, std::uint32_t code) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code);
  }
  void goaway(std::int32_t last_id) {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_id, NGHTTP2_NO_ERROR, nullptr, 0);
  }
  // What the client wrote, fed; what the server then has to say, returned.
  std::string exchange(const std::string& from_client) {
    nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(from_client.data()),
                             from_client.size());
    return testing::h2_output(session_);
  }

  // What each stream carried: its fields in order (pseudo-headers first) and its body.
  struct Received {
    std::vector<std::pair<std::string, std::string>> fields;
    std::string body;
  };
  std::map<std::int32_t, Received> received;
  std::function<void(ScriptedH2Server&, std::int32_t)> on_request;
  std::uint32_t requests = 0;
  std::size_t open = 0;
  std::size_t max_open = 0;

 private:
  static int on_frame_cb(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto& self = *static_cast<ScriptedH2Server*>(user);
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      self.max_open = std::max(self.max_open, ++self.open);
    }
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      ++self.requests;
      if (self.on_request) self.on_request(self, frame->hd.stream_id);
    }
    return 0;
  }
  static int on_header_cb(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                          std::size_t name_length, const std::uint8_t* value,
                          std::size_t value_length, std::uint8_t, void* user) {
    auto& self = *static_cast<ScriptedH2Server*>(user);
    self.received[frame->hd.stream_id].fields.emplace_back(
        std::string(reinterpret_cast<const char*>(name), name_length),
        std::string(reinterpret_cast<const char*>(value), value_length));
    return 0;
  }
  static int on_data_cb(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                        std::size_t length, void* user) {
    static_cast<ScriptedH2Server*>(user)->received[id].body.append(
        reinterpret_cast<const char*>(data), length);
    return 0;
  }
  static int on_close_cb(nghttp2_session*, std::int32_t, std::uint32_t, void* user) {
    --static_cast<ScriptedH2Server*>(user)->open;
    return 0;
  }
  static ssize_t body_cb(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t,
                         std::uint32_t* flags, nghttp2_data_source*, void*) {
    std::memcpy(buffer, "hello", 5);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 5;
  }

  nghttp2_session* session_ = nullptr;
};

class H2ClientOverStream : public ConnectionHarness {
 protected:
  H2ClientOverStream() : h2_(H2Request::build(spec(), "http", "")) { context_.h2 = &h2_; }

  std::unique_ptr<Connection> start(std::uint64_t permits, std::uint32_t streams) {
    context_.streams = streams;
    return ConnectionHarness::start(permits);
  }

  // Carries bytes both ways until neither side has more, or the client finished; when neither
  // has, the next timer (a backoff, a pause) fires. A new socket (`servers_` shorter than the
  // streams) gets a new scripted server.
  void converse(Connection& client, const std::function<std::unique_ptr<ScriptedH2Server>()>& make,
                int rounds = 2000) {
    for (int i = 0; i < rounds && !client.finished(); ++i) {
      if (shared_.streams.empty()) {  // no socket yet: a pause before the first request
        if (!loop_->expire_next_timer()) break;
        continue;
      }
      while (servers_.size() < shared_.streams.size())
        servers_.push_back(make());
      testing::TestStream& s = *shared_.streams.back();
      const std::string out = servers_.back()->exchange(s.take_written());
      if (out.empty() && s.unread() == 0) {
        if (!loop_->expire_next_timer()) break;  // a backoff: the next socket
        continue;
      }
      s.feed(out);
      client.on_events(EPOLLIN | EPOLLOUT);
    }
  }

  std::uint64_t custom(std::string_view code) const {
    auto it = stats_.custom_errors().find(code);
    return it == stats_.custom_errors().end() ? 0 : it->second;
  }

  H2Request h2_;
  std::vector<std::unique_ptr<ScriptedH2Server>> servers_;
};

inline std::unique_ptr<ScriptedH2Server> answering(std::uint32_t max_streams) {
  auto server = std::make_unique<ScriptedH2Server>(max_streams);
  server->on_request = [](ScriptedH2Server& s, std::int32_t id) { s.answer(id, 200); };
  return server;
}

using MakeServer = std::function<std::unique_ptr<ScriptedH2Server>()>;

// Every connection's server (no stream limit) does `on_request` with each request; a stateful
// `on_request` starts afresh on each connection (each server has a copy of it as given here).
inline MakeServer scripted(std::function<void(ScriptedH2Server&, std::int32_t)> on_request) {
  return [on_request = std::move(on_request)] {
    auto server = std::make_unique<ScriptedH2Server>(0);
    server->on_request = on_request;
    return server;
  };
}

// For a run that goes on anew: the first connection's server does `first` with each request,
// every later one answers each request 200.
inline MakeServer first_then_answering(std::function<void(ScriptedH2Server&, std::int32_t)> first) {
  return [first = scripted(std::move(first)), made = false]() mutable {
    if (made) return answering(0);
    made = true;
    return first();
  };
}

}  // namespace stampede::loadgen
