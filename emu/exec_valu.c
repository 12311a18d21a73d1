/* Vector ALU: VOP1, VOP2, VOPC, VOP3, VOP3P (incl. SDWA and DPP source
 * forms), lane operations and the accumulation-register moves.
 *
 * Every operation computes all 64 lanes into a result array, then the
 * output path applies the output modifiers, the SDWA destination select and
 * the exec (and DPP) mask. Floating point follows round-to-nearest-even with
 * denormals kept (FLOAT_DENORM_MODE 3), or flushed where the descriptor asks
 * (mode 0) and for the legacy MAD/MAC ops; fused operations use fmaf/fma.
 * Transcendentals (v_rcp, v_rsq, v_sqrt, v_exp, v_log) are computed exactly
 * in double and rounded: the hardware is accurate to 1 ULP, so results can
 * differ in the last bit. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <stdio.h>
#include <string.h>

#include "exec.h"

#define LANES for (int l = 0; l < 64; l++)

typedef struct {
    uint32_t t[4][64];   /* scratch for broadcast / modified sources */
    uint32_t r[64], r1[64];
    uint64_t mask;       /* lanes to write (exec & DPP) */
} vctx;

/* ---- sources ---- */

static const uint32_t *dpp_src(wave *w, const emu_inst *in, uint32_t *tmp, uint64_t *mask);

/* Source i as 32-bit lanes, after DPP/SDWA selection and f32 neg/abs. */
static const uint32_t *src32(wave *w, const emu_inst *in, int i, uint32_t *tmp, vctx *v, bool fp)
{
    const uint32_t *p;
    if (i == 0 && in->ext == EXT_DPP)
        p = dpp_src(w, in, tmp, &v->mask);
    else
        p = vsrc(w, &in->src[i], 0, tmp);
    if (in->ext == EXT_SDWA && i < 2) {
        unsigned sel = i ? in->sdwa_src1_sel : in->sdwa_src0_sel;
        bool sext = i ? in->sdwa_src1_sext : in->sdwa_src0_sext;
        if (sel != 6) {
            unsigned sh = sel < 4 ? sel * 8 : (sel - 4) * 16, bits = sel < 4 ? 8 : 16;
            LANES {
                uint32_t x = (p[l] >> sh) & ((1u << bits) - 1);
                if (sext && (x >> (bits - 1)))
                    x |= ~((1u << bits) - 1);
                tmp[l] = x;
            }
            p = tmp;
        }
    }
    unsigned neg = (in->neg >> i) & 1, abs = (in->abs >> i) & 1;
    if (fp && (neg || abs)) {
        uint32_t clr = abs ? 0x7fffffffu : 0xffffffffu, flip = neg ? 0x80000000u : 0;
        LANES tmp[l] = (p[l] & clr) ^ flip;
        p = tmp;
    }
    return p;
}

static uint64_t src64(wave *w, const emu_opnd *o, int l)
{
    if (o->kind == K_VGPR || o->kind == K_AGPR) {
        const uint32_t *lo = o->kind == K_VGPR ? w->v[o->code - R_V0] : w->a[o->code - R_A0];
        const uint32_t *hi = o->kind == K_VGPR ? w->v[o->code - R_V0 + 1] : w->a[o->code - R_A0 + 1];
        return (uint64_t)lo[l] | (uint64_t)hi[l] << 32;
    }
    return sval64(w, o);
}

static double srcf64(wave *w, const emu_inst *in, int i, int l)
{
    uint64_t u = src64(w, &in->src[i], l);
    if ((in->abs >> i) & 1)
        u &= ~(1ull << 63);
    if ((in->neg >> i) & 1)
        u ^= 1ull << 63;
    return f64_of(u);
}

/* DPP: src0 read from another lane of the same row; lanes whose row/bank
 * is masked off, or whose source lane is invalid without bound_ctrl, are
 * not written. */
static const uint32_t *dpp_src(wave *w, const emu_inst *in, uint32_t *tmp, uint64_t *mask)
{
    const uint32_t *p = vsrc(w, &in->src[0], 0, tmp);
    uint32_t out[64];
    unsigned c = in->dpp_ctrl;
    LANES {
        int row = l / 16, bank = (l % 16) / 4, src = -1, li = l % 16;
        if (!((in->dpp_row_mask >> row) & 1) || !((in->dpp_bank_mask >> bank) & 1)) {
            *mask &= ~(1ull << l);
            out[l] = 0;
            continue;
        }
        if (c <= 0xff)
            src = (l & ~3) + (int)((c >> (2 * (l & 3))) & 3);
        else if (c >= 0x101 && c <= 0x10f)
            src = li + (int)(c & 15) < 16 ? l + (int)(c & 15) : -1;
        else if (c >= 0x111 && c <= 0x11f)
            src = li - (int)(c & 15) >= 0 ? l - (int)(c & 15) : -1;
        else if (c >= 0x121 && c <= 0x12f) /* rotate right: data moves to higher lanes, like row_shr */
            src = row * 16 + (li + 16 - (int)(c & 15)) % 16;
        else if (c == 0x130)
            src = l + 1 < 64 ? l + 1 : -1;
        else if (c == 0x134)
            src = (l + 1) % 64;
        else if (c == 0x138)
            src = l - 1;
        else if (c == 0x13c)
            src = (l + 63) % 64;
        else if (c == 0x140)
            src = row * 16 + 15 - li;
        else if (c == 0x141)
            src = (l & ~7) + 7 - (l & 7);
        else if (c == 0x142) /* row_bcast:15: every lane of rows 1-3 reads lane 15 of the row before */
            src = row == 0 ? -1 : row * 16 - 1;
        else if (c == 0x143) /* row_bcast:31: rows 2 and 3 read lane 31 */
            src = row < 2 ? -1 : 31;
        if (src < 0 || src > 63 || !((exec_mask(w) >> src) & 1)) {
            if (in->dpp_bound_ctrl)
                out[l] = 0;
            else {
                *mask &= ~(1ull << l);
                out[l] = 0;
            }
            continue;
        }
        out[l] = p[src];
    }
    memcpy(tmp, out, sizeof out);
    return tmp;
}

/* ---- output ---- */

/* The clamp modifier: [0, 1], NaN -> 0. */
static float clamp01(float f) { return f != f ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f; }

static uint32_t omod_clamp(const emu_inst *in, uint32_t x)
{
    if (!in->omod && !in->clamp)
        return x;
    float f = f32_of(x);
    if (in->omod == 1)
        f *= 2.0f;
    else if (in->omod == 2)
        f *= 4.0f;
    else if (in->omod == 3)
        f *= 0.5f;
    if (in->clamp)
        f = clamp01(f);
    return bits_of(f);
}

static void write_v(wave *w, const emu_inst *in, vctx *v, const uint32_t *r, int dword)
{
    uint32_t *d = vdst(w, in->dst.code, dword);
    if (in->ext == EXT_SDWA && in->sdwa_dst_sel != 6) {
        unsigned sel = in->sdwa_dst_sel, sh = sel < 4 ? sel * 8 : (sel - 4) * 16, bits = sel < 4 ? 8 : 16;
        uint32_t fm = ((1u << bits) - 1) << sh;
        uint32_t out[64];
        LANES {
            uint32_t x = (r[l] << sh) & fm;
            if (in->sdwa_dst_unused == 2)
                x |= d[l] & ~fm;
            else if (in->sdwa_dst_unused == 1 && (x >> (sh + bits - 1)) & 1)
                x |= ~((1u << (sh + bits)) - 1);
            out[l] = x;
        }
        wb(d, out, v->mask);
        return;
    }
    wb(d, r, v->mask);
}

/* Lane-mask result (VOPC, carry-out): inactive lanes read as 0. */
static void write_mask(wave *w, uint16_t code, uint64_t m) { sset64(w, code, m); }

/* ---- f16 helpers ---- */

static uint16_t h_sel(uint32_t x, int hi) { return (uint16_t)(hi ? x >> 16 : x); }
static float hf(uint32_t x, int hi, int neg, int abs)
{
    uint16_t h = h_sel(x, hi);
    if (abs)
        h &= 0x7fff;
    if (neg)
        h ^= 0x8000;
    return f16_to_f32(h);
}

static uint32_t vcmp_class(float f, uint32_t m)
{
    uint32_t u = bits_of(f);
    int neg = u >> 31;
    int bit;
    switch (fpclassify(f)) {
    case FP_NAN: bit = (u & 0x400000) ? 1 : 0; break;
    case FP_INFINITE: bit = neg ? 2 : 9; break;
    case FP_NORMAL: bit = neg ? 3 : 8; break;
    case FP_SUBNORMAL: bit = neg ? 4 : 7; break;
    default: bit = neg ? 5 : 6; break;
    }
    return (m >> bit) & 1;
}

static float ftz(const emu_kernel *k, float f)
{
    return k->denorm32 == 3 ? f : flush_denorm(f);
}

/* float -> int32 truncating toward zero, saturating, NaN -> 0 */
static uint32_t cvt_i32(float x)
{
    return (uint32_t)(x != x ? 0 : x <= -2147483648.0f ? INT32_MIN : x >= 2147483648.0f ? INT32_MAX : (int32_t)x);
}

