# The README's commands: `make run` and `make test`. Each installs what it needs by itself.
SHELL := /bin/bash
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

# Debian 12 packages needed to build and test. nghttp2 (1.52): HTTP/2 framing and HPACK. Open MPI:
# stampede-mpi, the generator under mpirun, is built when CMake finds it, and tests/integration/mpi
# runs it (docs/distributed.md). Installed with apt-get when missing (as root).
BUILD_DEPS := build-essential cmake ninja-build pkg-config node-llhttp libssl-dev libcli11-dev \
  nlohmann-json3-dev libfmt-dev liburing-dev libluajit-5.1-dev libwslay-dev libgtest-dev \
  libgmock-dev libbenchmark-dev clang-format zlib1g-dev openmpi-bin libopenmpi-dev libnghttp2-dev
# Peers the integration tests run against (real balancers and servers, on loopback only), and
# python3-yaml, which reads deploy/kubernetes for tests/integration/kubernetes; h2load and nghttp
# (nghttp2-client), HTTP/2 peers; iproute2's `ip netns` for the shards in network namespaces
# (tests/integration/netns).
# man-db: tests/integration/install runs `man -w` on the installed package's pages; zsh
# checks the syntax of the zsh completion (tests/unit/cli). prometheus: the real-Prometheus test
# of --metrics-listen and promtool's lint of every /metrics (tests/integration/prometheus, metrics).
TEST_DEPS := haproxy nginx python3-h11 python3-yaml nghttp2-client nghttp2-server iproute2 \
  man-db zsh prometheus
# node and npm for the npm test peers (tests/peers: the WebSocket package ws). Debian's nodejs and
# npm, unless a node with its own npm is installed already (Debian's npm conflicts with those).
NODE_DEPS := nodejs npm
BENCH_DEPS := wrk apache2-utils
# libFuzzer (in clang's runtime library), and llvm-profdata/llvm-cov for the coverage figures.
FUZZ_DEPS := clang libclang-rt-14-dev llvm-14
FUZZ_BUILD ?= build-fuzz
COV_BUILD ?= build-cov
FUZZ_TARGETS := request_parser response_parser ws_frames utf8 url rcfile balancer_config \
  request_builder generator_response balancer_e2e
SECONDS ?= 60

.PHONY: all build install deb compile-asan compile-tsan deps test-deps node-deps run demo test test-release test-asan test-tsan format bench clean \
  fuzz fuzz-coverage

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

# Installs the Release build under PREFIX (default /usr/local; DESTDIR is honoured): the binaries,
# libstampede.a with its headers, CMake and pkg-config files, man pages and shell completions
# (cmake/install.cmake).
# Builds what is installed, not the test suite.
PREFIX ?= /usr/local
install: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target stampede_installable
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian packages of the same files under /usr (cmake/package.cmake): the tool,
# $(BUILD)/stampede_VERSION_ARCH.deb, and the library, $(BUILD)/stampede-dev_VERSION_ARCH.deb;
# apt-get install ./$(BUILD)/stampede*.deb, apt-get remove stampede stampede-dev.
deb: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target stampede_installable
	cd $(BUILD) && cpack -G DEB
	@ls $(BUILD)/stampede_*.deb $(BUILD)/stampede-dev_*.deb

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

$(TSAN_BUILD)/build.ninja: | deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTAMPEDE_TSAN=ON

# Only the test binaries that hold multiworker tests (and the stampede binary they run).
compile-tsan: deps $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target multiworker_tests

# The tests that run two or more workers of the generator, the server or the balancer (ctest label
# multiworker), under ThreadSanitizer: any report fails its test.
test-tsan: compile-tsan test-deps
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -j $(JOBS) --timeout 600 -L multiworker $(CTEST_ARGS)

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

# Runs every libFuzzer target for SECONDS (default 60) over a copy of its corpus, one at a time
# at nice 10, in a clang tree with ASan + UBSan (docs/fuzzing.md). MERGE=1 adds what the run
# found new to the corpora in tests/fuzz/corpus. `make test` replays those corpora.
$(FUZZ_BUILD)/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSTAMPEDE_FUZZ=ON

fuzz: deps
	$(call apt_install,$(FUZZ_DEPS))
	@$(MAKE) --no-print-directory $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS:%=%_fuzz)
	bash scripts/fuzz.sh $(FUZZ_BUILD) $(SECONDS) $(FUZZ_TARGETS)

# Line coverage of the code under test reached by replaying the corpora (clang source-based
# coverage, no sanitizers): the figures of docs/fuzzing.md.
$(COV_BUILD)/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(COV_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DSTAMPEDE_COVERAGE=ON

fuzz-coverage: deps
	$(call apt_install,$(FUZZ_DEPS))
	@$(MAKE) --no-print-directory $(COV_BUILD)/build.ninja
	cmake --build $(COV_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS:%=%_fuzz)
	bash scripts/fuzz_coverage.sh $(COV_BUILD) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) $(COV_BUILD)
