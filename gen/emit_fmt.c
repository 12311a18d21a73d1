/* The scalar and vector-ALU format functions. Each takes its op's row of
 * the op table (emit_op.c: the op exists on the target, in this format, its
 * register widths), checks the format's operand rules on gfx9/CDNA before
 * printing, and describes the instruction to the hazard tracker, so a
 * generator bug stops here with the kernel's name instead of surfacing as an
 * assembler error or a hazard on hardware. Memory formats: emit_mem.c;
 * VOP3P, MFMA and the AGPR moves: emit_mai.c. */
#include <stdio.h>
#include <string.h>

#include "emit_int.h"

#define FM(f) (1u << (f))

/* Hazard bookkeeping of an ALU instruction: nrd sources, up to two written. */
static void issue(emit *e, const isa_opinfo *r, const opnd *rd, int nrd, const opnd *w0, const opnd *w1)
{
    hz_inst in = {.info = r, .nrd = nrd};
    for (int i = 0; i < nrd; i++)
        in.rd[i] = rd[i];
    if (w0)
        in.wr[in.nwr++] = *w0;
    if (w1)
        in.wr[in.nwr++] = *w1;
    hz_inst_issue(e, &in);
}

/* ---- scalar ---- */

static bool ssrc_ok(const opnd *o) { return is_scalar_reg(o) || o->kind == OPK_INT || o->kind == OPK_FLOAT; }

void e_sop1(emit *e, const char *op, opnd d, opnd a)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOP1), (opnd[]){d, a}, 2);
    if (!r || !need(e, is_scalar_reg(&d) && ssrc_ok(&a), op, "SOP1 takes an SGPR destination and a scalar source"))
        return;
    if (!width_ok(e, op, &d, r->dw, "destination") || !width_ok(e, op, &a, r->s0w, "source"))
        return;
    emit_line(e, "    %s %s, %s", op, S(d), S(a));
    issue(e, r, (opnd[]){a}, 1, &d, NULL);
}

void e_sop2(emit *e, const char *op, opnd d, opnd a, opnd b)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOP2), (opnd[]){d, a, b}, 3);
    if (!r || !need(e, is_scalar_reg(&d) && ssrc_ok(&a) && ssrc_ok(&b), op, "SOP2 takes scalar operands"))
        return;
    if (!need(e, !(is_literal(&a) && is_literal(&b) && a.imm != b.imm), op, "SOP2 allows one literal"))
        return;
    if (!width_ok(e, op, &d, r->dw, "destination") || !width_ok(e, op, &a, r->s0w, "src0") ||
        !width_ok(e, op, &b, r->s1w, "src1"))
        return;
    emit_line(e, "    %s %s, %s, %s", op, S(d), S(a), S(b));
    issue(e, r, (opnd[]){a, b}, 2, &d, NULL);
}

void e_sopc(emit *e, const char *op, opnd a, opnd b)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOPC), (opnd[]){a, b}, 2);
    if (!r || !need(e, ssrc_ok(&a) && ssrc_ok(&b), op, "SOPC takes scalar operands"))
        return;
    if (!width_ok(e, op, &a, r->s0w, "src0") || !width_ok(e, op, &b, r->s1w, "src1"))
        return;
    emit_line(e, "    %s %s, %s", op, S(a), S(b));
    issue(e, r, (opnd[]){a, b}, 2, NULL, NULL);
}

void e_sopk(emit *e, const char *op, opnd d, int imm16)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOPK), &d, 1);
    if (!r || !need(e, is_scalar_reg(&d) && imm16 >= -32768 && imm16 <= 65535, op,
                    "SOPK takes an SGPR and a 16-bit immediate"))
        return;
    emit_line(e, "    %s %s, 0x%x", op, S(d), imm16 & 0xffff);
    issue(e, r, NULL, 0, &d, NULL);
}

