// What the TLS integration tests share: a stampede serve in-process (TLS with a throwaway
// certificate, or plain), a generator Config for one core that accepts that certificate, and a run
// that must succeed (support/in_process.h's must_run), once per TLS version.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "loadgen/config.h"
#include "loadgen/runner.h"
#include "server/server.h"
#include "support/in_process.h"

namespace stampede::testing {

// A one-core server on a free loopback port: TLS with --tls-self-signed when `tls`, and every
// request answered with error_status for `percent` % of them when error_status != 0. Null (and a
// test failure) when it cannot start.
std::unique_ptr<server::Server> start_tls_server(bool tls, int error_status = 0,
                                                 double percent = 0);

// `requests` requests (or messages) to `url` over `clients` connections on one core, 10 s timeout,
// certificates not verified (the servers' are self-signed).
loadgen::Config tls_client_config(std::string url, std::uint64_t requests, std::uint32_t clients);

// Runs `config` once per TLS version (its secure_protocol TLSv1_2_method, then TLSv1_3_method),
// each run required to start (must_run), and hands each result to `check` with the version.
void run_each_tls_version(
    loadgen::Config config,
    const std::function<void(const loadgen::RunResult&, const char* protocol)>& check);

// The first error code of a run ("" when none): context for a failed expectation.
std::string first_error(const loadgen::RunResult& r);

}  // namespace stampede::testing
