# igemm: dynamic implicit-GEMM backward-data kernels for AMD GCN/CDNA.
#
#   make            generator, code objects for every target, libigemm, the CLI
#   make demo       generate, emulate and verify one ResNet-50 layer (README)
#   make test       the cmocka suites (what CI runs)
#   make check-asan the same tests under AddressSanitizer + UBSan
#
# Missing Debian packages are installed when run as root (tools/deps.sh).

LLVM_BIN ?= /usr/lib/llvm-19/bin
LLVM_MC  := $(LLVM_BIN)/llvm-mc
LD_LLD   := $(LLVM_BIN)/ld.lld
OBJDUMP  := $(LLVM_BIN)/llvm-objdump

B        ?= build
CC       ?= cc
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -ffp-contract=off -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -MMD -MP
SANFLAGS ?=
LDLIBS   += -lm -lpthread -ldl

TARGETS  := gfx906 gfx908 gfx90a gfx942

.PHONY: all deps demo test check-asan clean
.SECONDARY:
all: $(B)/bin/igemmgen $(B)/bin/igemm $(B)/lib/libigemm.a $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco)

# ---- dependencies ----------------------------------------------------------
$(B)/.deps-ok: tools/deps.sh
	@mkdir -p $(B)
	@LLVM_BIN=$(LLVM_BIN) sh tools/deps.sh
	@touch $@

deps: $(B)/.deps-ok

# ---- sources ---------------------------------------------------------------
CORE_SRC := runtime/problem.c runtime/reference.c runtime/target.c runtime/v4r1_config.c
GEN_SRC  := gen/main.c gen/emit.c gen/emit_fmt.c gen/emit_helpers.c gen/values.c gen/kern_naive.c gen/kern_v4r1.c
EMU_SRC  := emu/decode.c emu/disasm.c emu/inst.c emu/loader.c emu/msgpack.c emu/device.c emu/exec.c \
            emu/exec_valu.c emu/exec_mem.c emu/mfma.c emu/hazard.c emu/launch.c
RT_SRC   := runtime/handle.c runtime/solver.c runtime/solver_v4r1.c runtime/select.c runtime/codeobj.c runtime/backend_emu.c \
            runtime/backend_hip.c
RT_SRC   += runtime/perfdb.c
CLI_SRC  := tools/igemm.c tools/cli_conv.c tools/cli_emu_run.c

obj = $(1:%.c=$(B)/obj/%.o)

$(B)/obj/%.o: %.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

# ---- generator and code objects --------------------------------------------
$(B)/bin/igemmgen: $(call obj,$(GEN_SRC) $(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

$(B)/co/%.s: $(B)/bin/igemmgen
	@mkdir -p $(dir $@)
	$(B)/bin/igemmgen --arch $* -o $@

$(B)/co/%.o: $(B)/co/%.s $(wildcard asm_templates/*.inc)
	$(LLVM_MC) -triple=amdgcn-amd-amdhsa -mcpu=$* -filetype=obj -I asm_templates $< -o $@

$(B)/co/%.hsaco: $(B)/co/%.o
	$(LD_LLD) -shared $< -o $@

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

$(B)/lib/libigemm.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/bin/igemm: $(call obj,$(CLI_SRC)) $(B)/lib/libigemm.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

# ---- demo ------------------------------------------------------------------
# Code objects for every target, then one ResNet-50 layer (batch scaled down)
# emulated and verified on each, with the default kernel selection.
demo: all
	@B=$(B) sh tools/demo.sh

clean:
	rm -rf $(B)



# ---- tests -----------------------------------------------------------------
# Every tests/test_*.c is a cmocka suite linked with tests/common.c and
# libigemm; `make test` builds and runs them all (from the repository root).
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TEST_DEFS := -DLLVM_BIN='"$(LLVM_BIN)"' -DBUILD_DIR='"$(B)"'

$(B)/obj/tests/%.o: tests/%.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEST_DEFS) -c $< -o $@

$(B)/tests/%: $(B)/obj/tests/%.o $(B)/obj/tests/common.o $(B)/lib/libigemm.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ -lcmocka $(LDLIBS)

test: all $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done
	@echo "all test suites passed"

# The same tests under AddressSanitizer + UBSan, in a separate build tree.
check-asan:
	$(MAKE) B=build-asan OPT=-O1 SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" test
-include $(shell find $(B)/obj -name "*.d" 2>/dev/null)
