/* emu_inst -> text, in llvm-objdump's spelling, so fault reports name the
 * instruction as the assembler would and the decoder can be cross-checked
 * against llvm-objdump -d on every instruction the project generates. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

/* Operand type a literal is printed for (llvm prints a literal whose value
 * an inline constant could express the way it prints that constant). */
enum { LIT_B32, LIT_F16, LIT_I64, LIT_F64 };

typedef struct {
    char *p;
    size_t left;
    int lit16;  /* the instruction's sources are f16 */
    int lit64f; /* the instruction's 64-bit sources are f64 */
} sink;

static void put(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *s, const char *fmt, ...)
{
    if (!s->left)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->p, s->left, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= s->left)
        n = (int)s->left - 1;
    s->p += n;
    s->left -= (size_t)n;
}

static const char *special_name(unsigned code, int width)
{
    switch (code) {
    case 102: return width == 2 ? "flat_scratch" : "flat_scratch_lo";
    case 103: return "flat_scratch_hi";
    case 104: return width == 2 ? "xnack_mask" : "xnack_mask_lo";
    case 105: return "xnack_mask_hi";
    case 106: return width == 2 ? "vcc" : "vcc_lo";
    case 107: return "vcc_hi";
    case 124: return "m0";
    case 126: return width == 2 ? "exec" : "exec_lo";
    case 127: return "exec_hi";
    case 235: return "src_shared_base";
    case 236: return "src_shared_limit";
    case 237: return "src_private_base";
    case 238: return "src_private_limit";
    case 239: return "src_pops_exiting_wave_id";
    case 251: return "src_vccz";
    case 252: return "src_execz";
    case 253: return "src_scc";
    default: return NULL;
    }
}

static void put_reg(sink *s, unsigned code, int width)
{
    if (width < 1)
        width = 1;
    char k;
    unsigned n;
    if (code >= R_A0) {
        k = 'a';
        n = code - R_A0;
    } else if (code >= R_V0) {
        k = 'v';
        n = code - R_V0;
    } else if (code <= 101) {
        k = 's';
        n = code;
    } else if (code >= 108 && code <= 123) {
        if (width == 1)
            put(s, "ttmp%u", code - 108);
        else
            put(s, "ttmp[%u:%u]", code - 108, code - 108 + (unsigned)width - 1);
        return;
    } else {
        const char *nm = special_name(code, width);
        if (nm)
            put(s, "%s", nm);
        else
            put(s, "<reg%u>", code);
        return;
    }
    if (width == 1)
        put(s, "%c%u", k, n);
    else
        put(s, "%c[%u:%u]", k, n, n + (unsigned)width - 1);
}

static const char *const inline_float_text[9] = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0",
                                                  "0.15915494"};

/* A literal as llvm prints it: like the inline constant with its value
 * when there is one (decimal -16..64, or the float), else hex. */
static void put_literal(sink *s, const emu_opnd *o)
{
    if (o->width == 2) {
        uint32_t lit = s->lit64f ? o->value_hi : o->value; /* f64: the high dword; int: zero-extended */
        if (s->lit64f) {
            /* a 32-bit literal is the high dword of the f64: 1/(2*pi) has low bits and is never one */
            for (int i = 0; i < 8; i++)
                if (lit == (uint32_t)(emu_fconst64[i] >> 32)) {
                    put(s, "%s", inline_float_text[i]);
                    return;
                }
        }
        if (s->lit64f ? lit == 0 : lit <= 64) /* f64: the value is lit << 32, an inline integer only when 0 */
            put(s, "%u", lit);
        else
            put(s, "0x%x", lit);
        return;
    }
    if (s->lit16) {
        uint16_t v = (uint16_t)o->value;
        if ((int16_t)v >= -16 && (int16_t)v <= 64) {
            put(s, "%d", (int16_t)v);
            return;
        }
        for (int i = 0; i < 9; i++)
            if (v == emu_fconst16[i]) {
                put(s, "%s", inline_float_text[i]);
                return;
            }
        put(s, "0x%x", v);
        return;
    }
    if ((int32_t)o->value >= -16 && (int32_t)o->value <= 64) {
        put(s, "%d", (int32_t)o->value);
        return;
    }
    for (int i = 0; i < 9; i++)
        if (o->value == emu_fconst32[i]) {
            put(s, "%s", inline_float_text[i]);
            return;
        }
    put(s, "0x%x", o->value);
}

