# gemmbench - the only build system.  `make run` and `make test` are the two
# set-up commands of the README; both install missing Debian packages first
# (scripts/setup.sh: as root it runs apt-get, otherwise it prints the command).

BUILD    ?= build
# Quiet by default: one short line per step (`CC src/x.c`, `LD gemmbench`),
# as the Linux kernel's and git's builds print; `make V=1` prints the whole
# commands.  Warnings and errors are the compiler's own output: always shown.
# `make -s` prints neither.
V ?= 0
ifeq ($(V),1)
Q :=
say = @:
else
Q := @
say = @printf '  %-7s %s\n'
endif
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say = @:
endif
CC       ?= cc
# -march=native: a benchmark measures this machine.  Record what was used.
OPT      ?= -O3 -march=native
WARN      = -Wall -Wextra -Wshadow -Wno-unknown-pragmas -Wno-format-truncation
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null)
CJSON_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
# SHA-256 (schedule texts, the schedule cache's keys and records, the history
# store) from Debian's nettle, never written here.
NETTLE_CFLAGS := $(shell pkg-config --cflags nettle 2>/dev/null)
NETTLE_LIBS   := $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
GIT_REV  := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The full hash and the commit's date (strict ISO 8601), for `history add`'s
# defaults; "" outside a git tree.  Dirty: GIT_REV's -dirty suffix.
GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
GIT_DATE   := $(shell git log -1 --format=%cI 2>/dev/null)
GIT_DIRTY  := $(if $(filter %-dirty,$(GIT_REV)),1,0)
GIT_STAMP  := $(GIT_REV) $(GIT_COMMIT) $(GIT_DATE)
CPPFLAGS += -Iinclude -Ischedules $(CJSON_CFLAGS) $(NETTLE_CFLAGS)
CFLAGS   += -std=c11 $(OPT) $(WARN) -fopenmp -MMD -MP
DEFS      = -DGB_GIT='"$(GIT_REV)"' -DGB_GIT_COMMIT='"$(GIT_COMMIT)"' -DGB_GIT_DATE='"$(GIT_DATE)"' \
            -DGB_GIT_DIRTY=$(GIT_DIRTY) -DGB_CFLAGS='"$(strip $(OPT) $(CFLAGS_EXTRA)) (schedules/: $(SCHED_FLAGS))"' \
            -DGB_SCHED_OPT='"$(OPT)"' -DGB_SCHED_FLAGS='"$(SCHED_FLAGS)"'
# output.c writes the revision into every JSON (tool.git): rebuild it when
# the revision changes (a commit, or a clean tree becoming dirty), which no
# source dependency would notice.  The stamp is rewritten only then.
VERSION_STAMP := $(BUILD)/.git-rev
$(shell mkdir -p $(BUILD); printf '%s\n' '$(GIT_STAMP)' | cmp -s - $(VERSION_STAMP) || printf '%s\n' '$(GIT_STAMP)' >$(VERSION_STAMP))
LDLIBS   += $(CJSON_LIBS) $(NETTLE_LIBS) -lm
LDFLAGS  += -fopenmp

