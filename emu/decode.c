/* Binary -> emu_inst for gfx906, gfx908, gfx90a and gfx942.
 *
 * The operation table (ops.def) gives the opcode of every operation per
 * encoding format and target; this file knows the field layout of each
 * format and the per-target differences: the acc_cd bit and AGPR data bits
 * of gfx90a+, gfx908's implicit AGPR MFMA C/D, gfx940 cache bits. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "isa.h"

struct emu_decoder {
    const target *t;
    const isa_opinfo *sop2[128], *sopk[32], *sop1[256], *sopc[128], *sopp[128], *smem[256];
    const isa_opinfo *vop1[256], *vop2[64], *vopc[256], *vop3[1024], *vop3p[128];
    const isa_opinfo *ds[256], *mubuf[128], *flat[128], *global[128], *scratch[128];
};

static emu_decoder decoders[TARGET_COUNT];
static pthread_once_t decoders_once = PTHREAD_ONCE_INIT;

static void build_one(emu_decoder *d, const target *t)
{
    unsigned bit = target_isa_bit(t);
    memset(d, 0, sizeof *d);
    d->t = t;
    for (int i = 0; i < isa_optable_len; i++) {
        const isa_opinfo *r = &isa_optable[i];
        if (!(r->targets & bit))
            continue;
        unsigned o = r->opcode;
        switch (r->fmt) {
        case F_SOP2: d->sop2[o] = r; break;
        case F_SOPK: d->sopk[o] = r; break;
        case F_SOP1: d->sop1[o] = r; break;
        case F_SOPC: d->sopc[o] = r; break;
        case F_SOPP: d->sopp[o] = r; break;
        case F_SMEM: d->smem[o] = r; break;
        case F_VOP1:
            d->vop1[o] = r;
            if (!d->vop3[0x140 + o])
                d->vop3[0x140 + o] = r;
            break;
        case F_VOP2:
            d->vop2[o] = r;
            if (!emu_vop2_k(r->op))
                d->vop3[0x100 + o] = r;
            break;
        case F_VOPC:
            d->vopc[o] = r;
            d->vop3[o] = r;
            break;
        case F_VOP3: d->vop3[o] = r; break;
        case F_VOP3P:
        case F_MAI: d->vop3p[o] = r; break;
        case F_DS: d->ds[o] = r; break;
        case F_MUBUF: d->mubuf[o] = r; break;
        case F_FLAT: d->flat[o] = r; break;
        case F_GLOBAL: d->global[o] = r; break;
        case F_SCRATCH: d->scratch[o] = r; break;
        default: break;
        }
    }
}

static void build_all(void)
{
    for (int i = 0; i < igemm_target_count; i++)
        build_one(&decoders[i], igemm_targets[i]);
}

const emu_decoder *emu_decoder_get(const target *t)
{
    pthread_once(&decoders_once, build_all);
    for (int i = 0; t && i < igemm_target_count; i++)
        if (igemm_targets[i] == t)
            return &decoders[i];
    return NULL;
}

/* ---- operand resolution ---- */

emu_optype emu_op_type(const isa_opinfo *r)
{
    return r->flags & ISAF_OT_F64 ? OT_F64 : r->flags & ISAF_OT_F16 ? OT_F16 : r->flags & ISAF_OT_F32 ? OT_F32 : OT_INT;
}

const uint32_t emu_fconst32[9] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                  0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
const uint16_t emu_fconst16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118};
const uint64_t emu_fconst64[9] = {0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
                                  0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
                                  0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull};

