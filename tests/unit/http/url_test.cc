#include "http/url.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede::http {
namespace {

struct Good {
  const char* input;
  Scheme scheme;
  const char* host;
  int port;
  const char* target;
  const char* host_header;
};

TEST(ParseUrl, GoodUrls) {
  const Good cases[] = {
      {"http://example.com", Scheme::Http, "example.com", 80, "/", "example.com"},
      {"http://example.com/", Scheme::Http, "example.com", 80, "/", "example.com"},
      {"https://Example.COM/a/b?c=d#frag", Scheme::Https, "example.com", 443, "/a/b?c=d",
       "example.com"},
      {"HTTP://localhost:8080/x", Scheme::Http, "localhost", 8080, "/x", "localhost:8080"},
      {"http://127.0.0.1:80/", Scheme::Http, "127.0.0.1", 80, "/", "127.0.0.1"},
      {"https://h:80/", Scheme::Https, "h", 80, "/", "h:80"},
      {"https://h:443", Scheme::Https, "h", 443, "/", "h"},
      {"ws://h/chat", Scheme::Ws, "h", 80, "/chat", "h"},
      {"wss://h:9443/chat", Scheme::Wss, "h", 9443, "/chat", "h:9443"},
      {"http://[::1]:8080/p", Scheme::Http, "::1", 8080, "/p", "[::1]:8080"},
      {"http://[2001:db8::1]/", Scheme::Http, "2001:db8::1", 80, "/", "[2001:db8::1]"},
      {"http://[::ffff:10.0.0.1]:1", Scheme::Http, "::ffff:10.0.0.1", 1, "/",
       "[::ffff:10.0.0.1]:1"},
      {"http://h?q=1", Scheme::Http, "h", 80, "/?q=1", "h"},
      {"http://h#only-fragment", Scheme::Http, "h", 80, "/", "h"},
      {"http://h:65535/%20", Scheme::Http, "h", 65535, "/%20", "h:65535"},
      {"http://h/caf\xC3\xA9", Scheme::Http, "h", 80, "/caf%C3%A9", "h"},
      {"http://my_host-1.example/", Scheme::Http, "my_host-1.example", 80, "/",
       "my_host-1.example"},
  };
  for (const Good& c : cases) {
    SCOPED_TRACE(c.input);
    const Expected<Url> url = parse_url(c.input);
    ASSERT_TRUE(url.ok()) << url.error().message;
    EXPECT_EQ(url->scheme, c.scheme);
    EXPECT_EQ(url->host, c.host);
    EXPECT_EQ(url->port, c.port);
    EXPECT_EQ(url->target, c.target);
    EXPECT_EQ(url->host_header, c.host_header);
  }
}

TEST(ParseUrl, SchemeHelpers) {
  EXPECT_TRUE(parse_url("https://h")->tls());
  EXPECT_TRUE(parse_url("wss://h")->tls());
  EXPECT_TRUE(parse_url("wss://h")->websocket());
  EXPECT_FALSE(parse_url("http://h")->tls());
  EXPECT_FALSE(parse_url("http://h")->websocket());
  EXPECT_EQ(scheme_name(Scheme::Wss), "wss");
  EXPECT_EQ(default_port(Scheme::Ws), 80);
}

struct Bad {
  const char* input;
  const char* message_part;
};

TEST(ParseUrl, BadUrls) {
  const Bad cases[] = {
      {"", "empty URL"},
      {"example.com/path", "missing scheme"},
      {"localhost:8080", "missing scheme"},
      {"://h/", "missing scheme"},
      {"ftp://h/", "unsupported scheme 'ftp'"},
      {"file:///etc/passwd", "unsupported scheme"},
      {"http://", "empty host"},
      {"http:///path", "empty host"},
      {"http://:8080/", "empty host"},
      {"http://[]/", "empty host"},
      {"http://h:/", "empty port"},
      {"http://h:abc/", "not a number"},
      {"http://h:80a/", "not a number"},
      {"http://h:-1/", "not a number"},
      {"http://h:0/", "out of range"},
      {"http://h:65536/", "out of range"},
      {"http://h:99999999999999999999/", "out of range"},
      {"http://h ost/", "space or control"},
      {"http://h/a b", "space or control"},
      {" http://h/", "space or control"},
      {"http://h/\t", "space or control"},
      {"http://h/\x7f", "space or control"},
      {"http://user:pw@h/", "user info"},
      {"http://[::1/", "unterminated IPv6"},
      {"http://[::1]x/", "after IPv6"},
      {"http://[zz::1]/", "invalid IPv6"},
      {"http://[1.2.3.4]/", "invalid IPv6"},
      {"http://h\xC3\xA9/", "invalid character"},
      {"http://h!x/", "invalid character '!'"},
  };
  for (const Bad& c : cases) {
    const Expected<Url> url = parse_url(c.input);
    ASSERT_FALSE(url.ok()) << c.input;
    EXPECT_NE(url.error().message.find(c.message_part), std::string::npos)
        << c.input << " -> " << url.error().message;
  }
}

}  // namespace
}  // namespace stampede::http
