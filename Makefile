# Top-level entry points.  `make all`: install what is needed, regenerate
# generated/, build, verify every kernel, print the benchmark table.
# `make test`: the test suite (drift check, pytest, C verification, constant-time check).

PYTHON ?= python3
BUILD  := build
APT_PACKAGES := build-essential libsimde-dev libssl-dev libgcrypt20-dev libipsec-mb-dev \
                valgrind llvm clang clang-format python3-pip

.PHONY: all deps generate build verify bench test ctcheck round-floor clean

all: deps generate build verify bench

# Installs system packages and the Python package once; the stamp records it.
deps: $(BUILD)/.deps
$(BUILD)/.deps:
	@mkdir -p $(BUILD)
	@if command -v apt-get >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi
	$(PYTHON) -m pip install -q -e '.[test]'
	@touch $@

generate: deps
	gen

build: deps
	$(MAKE) -C harness/c BUILD=$(abspath $(BUILD))

# Every cipher's known answers and differential tests (SM4, ZUC, uBlock).
verify: build
	$(BUILD)/verify

# uBlock kernels the model covers: every strategy's AVX-512 and AVX2 kernel
# that generated/ holds (ublock_<strategy>_<target>.c -> <strategy>_<target>).
UBLOCK_MCA := $(sort $(patsubst generated/src/ublock_%.c,%,$(wildcard \
                generated/src/ublock_*_avx512.c generated/src/ublock_*_avx2.c)))

# The llvm-mca model first: bench's report then includes the modelled rows.
# bench times every cipher (SM4, ZUC, uBlock) in one run.
bench: build
	$(PYTHON) harness/mca_model.py --json $(BUILD)/mca.json byteslice_avx512_gfni byteslice_avx2_gfni byteslice_avx2_vaes lanes_avx512_gfni lanesx2_avx2_vaes $(UBLOCK_MCA)
	$(BUILD)/bench --json $(BUILD)/bench.json

# uBlock-128/128's round hand-scheduled, with and without its memory traffic, and
# the generated CTR kernel with and without its rounds: the floor under its CTR
# speed on this CPU (x86-64 with AVX2; the README's uBlock section).
round-floor: deps
	$(PYTHON) harness/ublock_round_floor.py --repeat 5

ctcheck: build
	$(MAKE) -C harness/c BUILD=$(abspath $(BUILD)) ctcheck

test: deps
	gen check
	$(PYTHON) -m pytest -q
	$(MAKE) build
	$(BUILD)/verify
	$(MAKE) ctcheck

clean:
	rm -rf $(BUILD)
