/* Known-or-register scalar values (see values.h). */
#include "values.h"

#include "../conv/problem.h"
#include "emit_helpers.h"

sv sv_const(uint32_t k) { return (sv){.known = true, .k = k}; }
sv sv_reg(opnd r) { return (sv){.r = r}; }

opnd sv_op(sv x) { return x.known ? imm((int64_t)x.k) : x.r; }

opnd sv_sgpr(emit *e, sv x, opnd tmp)
{
    if (!x.known)
        return x.r;
    h_smov(e, tmp, imm((int64_t)x.k));
    return tmp;
}

void sv_free(emit *e, sv x)
{
    if (!x.known && x.owned)
        rfree(e, x.r);
}

static sv fresh(emit *e, const char *name)
{
    sv x = {.r = sreg(e, name, 1, 1), .owned = true};
    return x;
}

sv sv_mul(emit *e, const char *name, sv a, sv b)
{
    if ((a.known && b.known) || (a.known && !a.k) || (b.known && !b.k))
        return sv_const(a.known && b.known ? a.k * b.k : 0);
    if ((a.known && a.k == 1) || (b.known && b.k == 1)) {
        sv x = a.known ? b : a;
        x.owned = false;
        return x;
    }
    sv x = fresh(e, name);
    sv k = a.known ? a : b.known ? b : sv_const(0);
    sv r = a.known ? b : a;
    if ((a.known || b.known) && is_pow2(k.k))
        e_sop2(e, "s_lshl_b32", x.r, r.r, imm(log2u(k.k)));
    else
        e_sop2(e, "s_mul_i32", x.r, sv_op(a), sv_op(b));
    return x;
}

sv sv_add(emit *e, const char *name, sv a, sv b)
{
    if (a.known && b.known)
        return sv_const(a.k + b.k);
    if ((a.known && a.k == 0) || (b.known && b.k == 0)) {
        sv x = a.known ? b : a;
        x.owned = false;
        return x;
    }
    sv x = fresh(e, name);
    e_sop2(e, "s_add_u32", x.r, sv_op(a), sv_op(b));
    return x;
}

sv sv_select(emit *e, const char *name, sv cond, sv a, sv b)
{
    if (cond.known)
        return sv_borrow(cond.k ? a : b);
    if (a.known && b.known && a.k == b.k)
        return sv_const(a.k);
    /* a move and a conditional move: one operand each, so two literals
       never meet in one instruction */
    sv x = fresh(e, name);
    e_sop1(e, "s_mov_b32", x.r, sv_op(b));
    e_sopc(e, "s_cmp_lg_u32", sv_op(cond), imm(0));
    e_sop1(e, "s_cmov_b32", x.r, sv_op(a));
    return x;
}

sv sv_sub(emit *e, const char *name, sv a, sv b)
{
    if (a.known && b.known)
        return sv_const(a.k - b.k);
    if (b.known && b.k == 0) {
        a.owned = false;
        return a;
    }
    sv x = fresh(e, name);
    e_sop2(e, "s_sub_u32", x.r, sv_op(a), sv_op(b));
    return x;
}

sv sv_shl(emit *e, const char *name, sv a, int sh)
{
    if (a.known)
        return sv_const(a.k << sh);
    if (!sh) {
        a.owned = false;
        return a;
    }
    sv x = fresh(e, name);
    e_sop2(e, "s_lshl_b32", x.r, a.r, imm(sh));
    return x;
}

void sv_divmod(emit *e, const char *qname, const char *rname, sv n, sv d, sv magic, sv shift, sv *q, sv *r)
{
    if (n.known && d.known) {
        *q = sv_const(d.k ? n.k / d.k : 0);
        *r = sv_const(d.k ? n.k % d.k : 0);
        return;
    }
    if (d.known && d.k == 1) {
        /* a copy, so the caller may release n as it would after a division */
        *q = fresh(e, qname);
        h_smov(e, q->r, n.r);
        *r = sv_const(0);
        return;
    }
    *q = fresh(e, qname);
    *r = fresh(e, rname);
    if (d.known && is_pow2(d.k)) {
        e_sop2(e, "s_lshr_b32", q->r, n.r, imm(log2u(d.k)));
        e_sop2(e, "s_and_b32", r->r, n.r, imm(d.k - 1));
        return;
    }
    if (d.known) {
        igemm_magic m = igemm_magic_for(d.k);
        e_sop2(e, "s_mul_hi_u32", q->r, imm(m.magic), n.r);
        e_sop2(e, "s_add_u32", q->r, q->r, n.r);
        e_sop2(e, "s_lshr_b32", q->r, q->r, imm(m.shift));
        e_sop2(e, "s_mul_i32", r->r, q->r, imm(d.k));
        e_sop2(e, "s_sub_u32", r->r, n.r, r->r);
        return;
    }
    /* the division macro takes n in an SGPR: a known n goes through a scratch one */
    opnd n_tmp = n.known ? sreg(e, "s_n", 1, 1) : NOOP;
    h_mdiv_rem_s(e, r->r, q->r, sv_sgpr(e, n, n_tmp), magic.r, shift.r, d.r);
    if (n.known)
        rfree(e, n_tmp);
}

void vx_mul(emit *e, opnd d, opnd v, sv s, opnd stmp)
{
    if (s.known) {
        if (s.k == 0)
            h_vmov(e, d, imm(0));
        else if (s.k == 1)
            h_vmov(e, d, v);
        else if (is_pow2(s.k))
            e_vop2(e, "v_lshlrev_b32", d, imm(log2u(s.k)), v);
        else
            h_vmul_lo(e, d, v, sv_sgpr(e, s, stmp));
        return;
    }
    h_vmul_lo(e, d, v, s.r);
}

void vx_mad24(emit *e, opnd d, opnd a, sv s, opnd c, opnd stmp)
{
    e_vop3(e, "v_mad_u32_u24", d, a, sv_sgpr(e, s, stmp), c);
}

void vx_divmod(emit *e, opnd q, opnd r, opnd v, sv d, sv magic, sv shift, opnd stmp)
{
    if (d.known && d.k == 1) {
        h_vmov(e, q, v);
        if (r.kind != OPK_NONE)
            h_vmov(e, r, imm(0));
        return;
    }
    if (d.known && is_pow2(d.k)) {
        e_vop2(e, "v_lshrrev_b32", q, imm(log2u(d.k)), v);
        if (r.kind != OPK_NONE)
            e_vop2(e, "v_and_b32", r, imm(d.k - 1), v);
        return;
    }
    if (d.known) {
        igemm_magic m = igemm_magic_for(d.k);
        h_smov(e, stmp, imm(m.magic));
        e_vop3(e, "v_mul_hi_u32", q, stmp, v, NOOP);
        h_vadd(e, q, q, v);
        e_vop2(e, "v_lshrrev_b32", q, imm(m.shift), q);
        if (r.kind != OPK_NONE) {
            vx_mul(e, r, q, d, stmp);
            h_vsub(e, r, v, r);
        }
        return;
    }
    if (r.kind != OPK_NONE)
        h_mdiv_rem_v(e, r, q, v, magic.r, shift.r, d.r);
    else
        h_mdiv_v(e, q, v, magic.r, shift.r);
}
