/* VOP3P (packed math, v_dot*, v_fma_mix*), VOP3P-MAI matrix FMA (the MFMA
 * table arch/mfma.h says what each instruction's operands may be on each
 * target) and the AGPR moves v_accvgpr_read/write/mov. */
#include <stdio.h>

#include "emit_int.h"

/* gfx90a+: a VGPR/AGPR tuple of two or more registers starts at an even
 * register (llvm-mc: "vgpr tuples must be 64 bit aligned"). */
static bool tuple_ok(emit *e, const char *op, const opnd *o, const char *what)
{
    char msg[96];
    if (!e->t->unified_acc_vgprs || !is_vreg_file(o) || o->count < 2 || o->index % 2 == 0)
        return !e->failed;
    snprintf(msg, sizeof msg, "%s %s: register tuples must start at an even register on this target", what, S(*o));
    return need(e, false, op, msg);
}

/* " name:[b0,b1(,b2)]" of mask bits for n sources, or "" when all are
   dflt and not forced. */
static void print_bits(char *buf, size_t len, const char *name, unsigned mask, int n, bool force)
{
    if (!force && !mask) {
        buf[0] = 0;
        return;
    }
    int k = snprintf(buf, len, " %s:[", name);
    for (int i = 0; i < n && k > 0 && (size_t)k < len; i++)
        k += snprintf(buf + k, len - (size_t)k, "%s%u", i ? "," : "", (mask >> i) & 1);
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, "]");
}

void e_vop3p(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c, const vop3p_mods *m)
{
    const isa_opinfo *r = op_row(e, op, 1u << F_VOP3P, (opnd[]){d, a, b, c}, 4);
    bool has_c = c.kind != OPK_NONE;
    int n = has_c ? 3 : 2;
    const opnd *s[] = {&a, &b, &c};
    if (!r || !need(e, is_vgpr(&d) && is_src(&a) && is_src(&b) && (!has_c || is_src(&c)), op, "VOP3P operand kinds"))
        return;
    if (!need(e, has_c == (r->s2w != 0), op, has_c ? "the op takes two sources" : "the op takes three sources"))
        return;
    if (!need(e, !(a.mods | b.mods | c.mods), op, "VOP3P negates with neg_lo/neg_hi, not operand modifiers"))
        return;
    if (!need(e, !is_literal(&a) && !is_literal(&b) && !(has_c && is_literal(&c)), op,
              "literal in a VOP3P operation (gfx9 has none)"))
        return;
    if (!need(e, const_bus_ok(s, n, false), op, "more than one SGPR (gfx9 constant bus)"))
        return;
    unsigned all = (1u << n) - 1;
    if (m && !need(e, !((m->op_sel | m->op_sel_hi | m->neg_lo | m->neg_hi) & ~all), op,
                   "a modifier bit for a source the op does not have"))
        return;
    if (!width_ok(e, op, &d, r->dw, "destination") || !width_ok(e, op, &a, r->s0w, "src0") ||
        !width_ok(e, op, &b, r->s1w, "src1") || (has_c && !width_ok(e, op, &c, r->s2w, "src2")))
        return;
    if (!tuple_ok(e, op, &d, "destination") || !tuple_ok(e, op, &a, "src0") || !tuple_ok(e, op, &b, "src1") ||
        (has_c && !tuple_ok(e, op, &c, "src2")))
        return;
    char sel[32] = "", hi[32] = "", nlo[32] = "", nhi[32] = "";
    if (m) {
        print_bits(sel, sizeof sel, "op_sel", m->op_sel, n, false);
        print_bits(hi, sizeof hi, "op_sel_hi", m->op_sel_hi, n, true);
        print_bits(nlo, sizeof nlo, "neg_lo", m->neg_lo, n, false);
        print_bits(nhi, sizeof nhi, "neg_hi", m->neg_hi, n, false);
    }
    hz_inst in = {.info = r, .rd = {a, b, has_c ? c : NOOP}, .nrd = 3, .wr = {d}, .nwr = 1};
    hz_inst_issue(e, &in);
    if (has_c)
        emit_line(e, "    %s %s, %s, %s, %s%s%s%s%s%s", op, S(d), S(a), S(b), S(c), sel, hi, nlo, nhi,
                  m && m->clamp ? " clamp" : "");
    else
        emit_line(e, "    %s %s, %s, %s%s%s%s%s%s", op, S(d), S(a), S(b), sel, hi, nlo, nhi, m && m->clamp ? " clamp" : "");
}

