// Replaces the global operator new and delete of the test binary that includes this header, to
// count allocations (the steady-state "no allocation per request" tests). Include it from exactly
// one file per test binary: the definitions are the program's replacement functions.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace stampede::test {
// Calls to operator new so far, all threads.
inline std::atomic<long> allocations{0};
}  // namespace stampede::test

void* operator new(std::size_t size) {
  stampede::test::allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC sees malloc's pointer reach free through an inlined delete and warns of a mismatch; the
// pair is matched here by construction.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop
