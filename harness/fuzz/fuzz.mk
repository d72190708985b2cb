# The libFuzzer targets of harness/fuzz/, built with clang against the
# generated sources (docs/verification.md, "Sanitizers and fuzzing").
#
#   make -f harness/fuzz/fuzz.mk [FUZZ_BUILD=/abs/build/fuzz] [FUZZ_EMULATED=1]
#        [FUZZ_EXTRA_CFLAGS=-D...] [GENERATED=/abs/scratch/generated]
#        [HARNESS_C=/abs/scratch/harness/c]
#
# FUZZ_BUILD receives:
#   lib/libkcrypt.a     generated/ built by its own Makefile with
#                       CC=clang, -fsanitize=fuzzer-no-link,address,undefined
#                       (the C kernels, the cores and the assembly twins,
#                       which clang's integrated assembler assembles: they
#                       are not instrumented, see fuzz_util.h)
#   lib/libkcrypt_emulated.a   with FUZZ_EMULATED=1 only: the SIMDe builds,
#                       which the targets then choose among too (slow to
#                       compile: minutes per cipher)
#   fuzz_sm4, fuzz_ublock, fuzz_zuc, fuzz_zuc_bits, fuzz_kcrypt
#                       the targets (-fsanitize=fuzzer,address,undefined,
#                       -fno-sanitize-recover=all)
#   kcrypt/*.o          kcrypt's objects for fuzz_kcrypt: harness/c/kcrypt.c
#                       compiled unchanged with -Dmain=kcrypt_main and
#                       -include kcrypt_hook.h, and the descriptions with
#                       the rest of harness/c they use, the vector tables
#                       among them (harness/vectors_c.py from VECTORS_DIR,
#                       default the repository's tests/vectors)
#
# harness/fuzz/run.sh runs them (make fuzz-quick, make fuzz in the top-level
# Makefile).

FUZZ_DIR   := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
REPO       := $(abspath $(FUZZ_DIR)/../..)
GENERATED  ?= $(REPO)/generated
HARNESS_C  ?= $(REPO)/harness/c
FUZZ_BUILD ?= $(REPO)/build/fuzz
FUZZ_CC    ?= clang
FUZZ_EMULATED ?= 0
VECTORS_DIR ?= $(REPO)/tests/vectors
PYTHON     ?= python3

SAN         := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS ?= -O1 -g -fno-omit-frame-pointer
# The library: instrumented for coverage (but not the references, the
# targets' oracle: coverage_ignore.txt) and the sanitizers, no main.
LIB_CFLAGS  := $(FUZZ_CFLAGS) $(SAN) -fsanitize=fuzzer-no-link \
               -fsanitize-coverage-ignorelist=$(FUZZ_DIR)/coverage_ignore.txt $(FUZZ_EXTRA_CFLAGS)
TARGET_CFLAGS := $(FUZZ_CFLAGS) $(SAN) -fsanitize=fuzzer -std=c11 -Wall -Wextra -D_GNU_SOURCE \
                 -I$(GENERATED)/include -I$(FUZZ_DIR)

LIBDIR := $(FUZZ_BUILD)/lib
ifeq ($(FUZZ_EMULATED),1)
LIBS      := $(LIBDIR)/libkcrypt_emulated.a $(LIBDIR)/libkcrypt.a
LIB_GOALS := all emulated
TARGET_CFLAGS += -DFZ_EMULATED
KCRYPT_DEFS :=
else
LIBS      := $(LIBDIR)/libkcrypt.a
LIB_GOALS := all
KCRYPT_DEFS := -DKC_NO_EMULATED
endif
KCRYPT_DEFS += -DKC_NO_PEERS

TARGETS := fuzz_sm4 fuzz_ublock fuzz_zuc fuzz_zuc_bits fuzz_kcrypt
# kcrypt.c and every object its descriptions bring (harness/c's but the
# other programs' mains).
KCRYPT_OBJS := $(patsubst $(HARNESS_C)/%.c,$(FUZZ_BUILD)/kcrypt/%.o,$(filter-out \
                 $(HARNESS_C)/verify.c $(HARNESS_C)/bench.c $(HARNESS_C)/ctcheck.c,$(wildcard $(HARNESS_C)/*.c))) \
               $(FUZZ_BUILD)/kcrypt/vector_tables.o
HEADERS := $(wildcard $(FUZZ_DIR)/*.h) $(wildcard $(GENERATED)/include/*.h)

.PHONY: all lib targets FORCE
# The library first (generated/'s own Makefile knows when its objects are
# stale), then the targets, which depend on its archives and so relink when
# they change.
all: lib
	$(MAKE) -f $(FUZZ_DIR)/fuzz.mk targets

# Objects built with other flags (another FUZZ_EXTRA_CFLAGS, say) are
# removed first: generated/'s Makefile does not track flags.
lib:
	@mkdir -p $(LIBDIR)
	@if [ "$$(cat $(LIBDIR)/.cflags 2>/dev/null)" != "$(LIB_CFLAGS)" ]; then \
	  rm -f $(LIBDIR)/*.o $(LIBDIR)/*.a $(FUZZ_BUILD)/kcrypt/*.o; echo "$(LIB_CFLAGS)" > $(LIBDIR)/.cflags; fi
	$(MAKE) -C $(GENERATED) BUILD=$(LIBDIR) CC=$(FUZZ_CC) CFLAGS="$(LIB_CFLAGS)" $(LIB_GOALS)

targets: $(addprefix $(FUZZ_BUILD)/,$(TARGETS))

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(HEADERS) $(LIBS)
	$(FUZZ_CC) $(TARGET_CFLAGS) $< $(LIBS) -o $@

# kcrypt.c unchanged: its main renamed, its stderr redirected (kcrypt_hook.h).
$(FUZZ_BUILD)/kcrypt/kcrypt.o: $(HARNESS_C)/kcrypt.c $(FUZZ_DIR)/kcrypt_hook.h $(wildcard $(HARNESS_C)/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(LIB_CFLAGS) -std=c11 -I$(GENERATED)/include $(KCRYPT_DEFS) -Dmain=kcrypt_main \
	  -D_DEFAULT_SOURCE -Wno-macro-redefined -include $(FUZZ_DIR)/kcrypt_hook.h -c $< -o $@

$(FUZZ_BUILD)/kcrypt/%.o: $(HARNESS_C)/%.c $(wildcard $(HARNESS_C)/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(LIB_CFLAGS) -std=c11 -I$(GENERATED)/include $(KCRYPT_DEFS) -c $< -o $@

# Rewritten only when its text changes (see harness/c/Makefile).
$(FUZZ_BUILD)/kcrypt/vector_tables.c: FORCE
	@$(PYTHON) $(HARNESS_C)/../vectors_c.py --dir $(VECTORS_DIR) -o $@

$(FUZZ_BUILD)/kcrypt/vector_tables.o: $(FUZZ_BUILD)/kcrypt/vector_tables.c $(wildcard $(HARNESS_C)/*.h)
	$(FUZZ_CC) $(LIB_CFLAGS) -std=c11 -I$(GENERATED)/include -I$(HARNESS_C) -c $< -o $@

$(FUZZ_BUILD)/fuzz_kcrypt: $(FUZZ_DIR)/fuzz_kcrypt.c $(HEADERS) $(KCRYPT_OBJS) $(LIBS)
	$(FUZZ_CC) $(TARGET_CFLAGS) $< $(KCRYPT_OBJS) $(LIBS) -pthread -o $@