static void put_const(sink *s, const emu_opnd *o)
{
    unsigned c = o->code;
    if (c >= 128 && c <= 192)
        put(s, "%u", c - 128);
    else if (c >= 193 && c <= 208)
        put(s, "-%u", c - 192);
    else if (c >= 240 && c <= 248)
        put(s, "%s", inline_float_text[c - 240]);
    else if (c == R_LIT)
        put_literal(s, o);
    else
        put(s, "<const%u>", c);
}

static void put_opnd(sink *s, const emu_opnd *o, int neg, int abs)
{
    if (neg)
        put(s, "-");
    if (abs)
        put(s, "|");
    if (o->kind == K_CONST)
        put_const(s, o);
    else
        put_reg(s, o->code, o->width);
    if (abs)
        put(s, "|");
}

/* VOP1/VOP2/VOPC operations that have no VOP3 form print without _e32. */
static bool no_e32_suffix(isa_op op)
{
    return op == OP_V_READFIRSTLANE_B32 || emu_vop2_k(op) || op == OP_V_SWAP_B32 ||
           op == OP_V_NOP || op == OP_V_ACCVGPR_MOV_B32;
}

static const char *sel_name(unsigned s)
{
    static const char *const n[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "?"};
    return n[s & 7];
}

static void put_dpp(sink *s, const emu_inst *in)
{
    unsigned c = in->dpp_ctrl;
    if (c <= 0xff)
        put(s, " quad_perm:[%u,%u,%u,%u]", c & 3, (c >> 2) & 3, (c >> 4) & 3, (c >> 6) & 3);
    else if (c >= 0x101 && c <= 0x10f)
        put(s, " row_shl:%u", c & 15);
    else if (c >= 0x111 && c <= 0x11f)
        put(s, " row_shr:%u", c & 15);
    else if (c >= 0x121 && c <= 0x12f)
        put(s, " row_ror:%u", c & 15);
    else if (c == 0x130)
        put(s, " wave_shl:1");
    else if (c == 0x134)
        put(s, " wave_rol:1");
    else if (c == 0x138)
        put(s, " wave_shr:1");
    else if (c == 0x13c)
        put(s, " wave_ror:1");
    else if (c == 0x140)
        put(s, " row_mirror");
    else if (c == 0x141)
        put(s, " row_half_mirror");
    else if (c == 0x142)
        put(s, " row_bcast:15");
    else if (c == 0x143)
        put(s, " row_bcast:31");
    else
        put(s, " dpp_ctrl:0x%x", c);
    put(s, " row_mask:0x%x bank_mask:0x%x", in->dpp_row_mask, in->dpp_bank_mask);
    if (in->dpp_bound_ctrl)
        put(s, " bound_ctrl:1");
}

/* ds_swizzle_b32 offset as llvm prints it: the swizzle() macro forms when
 * the pattern matches one, else the plain number. */
static void put_swizzle(sink *s, unsigned off)
{
    if (!off)
        return;
    if ((off & 0xff00) == 0x8000) {
        put(s, " offset:swizzle(QUAD_PERM,%u,%u,%u,%u)", off & 3, (off >> 2) & 3, (off >> 4) & 3, (off >> 6) & 3);
        return;
    }
    if (off & 0x8000) {
        put(s, " offset:%u", off);
        return;
    }
    unsigned and_m = off & 31, or_m = (off >> 5) & 31, xor_m = (off >> 10) & 31;
    unsigned group = 32 - and_m;
    if (and_m == 31 && or_m == 0 && __builtin_popcount(xor_m) == 1) {
        put(s, " offset:swizzle(SWAP,%u)", xor_m);
    } else if (and_m == 31 && or_m == 0 && xor_m && !((xor_m + 1) & xor_m)) {
        put(s, " offset:swizzle(REVERSE,%u)", xor_m + 1);
    } else if (group > 1 && !(group & (group - 1)) && or_m < group && xor_m == 0) {
        put(s, " offset:swizzle(BROADCAST,%u,%u)", group, or_m);
    } else {
        /* per lane-id bit, high to low: constant 0/1, preserved (p) or inverted (i) */
        unsigned p0 = or_m ^ xor_m, p1 = ((31 & and_m) | or_m) ^ xor_m;
        put(s, " offset:swizzle(BITMASK_PERM,\"");
        for (unsigned m = 16; m; m >>= 1)
            put(s, "%c", (p0 & m) == (p1 & m) ? ((p0 & m) ? '1' : '0') : ((p0 & m) ? 'i' : 'p'));
        put(s, "\")");
    }
}

