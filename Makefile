# The README's commands: `make run` and `make test`. Each installs what it needs by itself.
SHELL := /bin/bash
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

# Debian 12 packages needed to build and test. Installed with apt-get when missing (as root).
BUILD_DEPS := build-essential cmake ninja-build pkg-config node-llhttp libssl-dev libcli11-dev \
  nlohmann-json3-dev libfmt-dev liburing-dev libluajit-5.1-dev libwslay-dev libgtest-dev \
  libgmock-dev libbenchmark-dev clang-format
# Peers the integration tests run against (real balancers and servers, on loopback only).
TEST_DEPS := haproxy nginx python3-h11
# node and npm for the npm test peers (tests/peers: the WebSocket package ws). Debian's nodejs and
# npm, unless a node with its own npm is installed already (Debian's npm conflicts with those).
NODE_DEPS := nodejs npm
BENCH_DEPS := wrk apache2-utils

.PHONY: all build compile-asan deps test-deps node-deps run demo test test-release test-asan format bench clean

all: build

# Installs whatever of $(1) dpkg does not report as installed.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then echo "error: missing packages ($$missing) and not root" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt_install,$(BUILD_DEPS))

test-deps: deps
	$(call apt_install,$(TEST_DEPS))
	@if ! command -v npm >/dev/null || ! command -v node >/dev/null; then $(MAKE) --no-print-directory node-deps; fi
	@systemctl disable --now nginx haproxy >/dev/null 2>&1 || true
	@if [ -f tests/peers/package.json ] && [ ! -d tests/peers/node_modules ]; then cd tests/peers && npm ci --silent --no-audit --no-fund; fi

node-deps:
	$(call apt_install,$(NODE_DEPS))

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_SANITIZE=ON

test-release: build test-deps
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 300 $(CTEST_ARGS)

compile-asan: deps $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: compile-asan test-deps
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 600 -E format_check $(CTEST_ARGS)

# The whole suite: Release, then again under AddressSanitizer + UndefinedBehaviorSanitizer. The
# sanitizer tree compiles while the Release tests run, at nice 19: those tests mostly wait on
# sockets and timers, so the compile takes the CPU they leave idle and yields it when they want it.
# Its output follows the Release tests' (scripts/overlap.sh).
test: build test-deps $(ASAN_BUILD)/build.ninja
	@bash scripts/overlap.sh $(ASAN_BUILD)/compile.log nice -n 19 $(MAKE) --no-print-directory compile-asan \
	  -- $(MAKE) --no-print-directory test-release
	@$(MAKE) --no-print-directory test-asan

# Builds, then runs the load-balancing lab with its defaults: three self-naming instances behind
# stampede's balancer, every scenario of the guide, findings in plain words (under 60 s).
run: build
	$(BUILD)/stampede lab

# Builds, starts the built-in test server on a free loopback port and load-tests it for 10 s.
demo: build
	@bash scripts/demo.sh $(BUILD)/stampede

format:
	find src include apps tests examples bench -name '*.cc' -o -name '*.h' | xargs clang-format -i

bench: build
	$(call apt_install,$(BENCH_DEPS) nginx haproxy)
	bash bench/run.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
