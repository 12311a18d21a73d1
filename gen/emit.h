/* The assembly emitter: one context passed first to every call.
 *
 * The context owns the output text, the target, the register pools, the
 * label counter, the kernel being written and the first error (sticky: after
 * an error every call is a no-op and emit_finish reports it).
 *
 * Instructions are written through one function per encoding format
 * (e_sop2, e_vop3, e_ds, e_mubuf, e_vop3p, e_mfma, ...). Each looks its
 * mnemonic up in the shared op table (arch/isa.h, arch/ops.def): the op
 * must exist on the target and be of the function's format, and its
 * register operands must have the widths of its row; then the format's
 * operand rules (operand kinds, the gfx9 constant-bus limit of one SGPR or
 * literal per VALU op, no literals in VOP3) are checked before it prints.
 * A broken rule fails the emitter naming the target, the kernel and the op.
 * Semantic helpers (emit_helpers.h) pick target spellings and wrap common
 * idioms. No other code prints assembly text.
 *
 * Registers come from pools with names; every allocation prints
 * `.set v_name, index` so the listing reads `v_add_u32 v[v_tmp], ...`. */
#ifndef IGEMM_EMIT_H
#define IGEMM_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arch/isa.h"
#include "../arch/mfma.h"
#include "../arch/target.h"

typedef enum {
    OPK_NONE = 0,
    OPK_SGPR,
    OPK_VGPR,
    OPK_AGPR,
    OPK_SPECIAL, /* vcc, exec, m0, scc (by name) */
    OPK_INT,     /* integer immediate: inline constant or literal */
    OPK_FLOAT,   /* float immediate (printed as such; inline or literal) */
    OPK_OFF,     /* "off" (global saddr / unused vaddr) */
    OPK_BAD,     /* an out-of-range sub-register (sub/at): every format refuses it */
} opkind;

/* Operand modifiers for VOP3 sources. */
enum { MOD_NEG = 1, MOD_ABS = 2 };

typedef struct {
    uint8_t kind;
    uint8_t count;     /* registers in the range (1, 2, 4, ...) */
    uint8_t mods;      /* MOD_NEG | MOD_ABS */
    int16_t index;     /* absolute register index */
    int16_t name_off;  /* index - base index of the named allocation */
    const char *name;  /* symbolic base ("v_tmp") or NULL for fixed registers */
    int64_t imm;       /* OPK_INT value */
    float f;           /* OPK_FLOAT value */
} opnd;

/* Register pools ------------------------------------------------------- */

#define POOL_MAX 512

typedef struct {
    char kind;              /* 's', 'v', 'a' */
    int limit;              /* allocatable registers */
    int high_water;         /* next_free after the highest allocation */
    const char *owner[POOL_MAX]; /* name of the allocation holding each register */
    uint8_t scope[POOL_MAX];     /* scope depth it was allocated at (0: the kernel) */
} pool;

#define MAX_SCOPES 16

/* Kernel arguments as listed in the metadata. */
typedef struct {
    const char *name;
    int offset, size;
    bool is_ptr;
    bool is_const; /* read-only buffer */
} karg;

#define MAX_KARGS 64
#define MAX_KERNELS 256

/* What the .amdhsa_kernel block and the metadata need about one kernel. */
typedef struct {
    char name[128];
    int next_free_vgpr, next_free_sgpr, next_free_agpr, accum_offset;
    int lds_bytes;
    int block_size;
    int kernarg_size;
    int nargs;
    karg args[MAX_KARGS];
    bool uses_vcc;
} kernel_info;

typedef struct emit {
    const target *t;
    /* output */
    char *buf;
    size_t len, cap;
    /* sticky first error */
    bool failed;
    char err[1024];
    /* current kernel */
    bool in_kernel;
    kernel_info k;
    pool sgpr, vgpr, agpr;
    const char *scopes[MAX_SCOPES]; /* open allocation scopes, innermost last */
    int nscopes;
    int label_seq;
    /* hazard tracking (emit_hazard.c): wait states issued so far in the
       kernel and, per SGPR operand code, when a VALU last wrote it; labels
       inherit the state of the branches that reach them */
    struct emit_hz *hz;
    /* finished kernels */
    kernel_info *done;
    int ndone;
} emit;

