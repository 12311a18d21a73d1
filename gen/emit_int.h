/* Internals shared by the format functions (emit_op.c, emit_fmt.c,
 * emit_mem.c, emit_mai.c): operand classification, printing, the checks
 * every format makes. Not for kernel writers. */
#ifndef IGEMM_EMIT_INT_H
#define IGEMM_EMIT_INT_H

#include "emit.h"

bool inline_int(int64_t v);
bool inline_float(float f);
bool is_literal(const opnd *o);
static inline bool is_scalar_reg(const opnd *o) { return o->kind == OPK_SGPR || o->kind == OPK_SPECIAL; }
static inline bool is_vgpr(const opnd *o) { return o->kind == OPK_VGPR; }
static inline bool is_src(const opnd *o)
{
    return o->kind >= OPK_SGPR && o->kind <= OPK_FLOAT && o->kind != OPK_AGPR;
}
static inline bool is_vreg_file(const opnd *o) { return o->kind == OPK_VGPR || o->kind == OPK_AGPR; }

/* Operand text in one of a few rotating buffers: enough for one line. */
const char *ostr(const opnd *o);
#define S(o) ostr(&(o))

/* cond, or fail the emitter with "op: what" (false also once it failed). */
bool need(emit *e, bool cond, const char *op, const char *what);

/* The row of op for a format function (e_op), after checking that none of
 * the n operands is an out-of-range sub-register. NULL: failed. */
const isa_opinfo *op_row(emit *e, const char *op, unsigned fmts, const opnd *ops, int n);

/* A register operand (width 0 in the row: unchecked) has the width of its
 * row; what names it in the message ("destination", "src0"). */
bool width_ok(emit *e, const char *op, const opnd *o, int width, const char *what);

/* gfx9 VALU: at most one scalar value (SGPR, special register or literal)
 * per instruction; the same SGPR read twice counts once. */
bool const_bus_ok(const opnd *const *srcs, int n, bool implicit_vcc);

#endif
