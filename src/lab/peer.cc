#include "lab/peer.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "core/enum_names.h"

namespace stampede::lab {
namespace {

bool names(std::string_view command, std::string_view word) {
  return std::search(command.begin(), command.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != command.end();
}

}  // namespace

Peer peer_of(const BalancerSpec& spec) {
  if (spec.kind == BalancerKind::BuiltIn) return Peer::BuiltIn;
  if (spec.kind != BalancerKind::Command) return Peer::Other;
  const bool haproxy = names(spec.command, "haproxy");
  const bool nginx = names(spec.command, "nginx");
  if (haproxy == nginx) return Peer::Other;
  return haproxy ? Peer::HAProxy : Peer::Nginx;
}

constexpr EnumName<Peer> kPeerNames[] = {{Peer::BuiltIn, "stampede balance"},
                                         {Peer::HAProxy, "HAProxy"},
                                         {Peer::Nginx, "nginx"},
                                         {Peer::Other, "the balancer"}};
static_assert(in_enum_order(kPeerNames));

std::string_view peer_name(Peer peer) {
  return name_of(kPeerNames, peer);
}

std::string hang_settings(Peer peer, std::optional<std::int64_t> backend_timeout_ms) {
  const std::string timeout =
      backend_timeout_ms ? fmt::format(" ({} ms)", *backend_timeout_ms) : std::string();
  switch (peer) {
    case Peer::HAProxy:
      return fmt::format(
          " HAProxy: each request waiting on the stopped instance got a 504 when `timeout "
          "server`{} ran out; `retries` and `option redispatch` re-send only a request whose "
          "connection failed (retry-on's default), and connections to a stopped instance do not "
          "fail. Its checks (`check inter I fall 3 rise 2`; with no `timeout check` a check "
          "must finish within `inter`) mark the instance down after 3 failed checks.",
          timeout);
    case Peer::Nginx:
      return fmt::format(
          " nginx: a request waiting on the stopped instance is given up when "
          "`proxy_read_timeout`{} runs out and, with `proxy_next_upstream error timeout`, sent "
          "to another instance: the client waits, it does not fail. The timeout is a failed "
          "attempt: with `max_fails=1` nginx leaves the instance out for `fail_timeout` (10 s). "
          "nginx OSS has no active health checks, only these passive ones: the check interval "
          "changes nothing, and its runs differ by chance.",
          timeout);
    case Peer::BuiltIn:
    case Peer::Other:
      break;
  }
  return {};
}

std::string limit_settings(Peer peer) {
  switch (peer) {
    case Peer::HAProxy:
      return " HAProxy: a connection reset before HAProxy saw it established is a failed "
             "connection, a 503 without `retries` and re-sent to another server with `retries` "
             "and `option redispatch`; a reset after the request was sent is not retried "
             "(retry-on's default): HAProxy answers 502 to a client connection's first request "
             "and closes the client connection without an answer on a later one (counted as "
             "ECONNRESET). With no checks the instance stays in the rotation and keeps refusing.";
    case Peer::Nginx:
      return " nginx: a reset is an error and an error is a failed attempt: with `max_fails=1` "
             "the instance is out for `fail_timeout` (10 s) after its first reset, retries or "
             "not; with `proxy_next_upstream error timeout` the request goes to another "
             "instance, with `proxy_next_upstream off` the client gets nginx's 502.";
    case Peer::BuiltIn:
    case Peer::Other:
      break;
  }
  return {};
}

}  // namespace stampede::lab
