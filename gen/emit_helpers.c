/* Semantic helpers over the format functions. */
#include "emit_helpers.h"

#include <stdio.h>
#include <string.h>

void h_load_kargs(emit *e, opnd karg_ptr, opnd dst, int offset, int ndwords)
{
    static const char *const names[] = {[1] = "s_load_dword", [2] = "s_load_dwordx2", [4] = "s_load_dwordx4",
                                        [8] = "s_load_dwordx8", [16] = "s_load_dwordx16"};
    if (ndwords > dst.count) {
        emit_fail(e, "argument load of %d dwords into %s[%d]", ndwords, dst.name ? dst.name : "s", dst.count);
        return;
    }
    int i = 0;
    while (i < ndwords) {
        int n = 16;
        /* widest load that fits, is aligned in the destination and not past the end */
        while (n > 1 && (n > ndwords - i || (dst.index + i) % (n > 4 ? 4 : n)))
            n /= 2;
        e_smem(e, names[n], sub(dst, i, n), karg_ptr, offset + 4 * i);
        i += n;
    }
}

opnd h_workitem_id(emit *e)
{
    opnd v = vreg_fixed(e, "v_tid", 0, 1);
    if (e->t->packed_workitem_ids)
        e_vop2(e, "v_and_b32", v, imm(0x3ff), v);
    return v;
}

static bool same_reg(opnd a, opnd b) { return a.kind == b.kind && a.index == b.index; }

void h_mdiv_v(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift)
{
    if (q.kind != OPK_VGPR || n.kind != OPK_VGPR || s_magic.kind != OPK_SGPR || s_shift.kind != OPK_SGPR ||
        same_reg(q, n)) {
        emit_fail(e, "h_mdiv_v: needs distinct VGPRs q, n and SGPR magic/shift");
        return;
    }
    /* q = (mulhi(magic, n) + n) >> shift */
    e_vop3(e, "v_mul_hi_u32", q, s_magic, n, NOOP);
    h_vadd(e, q, q, n);
    e_vop2(e, "v_lshrrev_b32", q, s_shift, q);
}

void h_mdiv_rem_v(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d)
{
    if (r.kind != OPK_VGPR || q.kind != OPK_VGPR || n.kind != OPK_VGPR || s_d.kind != OPK_SGPR || same_reg(q, n) ||
        same_reg(r, n) || same_reg(r, q)) {
        emit_fail(e, "h_mdiv_rem_v: needs distinct VGPRs r, q, n and SGPRs");
        return;
    }
    h_mdiv_v(e, q, n, s_magic, s_shift);
    h_vmul_lo(e, r, s_d, q);
    h_vsub(e, r, n, r);
}

void h_mdiv_s(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift)
{
    if (q.kind != OPK_SGPR || n.kind != OPK_SGPR || same_reg(q, n)) {
        emit_fail(e, "h_mdiv_s: needs distinct SGPRs q, n");
        return;
    }
    e_sop2(e, "s_mul_hi_u32", q, s_magic, n);
    e_sop2(e, "s_add_u32", q, q, n);
    e_sop2(e, "s_lshr_b32", q, q, s_shift);
}

void h_mdiv_rem_s(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d)
{
    if (r.kind != OPK_SGPR || q.kind != OPK_SGPR || n.kind != OPK_SGPR || same_reg(q, n) || same_reg(r, n) ||
        same_reg(r, q)) {
        emit_fail(e, "h_mdiv_rem_s: needs distinct SGPRs r, q, n");
        return;
    }
    h_mdiv_s(e, q, n, s_magic, s_shift);
    e_sop2(e, "s_mul_i32", r, s_d, q);
    e_sop2(e, "s_sub_u32", r, n, r);
}

void h_buffer_rsrc(emit *e, opnd rsrc, opnd ptr, opnd bytes)
{
    if (rsrc.kind != OPK_SGPR || rsrc.count != 4 || rsrc.index % 4 || ptr.kind != OPK_SGPR || ptr.count != 2 ||
        bytes.kind != OPK_SGPR) {
        emit_fail(e, "h_buffer_rsrc: needs an aligned SGPR quad, an SGPR pair and an SGPR");
        return;
    }
    /* base from the pointer, stride 0, NUM_RECORDS = bytes, dword 3 the
       target's (arch/target.h buffer_rsrc_word3) */
    h_smov(e, at(rsrc, 0), at(ptr, 0));
    e_sop2(e, "s_and_b32", at(rsrc, 1), at(ptr, 1), imm(0xffff));
    h_smov(e, at(rsrc, 2), bytes);
    h_smov(e, at(rsrc, 3), imm(e->t->buffer_rsrc_word3));
}

