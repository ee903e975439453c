# tracekit — convenience wrapper around CMake and ctest.
# `make demo` and `make test` install what they need (Debian, as root).

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local
FUZZ_SECONDS ?= 60

.PHONY: all build deps test test-release test-asan demo fuzz bench install clean

all: build

deps:
	sh scripts/deps.sh build test

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite twice: an optimized build, then under ASan+UBSan.
test: deps test-release test-asan

test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

demo:
	sh scripts/deps.sh build demo
	$(MAKE) build
	sh scripts/demo.sh $(BUILD)/tracekit

fuzz:
	sh scripts/deps.sh build test fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTK_FUZZ=ON
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
