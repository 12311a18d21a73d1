/* One function per instruction format. Each checks the operand rules of its
 * format on gfx9/CDNA before printing, so a generator bug stops here with
 * the kernel's name instead of surfacing as an assembler error. */
#include <stdio.h>
#include <string.h>

#include "emit.h"

/* ---- operand classification ---- */

static bool inline_int(int64_t v) { return v >= -16 && v <= 64; }

static bool inline_float(float f)
{
    static const float ok[] = {0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 4.0f, -4.0f, 0.15915494f};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (f == ok[i])
            return true;
    return false;
}

static bool is_literal(const opnd *o)
{
    return (o->kind == OPK_INT && !inline_int(o->imm)) || (o->kind == OPK_FLOAT && !inline_float(o->f));
}

static bool is_scalar_reg(const opnd *o) { return o->kind == OPK_SGPR || o->kind == OPK_SPECIAL; }
static bool is_vgpr(const opnd *o) { return o->kind == OPK_VGPR; }
static bool is_src(const opnd *o) { return o->kind >= OPK_SGPR && o->kind <= OPK_FLOAT && o->kind != OPK_AGPR; }

const char *opnd_str(const opnd *o, char *buf, size_t len)
{
    char core[128];
    switch (o->kind) {
    case OPK_SGPR:
    case OPK_VGPR:
    case OPK_AGPR: {
        char k = o->kind == OPK_SGPR ? 's' : o->kind == OPK_VGPR ? 'v' : 'a';
        if (!o->name) {
            if (o->count == 1)
                snprintf(core, sizeof core, "%c%d", k, o->index);
            else
                snprintf(core, sizeof core, "%c[%d:%d]", k, o->index, o->index + o->count - 1);
        } else {
            char lo[48], hi[48];
            if (o->name_off)
                snprintf(lo, sizeof lo, "%s+%d", o->name, o->name_off);
            else
                snprintf(lo, sizeof lo, "%s", o->name);
            snprintf(hi, sizeof hi, "%s+%d", o->name, o->name_off + o->count - 1);
            if (o->count == 1)
                snprintf(core, sizeof core, "%c[%s]", k, lo);
            else
                snprintf(core, sizeof core, "%c[%s:%s]", k, lo, hi);
        }
        break;
    }
    case OPK_SPECIAL:
    case OPK_OFF:
        snprintf(core, sizeof core, "%s", o->name);
        break;
    case OPK_INT:
        if (inline_int(o->imm))
            snprintf(core, sizeof core, "%lld", (long long)o->imm);
        else
            snprintf(core, sizeof core, "0x%llx", (unsigned long long)(uint32_t)o->imm);
        break;
    case OPK_FLOAT:
        if (o->f == 0.15915494f)
            snprintf(core, sizeof core, "0.15915494");
        else if (inline_float(o->f))
            snprintf(core, sizeof core, "%.1f", (double)o->f);
        else {
            uint32_t bits;
            memcpy(&bits, &o->f, 4);
            snprintf(core, sizeof core, "0x%08x", bits);
        }
        break;
    default:
        snprintf(core, sizeof core, "<none>");
    }
    if (o->mods & MOD_ABS)
        snprintf(buf, len, "%s|%s|", (o->mods & MOD_NEG) ? "-" : "", core);
    else
        snprintf(buf, len, "%s%s", (o->mods & MOD_NEG) ? "-" : "", core);
    return buf;
}

/* Operand text in one of a few rotating buffers: enough for one line. */
static const char *ostr(const opnd *o)
{
    static char ring[8][96];
    static int next;
    char *b = ring[next++ & 7];
    return opnd_str(o, b, sizeof ring[0]);
}
#define S(o) ostr(&(o))

static bool need(emit *e, bool cond, const char *op, const char *what)
{
    if (!cond && !e->failed)
        emit_fail(e, "%s: %s", op, what);
    return cond && !e->failed;
}

/* Hazard bookkeeping around a VALU instruction: wait for SGPRs a VALU
 * wrote recently, then count the instruction and record the SGPRs it writes. */
static void valu_pre(emit *e, const opnd *srcs, int n) { hz_reads(e, HZR_VALU, srcs, n); }

