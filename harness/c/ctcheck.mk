# Constant-time check of every SM4, ZUC and uBlock kernel under valgrind (ctgrind
# technique).
#
#   make -C harness/c BUILD=/abs/build ctcheck     (runs: make -f ctcheck.mk ...)
#   make -f ctcheck.mk BUILD=/abs/build [GENERATED=...] [CT_JOBS=2] [CT_ONLY=ublock_]
#
# Steps:
#   1. Builds a copy of the generated library for the check in $(BUILD)/ct:
#      the native kernels with -DKC_VALGRIND_SPLIT_VAES (valgrind 3.19 cannot
#      run 256-bit VAESENCLAST; the macro issues it as two 128-bit AESENCLAST,
#      same data flow), and the SIMDe build of the GFNI/AVX-512 kernels
#      (valgrind cannot run GFNI or AVX-512 at all).  -g1 for readable traces:
#      line tables only, since full -g makes GCC's variable tracking take
#      about 4x as long on the SIMDe units (sm4_emulated.c: 388 s against 96).
#      Built in parallel (CT_JOBS).
#   2. Audits the SIMDe build's flags: compiles a probe (ctcheck.c with
#      -DKC_CT_SIMDE_AUDIT) with the flags generated/Makefile gives the
#      emulated objects (sm4_emulated.o, zuc_emulated.o, ublock_emulated.o),
#      which fails unless
#      SIMDe takes its AVX2/SSE4.1-native, branch-free and table-free paths
#      (see ctcheck.c).
#   3. Builds $(BUILD)/ct/ctcheck and asks it for the plan: one line per
#      check "UNIT EMULATED HOW EXPECT", UNIT = <cipher>_<kernel name>
#      (sm4_byteslice_avx2_aesni, zuc_lanes_avx2_vaes, ublock_nibbleslice_avx2,
#      ...) plus
#      zuc_one_stream (the one-stream ZUC API) and the SIMDe control.
#   4. Runs valgrind once per kernel, in parallel (CT_JOBS, default: all
#      cores), each writing $(BUILD)/ct/results/NAME.{log,result}.
#   5. Prints the summary, one line per kernel and "N passed, N failed",
#      and fails if any kernel failed.
#
# Verdicts: a kernel expected constant-time passes when memcheck reports no
# error.  Positive controls must be flagged, with secret-dependent addresses
# ("detected (expected)"), or the check itself is broken (a failure): each
# cipher's `reference` kernel (S-box table lookups: sm4_reference_scalar,
# zuc_reference_scalar, ublock_reference_scalar), and simde_portable_gfni, SIMDe's portable-C GFNI
# inversion (a table indexed by the secret byte), which shows that checking
# kernels through SIMDe sees the path SIMDe takes.
#
# Secrets: SM4: key bytes before sm4_set_key, IV, plaintext; its GCM, CCM, XTS, CMAC and
# CBC-MAC phases (ctcheck_sm4_modes.c) the message, AAD, tags and XTS tweak too, with the
# decryptions' branches on the tag verdict suppressed (ctcheck.supp).  ZUC: keys, IVs
# (but the top two bits of IV17..IV24 of a 25-byte IV, which must be zero)
# and messages, for encryption and MACs (see ctcheck_zuc.c).  uBlock: key
# bytes before ublock_set_key / ublock_set_keys, IVs, messages, every variant
# and mode, multi-key CBC (cipher_ublock.c's ct_extra).  AVX-512 kernels of every
# cipher (uBlock's avx512 target too) run only in their SIMDe build: valgrind
# 3.19 cannot execute AVX-512.

HERE      := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
BUILD     ?= $(HERE)../../build
GENERATED ?= $(HERE)../../generated
BUILD_ABS := $(abspath $(BUILD))
GEN_ABS   := $(abspath $(GENERATED))
CT        := $(BUILD_ABS)/ct
LIBDIR    := $(CT)/lib
RESULTS   := $(CT)/results
CTCHECK   := $(CT)/ctcheck
PLAN      := $(CT)/plan.txt

