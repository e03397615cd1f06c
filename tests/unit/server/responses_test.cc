#include "server/responses.h"

#include <gtest/gtest.h>

#include <string>

#include "http/response_parser.h"

namespace stampede::server {
namespace {

struct Parsed {
  int status = 0;
  bool keep_alive = false;
  std::string body;
  std::string instance, content_type, date;
  std::size_t consumed = 0;
};

// Parses exactly one response from `bytes` (the whole of it).
Parsed parse_one(const std::string& bytes, bool head = false) {
  http::ResponseParser parser({"x-instance", "content-type", "date"});
  Parsed p;
  parser.set_body_callback([&](std::string_view chunk) { p.body.append(chunk); });
  if (head) parser.expect_no_body();
  std::string_view rest = bytes;
  for (int i = 0; i < 4; ++i) {
    http::Step step = parser.feed(rest);
    rest.remove_prefix(step.consumed);
    p.consumed += step.consumed;
    if (step.event == http::Event::HeadComplete) {
      p.status = parser.status();
      p.instance = std::string(parser.captured(0).value_or(""));
      p.content_type = std::string(parser.captured(1).value_or(""));
      p.date = std::string(parser.captured(2).value_or(""));
    }
    if (step.event == http::Event::MessageComplete) {
      p.keep_alive = parser.keep_alive();
      return p;
    }
    if (step.event == http::Event::Error) break;
  }
  ADD_FAILURE() << "not one complete response: " << bytes;
  return p;
}

Shared make_shared(ServerOptions o, Content c = {"OK", "text/plain"}) {
  return Shared(std::move(o), std::move(c), 1);
}

TEST(Responses, CannedOkIsTheConfiguredBody) {
  Shared shared = make_shared({});
  Responses r(shared);
  std::string out;
  r.append_canned(out, Canned::Ok, {});
  Parsed p = parse_one(out);
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.body, "OK");
  EXPECT_EQ(p.content_type, "text/plain");
  EXPECT_TRUE(p.keep_alive);
  EXPECT_EQ(p.consumed, out.size());
  EXPECT_EQ(p.instance, "");
}

// HTTP/1.1 connections persist unless a side says close (RFC 9112 9.3): the default answer
// spends no bytes on "Connection: keep-alive"; an HTTP/1.0 client that asked for keep-alive
// gets it said, and a closing answer says close.
TEST(Responses, ConnectionHeaderOnlyWhereItSaysSomething) {
  Shared shared = make_shared({});
  Responses r(shared);
  for (Canned c : {Canned::Ok, Canned::Error}) {
    std::string implicit, keep_alive, close;
    r.append_canned(implicit, c, {http::Persistence::Implicit, false});
    r.append_canned(keep_alive, c, {http::Persistence::KeepAlive, false});
    r.append_canned(close, c, {http::Persistence::Close, false});
    EXPECT_EQ(implicit.find("Connection:"), std::string::npos) << implicit;
    EXPECT_TRUE(parse_one(implicit).keep_alive);
    EXPECT_NE(keep_alive.find("\r\nConnection: keep-alive\r\n\r\n"), std::string::npos);
    EXPECT_TRUE(parse_one(keep_alive).keep_alive);
    EXPECT_NE(close.find("\r\nConnection: close\r\n\r\n"), std::string::npos);
    EXPECT_FALSE(parse_one(close).keep_alive);
    // The same response otherwise, byte for byte.
    EXPECT_EQ(keep_alive.size(),
              implicit.size() + std::string_view("Connection: keep-alive\r\n").size());
  }
  std::string custom, count, text;
  r.append_custom(custom, {404, 3}, {});
  r.append_count(count, 1, {});
  r.append_text(text, 400, "bad", {});
  for (const std::string& out : {custom, count, text}) {
    EXPECT_EQ(out.find("Connection:"), std::string::npos) << out;
    EXPECT_TRUE(parse_one(out).keep_alive);
  }
}

TEST(Responses, DefaultAnswerBytes) {
  Shared shared = make_shared({});
  Responses r(shared);
  r.set_date(784111777);
  std::string out;
  r.append_canned(out, Canned::Ok, {});
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nOK");
}

TEST(Responses, CannedErrorIsLoadtestsError) {
  ServerOptions o;
  o.error_status = 503;
  Shared shared = make_shared(o);
  Responses r(shared);
  std::string out;
  r.append_canned(out, Canned::Error, {http::Persistence::Close, false});
  Parsed p = parse_one(out);
  EXPECT_EQ(p.status, 503);
  EXPECT_EQ(p.body, "ERROR");
  EXPECT_FALSE(p.keep_alive);
  EXPECT_EQ(r.error_status(), 503);
}

TEST(Responses, ErrorDefaultsTo500) {
  Shared shared = make_shared({});
  EXPECT_EQ(Responses(shared).error_status(), 500);
}

TEST(Responses, HeadOnlyKeepsContentLengthWithoutBody) {
  Shared shared = make_shared({});
  Responses r(shared);
  std::string head, full;
  r.append_canned(head, Canned::Ok, {http::Persistence::Implicit, true});
  r.append_canned(full, Canned::Ok, {});
  EXPECT_EQ(head + "OK", full);
  EXPECT_NE(head.find("Content-Length: 2\r\n"), std::string::npos);
  Parsed p = parse_one(head, true);
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.body, "");
}