static void valu_post(emit *e, const opnd *sdst, const opnd *sdst2)
{
    hz_issue(e, 1);
    if (sdst)
        hz_writes(e, sdst);
    if (sdst2)
        hz_writes(e, sdst2);
}

/* gfx9 VALU: at most one scalar value (SGPR, special register or literal)
 * per instruction; the same SGPR read twice counts once. */
static bool const_bus_ok(const opnd *const *srcs, int n, bool implicit_vcc)
{
    int used = 0;
    const opnd *first = NULL;
    if (implicit_vcc) {
        used = 1;
        first = &VCC;
    }
    for (int i = 0; i < n; i++) {
        const opnd *o = srcs[i];
        if (!(is_scalar_reg(o) || is_literal(o)))
            continue;
        if (first && first->kind == o->kind && first->index == o->index && first->name == o->name &&
            !is_literal(o))
            continue;
        if (first && is_literal(first) && is_literal(o) && first->imm == o->imm && first->kind == o->kind)
            continue;
        used++;
        first = o;
    }
    return used <= 1;
}

/* ---- scalar ---- */

static bool ssrc_ok(const opnd *o) { return is_scalar_reg(o) || o->kind == OPK_INT || o->kind == OPK_FLOAT; }

void e_sop1(emit *e, const char *op, opnd d, opnd a)
{
    if (!need(e, is_scalar_reg(&d) && ssrc_ok(&a), op, "SOP1 takes an SGPR destination and a scalar source"))
        return;
    emit_line(e, "    %s %s, %s", op, S(d), S(a));
    hz_issue(e, 1);
}

void e_sop2(emit *e, const char *op, opnd d, opnd a, opnd b)
{
    if (!need(e, is_scalar_reg(&d) && ssrc_ok(&a) && ssrc_ok(&b), op, "SOP2 takes scalar operands"))
        return;
    if (!need(e, !(is_literal(&a) && is_literal(&b) && a.imm != b.imm), op, "SOP2 allows one literal"))
        return;
    emit_line(e, "    %s %s, %s, %s", op, S(d), S(a), S(b));
    hz_issue(e, 1);
}

void e_sopc(emit *e, const char *op, opnd a, opnd b)
{
    if (!need(e, ssrc_ok(&a) && ssrc_ok(&b), op, "SOPC takes scalar operands"))
        return;
    emit_line(e, "    %s %s, %s", op, S(a), S(b));
    hz_issue(e, 1);
}

void e_sopk(emit *e, const char *op, opnd d, int imm16)
{
    if (!need(e, is_scalar_reg(&d) && imm16 >= -32768 && imm16 <= 65535, op, "SOPK takes an SGPR and a 16-bit immediate"))
        return;
    emit_line(e, "    %s %s, 0x%x", op, S(d), imm16 & 0xffff);
    hz_issue(e, 1);
}

void e_sopp(emit *e, const char *op, int imm16)
{
    if (!need(e, imm16 >= 0 && imm16 <= 65535, op, "SOPP immediate out of range"))
        return;
    if (!strcmp(op, "s_endpgm") || !strcmp(op, "s_barrier"))
        emit_line(e, "    %s", op);
    else
        emit_line(e, "    %s %d", op, imm16);
    hz_issue(e, !strcmp(op, "s_nop") ? imm16 + 1 : 1);
}

void e_branch(emit *e, const char *op, label l)
{
    hz_branch(e, l);
    emit_line(e, "    %s .L%d_%s", op, l.id, l.hint);
    hz_issue(e, 1);
}

void e_smem(emit *e, const char *op, opnd d, opnd base, int offset)
{
    if (!need(e, d.kind == OPK_SGPR && base.kind == OPK_SGPR && base.count == 2 && base.index % 2 == 0, op,
              "SMEM takes SGPRs and an aligned 64-bit base"))
        return;
    if (!need(e, offset >= 0 && offset < (1 << 20) && offset % 4 == 0, op, "SMEM offset out of range"))
        return;
    if (!need(e, d.count == 1 || d.index % (d.count > 4 ? 4 : d.count) == 0, op, "SMEM destination misaligned"))
        return;
    emit_line(e, "    %s %s, %s, 0x%x", op, S(d), S(base), offset);
    hz_issue(e, 1);
}

