# paimon-c top-level commands. See README.md.
#   make          build libpaimon (static + shared) and build/paimon
#   make test     install deps, build with ASan+UBSan, run unit tests, fuzz smoke, interop tests,
#                 the build checks (layers, exported symbols) and the examples against an installed prefix
#   make check-frontends  the include rule of the front ends (cli/, examples/ ...: only paimon/*.h)
#   make demo     install deps, build, run the built-in example
#   make fuzz     longer libFuzzer runs (FUZZ_SECONDS per target, default 60)
#   make bench    build and run benchmarks against the named peers, then print one table
#                 (QUICK=1: small sizes, 2 rounds, a few minutes; bench/README.md)
#   make stress   long crash/concurrency runs (PK_STRESS_SECONDS, default 600; CRASH_RUNS, default 300),
#                 the service under writers (PAIMON_SERVICE_SECONDS, default 300)
#   make wheel    the Python package paimon_c as a wheel in dist/ (abi3: every CPython >= 3.9)
#   make python-test  install paimon_c into the venv and run tests/python (part of make test)
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
SMOKE_SECONDS ?= 5
# The Python venv of the tests (VENV=DIR to use another one).
VENV ?= .venv
PY := $(VENV)/bin/python
export PM_VENV := $(abspath $(VENV))

.PHONY: all build build-asan deps-test deps test unit fuzz-build fuzz-smoke fuzz interop demo bench valgrind clean stress fixtures-check \
  check check-layers check-frontends check-symbols check-scripts test-examples python-install python-test wheel

all: build

build:
	@scripts/deps.sh build
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build -j $(JOBS)

# build/ also holds libpaimon_testing.so (every symbol visible) for the ctypes
# interop tests; the sanitizer and fuzz builds do not need it.
build-asan:
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPM_SANITIZE=ON -DPM_BENCH=OFF -DPM_TESTING_LIB=OFF >/dev/null
	@cmake --build build-asan -j $(JOBS)

deps-test:
	@scripts/deps.sh test

# The tests read the Java-written fixture tables (../shared/fixtures beside
# this checkout, or $$PAIMON_FIXTURES): say so plainly when they are missing.
FIXTURES ?= $(if $(PAIMON_FIXTURES),$(PAIMON_FIXTURES),$(CURDIR)/../shared/fixtures)
fixtures-check:
	@test -d "$(FIXTURES)/java-written" || { echo "make: Java-written fixtures not found at $(FIXTURES)/java-written;" \
	  "check out ../shared beside this repository or set PAIMON_FIXTURES=DIR" >&2; exit 1; }

unit: fixtures-check deps-test build-asan
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

fuzz-build: deps-test
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPM_FUZZ=ON -DPM_TESTING_LIB=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

fuzz-smoke: fuzz-build
	@scripts/fuzz.sh build-fuzz/fuzz $(SMOKE_SECONDS)

fuzz: fuzz-build
	@scripts/fuzz.sh build-fuzz/fuzz $(FUZZ_SECONDS)

interop: fixtures-check deps-test build
	@PAIMON_BIN=$(CURDIR)/build/paimon PAIMON_LIB=$(CURDIR)/build/libpaimon_testing.so \
	  $(PY) -m pytest -q tests/interop tests/crash

# The Python package (python/): scikit-build-core builds the extension from
# this CMake project (incrementally, in python/build/) and installs it with
# the package's modules into the venv; the tests then import it from there.
python-install: deps-test
	@$(PY) -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps ./python

python-test: python-install
	@PAIMON_FIXTURES=$(FIXTURES) $(PY) -m pytest -q tests/python

wheel: deps-test
	@$(PY) -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps ./python -w dist
	@ls dist/paimon_c-*.whl

stress: deps-test build
	@PK_STRESS_SECONDS=$${PK_STRESS_SECONDS:-600} CRASH_RUNS=$${CRASH_RUNS:-300} \
	  PAIMON_BIN=$(CURDIR)/build/paimon $(PY) -m pytest -q tests/crash
	@PAIMON_SERVICE_SECONDS=$${PAIMON_SERVICE_SECONDS:-300} PAIMON_BIN=$(CURDIR)/build/paimon \
	  PAIMON_LIB=$(CURDIR)/build/libpaimon_testing.so $(PY) -m pytest -q tests/interop/test_service.py -k keeps

valgrind: deps-test build
	@scripts/valgrind.sh build

# Build checks: includes follow docs/architecture.md's layers (src/,
# include/, and the front ends, which include only paimon/*.h),
# libpaimon exports exactly the PM_API declarations, the examples build and
# run against an installed prefix, and the checks catch what they should.
check-layers:
	@python3 scripts/check_layers.py

check-frontends:
	@python3 scripts/check_layers.py --frontends

check-symbols: build
	@python3 scripts/check_symbols.py build

check-scripts: deps-test build
	@$(PY) -m pytest -q tests/scripts

test-examples: build
	@scripts/test_examples.sh build

check: check-layers check-frontends check-symbols check-scripts test-examples

test: unit fuzz-smoke interop python-test check

demo: build
	@scripts/demo.sh

bench: deps-test build
	@QUICK=$(or $(QUICK),0) scripts/bench.sh

clean:
	rm -rf build build-asan build-fuzz python/build dist
