// The server context of a --tls-cert/--tls-key pair, as `stampede serve` and `stampede balance`
// take it: both files read (bounded, core/input_file.h) and the context built (tls/context.h's
// make_server_context), with the one wording of their errors for both commands.
//
// Contract: called once at start-up (prepare()), any thread; no network I/O. The errors are one
// line without the "stampede: " prefix: "--tls-cert/--tls-key: <why a file cannot be read>" or
// "--tls-cert 'CERT', --tls-key 'KEY': <why the pair is refused>" (unparsable PEM, a key that
// does not match the certificate).
#pragma once

#include <string>

#include "core/expected.h"
#include "tls/context.h"

namespace stampede::tls {

Expected<ContextPtr> load_server_context(const std::string& cert_file, const std::string& key_file,
                                         ServerAlpn alpn);

}  // namespace stampede::tls