void e_smem_soff(emit *e, const char *op, opnd d, opnd base, opnd soff)
{
    if (!need(e, d.kind == OPK_SGPR && base.kind == OPK_SGPR && base.count == 2 && base.index % 2 == 0 &&
                     soff.kind == OPK_SGPR && soff.count == 1,
              op, "SMEM takes SGPRs, an aligned 64-bit base and an SGPR offset"))
        return;
    if (!need(e, d.count == 1 || d.index % (d.count > 4 ? 4 : d.count) == 0, op, "SMEM destination misaligned"))
        return;
    emit_line(e, "    %s %s, %s, %s", op, S(d), S(base), S(soff));
    hz_issue(e, 1);
}

void e_waitcnt(emit *e, int vmcnt, int lgkmcnt)
{
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
    while (n > 0) {
        int k = n > 16 ? 16 : n;
        emit_line(e, "    s_nop %d", k - 1);
        hz_issue(e, k);
        n -= k;
    }
}

/* ---- vector ALU ---- */

void e_vop1(emit *e, const char *op, opnd d, opnd a)
{
    bool sdst = !strcmp(op, "v_readfirstlane_b32");
    if (!need(e, (sdst ? d.kind == OPK_SGPR : is_vgpr(&d)) && is_src(&a), op, "VOP1 operand kinds"))
        return;
    valu_pre(e, (opnd[]){a}, 1);
    if (a.mods) {
        const opnd *s[] = {&a};
        if (!need(e, !is_literal(&a) && const_bus_ok(s, 1, false), op, "VOP3 form takes no literal"))
            return;
        emit_line(e, "    %s_e64 %s, %s", op, S(d), S(a));
        valu_post(e, sdst ? &d : NULL, NULL);
        return;
    }
    emit_line(e, "    %s %s, %s", op, S(d), S(a));
    valu_post(e, sdst ? &d : NULL, NULL);
}

