#include "lab/balancer_proc.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "core/json_input.h"
#include "http/url.h"
#include "lab/http_client.h"
#include "lab/ready.h"
#include "lab/runs.h"

namespace stampede::lab {
namespace {

using namespace std::chrono_literals;

constexpr auto kFirstAnswerTimeout = 3000ms;
constexpr auto kStatsTimeout = 1000ms;

// The value of one placeholder name, or nullopt when the name is not one of ours.
std::optional<std::string> lookup(std::string_view name, const Placeholders& v) {
  if (name == "strategy") return v.strategy;
  if (name == "health") return std::to_string(v.health_ms);
  if (name == "retries") return std::to_string(v.retries);
  if (name == "timeout") return std::to_string(v.timeout_ms);
  if (name == "port") return std::to_string(v.port);
  if (name == "dir") return v.dir;
  if (name == "instances") {
    std::string out;
    for (const auto& [n, hp] : v.instances)
      out += (out.empty() ? "" : ",") + n + "=" + hp;
    return out;
  }
  for (const auto& [n, hp] : v.instances) {
    if (name == "addr:" + n) return hp;
    if (name == "port:" + n) return hp.substr(hp.rfind(':') + 1);
  }
  return std::nullopt;
}

// --balancer-url's address (the plan parsed it; an external balancer always has one).
Expected<net::Address> address_of(const std::optional<http::Url>& url) {
  if (!url) return make_error("no URL");
  return net::resolve(url->host, url->port);
}

}  // namespace

bool varies_retries(const BalancerSpec& spec) {
  return spec.kind == BalancerKind::BuiltIn ||
         (spec.kind == BalancerKind::Command &&
          spec.command.find("{retries}") != std::string::npos);
}

bool varies_timeout(const BalancerSpec& spec) {
  return spec.kind == BalancerKind::BuiltIn ||
         (spec.kind == BalancerKind::Command &&
          spec.command.find("{timeout}") != std::string::npos);
}

std::string substitute(std::string_view command, const Placeholders& values) {
  std::string out;
  std::size_t i = 0;
  while (i < command.size()) {
    const std::size_t open = command.find('{', i);
    if (open == std::string_view::npos) break;
    out.append(command.substr(i, open - i));
    const std::size_t close = command.find('}', open + 1);
    const auto value = close == std::string_view::npos
                           ? std::nullopt
                           : lookup(command.substr(open + 1, close - open - 1), values);
    if (value) {
      out += *value;
      i = close + 1;
    } else {
      out += '{';
      i = open + 1;
    }
  }
  if (i < command.size()) out.append(command.substr(i));
  return out;
}

std::map<std::string, bool> parse_up_flags(std::string_view body) {
  std::map<std::string, bool> flags;
  const auto parsed = parse_json_input(body);
  if (!parsed || !parsed->is_object()) return flags;
  const nlohmann::json& doc = *parsed;
  for (const auto& [list, key] : {std::pair{"backends", "name"}, std::pair{"pool", "id"}}) {
    if (!doc.contains(list) || !doc[list].is_array()) continue;
    for (const auto& b : doc[list]) {
      if (b.is_object() && b.contains(key) && b[key].is_string() && b.contains("up") &&
          b["up"].is_boolean()) {
        flags[b[key].get<std::string>()] = b["up"].get<bool>();
      }
    }
  }
  return flags;
}

Expected<std::string> BalancerRunner::start(
    const std::string& strategy, std::optional<std::chrono::milliseconds> health,
    const InstancePool& pool, const Interrupt& interrupt,
    std::optional<std::chrono::milliseconds> backend_timeout) {
  stop();
  if (options_.spec.kind == BalancerKind::External) {
    auto address = address_of(options_.url);
    if (!address) return make_error("--balancer-url: " + address.error().message);
    address_ = *address;
    url_ = options_.spec.url;
  } else if (auto r = spawn(strategy, health.value_or(0ms), backend_timeout, pool, interrupt); !r) {
    stop();
    return r.error();
  }
  if (auto r = check_answers(); !r) {
    stop();
    return r.error();
  }
  return url_;
}

Expected<void> BalancerRunner::spawn(const std::string& strategy, std::chrono::milliseconds health,
                                     std::optional<std::chrono::milliseconds> backend_timeout,
                                     const InstancePool& pool, const Interrupt& interrupt) {
  const BalancerSpec& spec = options_.spec;
  const std::string base = fmt::format("{}/balancer-{}", options_.work_dir, ++generation_);
  SpawnOptions spawn;
  spawn.log_base = base;
  if (spec.kind == BalancerKind::BuiltIn) {
    spawn.label = fmt::format("the balancer (stampede balance --strategy {})", strategy);
    spawn.argv = {options_.stampede_path,
                  "balance",
                  "--listen",
                  "127.0.0.1:0",
                  "--ready-file",
                  base + ".port",
                  "--strategy",
                  strategy,
                  "--health-interval",
                  std::to_string(health.count()),
                  "--cores",
                  "1"};
    if (retries_) spawn.argv.insert(spawn.argv.end(), {"--retries", std::to_string(*retries_)});
    if (backend_timeout) {
      spawn.argv.push_back("--backend-timeout");
      spawn.argv.push_back(std::to_string(backend_timeout->count()));
    }
    for (std::size_t i = 0; i < pool.size(); ++i) {
      spawn.argv.push_back("--backend");
      spawn.argv.push_back(pool.name(i) + "=" + pool.host_port(i));
    }
    auto process = Process::spawn(spawn);
    if (!process) return process.error();
    process_ = std::move(process).value();
    auto port = wait_for_port_file(*process_, base + ".port", spec.start_timeout, interrupt);
    if (!port) return port.error();
    auto address = net::resolve("127.0.0.1", *port);
    if (!address) return address.error();
    address_ = *address;
    url_ = fmt::format("http://127.0.0.1:{}/", *port);
    return {};
  }
  Placeholders values;
  if (!spec.url.empty()) {
    auto address = address_of(options_.url);
    if (!address) return make_error("--balancer-url: " + address.error().message);
    address_ = *address;
    url_ = spec.url;
    if (can_connect(address_, 200ms)) {
      return make_error(fmt::format(
          "something already listens on {}, where the balancer command is to listen: stop it "
          "first (the lab only stops processes it started)",
          address_.to_string()));
    }
  } else {
    auto port = pick_free_port("127.0.0.1");
    if (!port) return make_error("no free port for the balancer: " + port.error().message);
    auto address = net::resolve("127.0.0.1", *port);
    if (!address) return address.error();
    address_ = *address;
    url_ = fmt::format("http://127.0.0.1:{}/", *port);
  }
  values.strategy = strategy;
  values.health_ms = health.count();
  values.retries = retries_.value_or(1);
  if (backend_timeout) values.timeout_ms = backend_timeout->count();
  values.port = address_.port();
  values.dir = options_.work_dir;
  for (std::size_t i = 0; i < pool.size(); ++i)
    values.instances.emplace_back(pool.name(i), pool.host_port(i));
  spawn.label = fmt::format("the balancer command ({})", strategy);
  spawn.argv = {"/bin/sh", "-c", substitute(spec.command, values)};
  auto process = Process::spawn(spawn);
  if (!process) return process.error();
  process_ = std::move(process).value();
  return wait_for_listener(process_.get(), address_, spec.start_timeout, interrupt);
}

Expected<void> BalancerRunner::check_answers() const {
  if (protocol_ == ClientProtocol::H2c) {
    auto r = h2_first_answer(url_, kFirstAnswerTimeout);
    if (!r) return answer_failure(r.error().message);
    return {};
  }
  auto reply = http_get(address_, "/", kFirstAnswerTimeout);
  std::string problem;
  if (!reply) {
    problem = "answers nothing: " + reply.error().message;
  } else if (reply->status >= 500) {
    problem = fmt::format("answered {} to a first GET /: no instance is reachable through it",
                          reply->status);
  }
  if (problem.empty()) return {};
  return answer_failure(problem);
}

Failure BalancerRunner::answer_failure(const std::string& problem) const {
  std::string tail = process_ ? process_->output_tail() : std::string();
  return make_error(fmt::format("the balancer at {} {}{}{}", url_, problem,
                                tail.empty() ? "" : "; its output: ", tail));
}

void BalancerRunner::stop() {
  process_.reset();
}

std::map<std::string, bool> BalancerRunner::read_up_flags() const {
  auto reply = http_get(address_, "/lb-stats", kStatsTimeout);
  if (!reply || reply->status != 200) return {};
  return parse_up_flags(reply->body);
}

std::string BalancerRunner::describe() const {
  switch (options_.spec.kind) {
    case BalancerKind::BuiltIn:
      return "stampede balance (built-in, started for each run)";
    case BalancerKind::Command:
      return "command: " + options_.spec.command;
    case BalancerKind::External:
      return "external: " + options_.spec.url;
  }
  return "";
}

}  // namespace stampede::lab
