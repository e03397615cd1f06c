// FUZZ_CHECK: the oracle of a fuzz target. A broken invariant prints the condition and a
// message to stderr and aborts, which libFuzzer reports as a crash (and saves the input) and
// the corpus replay reports as a failed test. Not compiled out in any build.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                                            \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                 \
      std::fprintf(stderr, "\n");                                                        \
      std::abort();                                                                      \
    }                                                                                    \
  } while (false)
