/* The naive dynamic backward-data kernel and the zero-fill kernel.
 *
 * Naive: work-item gid computes dx[n][c][hi][wi] (gid in NCHW order):
 *
 *   acc = 0
 *   for y < Y:  h = hi + Ph - y*Dh; valid if h >= 0, h % Sh == 0, h / Sh < Ho
 *     for x < X: (same for w)
 *       exec = lanes valid in both
 *       for kk < K/G: acc += w[g*Kg + kk][c % Cg][y][x] * dy[n][g*Kg + kk][ho][wo]
 *   dx[gid] = acc
 *
 * Loops over y, x and kk are scalar (uniform); the per-lane validity becomes
 * the exec mask. Every dx element of the launch is written, so the naive
 * kernel needs no zero fill. It is slow by design: it is the reference the
 * fast kernels are checked against on real GPUs. The fp16 and bf16 kernels
 * load 16-bit elements, widen them, accumulate in fp32 and round the sum
 * to nearest even once: depthwise and grouped layers of a few channels a
 * group, where the GEMM tiles are mostly empty, run on them. */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_naive_args, field) / 4)

void kern_naive(emit *e, igemm_dtype dt)
{
    const char *name = dt == IGEMM_FP16 ? KERNEL_NAIVE_FP16 : dt == IGEMM_BF16 ? KERNEL_NAIVE_BF16 : KERNEL_NAIVE;
    const int lg = dt == IGEMM_FP32 ? 2 : 1; /* log2 of the element size */
    e_kernel_begin(e, name, NAIVE_BLOCK);
#define KARG_STRUCT igemm_naive_args
    IGEMM_NAIVE_ARGS(KARG_DECLARE)
#undef KARG_STRUCT

    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2);
    opnd s_bx = sreg_fixed(e, "s_bx", 2, 1);
    int nargs = (int)(sizeof(igemm_naive_args) / 4);
    opnd s_args = sreg(e, "s_args", nargs, 4);
    e_comment(e, "kernel arguments");
    h_load_kargs(e, s_ka, s_args, 0, nargs);
    opnd p_dx = alias(e, "s_p_dx", sub(s_args, ARG(p_dx), 2));
    opnd p_dy = alias(e, "s_p_dy", sub(s_args, ARG(p_dy), 2));
    opnd p_w = alias(e, "s_p_w", sub(s_args, ARG(p_w), 2));
    opnd a_total = alias(e, "s_total", at(s_args, ARG(total)));
    opnd a_batch = alias(e, "s_batch", at(s_args, ARG(batch)));
    opnd a_hi = alias(e, "s_hi", at(s_args, ARG(hi)));
    opnd a_wi = alias(e, "s_wi", at(s_args, ARG(wi)));
    opnd a_c = alias(e, "s_c", at(s_args, ARG(c)));
    opnd a_k = alias(e, "s_k", at(s_args, ARG(k)));
    opnd a_ho = alias(e, "s_ho", at(s_args, ARG(ho)));
    opnd a_wo = alias(e, "s_wo", at(s_args, ARG(wo)));
    opnd a_fy = alias(e, "s_fy", at(s_args, ARG(fy)));
    opnd a_fx = alias(e, "s_fx", at(s_args, ARG(fx)));
    opnd a_cg = alias(e, "s_cg", at(s_args, ARG(cg)));
    opnd a_kg = alias(e, "s_kg", at(s_args, ARG(kg)));
    opnd a_sh = alias(e, "s_stride_h", at(s_args, ARG(stride_h)));
    opnd a_sw = alias(e, "s_stride_w", at(s_args, ARG(stride_w)));
    opnd a_dh = alias(e, "s_dil_h", at(s_args, ARG(dil_h)));
    opnd a_dw = alias(e, "s_dil_w", at(s_args, ARG(dil_w)));
    opnd a_ph = alias(e, "s_pad_h", at(s_args, ARG(pad_h)));
    opnd a_pw = alias(e, "s_pad_w", at(s_args, ARG(pad_w)));
    opnd m_wi = at(s_args, ARG(mdiv_wi)), sh_wi = at(s_args, ARG(shift_wi));
    opnd m_hi = at(s_args, ARG(mdiv_hi)), sh_hi = at(s_args, ARG(shift_hi));
    opnd m_c = at(s_args, ARG(mdiv_c)), sh_c = at(s_args, ARG(shift_c));
    opnd m_cg = at(s_args, ARG(mdiv_cg)), sh_cg = at(s_args, ARG(shift_cg));
    opnd m_sh = at(s_args, ARG(mdiv_sh)), sh_sh = at(s_args, ARG(shift_sh));
    opnd m_sw = at(s_args, ARG(mdiv_sw)), sh_sw = at(s_args, ARG(shift_sw));

    opnd v_tid = h_workitem_id(e);
    opnd v_gid = vreg(e, "v_gid", 1, 1);
    opnd s_tmp = sreg(e, "s_tmp", 4, 2);
    opnd s_valid = sreg(e, "s_valid", 2, 2);
    label l_end = e_label_new(e, "end");

    e_comment(e, "gid = block * %d + tid; lanes past the end do nothing", NAIVE_BLOCK);
    e_sop2(e, "s_lshl_b32", at(s_tmp, 0), s_bx, imm(8));
    e_waitcnt(e, -1, 0);
    h_vadd(e, v_gid, at(s_tmp, 0), v_tid);
    e_vopc(e, "v_cmp_gt_u32", VCC, a_total, v_gid);
    h_smov(e, s_valid, VCC);
    h_smov(e, EXEC, VCC);
    e_branch(e, "s_cbranch_execz", l_end);

    e_comment(e, "gid -> (n, c, hi, wi); c -> (g, c in group)");
    opnd v_wi = vreg(e, "v_wi", 1, 1), v_hi = vreg(e, "v_hi", 1, 1), v_c = vreg(e, "v_c", 1, 1);
    opnd v_t = vreg(e, "v_t", 2, 1);
    h_mdiv_rem_v(e, v_wi, at(v_t, 0), v_gid, m_wi, sh_wi, a_wi);
    h_mdiv_rem_v(e, v_hi, at(v_t, 1), at(v_t, 0), m_hi, sh_hi, a_hi);
    h_mdiv_rem_v(e, v_c, at(v_t, 0), at(v_t, 1), m_c, sh_c, a_c); /* v_t[0] = n */
    opnd v_n = alias(e, "v_n", at(v_t, 0));
    opnd v_cl = vreg(e, "v_cl", 1, 1);
    opnd v_g = alias(e, "v_g", at(v_t, 1));
    h_mdiv_rem_v(e, v_cl, v_g, v_c, m_cg, sh_cg, a_cg);

    e_comment(e, "w base (bytes): ((g*Kg)*Cg + cl) * Y*X*%d; dy base: (n*K + g*Kg) * Ho*Wo*%d", 1 << lg, 1 << lg);
    opnd s_yx = sreg(e, "s_yx", 1, 1), s_howo = sreg(e, "s_howo", 1, 1);
    opnd s_step_w = sreg(e, "s_step_w", 1, 1), s_step_dy = sreg(e, "s_step_dy", 1, 1);
    e_sop2(e, "s_mul_i32", s_yx, a_fy, a_fx);
    e_sop2(e, "s_mul_i32", s_howo, a_ho, a_wo);
    e_sop2(e, "s_mul_i32", s_step_w, a_cg, s_yx);
    e_sop2(e, "s_lshl_b32", s_step_w, s_step_w, imm(lg));
    e_sop2(e, "s_lshl_b32", s_step_dy, s_howo, imm(lg));
    opnd v_gk = vreg(e, "v_gk", 1, 1); /* g * Kg */
    opnd v_wbase = vreg(e, "v_wbase", 1, 1), v_dybase = vreg(e, "v_dybase", 1, 1);
    h_vmul_lo(e, v_gk, v_g, a_kg);
    h_vmul_lo(e, v_wbase, v_gk, a_cg);
    h_vadd(e, v_wbase, v_wbase, v_cl);
    h_vmul_lo(e, v_wbase, v_wbase, s_yx);
    e_vop2(e, "v_lshlrev_b32", v_wbase, imm(lg), v_wbase);
    h_vmul_lo(e, v_dybase, v_n, a_k);
    h_vadd(e, v_dybase, v_dybase, v_gk);
    h_vmul_lo(e, v_dybase, v_dybase, s_howo);
    e_vop2(e, "v_lshlrev_b32", v_dybase, imm(lg), v_dybase);
    rfree(e, v_gk);
    rfree(e, v_cl);
    rfree(e, v_c);
    rfree(e, v_t);

    e_comment(e, "buffer resources: dy and w with their byte sizes");
    opnd s_rsrc_dy = sreg(e, "s_rsrc_dy", 4, 4), s_rsrc_w = sreg(e, "s_rsrc_w", 4, 4);
    opnd s_bytes = at(s_tmp, 0);
    e_sop2(e, "s_mul_i32", s_bytes, a_k, s_step_dy);
    e_sop2(e, "s_mul_i32", s_bytes, s_bytes, a_batch);
    h_buffer_rsrc(e, s_rsrc_dy, p_dy, s_bytes);
    e_sop2(e, "s_mul_i32", s_bytes, a_k, s_step_w);
    h_buffer_rsrc(e, s_rsrc_w, p_w, s_bytes);

    opnd v_acc = vreg(e, "v_acc", 1, 1);
    h_vmov(e, v_acc, imm(0));

    e_comment(e, "for y < Y: h = hi + Ph - y*Dh must be >= 0, divisible by Sh, h/Sh < Ho");
    opnd s_y = sreg(e, "s_y", 1, 1), s_x = sreg(e, "s_x", 1, 1), s_kk = sreg(e, "s_kk", 1, 1);
    opnd s_hoff = sreg(e, "s_hoff", 1, 1), s_woff = sreg(e, "s_woff", 1, 1);
    opnd s_vh = sreg(e, "s_vh", 2, 2), s_vw = sreg(e, "s_vw", 2, 2);
    opnd v_h = vreg(e, "v_h", 1, 1), v_ho = vreg(e, "v_ho", 1, 1), v_r = vreg(e, "v_r", 1, 1);
    opnd v_w = vreg(e, "v_w", 1, 1), v_wo = vreg(e, "v_wo", 1, 1);
    opnd v_ow = vreg(e, "v_ow", 1, 1), v_od = vreg(e, "v_od", 1, 1);
    opnd v_a = vreg(e, "v_a", 1, 1), v_b = vreg(e, "v_b", 1, 1);
    label l_y = e_label_new(e, "loop_y"), l_y_next = e_label_new(e, "next_y");
    label l_x = e_label_new(e, "loop_x"), l_x_next = e_label_new(e, "next_x");
    label l_k = e_label_new(e, "loop_k");

    h_smov(e, s_y, imm(0));
    h_smov(e, s_hoff, a_ph);
    e_label(e, l_y);
    h_smov(e, EXEC, s_valid);
    h_vadd(e, v_h, s_hoff, v_hi);
    e_vopc(e, "v_cmp_le_i32", s_vh, imm(0), v_h);
    h_mdiv_rem_v(e, v_r, v_ho, v_h, m_sh, sh_sh, a_sh);
    e_vopc(e, "v_cmp_eq_u32", sub(s_tmp, 0, 2), imm(0), v_r);
    e_sop2(e, "s_and_b64", s_vh, s_vh, sub(s_tmp, 0, 2));
    e_vopc(e, "v_cmp_gt_u32", sub(s_tmp, 0, 2), a_ho, v_ho);
    e_sop2(e, "s_and_b64", s_vh, s_vh, sub(s_tmp, 0, 2));
    e_sop2(e, "s_and_b64", s_vh, s_vh, s_valid);
    h_smov(e, EXEC, s_vh);
    e_branch(e, "s_cbranch_execz", l_y_next);

    h_smov(e, s_x, imm(0));
    h_smov(e, s_woff, a_pw);
    e_label(e, l_x);
    e_comment(e, "for x < X: w = wi + Pw - x*Dw, same conditions with Sw, Wo");
    h_smov(e, EXEC, s_vh);
    h_vadd(e, v_w, s_woff, v_wi);
    e_vopc(e, "v_cmp_le_i32", s_vw, imm(0), v_w);
    h_mdiv_rem_v(e, v_r, v_wo, v_w, m_sw, sh_sw, a_sw);
    e_vopc(e, "v_cmp_eq_u32", sub(s_tmp, 0, 2), imm(0), v_r);
    e_sop2(e, "s_and_b64", s_vw, s_vw, sub(s_tmp, 0, 2));
    e_vopc(e, "v_cmp_gt_u32", sub(s_tmp, 0, 2), a_wo, v_wo);
    e_sop2(e, "s_and_b64", s_vw, s_vw, sub(s_tmp, 0, 2));
    e_sop2(e, "s_and_b64", EXEC, s_vw, s_vh);
    e_branch(e, "s_cbranch_execz", l_x_next);

    e_comment(e, "w offset = wbase + (y*X + x)*%d, dy offset = dybase + (ho*Wo + wo)*%d", 1 << lg, 1 << lg);
    e_sop2(e, "s_mul_i32", at(s_tmp, 2), s_y, a_fx);
    e_sop2(e, "s_add_u32", at(s_tmp, 2), at(s_tmp, 2), s_x);
    e_sop2(e, "s_lshl_b32", at(s_tmp, 2), at(s_tmp, 2), imm(lg));
    h_vadd(e, v_ow, at(s_tmp, 2), v_wbase);
    e_vop3(e, "v_mad_u32_u24", v_od, v_ho, a_wo, v_wo);
    e_vop2(e, "v_lshlrev_b32", v_od, imm(lg), v_od);
    h_vadd(e, v_od, v_od, v_dybase);

    h_smov(e, s_kk, imm(0));
    e_label(e, l_k);
    const char *load = dt == IGEMM_FP32 ? "buffer_load_dword" : "buffer_load_ushort";
    e_mubuf(e, load, v_a, v_ow, s_rsrc_w, imm(0), 0);
    e_mubuf(e, load, v_b, v_od, s_rsrc_dy, imm(0), 0);
    h_vadd(e, v_ow, s_step_w, v_ow);
    h_vadd(e, v_od, s_step_dy, v_od);
    e_sop2(e, "s_add_u32", s_kk, s_kk, imm(1));
    e_waitcnt(e, 0, -1);
    h_widen16(e, dt, v_a); /* 16-bit: the products and the sum in fp32 */
    h_widen16(e, dt, v_b);
    e_vop2(e, "v_fmac_f32", v_acc, v_a, v_b);
    e_sopc(e, "s_cmp_lt_u32", s_kk, a_kg);
    e_branch(e, "s_cbranch_scc1", l_k);

    e_label(e, l_x_next);
    e_sop2(e, "s_sub_u32", s_woff, s_woff, a_dw);
    e_sop2(e, "s_add_u32", s_x, s_x, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_x, a_fx);
    e_branch(e, "s_cbranch_scc1", l_x);

    e_label(e, l_y_next);
    e_sop2(e, "s_sub_u32", s_hoff, s_hoff, a_dh);
    e_sop2(e, "s_add_u32", s_y, s_y, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_y, a_fy);
    e_branch(e, "s_cbranch_scc1", l_y);

    e_comment(e, dt == IGEMM_FP32 ? "dx[gid] = acc" : "dx[gid] = acc rounded to nearest even");
    h_smov(e, EXEC, s_valid);
    opnd s_rsrc_dx = sreg(e, "s_rsrc_dx", 4, 4);
    e_sop2(e, "s_lshl_b32", s_bytes, a_total, imm(lg));
    h_buffer_rsrc(e, s_rsrc_dx, p_dx, s_bytes);
    e_vop2(e, "v_lshlrev_b32", v_gid, imm(lg), v_gid);
    if (dt == IGEMM_BF16)
        h_vmov(e, v_b, imm(0x7fc0));
    h_narrow16(e, dt, v_acc, v_a, v_b, sub(s_tmp, 0, 2));
    e_mubuf(e, dt == IGEMM_FP32 ? "buffer_store_dword" : "buffer_store_short", v_acc, v_gid, s_rsrc_dx, imm(0), 0);

    e_label(e, l_end);
    opnd all[] = {v_acc, s_y, s_x, s_kk, s_hoff, s_woff, s_vh, s_vw, v_h, v_ho, v_r, v_w, v_wo, v_ow, v_od, v_a,
                  v_b, s_rsrc_dx, s_rsrc_dy, s_rsrc_w, s_yx, s_howo, s_step_w, s_step_dy, v_wbase, v_dybase,
                  v_wi, v_hi, v_gid, s_tmp, s_valid, s_args, v_tid, s_bx, s_ka};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    e_kernel_end(e);
}

