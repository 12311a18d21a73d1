# igemm: dynamic implicit-GEMM backward-data kernels for AMD GCN/CDNA.
#
#   make            generator, code objects for every target, libigemm, the CLI
#   make demo       generate, emulate and verify one ResNet-50 layer (README)
#   make test       the cmocka suites and the Python package's tests (what CI runs)
#   make demo-torch train a small CNN with igemm.torch.Conv2d on the emulator
#   make check-asan the same tests under AddressSanitizer + UBSan
#   make fuzz       bad CLI vectors and code-object mutants through the CLI under
#                   ASan + UBSan, counting crashes, hangs and sanitizer reports
#                   (docs/HARDENING.md; minutes, not in make test)
#   make timing-table  the timing model's microkernels on every target, checked
#                   against the target facts; the table of docs/TIMING.md
#   make check-networks  every layer of ResNet-50, ResNeXt-101 and Inception-v3
#                   at batch 2 on the emulator of every target, NCHW and NHWC,
#                   verified (~15 min on 2 cores; not in make test)
#   make install PREFIX=DIR  igemm.h, libigemm.{a,so}, igemm.pc, the CLI,
#                   share/igemm (code objects, their offload bundle
#                   igemm.hipfb and manifest.json) and the Python
#                   package igemm; make uninstall
#   make manifest   $(B)/share/igemm: the code objects, igemm.hipfb and manifest.json
#
# Missing Debian packages are installed when run as root (tools/deps.sh;
# python3-numpy and python3-torch only for the targets that run Python).

LLVM_BIN ?= /usr/lib/llvm-19/bin
LLVM_MC  := $(LLVM_BIN)/llvm-mc
LD_LLD   := $(LLVM_BIN)/ld.lld
BUNDLER  := $(LLVM_BIN)/clang-offload-bundler
OBJDUMP  := $(LLVM_BIN)/llvm-objdump

B        ?= build
CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -ffp-contract=off -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -MMD -MP
SANFLAGS ?=
LDLIBS   += -lm -lpthread -ldl

TARGETS  := gfx906 gfx908 gfx90a gfx942
# Debian's interpreter: python3-numpy and python3-torch are installed for it
PYTHON   ?= /usr/bin/python3

.PHONY: all deps demo test check-asan clean
.SECONDARY:
# a recipe that fails (bin2c, the generator, llvm-mc, sed ...) leaves no partial
# target behind that a later make would take as up to date
.DELETE_ON_ERROR:
all: $(B)/bin/igemmgen $(B)/bin/igemm $(B)/lib/libigemm.a $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco) $(B)/co/igemm.hipfb

# ---- dependencies ----------------------------------------------------------
$(B)/.deps-ok: tools/deps.sh
	@mkdir -p $(B)
	@LLVM_BIN=$(LLVM_BIN) sh tools/deps.sh
	@touch $@

# numpy and torch for the Python tests and make demo-torch (not for make all)
$(B)/.deps-python-ok: tools/deps.sh
	@mkdir -p $(B)
	@PYTHON=$(PYTHON) sh tools/deps.sh python
	@touch $@

deps: $(B)/.deps-ok $(B)/.deps-python-ok

# ---- sources ---------------------------------------------------------------
ARCH_SRC := arch/target.c arch/isa.c arch/mfma.c arch/occupancy.c
CONV_SRC := conv/util.c conv/ofile.c conv/types.c conv/problem.c conv/half.c conv/reference.c conv/verify.c conv/v4r1_config.c conv/solver.c \
            conv/solver_v4r1.c conv/heuristic.c conv/driver_flags.c
CORE_SRC := $(ARCH_SRC) $(CONV_SRC)
GEN_SRC  := gen/main.c gen/emit.c gen/emit_op.c gen/emit_fmt.c gen/emit_mem.c gen/emit_mai.c gen/emit_hazard.c \
            gen/emit_helpers.c gen/values.c gen/kern_naive.c gen/kern_ksum.c gen/kern_wkyxc.c \
            gen/bwd_data_v4r1/kernel.c gen/bwd_data_v4r1/setup.c gen/bwd_data_v4r1/staging.c gen/bwd_data_v4r1/walk.c gen/bwd_data_v4r1/epilogue.c \
            gen/bwd_data_v4r1/math_fma.c gen/bwd_data_v4r1/math_mfma.c gen/bwd_data_v4r1/dy_channels.c \
            gen/bwd_data_v4r1/fixup.c gen/bwd_data_v4r1/dx_lds.c gen/bwd_data_v4r1/layout.c gen/bwd_data_v4r1/lds_format.c
EMU_SRC  := emu/decode.c emu/disasm.c emu/inst.c emu/loader.c emu/msgpack.c emu/device.c emu/exec.c \
            emu/exec_valu.c emu/exec_mem.c emu/lds.c emu/mfma.c emu/hazard.c emu/launch.c emu/host_cpu.c \
            emu/timing.c emu/timing_occ.c emu/timing_cu.c emu/timing_trace.c emu/timing_cache.c