/* Resolve a source code (9-bit, or >= 512 for AGPRs) of a given width. */
static int resolve(emu_opnd *o, unsigned code, int width, emu_optype ty, const uint32_t *literal)
{
    o->code = (uint16_t)code;
    o->width = (uint8_t)(width ? width : 1);
    o->value = o->value_hi = 0;
    if (code >= R_A0) {
        o->kind = K_AGPR;
    } else if (code >= R_V0) {
        o->kind = K_VGPR;
    } else if (code <= 127) {
        o->kind = K_SGPR;
    } else if (code >= 128 && code <= 208) {
        int64_t v = code <= 192 ? (int64_t)code - 128 : 192 - (int64_t)code;
        o->kind = K_CONST;
        o->value = (uint32_t)v;
        o->value_hi = v < 0 ? 0xffffffffu : 0;
    } else if (code >= 240 && code <= 248) {
        o->kind = K_CONST;
        int i = (int)code - 240;
        if (o->width == 2 || ty == OT_F64) {
            o->value = (uint32_t)emu_fconst64[i];
            o->value_hi = (uint32_t)(emu_fconst64[i] >> 32);
        } else if (ty == OT_F16) {
            o->value = emu_fconst16[i];
        } else {
            o->value = emu_fconst32[i];
        }
    } else if (code == R_LIT) {
        if (!literal)
            return -1;
        o->kind = K_CONST;
        if (o->width == 2 && ty == OT_F64) {
            o->value = 0;
            o->value_hi = *literal;
        } else {
            o->value = *literal;
        }
    } else if (code == R_VCCZ || code == R_EXECZ || code == R_SCC) {
        o->kind = K_SGPR; /* read through the special-register path */
    } else {
        return -1; /* 209..239, 249, 250, 254: not valid sources on gfx9 */
    }
    return 0;
}

static void reg(emu_opnd *o, unsigned code, int width)
{
    o->code = (uint16_t)code;
    o->width = (uint8_t)(width ? width : 1);
    o->kind = code >= R_A0 ? K_AGPR : code >= R_V0 ? K_VGPR : K_SGPR;
    o->value = o->value_hi = 0;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

#define BITS(w, lo, n) (((w) >> (lo)) & ((1u << (n)) - 1))

static bool uses_literal(const unsigned *codes, int n)
{
    for (int i = 0; i < n; i++)
        if (codes[i] == R_LIT)
            return true;
    return false;
}

static int fail(char *err, size_t len, uint64_t pc, uint32_t w0, const char *what)
{
    if (err && len)
        snprintf(err, len, "pc 0x%llx: %s (encoding 0x%08x)", (unsigned long long)pc, what, w0);
    return 0;
}

/* LLVM's mnemonic of an opcode (arch/llvm_names.def, tools/isa/gen_names.py). */
typedef struct {
    uint8_t fmt;
    uint16_t opcode;
    uint8_t targets;
    const char *name;
} llvm_name;

static const llvm_name llvm_names[] = {
#define LLVM_NAME(f, o, ts, n) {f, o, ts, n},
#include "../arch/llvm_names.def"
#undef LLVM_NAME
};

/* An opcode without a row in the op table: refused naming the instruction
 * when llvm-mc knows it for this target, else by format and encoding. */
static int unknown(const emu_decoder *d, char *err, size_t len, uint64_t pc, uint32_t w0, isa_fmt f, unsigned opc,
                   const char *what)
{
    unsigned bit = target_isa_bit(d->t);
    for (size_t i = 0; i < sizeof llvm_names / sizeof llvm_names[0]; i++)
        if (llvm_names[i].fmt == f && llvm_names[i].opcode == opc && (llvm_names[i].targets & bit)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s is not implemented by the emulator (%s opcode 0x%x)", llvm_names[i].name,
                     isa_fmt_name(f), opc);
            return fail(err, len, pc, w0, msg);
        }
    return fail(err, len, pc, w0, what);
}

static bool is_carry_in(isa_op op) { return op == OP_V_ADDC_CO_U32 || op == OP_V_SUBB_CO_U32 || op == OP_V_SUBBREV_CO_U32; }

/* One instruction being decoded: what emu_decode read and what the
 * format's decoder found (the op row and the instruction's dwords). The
 * format decoders return 1, or 0 with the reason in err (fail). */
typedef struct {
    const emu_decoder *d;
    emu_inst *out;
    uint64_t pc;
    uint32_t w0, w1;
    size_t avail;
    /* AGPR operand bits (acc_cd, DS/MUBUF/FLAT acc) exist with the unified
       register file; sc0/sc1/nt replace glc/slc on gfx940+ */
    bool acc_bits, sc_bits, scc_bit;
    char *err;
    size_t errlen;
    const isa_opinfo *r; /* out */
    int words;           /* out */
} dec_ctx;

