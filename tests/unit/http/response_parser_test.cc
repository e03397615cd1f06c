#include "http/response_parser.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <fmt/format.h>

#include "grind.h"

namespace stampede::http {
namespace {

using testing::Trace;

// A ResponseParser that keeps the body it was given, for the trace.
struct BodyParser {
  explicit BodyParser(std::vector<std::string> capture = {})
      : parser(std::move(capture)), body(std::make_unique<std::string>()) {
    parser.set_body_callback([b = body.get()](std::string_view chunk) { b->append(chunk); });
  }
  Step feed(const char* data, std::size_t len) { return parser.feed(data, len); }
  Step finish() { return parser.finish(); }
  const ParseError& error() const { return parser.error(); }

  ResponseParser parser;
  std::unique_ptr<std::string> body;  // stable address for the callback across moves
};

std::string describe_plain(const ResponseParser& p) {
  const auto cl = p.content_length();
  return fmt::format("{} 1.{} ka={} cl={} te={}", p.status(), p.http_minor(), int{p.keep_alive()},
                     cl ? std::to_string(*cl) : "-", int{p.chunked()});
}

std::string describe_body(const BodyParser& p) {
  return describe_plain(p.parser) + " body='" + *p.body + "'";
}

// Grinds with and without a body callback: both must agree on events and offsets.
Trace grind_response(std::string_view input, bool eof = false) {
  const Trace plain = testing::grind<ResponseParser>(
      input, [] { return ResponseParser(); }, describe_plain, eof);
  const Trace with_body = testing::grind<BodyParser>(
      input, [] { return BodyParser(); }, describe_body, eof);
  EXPECT_EQ(plain.size(), with_body.size());
  for (std::size_t i = 0; i < plain.size() && i < with_body.size(); ++i) {
    EXPECT_EQ(with_body[i].rfind(plain[i], 0), 0u) << with_body[i] << " vs " << plain[i];
  }
  return with_body;
}

TEST(ResponseParser, ContentLength) {
  EXPECT_EQ(
      grind_response("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"),
      (Trace{"head@38 200 1.1 ka=1 cl=2 te=0 body=''", "msg@40 200 1.1 ka=1 cl=2 te=0 body='OK'"}));
}

TEST(ResponseParser, ChunkedWithExtensionsAndTrailers) {
  const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string body =
      "4;a=b\r\nWiki\r\n5\r\npedia\r\nE;q=\"x y\"\r\n in\r\n\r\nchunks.\r\n"
      "0\r\nExpires: never\r\n\r\n";
  EXPECT_EQ(grind_response(head + body),
            (Trace{fmt::format("head@{} 200 1.1 ka=1 cl=- te=1 body=''", head.size()),
                   fmt::format("msg@{} 200 1.1 ka=1 cl=- te=1 body='Wikipedia in\r\n\r\nchunks.'",
                               head.size() + body.size())}));
}

TEST(ResponseParser, HeadResponseHasNoBody) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
  const std::string next = "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx";
  const Trace t = testing::grind<ResponseParser>(
      head + next,
      [] {
        ResponseParser p;
        p.expect_no_body();
        return p;
      },
      describe_plain);
  EXPECT_EQ(t, (Trace{fmt::format("head@{} 200 1.1 ka=1 cl=1000 te=0", head.size()),
                      fmt::format("msg@{} 200 1.1 ka=1 cl=1000 te=0", head.size()),
                      fmt::format("head@{} 404 1.1 ka=1 cl=1 te=0", head.size() + next.size() - 1),
                      fmt::format("msg@{} 404 1.1 ka=1 cl=1 te=0", head.size() + next.size())}));
}

TEST(ResponseParser, HeadResponseChunked) {
  ResponseParser p;
  p.expect_no_body();
  const std::string r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  ASSERT_EQ(p.feed(r).event, Event::HeadComplete);
  EXPECT_EQ(p.feed(r.data() + r.size(), 0).event, Event::MessageComplete);
  EXPECT_TRUE(p.keep_alive());
}

TEST(ResponseParser, NoContentAndNotModifiedHaveNoBody) {
  const std::string a = "HTTP/1.1 204 No Content\r\n\r\n";
  const std::string b = "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n";
  // 204 with a (forbidden) Content-Length still has no body.
  const std::string c = "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n";
  const std::size_t ab = a.size() + b.size();
  EXPECT_EQ(grind_response(a + b + c),
            (Trace{fmt::format("head@{} 204 1.1 ka=1 cl=- te=0 body=''", a.size()),
                   fmt::format("msg@{} 204 1.1 ka=1 cl=- te=0 body=''", a.size()),
                   fmt::format("head@{} 304 1.1 ka=1 cl=50 te=0 body=''", ab),
                   fmt::format("msg@{} 304 1.1 ka=1 cl=50 te=0 body=''", ab),
                   fmt::format("head@{} 204 1.1 ka=1 cl=3 te=0 body=''", ab + c.size()),
                   fmt::format("msg@{} 204 1.1 ka=1 cl=3 te=0 body=''", ab + c.size())}));
}

TEST(ResponseParser, InterimResponsesAreSkipped) {
  const std::string interim =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n";
  const std::string final_head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
  const std::size_t head_end = interim.size() + final_head.size();
  EXPECT_EQ(grind_response(interim + final_head + "hi"),
            (Trace{fmt::format("head@{} 200 1.1 ka=1 cl=2 te=0 body=''", head_end),
                   fmt::format("msg@{} 200 1.1 ka=1 cl=2 te=0 body='hi'", head_end + 2)}));
}

TEST(ResponseParser, SwitchingProtocolsIsReported) {
  const std::string head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
  const Trace t = grind_response(head + "\x81\x05hello");
  EXPECT_EQ(
      t, (Trace{fmt::format("head@{} 101 1.1 ka=0 cl=- te=0 body=''", head.size()),
                fmt::format("msg@{} 101 1.1 ka=0 cl=- te=0 body=''", head.size()), "error 502"}));
  ResponseParser p;
  ASSERT_EQ(p.feed(head).event, Event::HeadComplete);
  EXPECT_TRUE(p.upgrade());
  EXPECT_EQ(p.feed(head.data() + head.size(), 0).event, Event::MessageComplete);
  EXPECT_EQ(p.feed("\x81\x05hello").event, Event::Error);  // bytes of the new protocol
  EXPECT_EQ(p.error().name, "UPGRADED");
}

TEST(ResponseParser, CloseDelimitedBodyEndsAtEof) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
  EXPECT_EQ(grind_response(head + "abc", true),
            (Trace{fmt::format("head@{} 200 1.1 ka=0 cl=- te=0 body=''", head.size()),
                   "msg@eof 200 1.1 ka=0 cl=- te=0 body='abc'"}));
  EXPECT_EQ(
      grind_response("HTTP/1.0 200 OK\r\n\r\n", true),
      (Trace{"head@19 200 1.0 ka=0 cl=- te=0 body=''", "msg@eof 200 1.0 ka=0 cl=- te=0 body=''"}));
}

