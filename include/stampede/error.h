// stampede::Error: what the library throws for bad options and runs that cannot start.
#pragma once

#include <stdexcept>

namespace stampede {
// The public API lives in an inline namespace of its own so that it never clashes with the
// implementation's names; users write stampede::Error, stampede::load_test...
inline namespace api {

// The message is one line for a user, e.g. "--concurrency: must be at least 1".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace api
}  // namespace stampede
