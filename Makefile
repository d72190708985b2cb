# Top-level entry points.
#
#   make all    set up, regenerate generated/, build, verify every kernel, model
#               the kernels with llvm-mca, benchmark, and write the report
#               (build/bench.md and build/bench.png)
#   make test   every stage of `make all` (bench in its short form, `gen check`
#               instead of `gen`), the AArch64 check (verify-aarch64), the
#               assembly checks, pytest, the constant-time check, the
#               sanitizer build and short fuzz runs, side by side on the
#               cores (see `test:` below): what CI runs; it fails if any
#               stage fails
#   make provider
#               the OpenSSL 3 provider, build/lib/provider/kcrypt.so
#               (generated/'s `make provider`; docs/consumers.md)
#   make linux-boot-check
#               the Linux modules (generated/linux/) built and booted under
#               QEMU: x86-64 on Debian's kernel, arm64 on one built from
#               linux-source-6.1; /proc/crypto's self-tests and tcrypt
#               (in make test)
#   make libgcrypt-check
#               Debian 12's libgcrypt 1.10.1 built as it is and with our
#               assembly as a further SM4 bulk path: its make check on ours,
#               bench-slope on both (about 15 minutes; not in make test)
#   make verify-aarch64
#               the harness cross-built for AArch64, verify and the ABI check
#               run under qemu-user (see the target)
#
# Both run on a stock Debian 12, whose python3 is EXTERNALLY-MANAGED (PEP 668):
# the Python side lives in a virtual environment that `deps` creates (.venv),
# and every recipe runs with .venv/bin first on PATH, so `python3`, `gen` and
# `pytest` below (and the `python3` that bench starts for its report) are the
# environment's.  Only apt-get needs root; it is run through sudo otherwise.

# The interpreter that creates the environment (Debian's python3 needs the
# python3-venv package, which deps installs first).
PYTHON ?= python3
VENV   := .venv
BUILD  := build
APT_PACKAGES := build-essential libsimde-dev libssl-dev libgcrypt20-dev libipsec-mb-dev \
                valgrind llvm llvm-19 clang clang-format python3-venv \
                gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user linux-source-6.1 \
                linux-headers-amd64 flex bison bc libclang-rt-14-dev golang-go cmake \
                linux-image-amd64 qemu-system-x86 qemu-system-arm cpio

export PATH := $(abspath $(VENV))/bin:$(PATH)

# bench's options: `make bench BENCH_FLAGS=--quick` is the short form.
BENCH_FLAGS ?=

.PHONY: all deps generate build build-aarch64 verify verify-aarch64 model bench report test ctcheck abi-check linux-asm-check round-floor \
        peer-gmsm peer-libgcrypt provider libgcrypt-check linux-boot-check clean

all: deps generate build verify model bench report