#define DEC_LOCALS                                                                                                   \
    const emu_decoder *d = x->d;                                                                                     \
    emu_inst *out = x->out;                                                                                          \
    uint64_t pc = x->pc;                                                                                             \
    uint32_t w0 = x->w0, w1 = x->w1;                                                                                 \
    const isa_opinfo *r = NULL;                                                                                      \
    int words = 1;                                                                                                   \
    bool acc_bits = x->acc_bits, sc_bits = x->sc_bits, scc_bit = x->scc_bit;                                         \
    char *err = x->err;                                                                                              \
    size_t errlen = x->errlen, avail = x->avail;                                                                     \
    (void)d, (void)out, (void)pc, (void)w0, (void)w1, (void)acc_bits, (void)sc_bits, (void)scc_bit, (void)err,        \
        (void)errlen, (void)avail
#define DEC_DONE                                                                                                     \
    do {                                                                                                             \
        x->r = r;                                                                                                    \
        x->words = words;                                                                                            \
        return 1;                                                                                                    \
    } while (0)

/* scalar ALU: SOP1, SOPC, SOPP, SOPK, SOP2 */
static int dec_salu(dec_ctx *x)
{
    DEC_LOCALS;
    unsigned top9 = BITS(w0, 23, 9);
    unsigned s0 = BITS(w0, 0, 8), s1 = BITS(w0, 8, 8), sd = BITS(w0, 16, 7);
    if (top9 == 0x17d) {
        r = d->sop1[BITS(w0, 8, 8)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_SOP1, BITS(w0, 8, 8), "unknown SOP1 opcode");
        out->fmt = F_SOP1;
        unsigned c[] = {s0};
        if (uses_literal(c, 1))
            words = 2;
        if (r->dw)
            reg(&out->dst, sd, r->dw);
        if (r->s0w && resolve(&out->src[0], s0, r->s0w, emu_op_type(r), &w1))
            return fail(err, errlen, pc, w0, "bad SOP1 source");
    } else if (top9 == 0x17e) {
        r = d->sopc[BITS(w0, 16, 7)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_SOPC, BITS(w0, 16, 7), "unknown SOPC opcode");
        out->fmt = F_SOPC;
        unsigned c[] = {s0, s1};
        if (uses_literal(c, 2))
            words = 2;
        if (resolve(&out->src[0], s0, r->s0w, OT_INT, &w1) || resolve(&out->src[1], s1, r->s1w, OT_INT, &w1))
            return fail(err, errlen, pc, w0, "bad SOPC source");
    } else if (top9 == 0x17f) {
        r = d->sopp[BITS(w0, 16, 7)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_SOPP, BITS(w0, 16, 7), "unknown SOPP opcode");
        out->fmt = F_SOPP;
        out->simm16 = (int16_t)BITS(w0, 0, 16);
    } else if (BITS(w0, 28, 4) == 0xb) {
        r = d->sopk[BITS(w0, 23, 5)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_SOPK, BITS(w0, 23, 5), "unknown SOPK opcode");
        out->fmt = F_SOPK;
        out->simm16 = (int16_t)BITS(w0, 0, 16);
        reg(&out->dst, sd, 1);
    } else {
        r = d->sop2[BITS(w0, 23, 7)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_SOP2, BITS(w0, 23, 7), "unknown SOP2 opcode");
        out->fmt = F_SOP2;
        unsigned c[] = {s0, s1};
        if (uses_literal(c, 2))
            words = 2;
        emu_optype ty = emu_op_type(r);
        reg(&out->dst, sd, r->dw);
        if (resolve(&out->src[0], s0, r->s0w, ty, &w1) || resolve(&out->src[1], s1, r->s1w, ty, &w1))
            return fail(err, errlen, pc, w0, "bad SOP2 source");
    }
    DEC_DONE;
}

