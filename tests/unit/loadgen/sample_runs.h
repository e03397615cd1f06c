// Hand-made RunResults for the report tests: the header fields every report prints, an --http2
// run, and the schedule of a paced (--rps) run. The tests fill in the figures they check; text_of
// gives the text report of one.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "loadgen/report/text.h"
#include "loadgen/runner.h"

namespace stampede::loadgen::samples {

// A finished run against http://127.0.0.1:8080/ over `clients` kept-alive connections: `requests`
// requests, `errors` of them failed, in `elapsed_ns`.
inline RunResult finished_run(std::uint32_t clients, std::uint64_t requests, std::uint64_t errors,
                              std::int64_t elapsed_ns) {
  RunResult r;
  r.url = "http://127.0.0.1:8080/";
  r.clients = clients;
  r.keep_alive = true;
  r.total_requests = requests;
  r.total_errors = errors;
  r.elapsed_ns = elapsed_ns;
  return r;
}

// An --http2 --streams `streams` run against http://h/ on one worker over 2 connections:
// `requests` requests, each answered 200 in 1 ms, in 100 ms.
inline RunResult http2_run(std::uint64_t requests, std::uint32_t streams) {
  RunResult r;
  r.url = "http://h/";
  r.cores = 1;
  r.concurrency = 2;
  r.clients = 2;
  r.max_requests = requests;
  r.total_requests = requests;
  r.elapsed_ns = 100'000'000;
  r.latency.record_n(1'000'000, requests);
  r.status_counts = {{200, requests}};
  r.http2 = true;
  r.streams = streams;
  return r;
}

// Makes `r` a paced run that held `target_rps`: `requests` scheduled and sent over
// `send_window_ns`. Returns its RateResult for the test's latencies and lags.
inline RateResult& pace(RunResult& r, double target_rps, std::uint64_t requests,
                        std::int64_t send_window_ns) {
  RateResult& rate = r.rate.emplace();
  rate.target_rps = target_rps;
  rate.scheduled = requests;
  rate.sent = requests;
  rate.send_window_ns = send_window_ns;
  return rate;
}

// The text report of `r`, as `stampede` prints it.
inline std::string text_of(const RunResult& r) {
  std::ostringstream out;
  write_text_report(r, out);
  return out.str();
}

}  // namespace stampede::loadgen::samples
