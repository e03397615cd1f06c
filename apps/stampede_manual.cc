// stampede_manual OUT_DIR PROSE_DIR: the build's writer of the man pages and the shell
// completions (cli/manual.h), from the options every subcommand declares for its --help. Not
// installed: its output is.
#include <cstdio>

#include "cli/manual.h"
#include "core/error_line.h"
#include "loadgen/request.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: stampede_manual OUT_DIR PROSE_DIR\n", stderr);
    return 2;
  }
  return stampede::exit_on_exception(1, [&] {
    const auto written = stampede::write_manuals(argv[1], argv[2], stampede::loadgen::version());
    if (written) return 0;
    stampede::print_error_line(written.error().message);
    return 1;
  });
}
