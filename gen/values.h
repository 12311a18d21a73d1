/* Scalar values that are either known when the kernel is generated (a
 * static twin bakes the shape in) or held in an SGPR (the dynamic kernel
 * loads them as arguments). Kernel writers compute with these and the same
 * code yields both kernels: known operands fold at generation time, unknown
 * ones emit scalar instructions; divisions by known values become shifts or
 * constant magic multiplies, by unknown ones the magic-number macros. */
#ifndef IGEMM_GEN_VALUES_H
#define IGEMM_GEN_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "emit.h"

typedef struct {
    bool known;
    uint32_t k;   /* value when known */
    opnd r;       /* SGPR otherwise */
    bool owned;   /* r was allocated by an sv_* operation (sv_free releases it) */
} sv;

sv sv_const(uint32_t k);
/* x as a second name that sv_free leaves alone (the owner releases it). */
static inline sv sv_borrow(sv x)
{
    x.owned = false;
    return x;
}
sv sv_reg(opnd r);
/* As an operand of a scalar or VOP2/VOPC src0 (literals allowed there). */
opnd sv_op(sv x);
/* As an SGPR operand (VOP3 sources): a known value is moved into tmp. */
opnd sv_sgpr(emit *e, sv x, opnd tmp);
void sv_free(emit *e, sv x);

/* Scalar arithmetic; an unknown result goes to a fresh SGPR named name.
 * When an operand makes the operation an identity (x*1, x+0) the result
 * is that operand itself, not owned: release it only after the result's
 * last use. */
sv sv_mul(emit *e, const char *name, sv a, sv b);
sv sv_add(emit *e, const char *name, sv a, sv b);
sv sv_sub(emit *e, const char *name, sv a, sv b);
sv sv_shl(emit *e, const char *name, sv a, int sh);
/* cond != 0 ? a : b; a known cond chooses at generation time (the result
 * is then a or b itself, not owned). */
sv sv_select(emit *e, const char *name, sv cond, sv a, sv b);

/* Scalar q = n / d, r = n % d with the divisor's magic pair (d, magic,
 * shift all known or all registers). q and r are fresh SGPRs or constants;
 * n may be a register or known. */
void sv_divmod(emit *e, const char *qname, const char *rname, sv n, sv d, sv magic, sv shift, sv *q, sv *r);

/* Vector helpers: v is a VGPR, s a value. */
void vx_mul(emit *e, opnd d, opnd v, sv s, opnd stmp);          /* d = v * s (low 32 bits) */
void vx_mad24(emit *e, opnd d, opnd a, sv s, opnd c, opnd stmp); /* d = a * s + c, a and s < 2^24 */
/* q = v / d, r = v % d (r may be NOOP); q, r, v distinct VGPRs. */
void vx_divmod(emit *e, opnd q, opnd r, opnd v, sv d, sv magic, sv shift, opnd stmp);

static inline bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }
static inline int log2u(uint32_t x) { return 31 - __builtin_clz(x); }

#endif