# Reference libraries (the openblas, blis, onednn and libxsmm variants: the ceilings
# the schedules are measured against), each optional: a library is used when a
# small program that calls it compiles and links, else its variant is left
# out of the table (GB_HAVE_* in schedules/table.c).  `make REFERENCE=`
# builds without any.  OpenBLAS is linked by name (-lopenblas, from
# openblas.pc: Debian's openblas-pthread/), never as libblas.so, which the
# alternatives system may point at the reference BLAS; and it is linked
# before BLIS so that cblas_sgemm binds to it (schedules/reference_*.c).
REFERENCE ?= openblas blis onednn libxsmm
HASH  := \#
probe = $(shell printf '$(1)' | $(CC) -x c - -o /dev/null $(2) 2>/dev/null && echo yes)
ifneq ($(filter openblas,$(REFERENCE)),)
OPENBLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS   := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
ifeq ($(call probe,$(HASH)include <cblas.h>\nint main(void){openblas_set_num_threads(1);return 0;},$(OPENBLAS_CFLAGS) $(OPENBLAS_LIBS)),yes)
CPPFLAGS += -DGB_HAVE_OPENBLAS
LDLIBS   += $(OPENBLAS_LIBS)
$(BUILD)/schedules/reference_openblas.o: CPPFLAGS += $(OPENBLAS_CFLAGS)
endif
endif
ifneq ($(filter blis,$(REFERENCE)),)
BLIS_LIBS := $(shell pkg-config --libs blis 2>/dev/null || echo -lblis -lm)
ifeq ($(call probe,$(HASH)include <blis.h>\nint main(void){return (int)bli_info_get_version_str()[0];},$(BLIS_LIBS)),yes)
CPPFLAGS += -DGB_HAVE_BLIS
LDLIBS   += $(BLIS_LIBS)
endif
endif
ifneq ($(filter onednn,$(REFERENCE)),)
ifeq ($(call probe,$(HASH)include <dnnl.h>\nint main(void){return (int)dnnl_version()->major;},-ldnnl),yes)
CPPFLAGS += -DGB_HAVE_ONEDNN
LDLIBS   += -ldnnl
endif
endif
# libxsmm (Debian ships it static only): libxsmm.a's fallback for large
# GEMMs (libxsmm_gemm, which reference_libxsmm.c never calls) references a
# Fortran BLAS's sgemm_ and dgemm_.  With OpenBLAS in the build they bind to
# it (a shared library earlier on the line); without, to libxsmmnoblas's
# stubs.  Never both: libxsmmnoblas's sgemm_ would interpose OpenBLAS's.
ifneq ($(filter libxsmm,$(REFERENCE)),)
XSMM_LIBS := $(shell pkg-config --libs libxsmm 2>/dev/null || echo -lxsmm -lpthread -lrt -ldl -lm)
XSMM_BLAS := $(if $(filter -DGB_HAVE_OPENBLAS,$(CPPFLAGS)),$(OPENBLAS_LIBS),-lxsmmnoblas)
ifeq ($(call probe,$(HASH)include <libxsmm.h>\nint main(void){return libxsmm_get_target_archid() < 0;},$(XSMM_LIBS) $(XSMM_BLAS)),yes)
CPPFLAGS += -DGB_HAVE_LIBXSMM
LDLIBS   += $(XSMM_LIBS) $(filter -lxsmmnoblas,$(XSMM_BLAS))
endif
endif

