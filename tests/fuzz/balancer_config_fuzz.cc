// Fuzz target: balancer::parse_config_json, the `--config FILE` reader given the file's text
// (the seam load_config_file() reads the file into), then validate() on what it accepted.
// Oracle: no crash, hang or sanitizer report; every refusal has a one-line message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "balancer/config.h"
#include "fuzz_check.h"

namespace {

void check_message(const std::string& message) {
  FUZZ_CHECK(!message.empty(), "an error without a message");
  FUZZ_CHECK(message.find('\n') == std::string::npos, "message on several lines: '%s'",
             message.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = stampede::balancer::parse_config_json(text);
  if (!config) {
    check_message(config.error().message);
    return 0;
  }
  const auto valid = stampede::balancer::validate(*config);
  if (!valid) check_message(valid.error().message);
  return 0;
}