TEST(Responses, SetDateRewritesEveryCannedResponse) {
  Shared shared = make_shared({});
  Responses r(shared);
  r.set_date(784111777);
  for (Canned c : {Canned::Ok, Canned::Error}) {
    for (auto persistence :
         {http::Persistence::Close, http::Persistence::KeepAlive, http::Persistence::Implicit}) {
      std::string out;
      r.append_canned(out, c, {persistence, false});
      EXPECT_EQ(parse_one(out).date, "Sun, 06 Nov 1994 08:49:37 GMT");
    }
  }
  std::string custom;
  r.append_custom(custom, {201, std::nullopt}, {});
  EXPECT_EQ(parse_one(custom).date, "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(Responses, InstanceIdOnEveryResponse) {
  ServerOptions o;
  o.id = "b";
  Shared shared = make_shared(o, {R"({"id":"b"})", "application/json"});
  Responses r(shared);
  std::string out;
  r.append_canned(out, Canned::Ok, {});
  r.append_canned(out, Canned::Error, {});
  r.append_custom(out, {404, 3}, {});
  r.append_count(out, 7, {});
  r.append_text(out, 400, "bad", {});
  std::string_view rest = out;
  for (int i = 0; i < 5; ++i) {
    Parsed p = parse_one(std::string(rest.substr(0, rest.find("HTTP/1.1", 1))));
    EXPECT_EQ(p.instance, "b") << i;
    rest.remove_prefix(p.consumed);
  }
  EXPECT_TRUE(rest.empty());
}

TEST(Responses, CustomSizeAndStatus) {
  Shared shared = make_shared({});
  Responses r(shared);
  std::string out;
  r.append_custom(out, {503, 20480}, {});
  Parsed p = parse_one(out);
  EXPECT_EQ(p.status, 503);
  EXPECT_EQ(p.body.size(), 20480u);
  EXPECT_EQ(p.body.find_first_not_of('x'), std::string::npos);

  out.clear();
  r.append_custom(out, {201, std::nullopt}, {});
  p = parse_one(out);
  EXPECT_EQ(p.status, 201);
  EXPECT_EQ(p.body, "OK");

  out.clear();
  r.append_custom(out, {418, std::nullopt}, {});
  EXPECT_EQ(parse_one(out).body, "ERROR");
}

TEST(Responses, NoBodyStatusesHaveNoBody) {
  Shared shared = make_shared({});
  Responses r(shared);
  for (int status : {204, 304}) {
    std::string out;
    r.append_custom(out, {status, 100}, {});
    r.append_canned(out, Canned::Ok, {});  // the next response must frame right after it
    Parsed p = parse_one(out);
    EXPECT_EQ(p.status, status);
    EXPECT_EQ(p.body, "");
    EXPECT_EQ(out.substr(p.consumed, 8), "HTTP/1.1") << status;
    EXPECT_EQ(out.find("Content-Length", 0), out.find("Content-Length: 2")) << status;
  }
}

TEST(Responses, CountIsJson) {
  ServerOptions o;
  o.id = "a\"b";
  o.delay = std::chrono::milliseconds(50);
  Shared shared = make_shared(o);
  Responses r(shared);
  std::string out;
  r.append_count(out, 12345, {});
  Parsed p = parse_one(out);
  EXPECT_EQ(p.content_type, "application/json");
  EXPECT_EQ(p.body, R"({"id":"a\"b","served":12345,"delay":50})");

  Shared anonymous = make_shared({});
  out.clear();
  Responses(anonymous).append_count(out, 0, {});
  EXPECT_EQ(parse_one(out).body, R"({"id":null,"served":0,"delay":0})");
}

TEST(Responses, TextAnswer) {
  Shared shared = make_shared({});
  Responses r(shared);
  std::string out;
  r.append_text(out, 431, "too big", {http::Persistence::Close, false});
  Parsed p = parse_one(out);
  EXPECT_EQ(p.status, 431);
  EXPECT_EQ(p.body, "too big\n");
  EXPECT_FALSE(p.keep_alive);
}

TEST(Responses, Continue) {
  std::string out;
  Responses::append_continue(out);
  EXPECT_EQ(out, "HTTP/1.1 100 Continue\r\n\r\n");
}

}  // namespace
}  // namespace stampede::server