static int32_t sext24(uint32_t x) { return (int32_t)(x << 8) >> 8; }

static uint32_t med3u(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t mx = a > b ? a : b, mn = a < b ? a : b;
    return c > mx ? mx : c < mn ? mn : c;
}
static int32_t med3i(int32_t a, int32_t b, int32_t c)
{
    int32_t mx = a > b ? a : b, mn = a < b ? a : b;
    return c > mx ? mx : c < mn ? mn : c;
}

static float legacy_mul(float a, float b) { return (a == 0.0f || b == 0.0f) ? 0.0f : a * b; }

/* ---- VOP3P (packed 16-bit, mix, dot, packed f32) ---- */

/* The packed f32 operations and v_pk_mov_b32: 64-bit operands, op_sel
 * picking the dword of each source for the low result, op_sel_hi for the
 * high one. */
static void vop3p_64(wave *w, const emu_inst *in, vctx *v)
{
    unsigned os = in->opsel, oh = in->opsel_hi, nl = in->neg, nh = in->neg_hi;
    switch ((isa_op)in->op) {
    case OP_V_PK_FMA_F32:
    case OP_V_PK_MUL_F32:
    case OP_V_PK_ADD_F32: {
        /* 64-bit operands: op_sel picks the dword of each source for the low
           result, op_sel_hi for the high result. */
        uint32_t lo[64], hi[64];
        int ns = in->op == OP_V_PK_FMA_F32 ? 3 : 2;
        LANES {
            float x[2][3];
            for (int i = 0; i < ns; i++) {
                uint64_t s = src64(w, &in->src[i], l);
                for (int h = 0; h < 2; h++) {
                    int sel = h ? (oh >> i) & 1 : (os >> i) & 1;
                    x[h][i] = f32_of((uint32_t)(sel ? s >> 32 : s));
                    if ((h ? nh >> i : nl >> i) & 1)
                        x[h][i] = -x[h][i];
                }
            }
            for (int h = 0; h < 2; h++) {
                uint32_t res;
                if (in->op == OP_V_PK_FMA_F32)
                    res = bits_of(fmaf(x[h][0], x[h][1], x[h][2]));
                else if (in->op == OP_V_PK_MUL_F32)
                    res = bits_of(x[h][0] * x[h][1]);
                else
                    res = bits_of(x[h][0] + x[h][1]);
                (h ? hi : lo)[l] = res;
            }
        }
        write_v(w, in, v, lo, 0);
        write_v(w, in, v, hi, 1);
        break;
    }
    case OP_V_PK_MOV_B32: {
        /* d.lo = src0 dword op_sel[0], d.hi = src1 dword op_sel[1] */
        uint32_t lo[64], hi[64];
        LANES {
            uint64_t s0 = src64(w, &in->src[0], l), s1 = src64(w, &in->src[1], l);
            lo[l] = (uint32_t)((os & 1) ? s0 >> 32 : s0);
            hi[l] = (uint32_t)((os & 2) ? s1 >> 32 : s1);
        }
        write_v(w, in, v, lo, 0);
        write_v(w, in, v, hi, 1);
        break;
    }
    default:
        break;
    }
}

/* VOP3P clamp: each f16 half, or the f32 / the written half of v_fma_mix*,
 * to [0, 1]. */
static int vop3p_clamp(wg_ctx *c, wave *w, const emu_inst *in, uint32_t *r)
{
    switch ((isa_op)in->op) {
    case OP_V_PK_FMA_F16: case OP_V_PK_ADD_F16: case OP_V_PK_MUL_F16: case OP_V_PK_MIN_F16: case OP_V_PK_MAX_F16:
        /* clamp each f16 half to [0, 1] (NaN -> 0) */
        LANES {
            uint32_t x = 0;
            for (int h = 0; h < 2; h++) {
                float f = clamp01(f16_to_f32((uint16_t)(r[l] >> (16 * h))));
                x |= (uint32_t)f32_to_f16(f) << (16 * h);
            }
            r[l] = x;
        }
        break;
    case OP_V_FMA_MIX_F32:
        LANES r[l] = omod_clamp(in, r[l]);
        break;
    case OP_V_FMA_MIXLO_F16: case OP_V_FMA_MIXHI_F16: {
        int h = in->op == OP_V_FMA_MIXHI_F16;
        LANES {
            float f = clamp01(f16_to_f32((uint16_t)(r[l] >> (16 * h))));
            r[l] = (r[l] & (h ? 0xffffu : 0xffff0000u)) | (uint32_t)f32_to_f16(f) << (16 * h);
        }
        break;
    }
    default:
        return emu_fault(c, w, "clamp on a packed integer operation is not implemented by the emulator");
    }
    return 0;
}

static int exec_vop3p(wg_ctx *c, wave *w, const emu_inst *in, vctx *v)
{
    const uint32_t *A = vsrc(w, &in->src[0], 0, v->t[0]), *B = vsrc(w, &in->src[1], 0, v->t[1]);
    const uint32_t *C = in->src[2].code != R_NONE ? vsrc(w, &in->src[2], 0, v->t[2]) : v->t[2];
    uint32_t *r = v->r;
    unsigned os = in->opsel, oh = in->opsel_hi, nl = in->neg, nh = in->neg_hi;
#define SEL(X, i, hi) h_sel(X[l], hi ? (oh >> (i)) & 1 : (os >> (i)) & 1)
#define HF(X, i, hi) hf(X[l], hi ? (oh >> (i)) & 1 : (os >> (i)) & 1, hi ? (nh >> (i)) & 1 : (nl >> (i)) & 1, 0)
    switch ((isa_op)in->op) {
    case OP_V_PK_FMA_F16:
        LANES r[l] = f32_to_f16(fmaf(HF(A, 0, 0), HF(B, 1, 0), HF(C, 2, 0))) |
                     (uint32_t)f32_to_f16(fmaf(HF(A, 0, 1), HF(B, 1, 1), HF(C, 2, 1))) << 16;
        break;
    case OP_V_PK_ADD_F16:
        LANES r[l] = f32_to_f16(HF(A, 0, 0) + HF(B, 1, 0)) | (uint32_t)f32_to_f16(HF(A, 0, 1) + HF(B, 1, 1)) << 16;
        break;
    case OP_V_PK_MUL_F16:
        LANES r[l] = f32_to_f16(HF(A, 0, 0) * HF(B, 1, 0)) | (uint32_t)f32_to_f16(HF(A, 0, 1) * HF(B, 1, 1)) << 16;
        break;
    case OP_V_PK_MIN_F16:
        LANES r[l] = f32_to_f16(fminf(HF(A, 0, 0), HF(B, 1, 0))) | (uint32_t)f32_to_f16(fminf(HF(A, 0, 1), HF(B, 1, 1))) << 16;
        break;
    case OP_V_PK_MAX_F16:
        LANES r[l] = f32_to_f16(fmaxf(HF(A, 0, 0), HF(B, 1, 0))) | (uint32_t)f32_to_f16(fmaxf(HF(A, 0, 1), HF(B, 1, 1))) << 16;
        break;
    case OP_V_PK_MAD_I16:
        LANES r[l] = (uint16_t)((int16_t)SEL(A, 0, 0) * (int16_t)SEL(B, 1, 0) + (int16_t)SEL(C, 2, 0)) |
                     (uint32_t)(uint16_t)((int16_t)SEL(A, 0, 1) * (int16_t)SEL(B, 1, 1) + (int16_t)SEL(C, 2, 1)) << 16;
        break;
    case OP_V_PK_MAD_U16: /* the low 16 bits of a*b + c, per half (as the i16 one) */
        LANES r[l] = (uint16_t)(SEL(A, 0, 0) * SEL(B, 1, 0) + SEL(C, 2, 0)) |
                     (uint32_t)(uint16_t)(SEL(A, 0, 1) * SEL(B, 1, 1) + SEL(C, 2, 1)) << 16;
        break;
    case OP_V_PK_MIN_U16: {
        LANES {
            uint32_t a0 = SEL(A, 0, 0), b0 = SEL(B, 1, 0), a1 = SEL(A, 0, 1), b1 = SEL(B, 1, 1);
            r[l] = (a0 < b0 ? a0 : b0) | (a1 < b1 ? a1 : b1) << 16;
        }
        break;
    }
    case OP_V_PK_MUL_LO_U16:
        LANES r[l] = (uint16_t)(SEL(A, 0, 0) * SEL(B, 1, 0)) | (uint32_t)(uint16_t)(SEL(A, 0, 1) * SEL(B, 1, 1)) << 16;
        break;
    case OP_V_PK_ADD_I16:
    case OP_V_PK_ADD_U16:
        LANES r[l] = (uint16_t)(SEL(A, 0, 0) + SEL(B, 1, 0)) | (uint32_t)(uint16_t)(SEL(A, 0, 1) + SEL(B, 1, 1)) << 16;
        break;
    case OP_V_PK_SUB_U16:
        LANES r[l] = (uint16_t)(SEL(A, 0, 0) - SEL(B, 1, 0)) | (uint32_t)(uint16_t)(SEL(A, 0, 1) - SEL(B, 1, 1)) << 16;
        break;
    case OP_V_PK_LSHLREV_B16:
        LANES r[l] = (uint16_t)(SEL(B, 1, 0) << (SEL(A, 0, 0) & 15)) | (uint32_t)(uint16_t)(SEL(B, 1, 1) << (SEL(A, 0, 1) & 15)) << 16;
        break;
    case OP_V_FMA_MIX_F32:
    case OP_V_FMA_MIXLO_F16:
    case OP_V_FMA_MIXHI_F16: {
        /* op_sel_hi[i] = 1: source i is f16 (half chosen by op_sel[i]); 0: f32 */
        const uint32_t *S[3] = {A, B, C};
        LANES {
            float x[3];
            for (int i = 0; i < 3; i++) {
                if ((oh >> i) & 1)
                    x[i] = f16_to_f32(h_sel(S[i][l], (os >> i) & 1));
                else
                    x[i] = f32_of(S[i][l]);
                if ((nh >> i) & 1)
                    x[i] = fabsf(x[i]);
                if ((nl >> i) & 1)
                    x[i] = -x[i];
            }
            float f = fmaf(x[0], x[1], x[2]);
            if (in->op == OP_V_FMA_MIX_F32)
                r[l] = bits_of(f);
            else {
                uint32_t old = vdst(w, in->dst.code, 0)[l];
                uint32_t h = f32_to_f16(f);
                r[l] = in->op == OP_V_FMA_MIXLO_F16 ? (old & 0xffff0000u) | h : (old & 0xffffu) | h << 16;
            }
        }
        break;
    }
    case OP_V_DOT2_F32_F16:
        LANES r[l] = bits_of(fmaf(HF(A, 0, 1), HF(B, 1, 1), fmaf(HF(A, 0, 0), HF(B, 1, 0), f32_of(C[l]))));
        break;
    case OP_V_DOT2_I32_I16:
        LANES r[l] = (uint32_t)((int16_t)SEL(A, 0, 0) * (int16_t)SEL(B, 1, 0) + (int16_t)SEL(A, 0, 1) * (int16_t)SEL(B, 1, 1) + (int32_t)C[l]);
        break;
    case OP_V_DOT2_U32_U16:
        LANES r[l] = SEL(A, 0, 0) * SEL(B, 1, 0) + SEL(A, 0, 1) * SEL(B, 1, 1) + C[l];
        break;
    case OP_V_DOT4_I32_I8:
        LANES {
            int32_t s = (int32_t)C[l];
            for (int i = 0; i < 4; i++)
                s += (int8_t)(A[l] >> (8 * i)) * (int8_t)(B[l] >> (8 * i));
            r[l] = (uint32_t)s;
        }
        break;
    case OP_V_DOT4_U32_U8:
        LANES {
            uint32_t s = C[l];
            for (int i = 0; i < 4; i++)
                s += ((A[l] >> (8 * i)) & 255) * ((B[l] >> (8 * i)) & 255);
            r[l] = s;
        }
        break;
    case OP_V_PK_FMA_F32:
    case OP_V_PK_MUL_F32:
    case OP_V_PK_ADD_F32:
    case OP_V_PK_MOV_B32:
        vop3p_64(w, in, v);
        return 0;
    default:
        return emu_fault(c, w, "packed operation not implemented by the emulator");
    }
#undef SEL
#undef HF
    if (in->clamp && vop3p_clamp(c, w, in, r))
        return -1;
    write_v(w, in, v, r, 0);
    return 0;
}