/* SMEM */
static int dec_smem(dec_ctx *x)
{
    DEC_LOCALS;
    r = d->smem[BITS(w0, 18, 8)];
    if (!r)
        return unknown(d, err, errlen, pc, w0, F_SMEM, BITS(w0, 18, 8), "unknown SMEM opcode");
    out->fmt = F_SMEM;
    words = 2;
    reg(&out->dst, BITS(w0, 6, 7), r->dw);
    reg(&out->src[0], BITS(w0, 0, 6) * 2, r->s0w);
    out->glc = BITS(w0, 16, 1);
    if (BITS(w0, 17, 1)) {
        out->offset = (int32_t)BITS(w1, 0, 21);
    } else {
        /* soffset register in the low bits of the second word */
        reg(&out->src[1], BITS(w1, 0, 7), 1);
    }
    if (BITS(w0, 14, 1))
        return fail(err, errlen, pc, w0, "SMEM with SOE (offset + soffset) is not supported");
    DEC_DONE;
}

/* VOP1 / VOPC / VOP2 (with SDWA / DPP) */
static int dec_vop12c(dec_ctx *x)
{
    DEC_LOCALS;
    unsigned src0 = BITS(w0, 0, 9), vsrc1 = 256 + BITS(w0, 9, 8);
    unsigned vdst = 256 + BITS(w0, 17, 8);
    unsigned top7 = BITS(w0, 25, 7);
    if (top7 == 0x3f) {
        r = d->vop1[BITS(w0, 9, 8)];
        out->fmt = F_VOP1;
    } else if (top7 == 0x3e) {
        r = d->vopc[BITS(w0, 17, 8)];
        out->fmt = F_VOPC;
    } else {
        r = d->vop2[BITS(w0, 25, 6)];
        out->fmt = F_VOP2;
    }
    if (!r)
        return unknown(d, err, errlen, pc, w0, out->fmt,
                       out->fmt == F_VOP1 ? BITS(w0, 9, 8) : out->fmt == F_VOPC ? BITS(w0, 17, 8) : BITS(w0, 25, 6),
                       "unknown VOP1/VOP2/VOPC opcode");
    emu_optype ty = emu_op_type(r);
    if (src0 == 0xf9 || src0 == 0xfa) { /* SDWA / DPP: the second word holds src0 and controls */
        words = 2;
        if (src0 == 0xf9) {
            out->ext = EXT_SDWA;
            unsigned s = BITS(w1, 0, 8) + (BITS(w1, 23, 1) ? 0 : 256);
            out->sdwa_dst_sel = (uint8_t)BITS(w1, 8, 3);
            out->sdwa_dst_unused = (uint8_t)BITS(w1, 11, 2);
            out->clamp = (uint8_t)BITS(w1, 13, 1);
            out->omod = (uint8_t)BITS(w1, 14, 2);
            out->sdwa_src0_sel = (uint8_t)BITS(w1, 16, 3);
            out->sdwa_src0_sext = (uint8_t)BITS(w1, 19, 1);
            out->neg = (uint8_t)(BITS(w1, 20, 1) | BITS(w1, 28, 1) << 1);
            out->abs = (uint8_t)(BITS(w1, 21, 1) | BITS(w1, 29, 1) << 1);
            out->sdwa_src1_sel = (uint8_t)BITS(w1, 24, 3);
            out->sdwa_src1_sext = (uint8_t)BITS(w1, 27, 1);
            if (BITS(w1, 31, 1))
                vsrc1 -= 256; /* src1 is an SGPR */
            src0 = s;
            if (out->fmt == F_VOPC) {
                /* SDWAB: bits 8..14 sdst, 15 SD (sdst given, else VCC); no clamp, omod or dst_sel */
                if (BITS(w1, 15, 1))
                    reg(&out->sdst, BITS(w1, 8, 7), 2);
                out->sdwa_dst_sel = 6;
                out->sdwa_dst_unused = 0;
                out->clamp = out->omod = 0;
            }
        } else {
            out->ext = EXT_DPP;
            src0 = 256 + BITS(w1, 0, 8);
            out->dpp_ctrl = (uint16_t)BITS(w1, 8, 9);
            out->dpp_bound_ctrl = (uint8_t)BITS(w1, 19, 1);
            out->neg = (uint8_t)(BITS(w1, 20, 1) | BITS(w1, 22, 1) << 1);
            out->abs = (uint8_t)(BITS(w1, 21, 1) | BITS(w1, 23, 1) << 1);
            out->dpp_bank_mask = (uint8_t)BITS(w1, 24, 4);
            out->dpp_row_mask = (uint8_t)BITS(w1, 28, 4);
        }
    } else if (src0 == R_LIT || emu_vop2_k(r->op)) {
        words = 2;
    }
    const uint32_t *lit = words == 2 && out->ext == EXT_NONE ? &w1 : NULL;
    if (out->fmt == F_VOP1) {
        if (r->dw)
            reg(&out->dst, r->op == OP_V_READFIRSTLANE_B32 ? vdst - 256 : vdst, r->dw);
        if (r->s0w && resolve(&out->src[0], src0, r->s0w, ty, lit))
            return fail(err, errlen, pc, w0, "bad VOP1 source");
        if (r->op == OP_V_ACCVGPR_MOV_B32) {
            reg(&out->dst, vdst - 256 + R_A0, 1);
            reg(&out->src[0], src0 - 256 + R_A0, 1);
        }
    } else if (out->fmt == F_VOPC) {
        if (out->sdst.code == R_NONE)
            reg(&out->sdst, R_VCC, 2);
        if (resolve(&out->src[0], src0, r->s0w, ty, lit) || resolve(&out->src[1], vsrc1, r->s1w, ty, lit))
            return fail(err, errlen, pc, w0, "bad VOPC source");
    } else {
        reg(&out->dst, vdst, r->dw);
        if (resolve(&out->src[0], src0, r->s0w, ty, lit) || resolve(&out->src[1], vsrc1, r->s1w, ty, lit))
            return fail(err, errlen, pc, w0, "bad VOP2 source");
        if (r->sdw)
            reg(&out->sdst, R_VCC, 2);
        if (r->op == OP_V_CNDMASK_B32 || is_carry_in(r->op))
            reg(&out->src[2], R_VCC, 2);
        if (emu_vop2_k(r->op)) {
            /* madmk/fmamk: d = s0 * K + s1; madak/fmaak: d = s0 * s1 + K. K goes to src[2]. */
            resolve(&out->src[2], R_LIT, 1, OT_F32, &w1);
        }
    }
    DEC_DONE;
}