void emit_init(emit *e, const target *t);
void emit_free(emit *e);
/* Report a broken rule in the generator (first error wins). */
void emit_fail(emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Raw line output (used by this module and the helpers only). */
void emit_line(emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void e_comment(emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void e_blank(emit *e);

/* File prologue (.amdgcn_target, the code object version) and the single
 * .amdgpu_metadata block listing every kernel. Returns 0 or -1 (e->err). */
void emit_begin_file(emit *e);
int emit_finish(emit *e);

/* Kernel scope: begin resets the pools and opens the text; the caller
 * declares the arguments; end checks every register was released, prints
 * the descriptor and records the metadata. */
void e_kernel_begin(emit *e, const char *name, int block_size);
void e_karg(emit *e, const char *name, int offset, int size, bool is_ptr, bool is_const);
void e_kernel_lds(emit *e, int bytes);
void e_kernel_end(emit *e);

/* Registers ------------------------------------------------------------- */

/* Allocate count registers aligned to align (power of two), named name
 * (must start with "s_", "v_" or "a_"). */
opnd sreg(emit *e, const char *name, int count, int align);
opnd vreg(emit *e, const char *name, int count, int align);
opnd areg(emit *e, const char *name, int count, int align);
/* A fixed register the hardware initialises (kernarg pointer, workitem id). */
opnd sreg_fixed(emit *e, const char *name, int index, int count);
opnd vreg_fixed(emit *e, const char *name, int index, int count);
void rfree(emit *e, opnd r);
/* A second name for (part of) a live allocation, for readable listings
 * (.set s_hi, s_args+4). Not freed on its own. */
opnd alias(emit *e, const char *name, opnd r);

/* Allocation scopes (one per kernel stage, say): registers allocated
 * between e_scope_begin and the matching e_scope_end belong to the scope.
 * e_scope_end(.., release = true) frees every one still live; with release
 * = false it is a leak check: a register of the scope still live fails the
 * emitter. Scopes nest (at most MAX_SCOPES); ending one that is not the
 * innermost, or ending a kernel with a scope open, fails the emitter. */
void e_scope_begin(emit *e, const char *name);
void e_scope_end(emit *e, const char *name, bool release);

/* Sub-registers of an allocation (out of range: an OPK_BAD operand that
 * every format function refuses). */
opnd at(opnd r, int i);              /* one register */
opnd sub(opnd r, int i, int count);  /* a range */

/* Other operands. */
opnd imm(int64_t v);
opnd fimm(float f);
opnd neg(opnd o);
opnd fabs_(opnd o);
extern const opnd VCC, EXEC, M0, SCC, OFF, NOOP;

/* Labels ---------------------------------------------------------------- */

typedef struct {
    int id;
    const char *hint;
} label;

label e_label_new(emit *e, const char *hint);
/* A named (non-local) symbol at this point, for tools that need an
 * address: e.g. __kloop_begin_<kernel> marks the main loop for the
 * emulator's statistics. */
void e_symbol(emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void e_label(emit *e, label l);

/* Instruction formats ----------------------------------------------------
 * op is the mnemonic without encoding suffix; the e64/e32 choice is made
 * by the format function. */
void e_sop1(emit *e, const char *op, opnd d, opnd a);
void e_sop2(emit *e, const char *op, opnd d, opnd a, opnd b);
void e_sopc(emit *e, const char *op, opnd a, opnd b);
void e_sopk(emit *e, const char *op, opnd d, int imm16);
void e_sopp(emit *e, const char *op, int imm16);
void e_branch(emit *e, const char *op, label l);
void e_smem(emit *e, const char *op, opnd d, opnd base, int offset);
/* SMEM with the offset in an SGPR. */
void e_smem_soff(emit *e, const char *op, opnd d, opnd base, opnd soff);
void e_vop1(emit *e, const char *op, opnd d, opnd a);
void e_vop2(emit *e, const char *op, opnd d, opnd a, opnd b);
/* VOP2 with a carry (v_add_co_u32 d, vcc, a, b). */
void e_vop2c(emit *e, const char *op, opnd d, opnd carry_out, opnd a, opnd b, opnd carry_in);
void e_vop3(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c);
void e_vopc(emit *e, const char *op, opnd sdst, opnd a, opnd b);
/* v_cndmask_b32 d, a, b, mask: lane gets b where mask is set. */
void e_cndmask(emit *e, opnd d, opnd a, opnd b, opnd mask);
void e_readlane(emit *e, const char *op, opnd sd, opnd v, opnd lane);
/* LDS: d/data may be NOOP where the op has none. */
void e_ds(emit *e, const char *op, opnd d, opnd addr, opnd data0, opnd data1, int off0, int off1);
/* MUBUF with offen: data, voffset, resource, soffset, immediate offset. */
void e_mubuf(emit *e, const char *op, opnd data, opnd voff, opnd rsrc, opnd soff, int offset);
void e_global(emit *e, const char *op, opnd data, opnd vaddr, opnd saddr, int offset);
/* The 16-bit memory ops (buffer_load_ushort, buffer_load_short_d16[_hi],
 * buffer_store_short[_d16_hi], ds_read_u16[_d16[_hi]], ds_write_b16[_d16_hi],
 * global_*) go through e_mubuf, e_ds and e_global: a _d16 load keeps the
 * other half of its VGPR, so it also reads it (hazards). */

/* VOP3P (packed math, v_dot*, v_fma_mix*): bit i of each mask is source i.
 * mods NULL: the assembler's defaults (op_sel 0, op_sel_hi all ones, no
 * negation); otherwise op_sel_hi is always printed. c may be NOOP. */
typedef struct {
    uint8_t op_sel, op_sel_hi, neg_lo, neg_hi;
    bool clamp;
} vop3p_mods;
void e_vop3p(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c, const vop3p_mods *mods);
/* VOP3P-MAI matrix FMA: d = a x b + c, op an MFMA of the target (pick one
 * by shape with arch/mfma.h mfma_pick, spell it with mfma_name). d and c:
 * AGPRs, or VGPRs where the MFMA table allows (gfx90a+: acc_cd = 0); c may
 * be an inline constant. cbsz/abid/blgp as the ISA (0 where unsupported). */
void e_mfma(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c, int cbsz, int abid, int blgp);
/* AGPR moves: v_accvgpr_read_b32 vdst, asrc; v_accvgpr_write_b32 adst,
 * vsrc or inline constant; v_accvgpr_mov_b32 adst, asrc (gfx90a+). */
void e_accvgpr_read(emit *e, opnd vd, opnd as);
void e_accvgpr_write(emit *e, opnd ad, opnd src);
void e_accvgpr_mov(emit *e, opnd ad, opnd as);
/* s_waitcnt: -1 leaves a counter unconstrained. */
void e_waitcnt(emit *e, int vmcnt, int lgkmcnt);
/* At least n wait states (s_nop n-1, split as needed). */
void e_nops(emit *e, int n);

/* The op-table row of mnemonic op on the emitter's target, of one of the
 * formats in fmts (a mask of 1u << F_x). NULL, with the emitter failed
 * ("not an instruction", "not on <target> (it exists on ...)", "a SOP2
 * instruction, not VOP2"), when there is none. */
const isa_opinfo *e_op(emit *e, const char *op, unsigned fmts);

/* Software hazards (emit_hazard.c). Every format function describes its
 * instruction to hz_inst_issue: the op-table row, the registers it reads
 * (rd; an MFMA's A, B, C in rd[0..2], a lane operation's lane select in
 * rd[1], a v_dot's accumulator in rd[2]) and writes (wr), the data of a
 * store the store-data-valu rule covers, and the label of a branch. It
 * inserts the s_nop wait states that the target's hazard facts require
 * since the last writes of those registers (SGPRs, VCC, EXEC, VGPRs,
 * AGPRs; VALU, MFMA, v_accvgpr_*, v_dot writers), then records the
 * instruction's writes and counts its wait state. */
typedef struct {
    const isa_opinfo *info;
    const mfma_info *mfma; /* MFMA: its table row */
    opnd wr[2];
    opnd rd[5];
    int nwr, nrd;
    opnd store_data;       /* a VMEM store of > 8 bytes (MUBUF with a constant soffset) */
    int label;             /* branch: the target's label id */
} hz_inst;
void hz_inst_issue(emit *e, const hz_inst *in);

/* hz_issue counts the wait states of an instruction printed outside
 * hz_inst_issue, one without register operands (s_nop N: N+1, s_waitcnt,
 * s_endpgm); every other instruction, the helpers' (emit_helpers.c)
 * included, goes through the op table and hz_inst_issue, which records its
 * register writes. SALU and SMEM writes are not recorded: as in LLVM's
 * GCNHazardRecognizer (and the emulator), the wait is measured from the
 * last VALU write even when a SALU instruction wrote the register since.
 * Branches carry the state to their label; a backward branch waits until
 * the loop body's first instructions are safe on the back edge
 * (emit_hazard.c). */
void hz_issue(emit *e, int wait_states);
void hz_branch(emit *e, label l);
void hz_label(emit *e, label l);
void hz_reset(emit *e);
void hz_free(emit *e);

/* Printing of an operand (for the helpers). */
const char *opnd_str(const opnd *o, char *buf, size_t len);

#endif
