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
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -MMD -MP
SANFLAGS :=
LDLIBS   += -lm -lpthread -ldl

TARGETS  := gfx906 gfx908 gfx90a gfx942

.PHONY: all deps demo test check-asan clean
.SECONDARY:
all: $(B)/bin/igemmgen $(foreach t,$(TARGETS),$(B)/co/$(t).hsaco)

# ---- dependencies ----------------------------------------------------------
$(B)/.deps-ok: tools/deps.sh
	@mkdir -p $(B)
	@LLVM_BIN=$(LLVM_BIN) sh tools/deps.sh
	@touch $@

deps: $(B)/.deps-ok

# ---- objects ---------------------------------------------------------------
$(B)/obj/%.o: %.c | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

CORE_SRC := runtime/problem.c runtime/reference.c runtime/target.c
GEN_SRC  := gen/main.c gen/emit.c gen/emit_fmt.c gen/emit_helpers.c gen/kern_naive.c

CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o)
GEN_OBJ  := $(GEN_SRC:%.c=$(B)/obj/%.o)

$(B)/bin/igemmgen: $(GEN_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(LDLIBS)

# ---- code objects ----------------------------------------------------------
$(B)/co/%.s: $(B)/bin/igemmgen
	@mkdir -p $(dir $@)
	$(B)/bin/igemmgen --arch $* -o $@

$(B)/co/%.o: $(B)/co/%.s $(wildcard asm_templates/*.inc)
	$(LLVM_MC) -triple=amdgcn-amd-amdhsa -mcpu=$* -filetype=obj -I asm_templates $< -o $@

$(B)/co/%.hsaco: $(B)/co/%.o
	$(LD_LLD) -shared $< -o $@

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