void e_vop2(emit *e, const char *op, opnd d, opnd a, opnd b)
{
    const opnd *s[] = {&a, &b};
    if (!need(e, is_vgpr(&d) && is_src(&a) && is_src(&b), op, "VOP2 operand kinds"))
        return;
    if (!need(e, const_bus_ok(s, 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    valu_pre(e, (opnd[]){a, b}, 2);
    if (is_vgpr(&b) && !a.mods && !b.mods) {
        emit_line(e, "    %s %s, %s, %s", op, S(d), S(a), S(b));
        valu_post(e, NULL, NULL);
        return;
    }
    /* src1 is not a VGPR or a modifier is used: VOP3 encoding, no literal. */
    if (!need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded operation"))
        return;
    emit_line(e, "    %s_e64 %s, %s, %s", op, S(d), S(a), S(b));
    valu_post(e, NULL, NULL);
}

void e_vop2c(emit *e, const char *op, opnd d, opnd co, opnd a, opnd b, opnd ci)
{
    bool has_ci = ci.kind != OPK_NONE;
    bool e32 = co.kind == OPK_SPECIAL && !strcmp(co.name, "vcc") && is_vgpr(&b) &&
               (!has_ci || (ci.kind == OPK_SPECIAL && !strcmp(ci.name, "vcc")));
    const opnd *s[] = {&a, &b, &ci};
    if (!need(e, is_vgpr(&d) && is_src(&a) && is_src(&b), op, "VOP2 carry operand kinds"))
        return;
    if (!need(e, const_bus_ok(s, has_ci ? 3 : 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    if (!e32 && !need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded operation"))
        return;
    valu_pre(e, (opnd[]){a, b, has_ci ? ci : NOOP}, 3);
    if (has_ci)
        emit_line(e, "    %s%s %s, %s, %s, %s, %s", op, e32 ? "" : "_e64", S(d), S(co), S(a), S(b), S(ci));
    else
        emit_line(e, "    %s%s %s, %s, %s, %s", op, e32 ? "" : "_e64", S(d), S(co), S(a), S(b));
    valu_post(e, &co, NULL);
}

void e_vop3(emit *e, const char *op, opnd d, opnd a, opnd b, opnd c)
{
    bool has_c = c.kind != OPK_NONE;
    const opnd *s[] = {&a, &b, &c};
    if (!need(e, is_vgpr(&d) && is_src(&a) && is_src(&b) && (!has_c || is_src(&c)), op, "VOP3 operand kinds"))
        return;
    if (!need(e, !is_literal(&a) && !is_literal(&b) && !(has_c && is_literal(&c)), op,
              "literal in a VOP3 operation (gfx9 has none)"))
        return;
    if (!need(e, const_bus_ok(s, has_c ? 3 : 2, false), op, "more than one SGPR (gfx9 constant bus)"))
        return;
    valu_pre(e, (opnd[]){a, b, has_c ? c : NOOP}, 3);
    if (has_c)
        emit_line(e, "    %s %s, %s, %s, %s", op, S(d), S(a), S(b), S(c));
    else
        emit_line(e, "    %s %s, %s, %s", op, S(d), S(a), S(b));
    valu_post(e, NULL, NULL);
}

void e_vopc(emit *e, const char *op, opnd sd, opnd a, opnd b)
{
    const opnd *s[] = {&a, &b};
    bool to_vcc = sd.kind == OPK_SPECIAL && !strcmp(sd.name, "vcc");
    if (!need(e, (to_vcc || (sd.kind == OPK_SGPR && sd.count == 2 && sd.index % 2 == 0)) && is_src(&a) && is_src(&b),
              op, "VOPC operand kinds"))
        return;
    if (!need(e, const_bus_ok(s, 2, false), op, "more than one SGPR/literal (gfx9 constant bus)"))
        return;
    valu_pre(e, (opnd[]){a, b}, 2);
    bool cmpx = strstr(op, "cmpx") != NULL;
    if (to_vcc && is_vgpr(&b) && !a.mods && !b.mods) {
        emit_line(e, "    %s %s, %s, %s", op, S(sd), S(a), S(b));
        valu_post(e, &sd, cmpx ? &EXEC : NULL);
        return;
    }
    if (!need(e, !is_literal(&a) && !is_literal(&b), op, "literal in a VOP3-encoded compare"))
        return;
    emit_line(e, "    %s_e64 %s, %s, %s", op, S(sd), S(a), S(b));
    valu_post(e, &sd, cmpx ? &EXEC : NULL);
}

void e_cndmask(emit *e, opnd d, opnd a, opnd b, opnd mask)
{
    bool vcc = mask.kind == OPK_SPECIAL && !strcmp(mask.name, "vcc");
    const opnd *s[] = {&a, &b};
    if (!need(e, is_vgpr(&d) && is_src(&a) && is_src(&b) && (vcc || (mask.kind == OPK_SGPR && mask.count == 2)),
              "v_cndmask_b32", "operand kinds"))
        return;
    valu_pre(e, (opnd[]){a, b, mask}, 3);
    if (vcc && is_vgpr(&b)) {
        if (!need(e, const_bus_ok(s, 2, true), "v_cndmask_b32", "SGPR/literal besides vcc (gfx9 constant bus)"))
            return;
        emit_line(e, "    v_cndmask_b32 %s, %s, %s, %s", S(d), S(a), S(b), S(mask));
        valu_post(e, NULL, NULL);
        return;
    }
    const opnd *s3[] = {&a, &b, &mask};
    if (!need(e, !is_literal(&a) && !is_literal(&b) && const_bus_ok(s3, 3, false), "v_cndmask_b32",
              "VOP3 form: no literal, one SGPR including the mask"))
        return;
    emit_line(e, "    v_cndmask_b32_e64 %s, %s, %s, %s", S(d), S(a), S(b), S(mask));
    valu_post(e, NULL, NULL);
}

void e_readlane(emit *e, const char *op, opnd sd, opnd v, opnd lane)
{
    bool write = !strcmp(op, "v_writelane_b32");
    if (!need(e, write ? (is_vgpr(&sd) && (is_scalar_reg(&v) || v.kind == OPK_INT)) : (sd.kind == OPK_SGPR && is_vgpr(&v)),
              op, "lane operation operand kinds"))
        return;
    if (!need(e, lane.kind == OPK_SGPR || (lane.kind == OPK_INT && lane.imm >= 0 && lane.imm < 64), op,
              "lane select must be an SGPR or 0..63"))
        return;
    valu_pre(e, (opnd[]){v}, 1);
    hz_reads(e, HZR_LANESEL, &lane, 1);
    emit_line(e, "    %s %s, %s, %s", op, S(sd), S(v), S(lane));
    valu_post(e, write ? NULL : &sd, NULL);
}

/* ---- memory ---- */

void e_ds(emit *e, const char *op, opnd d, opnd addr, opnd d0, opnd d1, int off0, int off1)
{
    bool two = strstr(op, "2") != NULL && (strstr(op, "read2") || strstr(op, "write2"));
    if (!need(e, is_vgpr(&addr), op, "DS address must be a VGPR"))
        return;
    if (two && !need(e, off0 >= 0 && off0 < 256 && off1 >= 0 && off1 < 256, op, "read2/write2 offsets are 8-bit"))
        return;
    if (!two && !need(e, off0 >= 0 && off0 < 65536 && off1 == 0, op, "DS offset is 16-bit"))
        return;
    char offs[48] = "";
    if (two)
        snprintf(offs, sizeof offs, " offset0:%d offset1:%d", off0, off1);
    else if (off0)
        snprintf(offs, sizeof offs, " offset:%d", off0);
    if (d.kind != OPK_NONE) {
        if (!need(e, is_vgpr(&d) || d.kind == OPK_AGPR, op, "DS destination must be a VGPR"))
            return;
        emit_line(e, "    %s %s, %s%s", op, S(d), S(addr), offs);
    } else if (d1.kind != OPK_NONE) {
        emit_line(e, "    %s %s, %s, %s%s", op, S(addr), S(d0), S(d1), offs);
    } else {
        if (!need(e, is_vgpr(&d0) || d0.kind == OPK_AGPR, op, "DS data must be a VGPR"))
            return;
        emit_line(e, "    %s %s, %s%s", op, S(addr), S(d0), offs);
    }
    hz_issue(e, 1);
}

void e_mubuf(emit *e, const char *op, opnd data, opnd voff, opnd rsrc, opnd soff, int offset)
{
    if (!need(e, (is_vgpr(&data) || data.kind == OPK_AGPR) && is_vgpr(&voff), op, "MUBUF data and offset must be VGPRs"))
        return;
    if (!need(e, rsrc.kind == OPK_SGPR && rsrc.count == 4 && rsrc.index % 4 == 0, op,
              "buffer resource must be 4 aligned SGPRs"))
        return;
    if (!need(e, soff.kind == OPK_SGPR || (soff.kind == OPK_INT && inline_int(soff.imm)), op,
              "soffset must be an SGPR or inline constant"))
        return;
    if (!need(e, offset >= 0 && offset < 4096, op, "MUBUF immediate offset is 12-bit"))
        return;
    char offs[24] = "";
    if (offset)
        snprintf(offs, sizeof offs, " offset:%d", offset);
    hz_reads(e, HZR_VMEM, (opnd[]){rsrc, soff}, 2);
    emit_line(e, "    %s %s, %s, %s, %s offen%s", op, S(data), S(voff), S(rsrc), S(soff), offs);
    hz_issue(e, 1);
}

void e_global(emit *e, const char *op, opnd data, opnd vaddr, opnd saddr, int offset)
{
    bool sa = saddr.kind == OPK_SGPR;
    if (!need(e, sa ? (is_vgpr(&vaddr) && vaddr.count == 1 && saddr.count == 2)
                    : (saddr.kind == OPK_OFF && is_vgpr(&vaddr) && vaddr.count == 2),
              op, "global address: v[lo:hi] with off, or a 32-bit VGPR offset with an SGPR pair"))
        return;
    if (!need(e, offset >= -4096 && offset < 4096, op, "global offset is 13-bit signed"))
        return;
    char offs[24] = "";
    if (offset)
        snprintf(offs, sizeof offs, " offset:%d", offset);
    bool store = strstr(op, "store") != NULL || strstr(op, "atomic") != NULL;
    hz_reads(e, HZR_VMEM, &saddr, 1);
    hz_issue(e, 1);
    if (store)
        emit_line(e, "    %s %s, %s, %s%s", op, S(vaddr), S(data), S(saddr), offs);
    else
        emit_line(e, "    %s %s, %s, %s%s", op, S(data), S(vaddr), S(saddr), offs);
}