static void put_cache_bits(sink *s, const emu_inst *in)
{
    if (in->glc)
        put(s, " glc");
    if (in->slc)
        put(s, " slc");
    if (in->sc0)
        put(s, " sc0");
    if (in->nt)
        put(s, " nt");
    if (in->sc1)
        put(s, " sc1");
    if (in->scc_bit)
        put(s, " scc");
}

static void put_bits_list(sink *s, const char *name, unsigned bits, int n)
{
    put(s, " %s:[", name);
    for (int i = 0; i < n; i++)
        put(s, "%s%u", i ? "," : "", (bits >> i) & 1);
    put(s, "]");
}

static void disasm_valu(sink *s, const emu_inst *in)
{
    const isa_opinfo *r = in->info;
    bool e64 = in->fmt == F_VOP3 && r->fmt != F_VOP3;
    const char *suffix = "";
    if (in->ext == EXT_SDWA)
        suffix = "_sdwa";
    else if (in->ext == EXT_DPP)
        suffix = "_dpp";
    else if (e64)
        suffix = "_e64";
    else if (in->fmt != F_VOP3 && !no_e32_suffix((isa_op)in->op))
        suffix = "_e32";
    put(s, "%s%s", r->name, suffix);
    if (in->op == OP_V_NOP)
        return;
    int nsrc = 0;
    for (int i = 0; i < 3; i++)
        if (in->src[i].code != R_NONE)
            nsrc = i + 1;
    bool first = true;
#define SEP() (first ? (first = false, " ") : ", ")
    if (r->fmt == F_VOPC) {
        put(s, "%s", SEP());
        put_reg(s, in->sdst.code, 2);
    } else if (in->dst.code != R_NONE) {
        put(s, "%s", SEP());
        put_reg(s, in->dst.code, in->dst.width);
        if (in->sdst.code != R_NONE) {
            put(s, ", ");
            put_reg(s, in->sdst.code, 2);
        }
    }
    bool madmk = in->op == OP_V_MADMK_F32 || in->op == OP_V_FMAMK_F32,
         madak = in->op == OP_V_MADAK_F32 || in->op == OP_V_FMAAK_F32;
    for (int i = 0; i < nsrc; i++) {
        if (madmk && i == 1)
            put(s, ", 0x%x", in->src[2].value); /* K is an operand of its own, always hex */
        if ((madmk || madak) && i == 2)
            break;
        put(s, "%s", SEP());
        const emu_opnd *o = &in->src[i];
        if ((in->op == OP_V_CNDMASK_B32 || o->width == 2) && i == 2 && in->fmt != F_VOP3) {
            put_reg(s, o->code, 2); /* implicit vcc of the e32 form */
            continue;
        }
        bool sext = in->ext == EXT_SDWA && i < 2 && (i ? in->sdwa_src1_sext : in->sdwa_src0_sext);
        if (sext)
            put(s, "sext(");
        put_opnd(s, o, (in->neg >> i) & 1, (in->abs >> i) & 1);
        if (sext)
            put(s, ")");
    }
    if (madak)
        put(s, ", 0x%x", in->src[2].value);
    static const char *const om[] = {"", " mul:2", " mul:4", " div:2"};
    if (in->ext == EXT_SDWA) {
        if (in->clamp)
            put(s, " clamp");
        put(s, "%s", om[in->omod & 3]);
        if (r->fmt != F_VOPC) {
            put(s, " dst_sel:%s dst_unused:%s", sel_name(in->sdwa_dst_sel),
                in->sdwa_dst_unused == 0 ? "UNUSED_PAD" : in->sdwa_dst_unused == 1 ? "UNUSED_SEXT" : "UNUSED_PRESERVE");
        }
        put(s, " src0_sel:%s", sel_name(in->sdwa_src0_sel));
        if (r->fmt != F_VOP1)
            put(s, " src1_sel:%s", sel_name(in->sdwa_src1_sel));
        return;
    }
    if (in->ext == EXT_DPP) {
        put_dpp(s, in);
        return;
    }
    if (in->fmt == F_VOP3) {
        if (in->opsel)
            put_bits_list(s, "op_sel", in->opsel, nsrc + 1);
        if (in->clamp)
            put(s, " clamp");
        put(s, "%s", om[in->omod & 3]);
    }
#undef SEP
}

