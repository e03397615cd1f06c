#include "server/responses.h"
#include "metrics/exposition.h"

#include <fmt/format.h>

#include <cstring>
#include <iterator>

#include <nlohmann/json.hpp>

#include "http/writer.h"

namespace stampede::server {
namespace {

constexpr std::string_view kErrorBody = "ERROR";
constexpr std::string_view kTextPlain = "text/plain";
constexpr std::string_view kJson = "application/json";

std::string delay_as_json(std::chrono::nanoseconds delay) {
  if (delay.count() % 1'000'000 == 0) return fmt::format("{}", delay.count() / 1'000'000);
  return fmt::format("{}", static_cast<double>(delay.count()) / 1e6);
}

// Filler for size= bodies: printable, and recognisable in a capture.
void append_filler(std::string& out, std::uint64_t size) {
  out.append(static_cast<std::size_t>(size), 'x');
}

}  // namespace

Responses::Responses(const Shared& shared)
    : id_(shared.options.id),
      body_(shared.content.body),
      content_type_(shared.content.content_type),
      id_json_(id_.empty() ? "null" : nlohmann::json(id_).dump()),
      delay_json_(delay_as_json(shared.options.delay)),
      error_status_(shared.options.error_status != 0 ? shared.options.error_status : 500),
      date_(format_http_date(wall_seconds())) {
  for (int i = 0; i < kPersistences; ++i) {
    const auto persistence = static_cast<http::Persistence>(i);
    canned_[static_cast<int>(Canned::Ok)][i] = build(200, content_type_, body_, persistence);
    canned_[static_cast<int>(Canned::Error)][i] =
        build(error_status_, kTextPlain, has_body(error_status_) ? kErrorBody : "", persistence);
  }
  set_date(wall_seconds());
}

// 1xx, 204 and 304 responses carry no body (RFC 9110 6.4.1).
bool Responses::has_body(int status) {
  return status >= 200 && status != 204 && status != 304;
}

std::string_view Responses::body_for(int status) const {
  if (!has_body(status)) return {};
  return status < 400 ? std::string_view(body_) : kErrorBody;
}

std::string_view Responses::content_type_for(int status, bool filler) const {
  return status < 400 && !filler ? std::string_view(content_type_) : kTextPlain;
}

std::string_view Responses::count_json(char (&buffer)[256], std::uint64_t served) const {
  const auto end = fmt::format_to_n(buffer, sizeof buffer, R"({{"id":{},"served":{},"delay":{}}})",
                                    id_json_, served, delay_json_);
  return {buffer, std::min(end.size, sizeof buffer)};
}

void Responses::append_head(std::string& out, int status, std::string_view content_type,
                            std::uint64_t length, http::Persistence persistence) const {
  http::Header extra[3] = {{"Date", view(date_)}, {"Content-Type", content_type}};
  std::size_t count = has_body(status) ? 2 : 1;
  if (!id_.empty()) extra[count++] = {"x-instance", id_};
  if (!has_body(status)) length = http::kNoContentLength;
  http::append_response_head(out, status, std::span<const http::Header>(extra, count), length,
                             persistence);
}

Responses::Prebuilt Responses::build(int status, std::string_view content_type,
                                     std::string_view body, http::Persistence persistence) const {
  Prebuilt p;
  append_head(p.bytes, status, content_type, body.size(), persistence);
  p.head_length = p.bytes.size();
  p.date_offset = p.bytes.find(view(date_));
  p.bytes.append(body);
  return p;
}

void Responses::set_date(std::int64_t unix_seconds) {
  date_ = format_http_date(unix_seconds);
  for (auto& by_kind : canned_) {
    for (Prebuilt& p : by_kind)
      std::memcpy(p.bytes.data() + p.date_offset, date_.data(), date_.size());
  }
}

void Responses::append_canned(std::string& out, Canned which, Framing framing) const {
  const Prebuilt& p = canned_[static_cast<int>(which)][static_cast<int>(framing.persistence)];
  out.append(p.bytes.data(), framing.head_only ? p.head_length : p.bytes.size());
}

void Responses::append_custom(std::string& out, const CustomResponse& response,
                              Framing framing) const {
  const int status = response.status;
  std::string_view body = status < 400 ? std::string_view(body_) : kErrorBody;
  std::string_view type = status < 400 ? std::string_view(content_type_) : kTextPlain;
  if (response.size) type = kTextPlain;
  const std::uint64_t length = !has_body(status) ? 0 : response.size ? *response.size : body.size();
  append_head(out, status, type, length, framing.persistence);
  if (framing.head_only || length == 0) return;
  if (response.size) {
    append_filler(out, length);
  } else {
    out.append(body);
  }
}

void Responses::append_count(std::string& out, std::uint64_t served, Framing framing) const {
  char body[256];  // validate() bounds the id to 64 visible characters
  const std::string_view text = count_json(body, served);
  append_head(out, 200, kJson, text.size(), framing.persistence);
  if (!framing.head_only) out.append(text);
}

void Responses::append_text(std::string& out, int status, std::string_view message,
                            Framing framing) const {
  append_head(out, status, kTextPlain, message.size() + 1, framing.persistence);
  if (framing.head_only) return;
  out.append(message);
  out.push_back('\n');
}

void Responses::append_exposition(std::string& out, std::string_view text, Framing framing) const {
  append_head(out, 200, metrics::kContentType, text.size(), framing.persistence);
  if (!framing.head_only) out.append(text);
}

void Responses::append_continue(std::string& out) {
  out.append("HTTP/1.1 100 Continue\r\n\r\n");
}

}  // namespace stampede::server
