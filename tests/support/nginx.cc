#include "support/nginx.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "support/loopback.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;

std::string config_text(const std::string& dir, std::uint16_t port, const NginxOptions& o) {
  const char* listen = o.listen == NginxOptions::Listen::Tls   ? " ssl"
                       : o.listen == NginxOptions::Listen::H2c ? " http2"
                                                               : "";
  std::string text = "daemon off;\nmaster_process off;\nworker_processes 1;\npid " + dir +
                     "/nginx.pid;\nerror_log " + dir + "/error.log warn;\n" +
                     "events { worker_connections 1024; }\nhttp {\n";
  text += o.access_log ? "  access_log " + dir + "/access.log;\n" : "  access_log off;\n";
  for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    text += "  " + std::string(temp) + "_temp_path " + dir + "/" + temp + ";\n";
  text += "  server {\n    listen 127.0.0.1:" + std::to_string(port) + listen + ";\n";
  if (o.listen == NginxOptions::Listen::Tls) {
    text +=
        "    ssl_certificate " + dir + "/cert.pem;\n    ssl_certificate_key " + dir + "/key.pem;\n";
  }
  return text + "    location / { return 200 \"OK\\n\"; }\n  }\n}\n";
}

}  // namespace

Nginx::Nginx(NginxOptions options)
    : dir_(temp_dir_.path()), options_(std::move(options)), port_(unused_loopback_port()) {
  if (options_.listen == NginxOptions::Listen::Tls) {
    std::ofstream(dir_ + "/cert.pem") << options_.cert_pem;
    std::ofstream(dir_ + "/key.pem") << options_.key_pem;
  }
  std::ofstream(dir_ + "/nginx.conf") << config_text(dir_, port_, options_);
  child_ = std::make_unique<ChildProcess>(std::vector<std::string>{
      kNginxPath, "-p", dir_, "-e", dir_ + "/error.log", "-c", dir_ + "/nginx.conf"});
  // The pid is a number like a port: the same bounded wait for a file.
  ready_ = wait_for_port_file(dir_ + "/nginx.pid", milliseconds(10000)) > 0;
}

Nginx::~Nginx() {
  stop();
}

bool Nginx::installed() {
  return std::filesystem::exists(kNginxPath);
}

std::string Nginx::url() const {
  const char* scheme = options_.listen == NginxOptions::Listen::Tls ? "https" : "http";
  return std::string(scheme) + "://127.0.0.1:" + std::to_string(port_) + "/";
}

void Nginx::stop() {
  if (!child_) return;
  child_->signal(SIGQUIT);
  child_->wait(milliseconds(5000));
  child_.reset();  // SIGKILLs and reaps it if it is still running
}

std::string Nginx::error_log() const {
  return read_file(dir_ + "/error.log");
}

std::string Nginx::access_log() const {
  return read_file(dir_ + "/access.log");
}

}  // namespace stampede::testing