static void disasm_vop3p(sink *s, const emu_inst *in)
{
    const isa_opinfo *r = in->info;
    put(s, "%s ", r->name);
    put_reg(s, in->dst.code, in->dst.width);
    int nsrc = r->s2w ? 3 : 2;
    /* the mix operations read neg_lo as negate and neg_hi as absolute value */
    bool mix = strstr(r->name, "_mix") != NULL;
    for (int i = 0; i < nsrc; i++) {
        put(s, ", ");
        put_opnd(s, &in->src[i], mix && ((in->neg >> i) & 1), mix && ((in->neg_hi >> i) & 1));
    }
    unsigned all = (1u << nsrc) - 1;
    if (in->opsel)
        put_bits_list(s, "op_sel", in->opsel, nsrc);
    if (mix ? in->opsel_hi != 0 : (in->opsel_hi & all) != all)
        put_bits_list(s, "op_sel_hi", in->opsel_hi, nsrc);
    if (in->neg && !mix)
        put_bits_list(s, "neg_lo", in->neg, nsrc);
    if (in->neg_hi && !mix)
        put_bits_list(s, "neg_hi", in->neg_hi, nsrc);
    if (in->clamp)
        put(s, " clamp");
}

static void disasm_mai(sink *s, const emu_inst *in)
{
    put(s, "%s ", in->info->name);
    put_reg(s, in->dst.code, in->dst.width);
    int n = in->src[1].code != R_NONE ? 3 : 1;
    for (int i = 0; i < n; i++) {
        put(s, ", ");
        put_opnd(s, &in->src[i], 0, 0);
    }
    if (in->cbsz)
        put(s, " cbsz:%u", in->cbsz);
    if (in->abid)
        put(s, " abid:%u", in->abid);
    if (in->blgp)
        put(s, " blgp:%u", in->blgp);
}

static void disasm_waitcnt(sink *s, int16_t simm)
{
    unsigned v = (uint16_t)simm;
    unsigned vm = (v & 15) | ((v >> 14) & 3) << 4, exp = (v >> 4) & 7, lgkm = (v >> 8) & 15;
    bool any = false;
    put(s, "s_waitcnt");
    if (vm != 63) {
        put(s, " vmcnt(%u)", vm);
        any = true;
    }
    if (exp != 7) {
        put(s, " expcnt(%u)", exp);
        any = true;
    }
    if (lgkm != 15) {
        put(s, " lgkmcnt(%u)", lgkm);
        any = true;
    }
    if (!any)
        put(s, " vmcnt(63) expcnt(7) lgkmcnt(15)");
}

/* DS, MUBUF, FLAT and GLOBAL: data, address, resource, offsets, bits. */
static void disasm_mem(sink *s, const emu_inst *in)
{
    const isa_opinfo *r = in->info;
    switch (in->fmt) {
    case F_DS: {
        put(s, "%s ", r->name);
        bool first = true;
        if (in->dst.code != R_NONE) {
            put_reg(s, in->dst.code, in->dst.width);
            first = false;
        }
        put(s, "%s", first ? "" : ", ");
        put_reg(s, in->src[0].code, 1);
        for (int i = 1; i < 3; i++)
            if (in->src[i].code != R_NONE) {
                put(s, ", ");
                put_reg(s, in->src[i].code, in->src[i].width);
            }
        if (in->op == OP_DS_SWIZZLE_B32)
            put_swizzle(s, (unsigned)in->offset);
        else if (in->ds_two) {
            if (in->offset)
                put(s, " offset0:%d", in->offset);
            if (in->offset1)
                put(s, " offset1:%u", in->offset1);
        } else if (in->offset)
            put(s, " offset:%d", in->offset);
        if (in->gds)
            put(s, " gds");
        break;
    }
    case F_MUBUF:
        put(s, "%s ", r->name);
        put_reg(s, in->dst.code, in->dst.width);
        put(s, ", ");
        if (in->src[0].code != R_NONE)
            put_reg(s, in->src[0].code, in->src[0].width);
        else
            put(s, "off");
        put(s, ", ");
        put_reg(s, in->src[1].code, 4);
        put(s, ", ");
        put_opnd(s, &in->src[2], 0, 0);
        if (in->idxen)
            put(s, " idxen");
        if (in->offen)
            put(s, " offen");
        if (in->offset)
            put(s, " offset:%d", in->offset);
        put_cache_bits(s, in);
        break;
    case F_FLAT:
    case F_GLOBAL:
    case F_SCRATCH: {
        put(s, "%s ", r->name);
        bool store = in->src[1].code != R_NONE;
        if (in->dst.code != R_NONE) {
            put_reg(s, in->dst.code, in->dst.width);
            put(s, ", ");
        }
        if (in->src[0].code != R_NONE)
            put_reg(s, in->src[0].code, in->src[0].width);
        else
            put(s, "off");
        if (store) {
            put(s, ", ");
            put_reg(s, in->src[1].code, in->src[1].width);
        }
        if (in->fmt != F_FLAT) {
            put(s, ", ");
            if (in->src[2].code != R_NONE)
                put_reg(s, in->src[2].code, in->src[2].width);
            else
                put(s, "off");
        }
        if (in->offset)
            put(s, " offset:%d", in->offset);
        put_cache_bits(s, in);
        break;
    }
    default:
        break;
    }
}