RT_SRC   := runtime/handle.c runtime/handle_memory.c runtime/handle_select.c runtime/handle_run.c runtime/handle_find.c \
            runtime/handle_perfdb.c runtime/codeobj.c runtime/backend_emu.c \
            runtime/backend_hip.c
RT_SRC   += runtime/perfdb.c runtime/allocs.c runtime/bundle.c runtime/sha256.c runtime/coinfo.c
CLI_SRC  := tools/igemm.c tools/cli_conv.c tools/cli_emu_run.c
CLI_SRC  += tools/cli_manifest.c tools/cli_plan.c tools/json.c tools/cli_miopen.c tools/miopen_solvers.c tools/cli_solutions.c tools/cli_arch.c

obj = $(1:%.c=$(B)/obj/%.o)

$(B)/obj/%.o: %.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FILE_CFLAGS) $(SANFLAGS) -c $< -o $@

# The emulator's lane loops (MFMA gather, LDS and buffer paths) vectorise at
# -O3 (docs/EMULATOR.md "Speed"); -ffp-contract=off stays, so no FP result changes.
EMU_HOT := emu/mfma.c emu/exec_mem.c
$(call obj,$(EMU_HOT)): FILE_CFLAGS := -O3

# ---- generator and code objects --------------------------------------------
$(B)/bin/igemmgen: $(call obj,$(GEN_SRC) $(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

$(B)/co/%.s: $(B)/bin/igemmgen
	@mkdir -p $(dir $@)
	$(B)/bin/igemmgen --arch $* -o $@

$(B)/co/%.o: $(B)/co/%.s
	$(LLVM_MC) -triple=amdgcn-amd-amdhsa -mcpu=$* -filetype=obj $< -o $@

$(B)/co/%.hsaco: $(B)/co/%.o
	$(LD_LLD) -shared $< -o $@

# Every target's code object in one clang offload bundle (a HIP fat binary:
# an empty host entry, then hipv4-amdgcn-amd-amdhsa--<arch> entries aligned to
# 4096 bytes), which igemm_options.codeobj_dir and igemm manifest also read.
comma := ,
empty :=
space := $(empty) $(empty)
$(B)/co/igemm.hipfb: $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco)
	$(BUNDLER) -type=o -bundle-align=4096 \
	    -targets=host-x86_64-unknown-linux-gnu,$(subst $(space),$(comma),$(TARGETS:%=hipv4-amdgcn-amd-amdhsa--%)) \
	    -input=/dev/null $(TARGETS:%=-input=$(B)/co/%.hsaco) -output=$@

# ---- the library -----------------------------------------------------------
$(B)/bin/bin2c: tools/bin2c.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@

$(B)/gen/embed.c: $(B)/bin/bin2c $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco)
	@mkdir -p $(dir $@)
	$(B)/bin/bin2c $@ $(foreach t,$(TARGETS),$(t)=$(B)/co/$(t).hsaco)

$(B)/obj/gen/embed.o: $(B)/gen/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -I. -c $< -o $@

LIB_OBJ := $(call obj,$(CORE_SRC) $(EMU_SRC) $(RT_SRC)) $(B)/obj/gen/embed.o

# libigemm_internal.a: every object as compiled, for the CLI, the benchmarks
# and the tests, which use internal functions (read_file, target_by_name, ...).
$(B)/lib/libigemm_internal.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# libigemm.a, the public archive: the objects linked into one relocatable
# object whose only global symbols are the functions include/igemm.h
# declares (libigemm.syms); every other symbol is local to it, so an
# application may define its own read_file or plan_add (tests/test_symbols.c).
$(B)/lib/libigemm.syms: include/igemm.h
	@mkdir -p $(dir $@)
	sed -n 's/^[a-z].*[ *]\(igemm_[a-z0-9_]*\)(.*/\1/p' $< > $@

$(B)/lib/libigemm.a: $(LIB_OBJ) $(B)/lib/libigemm.syms
	@mkdir -p $(dir $@)
	rm -f $@ $(B)/lib/libigemm.o
	ld -r -o $(B)/lib/libigemm.o $(LIB_OBJ)
	objcopy --keep-global-symbols=$(B)/lib/libigemm.syms $(B)/lib/libigemm.o
	ar rcs $@ $(B)/lib/libigemm.o

$(B)/bin/igemm: $(call obj,$(CLI_SRC)) $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

# ---- demo ------------------------------------------------------------------
# Code objects for every target, then one ResNet-50 layer (batch scaled down)
# emulated and verified on each, with the default kernel selection.
demo: all
	@B=$(B) sh tools/demo.sh

clean:
	rm -rf $(B)