void e_mfma(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c, int cbsz, int abid, int blgp)
{
    const isa_opinfo *r = op_row(e, op, 1u << F_MAI, (opnd[]){d, a, b, c}, 4);
    const mfma_info *m = r ? mfma_by_op(r->op) : NULL;
    if (!r || !need(e, m != NULL, op, "not a matrix FMA of the MFMA table (arch/mfma.def)"))
        return;
    bool cd_vgpr = m->cd_vgpr_targets & e->t->bit;
    bool c_const = (c.kind == OPK_INT || c.kind == OPK_FLOAT) && !is_literal(&c);
    if (!need(e, d.kind == OPK_AGPR || (cd_vgpr && d.kind == OPK_VGPR), op,
              cd_vgpr ? "D must be VGPRs or AGPRs" : "D must be AGPRs on this target"))
        return;
    if (!need(e, c.kind == d.kind || (cd_vgpr && c_const), op,
              cd_vgpr ? "C must be in D's register file (acc_cd covers both) or an inline constant"
                      : "C must be AGPRs on this target"))
        return;
    bool ab_file = is_vgpr(&a) && is_vgpr(&b);
    if (m->ab_agpr)
        ab_file = is_vreg_file(&a) && is_vreg_file(&b);
    if (!need(e, ab_file, op, "A and B must be VGPRs or AGPRs"))
        return;
    if (!width_ok(e, op, &d, m->cd_gprs, "D") || !width_ok(e, op, &c, m->cd_gprs, "C") ||
        !width_ok(e, op, &a, m->a_gprs, "A") || !width_ok(e, op, &b, m->b_gprs, "B"))
        return;
    if (!tuple_ok(e, op, &d, "D") || !tuple_ok(e, op, &c, "C") || !tuple_ok(e, op, &a, "A") || !tuple_ok(e, op, &b, "B"))
        return;
    int log2_blocks = 0;
    while ((1 << (log2_blocks + 1)) <= m->blocks)
        log2_blocks++;
    int cbsz_max = m->cbsz_abid ? (log2_blocks < 4 ? log2_blocks : 4) : 0;
    if (!need(e, cbsz >= 0 && cbsz <= cbsz_max && abid >= 0 && abid < (1 << cbsz), op,
              m->cbsz_abid ? "cbsz beyond log2(blocks) or abid >= 2^cbsz" : "the op has no cbsz/abid"))
        return;
    if (!need(e, blgp >= 0 && blgp <= (m->blgp ? 7 : 0), op, m->blgp ? "blgp is 0..7" : "the op has no blgp"))
        return;
    char mods[48] = "";
    int k = 0;
    if (cbsz)
        k += snprintf(mods + k, sizeof mods - (size_t)k, " cbsz:%d", cbsz);
    if (abid)
        k += snprintf(mods + k, sizeof mods - (size_t)k, " abid:%d", abid);
    if (blgp)
        snprintf(mods + k, sizeof mods - (size_t)k, " blgp:%d", blgp);
    hz_inst in = {.info = r, .mfma = m, .rd = {a, b, c}, .nrd = 3, .wr = {d}, .nwr = 1};
    hz_inst_issue(e, &in);
    emit_line(e, "    %s %s, %s, %s, %s%s", op, S(d), S(a), S(b), S(c), mods);
}

static void acc_move(emit *e, const char *op, unsigned flag, opnd d, opnd s, bool d_ok, bool s_ok, const char *kinds)
{
    const isa_opinfo *r = op_row(e, op, (1u << F_MAI) | (1u << F_VOP1), (opnd[]){d, s}, 2);
    if (!r || !need(e, r->flags & flag, op, "not this AGPR move") || !need(e, d_ok && s_ok, op, kinds))
        return;
    if (!width_ok(e, op, &d, 1, "destination") || !width_ok(e, op, &s, 1, "source"))
        return;
    hz_inst in = {.info = r, .rd = {s}, .nrd = 1, .wr = {d}, .nwr = 1};
    hz_inst_issue(e, &in);
    emit_line(e, "    %s %s, %s", op, S(d), S(s));
}

void e_accvgpr_read(emit *e, opnd vd, opnd as)
{
    acc_move(e, "v_accvgpr_read_b32", ISAF_ACC_READ, vd, as, is_vgpr(&vd), as.kind == OPK_AGPR,
             "v_accvgpr_read_b32 takes a VGPR destination and an AGPR source");
}

void e_accvgpr_write(emit *e, opnd ad, opnd src)
{
    acc_move(e, "v_accvgpr_write_b32", ISAF_ACC_WRITE, ad, src, ad.kind == OPK_AGPR,
             is_vgpr(&src) || ((src.kind == OPK_INT || src.kind == OPK_FLOAT) && !is_literal(&src) && !src.mods),
             "v_accvgpr_write_b32 takes an AGPR destination and a VGPR or inline-constant source");
}

void e_accvgpr_mov(emit *e, opnd ad, opnd as)
{
    acc_move(e, "v_accvgpr_mov_b32", ISAF_ACC_MOV, ad, as, ad.kind == OPK_AGPR, as.kind == OPK_AGPR,
             "v_accvgpr_mov_b32 takes AGPRs");
}
