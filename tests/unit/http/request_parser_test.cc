#include "http/request_parser.h"

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "grind.h"

namespace stampede::http {
namespace {

using testing::Trace;

std::string describe(const RequestParser& p) {
  std::string headers;
  for (const Header& h : p.headers())
    headers += fmt::format("[{}: {}]", h.name, h.value);
  const auto cl = p.content_length();
  return fmt::format("{} {} 1.{} ka={} cl={} te={} up={} ec={} {}", p.method(), p.target(),
                     p.http_minor(), int{p.keep_alive()}, cl ? std::to_string(*cl) : "-",
                     int{p.chunked()}, int{p.upgrade()}, int{p.expect_continue()}, headers);
}

Trace grind_request(std::string_view input, ParserLimits limits = {}, bool eof = false,
                    std::size_t stride = 1) {
  return testing::grind<RequestParser>(
      input, [limits] { return RequestParser(limits); }, describe, eof, stride);
}

// Parses `input` whole and returns the error of the first Failure step (status 0 if none).
ParseError first_error(std::string_view input, ParserLimits limits = {}) {
  return testing::first_error(RequestParser(limits), input);
}

TEST(RequestParser, SimpleGet) {
  const Trace t = grind_request("GET /index.html?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n");
  const std::string d = "GET /index.html?a=1 1.1 ka=1 cl=- te=0 up=0 ec=0 [Host: example.com]";
  EXPECT_EQ(t, (Trace{"head@51 " + d, "msg@51 " + d}));
}

TEST(RequestParser, PostWithContentLength) {
  const std::string head = "POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n";
  const Trace t = grind_request(head + "hello");
  const std::string d = "POST /submit 1.1 ka=1 cl=5 te=0 up=0 ec=0 [Host: x][Content-Length: 5]";
  EXPECT_EQ(t, (Trace{fmt::format("head@{} {}", head.size(), d),
                      fmt::format("msg@{} {}", head.size() + 5, d)}));
}

TEST(RequestParser, ChunkedWithExtensionsAndTrailers) {
  const std::string head =
      "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n";
  const std::string body =
      "5;name=value\r\nhello\r\n6;flag\r\n world\r\n0;q=\"a b\";last\r\nX-Sum: 42\r\n\r\n";
  const Trace t = grind_request(head + body);
  const std::string d =
      "POST /up 1.1 ka=1 cl=- te=1 up=0 ec=0 [Host: h][Transfer-Encoding: chunked]"
      "[Trailer: X-Sum]";
  EXPECT_EQ(t, (Trace{fmt::format("head@{} {}", head.size(), d),
                      fmt::format("msg@{} {}", head.size() + body.size(), d)}));
}

// A proxy forwards the bytes between head end and message end untouched, chunk framing
// included: the offsets must delimit exactly the raw body.
TEST(RequestParser, OffsetsDelimitRawBodyForForwarding) {
  const std::string head = "PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string body = "3;ext=1\r\nabc\r\n0\r\nT: v\r\n\r\n";
  const std::string next = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string stream = head + body + next;
  RequestParser p;
  Step s = p.feed(stream);
  ASSERT_EQ(s.event, Event::HeadComplete);
  const std::size_t head_end = s.consumed;
  s = p.feed(stream.data() + head_end, stream.size() - head_end);
  ASSERT_EQ(s.event, Event::MessageComplete);
  const std::size_t msg_end = head_end + s.consumed;
  EXPECT_EQ(stream.substr(0, head_end), head);
  EXPECT_EQ(stream.substr(head_end, msg_end - head_end), body);
  s = p.feed(stream.data() + msg_end, stream.size() - msg_end);
  ASSERT_EQ(s.event, Event::HeadComplete);
  EXPECT_EQ(p.target(), "/next");
  EXPECT_EQ(p.headers().size(), 1u);  // Host only
}

TEST(RequestParser, Pipelined) {
  const std::string a = "GET /a HTTP/1.1\r\nHost: x\r\nX-N: 1\r\n\r\n";
  const std::string b = "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nxyz";
  const std::string c =
      "DELETE /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n";
  const Trace t = grind_request(a + b + c);
  const std::string da = "GET /a 1.1 ka=1 cl=- te=0 up=0 ec=0 [Host: x][X-N: 1]";
  const std::string db = "POST /b 1.1 ka=1 cl=3 te=0 up=0 ec=0 [Host: x][Content-Length: 3]";
  const std::string dc =
      "DELETE /c 1.1 ka=1 cl=- te=1 up=0 ec=0 [Host: x][Transfer-Encoding: chunked]";
  const std::size_t ab = a.size() + b.size();
  EXPECT_EQ(t,
            (Trace{fmt::format("head@{} {}", a.size(), da), fmt::format("msg@{} {}", a.size(), da),
                   fmt::format("head@{} {}", ab - 3, db), fmt::format("msg@{} {}", ab, db),
                   fmt::format("head@{} {}", ab + c.find("\r\n\r\n") + 4, dc),
                   fmt::format("msg@{} {}", ab + c.size(), dc)}));
}

TEST(RequestParser, HeaderValuesTrimmedAndKeptInOrder) {
  const Trace t = grind_request(
      "GET / HTTP/1.1\r\nHost: x\r\nA:   spaced  \t\r\nEmpty:\r\nB:x\r\nA: second\r\nLong: " +
      std::string(300, 'v') + "\r\n\r\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].substr(t[0].find('[')),
            "[Host: x][A: spaced][Empty: ][B: x][A: second][Long: " + std::string(300, 'v') + "]");
}

TEST(RequestParser, HeaderLookupIsCaseInsensitiveFirstMatch) {
  RequestParser p;
  ASSERT_EQ(
      p.feed("GET /p?q=1&r HTTP/1.1\r\nHost: x\r\nX-Thing: one\r\nx-thing: two\r\n\r\n").event,
      Event::HeadComplete);
  EXPECT_EQ(p.header("X-THING"), "one");
  EXPECT_EQ(p.header("missing"), std::nullopt);
  EXPECT_EQ(p.path(), "/p");
  EXPECT_EQ(p.query(), "q=1&r");
  EXPECT_EQ(p.method(), "GET");
}

TEST(RequestParser, KeepAliveRules) {
  const auto ka = [](std::string_view version, std::string_view connection) {
    RequestParser p;
    const std::string req = fmt::format("GET / HTTP/{}\r\nHost: x\r\n{}\r\n", version, connection);
    Step s = p.feed(req);
    EXPECT_EQ(s.event, Event::HeadComplete) << req;
    s = p.feed(req.data() + s.consumed, req.size() - s.consumed);
    EXPECT_EQ(s.event, Event::MessageComplete) << req;
    return p.keep_alive();
  };
  EXPECT_TRUE(ka("1.1", ""));
  EXPECT_FALSE(ka("1.1", "Connection: close\r\n"));
  EXPECT_FALSE(ka("1.1", "Connection: Close\r\n"));
  EXPECT_TRUE(ka("1.1", "Connection: keep-alive\r\n"));
  EXPECT_FALSE(ka("1.0", ""));
  EXPECT_TRUE(ka("1.0", "Connection: keep-alive\r\n"));
  EXPECT_TRUE(ka("1.0", "Connection: Keep-Alive\r\n"));
  EXPECT_FALSE(ka("1.0", "Connection: close\r\n"));
}

TEST(RequestParser, DataAfterCloseIsAnError) {
  const Trace t = grind_request("GET / HTTP/1.0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string d = "GET / 1.0 ka=0 cl=- te=0 up=0 ec=0 ";
  EXPECT_EQ(t, (Trace{"head@18 " + d, "msg@18 " + d, "error 400"}));
  EXPECT_EQ(
      first_error(
          "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
          .name,
      "DATA_AFTER_CLOSE");
}

TEST(RequestParser, ExpectContinue) {
  const std::string head =
      "PUT /f HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n";
  const Trace t = grind_request(head + "ok");
  const std::string d =
      "PUT /f 1.1 ka=1 cl=2 te=0 up=0 ec=1 [Host: x][Expect: 100-Continue][Content-Length: 2]";
  EXPECT_EQ(t, (Trace{fmt::format("head@{} {}", head.size(), d),
                      fmt::format("msg@{} {}", head.size() + 2, d)}));
}

TEST(RequestParser, UpgradeThenDeclinedContinuesWithHttp) {
  const std::string up =
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
  const Trace t = grind_request(up + "GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string d =
      "GET /ws 1.1 ka=1 cl=- te=0 up=1 ec=0 [Host: x][Upgrade: websocket][Connection: Upgrade]";
  const std::string d2 = "GET /after 1.1 ka=1 cl=- te=0 up=0 ec=0 [Host: x]";
  EXPECT_EQ(t,
            (Trace{fmt::format("head@{} {}", up.size(), d), fmt::format("msg@{} {}", up.size(), d),
                   fmt::format("head@{} {}", up.size() + 32, d2),
                   fmt::format("msg@{} {}", up.size() + 32, d2)}));
}

TEST(RequestParser, ConnectIsAnUpgrade) {
  RequestParser p;
  const Step s = p.feed("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
  ASSERT_EQ(s.event, Event::HeadComplete);
  EXPECT_TRUE(p.upgrade());
  EXPECT_EQ(p.method(), "CONNECT");
  EXPECT_EQ(p.target(), "example.com:443");
}

TEST(RequestParser, FinishReportsTruncation) {
  EXPECT_EQ(grind_request("GET / HTTP/1.1\r\nHost: a\r\n\r\n", {}, true).back(), "eof-clean");
  EXPECT_EQ(grind_request("GET / HTTP/1.1\r\nHost:", {}, true), (Trace{"error 400"}));
  EXPECT_EQ(
      grind_request("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab", {}, true).back(),
      "error 400");
  RequestParser p;
  EXPECT_EQ(p.finish().event, Event::NeedMore);  // EOF on an idle connection
}

TEST(RequestParser, FinishRightAfterHeadCompletesBodilessRequest) {
  RequestParser p;
  ASSERT_EQ(p.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n").event, Event::HeadComplete);
  EXPECT_EQ(p.finish().event, Event::MessageComplete);
  EXPECT_EQ(p.finish().event, Event::NeedMore);
}

TEST(RequestParser, ResetAfterErrorAndMoveMidMessage) {
  RequestParser p;
  EXPECT_EQ(p.feed("BAD\r\n\r\n").event, Event::Error);
  EXPECT_EQ(p.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n").event, Event::Error);  // errors are final
  p.reset();
  EXPECT_EQ(p.feed("GET /x HTTP/1.1\r\nHo").event, Event::NeedMore);
  RequestParser moved = std::move(p);
  ASSERT_EQ(moved.feed("st: y\r\n\r\n").event, Event::HeadComplete);
  EXPECT_EQ(moved.target(), "/x");
  EXPECT_EQ(moved.header("host"), "y");
}

}  // namespace
}  // namespace stampede::http