/* ---- v_fmac_f32 ----
 * d = fma(a, b, d) on the lanes of exec, with a single rounding. Where the
 * host CPU has FMA instructions a clone compiled for them is used (eight
 * lanes an instruction); otherwise libm's fmaf, also exact. */

/* A NaN result, as the first implementation's vectorised fmaf loop gave it
 * on x86 (found by running it on every combination of NaN, infinity, zero
 * and ordinary operands, tests/test_mfma_exact.c): the first NaN of b
 * (src1), a (src0), d, quieted; an invalid operation (inf * 0) without NaN
 * operands gives the default NaN. Made explicit so that the compiler's
 * choice among the FMA forms (which orders the operands, differently in
 * different builds of the same loop) cannot change the bits. */
static uint32_t fma_nan(uint32_t a, uint32_t b, uint32_t d)
{
    const uint32_t quiet = 0x400000;
    if ((b & 0x7fffffff) > 0x7f800000)
        return b | quiet;
    if ((a & 0x7fffffff) > 0x7f800000)
        return a | quiet;
    if ((d & 0x7fffffff) > 0x7f800000)
        return d | quiet;
    return 0xffc00000u;
}

#if defined(__x86_64__) && defined(__GNUC__)

/* Eight lanes at a time straight from the registers (d may be a or b: each
 * group of lanes is read before it is written). With every lane active (the
 * main loop's case) fmac_fma_all forms all 64 results before storing any,
 * and a single test finds whether any is a NaN: then it stores nothing and
 * fmac_fma's lane groups redo them. */
__attribute__((target("fma"))) static bool fmac_fma_all(uint32_t *d, const uint32_t *a, const uint32_t *b)
{
    __m256 r[8], unord = _mm256_setzero_ps();
#pragma GCC unroll 8
    for (int g = 0; g < 8; g++) {
        __m256 x = _mm256_loadu_ps((const float *)(const void *)(a + 8 * g));
        __m256 y = _mm256_loadu_ps((const float *)(const void *)(b + 8 * g));
        __m256 z = _mm256_loadu_ps((const float *)(const void *)(d + 8 * g));
        r[g] = _mm256_fmadd_ps(x, y, z);
        unord = _mm256_or_ps(unord, _mm256_cmp_ps(r[g], r[g], _CMP_UNORD_Q));
    }
    if (_mm256_movemask_ps(unord))
        return false;
#pragma GCC unroll 8
    for (int g = 0; g < 8; g++)
        _mm256_storeu_ps((float *)(void *)(d + 8 * g), r[g]);
    return true;
}

__attribute__((target("fma"))) static void fmac_fma(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t exec)
{
    for (int l0 = 0; l0 < 64; l0 += 8) {
        unsigned m = (unsigned)(exec >> l0) & 0xff;
        if (!m)
            continue;
        __m256 x = _mm256_loadu_ps((const float *)(const void *)(a + l0));
        __m256 y = _mm256_loadu_ps((const float *)(const void *)(b + l0));
        __m256 z = _mm256_loadu_ps((const float *)(const void *)(d + l0));
        __m256 r = _mm256_fmadd_ps(x, y, z);
        bool nan = _mm256_movemask_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q)) != 0;
        if (m == 0xff && !nan) {
            _mm256_storeu_ps((float *)(void *)(d + l0), r);
            continue;
        }
        uint32_t out[8];
        _mm256_storeu_ps((float *)(void *)out, r);
        if (nan)
            for (int i = 0; i < 8; i++)
                if ((out[i] & 0x7fffffff) > 0x7f800000)
                    out[i] = fma_nan(a[l0 + i], b[l0 + i], d[l0 + i]);
        if (m == 0xff)
            memcpy(d + l0, out, sizeof out);
        else
            for (int i = 0; i < 8; i++)
                if (m >> i & 1)
                    d[l0 + i] = out[i];
    }
}
#endif

/* Lane by lane through libm's fmaf (exact), the NaNs by fma_nan's rule:
 * the same bits as fmac_fma on every input. */
static void fmac_libm(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t exec)
{
    for (int l = 0; l < 64; l++)
        if (exec >> l & 1) {
            uint32_t r = bits_of(fmaf(f32_of(a[l]), f32_of(b[l]), f32_of(d[l])));
            d[l] = (r & 0x7fffffff) > 0x7f800000 ? fma_nan(a[l], b[l], d[l]) : r;
        }
}


static void fmac_lanes(uint32_t *d, const uint32_t *a, const uint32_t *b, uint64_t exec)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (emu_host_fma()) {
        if (exec != ~0ull || !fmac_fma_all(d, a, b))
            fmac_fma(d, a, b, exec);
        return;
    }
#endif
    fmac_libm(d, a, b, exec);
}


/* ---- what LLVM-compiled code needs beyond the generator's subset (issue 24) ---- */

/* VOPC by its encoding (GCN3/CDNA opcode map): 0x10-0x15 class f32/f64/f16
 * (odd: the x form), 0x20 f16, 0x40 f32, 0x60 f64 (16 predicates each, +0x10
 * the x form), 0xa0 i16, 0xa8 u16, 0xc0 i32, 0xc8 u32, 0xe0 i64, 0xe8 u64 (8
 * predicates each, +0x10 the x form). Predicates: f lt eq le gt lg ge o u
 * nge nlg ngt nle neq nlt tru; integers f lt eq le gt ne ge t. */
static bool fcmp_pred(unsigned p, double a, double b)
{
    bool lt = a < b, eq = a == b, gt = a > b, un = a != a || b != b;
    switch (p & 15) {
    case 0: return false;
    case 1: return lt;
    case 2: return eq;
    case 3: return lt || eq;
    case 4: return gt;
    case 5: return lt || gt;
    case 6: return gt || eq;
    case 7: return !un;
    case 8: return un;
    case 9: return !(gt || eq);
    case 10: return !(lt || gt);
    case 11: return !gt;
    case 12: return !(lt || eq);
    case 13: return !eq;
    case 14: return !lt;
    default: return true;
    }
}

