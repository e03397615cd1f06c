// Fuzz target: loadgen::parse_loadtestrc, the reader of .loadtestrc given its text (the seam
// read_loadtestrc() reads the file into). Oracle: no crash, hang or sanitizer report; every
// refusal has a message naming the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "loadgen/rcfile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto options = stampede::loadgen::parse_loadtestrc(text);
  if (!options) {
    const auto& message = options.error().message;
    FUZZ_CHECK(message.find(stampede::loadgen::kRcFileName) != std::string::npos,
               "message '%s' does not name the file", message.c_str());
  }
  return 0;
}
