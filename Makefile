# skograph — the two set-up commands of the README:
#   make demo   installs what is missing, builds, and runs `skograph demo`: report and pictures of
#               the built-in geared four-bar in out/demo
#   make test   installs what is missing, builds, and runs the whole test suite (ctest)
#   (make test-browser: analyze's index.html and view's pages in headless chromium, installed on
#   demand with chromedriver and Selenium)
BUILD_DIR  ?= build
BUILD_TYPE ?= Release
JOBS       ?= 2
CMAKE_ARGS ?=

# Debian 12 packages the build needs (found by CMake; nothing is downloaded at build time);
# python3-scipy runs the tests' SciPy mmread cross-check of `skograph export`; pybind11-dev builds
# the Python module (for Debian's /usr/bin/python3 with NumPy and SciPy), python3-dask and
# python3-distributed run its state-sweep example, mypy's stubgen and stubtest write and check
# its type stubs, python3-venv, -pip, -setuptools, -wheel and -build install it by pip and as a
# wheel (pyproject.toml); python3-pil measures the pictures' labels by the font's own metrics.
# libjs-three is three.js, which skograph view's pages inline (compiled into the program).
# libmujoco-dev (with libqhull-dev, which its CMake config names) compiles MJCF files;
# libsdformat-dev reads SDF; libtinyxml2-dev gives their element lines. libsimbody-dev is the
# peer with exact constraints the closed-chain peer tests compare with (tests/peers).
DEB_PACKAGES := cmake g++ make pkg-config \
  libboost-graph-dev libeigen3-dev libsuitesparse-dev libgraphviz-dev graphviz \
  libcairo2-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev \
  libyaml-cpp-dev libxsimd-dev liburdfdom-dev libtinyxml-dev libconsole-bridge-dev fonts-dejavu-core \
  libjs-three \
  libmujoco-dev libqhull-dev libsdformat-dev libtinyxml2-dev \
  python3-scipy python3-numpy pybind11-dev python3-dask python3-distributed libsimbody-dev mypy \
  python3-venv python3-pip python3-setuptools python3-wheel python3-build python3-pil

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
GRAPHVIZ_CONFIG := /usr/lib/x86_64-linux-gnu/graphviz/config6a

.PHONY: all deps configure build test test-browser demo bench bench-peers sanitize sanitize-thread fuzz format clean

all: build

# install_missing PACKAGES: apt-get install of those not installed yet (one shell command).
install_missing = missing=""; for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
  done; \
  if [ -n "$$missing" ]; then \
    echo "Installing Debian packages:$$missing"; \
    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
  fi

# Install only what is missing; then register Graphviz plugins (pitfalls.md: a fresh machine lacks config6a).
deps:
	@$(call install_missing,$(DEB_PACKAGES))
	@[ -f $(GRAPHVIZ_CONFIG) ] || $(SUDO) dot -c

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

# analyze's index.html in Debian's chromium, headless: the page runs its script with
# no console message and its screenshot is not blank. Not part of `make test` (chromium is large).
BROWSER_PACKAGES := chromium chromium-driver python3-selenium
test-browser: build
	@$(call install_missing,$(BROWSER_PACKAGES))
	/usr/bin/python3 tests/browser/html_report_browser.py $(abspath $(BUILD_DIR))/bin/skograph \
	  $(CURDIR) $(abspath $(BUILD_DIR))/browser_work
	/usr/bin/python3 tests/browser/view_browser.py $(abspath $(BUILD_DIR))/bin/skograph \
	  $(CURDIR) $(abspath $(BUILD_DIR))/browser_view_work

# Only the program the demo runs (a fresh machine builds in a few minutes, not the whole tree).
demo: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target skograph
	$(BUILD_DIR)/bin/skograph demo

# The Google Benchmark suite is configured on here only: make test does not compile it.
bench: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSKOGRAPH_BUILD_BENCHMARKS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS) --target skograph_bench
	$(BUILD_DIR)/bin/skograph_bench --benchmark_min_time=0.2

# skograph beside MuJoCo and DART on the same robot files (bench/peers): installs the peers'
# Debian packages, builds the separate program and runs it; not part of `make test`.
PEER_PACKAGES := libmujoco-dev libqhull-dev libdart-dev libdart-utils-urdf-dev
bench-peers: deps
	@$(call install_missing,$(PEER_PACKAGES))
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSKOGRAPH_BUILD_PEERS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS) --target skograph_peers
	$(BUILD_DIR)/bin/skograph_peers