static bool icmp_pred(unsigned p, bool lt, bool eq)
{
    bool gt = !lt && !eq;
    switch (p & 7) {
    case 0: return false;
    case 1: return lt;
    case 2: return eq;
    case 3: return lt || eq;
    case 4: return gt;
    case 5: return !eq;
    case 6: return gt || eq;
    default: return true;
    }
}

/* The class bits of v_cmp_class (f16, f32 and f64 alike). */
static uint32_t class_bit(double x, bool quiet_nan, uint32_t m)
{
    bool neg = signbit(x);
    int bit;
    switch (fpclassify(x)) {
    case FP_NAN: bit = quiet_nan ? 1 : 0; break;
    case FP_INFINITE: bit = neg ? 2 : 9; break;
    case FP_NORMAL: bit = neg ? 3 : 8; break;
    case FP_SUBNORMAL: bit = neg ? 4 : 7; break;
    default: bit = neg ? 5 : 6; break;
    }
    return (m >> bit) & 1;
}

/* Any VOPC the explicit cases do not take; false when the opcode is none. */
static bool vcmp_by_encoding(wave *w, const emu_inst *in, const uint32_t *A, const uint32_t *B, uint64_t exec,
                             uint64_t *out)
{
    unsigned opc = in->info->opcode, os = in->fmt == F_VOP3 ? in->opsel : 0;
    uint64_t m = 0;
    LANES {
        if (!(exec >> l & 1))
            continue;
        bool r;
        if (opc >= 0x10 && opc <= 0x15) {
            if (opc >= 0x14) {
                uint16_t h = h_sel(A[l], os & 1);
                r = class_bit(f16_to_f32(h), (h & 0x200) != 0, B[l]);
            } else if (opc >= 0x12) {
                uint64_t u = src64(w, &in->src[0], l);
                r = class_bit(f64_of(u), (u >> 51) & 1, B[l]);
            } else {
                r = vcmp_class(f32_of(A[l]), B[l]);
            }
        } else if (opc >= 0x20 && opc < 0x80) {
            unsigned row = (opc >> 5) & 3; /* 1 f16, 2 f32, 3 f64 */
            double a, b;
            if (row == 1) {
                a = hf(A[l], os & 1, in->neg & 1, in->abs & 1);
                b = hf(B[l], (os >> 1) & 1, (in->neg >> 1) & 1, (in->abs >> 1) & 1);
            } else if (row == 2) {
                a = f32_of(A[l]);
                b = f32_of(B[l]);
            } else {
                a = srcf64(w, in, 0, l);
                b = srcf64(w, in, 1, l);
            }
            r = fcmp_pred(opc, a, b);
        } else if (opc >= 0xa0) {
            unsigned kind = (opc >> 3) & 0x1d; /* 0x14 i16, 0x15 u16, 0x18 i32, 0x19 u32, 0x1c i64, 0x1d u64 */
            bool lt, eq;
            if (kind >= 0x1c) {
                uint64_t a = src64(w, &in->src[0], l), b = src64(w, &in->src[1], l);
                lt = kind & 1 ? a < b : (int64_t)a < (int64_t)b;
                eq = a == b;
            } else if (kind >= 0x18) {
                lt = kind & 1 ? A[l] < B[l] : (int32_t)A[l] < (int32_t)B[l];
                eq = A[l] == B[l];
            } else {
                uint16_t a = (uint16_t)A[l], b = (uint16_t)B[l];
                lt = kind & 1 ? a < b : (int16_t)a < (int16_t)b;
                eq = a == b;
            }
            r = icmp_pred(opc, lt, eq);
        } else {
            return false;
        }
        if (r)
            m |= 1ull << l;
    }
    *out = m;
    return true;
}

/* v_div_scale_f64/f32 (VOP3b): the first step of LLVM's correctly rounded
 * division. D is S0 scaled (ISA pseudo-code: scaled by 2^128 for f64, 2^64
 * for f32) when the quotient would lose precision, and VCC says whether
 * v_div_fmas must scale back. `man` is the mantissa width (52/23), `big`
 * the exponent difference that needs scaling (768/96). */
static double div_scale(double s0, double s1, double s2, int man, int big, int sc, int low, bool *vcc)
{
    int e1, e2;
    *vcc = false;
    if (s2 == 0 || s1 == 0)
        return NAN;
    frexp(s1, &e1);
    frexp(s2, &e2);
    double inv = 1.0 / s1, q = s2 / s1;
    double tiny = man == 52 ? 0x1p-1022 : 0x1p-126;
    if (e2 - e1 >= big) {
        *vcc = true;
        return s0 == s1 ? ldexp(s0, sc) : s0;
    }
    if (fabs(s1) < tiny)
        return ldexp(s0, sc);
    if (fabs(inv) < tiny && fabs(q) >= tiny) {
        *vcc = true;
        return s0 == s1 ? ldexp(s0, sc) : s0;
    }
    if (fabs(inv) < tiny)
        return ldexp(s0, -sc);
    if (fabs(q) < tiny) {
        *vcc = true;
        return s0 == s2 ? ldexp(s0, sc) : s0;
    }
    if (e2 - 1 <= low) /* the numerator is tiny */
        return ldexp(s0, sc);
    return s0;
}

/* v_div_fixup: the special cases of quotient q = num / den, else q with
 * the quotient's sign. */
static double div_fixup(double q, double den, double num)
{
    bool neg = signbit(den) != signbit(num);
    if (den != den || num != num)
        return NAN;
    if ((den == 0 && num == 0) || (isinf(den) && isinf(num)))
        return NAN;
    if (den == 0 || isinf(num))
        return neg ? -INFINITY : INFINITY;
    if (isinf(den))
        return neg ? -0.0 : 0.0;
    if (q != q)
        return neg ? -INFINITY : INFINITY; /* overflowed quotient: the ISA returns +-inf */
    return neg ? -fabs(q) : fabs(q);
}

/* ---- the rest ---- */

/* ---- VOP1, VOP2, VOPC, VOP3 ----
 * The operations compute into v->r (and the carry or compare mask) and say
 * how the result is written (VO_*): emu_exec_valu writes it. 0: done (the
 * operation wrote its own result), -1: a fault, VO_NONE: not an operation
 * of this group. */
enum { VO_NONE = 1, VO_F32, VO_F16, VO_INT, VO_64, VO_SAT, VO_CARRY, VO_CMP };

/* The sources as emu_exec_valu read them (f32 modifiers applied). */
typedef struct {
    const uint32_t *A, *B, *C;
    uint64_t cin;      /* carry-in / v_cndmask mask */
    unsigned os;       /* f16 VOP3 op_sel */
} valu_srcs;

#define OUT(kind)                                                                                                    \
    do {                                                                                                             \
        *mo = m;                                                                                                     \
        *co = carry;                                                                                                 \
        return kind;                                                                                                 \
    } while (0)
#define VALU_LOCALS                                                                                                  \
    const uint32_t *A = srcs->A, *B = srcs->B, *C = srcs->C;                                                         \
    uint64_t cin = srcs->cin, m = 0, carry = 0;                                                                      \
    unsigned os = srcs->os;                                                                                          \
    uint32_t *r = v->r;                                                                                              \
    const emu_kernel *k = c->k;                                                                                      \
    isa_op op = (isa_op)in->op;                                                                                      \
    (void)A, (void)B, (void)C, (void)cin, (void)os, (void)k, (void)r, (void)op
#define FA f32_of(A[l])
#define FB f32_of(B[l])
#define FC f32_of(C[l])
#define HA hf(A[l], os & 1, in->neg & 1, in->abs & 1)
#define HB hf(B[l], (os >> 1) & 1, (in->neg >> 1) & 1, (in->abs >> 1) & 1)
#define HC hf(C[l], (os >> 2) & 1, (in->neg >> 2) & 1, (in->abs >> 2) & 1)
#define F2(expr) LANES { r[l] = bits_of(expr); } OUT(VO_F32)
#define U2(expr) LANES { r[l] = (expr); } OUT(VO_INT)
#define H2(expr) LANES { r[l] = f32_to_f16(expr); } OUT(VO_F16)
#define D2(expr) LANES { uint64_t d64 = (expr); r[l] = (uint32_t)d64; v->r1[l] = (uint32_t)(d64 >> 32); } OUT(VO_64)
#define CMP(expr) LANES { if (expr) m |= 1ull << l; } OUT(VO_CMP)