/* Work-item i zeroes elements [Q*i, Q*i + Q) (Q = 16 bytes of elements):
 * a whole quad with one dwordx4 store, the last partial one element by
 * element, where the range check (NUM_RECORDS = elements * size) drops the
 * elements past the end. */
static void fill_zero(emit *e, const char *name, int esz)
{
    const int q = 16 / esz, lq = esz == 4 ? 2 : 3; /* elements per quad, log2 */
    e_kernel_begin(e, name, FILL_BLOCK);
#define KARG_STRUCT igemm_fill_args
    IGEMM_FILL_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2);
    opnd s_bx = sreg_fixed(e, "s_bx", 2, 1);
    opnd s_args = sreg(e, "s_args", 4, 4);
    h_load_kargs(e, s_ka, s_args, 0, 3);
    opnd p_out = alias(e, "s_p_out", sub(s_args, 0, 2));
    opnd a_dwords = alias(e, "s_dwords", at(s_args, 2));
    opnd v_tid = h_workitem_id(e);
    opnd s_rsrc = sreg(e, "s_rsrc", 4, 4), s_t = sreg(e, "s_t", 1, 1), s_save = sreg(e, "s_save", 2, 2);
    opnd v_i = vreg(e, "v_i", 1, 1), v_off = vreg(e, "v_off", 1, 1), v_z = vreg(e, "v_z", 4, 4);

    if (esz == 4) {
        e_comment(e, "work-item i zeroes dwords [4i, 4i+4): whole quads with one dwordx4 store;");
        e_comment(e, "the last partial quad dword by dword, where the range check drops the dwords past the end");
    } else {
        e_comment(e, "work-item i zeroes halves [8i, 8i+8): whole 16-byte quads with one dwordx4 store;");
        e_comment(e, "the last partial quad half by half, where the range check drops the halves past the end");
    }
    e_sop2(e, "s_lshl_b32", s_t, s_bx, imm(8));
    h_vadd(e, v_i, s_t, v_tid);
    e_vop2(e, "v_lshlrev_b32", v_i, imm(lq), v_i);
    e_vop2(e, "v_lshlrev_b32", v_off, imm(esz == 4 ? 2 : 1), v_i);
    for (int j = 0; j < 4; j++)
        h_vmov(e, at(v_z, j), imm(0));
    h_vadd(e, v_i, imm(q), v_i);
    e_waitcnt(e, -1, 0);
    e_sop2(e, "s_lshl_b32", s_t, a_dwords, imm(esz == 4 ? 2 : 1));
    h_buffer_rsrc(e, s_rsrc, p_out, s_t);
    e_vopc(e, "v_cmp_ge_u32", VCC, a_dwords, v_i);
    e_sop1(e, "s_and_saveexec_b64", s_save, VCC);
    e_mubuf(e, "buffer_store_dwordx4", v_z, v_off, s_rsrc, imm(0), 0);
    e_sop2(e, "s_xor_b64", EXEC, EXEC, s_save);
    for (int j = 0; j < q; j++)
        e_mubuf(e, esz == 4 ? "buffer_store_dword" : "buffer_store_short", at(v_z, j % 4), v_off, s_rsrc, imm(0),
                esz * j);
    opnd all[] = {v_z, v_off, v_i, s_save, s_t, s_rsrc, v_tid, s_args, s_bx, s_ka};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    e_kernel_end(e);
}

void kern_fill_zero(emit *e) { fill_zero(e, KERNEL_FILL, 4); }
void kern_fill_zero16(emit *e) { fill_zero(e, KERNEL_FILL16, 2); }