# hwloc: the machine block's topology (cores, caches and who shares them,
# NUMA nodes, CPU kinds; src/machine/topology.c), probed like the libraries above.
# Without it (`make HWLOC=`, or not installed) the caches come from sysfs.
HWLOC ?= hwloc
ifneq ($(HWLOC),)
HWLOC_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
ifeq ($(call probe,$(HASH)include <hwloc.h>\nint main(void){return (int)(hwloc_get_api_version() >> 30);},$(HWLOC_LIBS)),yes)
CPPFLAGS += -DGB_HAVE_HWLOC
LDLIBS   += $(HWLOC_LIBS)
endif
endif
# XGBoost (Debian's libxgboost-dev): the cost model of `gemmbench model
# train` and the ml_guided variant (src/learn/xgb.c, the one file that
# includes it), probed like the libraries above.  Without it (`make
# XGBOOST=`, or not installed) `model train` fails with one line saying so
# and ml_guided runs rule_based's schedule, reporting why.
XGBOOST ?= xgboost
ifneq ($(XGBOOST),)
# (the program in a variable: its commas would split call's arguments)
XGBOOST_PROBE := $(HASH)include <xgboost/c_api.h>\nint main(void){int a, b, c; XGBoostVersion(&a, &b, &c); return a;}
ifeq ($(call probe,$(XGBOOST_PROBE),-lxgboost),yes)
# Not linked: xgb.c opens the library the probe found on first use (a
# linked one cost every run 6 ms to load), by its SONAME.
XGBOOST_SO     := $(shell $(CC) -print-file-name=libxgboost.so)
XGBOOST_SONAME := $(shell objdump -p $(XGBOOST_SO) 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
CPPFLAGS += -DGB_HAVE_XGBOOST -DGB_XGBOOST_SONAME='"$(or $(XGBOOST_SONAME),libxgboost.so)"'
LDLIBS   += -ldl
endif
endif
# What the probes above found, in a stamp rewritten only when it changes
# (as the revision's): installing or removing a library rebuilds the variant
# table and relinks, so its variant appears or goes without `make clean`.
REFERENCE_FOUND := $(filter -DGB_HAVE_%,$(CPPFLAGS))
REFERENCE_STAMP := $(BUILD)/.reference
$(shell printf '%s\n' '$(REFERENCE_FOUND)' | cmp -s - $(REFERENCE_STAMP) || printf '%s\n' '$(REFERENCE_FOUND)' >$(REFERENCE_STAMP))

# Schedules are compiled so that only what a schedule asks for happens to
# its loops: no auto-vectorization (vectorize = `#pragma omp simd`, which GCC
# still honours) and no loop interchange, or -O3 would rewrite baseline's
# i, j, k into another schedule.  A file that needs otherwise (intrinsics)
# sets its own flags below.
# -ffp-contract=fast: -std=c11 (ISO C) turns GCC's a * b + c -> FMA
# contraction off; TVM's LLVM code and every BLAS use FMA, so the schedules
# do too (the inputs are small integers: exact either way).
# -falign-loops=64: a loop head on a cache line.  Where a tight loop lands
# decided its speed: tvm_blocking's scalar ni loop, one and the same code,
# ran 84 ms placed as a shared object's default put it, and 55, 40 and 35 ms
# with loops aligned to 16, 32 and 64 bytes (M=128, N=K=768, AMD EPYC); the
# built-in and the generated schedules both get 64, so a twin compares code.
SCHED_FLAGS = -fno-tree-vectorize -fno-loop-interchange -ffp-contract=fast -falign-loops=64

# AMX's tile intrinsics (schedules/amx_tiles_x86.c) where the compiler
# targets x86-64 and takes the flags; elsewhere that file compiles to the
# reason the amx variant is skipped.
AMX_FLAGS := $(if $(filter x86_64%,$(shell $(CC) -dumpmachine 2>/dev/null)),$(if $(call probe,int main(void){return 0;},-mamx-tile -mamx-bf16 -mamx-int8),-mamx-tile -mamx-bf16 -mamx-int8))
$(BUILD)/schedules/amx_tiles_x86.o: CFLAGS += $(AMX_FLAGS)

SRC_LIB   := $(filter-out src/cmd/main.c,$(wildcard src/*/*.c))
SCHED_SRC := $(wildcard schedules/*.c)
TEST_SRC  := $(wildcard tests/unit/*.c)

LIB_OBJ   := $(SRC_LIB:%.c=$(BUILD)/%.o) $(SCHED_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/src/cmd/main.o
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)

BIN       := $(BUILD)/gemmbench
TEST_BIN  := $(BUILD)/gemmbench-tests
DEPS_OK   := $(BUILD)/.deps-ok

PREFIX    ?= /usr/local
RUN_ARGS  ?= --all --quick

.PHONY: all run test test-slow test-unit test-cli sanitize fuzz fuzz-build bench bench-ceiling bench-types bench-ukernel bench-bstream cross-aarch64 deps install clean plots

all: $(BIN)

# The reference libraries too (as root), unless REFERENCE= says not to.
# The stamp is an included makefile (empty): when make has to create it,
# setup.sh runs before anything is built and make then reads this file
# again, so the probes above see what setup.sh has just installed and the
# first `make` (or `make test`, `make bench-ceiling`) on a fresh machine
# links the reference libraries, hwloc and XGBoost; before, it built
# without them and only a second `make` relinked.
$(DEPS_OK): scripts/setup.sh
	@sh scripts/setup.sh $(if $(REFERENCE),reference)
	@mkdir -p $(BUILD) && touch $@
ifneq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),)
include $(DEPS_OK)
endif

$(BUILD)/src/%.o: src/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) $(DEFS) -c $< -o $@

$(BUILD)/src/files/output.o: $(VERSION_STAMP)
# Every object whose source tests a GB_HAVE_* macro (the variant table, the
# reference variants, topology.c and its test) is rebuilt when the probes'
# findings change: a library installed or removed after a build, and a
# `make test` that probed hwloc must not link a test built with it against
# a topology.o without it.
HAVE_USERS := $(patsubst %.c,$(BUILD)/%.o,$(shell grep -l 'GB_HAVE_' src/*/*.c schedules/*.c tests/unit/*.c 2>/dev/null))
$(HAVE_USERS): $(REFERENCE_STAMP)

$(BUILD)/schedules/%.o: schedules/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) $(SCHED_FLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(CFLAGS_EXTRA) -c $< -o $@

$(BUILD)/libgemmbench.a: $(LIB_OBJ)
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(BUILD)/libgemmbench.a $(REFERENCE_STAMP)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS_EXTRA) -o $@ $(filter-out $(REFERENCE_STAMP),$^) $(LDLIBS)

$(TEST_BIN): $(TEST_OBJ) $(BUILD)/libgemmbench.a $(REFERENCE_STAMP)
	$(say) LD $@
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS_EXTRA) -o $@ $(filter-out $(REFERENCE_STAMP),$^) $(LDLIBS)

# The main job, quick by default: every variant on every kernel at two M.
# `make run RUN_ARGS=` runs bench.conf's full sweep.  The first `make run`
# on a fresh machine measures against the ceiling (DEPS_OK, above).
run: $(BIN)
	$(say) RUN "$(BIN) $(RUN_ARGS)"
	$(Q)./$(BIN) $(RUN_ARGS)

# Figures of a result file (scripts/plot.sh, gnuplot): PLOT_FILE defaults to
# the newest results/*.json, PLOT_DIR to results/figures/<its name>.
plots: $(BIN)
	$(Q)GEMMBENCH=$(abspath $(BIN)) sh scripts/plot.sh $(PLOT_FILE) $(if $(PLOT_FILE),$(PLOT_DIR))

# Unit tests (C) and command-line tests (shell), two at a time; ends with
# `N passed, N failed, N skipped` (tests/run.sh).
# What the tests need beyond the build (python3), installed or named once.
TEST_DEPS_OK := $(BUILD)/.test-deps-ok
$(TEST_DEPS_OK): scripts/setup.sh
	@sh scripts/setup.sh test
	@mkdir -p $(BUILD) && touch $@

test: $(TEST_DEPS_OK) $(BIN) $(TEST_BIN)
	@sh tests/run.sh $(BUILD) fast

# The long timing tests (tests/slow/*.sh: two default sweeps compared, ...),
# which CI runs after `make test`; same summary line.
test-slow: $(TEST_DEPS_OK) $(BIN)
	@sh tests/run.sh $(BUILD) slow

# The tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize:
	$(say) MAKE "test under ASan + UBSan (build-san)"
	$(Q)$(MAKE) --no-print-directory BUILD=build-san OPT='-O1 -g -march=native' \
	    CFLAGS_EXTRA='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' test

# libFuzzer on the parsers of untrusted input (tests/fuzz/README.md): each
# target FUZZ_SECONDS seconds from its seed corpus, libFuzzer's own summary
# printed; a crash, leak or timeout fails.  clang from Debian
# (scripts/setup.sh fuzz); the library is built again with clang under
# ASan + UBSan, without the reference libraries.
FUZZ_SECONDS ?= 10
FUZZ_BUILD   := build-fuzz
FUZZ_CC      ?= clang-14
FUZZ_TARGETS := config lists resultfile records sched report_multi space calibration history trials model
FUZZ_WARN    := -Wall -Wextra -Wshadow -Wno-unknown-pragmas -Wno-pass-failed
FUZZ_FLAGS    = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

fuzz-build:
	@sh scripts/setup.sh fuzz
	$(say) MAKE "$(FUZZ_BUILD)/libgemmbench.a ($(FUZZ_CC), ASan + UBSan, fuzzer-no-link)"
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) REFERENCE= HWLOC= XGBOOST= OPT='-O1 -g -march=native' WARN='$(FUZZ_WARN)' SCHED_FLAGS='-ffp-contract=fast' \
	    CFLAGS_EXTRA='$(FUZZ_FLAGS) -fsanitize=fuzzer-no-link' $(FUZZ_BUILD)/libgemmbench.a
	@for t in $(FUZZ_TARGETS); do \
	    $(if $(filter 1,$(V)),,printf '  %-7s %s\n' LD $(FUZZ_BUILD)/fuzz_$$t;) \
	    $(if $(filter 1,$(V)),set -x;) \
	    $(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz -std=c11 -O1 -g -march=native $(FUZZ_WARN) -fopenmp \
	        $(FUZZ_FLAGS) -fsanitize=fuzzer -o $(FUZZ_BUILD)/fuzz_$$t tests/fuzz/fuzz_$$t.c \
	        $(FUZZ_BUILD)/libgemmbench.a $(CJSON_LIBS) $(NETTLE_LIBS) -lm || exit 1; \
	done

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Leave one shape out on a trial database, no measurement (scripts/ml-loo.c,
# results/notes/ml-guided.md): `make build/ml-loo`.
$(BUILD)/ml-loo: scripts/ml-loo.c $(BUILD)/libgemmbench.a
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) -std=c11 $(OPT) $(WARN) -fopenmp -o $@ $< $(BUILD)/libgemmbench.a $(LDLIBS)

# The f32 micro-kernel alone on data in L1 and L2 against a loop of its shape,
# 1 and 2 threads (scripts/ukernel.c, results/notes/packed-zen5.md); a minute.
$(BUILD)/ukernel: scripts/ukernel.c $(BUILD)/libgemmbench.a
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) -std=c11 $(OPT) $(WARN) -fopenmp -o $@ $< $(BUILD)/libgemmbench.a -lm

bench-ukernel: $(BUILD)/ukernel
	$(Q)for t in 1 2; do OMP_PROC_BIND=close OMP_PLACES=cores $(BUILD)/ukernel 3 $$t || exit 1; done

# B read from L3 in packed's order, in place and packed, with and without
# prefetch, 1 and 2 threads (scripts/bstream.c, results/notes/packed-zen5.md).
$(BUILD)/bstream: scripts/bstream.c
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) -std=c11 $(OPT) $(WARN) -fopenmp -o $@ $<

bench-bstream: $(BUILD)/bstream
	$(Q)for t in 1 2; do OMP_PROC_BIND=close OMP_PLACES=cores $(BUILD)/bstream 2 $$t || exit 1; done

# packed against the reference libraries and the peak, one interleaved run
# (results/notes/ceiling.md); a few minutes.
bench-ceiling: $(BIN)
	$(Q)sh scripts/bench-ceiling.sh

# packed against oneDNN in f32, bf16 and u8s8, 2 threads then 1 (results/notes/low-precision.md)
bench-types: $(BIN)
	$(Q)sh scripts/bench-types.sh

# The portable build for aarch64 with Debian's cross compiler, then its
# verified runs and unit tests under qemu-aarch64 (scripts/cross-aarch64.sh).
cross-aarch64:
	@sh scripts/setup.sh cross
	sh scripts/cross-aarch64.sh

deps:
	@sh scripts/setup.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/gemmbench

clean:
	rm -rf build build-san build-aarch64 build-fuzz

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