# ---- packaging: shared library, pkg-config, manifest, install ---------------
# libigemm.so is built from position-independent objects under $(B)/pic and
# exports exactly the functions include/igemm.h declares (a version script
# generated from the header). `make install PREFIX=/opt/igemm` installs the
# header, both libraries, igemm.pc, the CLI and share/igemm (every target's
# code object and manifest.json, for libraries that launch the kernels
# themselves).
PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := $(shell sed -n 's/^\#define IGEMM_VERSION "\(.*\)"/\1/p' include/igemm.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))

pic = $(1:%.c=$(B)/pic/%.o)
LIB_PIC := $(call pic,$(CORE_SRC) $(EMU_SRC) $(RT_SRC)) $(B)/pic/gen/embed.o

$(B)/pic/%.o: %.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FILE_CFLAGS) $(SANFLAGS) -fPIC -c $< -o $@
$(call pic,$(EMU_HOT)): FILE_CFLAGS := -O3

$(B)/pic/gen/embed.o: $(B)/gen/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -fPIC -I. -c $< -o $@

$(B)/lib/libigemm.map: $(B)/lib/libigemm.syms
	@mkdir -p $(dir $@)
	{ echo 'IGEMM_$(SOMAJOR) {'; echo '  global:'; sed 's/.*/    &;/' $<; echo '  local: *;'; echo '};'; } > $@

$(B)/lib/libigemm.so: $(LIB_PIC) $(B)/lib/libigemm.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,libigemm.so.$(SOMAJOR) \
	    -Wl,--version-script=$(B)/lib/libigemm.map $(LIB_PIC) -o $@ $(LDLIBS)

# igemm.pc for PREFIX; install writes it again, for the PREFIX given to install
IGEMM_PC = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' runtime/igemm.pc.in
# The CMake package (find_package(igemm CONFIG), igemm::igemm): relocatable, no PREFIX inside.
IGEMM_CMAKE = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOMAJOR@|$(SOMAJOR)|g' -e 's|@VERSION_MAJOR@|$(SOMAJOR)|g'

$(B)/lib/pkgconfig/igemm.pc: runtime/igemm.pc.in include/igemm.h
	@mkdir -p $(dir $@)
	$(IGEMM_PC) > $@

# Code objects and their manifest (kernels, argument layouts, configurations,
# applicability rules), as installed under share/igemm.
$(B)/share/igemm/manifest.json: $(B)/bin/igemm $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco) $(B)/co/igemm.hipfb
	@mkdir -p $(dir $@)
	cp $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco) $(B)/co/igemm.hipfb $(dir $@)
	$(B)/bin/igemm manifest --codeobj-dir $(dir $@) -o $@