void e_sopp(emit *e, const char *op, int imm16)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOPP), NULL, 0);
    if (!r || !need(e, r->cls != IC_BRANCH, op, "a branch takes a label (e_branch)"))
        return;
    if (!need(e, imm16 >= 0 && imm16 <= 65535 && (!(r->flags & ISAF_NO_IMM) || imm16 == 0), op,
              "SOPP immediate out of range"))
        return;
    if (r->flags & ISAF_NO_IMM)
        emit_line(e, "    %s", op);
    else
        emit_line(e, "    %s %d", op, imm16);
    hz_issue(e, (r->flags & ISAF_NOP) ? imm16 + 1 : 1);
}

void e_branch(emit *e, const char *op, label l)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SOPP), NULL, 0);
    if (!r || !need(e, r->cls == IC_BRANCH, op, "not a branch"))
        return;
    hz_branch(e, l);
    emit_line(e, "    %s .L%d_%s", op, l.id, l.hint);
    hz_inst in = {.info = r, .label = l.id};
    hz_inst_issue(e, &in);
}

static bool smem_common(emit *e, const char *op, const isa_opinfo *r, opnd d, opnd base)
{
    if (!need(e, d.kind == OPK_SGPR && base.kind == OPK_SGPR && base.index % 2 == 0, op,
              "SMEM takes SGPRs and an aligned base"))
        return false;
    if (!width_ok(e, op, &d, r->dw, "destination") || !width_ok(e, op, &base, r->s0w, "base"))
        return false;
    return need(e, d.count == 1 || d.index % (d.count > 4 ? 4 : d.count) == 0, op, "SMEM destination misaligned");
}

void e_smem(emit *e, const char *op, opnd d, opnd base, int offset)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SMEM), (opnd[]){d, base}, 2);
    if (!r || !smem_common(e, op, r, d, base))
        return;
    if (!need(e, offset >= 0 && offset < (1 << 20) && offset % 4 == 0, op, "SMEM offset out of range"))
        return;
    emit_line(e, "    %s %s, %s, 0x%x", op, S(d), S(base), offset);
    issue(e, r, (opnd[]){base}, 1, &d, NULL);
}

void e_smem_soff(emit *e, const char *op, opnd d, opnd base, opnd soff)
{
    const isa_opinfo *r = op_row(e, op, FM(F_SMEM), (opnd[]){d, base, soff}, 3);
    if (!r || !need(e, soff.kind == OPK_SGPR && soff.count == 1, op, "SMEM offset register must be one SGPR"))
        return;
    if (!smem_common(e, op, r, d, base))
        return;
    emit_line(e, "    %s %s, %s, %s", op, S(d), S(base), S(soff));
    issue(e, r, (opnd[]){base, soff}, 2, &d, NULL);
}

void e_waitcnt(emit *e, int vmcnt, int lgkmcnt)
{
    if (!op_row(e, "s_waitcnt", FM(F_SOPP), NULL, 0))
        return;
    if (!need(e, vmcnt <= e->t->vmcnt_max && lgkmcnt <= e->t->lgkmcnt_max, "s_waitcnt",
              "counter beyond the target's limit (vmcnt, lgkmcnt)"))
        return;
    if (vmcnt >= 0 && lgkmcnt >= 0)
        emit_line(e, "    s_waitcnt vmcnt(%d) lgkmcnt(%d)", vmcnt, lgkmcnt);
    else if (vmcnt >= 0)
        emit_line(e, "    s_waitcnt vmcnt(%d)", vmcnt);
    else if (lgkmcnt >= 0)
        emit_line(e, "    s_waitcnt lgkmcnt(%d)", lgkmcnt);
    hz_issue(e, 1);
}

void e_nops(emit *e, int n)
{
    while (n > 0 && !e->failed) {
        int k = n > 16 ? 16 : n;
        emit_line(e, "    s_nop %d", k - 1);
        hz_issue(e, k);
        n -= k;
    }
}

/* ---- vector ALU ---- */

/* Widths of a VALU op's destination and sources against its row. */
static bool valu_widths(emit *e, const char *op, const isa_opinfo *r, const opnd *d, const opnd *a, const opnd *b,
                        const opnd *c)
{
    return width_ok(e, op, d, r->dw, "destination") && (!a || width_ok(e, op, a, r->s0w, "src0")) &&
           (!b || width_ok(e, op, b, r->s1w, "src1")) && (!c || width_ok(e, op, c, r->s2w, "src2"));
}