TEST(ResponseParser, FinishRightAfterHeadCompletesCloseDelimitedBody) {
  ResponseParser p;
  ASSERT_EQ(p.feed("HTTP/1.1 200 OK\r\n\r\n").event, Event::HeadComplete);
  EXPECT_EQ(p.finish().event, Event::MessageComplete);  // empty body, ended by EOF
  EXPECT_FALSE(p.keep_alive());
  EXPECT_EQ(p.finish().event, Event::NeedMore);
  EXPECT_EQ(p.feed("x").event, Event::Error);  // nothing can follow a close-delimited body
}

TEST(ResponseParser, TruncatedResponsesFailAtEof) {
  EXPECT_EQ(grind_response("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", true).back(),
            "error 502");
  EXPECT_EQ(
      grind_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", true).back(),
      "error 502");
  EXPECT_EQ(grind_response("HTTP/1.1 200 OK\r\nContent-Le", true), (Trace{"error 502"}));
  EXPECT_EQ(grind_response("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true).back(),
            "eof-clean");
  ResponseParser idle;
  EXPECT_EQ(idle.finish().event, Event::NeedMore);
}

TEST(ResponseParser, KeepAliveRules) {
  const auto ka = [](std::string_view response) {
    ResponseParser p;
    Step s = p.feed(response);
    EXPECT_EQ(s.event, Event::HeadComplete) << response;
    s = p.feed(response.data() + s.consumed, response.size() - s.consumed);
    EXPECT_EQ(s.event, Event::MessageComplete) << response;
    return p.keep_alive();
  };
  EXPECT_TRUE(ka("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_FALSE(ka("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_FALSE(ka("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
  EXPECT_TRUE(ka("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"));
}

TEST(ResponseParser, NoMoreResponsesAfterClose) {
  const std::string a = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx";
  const Trace t = grind_response(a + "HTTP/1.1 200 OK\r\n\r\n");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2], "error 502");
}

TEST(ResponseParser, Pipelined) {
  const std::string a = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na";
  const std::string b =
      "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
      "1\r\nb\r\n0\r\n\r\n";
  const Trace t = grind_response(a + b + a);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[1], fmt::format("msg@{} 200 1.1 ka=1 cl=1 te=0 body='a'", a.size()));
  // The body callback saw each body in turn.
  EXPECT_EQ(t[3], fmt::format("msg@{} 500 1.1 ka=1 cl=- te=1 body='ab'", a.size() + b.size()));
  EXPECT_EQ(t[5], fmt::format("msg@{} 200 1.1 ka=1 cl=1 te=0 body='aba'", 2 * a.size() + b.size()));
}

TEST(ResponseParser, MalformedResponses) {
  for (const char* bad :
       {"HTTP/1.1 2OO OK\r\n\r\n", "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
        "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", "HTXP/1.1 200 OK\r\n\r\n",
        // A CR that starts a value (llhttp 8.1 takes it when the next byte is in the same read).
        "HTTP/1.1 200 OK\r\nX-A:\ra\r\nContent-Length: 0\r\n\r\n"}) {
    const Trace t = grind_response(bad);
    ASSERT_FALSE(t.empty()) << bad;
    EXPECT_EQ(t.back(), "error 502") << bad;
  }
}

std::string describe_captured(const ResponseParser& p) {
  std::string out = std::to_string(p.status());
  for (std::size_t i = 0; i < 3; ++i) {
    const auto v = p.captured(i);
    out += v ? fmt::format(" <{}>", *v) : std::string(" -");
  }
  return out;
}

TEST(ResponseParser, CapturesSelectedHeaders) {
  const std::string a =
      "HTTP/1.1 200 OK\r\nX-Instance: node-7  \r\nContent-Length: 0\r\nx-backend: b1\r\n"
      "X-BACKEND:b2\r\nX-Other: no\r\n\r\n";
  const std::string b =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Backend: " + std::string(200, 'z') +
      "\r\n\r\n0\r\nX-Instance: trailer\r\n\r\n";
  const Trace t = testing::grind<ResponseParser>(
      a + b,
      [] {
        return ResponseParser({"x-instance", "X-Backend", "x-missing"});
      },
      describe_captured);
  const std::string long_value = fmt::format(" - <{}> -", std::string(200, 'z'));
  EXPECT_EQ(t, (Trace{fmt::format("head@{} 200 <node-7> <b1, b2> -", a.size()),
                      fmt::format("msg@{} 200 <node-7> <b1, b2> -", a.size()),
                      fmt::format("head@{} 200{}", a.size() + b.find("\r\n\r\n") + 4, long_value),
                      fmt::format("msg@{} 200{}", a.size() + b.size(), long_value)}));
  ResponseParser p({"x-instance"});
  ASSERT_EQ(p.feed(a).event, Event::HeadComplete);
  EXPECT_EQ(p.header("X-INSTANCE"), "node-7");
  EXPECT_EQ(p.header("x-other"), std::nullopt);  // not captured
}

TEST(ResponseParser, ResetAndMove) {
  ResponseParser p({"x-a"});
  EXPECT_EQ(p.feed("garbage\r\n").event, Event::Error);
  EXPECT_EQ(p.error().status, 502);
  p.reset();
  EXPECT_EQ(p.feed("HTTP/1.1 200 OK\r\nX-").event, Event::NeedMore);
  ResponseParser moved = std::move(p);
  const std::string rest = "A: v\r\nContent-Length: 0\r\n\r\n";
  const Step s = moved.feed(rest);
  ASSERT_EQ(s.event, Event::HeadComplete);
  EXPECT_EQ(moved.header("x-a"), "v");
  EXPECT_EQ(moved.feed(rest.data() + s.consumed, 0).event, Event::MessageComplete);
}

}  // namespace
}  // namespace stampede::http