/* VOP1 and VOPC */
static int valu_vop1c(wg_ctx *c, wave *w, const emu_inst *in, vctx *v, const valu_srcs *srcs, uint64_t *mo,
                      uint64_t *co)
{
    VALU_LOCALS;
    switch ((isa_op)in->op) {
    case OP_V_NOP: return 0;
    case OP_V_MOV_B32: U2(A[l]);
    case OP_V_READFIRSTLANE_B32: {
        uint32_t x = A[0];
        if (v->mask)
            x = A[__builtin_ctzll(v->mask)];
        sset(w, in->dst.code, x);
        return 0;
    }
    case OP_V_CVT_F32_I32: F2((float)(int32_t)A[l]);
    case OP_V_CVT_F32_U32: F2((float)A[l]);
    case OP_V_CVT_U32_F32: U2(FA != FA || FA <= 0.0f ? 0u : FA >= 4294967296.0f ? 0xffffffffu : (uint32_t)FA);
    case OP_V_CVT_I32_F32: U2(cvt_i32(FA));
    case OP_V_CVT_RPI_I32_F32: U2(cvt_i32(floorf(FA + 0.5f)));
    case OP_V_CVT_FLR_I32_F32: U2(cvt_i32(floorf(FA)));
    case OP_V_CVT_F16_F32: U2(f32_to_f16(FA));
    case OP_V_CVT_F32_F16: F2(HA);
    case OP_V_CVT_F32_UBYTE0: F2((float)(A[l] & 255));
    case OP_V_CVT_F32_UBYTE1: F2((float)((A[l] >> 8) & 255));
    case OP_V_CVT_F32_UBYTE2: F2((float)((A[l] >> 16) & 255));
    case OP_V_CVT_F32_UBYTE3: F2((float)(A[l] >> 24));
    case OP_V_CVT_F16_U16: H2((float)(uint16_t)A[l]);
    case OP_V_CVT_F16_I16: H2((float)(int16_t)A[l]);
    case OP_V_CVT_U16_F16: U2((uint32_t)(uint16_t)(HA < 0 || HA != HA ? 0 : HA > 65535.0f ? 65535 : (int)HA));
    case OP_V_CVT_I16_F16: U2((uint32_t)(uint16_t)(int16_t)(HA != HA ? 0 : HA < -32768.0f ? -32768 : HA > 32767.0f ? 32767 : (int)HA));
    case OP_V_TRUNC_F32: F2(truncf(FA));
    case OP_V_CEIL_F32: F2(ceilf(FA));
    case OP_V_RNDNE_F32: F2(nearbyintf(FA));
    case OP_V_FLOOR_F32: F2(floorf(FA));
    case OP_V_FRACT_F32: F2(FA - floorf(FA) < 1.0f ? FA - floorf(FA) : 0x1.fffffep-1f);
    case OP_V_EXP_F32: F2((float)exp2((double)FA));
    case OP_V_LOG_F32: F2((float)log2((double)FA));
    case OP_V_RCP_F32: case OP_V_RCP_IFLAG_F32: F2((float)(1.0 / (double)FA));
    case OP_V_RSQ_F32: F2((float)(1.0 / sqrt((double)FA)));
    case OP_V_SQRT_F32: F2((float)sqrt((double)FA));
    case OP_V_RCP_F16: H2(1.0f / HA);
    case OP_V_SQRT_F16: H2(sqrtf(HA));
    case OP_V_NOT_B32: U2(~A[l]);
    case OP_V_BFREV_B32: LANES { uint32_t x = A[l], y = 0; for (int i = 0; i < 32; i++) y |= ((x >> i) & 1) << (31 - i); r[l] = y; } OUT(VO_INT);
    case OP_V_FFBH_U32: U2(A[l] ? (uint32_t)__builtin_clz(A[l]) : 0xffffffffu);
    case OP_V_FFBL_B32: U2(A[l] ? (uint32_t)__builtin_ctz(A[l]) : 0xffffffffu);
    case OP_V_FFBH_I32: /* position from the MSB of the first bit that differs from the sign bit */
        LANES {
            uint32_t x = (int32_t)A[l] < 0 ? ~A[l] : A[l];
            r[l] = x == 0 ? 0xffffffffu : (uint32_t)__builtin_clz(x);
        }
        OUT(VO_INT);
    case OP_V_SWAP_B32: {
        uint32_t *d = vdst(w, in->dst.code, 0), *s = vdst(w, in->src[0].code, 0);
        LANES if (v->mask >> l & 1) { uint32_t t = d[l]; d[l] = s[l]; s[l] = t; }
        return 0;
    }
    case OP_V_ACCVGPR_MOV_B32: case OP_V_ACCVGPR_READ_B32: case OP_V_ACCVGPR_WRITE_B32: U2(A[l]);
    case OP_V_MOV_B64: {
        uint32_t lo[64], hi[64];
        LANES { uint64_t x = src64(w, &in->src[0], l); lo[l] = (uint32_t)x; hi[l] = (uint32_t)(x >> 32); }
        write_v(w, in, v, lo, 0);
        write_v(w, in, v, hi, 1);
        return 0;
    }
    case OP_V_CVT_I32_F64: LANES { double x = srcf64(w, in, 0, l); r[l] = (uint32_t)(x != x ? 0 : x <= -2147483648.0 ? INT32_MIN : x >= 2147483647.0 ? INT32_MAX : (int32_t)x); } OUT(VO_INT);
    case OP_V_CVT_U32_F64: LANES { double x = srcf64(w, in, 0, l); r[l] = x != x || x <= 0 ? 0 : x >= 4294967295.0 ? 0xffffffffu : (uint32_t)x; } OUT(VO_INT);
    case OP_V_CVT_F32_F64: LANES r[l] = bits_of((float)srcf64(w, in, 0, l)); OUT(VO_F32);
    case OP_V_CVT_F64_I32: D2(bits64_of((double)(int32_t)A[l]));
    case OP_V_CVT_F64_U32: D2(bits64_of((double)A[l]));
    case OP_V_CVT_F64_F32: D2(bits64_of((double)FA));
    /* VOPC */
    case OP_V_CMP_CLASS_F32: CMP(vcmp_class(FA, B[l]));
    case OP_V_CMP_F_F32: case OP_V_CMP_F_I32: case OP_V_CMP_F_U32: CMP(0);
    case OP_V_CMP_TRU_F32: case OP_V_CMP_T_I32: case OP_V_CMP_T_U32: CMP(1);
    case OP_V_CMP_LT_F32: CMP(FA < FB);
    case OP_V_CMP_EQ_F32: CMP(FA == FB);
    case OP_V_CMP_LE_F32: CMP(FA <= FB);
    case OP_V_CMP_GT_F32: CMP(FA > FB);
    case OP_V_CMP_LG_F32: CMP(FA < FB || FA > FB);
    case OP_V_CMP_GE_F32: CMP(FA >= FB);
    case OP_V_CMP_O_F32: CMP(FA == FA && FB == FB);
    case OP_V_CMP_U_F32: CMP(FA != FA || FB != FB);
    case OP_V_CMP_NGE_F32: CMP(!(FA >= FB));
    case OP_V_CMP_NLG_F32: CMP(!(FA < FB || FA > FB));
    case OP_V_CMP_NGT_F32: CMP(!(FA > FB));
    case OP_V_CMP_NLE_F32: CMP(!(FA <= FB));
    case OP_V_CMP_NEQ_F32: CMP(!(FA == FB));
    case OP_V_CMP_NLT_F32: CMP(!(FA < FB));
    case OP_V_CMP_LT_I32: case OP_V_CMPX_LT_I32: CMP((int32_t)A[l] < (int32_t)B[l]);
    case OP_V_CMP_EQ_I32: case OP_V_CMPX_EQ_I32: case OP_V_CMP_EQ_U32: case OP_V_CMPX_EQ_U32: CMP(A[l] == B[l]);
    case OP_V_CMP_LE_I32: case OP_V_CMPX_LE_I32: CMP((int32_t)A[l] <= (int32_t)B[l]);
    case OP_V_CMP_GT_I32: case OP_V_CMPX_GT_I32: CMP((int32_t)A[l] > (int32_t)B[l]);
    case OP_V_CMP_NE_I32: case OP_V_CMPX_NE_I32: case OP_V_CMP_NE_U32: case OP_V_CMPX_NE_U32: CMP(A[l] != B[l]);
    case OP_V_CMP_GE_I32: case OP_V_CMPX_GE_I32: CMP((int32_t)A[l] >= (int32_t)B[l]);
    case OP_V_CMP_LT_U32: case OP_V_CMPX_LT_U32: CMP(A[l] < B[l]);
    case OP_V_CMP_LE_U32: case OP_V_CMPX_LE_U32: CMP(A[l] <= B[l]);
    case OP_V_CMP_GT_U32: case OP_V_CMPX_GT_U32: CMP(A[l] > B[l]);
    case OP_V_CMP_GE_U32: case OP_V_CMPX_GE_U32: CMP(A[l] >= B[l]);
    case OP_V_CMP_LT_U64: CMP(src64(w, &in->src[0], l) < src64(w, &in->src[1], l));
    case OP_V_CMP_EQ_U64: CMP(src64(w, &in->src[0], l) == src64(w, &in->src[1], l));
    case OP_V_CMP_GT_U64: CMP(src64(w, &in->src[0], l) > src64(w, &in->src[1], l));
    case OP_V_CMP_NE_U64: CMP(src64(w, &in->src[0], l) != src64(w, &in->src[1], l));
    case OP_V_CMP_LT_F16: CMP(HA < HB);
    case OP_V_CMP_EQ_F16: CMP(HA == HB);
    case OP_V_CMP_GT_F16: CMP(HA > HB);
    default:
        return VO_NONE;
    }
}