# libFuzzer campaigns over every input kind (fuzz/README.md): clang-14 with ASan + UBSan in its own
# folder; each target starts from its seeds (examples/) and regression files
# (tests/fuzz_regressions/KIND) and runs FUZZ_SECONDS. A finding stops the run and is left in
# $(FUZZ_DIR)/findings/KIND/: fix it and add the file to tests/fuzz_regressions/KIND.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_KINDS := dot urdf yaml mjcf sdf state derivative_state loops modal
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev
fuzz: deps
	@$(call install_missing,$(FUZZ_PACKAGES))
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DSKOGRAPH_BUILD_FUZZERS=ON -DSKOGRAPH_BUILD_TESTS=OFF \
	  -DSKOGRAPH_BUILD_BENCHMARKS=OFF -DSKOGRAPH_UNITY_BUILD=OFF $(CMAKE_ARGS)
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_KINDS))
	@for kind in $(FUZZ_KINDS); do \
	  corpus=$(FUZZ_DIR)/corpus/$$kind; findings=$(FUZZ_DIR)/findings/$$kind; \
	  mkdir -p $$corpus $$findings; \
	  for seed in $$(cat $(FUZZ_DIR)/fuzz_seeds_$$kind.txt | tr ';' ' '); do \
	    if [ -d $$seed ]; then cp $$seed/* $$corpus/; else cp $$seed $$corpus/; fi; \
	  done; \
	  cp tests/fuzz_regressions/$$kind/* $$corpus/ 2>/dev/null; \
	  echo "fuzz_$$kind: $(FUZZ_SECONDS) s"; \
	  $(SANITIZER_ENV) $(FUZZ_DIR)/bin/fuzz_$$kind $$corpus -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=20 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix=$$findings/ 2> $(FUZZ_DIR)/fuzz_$$kind.log \
	    || { tail -40 $(FUZZ_DIR)/fuzz_$$kind.log; echo "fuzz_$$kind found a problem: $$findings"; exit 1; }; \
	  grep -E "stat::number_of_executed_units|cov:" $(FUZZ_DIR)/fuzz_$$kind.log | tail -2; \
	done

# The test suite built with ASan + UBSan (+ LeakSanitizer) in its own folder; must be clean. To
# keep CI within its time, the libraries are compiled four sources to a unit as in `make test`,
# the numeric suites (operators, aggregation, rigid) are left out (make test runs them; the model's
# and the program's tests run their kernels here), and the determinism tests run under
# ThreadSanitizer instead (make sanitize-thread).
SANITIZE_DIR ?= build-sanitize
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizer/lsan.supp:print_suppressions=0
# The test run leaves out stack-use-after-return detection (its fake stacks multiply the time of
# the call-heavy tests) and gives the instrumented frames, about three times larger, a stack to
# match: the hostile-input tests nest 10^5 deep and must be refused by the readers' own limits.
SANITIZE_TEST_ENV := $(subst :detect_stack_use_after_return=1,,$(SANITIZER_ENV))
# Left to `make test`: the determinism tests (ThreadSanitizer runs them) and the longest numeric
# sweeps through the program (simulations to the end, every solver on every example, the README's
# commands, the benchmark loop, every example through graph and dynamics, the embedding reports
# against dynamics, the closed chains' derivatives), which read no input the other sanitized tests
# do not.
SANITIZE_SKIP := Determinism|ARunIntoASingularConfigurationEndsWithTheStepSizeLine
SANITIZE_SKIP := $(SANITIZE_SKIP)|ReadmeCommandsRunAsWritten|DynamicsSolversAgree
SANITIZE_SKIP := $(SANITIZE_SKIP)|FastChainsAndThePlatformRunToTheEndWithinTheGoals
SANITIZE_SKIP := $(SANITIZE_SKIP)|BenchReportsAPositiveMedianForEachAlgorithm
SANITIZE_SKIP := $(SANITIZE_SKIP)|EveryExampleModelRunsThroughGraphAndDynamics
SANITIZE_SKIP := $(SANITIZE_SKIP)|AnalyzeEmbeddingCli.AgreesWithDynamicsAndTheGraphLayer
SANITIZE_SKIP := $(SANITIZE_SKIP)|AnalyzeEmbeddingCli.AggregatedDiagramLabelsAgreeWithTheEmbedding
SANITIZE_SKIP := $(SANITIZE_SKIP)|DerivativesCli.ClosedChainsInTheirIndependentCoordinates
sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSKOGRAPH_SANITIZE=ON \
	  -DSKOGRAPH_BUILD_BENCHMARKS=OFF -DSKOGRAPH_NUMERIC_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(SANITIZE_DIR) -j$(JOBS)
	cd $(SANITIZE_DIR) && ulimit -s 1048576 && \
	  $(SANITIZE_TEST_ENV) ctest --output-on-failure -j$(JOBS) -E '$(SANITIZE_SKIP)'

# The concurrency tests (tests/model/determinism_test.cpp: one model, calls interleaved on one
# workspace and on four threads, bit for bit; tests/model/batch_test.cpp: batches on the thread
# pool) built with ThreadSanitizer in its own folder, only the libraries and those tests
# (determinism_tests), at reduced counts; must be clean. CI runs it.
SANITIZE_THREAD_DIR ?= build-tsan
sanitize-thread: deps
	cmake -S . -B $(SANITIZE_THREAD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSKOGRAPH_SANITIZE_THREAD=ON \
	  -DSKOGRAPH_BUILD_BENCHMARKS=OFF -DSKOGRAPH_PYTHON=OFF -DSKOGRAPH_VIZ=OFF $(CMAKE_ARGS)
	cmake --build $(SANITIZE_THREAD_DIR) -j$(JOBS) --target determinism_tests
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  $(SANITIZE_THREAD_DIR)/bin/determinism_tests

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp')

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(SANITIZE_THREAD_DIR) $(FUZZ_DIR)
