// stampede's public API: load tests (load_test.h), their callbacks (callbacks.h) and the test
// server (server.h). Link stampede::stampede (CMake) or `pkg-config --libs stampede`.
#pragma once

#include "stampede/callbacks.h"
#include "stampede/error.h"
#include "stampede/load_test.h"
#include "stampede/server.h"