/* VOP3, VOP3P, MAI */
static int dec_vop3(dec_ctx *x)
{
    DEC_LOCALS;
    words = 2;
    if (avail < 8)
        return fail(err, errlen, pc, w0, "truncated VOP3");
    unsigned c0 = BITS(w1, 0, 9), c1 = BITS(w1, 9, 9), c2 = BITS(w1, 18, 9);
    unsigned vdst = BITS(w0, 0, 8);
    if (BITS(w0, 23, 3) == 7) { /* VOP3P / MAI */
        r = d->vop3p[BITS(w0, 16, 7)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_VOP3P, BITS(w0, 16, 7), "unknown VOP3P opcode");
        out->fmt = r->fmt;
        if (r->fmt == F_MAI) {
            out->cbsz = (uint8_t)BITS(w0, 8, 3);
            out->abid = (uint8_t)BITS(w0, 11, 4);
            out->acc_cd = (uint8_t)(acc_bits ? BITS(w0, 15, 1) : 1);
            out->blgp = (uint8_t)BITS(w1, 29, 3);
            bool acc_a = BITS(w1, 27, 1), acc_b = BITS(w1, 28, 1);
            if (r->op == OP_V_ACCVGPR_READ_B32) {
                reg(&out->dst, 256 + vdst, 1);
                reg(&out->src[0], c0 - 256 + R_A0, 1);
                out->cbsz = out->abid = out->blgp = 0;
            } else if (r->op == OP_V_ACCVGPR_WRITE_B32) {
                reg(&out->dst, R_A0 + vdst, 1);
                if (resolve(&out->src[0], c0, 1, OT_INT, NULL))
                    return fail(err, errlen, pc, w0, "bad v_accvgpr_write source");
                out->cbsz = out->abid = out->blgp = 0;
            } else {
                unsigned cd_base = out->acc_cd ? R_A0 : 256;
                reg(&out->dst, cd_base + vdst, r->dw);
                if (c0 < 256 || c1 < 256)
                    return fail(err, errlen, pc, w0, "MFMA A/B must be registers");
                reg(&out->src[0], acc_a ? c0 - 256 + R_A0 : c0, r->s0w);
                reg(&out->src[1], acc_b ? c1 - 256 + R_A0 : c1, r->s1w);
                if (c2 >= 256)
                    reg(&out->src[2], c2 - 256 + cd_base, r->s2w);
                else if (resolve(&out->src[2], c2, 1, OT_F32, NULL))
                    return fail(err, errlen, pc, w0, "bad MFMA C operand");
            }
        } else {
            out->neg_hi = (uint8_t)BITS(w0, 8, 3);
            out->opsel = (uint8_t)BITS(w0, 11, 3);
            out->opsel_hi = (uint8_t)(BITS(w1, 27, 2) | BITS(w0, 14, 1) << 2);
            out->clamp = (uint8_t)BITS(w0, 15, 1);
            out->neg = (uint8_t)BITS(w1, 29, 3);
            emu_optype ty = emu_op_type(r);
            reg(&out->dst, 256 + vdst, r->dw);
            if (resolve(&out->src[0], c0, r->s0w, ty, NULL) || resolve(&out->src[1], c1, r->s1w, ty, NULL) ||
                (r->s2w && resolve(&out->src[2], c2, r->s2w, ty, NULL)))
                return fail(err, errlen, pc, w0, "bad VOP3P source");
        }
    } else {
        r = d->vop3[BITS(w0, 16, 10)];
        if (!r)
            return unknown(d, err, errlen, pc, w0, F_VOP3, BITS(w0, 16, 10), "unknown VOP3 opcode");
        out->fmt = F_VOP3;
        emu_optype ty = emu_op_type(r);
        out->clamp = (uint8_t)BITS(w0, 15, 1);
        out->omod = (uint8_t)BITS(w1, 27, 2);
        out->neg = (uint8_t)BITS(w1, 29, 3);
        bool vop3b = r->sdw && r->fmt != F_VOPC;
        if (vop3b) {
            reg(&out->sdst, BITS(w0, 8, 7), 2);
        } else {
            out->abs = (uint8_t)BITS(w0, 8, 3);
            out->opsel = (uint8_t)BITS(w0, 11, 4);
        }
        if (r->fmt == F_VOPC)
            reg(&out->sdst, vdst, 2);
        else if (r->op == OP_V_READLANE_B32 || r->op == OP_V_READFIRSTLANE_B32)
            reg(&out->dst, vdst, 1);
        else if (r->dw)
            reg(&out->dst, 256 + vdst, r->dw);
        int nsrc = r->fmt == F_VOP1 ? 1 : (r->s2w || is_carry_in(r->op)) ? 3 : 2;
        if (r->fmt == F_VOP1 && !r->s0w)
            nsrc = 0;
        int widths[3] = {r->s0w, r->s1w, r->s2w ? r->s2w : 2};
        unsigned cs[3] = {c0, c1, c2};
        for (int i = 0; i < nsrc; i++)
            if (resolve(&out->src[i], cs[i], widths[i], ty, NULL))
                return fail(err, errlen, pc, w0, "bad VOP3 source");
    }
    DEC_DONE;
}