/* VOP2 */
static int valu_vop2(wg_ctx *c, wave *w, const emu_inst *in, vctx *v, const valu_srcs *srcs, uint64_t *mo,
                     uint64_t *co)
{
    VALU_LOCALS;
    switch ((isa_op)in->op) {
    /* VOP2 */
    case OP_V_CNDMASK_B32: U2((cin >> l & 1) ? B[l] : A[l]);
    case OP_V_ADD_F32: F2(ftz(k, FA + FB));
    case OP_V_SUB_F32: F2(ftz(k, FA - FB));
    case OP_V_SUBREV_F32: F2(ftz(k, FB - FA));
    case OP_V_MUL_LEGACY_F32: F2(legacy_mul(FA, FB));
    case OP_V_MUL_F32: F2(ftz(k, FA * FB));
    case OP_V_MUL_I32_I24: U2((uint32_t)(sext24(A[l]) * sext24(B[l])));
    case OP_V_MUL_HI_I32_I24: U2((uint32_t)(((int64_t)sext24(A[l]) * sext24(B[l])) >> 32));
    case OP_V_MUL_U32_U24: U2((A[l] & 0xffffff) * (B[l] & 0xffffff));
    case OP_V_MUL_HI_U32_U24: U2((uint32_t)(((uint64_t)(A[l] & 0xffffff) * (B[l] & 0xffffff)) >> 32));
    case OP_V_MIN_F32: F2(fminf(FA, FB));
    case OP_V_MAX_F32: F2(fmaxf(FA, FB));
    case OP_V_MIN_I32: U2((int32_t)A[l] < (int32_t)B[l] ? A[l] : B[l]);
    case OP_V_MAX_I32: U2((int32_t)A[l] > (int32_t)B[l] ? A[l] : B[l]);
    case OP_V_MIN_U32: U2(A[l] < B[l] ? A[l] : B[l]);
    case OP_V_MAX_U32: U2(A[l] > B[l] ? A[l] : B[l]);
    case OP_V_LSHRREV_B32: U2(B[l] >> (A[l] & 31));
    case OP_V_ASHRREV_I32: U2((uint32_t)((int32_t)B[l] >> (A[l] & 31)));
    case OP_V_LSHLREV_B32: U2(B[l] << (A[l] & 31));
    case OP_V_AND_B32: U2(A[l] & B[l]);
    case OP_V_OR_B32: U2(A[l] | B[l]);
    case OP_V_XOR_B32: U2(A[l] ^ B[l]);
    case OP_V_XNOR_B32: U2(~(A[l] ^ B[l]));
    case OP_V_MAC_F32: {
        const uint32_t *D = vdst(w, in->dst.code, 0);
        F2(flush_denorm(flush_denorm(flush_denorm(FA) * flush_denorm(FB)) + flush_denorm(f32_of(D[l]))));
    }
    case OP_V_MADMK_F32: F2(flush_denorm(flush_denorm(FA * f32_of(in->src[2].value)) + FB));
    case OP_V_MADAK_F32: F2(flush_denorm(flush_denorm(FA * FB) + f32_of(in->src[2].value)));
    case OP_V_FMAC_F32: {
        const uint32_t *D = vdst(w, in->dst.code, 0);
        F2(ftz(k, fmaf(FA, FB, f32_of(D[l]))));
    }
    case OP_V_ADD_CO_U32: LANES { uint64_t s = (uint64_t)A[l] + B[l]; r[l] = (uint32_t)s; if (s >> 32) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_SUB_CO_U32: LANES { r[l] = A[l] - B[l]; if (B[l] > A[l]) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_SUBREV_CO_U32: LANES { r[l] = B[l] - A[l]; if (A[l] > B[l]) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_ADDC_CO_U32: LANES { uint64_t s = (uint64_t)A[l] + B[l] + (cin >> l & 1); r[l] = (uint32_t)s; if (s >> 32) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_SUBB_CO_U32: LANES { uint64_t b = (uint64_t)B[l] + (cin >> l & 1); r[l] = (uint32_t)(A[l] - b); if (b > A[l]) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_SUBBREV_CO_U32: LANES { uint64_t b = (uint64_t)A[l] + (cin >> l & 1); r[l] = (uint32_t)(B[l] - b); if (b > B[l]) carry |= 1ull << l; } OUT(VO_CARRY);
    case OP_V_ADD_F16: H2(HA + HB);
    case OP_V_SUB_F16: H2(HA - HB);
    case OP_V_SUBREV_F16: H2(HB - HA);
    case OP_V_MUL_F16: H2(HA * HB);
    case OP_V_MAX_F16: H2(fmaxf(HA, HB));
    case OP_V_MIN_F16: H2(fminf(HA, HB));
    case OP_V_MAC_F16: {
        const uint32_t *D = vdst(w, in->dst.code, 0);
        H2(HA * HB + f16_to_f32((uint16_t)D[l]));
    }
    case OP_V_ADD_U16: /* clamp: unsigned saturation */
        LANES { uint32_t t = (A[l] & 0xffff) + (B[l] & 0xffff); r[l] = in->clamp && t > 0xffff ? 0xffff : (uint16_t)t; }
        OUT(VO_SAT);
    case OP_V_SUB_U16:
        LANES { uint32_t a16 = A[l] & 0xffff, b16 = B[l] & 0xffff; r[l] = in->clamp && b16 > a16 ? 0 : (uint16_t)(a16 - b16); }
        OUT(VO_SAT);
    case OP_V_MUL_LO_U16: U2((uint16_t)(A[l] * B[l]));
    case OP_V_LSHLREV_B16: U2((uint16_t)(B[l] << (A[l] & 15)));
    case OP_V_LSHRREV_B16: U2((uint16_t)((B[l] & 0xffff) >> (A[l] & 15)));
    case OP_V_ADD_U32: /* clamp: unsigned saturation */
        LANES { uint64_t t = (uint64_t)A[l] + B[l]; r[l] = in->clamp && t >> 32 ? 0xffffffffu : (uint32_t)t; }
        OUT(VO_SAT);
    case OP_V_SUB_U32: LANES r[l] = in->clamp && B[l] > A[l] ? 0 : A[l] - B[l]; OUT(VO_SAT);
    case OP_V_SUBREV_U32: LANES r[l] = in->clamp && A[l] > B[l] ? 0 : B[l] - A[l]; OUT(VO_SAT);
    case OP_V_DOT2C_F32_F16: {
        const uint32_t *D = vdst(w, in->dst.code, 0);
        F2(fmaf(hf(A[l], 1, 0, 0), hf(B[l], 1, 0, 0), fmaf(hf(A[l], 0, 0, 0), hf(B[l], 0, 0, 0), f32_of(D[l]))));
    }
    case OP_V_FMAC_F64: D2(bits64_of(fma(srcf64(w, in, 0, l), srcf64(w, in, 1, l), f64_of(src64(w, &in->dst, l)))));
    default:
        return VO_NONE;
    }
}

/* VOP3 */
static int valu_vop3(wg_ctx *c, wave *w, const emu_inst *in, vctx *v, const valu_srcs *srcs, uint64_t *mo,
                     uint64_t *co)
{
    VALU_LOCALS;
    switch ((isa_op)in->op) {
    /* VOP3 */
    case OP_V_MAD_LEGACY_F32: F2(flush_denorm(legacy_mul(flush_denorm(FA), flush_denorm(FB)) + flush_denorm(FC)));
    case OP_V_MAD_F32: F2(flush_denorm(flush_denorm(flush_denorm(FA) * flush_denorm(FB)) + flush_denorm(FC)));
    case OP_V_MAD_I32_I24: U2((uint32_t)(sext24(A[l]) * sext24(B[l]) + (int32_t)C[l]));
    case OP_V_MAD_U32_U24: U2((A[l] & 0xffffff) * (B[l] & 0xffffff) + C[l]);
    case OP_V_BFE_U32: LANES { unsigned o = B[l] & 31, wd = C[l] & 31; r[l] = wd ? (A[l] >> o) & ((1u << wd) - 1) : 0; } OUT(VO_INT);
    case OP_V_BFE_I32: /* (S0.i >> offset), masked to width and sign-extended: a field reaching past bit 31 is the arithmetic shift */
        LANES {
            unsigned o = B[l] & 31, wd = C[l] & 31;
            r[l] = !wd ? 0 : o + wd >= 32 ? (uint32_t)((int32_t)A[l] >> o)
                                          : (uint32_t)((int32_t)((A[l] >> o) << (32 - wd)) >> (32 - wd));
        }
        OUT(VO_INT);
    case OP_V_BFI_B32: U2((A[l] & B[l]) | (~A[l] & C[l]));
    case OP_V_FMA_F32: F2(ftz(k, fmaf(FA, FB, FC)));
    case OP_V_ALIGNBIT_B32: U2((uint32_t)((((uint64_t)A[l] << 32) | B[l]) >> (C[l] & 31)));
    case OP_V_ALIGNBYTE_B32: U2((uint32_t)((((uint64_t)A[l] << 32) | B[l]) >> (8 * (C[l] & 3))));
    case OP_V_MIN3_F32: F2(fminf(fminf(FA, FB), FC));
    case OP_V_MAX3_F32: F2(fmaxf(fmaxf(FA, FB), FC));
    case OP_V_MED3_F32: F2(fmaxf(fminf(FA, FB), fminf(fmaxf(FA, FB), FC)));
    case OP_V_MIN3_I32: U2((int32_t)A[l] < (int32_t)B[l] ? ((int32_t)A[l] < (int32_t)C[l] ? A[l] : C[l]) : ((int32_t)B[l] < (int32_t)C[l] ? B[l] : C[l]));
    case OP_V_MIN3_U32: U2(A[l] < B[l] ? (A[l] < C[l] ? A[l] : C[l]) : (B[l] < C[l] ? B[l] : C[l]));
    case OP_V_MAX3_I32: U2((int32_t)A[l] > (int32_t)B[l] ? ((int32_t)A[l] > (int32_t)C[l] ? A[l] : C[l]) : ((int32_t)B[l] > (int32_t)C[l] ? B[l] : C[l]));
    case OP_V_MAX3_U32: U2(A[l] > B[l] ? (A[l] > C[l] ? A[l] : C[l]) : (B[l] > C[l] ? B[l] : C[l]));
    case OP_V_MED3_I32: U2((uint32_t)med3i((int32_t)A[l], (int32_t)B[l], (int32_t)C[l]));
    case OP_V_MED3_U32: U2(med3u(A[l], B[l], C[l]));
    case OP_V_MAD_U64_U32:
    case OP_V_MAD_I64_I32: LANES {
        uint64_t cc = src64(w, &in->src[2], l), p;
        if (op == OP_V_MAD_U64_U32) {
            p = (uint64_t)A[l] * B[l];
            if (p + cc < p) carry |= 1ull << l;
        } else {
            int64_t sp = (int64_t)(int32_t)A[l] * (int32_t)B[l];
            p = (uint64_t)sp;
            __int128 s = (__int128)sp + (int64_t)cc;
            if (s > INT64_MAX || s < INT64_MIN) carry |= 1ull << l;
        }
        uint64_t x = p + cc;
        r[l] = (uint32_t)x; v->r1[l] = (uint32_t)(x >> 32);
    }
        write_v(w, in, v, r, 0);
        write_v(w, in, v, v->r1, 1);
        write_mask(w, in->sdst.code, carry & v->mask);
        return 0;
    case OP_V_MAD_F16: LANES { float f = HA * HB + HC; r[l] = f32_to_f16(f); } OUT(VO_F16);
    case OP_V_FMA_F16: H2(fmaf(HA, HB, HC));
    case OP_V_DIV_FIXUP_F32: F2((float)div_fixup(FA, FB, FC));
    case OP_V_ADD_F64: D2(bits64_of(srcf64(w, in, 0, l) + srcf64(w, in, 1, l)));
    case OP_V_MUL_F64: D2(bits64_of(srcf64(w, in, 0, l) * srcf64(w, in, 1, l)));
    case OP_V_FMA_F64: D2(bits64_of(fma(srcf64(w, in, 0, l), srcf64(w, in, 1, l), srcf64(w, in, 2, l))));
    case OP_V_LDEXP_F64: D2(bits64_of(ldexp(srcf64(w, in, 0, l), (int32_t)B[l])));
    case OP_V_MUL_LO_U32: U2(A[l] * B[l]);
    case OP_V_MUL_HI_U32: U2((uint32_t)(((uint64_t)A[l] * B[l]) >> 32));
    case OP_V_MUL_HI_I32: U2((uint32_t)(((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32));
    case OP_V_LDEXP_F32: F2(ldexpf(FA, (int32_t)B[l]));
    case OP_V_READLANE_B32: sset(w, in->dst.code, A[B[0] & 63]); return 0;
    case OP_V_WRITELANE_B32: vdst(w, in->dst.code, 0)[B[0] & 63] = A[0]; return 0;
    case OP_V_BCNT_U32_B32: U2((uint32_t)__builtin_popcount(A[l]) + B[l]);
    case OP_V_MBCNT_LO_U32_B32: LANES r[l] = (uint32_t)__builtin_popcount(A[l] & (l >= 32 ? 0xffffffffu : (uint32_t)((1ull << l) - 1))) + B[l]; OUT(VO_INT);
    case OP_V_MBCNT_HI_U32_B32: LANES r[l] = (uint32_t)__builtin_popcount(A[l] & (l < 32 ? 0 : (uint32_t)((1ull << (l - 32)) - 1))) + B[l]; OUT(VO_INT);
    case OP_V_LSHLREV_B64: D2(src64(w, &in->src[1], l) << (A[l] & 63));
    case OP_V_LSHRREV_B64: D2(src64(w, &in->src[1], l) >> (A[l] & 63));
    case OP_V_ASHRREV_I64: D2((uint64_t)((int64_t)src64(w, &in->src[1], l) >> (A[l] & 63)));
    case OP_V_BFM_B32: U2(((1u << (A[l] & 31)) - 1) << (B[l] & 31));
    case OP_V_CVT_PKRTZ_F16_F32: LANES {
        /* round toward zero: convert, then step back when rounding went away from zero */
        uint32_t h[2];
        for (int i = 0; i < 2; i++) {
            float x = f32_of((i ? B : A)[l]);
            uint16_t q = f32_to_f16(x);
            float back = f16_to_f32(q);
            if (x == x && isfinite(back) && fabsf(back) > fabsf(x))
                q--;
            else if (x == x && !isfinite(back) && isfinite(x))
                q = (uint16_t)((q & 0x8000) | 0x7bff);
            h[i] = q;
        }
        r[l] = h[0] | h[1] << 16;
    } OUT(VO_INT);
    case OP_V_CVT_PK_U16_U32: U2((A[l] > 0xffff ? 0xffff : A[l]) | (B[l] > 0xffff ? 0xffffu : B[l]) << 16);
    case OP_V_CVT_PK_I16_I32: LANES {
        int32_t x = (int32_t)A[l], y = (int32_t)B[l];
        x = x < -32768 ? -32768 : x > 32767 ? 32767 : x;
        y = y < -32768 ? -32768 : y > 32767 ? 32767 : y;
        r[l] = (uint16_t)x | (uint32_t)(uint16_t)y << 16;
    } OUT(VO_INT);
    case OP_V_PACK_B32_F16: LANES r[l] = h_sel(A[l], os & 1) | (uint32_t)h_sel(B[l], (os >> 1) & 1) << 16; OUT(VO_INT);
    case OP_V_ADD_I32: /* clamp: signed saturation */
    case OP_V_SUB_I32:
        LANES {
            int64_t t = op == OP_V_ADD_I32 ? (int64_t)(int32_t)A[l] + (int32_t)B[l] : (int64_t)(int32_t)A[l] - (int32_t)B[l];
            if (in->clamp)
                t = t > INT32_MAX ? INT32_MAX : t < INT32_MIN ? INT32_MIN : t;
            r[l] = (uint32_t)t;
        }
        OUT(VO_SAT);
    case OP_V_ADD3_U32: U2(A[l] + B[l] + C[l]);
    case OP_V_LSHL_ADD_U32: U2((A[l] << (B[l] & 31)) + C[l]);
    case OP_V_ADD_LSHL_U32: U2((A[l] + B[l]) << (C[l] & 31));
    case OP_V_LSHL_OR_B32: U2((A[l] << (B[l] & 31)) | C[l]);
    case OP_V_AND_OR_B32: U2((A[l] & B[l]) | C[l]);
    case OP_V_OR3_B32: U2(A[l] | B[l] | C[l]);
    case OP_V_XAD_U32: U2((A[l] ^ B[l]) + C[l]);
    case OP_V_PERM_B32: LANES {
        uint64_t x = (uint64_t)A[l] << 32 | B[l];
        uint32_t y = 0;
        for (int i = 0; i < 4; i++) {
            unsigned s = (C[l] >> (8 * i)) & 255, byte;
            if (s < 8)
                byte = (unsigned)(x >> (8 * s)) & 255;
            else if (s < 12)
                byte = ((x >> (16 * (s - 8) + 15)) & 1) ? 255 : 0;
            else if (s == 12)
                byte = 0;
            else
                byte = 255;
            y |= byte << (8 * i);
        }
        r[l] = y;
    } OUT(VO_INT);
    case OP_V_MAD_U32_U16: U2((A[l] & 0xffff) * (B[l] & 0xffff) + C[l]);
    default:
        return VO_NONE;
    }
}

/* What LLVM-compiled code needs beyond the generator's subset (the LLVM
 * corpus, docs/EMULATOR.md): f64 math, frexp, the division helpers, the
 * VOP2 literal forms, and every VOPC by its encoding. */
static int valu_llvm(wg_ctx *c, wave *w, const emu_inst *in, vctx *v, const valu_srcs *srcs, uint64_t *mo,
                     uint64_t *co)
{
    VALU_LOCALS;
    switch (op) {
    case OP_V_FMAMK_F32: F2(ftz(k, fmaf(FA, f32_of(in->src[2].value), FB)));
    case OP_V_FMAAK_F32: F2(ftz(k, fmaf(FA, FB, f32_of(in->src[2].value))));
    case OP_V_RCP_F64: D2(bits64_of(1.0 / srcf64(w, in, 0, l)));
    case OP_V_RSQ_F64: D2(bits64_of(1.0 / sqrt(srcf64(w, in, 0, l))));
    case OP_V_SQRT_F64: D2(bits64_of(sqrt(srcf64(w, in, 0, l))));
    case OP_V_TRUNC_F64: D2(bits64_of(trunc(srcf64(w, in, 0, l))));
    case OP_V_CEIL_F64: D2(bits64_of(ceil(srcf64(w, in, 0, l))));
    case OP_V_RNDNE_F64: D2(bits64_of(nearbyint(srcf64(w, in, 0, l))));
    case OP_V_FLOOR_F64: D2(bits64_of(floor(srcf64(w, in, 0, l))));
    case OP_V_FRACT_F64: LANES {
        double x = srcf64(w, in, 0, l), f = x - floor(x);
        uint64_t u = bits64_of(isinf(x) ? NAN : f < 1.0 ? f : 0x1.fffffffffffffp-1);
        r[l] = (uint32_t)u;
        v->r1[l] = (uint32_t)(u >> 32);
    } OUT(VO_64);
    case OP_V_MIN_F64: D2(bits64_of(fmin(srcf64(w, in, 0, l), srcf64(w, in, 1, l))));
    case OP_V_MAX_F64: D2(bits64_of(fmax(srcf64(w, in, 0, l), srcf64(w, in, 1, l))));
    case OP_V_FREXP_EXP_I32_F32: LANES { int e = 0; float x = FA; if (isfinite(x)) frexpf(x, &e); r[l] = (uint32_t)e; } OUT(VO_INT);
    case OP_V_FREXP_MANT_F32: LANES { int e; float x = FA; r[l] = bits_of(isfinite(x) ? frexpf(x, &e) : x); } OUT(VO_F32);
    case OP_V_FREXP_EXP_I32_F64: LANES { int e = 0; double x = srcf64(w, in, 0, l); if (isfinite(x)) frexp(x, &e); r[l] = (uint32_t)e; } OUT(VO_INT);
    case OP_V_FREXP_MANT_F64: LANES { int e; double x = srcf64(w, in, 0, l); uint64_t u = bits64_of(isfinite(x) ? frexp(x, &e) : x); r[l] = (uint32_t)u; v->r1[l] = (uint32_t)(u >> 32); } OUT(VO_64);
    case OP_V_LSHL_ADD_U64: D2((src64(w, &in->src[0], l) << (B[l] & 7)) + src64(w, &in->src[2], l));
    case OP_V_DIV_SCALE_F64: {
        uint64_t vcc = 0;
        LANES {
            bool sc;
            double d = div_scale(srcf64(w, in, 0, l), srcf64(w, in, 1, l), srcf64(w, in, 2, l), 52, 768, 128, -969, &sc);
            uint64_t u = bits64_of(d);
            r[l] = (uint32_t)u;
            v->r1[l] = (uint32_t)(u >> 32);
            if (sc)
                vcc |= 1ull << l;
        }
        write_v(w, in, v, r, 0);
        write_v(w, in, v, v->r1, 1);
        write_mask(w, in->sdst.code, vcc & v->mask);
        return 0;
    }
    case OP_V_DIV_SCALE_F32: { /* the ISA's f32 thresholds: exponent gap 96, scale 2^64, numerator exponent <= 23 */
        uint64_t vcc = 0;
        LANES {
            bool sc;
            r[l] = bits_of((float)div_scale(FA, FB, FC, 23, 96, 64, 23 - 127, &sc));
            if (sc)
                vcc |= 1ull << l;
        }
        write_v(w, in, v, r, 0);
        write_mask(w, in->sdst.code, vcc & v->mask);
        return 0;
    }
    case OP_V_DIV_FMAS_F32: {
        uint64_t vcc = vcc_mask(w);
        F2(fmaf(FA, FB, FC) * (vcc >> l & 1 ? 0x1p32f : 1.0f));
    }
    case OP_V_DIV_FMAS_F64: {
        uint64_t vcc = vcc_mask(w);
        D2(bits64_of(fma(srcf64(w, in, 0, l), srcf64(w, in, 1, l), srcf64(w, in, 2, l)) * (vcc >> l & 1 ? 0x1p64 : 1.0)));
    }
    case OP_V_DIV_FIXUP_F64: D2(bits64_of(div_fixup(srcf64(w, in, 0, l), srcf64(w, in, 1, l), srcf64(w, in, 2, l))));
    default:
        if (in->info->fmt == F_VOPC && vcmp_by_encoding(w, in, A, B, v->mask, &m))
            OUT(VO_CMP);
        return VO_NONE;
    }
}

void emu_exec_fmac(wave *w, const emu_inst *in)
{
    fmac_lanes(vdst(w, in->dst.code, 0), w->v[in->src[0].code - R_V0], w->v[in->src[1].code - R_V0], exec_mask(w));
}

int emu_exec_valu(wg_ctx *c, wave *w, const emu_inst *in)
{
    vctx V;
    vctx *v = &V;
    uint64_t exec = exec_mask(w);
    v->mask = exec;
    uint32_t *r = v->r;
    isa_op op = (isa_op)in->op;
    if (in->fmt == F_VOP3P)
        return exec_vop3p(c, w, in, v);

    const uint32_t *A = NULL, *B = NULL, *C = NULL;
    /* float source modifiers: also v_cndmask_b32, whose VOP3 form takes neg/abs */
    bool fpm = in->fp_mods;
    if (in->src[0].code != R_NONE && in->src[0].width == 1)
        A = src32(w, in, 0, v->t[0], v, fpm);
    if (in->src[1].code != R_NONE && in->src[1].width == 1)
        B = src32(w, in, 1, v->t[1], v, fpm);
    if (in->src[2].code != R_NONE && in->src[2].width == 1)
        C = src32(w, in, 2, v->t[2], v, fpm);
    uint64_t cin = 0;
    if (in->src[2].code != R_NONE && in->src[2].width == 2)
        cin = sval64(w, &in->src[2]);
    /* f16 VOP3 op_sel: bits 0..2 pick the high half of sources, bit 3 writes
       the high half of the destination. */
    unsigned os = in->fmt == F_VOP3 ? in->opsel : 0;
    valu_srcs srcs = {A, B, C, cin, os};
    uint64_t m = 0, carry = 0;
    int o = valu_vop1c(c, w, in, v, &srcs, &m, &carry);
    if (o == VO_NONE)
        o = valu_vop2(c, w, in, v, &srcs, &m, &carry);
    if (o == VO_NONE)
        o = valu_vop3(c, w, in, v, &srcs, &m, &carry);
    if (o == VO_NONE)
        o = valu_llvm(c, w, in, v, &srcs, &m, &carry);
    switch (o) {
    case VO_NONE:
        return emu_fault(c, w, "vector operation not implemented by the emulator");
    case VO_F32: goto out_f32;
    case VO_F16: goto out_f16;
    case VO_INT: goto out_int;
    case VO_64: goto out_64;
    case VO_SAT: goto out_sat;
    case VO_CARRY: goto out_carry;
    case VO_CMP: goto out_cmp;
    default:
        return o; /* 0 done, -1 a fault */
    }

out_f32:
    if (in->fmt == F_VOP3 || in->ext == EXT_SDWA)
        LANES r[l] = omod_clamp(in, r[l]);
    write_v(w, in, v, r, 0);
    return 0;
out_f16:
    if ((in->fmt == F_VOP3 || in->ext == EXT_SDWA) && (in->omod || in->clamp))
        LANES r[l] = f32_to_f16(f32_of(omod_clamp(in, bits_of(f16_to_f32((uint16_t)r[l])))));
    if (in->fmt == F_VOP3 && (os & 8)) { /* write the high half, keep the low */
        const uint32_t *D = vdst(w, in->dst.code, 0);
        LANES r[l] = (D[l] & 0xffff) | (r[l] & 0xffff) << 16;
    }
    write_v(w, in, v, r, 0);
    return 0;
out_int:
    if (in->clamp && in->fmt == F_VOP3)
        return emu_fault(c, w, "clamp on an integer operation is not implemented by the emulator");
    write_v(w, in, v, r, 0);
    return 0;
out_64:
    write_v(w, in, v, r, 0);
    write_v(w, in, v, v->r1, 1);
    return 0;
out_sat: /* integer results with clamp applied */
    write_v(w, in, v, r, 0);
    return 0;
out_carry:
    if (in->clamp) { /* saturate: an add that carried gives all ones, a sub that borrowed 0 */
        bool add = op == OP_V_ADD_CO_U32 || op == OP_V_ADDC_CO_U32;
        LANES if (carry >> l & 1) r[l] = add ? 0xffffffffu : 0;
    }
    write_v(w, in, v, r, 0);
    write_mask(w, in->sdst.code, carry & v->mask);
    return 0;
out_cmp:
    m &= exec;
    write_mask(w, in->sdst.code, m);
    if (in->cmpx)
        set_exec(w, m);
    return 0;
}
