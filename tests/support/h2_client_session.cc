#include "support/h2_client_session.h"

#include <algorithm>
#include <cstring>

namespace stampede::testing {

nghttp2_nv h2_field(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
          value.size(), NGHTTP2_NV_FLAG_NONE};
}

std::string h2_output(nghttp2_session* session) {
  std::string out;
  for (;;) {
    const std::uint8_t* bytes = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session, &bytes);
    if (n <= 0) break;
    out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(n));
  }
  return out;
}

H2ClientSession::H2ClientSession(std::optional<std::uint32_t> window) {
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_session_callbacks_new(&cb);
  nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
  nghttp2_session_client_new(&session_, cb, this);
  nghttp2_session_callbacks_del(cb);
  if (window) {
    const nghttp2_settings_entry entry{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, *window};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, &entry, 1);
  } else {
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
}

H2ClientSession::~H2ClientSession() {
  nghttp2_session_del(session_);
}

std::int32_t H2ClientSession::request(std::string_view method, std::string_view path,
                                      std::string_view authority,
                                      const std::vector<nghttp2_nv>& extra,
                                      std::optional<std::string> body) {
  std::vector<nghttp2_nv> nv = {h2_field(":method", method), h2_field(":scheme", "http"),
                                h2_field(":authority", authority), h2_field(":path", path)};
  nv.insert(nv.end(), extra.begin(), extra.end());
  if (!body)
    return nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(), nullptr, nullptr);
  nghttp2_data_provider provider{};
  provider.source.ptr = this;
  provider.read_callback = read_body;
  const std::int32_t id =
      nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(), &provider, nullptr);
  if (id > 0) bodies_[id] = std::move(*body);
  return id;
}

void H2ClientSession::receive(std::string_view bytes) {
  nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(bytes.data()),
                           bytes.size());
}

int H2ClientSession::on_header(nghttp2_session*, const nghttp2_frame* frame,
                               const std::uint8_t* name, std::size_t namelen,
                               const std::uint8_t* value, std::size_t valuelen, std::uint8_t,
                               void* user) {
  const std::string n(reinterpret_cast<const char*>(name), namelen);
  const std::string v(reinterpret_cast<const char*>(value), valuelen);
  H2Answer& a = static_cast<H2ClientSession*>(user)->answers[frame->hd.stream_id];
  if (n == ":status") a.status = std::stoi(v);
  a.headers[n] = v;
  return 0;
}

int H2ClientSession::on_data(nghttp2_session*, std::uint8_t, std::int32_t id,
                             const std::uint8_t* data, std::size_t length, void* user) {
  static_cast<H2ClientSession*>(user)->answers[id].body.append(reinterpret_cast<const char*>(data),
                                                               length);
  return 0;
}

int H2ClientSession::on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  H2ClientSession& s = *static_cast<H2ClientSession*>(user);
  if (frame->hd.type == NGHTTP2_GOAWAY) s.goaway_code = static_cast<int>(frame->goaway.error_code);
  if (frame->hd.type == NGHTTP2_RST_STREAM)
    s.reset_codes[frame->hd.stream_id] = static_cast<int>(frame->rst_stream.error_code);
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
    s.answers[frame->hd.stream_id].done = true;
    s.finished.push_back(frame->hd.stream_id);
  }
  return 0;
}

ssize_t H2ClientSession::read_body(nghttp2_session*, std::int32_t id, std::uint8_t* buffer,
                                   std::size_t length, std::uint32_t* flags,
                                   nghttp2_data_source* source, void*) {
  std::string& body = static_cast<H2ClientSession*>(source->ptr)->bodies_[id];
  const std::size_t n = std::min(length, body.size());
  std::memcpy(buffer, body.data(), n);
  body.erase(0, n);
  if (body.empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace stampede::testing
