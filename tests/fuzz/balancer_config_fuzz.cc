// Fuzz target: balancer::parse_config_json, the `--config FILE` reader given the file's text
// (the seam load_config_file() reads the file into), then prepare() on what it accepted.
// Oracle: no crash, hang or sanitizer report; every refusal has a one-line message; an accepted
// config holds the weights the file gives its {name, address, weight} backends (the JSON read
// again here, differentially).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "balancer/config.h"
#include "balancer/plan.h"
#include "fuzz_check.h"

namespace {

using stampede::balancer::BalancerConfig;

void check_message(const std::string& message) {
  FUZZ_CHECK(!message.empty(), "an error without a message");
  FUZZ_CHECK(message.find('\n') == std::string::npos, "message on several lines: '%s'",
             message.c_str());
}

// The backends of `text` in the order the reader takes them ("backend" and "backends" arrays,
// in key order): an object's integer weight must be the weight of the parsed backend.
void check_weights(std::string_view text, const BalancerConfig& config) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  FUZZ_CHECK(doc.is_object(), "accepted a config that is not a JSON object");
  std::size_t i = 0;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != "backend" && it.key() != "backends") continue;
    for (const auto& b : it.value()) {
      FUZZ_CHECK(i < config.backends.size(), "fewer backends than the file has");
      if (b.is_object() && b.contains("weight") && b["weight"].is_number_integer()) {
        FUZZ_CHECK(b["weight"] == nlohmann::json(config.backends[i].weight),
                   "backend %zu: the file says weight %s, the config has %d", i,
                   b["weight"].dump().c_str(), config.backends[i].weight);
      }
      ++i;
    }
  }
  FUZZ_CHECK(i == config.backends.size(), "%zu backends for %zu in the file",
             config.backends.size(), i);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = stampede::balancer::parse_config_json(text);
  if (!config) {
    check_message(config.error().message);
    return 0;
  }
  check_weights(text, *config);
  const auto plan = stampede::balancer::prepare(*config);
  if (!plan) check_message(plan.error().message);
  return 0;
}