/* DS */
static int dec_ds(dec_ctx *x)
{
    DEC_LOCALS;
    r = d->ds[BITS(w0, 17, 8)];
    if (!r)
        return unknown(d, err, errlen, pc, w0, F_DS, BITS(w0, 17, 8), "unknown DS opcode");
    out->fmt = F_DS;
    words = 2;
    out->offset = (int32_t)BITS(w0, 0, 8);
    out->offset1 = (uint8_t)BITS(w0, 8, 8);
    out->gds = (uint8_t)BITS(w0, 16, 1);
    out->acc = (uint8_t)(acc_bits ? BITS(w0, 25, 1) : 0);
    unsigned base = out->acc ? R_A0 : 256;
    out->ds_two = (r->flags & ISAF_DS2) != 0;
    if (!out->ds_two)
        out->offset = (int32_t)BITS(w0, 0, 16);
    reg(&out->src[0], 256 + BITS(w1, 0, 8), 1);
    if (r->dw)
        reg(&out->dst, base + BITS(w1, 24, 8), r->dw);
    bool perm = r->op == OP_DS_PERMUTE_B32 || r->op == OP_DS_BPERMUTE_B32;
    if (perm) {
        reg(&out->src[1], 256 + BITS(w1, 8, 8), 1);
    } else if (!r->dw || r->s1w) {
        if (r->s1w)
            reg(&out->src[1], base + BITS(w1, 8, 8), r->s1w);
        if (r->s2w)
            reg(&out->src[2], base + BITS(w1, 16, 8), r->s2w);
    }
    DEC_DONE;
}