VECTORS_DIR ?= $(HERE)../../tests/vectors
PYTHON    ?= python3
TABLES    := $(CT)/vector_tables.c

CC        ?= gcc
# No -m flags: ctcheck's own SIMDe positive control needs SIMDe's portable C.
# (-Wno-psabi: SIMDe passes 256-bit vectors by value without AVX.)
CT_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wno-psabi -I$(GEN_ABS)/include -I$(HERE)
LIB_CFLAGS := -O3 -g1
VALGRIND  ?= valgrind
VG_FLAGS  := --tool=memcheck --error-exitcode=1 --track-origins=yes --num-callers=12 \
             --suppressions=$(HERE)ctcheck.supp
CT_JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
# Build the library and run the kernels in parallel, unless a parent make
# already shares its jobs.
JOBS_FLAG := $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(CT_JOBS))

# The flags generated/Makefile compiles the SIMDe builds with (host ISA):
# the TARGET_FLAGS of the emulated objects (one rule for all, or one each).
EMU_FLAGS := $(shell sed -n 's/.*\(_emulated\.o\|EMULATED_OBJECTS.\):[[:space:]]*TARGET_FLAGS[[:space:]]*=//p' $(GEN_ABS)/Makefile 2>/dev/null | head -n 1)

.PHONY: all libs audit plan run summary clean FORCE

all: plan
	@$(MAKE) --no-print-directory -f $(lastword $(MAKEFILE_LIST)) $(JOBS_FLAG) \
	  BUILD=$(BUILD_ABS) GENERATED=$(GEN_ABS) summary

libs: | $(CT)
	@$(MAKE) --no-print-directory $(JOBS_FLAG) -C $(GEN_ABS) BUILD=$(LIBDIR) CFLAGS="$(LIB_CFLAGS)" \
	  EXTRA_CFLAGS=-DKC_VALGRIND_SPLIT_VAES all emulated >$(CT)/build.log 2>&1 || \
	  { cat $(CT)/build.log; exit 1; }

# Step 2: the SIMDe audit (compile-time only).
audit: | $(CT)
	@$(CC) -std=c11 -fsyntax-only -DKC_CT_SIMDE_AUDIT $(EMU_FLAGS) -I$(GEN_ABS)/include \
	  -I$(HERE) $(HERE)ctcheck.c && \
	  echo "ctcheck: SIMDe audit passed for the emulated build's flags ($(EMU_FLAGS)):" \
	       "AVX2/SSE4.1/SSSE3 native, no GFNI/AVX-512 native, natural vector size 256"

$(CT) $(RESULTS):
	@mkdir -p $@

# libs is phony (the generated Makefile decides what is stale), so ctcheck is
# relinked each time: cheap.
# ctcheck and every description (their other tools' hooks come along, with
# the vector tables: harness/vectors_c.py, see Makefile; no peers:
# -DKC_NO_PEERS).
CT_SOURCES := $(HERE)ctcheck.c $(filter-out $(HERE)kcrypt.c $(HERE)verify.c $(HERE)bench.c \
                $(HERE)ctcheck.c,$(wildcard $(HERE)*.c)) $(TABLES)
$(TABLES): FORCE | $(CT)
	@$(PYTHON) $(HERE)../vectors_c.py --dir $(abspath $(VECTORS_DIR)) -o $@

$(CTCHECK): $(CT_SOURCES) $(wildcard $(HERE)*.h) libs | $(CT)
	@$(CC) $(CT_CFLAGS) -DKC_NO_PEERS -pthread -o $@ $(CT_SOURCES) \
	  $(LIBDIR)/libkcrypt_emulated.a $(LIBDIR)/libkcrypt.a

# CT_ONLY=PREFIX checks only the units named PREFIX... (e.g. ublock_), and the
# SIMDe positive control.
CT_ONLY ?=