void e_vop1(emit *e, const char *op, opnd d, opnd a)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOP1), (opnd[]){d, a}, 2);
    if (!r)
        return;
    bool sdst = r->flags & ISAF_SDST;
    if (!need(e, (sdst ? d.kind == OPK_SGPR : is_vgpr(&d)) && is_src(&a), op, "VOP1 operand kinds"))
        return;
    if (!valu_widths(e, op, r, &d, &a, NULL, NULL))
        return;
    if (a.mods) {
        const opnd *s[] = {&a};
        if (!need(e, !is_literal(&a) && const_bus_ok(s, 1, false), op, "VOP3 form takes no literal"))
            return;
    }
    issue(e, r, (opnd[]){a}, 1, &d, NULL);
    emit_line(e, "    %s%s %s, %s", op, a.mods ? "_e64" : "", S(d), S(a));
}

void e_vop2(emit *e, const char *op, opnd d, opnd a, opnd b)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOP2), (opnd[]){d, a, b}, 3);
    const opnd *s[] = {&a, &b};
    if (!r || !need(e, is_vgpr(&d) && is_src(&a) && is_src(&b), op, "VOP2 operand kinds"))
        return;
    if (!need(e, const_bus_ok(s, 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    if (!valu_widths(e, op, r, &d, &a, &b, NULL))
        return;
    /* src1 not a VGPR, or a modifier: the VOP3 encoding, which takes no literal */
    bool e64 = !is_vgpr(&b) || a.mods || b.mods;
    if (e64 && !need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded operation"))
        return;
    issue(e, r, (opnd[]){a, b}, 2, &d, NULL);
    emit_line(e, "    %s%s %s, %s, %s", op, e64 ? "_e64" : "", S(d), S(a), S(b));
}

static bool is_vcc(const opnd *o) { return o->kind == OPK_SPECIAL && o->name && !strcmp(o->name, "vcc"); }

void e_vop2c(emit *e, const char *op, opnd d, opnd co, opnd a, opnd b, opnd ci)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOP2), (opnd[]){d, co, a, b, ci}, 5);
    bool has_ci = ci.kind != OPK_NONE;
    bool e32 = is_vcc(&co) && is_vgpr(&b) && (!has_ci || is_vcc(&ci));
    const opnd *s[] = {&a, &b, &ci};
    if (!r || !need(e, is_vgpr(&d) && is_src(&a) && is_src(&b), op, "VOP2 carry operand kinds"))
        return;
    if (!need(e, r->sdw == 2, op, "not a VOP2 operation with a carry"))
        return;
    if (!need(e, const_bus_ok(s, has_ci ? 3 : 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    if (!e32 && !need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded operation"))
        return;
    if (!valu_widths(e, op, r, &d, &a, &b, NULL) || !width_ok(e, op, &co, 2, "carry-out"))
        return;
    issue(e, r, (opnd[]){a, b, has_ci ? ci : NOOP}, 3, &d, &co);
    if (has_ci)
        emit_line(e, "    %s%s %s, %s, %s, %s, %s", op, e32 ? "" : "_e64", S(d), S(co), S(a), S(b), S(ci));
    else
        emit_line(e, "    %s%s %s, %s, %s, %s", op, e32 ? "" : "_e64", S(d), S(co), S(a), S(b));
}

void e_vop3(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOP3), (opnd[]){d, a, b, c}, 4);
    bool has_c = c.kind != OPK_NONE;
    const opnd *s[] = {&a, &b, &c};
    if (!r || !need(e, is_vgpr(&d) && is_src(&a) && is_src(&b) && (!has_c || is_src(&c)), op, "VOP3 operand kinds"))
        return;
    if (!need(e, !(r->flags & (ISAF_SDST | ISAF_LANESEL)), op, "a lane operation (e_readlane)"))
        return;
    if (!need(e, has_c == (r->s2w != 0), op, has_c ? "the op takes two sources" : "the op takes three sources"))
        return;
    if (!need(e, !is_literal(&a) && !is_literal(&b) && !(has_c && is_literal(&c)), op,
              "literal in a VOP3 operation (gfx9 has none)"))
        return;
    if (!need(e, const_bus_ok(s, has_c ? 3 : 2, false), op, "more than one SGPR (gfx9 constant bus)"))
        return;
    if (!valu_widths(e, op, r, &d, &a, &b, has_c ? &c : NULL))
        return;
    issue(e, r, (opnd[]){a, b, has_c ? c : NOOP}, 3, &d, NULL);
    if (has_c)
        emit_line(e, "    %s %s, %s, %s, %s", op, S(d), S(a), S(b), S(c));
    else
        emit_line(e, "    %s %s, %s, %s", op, S(d), S(a), S(b));
}

void e_vopc(emit *e, const char *op, opnd sd, opnd a, opnd b)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOPC), (opnd[]){sd, a, b}, 3);
    const opnd *s[] = {&a, &b};
    bool to_vcc = is_vcc(&sd);
    if (!r || !need(e, (to_vcc || (sd.kind == OPK_SGPR && sd.count == 2 && sd.index % 2 == 0)) && is_src(&a) &&
                           is_src(&b),
                    op, "VOPC operand kinds"))
        return;
    if (!need(e, const_bus_ok(s, 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    if (!width_ok(e, op, &a, r->s0w, "src0") || !width_ok(e, op, &b, r->s1w, "src1"))
        return;
    bool e64 = !(to_vcc && is_vgpr(&b) && !a.mods && !b.mods);
    if (e64 && !need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded compare"))
        return;
    issue(e, r, (opnd[]){a, b}, 2, &sd, (r->flags & ISAF_EXEC_W) ? &EXEC : NULL);
    emit_line(e, "    %s%s %s, %s, %s", op, e64 ? "_e64" : "", S(sd), S(a), S(b));
}

void e_cndmask(emit *e, opnd d, opnd a, opnd b, opnd mask)
{
    const char *op = "v_cndmask_b32";
    const isa_opinfo *r = op_row(e, op, FM(F_VOP2), (opnd[]){d, a, b, mask}, 4);
    bool vcc = is_vcc(&mask);
    const opnd *s[] = {&a, &b};
    if (!r || !need(e, is_vgpr(&d) && is_src(&a) && is_src(&b) && (vcc || (mask.kind == OPK_SGPR && mask.count == 2)),
                    op, "operand kinds"))
        return;
    if (!valu_widths(e, op, r, &d, &a, &b, NULL))
        return;
    bool e32 = vcc && is_vgpr(&b);
    if (e32 && !need(e, const_bus_ok(s, 2, true), op, "SGPR/literal besides vcc (gfx9 constant bus)"))
        return;
    const opnd *s3[] = {&a, &b, &mask};
    if (!e32 && !need(e, !is_literal(&a) && !is_literal(&b) && const_bus_ok(s3, 3, false), op,
                      "VOP3 form: no literal, one SGPR including the mask"))
        return;
    issue(e, r, (opnd[]){a, b, mask}, 3, &d, NULL);
    emit_line(e, "    %s%s %s, %s, %s, %s", op, e32 ? "" : "_e64", S(d), S(a), S(b), S(mask));
}

void e_readlane(emit *e, const char *op, opnd sd, opnd v, opnd lane)
{
    const isa_opinfo *r = op_row(e, op, FM(F_VOP3), (opnd[]){sd, v, lane}, 3);
    if (!r || !need(e, r->flags & ISAF_LANESEL, op, "not a lane operation"))
        return;
    bool write = !(r->flags & ISAF_SDST);
    if (!need(e, write ? (is_vgpr(&sd) && (is_scalar_reg(&v) || v.kind == OPK_INT)) : (sd.kind == OPK_SGPR && is_vgpr(&v)),
              op, "lane operation operand kinds"))
        return;
    if (!need(e, lane.kind == OPK_SGPR || (lane.kind == OPK_INT && lane.imm >= 0 && lane.imm < 64), op,
              "lane select must be an SGPR or 0..63"))
        return;
    if (!valu_widths(e, op, r, &sd, &v, &lane, NULL))
        return;
    issue(e, r, (opnd[]){v, lane}, 2, &sd, NULL);
    emit_line(e, "    %s %s, %s, %s", op, S(sd), S(v), S(lane));
}
