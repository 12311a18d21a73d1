/* The instruction table shared by the generator and the emulator:
 * operations (ops.def, derived from llvm-mc by tools/isa/gen_ops.py), their
 * encoding formats, opcodes, the targets that have them, the operand widths
 * of each encoding, their class and their flags. */
#ifndef IGEMM_ARCH_ISA_H
#define IGEMM_ARCH_ISA_H

#include <stdint.h>

#include "target.h"

typedef enum {
    F_SOP2, F_SOPK, F_SOP1, F_SOPC, F_SOPP, F_SMEM,
    F_VOP1, F_VOP2, F_VOPC, F_VOP3, F_VOP3P, F_MAI,
    F_DS, F_MUBUF, F_FLAT, F_GLOBAL, F_SCRATCH,
    F_COUNT
} isa_fmt;

typedef enum {
#define OPID(id) OP_##id,
#define OP(...)
#include "ops.def"
#undef OPID
#undef OP
    OP_COUNT
} isa_op;

/* What kind of unit runs an instruction (the emitter's hazard rules and
 * format checks ask this instead of reading the mnemonic). v_accvgpr_*
 * moves are VALU; only v_mfma_* is IC_MFMA. */
typedef enum {
    IC_SALU, IC_SMEM, IC_BRANCH, IC_PROGRAM, /* s_nop, s_waitcnt, s_barrier, s_endpgm, ... */
    IC_VALU, IC_MFMA, IC_DS, IC_VMEM,
    IC_COUNT
} isa_class;

/* Per-encoding flags (tools/isa/gen_ops.py op_flags derives them). */
enum {
    ISAF_SDST = 1u << 0,       /* a vector op whose destination is an SGPR (v_readlane) */
    ISAF_LANESEL = 1u << 1,    /* src1 selects a lane (v_readlane/v_writelane) */
    ISAF_EXEC_W = 1u << 2,     /* also writes EXEC (v_cmpx_*, s_*_saveexec_b64) */
    ISAF_LOAD = 1u << 3,       /* memory: reads memory into registers */
    ISAF_STORE = 1u << 4,      /* memory: writes registers to memory */
    ISAF_ATOMIC = 1u << 5,     /* memory: read-modify-write */
    ISAF_DS2 = 1u << 6,        /* ds_read2/ds_write2: two 8-bit offsets */
    ISAF_D16 = 1u << 7,        /* a 16-bit load that keeps the other half of its VGPR */
    ISAF_NO_IMM = 1u << 8,     /* SOPP without an operand (s_endpgm, s_barrier) */
    ISAF_NOP = 1u << 9,        /* s_nop N: N + 1 wait states */
    ISAF_ACC_READ = 1u << 10,  /* v_accvgpr_read_b32: AGPR -> VGPR */
    ISAF_ACC_WRITE = 1u << 11, /* v_accvgpr_write_b32: VGPR/constant -> AGPR */
    ISAF_ACC_MOV = 1u << 12,   /* v_accvgpr_mov_b32: AGPR -> AGPR (gfx90a+) */
    ISAF_DOT = 1u << 13,       /* v_dot* */
    ISAF_COMPARE = 1u << 14,   /* a compare: writes SCC or a lane mask, not its destination field (s_cmpk_*) */
    ISAF_FMOD = 1u << 15,      /* VOP3 neg/abs act on its 32-bit sources as floats (an f32 op, v_cndmask_b32) */
    ISAF_TRANS = 1u << 16,     /* transcendental: v_rcp/rsq/sqrt/exp/log/sin/cos (quarter rate) */
    ISAF_MEM8 = 1u << 17,      /* memory: 8-bit elements */
    ISAF_MEM16 = 1u << 18,     /* memory: 16-bit elements */
    ISAF_OT_F16 = 1u << 19,    /* inline constants and literals are f16 (for a conversion: its source) */
    ISAF_OT_F32 = 1u << 20,    /* ... f32 */
    ISAF_OT_F64 = 1u << 21,    /* ... f64 */
};

/* One row of the operation table. */
typedef struct {
    isa_op op;
    const char *name;
    isa_fmt fmt;
    uint16_t opcode;
    uint8_t targets;               /* T_* mask (target.h) */
    uint8_t dw, s0w, s1w, s2w, sdw; /* operand widths in dwords */
    uint8_t cls;                   /* isa_class */
    uint32_t flags;                /* ISAF_* */
} isa_opinfo;

extern const isa_opinfo isa_optable[];
extern const int isa_optable_len;

/* The row of mnemonic name (as llvm-mc spells it, without _e32/_e64)
 * encodable on the targets of mask t: a VOP3-only encoding is returned only
 * when the op has no other on t; NULL when the op does not exist there. */
const isa_opinfo *isa_find(const char *name, unsigned t);

/* The T_* mask of every target that has mnemonic name in some encoding (0:
 * not in the table). */
unsigned isa_targets_of(const char *name);

/* "VOP3P", "VOP3P-MAI", "DS", ...: the format's name in messages. */
const char *isa_fmt_name(isa_fmt f);

#endif
