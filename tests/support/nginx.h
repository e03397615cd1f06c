// nginx (Debian's /usr/sbin/nginx) as a peer no one here wrote, for tests: one process in the
// foreground (master_process off, one worker's work), on a free loopback port, its
// configuration, logs and temporary paths in a TempDir of its own, answering every request with
// `200 "OK\n"`. Plain HTTP/1.1, HTTPS (the caller's certificate and key, as PEM) or HTTP/2 with
// prior knowledge (`listen ... http2` without ssl: h2c only, no HTTP/1.1 on that port).
//
// The constructor starts it and waits (bounded) for its pid file, written once it listens;
// ready() says whether it came up (a port taken in between by another process: error_log()
// says so). stop() asks it to finish (SIGQUIT, graceful) and reaps it; the destructor does the
// same when the test did not. With the access log on, stop() before reading access_log():
// nginx writes a request's line when it finalises the request, which may come after the client
// already read the answer. One thread; not copyable.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {

inline constexpr const char* kNginxPath = "/usr/sbin/nginx";

struct NginxOptions {
  enum class Listen { Http1, Tls, H2c };
  Listen listen = Listen::Http1;
  std::string cert_pem, key_pem;  // Listen::Tls only
  bool access_log = false;        // the combined format, one line per request, in access_log()
};

class Nginx {
 public:
  explicit Nginx(NginxOptions options = {});
  ~Nginx();
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  // False when nginx is not at kNginxPath (the test skips then: make test-deps installs it).
  static bool installed();

  bool ready() const { return ready_; }
  std::uint16_t port() const { return port_; }
  // "http://127.0.0.1:PORT/" ("https://..." with Listen::Tls).
  std::string url() const;
  // Stops it (SIGQUIT; SIGKILL after 5 s) and reaps it; idempotent.
  void stop();
  std::string error_log() const;
  std::string access_log() const;

 private:
  TempDir temp_dir_;
  std::string dir_;
  NginxOptions options_;
  std::uint16_t port_;
  std::unique_ptr<ChildProcess> child_;
  bool ready_ = false;
};

}  // namespace stampede::testing
