# Convenience wrapper over CMake.  `make` builds, `make test` runs the whole
# suite (installing missing Debian packages first), `make asan` runs it
# again under AddressSanitizer and UndefinedBehaviorSanitizer, `make lint`
# runs the checks CI runs on the code (layers, format, clang-tidy, gcc
# -fanalyzer; each a script under scripts/), `make tsan` the integration
# tests under ThreadSanitizer.
JOBS ?= $(shell nproc)

.PHONY: all build test asan lint tsan deps clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build build -j $(JOBS)

test: build
	@cd build && ctest --output-on-failure -j $(JOBS)

asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCG_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS)

# Every check runs even when one fails; the target fails if any did.
lint: build
	@rc=0; \
	scripts/check-layers --objects build || rc=1; \
	scripts/lint-format || rc=1; \
	JOBS=$(JOBS) scripts/lint-tidy build || rc=1; \
	JOBS=$(JOBS) scripts/lint-analyzer build-analyzer || rc=1; \
	exit $$rc

tsan: deps
	@JOBS=$(JOBS) CTEST_J=$(JOBS) scripts/lint-tsan build-tsan

clean:
	rm -rf build build-asan build-analyzer build-tsan
