/* Instructions by their row of the shared op table: lookup (the op exists
 * on the target, in the format the caller encodes), operand widths, and the
 * operand classification and printing the format functions share. */
#include <stdio.h>
#include <string.h>

#include "emit_int.h"

const isa_opinfo *e_op(emit *e, const char *op, unsigned fmts)
{
    if (e->failed)
        return NULL;
    if (!op) {
        emit_fail(e, "an instruction without a mnemonic");
        return NULL;
    }
    unsigned have = isa_targets_of(op);
    if (!have) {
        emit_fail(e, "%s: not an instruction of the op table (arch/ops.def)", op);
        return NULL;
    }
    const isa_opinfo *r = isa_find(op, e->t->bit);
    if (!r) {
        char list[128] = "";
        size_t len = 0;
        for (int i = 0; i < igemm_target_count; i++)
            if (have & igemm_targets[i]->bit)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                        igemm_targets[i]->name);
        emit_fail(e, "%s: not an instruction of %s (it exists on %s)", op, e->t->name, list);
        return NULL;
    }
    if (!(fmts & (1u << r->fmt))) {
        char want[96] = "";
        size_t len = 0;
        for (int f = 0; f < F_COUNT; f++)
            if (fmts & (1u << f))
                len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", len ? " or " : "",
                                        isa_fmt_name((isa_fmt)f));
        emit_fail(e, "%s: a %s instruction, not %s", op, isa_fmt_name((isa_fmt)r->fmt), want);
        return NULL;
    }
    return r;
}

const isa_opinfo *op_row(emit *e, const char *op, unsigned fmts, const opnd *ops, int n)
{
    const isa_opinfo *r = e_op(e, op, fmts);
    for (int i = 0; r && i < n; i++)
        if (ops[i].kind == OPK_BAD) {
            emit_fail(e, "%s: operand %d is a sub-register out of the range of %s", op, i,
                      ops[i].name ? ops[i].name : "its register");
            return NULL;
        }
    return r;
}

bool width_ok(emit *e, const char *op, const opnd *o, int width, const char *what)
{
    bool reg = o->kind == OPK_SGPR || o->kind == OPK_VGPR || o->kind == OPK_AGPR || o->kind == OPK_SPECIAL;
    if (!reg || !width || o->count == width)
        return !e->failed;
    char msg[96];
    snprintf(msg, sizeof msg, "%s %s is %d register%s, the op takes %d", what, S(*o), o->count,
             o->count == 1 ? "" : "s", width);
    return need(e, false, op, msg);
}

bool need(emit *e, bool cond, const char *op, const char *what)
{
    if (!cond && !e->failed)
        emit_fail(e, "%s: %s", op, what);
    return cond && !e->failed;
}

/* ---- operand classification and printing ---- */

bool inline_int(int64_t v) { return v >= -16 && v <= 64; }

bool inline_float(float f)
{
    static const float ok[] = {0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 4.0f, -4.0f, 0.15915494f};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (f == ok[i])
            return true;
    return false;
}

bool is_literal(const opnd *o)
{
    return (o->kind == OPK_INT && !inline_int(o->imm)) || (o->kind == OPK_FLOAT && !inline_float(o->f));
}

bool const_bus_ok(const opnd *const *srcs, int n, bool implicit_vcc)
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

const char *ostr(const opnd *o)
{
    static char ring[8][96];
    static int next;
    char *b = ring[next++ & 7];
    return opnd_str(o, b, sizeof ring[0]);
}