void h_vadd(emit *e, opnd d, opnd a, opnd b) { e_vop2(e, "v_add_u32", d, a, b); }
void h_vsub(emit *e, opnd d, opnd a, opnd b) { e_vop2(e, "v_sub_u32", d, a, b); }
void h_vmul_lo(emit *e, opnd d, opnd a, opnd b) { e_vop3(e, "v_mul_lo_u32", d, a, b, NOOP); }
void h_vmov(emit *e, opnd d, opnd a) { e_vop1(e, "v_mov_b32", d, a); }
void h_smov(emit *e, opnd d, opnd a) { e_sop1(e, d.count == 2 ? "s_mov_b64" : "s_mov_b32", d, a); }

void h_widen16_to(emit *e, igemm_dtype dt, opnd d, opnd src)
{
    if (dt == IGEMM_FP16)
        e_vop1(e, "v_cvt_f32_f16", d, src);
    else if (dt == IGEMM_BF16)
        e_vop2(e, "v_lshlrev_b32", d, imm(16), src);
}

void h_widen16(emit *e, igemm_dtype dt, opnd v) { h_widen16_to(e, dt, v, v); }

void h_narrow16_nan(emit *e, igemm_dtype dt, opnd v_nan)
{
    if (dt == IGEMM_BF16)
        h_vmov(e, v_nan, imm((int)0x7fc00000)); /* in the high half, where the rounding keeps the value */
}

void h_narrow16x2_consts(emit *e, igemm_dtype dt, opnd s_k)
{
    h_smov(e, at(s_k, 0), imm(0x7fff));
    /* bf16: bytes 3:2 of src1, then 3:2 of src0; fp16: bytes 1:0 of each */
    h_smov(e, at(s_k, 1), imm(dt == IGEMM_BF16 ? 0x07060302 : 0x05040100));
}

/* fp32 t rounded to bf16 in its high half: + 0x7fff + the kept part's
 * lowest bit, a NaN the quiet NaN. s_bias: an SGPR holding 0x7fff (one
 * v_add3_u32), or NOOP (two adds, the bias a literal: gfx9's VOP3 takes
 * none) */
static void bf16_round_hi(emit *e, opnd t, opnd v_tmp, opnd v_nan, opnd s_m, opnd s_bias)
{
    const bool nan = v_nan.kind != OPK_NONE;
    if (nan)
        e_vopc(e, "v_cmp_u_f32", s_m, t, t);
    e_vop3(e, "v_bfe_u32", v_tmp, t, imm(16), imm(1));
    if (s_bias.kind == OPK_NONE) {
        h_vadd(e, t, t, v_tmp);
        h_vadd(e, t, imm(0x7fff), t);
    } else {
        e_vop3(e, "v_add3_u32", t, t, v_tmp, s_bias);
    }
    if (nan)
        e_cndmask(e, t, t, v_nan, s_m);
}

void h_narrow16x2(emit *e, igemm_dtype dt, opnd dst, opnd lo, opnd hi, opnd v_tmp, opnd v_nan, opnd s_m, opnd s_k)
{
    for (int i = 0; i < 2; i++) {
        opnd t = i ? hi : lo;
        if (dt == IGEMM_BF16)
            bf16_round_hi(e, t, v_tmp, v_nan, s_m, at(s_k, 0));
        else
            e_vop1(e, "v_cvt_f16_f32", t, t);
    }
    e_vop3(e, "v_perm_b32", dst, hi, lo, at(s_k, 1));
}

void h_f16x2_to_bf16x2_consts(emit *e, opnd v_nan, opnd s_k)
{
    h_narrow16_nan(e, IGEMM_BF16, v_nan);
    h_narrow16x2_consts(e, IGEMM_BF16, s_k);
}

void h_f16x2_to_bf16x2(emit *e, opnd v, opnd t0, opnd t1, opnd v_tmp, opnd v_nan, opnd s_m, opnd s_k)
{
    e_vop1(e, "v_cvt_f32_f16", t0, v); /* the low half */
    e_vop2(e, "v_lshrrev_b32", t1, imm(16), v);
    e_vop1(e, "v_cvt_f32_f16", t1, t1);
    h_narrow16x2(e, IGEMM_BF16, v, t0, t1, v_tmp, v_nan, s_m, s_k);
}

void h_narrow16(emit *e, igemm_dtype dt, opnd v, opnd v_tmp, opnd v_nan, opnd s_m)
{
    if (dt == IGEMM_FP16) {
        e_vop1(e, "v_cvt_f16_f32", v, v);
    } else if (dt == IGEMM_BF16) {
        bf16_round_hi(e, v, v_tmp, v_nan, s_m, NOOP);
        e_vop2(e, "v_lshrrev_b32", v, imm(16), v);
    }
}