.PHONY: manifest install uninstall
manifest: $(B)/share/igemm/manifest.json
all: $(B)/lib/libigemm.so $(B)/lib/pkgconfig/igemm.pc $(B)/share/igemm/manifest.json

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/igemm
	install -m 644 include/igemm.h $(DESTDIR)$(PREFIX)/include/igemm.h
	install -m 644 $(B)/lib/libigemm.a $(DESTDIR)$(PREFIX)/lib/libigemm.a
	install -m 755 $(B)/lib/libigemm.so $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(VERSION)
	ln -sf libigemm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(SOMAJOR)
	ln -sf libigemm.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libigemm.so
	$(IGEMM_PC) > $(DESTDIR)$(PREFIX)/lib/pkgconfig/igemm.pc
	install -d $(DESTDIR)$(PREFIX)/lib/cmake/igemm
	$(IGEMM_CMAKE) runtime/igemmConfig.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/igemm/igemmConfig.cmake
	$(IGEMM_CMAKE) runtime/igemmConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/igemm/igemmConfigVersion.cmake
	install -m 755 $(B)/bin/igemm $(B)/bin/igemmgen $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(B)/share/igemm/*.hsaco $(B)/share/igemm/igemm.hipfb $(B)/share/igemm/manifest.json \
	    $(DESTDIR)$(PREFIX)/share/igemm/
	install -d $(DESTDIR)$(PREFIX)/$(PY_SITE)/igemm
	install -m 644 $(PY_PKG) $(DESTDIR)$(PREFIX)/$(PY_SITE)/igemm/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/igemm.h $(DESTDIR)$(PREFIX)/lib/libigemm.a \
	    $(DESTDIR)$(PREFIX)/lib/libigemm.so $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(SOMAJOR) \
	    $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/pkgconfig/igemm.pc \
	    $(DESTDIR)$(PREFIX)/bin/igemm $(DESTDIR)$(PREFIX)/bin/igemmgen
	rm -rf $(DESTDIR)$(PREFIX)/share/igemm $(DESTDIR)$(PREFIX)/$(PY_SITE)/igemm $(DESTDIR)$(PREFIX)/lib/cmake/igemm

# The Python package goes where Debian's python3 looks: PREFIX/lib/python3.X/
# dist-packages (on sys.path for /usr and /usr/local); it finds libigemm.so.0
# in PREFIX/lib from there (python/igemm/_lib.py).
PY_PKG  := $(wildcard python/igemm/*.py)
PY_SITE  = $(shell $(PYTHON) -c 'import sys; print("lib/python3.%d/dist-packages" % sys.version_info[1])' 2>/dev/null || echo lib/python3/dist-packages)

# test_install builds a program against the installed library: it needs the
# compiler and sanitizer flags of this build.
$(B)/obj/tests/test_install.o: TEST_DEFS += -DTEST_CC='"$(CC)"' -DTEST_OPT='"$(OPT)"' -DTEST_SANFLAGS='"$(SANFLAGS)"'
$(B)/obj/tests/test_embed.o: TEST_DEFS += -DTEST_CC='"$(CC)"' -DTEST_SANFLAGS='"$(SANFLAGS)"'
-include $(shell find $(B)/pic -name "*.d" 2>/dev/null)

# ---- the HIP test double ----------------------------------------------------
# libigemm_hipemu.so implements the part of the HIP runtime API the HIP
# backend uses on top of the emulator (docs/HIPEMU.md): with
# IGEMM_HIP_LIBRARY=$(B)/lib/libigemm_hipemu.so the HIP backend runs its
# whole path (module load, argument buffer, launches, streams, events,
# copies) without a GPU. Not installed: the real libamdhip64 is the production path.
HIPEMU_SRC := hipemu/device.c hipemu/queue.c hipemu/api.c
$(B)/lib/libigemm_hipemu.so: $(call pic,$(HIPEMU_SRC) $(EMU_SRC) $(ARCH_SRC)) hipemu/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,--version-script=hipemu/exports.map \
	    $(call pic,$(HIPEMU_SRC) $(EMU_SRC) $(ARCH_SRC)) -o $@ $(LDLIBS)
all: $(B)/lib/libigemm_hipemu.so

# ---- tests -----------------------------------------------------------------
# Every tests/test_*.c is a cmocka suite linked with tests/common.c and
# libigemm; `make test` builds and runs them all (from the repository root).
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
# TC_ARCH_LIST: the targets the build makes code objects for, as C strings
comma := ,
TEST_DEFS := -DLLVM_BIN='"$(LLVM_BIN)"' -DBUILD_DIR='"$(B)"' \
             -DTC_ARCH_LIST='$(subst $(space),$(comma),$(foreach t,$(TARGETS),"$(t)"))'

$(B)/obj/tests/%.o: tests/%.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEST_DEFS) -c $< -o $@

$(B)/tests/%: $(B)/obj/tests/%.o $(B)/obj/tests/common.o $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ -lcmocka $(LDLIBS)

# test_gen tests the emitter itself: it links the emitter's objects too
EMIT_SRC := gen/emit.c gen/emit_op.c gen/emit_fmt.c gen/emit_mem.c gen/emit_mai.c gen/emit_hazard.c gen/emit_helpers.c
$(B)/tests/test_gen: $(B)/obj/tests/test_gen.o $(B)/obj/tests/common.o $(call obj,$(EMIT_SRC)) $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ -lcmocka $(LDLIBS)


# tests/python/test_*.py test the Python package (igemm, igemm.torch) on this
# build's libigemm.so; tests/python/run.py reports them in cmocka's format and
# fails when one fails. Under sanitizers the Python interpreter preloads their
# runtimes (the library's leaks are the C suites' to find: no leak check there).
PY_TEST_SRC := $(sort $(wildcard tests/python/test_*.py))
PY_ENV = PYTHONPATH=python IGEMM_LIBRARY=$(abspath $(B))/lib/libigemm.so IGEMM_TEST_B=$(B) \
         IGEMM_TEST_MAKE="CC='$(CC)' OPT='$(OPT)' SANFLAGS='$(SANFLAGS)'" PYTHONDONTWRITEBYTECODE=1
ifneq ($(findstring address,$(SANFLAGS)),)
PY_ENV += LD_PRELOAD="$(shell $(CC) -print-file-name=libasan.so) $(shell $(CC) -print-file-name=libubsan.so)" \
          ASAN_OPTIONS=detect_leaks=0
endif

.PHONY: test-python
test-python: all $(B)/.deps-python-ok
	@$(PY_ENV) $(PYTHON) tests/python/run.py $(PY_TEST_SRC)

# The op table and the MFMA table against their generators (tools/isa/check.sh).
.PHONY: check-isa-tables
check-isa-tables: | $(B)/.deps-ok
	@sh tools/isa/check.sh $(LLVM_BIN) $(B)/isa

test: all $(TEST_BIN) $(B)/.deps-python-ok
	@sh tools/isa/check.sh $(LLVM_BIN) $(B)/isa
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done
	@$(PY_ENV) $(PYTHON) tests/python/run.py $(PY_TEST_SRC)
	@echo "all test suites passed"

# tests/kernel_digests.txt: the SHA-256 of every generated kernel, which
# tests/test_digests checks in make test. After a deliberate change to the
# generated code, write it again and commit it with the change (README,
# "Changing generated code").
.PHONY: update-digests
update-digests: all $(B)/tests/test_digests
	$(B)/tests/test_digests --write tests/kernel_digests.txt

# Every s_nop the emitter inserted, lowered by one wait state, must be a
# hazard on the emulator (make test samples one per kernel, the first, middle or last in turn; ~2 min).
.PHONY: check-hazards
check-hazards: $(B)/tests/test_gen all
	IGEMM_GEN_ALL_NOPS=1 $(B)/tests/test_gen

# The LLVM corpus (tests/llvm/corpus.cl, tests/test_llvm.c): OpenCL C kernels
# compiled by clang-19 for every target at -O0/-O2/-O3 into assembly (kept in
# $(B)/llvm/), run on the emulator in strict mode against the host (-O0's
# locals in private memory: docs/EMULATOR.md "Private memory"). make test
# runs all of them and lowers every other s_nop of the -O2 objects (the hazard
# differential); make check-llvm lowers every s_nop of every object.
CLANG := $(LLVM_BIN)/clang
LLVM_CORPUS_OPTS := 0 2 3
LLVM_CORPUS := $(foreach t,$(TARGETS),$(foreach o,$(LLVM_CORPUS_OPTS),$(B)/llvm/corpus-$(t)-O$(o).s))
$(B)/llvm/corpus-%.s: tests/llvm/corpus.cl tests/llvm/corpus.h | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CLANG) -x cl -cl-std=CL2.0 -cl-kernel-arg-info -target amdgcn-amd-amdhsa -nogpulib \
	    -mcpu=$(word 1,$(subst -, ,$*)):xnack- -$(word 2,$(subst -, ,$*)) -S $< -o $@
$(B)/tests/test_llvm: | $(LLVM_CORPUS)

.PHONY: check-llvm isa-coverage
check-llvm: $(B)/tests/test_llvm all
	IGEMM_LLVM_ALL=1 $(B)/tests/test_llvm

# The coverage table of docs/EMULATOR.md (tools/isa/coverage.py).
isa-coverage: $(LLVM_CORPUS)
	python3 tools/isa/coverage.py $(B)

# The same tests under AddressSanitizer + UBSan, in a separate build tree.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-asan:
	$(MAKE) B=build-asan OPT=-O1 SANFLAGS="$(ASAN_FLAGS)" test
-include $(shell find $(B)/obj -name "*.d" 2>/dev/null)

# ---- benchmark: dynamic kernels against their static twins (docs/PERFORMANCE.md)
# Network shape lists are vendored in tests/shapes/ (copies of ../shared/shapes/).
SHAPES_DIR  ?= tests/shapes
BENCH_BATCH ?= 1
# the revision the benchmark reports say they measured (a -dirty suffix: with
# uncommitted changes)
BENCH_COMMIT ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(B)/obj/tools/bench.o: CFLAGS += -DLLVM_BIN='"$(LLVM_BIN)"'
$(B)/bin/igemm-bench: $(B)/obj/tools/bench.o $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

# built with everything: tests/test_twins runs it
all: $(B)/bin/igemm-bench
$(B)/tests/test_twins: | $(B)/bin/igemm-bench

.PHONY: bench
bench: all $(B)/bin/igemm-bench
	$(B)/bin/igemm-bench --input $(SHAPES_DIR)/resnet50.txt --batch $(BENCH_BATCH) --arch gfx906 \
	    --igemmgen $(B)/bin/igemmgen --commit $(BENCH_COMMIT) -o docs/PERFORMANCE.md
	@echo "wrote docs/PERFORMANCE.md"

# What bench-twins and bench-mfma run: the MFMA targets, data types, layouts
# and the shape list (make BENCH_DTYPES=fp16 BENCH_TARGETS=gfx90a ... overrides)
BENCH_TARGETS ?= gfx908 gfx90a gfx942
BENCH_DTYPES  ?= fp32 fp16 bf16
BENCH_LAYOUTS ?= NCHW NHWC
BENCH_LIST    ?= $(SHAPES_DIR)/resnet50.txt
BENCH_ENV = B=$(B) COMMIT=$(BENCH_COMMIT) TARGETS="$(BENCH_TARGETS)" DTYPES="$(BENCH_DTYPES)" LAYOUTS="$(BENCH_LAYOUTS)" LIST=$(BENCH_LIST)

# The same dynamic-against-static-twin benchmark on the MFMA targets (their
# heuristic picks are MFMA configurations) per type and layout
# (tools/bench_twins.sh): docs/PERFORMANCE_<target>.md (fp32 NCHW),
# docs/PERFORMANCE_<target>_<type>_<layout>.md, summary docs/PERFORMANCE_TWINS.md
.PHONY: bench-twins
bench-twins: all $(B)/bin/igemm-bench
	$(BENCH_ENV) BATCH=$(BENCH_BATCH) DIR=docs sh tools/bench_twins.sh

# ---- cache-line bytes per useful byte of the library's picks (docs/KERNELS.md) --
# igemm-bench --lines per TARGET:TYPE:LAYOUT of LINES_RUNS (the FMA family on
# gfx906, f32 MFMA on gfx908/gfx90a, 16-bit MFMA on gfx942), BENCH_LIST at
# batch LINES_BATCH, in the timing model; writes $(B)/lines-TARGET-TYPE-LAYOUT.md
LINES_BATCH ?= 2
LINES_RUNS  ?= gfx906:fp32:NCHW gfx908:fp32:NCHW gfx90a:fp32:NHWC gfx942:fp16:NHWC gfx942:fp16:NCHW
.PHONY: bench-lines
bench-lines: all $(B)/bin/igemm-bench
	@set -e; for r in $(LINES_RUNS); do a=$${r%%:*}; x=$${r#*:}; t=$${x%%:*}; l=$${x#*:}; \
	    $(B)/bin/igemm-bench --lines --input $(BENCH_LIST) --batch $(LINES_BATCH) --arch $$a --type $$t \
	        --layout $$l -o $(B)/lines-$$a-$$t-$$l.md; echo "wrote $(B)/lines-$$a-$$t-$$l.md"; done

# ---- 16-bit depthwise layers: the heuristic's pick against find (tools/bench_depthwise.py) --
.PHONY: bench-depthwise
bench-depthwise: all
	B=$(B) $(PYTHON) tools/bench_depthwise.py > $(B)/depthwise.md
	@cat $(B)/depthwise.md

# ---- the heuristic's pick against find mode's best (tools/bench_heuristic.py) --
# One layer in HEUR_SAMPLE of ResNet-50, ResNeXt-101 and Inception-v3 at batch
# HEUR_BATCH on every target, type and layout, HEUR_JOBS layers at once (find
# mode runs only the timing model's sample: seconds a layer); HEUR_FINDS=DIR
# keeps the find rankings there and re-scores the heuristic against them in
# seconds (empty it when a kernel or the model changes): writes
# $(B)/heuristic.md (docs/TIMING.md)
HEUR_BATCH  ?= 8
HEUR_SAMPLE ?= 3
HEUR_JOBS   ?= 2
HEUR_FINDS  ?=
.PHONY: bench-heuristic
bench-heuristic: all
	B=$(B) BATCH=$(HEUR_BATCH) SAMPLE=$(HEUR_SAMPLE) JOBS=$(HEUR_JOBS) FINDS=$(HEUR_FINDS) $(PYTHON) tools/bench_heuristic.py > $(B)/heuristic.md
	@cat $(B)/heuristic.md

# ---- every network layer on the emulator, verified (tools/check_networks.sh) --
# $(SHAPES_DIR)/{resnet50,resnext101,inception3}.txt at batch CHECK_BATCH,
# default kernel selection on every target of CHECK_ARCHS in every layout of
# CHECK_LAYOUTS; exit status 1 when a layer fails.
CHECK_BATCH   ?= 2
CHECK_ARCHS   ?= $(TARGETS)
CHECK_LAYOUTS ?= NCHW NHWC
# conv (fp32), convfp16 or convbfp16: the data type every layer runs in
CHECK_CMD     ?= conv
# The matrix-core kernels against the FMA kernels on every MFMA target, in
# the timing model, ResNet-50 at batch BENCH_MFMA_BATCH: docs/PERFORMANCE_MFMA.md
BENCH_MFMA_BATCH ?= 32
.PHONY: bench-mfma
bench-mfma: all
	$(BENCH_ENV) BATCH=$(BENCH_MFMA_BATCH) sh tools/bench_mfma.sh

.PHONY: check-networks
check-networks: $(B)/bin/igemm $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco)
	@set -e; for a in $(CHECK_ARCHS); do for l in $(CHECK_LAYOUTS); do \
	    B=$(B) SHAPES=$(SHAPES_DIR) BATCH=$(CHECK_BATCH) ARCH=$$a LAYOUT=$$l CMD=$(CHECK_CMD) \
	    sh tools/check_networks.sh; done; done

# ---- emulator speed (docs/EMULATOR.md, "Speed") -----------------------------
$(B)/bin/igemm-bench-emu: $(B)/obj/tools/bench_emu.o $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-emu
bench-emu: all $(B)/bin/igemm-bench-emu
	$(B)/bin/igemm-bench-emu --arch all --repeat 3

# ---- modeled time against MIOpen's gfx906 v4r1 kernel (docs/MIOPEN.md) --------
# MIOPEN_S: the user's own copy of MIOpen's igemm_bwd_gtc_dynamic.s (nothing of
# it is in this repository); every layer of MIOPEN_SHAPES at MIOPEN_BATCH that
# MIOpen's rule admits, both kernels on the gfx906 emulator, MIOpen's dx verified;
# writes the table to MIOPEN_OUT (default $(B)/miopen-compare.md).
MIOPEN_SHAPES ?= $(SHAPES_DIR)/resnet50.txt
MIOPEN_BATCH  ?= 32
MIOPEN_OUT    ?= $(B)/miopen-compare.md
$(B)/bin/igemm-miopen: $(B)/obj/tools/miopen_cmp.o $(B)/obj/tools/miopen_xdlops.o $(B)/obj/tools/miopen_lists.o \
                      $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)
all: $(B)/bin/igemm-miopen

.PHONY: compare-miopen
compare-miopen: $(B)/bin/igemm $(B)/bin/igemm-miopen
	@test -n "$(MIOPEN_S)" || { echo "compare-miopen: give MIOPEN_S=/path/to/igemm_bwd_gtc_dynamic.s"; exit 2; }
	B=$(B) LLVM_BIN=$(LLVM_BIN) SHAPES=$(MIOPEN_SHAPES) BATCH=$(MIOPEN_BATCH) OUT=$(MIOPEN_OUT) \
	    sh tools/compare_miopen.sh "$(MIOPEN_S)"

# ---- modeled time against MIOpen's xdlops kernels (docs/MIOPEN.md) ----------
# MIOPEN_ROOT: the user's own MIOpen checkout (its top directory: the
# configuration lists are read from its src/solver/conv sources, the kernels
# from its src/kernels/dynamic_igemm; nothing of it is in this repository); ARCH
# gfx908 (NCHW fp32), gfx90a or gfx942 (NHWC fp32/fp16/bf16); DTYPE, LAYOUT,
# BATCH (default 8), SHAPES, OUT, FP16_ALT, THREADS, HAZARDS, OURS_FLAGS as
# tools/compare_miopen_xdlops.sh documents. The table goes to
# $(B)/miopen-xdlops-SHAPES-ARCH-DTYPE-LAYOUT-BATCH.md unless OUT says otherwise
# (SHAPES: the shape list's name, e.g. resnet50).
need_miopen_root = test -n "$(MIOPEN_ROOT)" || { echo "$(1): give MIOPEN_ROOT=/path/to/MIOpen (a MIOpen checkout's top directory$(if $(MIOPEN_DIR),; MIOPEN_DIR is no longer read))"; exit 2; }
.PHONY: compare-miopen-xdlops
compare-miopen-xdlops: $(B)/bin/igemm $(B)/bin/igemm-miopen
	@$(call need_miopen_root,compare-miopen-xdlops)
	B=$(B) LLVM_BIN=$(LLVM_BIN) SHAPES=$(MIOPEN_SHAPES) sh tools/compare_miopen_xdlops.sh "$(MIOPEN_ROOT)"

# Every table of docs/MIOPEN_XDLOPS.md: gfx908 NCHW fp32, gfx90a
# and gfx942 NHWC fp32/fp16/bf16, gfx90a fp16 also with FP16_ALT=0 and with
# our --fp16_mode flush and with our --fp16_mode alt, at each of MIOPEN_BATCHES; one table per file in
# $(B)/miopen-xdlops-*.md, the runs going on past a failed one (exit 1 at
# the end if any failed). THREADS=N gives each emulator run N threads.
MIOPEN_BATCHES ?= 8 32
.PHONY: compare-miopen-xdlops-all
compare-miopen-xdlops-all: $(B)/bin/igemm $(B)/bin/igemm-miopen
	@$(call need_miopen_root,compare-miopen-xdlops-all)
	@rc=0; run() { echo "compare-miopen-xdlops-all: $$*"; \
	    B=$(B) LLVM_BIN=$(LLVM_BIN) SHAPES=$(MIOPEN_SHAPES) "$$@" sh tools/compare_miopen_xdlops.sh "$(MIOPEN_ROOT)" \
	        > /dev/null || rc=1; }; \
	for b in $(MIOPEN_BATCHES); do \
	    run env ARCH=gfx908 DTYPE=fp32 BATCH=$$b; \
	    for a in gfx90a gfx942; do for t in fp32 fp16 bf16; do run env ARCH=$$a DTYPE=$$t BATCH=$$b; done; done; \
	    run env ARCH=gfx90a DTYPE=fp16 BATCH=$$b FP16_ALT=0 SUFFIX=-noalt; \
	    run env ARCH=gfx90a DTYPE=fp16 BATCH=$$b OURS_FLAGS="--fp16_mode flush" \
	        SUFFIX=-flush; \
	    run env ARCH=gfx90a DTYPE=fp16 BATCH=$$b OURS_FLAGS="--fp16_mode alt" \
	        SUFFIX=-alt; \
	done; ls $(B)/miopen-xdlops-*.md; exit $$rc

# docs/MIOPEN_XDLOPS.md from the tables compare-miopen-xdlops-all left in
# $(B) (tools/xdlops_report.py): a summary against issue 22's goals, then
# every table; XDLOPS_NOTE says how and at which commit they were measured.
XDLOPS_NOTE ?= Measured at commit $(shell git rev-parse --short HEAD 2>/dev/null) by \`make compare-miopen-xdlops-all\`.
.PHONY: compare-miopen-xdlops-report
compare-miopen-xdlops-report:
	@ls $(B)/miopen-xdlops-*.md > /dev/null 2>&1 || { echo "compare-miopen-xdlops-report: no $(B)/miopen-xdlops-*.md (run make compare-miopen-xdlops-all first)"; exit 2; }
	$(PYTHON) tools/xdlops_report.py "$(XDLOPS_NOTE)" $(B)/miopen-xdlops-*.md > docs/MIOPEN_XDLOPS.md
	@echo "wrote docs/MIOPEN_XDLOPS.md"

# ---- PyTorch: training with igemm's input gradient (examples/train_cnn.py) --
# A small CNN trained for a few steps with igemm.torch.Conv2d on the emulator
# of DEMO_ARCH, batch and image size changing between steps, next to the same
# model in plain torch: per step both losses, wall time, code objects loaded.
DEMO_ARCH ?= gfx906
.PHONY: demo-torch
demo-torch: $(B)/lib/libigemm.so $(B)/.deps-python-ok
	@PYTHONPATH=python IGEMM_LIBRARY=$(abspath $(B))/lib/libigemm.so PYTHONDONTWRITEBYTECODE=1 \
	    $(PYTHON) examples/train_cnn.py --arch $(DEMO_ARCH)
# ---- fuzzing: bad inputs under ASan + UBSan (tools/fuzz.c, docs/HARDENING.md)
# A fresh corpus from FUZZ_SEED each run: FUZZ_CLI conv argument vectors and
# FUZZ_CO code-object mutants of gfx906.hsaco through emu-run, FUZZ_TIMEOUT
# seconds each, and FUZZ_NONFINITE random shapes per target run by every
# configuration, type and layout with Inf/NaN/largest/subnormal values in dy
# and w against the float64 reference; exit status 1 when anything crashed,
# hung, tripped a sanitizer, failed without a one-line message or differed
# from the reference (build-asan/fuzz/findings.log).
FUZZ_SEED    ?= 13
FUZZ_CLI     ?= 1000
FUZZ_CO      ?= 800
FUZZ_TIMEOUT ?= 30
FUZZ_NONFINITE ?= 2
$(B)/bin/igemm-fuzz: $(B)/obj/tools/fuzz.o $(B)/lib/libigemm_internal.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: fuzz
fuzz:
	$(MAKE) B=build-asan OPT=-O1 SANFLAGS="$(ASAN_FLAGS)" build-asan/bin/igemm build-asan/bin/igemm-fuzz
	build-asan/bin/igemm-fuzz --igemm build-asan/bin/igemm --co build-asan/co/gfx906.hsaco --dir build-asan/fuzz \
	    --seed $(FUZZ_SEED) --cli $(FUZZ_CLI) --co-mutants $(FUZZ_CO) --timeout $(FUZZ_TIMEOUT) \
	    --nonfinite $(FUZZ_NONFINITE)
# ---- the perf-db under concurrent finds (tests/test_faults.c item12, docs/HARDENING.md)
# PERFDB_TRIALS trials of 6 processes running find on one perf-db at once, on a
# fresh file and on a 20000-record one; make test runs 2.
PERFDB_TRIALS ?= 100
.PHONY: perfdb-stress
perfdb-stress: $(B)/tests/test_faults all
	IGEMM_PERFDB_TRIALS=$(PERFDB_TRIALS) TEST_FILTER='item12_perfdb_concurrent*' $(B)/tests/test_faults
# ---- the timing model's microkernel table (docs/TIMING.md) ---------------------
# tests/test_timing.c runs the microkernels on every target, checks them against
# the target facts and writes the table; it replaces the block between the
# timing-table markers of docs/TIMING.md.
.PHONY: timing-table
timing-table: $(B)/tests/test_timing
	IGEMM_TIMING_TABLE=$(B)/timing-table.md $(B)/tests/test_timing
	awk -v t=$(B)/timing-table.md '/<!-- timing-table -->/ {print; while ((getline l < t) > 0) print l; skip=1; next} \
	    /<!-- \/timing-table -->/ {skip=0} !skip' docs/TIMING.md > $(B)/TIMING.md.new
	mv $(B)/TIMING.md.new docs/TIMING.md
	@echo "updated the microkernel table of docs/TIMING.md"
