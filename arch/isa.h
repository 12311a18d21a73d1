/* The instruction table shared by the generator and the emulator:
 * operations (ops.def, derived from llvm-mc by tools/isa/gen_ops.py), their
 * encoding formats, opcodes, the targets that have them and the operand
 * widths of each encoding. */
#ifndef IGEMM_ARCH_ISA_H
#define IGEMM_ARCH_ISA_H

#include <stdint.h>

#include "target.h"

typedef enum {
    F_SOP2, F_SOPK, F_SOP1, F_SOPC, F_SOPP, F_SMEM,
    F_VOP1, F_VOP2, F_VOPC, F_VOP3, F_VOP3P, F_MAI,
    F_DS, F_MUBUF, F_FLAT, F_GLOBAL,
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

/* One row of the operation table. */
typedef struct {
    isa_op op;
    const char *name;
    isa_fmt fmt;
    uint16_t opcode;
    uint8_t targets;               /* T_* mask (target.h) */
    uint8_t dw, s0w, s1w, s2w, sdw; /* operand widths in dwords */
} isa_opinfo;

extern const isa_opinfo isa_optable[];
extern const int isa_optable_len;

/* The row of mnemonic name (as llvm-mc spells it, without _e32/_e64)
 * encodable on the targets of mask t: a VOP3-only encoding is returned only
 * when the op has no other on t; NULL when the op does not exist there. */
const isa_opinfo *isa_find(const char *name, unsigned t);

#endif
