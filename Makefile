# Plexus: the two commands of README.md.
#   make demo   install what is missing, build, compile the default spec, print its report
#   make test   install what is missing, build, run every test under ctest
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
DEMO_SPEC ?= examples/flexsp-gpt7b-wikipedia.plx
MLIR_DIR ?= /usr/lib/llvm-19/lib/cmake/mlir

.PHONY: all deps configure build demo test bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) -DMLIR_DIR=$(MLIR_DIR) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo needs plxc alone: not the fuzzer, the CUDA programs, the benches
# or the tests, which `make test` builds.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target plxc
	$(BUILD_DIR)/bin/plxc $(DEMO_SPEC)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/bin/bench-railx
	$(BUILD_DIR)/bin/bench-calibration bench/calibration/specs
	$(BUILD_DIR)/bin/bench-flexsp
	$(BUILD_DIR)/bin/bench-dpp
	$(BUILD_DIR)/bin/bench-serving
	$(BUILD_DIR)/bin/bench-runtime
	$(BUILD_DIR)/bin/bench-scale

clean:
	rm -rf $(BUILD_DIR)
