#!/usr/bin/env bash
# fuzz_coverage.sh BUILD TARGET...: replays each target's corpus (tests/fuzz/corpus/TARGET) with
# the replay build of BUILD (clang, -DSTAMPEDE_COVERAGE=ON) and prints the line coverage of the
# files that target is for (llvm-profdata-14, llvm-cov-14). Profiles go to BUILD/fuzz-coverage/.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: fuzz_coverage.sh BUILD TARGET..." >&2
  exit 2
fi
build=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
llhttp=/usr/share/llhttp/llhttp.c
# The files each target is meant to cover.
files_of() {
  case $1 in
    request_parser) echo src/http/request_parser.cc src/http/head_checker.cc \
                         src/http/chunked_checker.cc src/http/llhttp_driver.cc $llhttp ;;
    response_parser) echo src/http/response_parser.cc src/http/chunked_checker.cc \
                          src/http/llhttp_driver.cc $llhttp ;;
    ws_frames) echo src/ws/session.cc ;;
    utf8) echo src/ws/utf8.cc ;;
    url) echo src/http/url.cc ;;
    rcfile) echo src/loadgen/rcfile.cc ;;
    balancer_config) echo src/balancer/config.cc ;;
    request_builder) echo src/http/writer.cc src/script/script_hooks.cc ;;
    generator_response) echo src/loadgen/connection.cc src/loadgen/connection_hooks.cc \
                             src/loadgen/worker_stats.cc src/http/response_parser.cc ;;
    balancer_e2e) echo src/balancer/proxy_session.cc src/balancer/proxy_upstream.cc \
                       src/balancer/proxy_tunnel.cc src/balancer/upstream.cc \
                       src/balancer/head_rewrite.cc src/balancer/worker.cc ;;
    *) echo "fuzz_coverage.sh: unknown target $1" >&2; exit 2 ;;
  esac
}
out=$build/fuzz-coverage
mkdir -p "$out"
for target in "$@"; do
  bin=$build/tests/fuzz/${target}_fuzz
  rm -f "$out/$target".prof*
  LLVM_PROFILE_FILE="$out/$target.profraw" "$bin" "$root/tests/fuzz/corpus/$target" >/dev/null 2>&1
  llvm-profdata-14 merge -sparse "$out/$target.profraw" -o "$out/$target.profdata"
  echo "== $target ($(ls "$root/tests/fuzz/corpus/$target" | wc -l) inputs)"
  # Columns of llvm-cov's report: file, regions (3), functions (3), lines, missed lines, cover.
  # Only the rows of the files under test, and their total.
  llvm-cov-14 report "$bin" -instr-profile="$out/$target.profdata" |
    awk -v files="$(files_of "$target")" -v root="$root/" '
      # llvm-cov drops the common prefix of the paths it lists: "/" when llhttp is among them.
      BEGIN { sub("^/", "", root); n = split(files, f, " ")
              for (i = 1; i <= n; ++i) { sub("^/", "", f[i]); want[f[i]] = 1 } }
      { name = $1; sub("^/", "", name); sub("^" root, "", name) }
      (name in want) && NF >= 10 {
        printf "  %-32s lines %5d  missed %5d  %s\n", name, $8, $9, $10
        if (name !~ /^usr\//) { lines += $8; missed += $9 } }
      END { if (lines) printf "  %-32s lines %5d  missed %5d  %.2f%%\n", "(stampede files)", lines,
                             missed, 100 * (lines - missed) / lines }'
done