/* MUBUF */
static int dec_mubuf(dec_ctx *x)
{
    DEC_LOCALS;
    r = d->mubuf[BITS(w0, 18, 7)];
    if (!r)
        return unknown(d, err, errlen, pc, w0, F_MUBUF, BITS(w0, 18, 7), "unknown MUBUF opcode");
    out->fmt = F_MUBUF;
    words = 2;
    out->offset = (int32_t)BITS(w0, 0, 12);
    out->offen = (uint8_t)BITS(w0, 12, 1);
    out->idxen = (uint8_t)BITS(w0, 13, 1);
    if (sc_bits) {
        out->sc0 = (uint8_t)BITS(w0, 14, 1);
        out->sc1 = (uint8_t)BITS(w0, 15, 1);
        out->nt = (uint8_t)BITS(w0, 17, 1);
    } else {
        out->glc = (uint8_t)BITS(w0, 14, 1);
        out->slc = (uint8_t)BITS(w0, 17, 1);
        out->scc_bit = (uint8_t)(scc_bit ? BITS(w0, 15, 1) : 0);
    }
    if (BITS(w1, 23, 1)) {
        if (!acc_bits)
            return fail(err, errlen, pc, w0, "MUBUF with TFE is not supported");
        out->acc = 1;
    }
    if (BITS(w0, 16, 1))
        return fail(err, errlen, pc, w0, "MUBUF with LDS is not supported");
    unsigned base = out->acc ? R_A0 : 256;
    int na = (out->offen && out->idxen) ? 2 : (out->offen || out->idxen) ? 1 : 0;
    if (na)
        reg(&out->src[0], 256 + BITS(w1, 0, 8), na);
    reg(&out->dst, base + BITS(w1, 8, 8), r->dw);
    reg(&out->src[1], BITS(w1, 16, 5) * 4, 4);
    if (resolve(&out->src[2], BITS(w1, 24, 8), 1, OT_INT, NULL))
        return fail(err, errlen, pc, w0, "bad MUBUF soffset");
    DEC_DONE;
}