void emu_disasm(const emu_inst *in, char *buf, size_t len)
{
    sink s = {buf, len, 0, 0};
    if (len)
        buf[0] = 0;
    const isa_opinfo *r = in->info;
    if (r) {
        emu_optype ty = emu_op_type(r);
        s.lit64f = ty == OT_F64;
        s.lit16 = ty == OT_F16;
    }
    if (!r) {
        put(&s, ".long 0x%08x", in->raw[0]); /* as llvm-objdump shows a word it cannot decode */
        return;
    }
    switch (in->fmt) {
    case F_SOP1:
        put(&s, "%s", r->name);
        if (r->dw) {
            put(&s, " ");
            put_reg(&s, in->dst.code, r->dw);
        }
        if (r->s0w) {
            put(&s, r->dw ? ", " : " ");
            put_opnd(&s, &in->src[0], 0, 0);
        }
        break;
    case F_SOP2:
        put(&s, "%s ", r->name);
        put_reg(&s, in->dst.code, r->dw);
        put(&s, ", ");
        put_opnd(&s, &in->src[0], 0, 0);
        put(&s, ", ");
        put_opnd(&s, &in->src[1], 0, 0);
        break;
    case F_SOPC:
        put(&s, "%s ", r->name);
        put_opnd(&s, &in->src[0], 0, 0);
        put(&s, ", ");
        put_opnd(&s, &in->src[1], 0, 0);
        break;
    case F_SOPK:
        put(&s, "%s ", r->name);
        put_reg(&s, in->dst.code, 1);
        put(&s, ", 0x%x", (unsigned)(uint16_t)in->simm16);
        break;
    case F_SOPP:
        if (in->op == OP_S_WAITCNT)
            disasm_waitcnt(&s, in->simm16);
        else if (in->op == OP_S_ENDPGM || in->op == OP_S_BARRIER)
            put(&s, "%s", r->name);
        else
            put(&s, "%s %u", r->name, (unsigned)(uint16_t)in->simm16);
        break;
    case F_SMEM:
        put(&s, "%s ", r->name);
        put_reg(&s, in->dst.code, r->dw);
        put(&s, ", ");
        put_reg(&s, in->src[0].code, r->s0w);
        if (in->src[1].code != R_NONE) {
            put(&s, ", ");
            put_reg(&s, in->src[1].code, 1);
        } else
            put(&s, ", 0x%x", (unsigned)in->offset);
        if (in->glc)
            put(&s, " glc");
        break;
    case F_VOP1:
    case F_VOP2:
    case F_VOPC:
    case F_VOP3:
        disasm_valu(&s, in);
        break;
    case F_VOP3P:
        disasm_vop3p(&s, in);
        break;
    case F_MAI:
        disasm_mai(&s, in);
        break;
    case F_DS:
    case F_MUBUF:
    case F_FLAT:
    case F_GLOBAL:
    case F_SCRATCH:
        disasm_mem(&s, in);
        break;
    default:
        put(&s, "%s", r->name);
    }
}
