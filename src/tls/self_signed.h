// A throwaway self-signed certificate made in memory (`serve --tls-self-signed`, tests).
#pragma once

#include "core/expected.h"
#include "tls/context.h"

namespace stampede::tls {

// A P-256 key and a certificate for CN "localhost" with subject alternative names localhost,
// 127.0.0.1 and ::1, valid from one hour ago for 30 days. Each call makes a new key.
Expected<Credentials> make_self_signed();

}  // namespace stampede::tls