/* FLAT / SCRATCH / GLOBAL */
static int dec_flat(dec_ctx *x)
{
    DEC_LOCALS;
    unsigned seg = BITS(w0, 14, 2); /* 0 flat, 1 scratch, 2 global */
    if (seg == 0)
        r = d->flat[BITS(w0, 18, 7)];
    else if (seg == 2)
        r = d->global[BITS(w0, 18, 7)];
    else if (seg == 1)
        r = d->scratch[BITS(w0, 18, 7)];
    if (!r)
        return unknown(d, err, errlen, pc, w0, seg == 2 ? F_GLOBAL : seg == 1 ? F_SCRATCH : F_FLAT, BITS(w0, 18, 7),
                       "unknown FLAT/GLOBAL/SCRATCH opcode");
    /* bit 13: LDS, or on gfx940+ scratch SVE (VADDR used) */
    bool sve = seg == 1 && d->t->scratch_sve_bit && BITS(w0, 13, 1);
    if (BITS(w0, 13, 1) && !sve)
        return fail(err, errlen, pc, w0, "FLAT/GLOBAL with LDS is not supported");
    out->fmt = r->fmt;
    words = 2;
    unsigned off = BITS(w0, 0, 13);
    out->offset = seg == 0 ? (int32_t)BITS(w0, 0, 12) : (int32_t)(off & 0x1000 ? (int)off - 0x2000 : (int)off);
    if (sc_bits) {
        out->sc0 = (uint8_t)BITS(w0, 16, 1);
        out->nt = (uint8_t)BITS(w0, 17, 1);
        out->sc1 = (uint8_t)BITS(w0, 25, 1);
    } else {
        out->glc = (uint8_t)BITS(w0, 16, 1);
        out->slc = (uint8_t)BITS(w0, 17, 1);
        out->scc_bit = (uint8_t)(scc_bit ? BITS(w0, 25, 1) : 0);
    }
    if (BITS(w1, 23, 1)) {
        if (!acc_bits)
            return fail(err, errlen, pc, w0, "FLAT with NV is not supported");
        out->acc = 1;
    }
    unsigned base = out->acc ? R_A0 : 256;
    unsigned saddr = BITS(w1, 16, 7);
    bool has_saddr = seg != 0 && saddr != 0x7f;
    if (seg == 1) { /* a 32-bit private offset: VADDR and/or one SGPR, or neither */
        if (d->t->scratch_sve_bit ? sve : !has_saddr)
            reg(&out->src[0], 256 + BITS(w1, 0, 8), 1);
    } else
        reg(&out->src[0], 256 + BITS(w1, 0, 8), has_saddr ? 1 : 2);
    bool atomic = r->flags & ISAF_ATOMIC, store = atomic || (r->flags & ISAF_STORE);
    if (store)
        reg(&out->src[1], base + BITS(w1, 8, 8), r->dw);
    if (!store)
        reg(&out->dst, base + BITS(w1, 24, 8), r->dw);
    else if (atomic && (out->glc || out->sc0)) /* returns the old value */
        reg(&out->dst, base + BITS(w1, 24, 8), r->op == OP_GLOBAL_ATOMIC_CMPSWAP ? 1 : r->dw);
    if (has_saddr)
        reg(&out->src[2], saddr, seg == 1 ? 1 : 2);
    DEC_DONE;
}

int emu_decode(const emu_decoder *d, const uint8_t *code, size_t avail, uint64_t pc, emu_inst *out, char *err,
               size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->pc = pc;
    out->target = -1;
    out->dst.code = out->sdst.code = R_NONE;
    for (int i = 0; i < 3; i++)
        out->src[i].code = R_NONE;
    if (avail < 4)
        return fail(err, errlen, pc, 0, "truncated instruction");
    uint32_t w0 = rd32(code), w1 = avail >= 8 ? rd32(code + 4) : 0;
    out->raw[0] = w0;
    out->raw[1] = w1;
    dec_ctx x = {.d = d, .out = out, .pc = pc, .w0 = w0, .w1 = w1, .avail = avail,
                 .acc_bits = d->t->unified_acc_vgprs, .sc_bits = d->t->cache_bits_sc, .scc_bit = d->t->mem_scc_bit,
                 .err = err, .errlen = errlen};
    int ok;
    if (BITS(w0, 30, 2) == 2)
        ok = dec_salu(&x);
    else if (BITS(w0, 26, 6) == 0x30)
        ok = dec_smem(&x);
    else if (BITS(w0, 31, 1) == 0)
        ok = dec_vop12c(&x);
    else if (BITS(w0, 26, 6) == 0x34)
        ok = dec_vop3(&x);
    else if (BITS(w0, 26, 6) == 0x36)
        ok = dec_ds(&x);
    else if (BITS(w0, 26, 6) == 0x38)
        ok = dec_mubuf(&x);
    else if (BITS(w0, 26, 6) == 0x37)
        ok = dec_flat(&x);
    else
        return fail(err, errlen, pc, w0, "unknown or unsupported encoding");
    if (!ok)
        return 0;
    const isa_opinfo *r = x.r;
    int words = x.words;
    if ((size_t)words * 4 > avail)
        return fail(err, errlen, pc, w0, "truncated instruction");
    out->op = (uint16_t)r->op;
    out->info = r;
    return words * 4;
}
