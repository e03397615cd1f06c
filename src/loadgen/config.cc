#include "loadgen/config.h"

#include <thread>

namespace stampede::loadgen {

std::uint32_t default_cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n >= 2 ? (n + 1) / 2 : 1;
}

}  // namespace stampede::loadgen