plan: audit $(CTCHECK) | $(RESULTS)
	@rm -f $(RESULTS)/*.result
	@$(CTCHECK) --plan | awk -v p='$(CT_ONLY)' 'p == "" || index($$1, p) == 1 || $$3 == "control"' \
	  > $(PLAN)
	@echo "ctcheck: $$(wc -l < $(PLAN)) kernels to check under valgrind ($(VALGRIND) $(VG_FLAGS))"

# ---- the second pass: one valgrind process per kernel ----------------------

UNITS   := $(shell cut -d' ' -f1 $(PLAN) 2>/dev/null)
RESULT_FILES := $(UNITS:%=$(RESULTS)/%.result)

# A result file holds one line: VERDICT NAME HOW DETAIL...
$(RESULTS)/%.result: $(PLAN)
	@set -- $$(grep "^$* " $(PLAN)); emu=$$2; how=$$3; expect=$$4; \
	log=$(RESULTS)/$*.log; \
	case $$how in \
	  native) desc="native";; \
	  native-split-vaes) desc="native, 256-bit VAESENCLAST split into 2x128-bit AESENCLAST";; \
	  simde) desc="SIMDe build: GFNI/AVX-512 lowered to AVX2 (pshufb scan, blends, 256-bit halves)";; \
	  control) desc="positive control: SIMDe portable-C GFNI inversion, a secret-indexed table";; \
	  *) echo "SKIP $* [no SIMDe build: an assembly kernel for GFNI/AVX-512, which valgrind 3.19 cannot run] not checked under valgrind" > $@; exit 0;; \
	esac; \
	flag=; [ "$$emu" = 1 ] && flag=--emulated; \
	arg=$*; [ "$$how" = control ] && arg=--simde-control; \
	$(VALGRIND) $(VG_FLAGS) $(CTCHECK) $$flag $$arg > $$log 2>&1; rc=$$?; \
	branches=$$(grep -c 'Conditional jump or move depends on uninitialised' $$log); \
	addresses=$$(grep -c 'Use of uninitialised value of size' $$log); \
	found="secret-dependent branches at $$branches site(s), addresses at $$addresses site(s)"; \
	if grep -q 'WRONG' $$log; then v=FAIL; d="wrong output (see $$log)"; \
	elif [ $$rc -ne 0 ] && [ $$rc -ne 1 ]; then v=FAIL; d="valgrind/ctcheck exit status $$rc (see $$log)"; \
	elif [ $$expect = leak ] && [ $$rc = 1 ] && [ $$addresses -gt 0 ]; then \
	  v=PASS; d="detected (expected): $$found"; \
	elif [ $$expect = leak ]; then v=FAIL; d="table lookups NOT detected: the check is broken"; \
	elif [ $$rc = 0 ]; then v=PASS; d="constant-time: no secret-dependent branch or address"; \
	else v=FAIL; d="$$found (see $$log)"; fi; \
	echo "$$v $* [$$desc] $$d" > $@; \
	echo "  $$v  $* ($$desc)" >&2

summary: $(RESULT_FILES)
	@echo "ctcheck summary (secrets: SM4 key bytes before sm4_set_key, IV, plaintext;" \
	     "ZUC keys, IVs, messages; uBlock key bytes before the key schedule, IVs, messages;" \
	     "AVX-512 kernels checked in their SIMDe build: valgrind 3.19 cannot run AVX-512):"; \
	pass=0; fail=0; skip=0; \
	for f in $(RESULT_FILES); do \
	  read v rest < $$f; printf '  %-4s %s\n' "$$v" "$$rest"; \
	  case $$v in PASS) pass=$$((pass+1));; FAIL) fail=$$((fail+1));; *) skip=$$((skip+1));; esac; \
	done; \
	echo "ctcheck: $$pass passed, $$fail failed$$( [ $$skip -gt 0 ] && echo ", $$skip skipped")"; \
	[ $$fail -eq 0 ]

clean:
	rm -rf $(CT)
