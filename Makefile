# tracekit — convenience wrapper around CMake and ctest.
# `make demo` and `make test` install what they need (Debian, as root).

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local
FUZZ_SECONDS ?= 60
# make build's TK_TESTS: AUTO builds the tests when cmocka is installed.
TESTS      ?= AUTO
TEST_FULL  ?= OFF
# extra cmake configure options, e.g. CMAKE_ARGS=-DCMAKE_DISABLE_FIND_PACKAGE_cmocka=ON
CMAKE_ARGS ?=

.PHONY: all build deps test test-release test-asan test-tsan test-full demo fuzz bench install clean

all: build

deps:
	sh scripts/deps.sh build test

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
		-DTK_TESTS=$(TESTS) $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite twice: an optimized build, then under ASan+UBSan.
# TK_TESTS=ON: configuring fails without cmocka, and ctest fails when it
# finds no tests, rather than passing on an empty suite. TK_WERROR=ON:
# warnings fail developer and CI builds (make build leaves it as cached,
# OFF in a new build directory, so users' newer compilers cannot break it).
test: deps test-release test-asan

# Every export test in both builds (tests/CMakeLists.txt says what make
# test samples): about three times as long.
test-full:
	$(MAKE) test TEST_FULL=ON

test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTK_TESTS=ON -DTK_WERROR=ON \
		-DTK_TEST_FULL=$(TEST_FULL) $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_SANITIZE=ON -DTK_TESTS=ON -DTK_WERROR=ON \
		-DTK_TEST_FULL=$(TEST_FULL) $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure --no-tests=error -j $(JOBS)

# The tests of threaded code (ctest label "tsan": tests/CMakeLists.txt says
# how to add one) under ThreadSanitizer: a third build, with clang, not
# part of make test (CI runs it after). A report fails the test that made
# it (halt_on_error); there are no suppressions: fix the race. clang links
# with ld; CMAKE_LINKER pinned to it, or CMake records lld where installed
# (and scripts/check_deps.sh, given this build, would ask for it).
TSAN_BUILD ?= build-tsan
test-tsan:
	sh scripts/deps.sh build test
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_LINKER=/usr/bin/ld \
		-DCMAKE_BUILD_TYPE=Debug \
		-DTK_TESTS=ON -DTK_WERROR=ON "-DCMAKE_C_FLAGS=-fsanitize=thread -O1 -g" \
		-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
		-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread $(CMAKE_ARGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan-tests
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 \
		ctest --output-on-failure --no-tests=error -L tsan -j $(JOBS)

# The tool without the tests (TESTS=OFF). The build's output goes to a log
# (its tail is shown if it fails): the screen is for scripts/demo.sh.
demo:
	@sh scripts/deps.sh build demo
	@mkdir -p $(BUILD)
	@printf 'demo: building tracekit in %s/ (output in %s) ... ' $(BUILD) $(BUILD)/demo-build.log
	@start=$$(date +%s); \
	if $(MAKE) --no-print-directory build TESTS=OFF >$(BUILD)/demo-build.log 2>&1; then \
		echo "done in $$(($$(date +%s) - start)) s"; \
	else \
		echo failed; tail -n 30 $(BUILD)/demo-build.log >&2; \
		echo "demo: the build failed; its whole output: $(BUILD)/demo-build.log" >&2; exit 1; \
	fi
	@sh scripts/demo.sh $(BUILD)/tracekit

fuzz:
	sh scripts/deps.sh build test fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_FUZZ=ON -DTK_WERROR=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench:
	sh scripts/deps.sh build bench
	$(MAKE) build
	sh bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