# System packages, then the environment with the generator and its test
# dependencies (editable, so `gen` runs this checkout).  The stamp is redone
# when pyproject.toml changes.
deps: $(VENV)/.deps
$(VENV)/.deps: pyproject.toml
	@if command -v apt-get >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "deps: apt-get install $(APT_PACKAGES)"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	else \
	  echo "deps: no apt-get here; install the equivalents of: $(APT_PACKAGES)"; \
	fi
	[ -x $(VENV)/bin/python3 ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python3 -m pip install -q --upgrade pip
	$(VENV)/bin/python3 -m pip install -q -e '.[test]'
	@touch $@

generate: deps
	gen

build: deps
	$(MAKE) -C harness/c BUILD=$(abspath $(BUILD))

# Every cipher's known answers and differential tests (SM4, ZUC, uBlock).
verify: build
	$(BUILD)/verify

# The OpenSSL 3 provider over the native library (built position-independent
# in $(BUILD)/lib/pic), for Debian's openssl and libcrypto; tests/test_provider.py
# runs it through them.
provider: deps
	$(MAKE) -C generated BUILD=$(abspath $(BUILD))/lib provider

# The SM4 modules booted: harness/linux_module.py builds generated/linux/<arch>/
# with the assembly it names (x86-64 against linux-headers-amd64; arm64 against
# a tinyconfig kernel built from linux-source-6.1, about 2 minutes, cached),
# boots the kernel under QEMU (TCG, -cpu max) with an initramfs of its own, and
# checks /proc/crypto's selftest lines, AF_ALG vectors and tcrypt; the consoles are
# kept in $(BUILD)/linux-boot/boot.log and $(BUILD)/linux-boot-aarch64/boot.log.
linux-boot-check: deps
	python3 harness/linux_module.py --arch x86_64 --work $(abspath $(BUILD))/linux-boot
	python3 harness/linux_module.py --arch aarch64 --work $(abspath $(BUILD))/linux-boot-aarch64

# libgcrypt rebuilt with our assembly (harness/consumers/libgcrypt_rebuild.py):
# Debian's source package fetched by apt-get into $(BUILD)/libgcrypt-rebuild,
# built twice, make check on ours, bench-slope's SM4 rows of both in
# $(BUILD)/libgcrypt-rebuild/bench-slope.md.
libgcrypt-check: deps
	python3 harness/consumers/libgcrypt_rebuild.py --work $(abspath $(BUILD))/libgcrypt-rebuild

# The AArch64 kernels, checked on this machine: the harness cross-built with
# aarch64-linux-gnu-gcc into $(BUILD)/aarch64 (statically linked; no peer
# libraries and no SIMDe builds there, see harness/c/Makefile), then run by
# qemu-user.  kcrypt --list-impls on three CPU models shows the dispatch
# ("max" has every feature; Neoverse N1 and Cortex-A53 lack SM4 and SHA3);
# on "max" every implementation must be native, and verify must pass every
# one of them with nothing skipped: every vector and every systematic
# differential case against the scalar reference.  AARCH64_VERIFY_FLAGS is
# passed to verify: by default --quick (100-200 random cases per kernel
# instead of 1000-3000) and --iterated serial (the 1,000,000-fold SM4 and
# uBlock vectors, serial work, on the kernel the library runs serial work on,
# every other kernel running the same vectors un-iterated: they had been most
# of the 14 minutes this stage took under qemu).  Then the ABI check
# (harness/abi_check.py) of every AArch64 assembly twin's entry point.
AARCH64_CC           ?= aarch64-linux-gnu-gcc
AARCH64_QEMU         ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
AARCH64_BUILD        := $(abspath $(BUILD))/aarch64
AARCH64_VERIFY_FLAGS ?= --quick --iterated serial

# The harness cross-built for AArch64 (what verify-aarch64 runs, and pytest's
# AArch64 tests).
build-aarch64: deps
	@for tool in $(AARCH64_CC) $(firstword $(AARCH64_QEMU)); do \
	  command -v $$tool >/dev/null 2>&1 || { \
	    echo "verify-aarch64: $$tool not found: make deps installs it" \
	         "(gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user)" >&2; exit 1; }; \
	done
	$(MAKE) -C harness/c BUILD=$(AARCH64_BUILD) CC=$(AARCH64_CC)

verify-aarch64: build-aarch64
	@for cpu in max neoverse-n1 cortex-a53; do \
	  $(AARCH64_QEMU) -cpu $$cpu $(AARCH64_BUILD)/kcrypt --list-impls \
	    > $(AARCH64_BUILD)/impls-$$cpu.txt || exit 1; \
	done
	@echo "verify-aarch64: kcrypt --list-impls on qemu -cpu max:"
	@sed 's/^/  /' $(AARCH64_BUILD)/impls-max.txt
	@if grep -v -e ' native$$' -e '^dispatch ' $(AARCH64_BUILD)/impls-max.txt; then \
	  echo "verify-aarch64: FAIL: the implementations above are not native on -cpu max" >&2; exit 1; \
	fi
	@for cpu in neoverse-n1 cortex-a53; do \
	  echo "verify-aarch64: on qemu -cpu $$cpu, all native but:"; \
	  grep -v -e ' native$$' -e '^dispatch ' $(AARCH64_BUILD)/impls-$$cpu.txt | sed 's/^/  /'; \
	done
	@echo "verify-aarch64: verify $(AARCH64_VERIFY_FLAGS) on qemu -cpu max, SM4 and ZUC beside uBlock" \
	     "(two processes; SM4's and ZUC's output follows uBlock's)"
	@rm -f $(AARCH64_BUILD)/verify-*.rc
	@for cipher in sm4 zuc; do \
	   $(AARCH64_QEMU) -cpu max $(AARCH64_BUILD)/verify $(AARCH64_VERIFY_FLAGS) --cipher $$cipher \
	     > $(AARCH64_BUILD)/verify-$$cipher.txt 2>&1; echo $$? > $(AARCH64_BUILD)/verify-$$cipher.rc; \
	 done & \
	 { $(AARCH64_QEMU) -cpu max $(AARCH64_BUILD)/verify $(AARCH64_VERIFY_FLAGS) --cipher ublock 2>&1; \
	   echo $$? > $(AARCH64_BUILD)/verify-ublock.rc; } | tee $(AARCH64_BUILD)/verify-ublock.txt; \
	 wait
	@cat $(AARCH64_BUILD)/verify-sm4.txt $(AARCH64_BUILD)/verify-zuc.txt
	@cat $(AARCH64_BUILD)/verify-sm4.txt $(AARCH64_BUILD)/verify-zuc.txt $(AARCH64_BUILD)/verify-ublock.txt \
	  > $(AARCH64_BUILD)/verify.txt
	@if [ "$$(cat $(AARCH64_BUILD)/verify-*.rc | sort -u)" != 0 ]; then \
	  echo "verify-aarch64: FAIL: verify exited with status $$(cat $(AARCH64_BUILD)/verify-*.rc | tr '\n' ' ')" \
	       "(sm4, ublock, zuc)" >&2; \
	  exit 1; \
	elif grep '^SKIP' $(AARCH64_BUILD)/verify.txt; then \
	  echo "verify-aarch64: FAIL: verify skipped the implementations above on -cpu max" >&2; exit 1; \
	fi
	@echo "verify-aarch64: the ABI check of every AArch64 assembly entry point on qemu -cpu max"
	python3 harness/abi_check.py --arch aarch64 --cc $(AARCH64_CC) --lib $(AARCH64_BUILD)/lib/libkcrypt.a \
	  --work $(AARCH64_BUILD)/abi --run "$(AARCH64_QEMU) -cpu max"

# The llvm-mca model of every C kernel generated/targets.json lists (every
# cipher, both architectures; an _asm twin's C file holds no kernel loop), each
# on its architecture's CPU models there (x86: Zen 3, Zen 4, Ice Lake server;
# AArch64: Neoverse N1, N2 and V1), with the Linux kernel's AArch64 SM4 as
# peers in the same run (harness/linux_peers.py, from linux-source-6.1).
model: deps
	@mkdir -p $(BUILD)
	python3 harness/mca_model.py --all --linux-peers --work $(BUILD)/linux-peers --json $(BUILD)/mca.json

# Every cipher (SM4, ZUC, uBlock) and every peer in one run; the report is a
# stage of its own so that its failure fails the make.
bench: build
	$(BUILD)/bench $(BENCH_FLAGS) --no-report --json $(BUILD)/bench.json

# The markdown tables (with the modelled rows of `model`) and the plot.
report: deps
	python3 harness/report.py $(BUILD)/bench.json --md $(BUILD)/bench.md \
	  --png $(BUILD)/bench.png --mca $(BUILD)/mca.json
	@test -s $(BUILD)/bench.png || { echo "report: no plot written ($(BUILD)/bench.png)"; exit 1; }

# uBlock-128/128's round hand-scheduled, with and without its memory traffic, and
# the generated CTR kernel with and without its rounds: the floor under its CTR
# speed on this CPU (x86-64 with AVX2; docs/performance/ublock.md).
round-floor: deps
	python3 harness/ublock_round_floor.py --repeat 5

# Every x86-64 assembly kernel's entry point through a trampoline: callee-saved
# registers restored, direction flag clear, no upper YMM state left dirty.
abi-check: build
	python3 harness/abi_check.py --lib $(BUILD)/lib/libkcrypt.a --work $(BUILD)/abi

# The Linux-dialect SM4 and ZUC assembly as an out-of-tree module: x86-64
# against Debian's linux-headers-amd64, then objtool --stackval --retpoline
# --rethunk --sls; AArch64 against an arm64 tree prepared from linux-source-6.1
# (kept in $(BUILD)/linux-arm64, about 1.5 GB), with no use of x18.
linux-asm-check: deps
	python3 harness/linux_asm_check.py --work $(BUILD)/linux-asm
	python3 harness/linux_asm_check.py --arch aarch64 --work $(BUILD)/linux-asm-aarch64 \
	  --arm64-tree $(BUILD)/linux-arm64

ctcheck: build
	$(MAKE) -C harness/c BUILD=$(abspath $(BUILD)) ctcheck

# The gmsm peer (harness/peers/gmsm: SM4 GCM, CCM, XTS, CMAC, CTR and CBC as
# github.com/emmansun/gmsm v0.44.0 computes them, for tests/test_gmsm_peer.py and
# bench) as $(BUILD)/peers/gmsm.  gmsm needs Go 1.25; Debian 12's golang-go (1.19,
# from deps) fetches that toolchain as a Go module (see the script).
peer-gmsm: deps
	harness/peers/gmsm/build.sh $(abspath $(BUILD))/peers/gmsm

# libgcrypt 1.11 or newer (the strongest x86 SM4 peer; Debian 12 has 1.10.1) as
# $(BUILD)/peers/libgcrypt, from the source trees LIBGCRYPT_SRC and
# LIBGPG_ERROR_SRC (default build/peers/src/libgcrypt and .../libgpg-error):
# nothing is downloaded (see the script).  bench runs against it through
# harness/peers/with_libgcrypt.sh.
peer-libgcrypt:
	OUT=$(abspath $(BUILD))/peers/libgcrypt harness/peers/build_libgcrypt.sh

# The drift check beside the two builds, then every other stage, side by side on
# the cores (harness/stages.py): longest first, each stage's output in
# $(BUILD)/stages/<stage>.log, a line when one starts or ends and every two
# minutes what still runs, a failed stage's log tail, and the time table in
# $(BUILD)/stages.md.  It fails if any stage fails.  The stages:
#   pytest           the suites (tests/), but for tests/test_ctcheck.py
#   verify-aarch64   the AArch64 kernels under qemu (above)
#   verify           every kernel, native and SIMDe-emulated; the
#                    1,000,000-fold vectors on every native kernel (the
#                    SIMDe builds run them un-iterated: --iterated native)
#   sanitize         ASan and UBSan (below)
#   ctcheck          the constant-time check under valgrind (make ctcheck,
#                    run and its summary checked by tests/test_ctcheck.py)
#   bench-report     bench --quick, the llvm-mca model and the report
#                    (bench's figures are not kept: other stages share the
#                    cores; `make all` runs the full bench alone)
#   linux-asm-check, abi-check   the assembly checks
#   linux-boot-check the SM4 module booted under QEMU (above)
#   fuzz-quick       each libFuzzer target briefly (below)
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps
	python3 harness/stages.py --jobs $(TEST_JOBS) --logs $(BUILD)/stages --table $(BUILD)/stages.md \
	  "gen-check=gen check" "build=$(MAKE) build" "build-aarch64=$(MAKE) build-aarch64" --then \
	  "pytest=python3 -m pytest -q --ignore=tests/test_ctcheck.py" \
	  "verify-aarch64=$(MAKE) verify-aarch64" \
	  "verify=$(BUILD)/verify --iterated native" \
	  "sanitize=$(MAKE) sanitize" \
	  "ctcheck=python3 -m pytest -q tests/test_ctcheck.py" \
	  "bench-report=$(MAKE) bench BENCH_FLAGS=--quick && $(MAKE) model && $(MAKE) report" \
	  "linux-asm-check=$(MAKE) linux-asm-check" \
	  "linux-boot-check=$(MAKE) linux-boot-check" \
	  "abi-check=$(MAKE) abi-check" \
	  "fuzz-quick=$(MAKE) fuzz-quick"

clean:
	rm -rf $(BUILD)

# ---- Sanitizers and fuzzing (harness/fuzz/; docs/verification.md, "Sanitizers and fuzzing") ----
#
#   make sanitize    the library (generated/, the SIMDe builds and the assembly
#                    twins included) and the harness built with clang
#                    -fsanitize=address,undefined -fno-sanitize-recover=all in
#                    build/asan, then verify --quick, the kcrypt CLI tests and
#                    the incremental-call tests against that build; any
#                    sanitizer report fails it (harness/fuzz/sanitize.sh;
#                    about 6 minutes from an empty build/asan, 3.5 after)
#   make fuzz-build  the libFuzzer targets (clang -fsanitize=fuzzer,address,
#                    undefined) and generated/ built with clang, in build/fuzz
#   make fuzz-quick  each target for FUZZ_QUICK_SECONDS (default 8: about a
#                    minute in all with the start-ups); fails on any crash,
#                    leak, sanitizer report or mismatch
#   make fuzz [FUZZ_SECONDS=N]
#                    each target N seconds (default 300); prints executions
#                    and coverage per target (harness/fuzz/run.sh)
# FUZZ_SKIP=check,... leaves named checks out (fuzz_util.h), for long runs
# while a known defect awaits its fix.
SANITIZE_BUILD     := $(abspath $(BUILD))/asan
FUZZ_BUILD         := $(abspath $(BUILD))/fuzz
FUZZ_SECONDS       ?= 300
FUZZ_QUICK_SECONDS ?= 8
FUZZ_JOBS          ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: sanitize fuzz-build fuzz-quick fuzz

sanitize: deps
	harness/fuzz/sanitize.sh $(SANITIZE_BUILD)

fuzz-build: deps
	$(MAKE) $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(FUZZ_JOBS)) -f harness/fuzz/fuzz.mk FUZZ_BUILD=$(FUZZ_BUILD)

fuzz-quick: fuzz-build
	harness/fuzz/run.sh --build $(FUZZ_BUILD) --seconds $(FUZZ_QUICK_SECONDS)

fuzz: fuzz-build
	harness/fuzz/run.sh --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS)
