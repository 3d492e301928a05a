# skograph — the two set-up commands of the README:
#   make demo   installs what is missing, builds, and runs `skograph demo`: report and pictures of
#               the built-in geared four-bar in out/demo
#   make test   installs what is missing, builds, and runs the whole test suite (ctest)
BUILD_DIR  ?= build
BUILD_TYPE ?= Release
JOBS       ?= 2
CMAKE_ARGS ?=

# Debian 12 packages the build needs (found by CMake; nothing is downloaded at build time);
# python3-scipy runs the tests' SciPy mmread cross-check of `skograph export`.
# libmujoco-dev (with libqhull-dev, which its CMake config names) compiles MJCF files;
# libsdformat-dev reads SDF; libtinyxml2-dev gives their element lines.
DEB_PACKAGES := cmake g++ make pkg-config \
  libboost-graph-dev libeigen3-dev libsuitesparse-dev libgraphviz-dev graphviz \
  libcairo2-dev libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev \
  libyaml-cpp-dev liburdfdom-dev libtinyxml-dev libconsole-bridge-dev fonts-dejavu-core \
  libmujoco-dev libqhull-dev libsdformat-dev libtinyxml2-dev \
  python3-scipy

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
GRAPHVIZ_CONFIG := /usr/lib/x86_64-linux-gnu/graphviz/config6a

.PHONY: all deps configure build test demo bench bench-peers format clean

all: build

# Install only what is missing; then register Graphviz plugins (pitfalls.md: a fresh machine lacks config6a).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@[ -f $(GRAPHVIZ_CONFIG) ] || $(SUDO) dot -c

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

demo: build
	$(BUILD_DIR)/bin/skograph demo

bench: build
	$(BUILD_DIR)/bin/skograph_bench --benchmark_min_time=0.2

# skograph beside MuJoCo and DART on the same robot files (bench/peers): installs the peers'
# Debian packages, builds the separate program and runs it; not part of `make test`.
PEER_PACKAGES := libmujoco-dev libqhull-dev libdart-dev libdart-utils-urdf-dev
bench-peers: deps
	@missing=""; for p in $(PEER_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSKOGRAPH_BUILD_PEERS=ON $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS) --target skograph_peers
	$(BUILD_DIR)/bin/skograph_peers

format:
	clang-format -i $$(git ls-files '*.hpp' '*.cpp')

clean:
	rm -rf $(BUILD_DIR)
