// The one line a user sees for an error: every error line any subcommand prints goes through
// print_error_line(), which escapes the control bytes of the user input it quotes (printable());
// exit_on_exception() keeps an exception from escaping a main. No dependency beyond the standard
// library: the engines quote input with printable() too.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace stampede {

// `text` with each control byte (below 0x20, and 0x7f) written as an escape: \r, \n, \t or
// \xNN. Quoted input then stays on its line and cannot move a terminal's cursor.
std::string printable(std::string_view text);

// Prints "stampede: " + printable(message) and a newline on stderr.
void print_error_line(std::string_view message);

// Runs `body` (returning an exit code) and returns its code; an exception escaping it becomes one
// error line (its what()) and `status`: 2 around parsing and start-up, 1 around a run.
template <class Body>
int exit_on_exception(int status, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    print_error_line(e.what());
  } catch (...) {
    print_error_line("unexpected error");
  }
  return status;
}

}  // namespace stampede
