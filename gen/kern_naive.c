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
 * fast kernels are checked against on real GPUs. */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_naive_args, field) / 4)

/* The naive kernel's registers, stage by stage (the order of the
 * allocations is the generated code's register numbering). */
typedef struct {
    emit *e;
    /* arguments (aliases into s_args) */
    opnd s_ka, s_bx, s_args;
    opnd p_dx, p_dy, p_w, a_total, a_batch, a_hi, a_wi, a_c, a_k, a_ho, a_wo, a_fy, a_fx, a_cg, a_kg;
    opnd a_sh, a_sw, a_dh, a_dw, a_ph, a_pw;
    opnd m_wi, sh_wi, m_hi, sh_hi, m_c, sh_c, m_cg, sh_cg, m_sh, sh_sh, m_sw, sh_sw;
    /* decode: the lane's element, its validity, the tensors' bases */
    opnd v_tid, v_gid, s_tmp, s_valid, v_wi, v_hi;
    opnd s_yx, s_howo, s_step_w, s_step_dy, v_wbase, v_dybase;
    label l_end;
    /* the dy and w resources, the accumulator */
    opnd s_rsrc_dy, s_rsrc_w, s_bytes, v_acc;
} naive_kw;

static void naive_args(naive_kw *n)
{
    emit *e = n->e;
    n->s_ka = sreg_fixed(e, "s_karg", 0, 2);
    n->s_bx = sreg_fixed(e, "s_bx", 2, 1);
    int nargs = (int)(sizeof(igemm_naive_args) / 4);
    opnd s_args = n->s_args = sreg(e, "s_args", nargs, 4);
    e_comment(e, "kernel arguments");
    h_load_kargs(e, n->s_ka, s_args, 0, nargs);
    n->p_dx = alias(e, "s_p_dx", sub(s_args, ARG(p_dx), 2));
    n->p_dy = alias(e, "s_p_dy", sub(s_args, ARG(p_dy), 2));
    n->p_w = alias(e, "s_p_w", sub(s_args, ARG(p_w), 2));
    n->a_total = alias(e, "s_total", at(s_args, ARG(total)));
    n->a_batch = alias(e, "s_batch", at(s_args, ARG(batch)));
    n->a_hi = alias(e, "s_hi", at(s_args, ARG(hi)));
    n->a_wi = alias(e, "s_wi", at(s_args, ARG(wi)));
    n->a_c = alias(e, "s_c", at(s_args, ARG(c)));
    n->a_k = alias(e, "s_k", at(s_args, ARG(k)));
    n->a_ho = alias(e, "s_ho", at(s_args, ARG(ho)));
    n->a_wo = alias(e, "s_wo", at(s_args, ARG(wo)));
    n->a_fy = alias(e, "s_fy", at(s_args, ARG(fy)));
    n->a_fx = alias(e, "s_fx", at(s_args, ARG(fx)));
    n->a_cg = alias(e, "s_cg", at(s_args, ARG(cg)));
    n->a_kg = alias(e, "s_kg", at(s_args, ARG(kg)));
    n->a_sh = alias(e, "s_stride_h", at(s_args, ARG(stride_h)));
    n->a_sw = alias(e, "s_stride_w", at(s_args, ARG(stride_w)));
    n->a_dh = alias(e, "s_dil_h", at(s_args, ARG(dil_h)));
    n->a_dw = alias(e, "s_dil_w", at(s_args, ARG(dil_w)));
    n->a_ph = alias(e, "s_pad_h", at(s_args, ARG(pad_h)));
    n->a_pw = alias(e, "s_pad_w", at(s_args, ARG(pad_w)));
    n->m_wi = at(s_args, ARG(mdiv_wi)), n->sh_wi = at(s_args, ARG(shift_wi));
    n->m_hi = at(s_args, ARG(mdiv_hi)), n->sh_hi = at(s_args, ARG(shift_hi));
    n->m_c = at(s_args, ARG(mdiv_c)), n->sh_c = at(s_args, ARG(shift_c));
    n->m_cg = at(s_args, ARG(mdiv_cg)), n->sh_cg = at(s_args, ARG(shift_cg));
    n->m_sh = at(s_args, ARG(mdiv_sh)), n->sh_sh = at(s_args, ARG(shift_sh));
    n->m_sw = at(s_args, ARG(mdiv_sw)), n->sh_sw = at(s_args, ARG(shift_sw));
}

/* gid, the lanes past the end masked off, gid -> (n, c, hi, wi), the w and
 * dy bases of the lane */
static void naive_decode(naive_kw *n)
{
    emit *e = n->e;
    n->v_tid = h_workitem_id(e);
    opnd v_gid = n->v_gid = vreg(e, "v_gid", 1, 1);
    opnd s_tmp = n->s_tmp = sreg(e, "s_tmp", 4, 2);
    n->s_valid = sreg(e, "s_valid", 2, 2);
    n->l_end = e_label_new(e, "end");

    e_comment(e, "gid = block * %d + tid; lanes past the end do nothing", NAIVE_BLOCK);
    e_sop2(e, "s_lshl_b32", at(s_tmp, 0), n->s_bx, imm(8));
    e_waitcnt(e, -1, 0);
    h_vadd(e, v_gid, at(s_tmp, 0), n->v_tid);
    e_vopc(e, "v_cmp_gt_u32", VCC, n->a_total, v_gid);
    h_smov(e, n->s_valid, VCC);
    h_smov(e, EXEC, VCC);
    e_branch(e, "s_cbranch_execz", n->l_end);

    e_comment(e, "gid -> (n, c, hi, wi); c -> (g, c in group)");
    n->v_wi = vreg(e, "v_wi", 1, 1), n->v_hi = vreg(e, "v_hi", 1, 1);
    opnd v_c = vreg(e, "v_c", 1, 1);
    opnd v_t = vreg(e, "v_t", 2, 1);
    h_mdiv_rem_v(e, n->v_wi, at(v_t, 0), v_gid, n->m_wi, n->sh_wi, n->a_wi);
    h_mdiv_rem_v(e, n->v_hi, at(v_t, 1), at(v_t, 0), n->m_hi, n->sh_hi, n->a_hi);
    h_mdiv_rem_v(e, v_c, at(v_t, 0), at(v_t, 1), n->m_c, n->sh_c, n->a_c); /* v_t[0] = n */
    opnd v_n = alias(e, "v_n", at(v_t, 0));
    opnd v_cl = vreg(e, "v_cl", 1, 1);
    opnd v_g = alias(e, "v_g", at(v_t, 1));
    h_mdiv_rem_v(e, v_cl, v_g, v_c, n->m_cg, n->sh_cg, n->a_cg);

    e_comment(e, "w base (bytes): ((g*Kg)*Cg + cl) * Y*X*4; dy base: (n*K + g*Kg) * Ho*Wo*4");
    n->s_yx = sreg(e, "s_yx", 1, 1), n->s_howo = sreg(e, "s_howo", 1, 1);
    n->s_step_w = sreg(e, "s_step_w", 1, 1), n->s_step_dy = sreg(e, "s_step_dy", 1, 1);
    e_sop2(e, "s_mul_i32", n->s_yx, n->a_fy, n->a_fx);
    e_sop2(e, "s_mul_i32", n->s_howo, n->a_ho, n->a_wo);
    e_sop2(e, "s_mul_i32", n->s_step_w, n->a_cg, n->s_yx);
    e_sop2(e, "s_lshl_b32", n->s_step_w, n->s_step_w, imm(2));
    e_sop2(e, "s_lshl_b32", n->s_step_dy, n->s_howo, imm(2));
    opnd v_gk = vreg(e, "v_gk", 1, 1); /* g * Kg */
    opnd v_wbase = n->v_wbase = vreg(e, "v_wbase", 1, 1), v_dybase = n->v_dybase = vreg(e, "v_dybase", 1, 1);
    h_vmul_lo(e, v_gk, v_g, n->a_kg);
    h_vmul_lo(e, v_wbase, v_gk, n->a_cg);
    h_vadd(e, v_wbase, v_wbase, v_cl);
    h_vmul_lo(e, v_wbase, v_wbase, n->s_yx);
    e_vop2(e, "v_lshlrev_b32", v_wbase, imm(2), v_wbase);
    h_vmul_lo(e, v_dybase, v_n, n->a_k);
    h_vadd(e, v_dybase, v_dybase, v_gk);
    h_vmul_lo(e, v_dybase, v_dybase, n->s_howo);
    e_vop2(e, "v_lshlrev_b32", v_dybase, imm(2), v_dybase);
    rfree(e, v_gk);
    rfree(e, v_cl);
    rfree(e, v_c);
    rfree(e, v_t);
}

static void naive_resources(naive_kw *n)
{
    emit *e = n->e;
    e_comment(e, "buffer resources: dy and w with their byte sizes");
    n->s_rsrc_dy = sreg(e, "s_rsrc_dy", 4, 4), n->s_rsrc_w = sreg(e, "s_rsrc_w", 4, 4);
    opnd s_bytes = n->s_bytes = at(n->s_tmp, 0);
    e_sop2(e, "s_mul_i32", s_bytes, n->a_k, n->s_step_dy);
    e_sop2(e, "s_mul_i32", s_bytes, s_bytes, n->a_batch);
    h_buffer_rsrc(e, n->s_rsrc_dy, n->p_dy, s_bytes);
    e_sop2(e, "s_mul_i32", s_bytes, n->a_k, n->s_step_w);
    h_buffer_rsrc(e, n->s_rsrc_w, n->p_w, s_bytes);

    n->v_acc = vreg(e, "v_acc", 1, 1);
    h_vmov(e, n->v_acc, imm(0));
}

/* The registers of the tap loops. */
typedef struct {
    opnd s_y, s_x, s_kk, s_hoff, s_woff, s_vh, s_vw, v_h, v_ho, v_r, v_w, v_wo, v_ow, v_od, v_a, v_b;
} naive_taps;

/* exec = the lanes whose dy coordinate along one dimension is valid for
 * the current tap: pos = in + off >= 0, divisible by the stride, pos /
 * stride < out (the quotient into v_q, valid lanes into s_v) */
static void naive_valid(naive_kw *n, opnd s_v, opnd v_pos, opnd v_q, opnd v_r, opnd m, opnd sh, opnd stride,
                        opnd out)
{
    emit *e = n->e;
    e_vopc(e, "v_cmp_le_i32", s_v, imm(0), v_pos);
    h_mdiv_rem_v(e, v_r, v_q, v_pos, m, sh, stride);
    e_vopc(e, "v_cmp_eq_u32", sub(n->s_tmp, 0, 2), imm(0), v_r);
    e_sop2(e, "s_and_b64", s_v, s_v, sub(n->s_tmp, 0, 2));
    e_vopc(e, "v_cmp_gt_u32", sub(n->s_tmp, 0, 2), out, v_q);
    e_sop2(e, "s_and_b64", s_v, s_v, sub(n->s_tmp, 0, 2));
}

/* The K/G products of one tap (y, x) into the accumulator. */
static void naive_tap(naive_kw *n, const naive_taps *t)
{
    emit *e = n->e;
    label l_k = e_label_new(e, "loop_k");
    e_comment(e, "w offset = wbase + (y*X + x)*4, dy offset = dybase + (ho*Wo + wo)*4");
    e_sop2(e, "s_mul_i32", at(n->s_tmp, 2), t->s_y, n->a_fx);
    e_sop2(e, "s_add_u32", at(n->s_tmp, 2), at(n->s_tmp, 2), t->s_x);
    e_sop2(e, "s_lshl_b32", at(n->s_tmp, 2), at(n->s_tmp, 2), imm(2));
    h_vadd(e, t->v_ow, at(n->s_tmp, 2), n->v_wbase);
    e_vop3(e, "v_mad_u32_u24", t->v_od, t->v_ho, n->a_wo, t->v_wo);
    e_vop2(e, "v_lshlrev_b32", t->v_od, imm(2), t->v_od);
    h_vadd(e, t->v_od, t->v_od, n->v_dybase);

    h_smov(e, t->s_kk, imm(0));
    e_label(e, l_k);
    e_mubuf(e, "buffer_load_dword", t->v_a, t->v_ow, n->s_rsrc_w, imm(0), 0);
    e_mubuf(e, "buffer_load_dword", t->v_b, t->v_od, n->s_rsrc_dy, imm(0), 0);
    h_vadd(e, t->v_ow, n->s_step_w, t->v_ow);
    h_vadd(e, t->v_od, n->s_step_dy, t->v_od);
    e_sop2(e, "s_add_u32", t->s_kk, t->s_kk, imm(1));
    e_waitcnt(e, 0, -1);
    e_vop2(e, "v_fmac_f32", n->v_acc, t->v_a, t->v_b);
    e_sopc(e, "s_cmp_lt_u32", t->s_kk, n->a_kg);
    e_branch(e, "s_cbranch_scc1", l_k);
}

/* for y < Y, x < X: the lanes whose tap is valid accumulate it */
static void naive_loops(naive_kw *n)
{
    emit *e = n->e;
    naive_taps t;
    e_comment(e, "for y < Y: h = hi + Ph - y*Dh must be >= 0, divisible by Sh, h/Sh < Ho");
    t.s_y = sreg(e, "s_y", 1, 1), t.s_x = sreg(e, "s_x", 1, 1), t.s_kk = sreg(e, "s_kk", 1, 1);
    t.s_hoff = sreg(e, "s_hoff", 1, 1), t.s_woff = sreg(e, "s_woff", 1, 1);
    t.s_vh = sreg(e, "s_vh", 2, 2), t.s_vw = sreg(e, "s_vw", 2, 2);
    t.v_h = vreg(e, "v_h", 1, 1), t.v_ho = vreg(e, "v_ho", 1, 1), t.v_r = vreg(e, "v_r", 1, 1);
    t.v_w = vreg(e, "v_w", 1, 1), t.v_wo = vreg(e, "v_wo", 1, 1);
    t.v_ow = vreg(e, "v_ow", 1, 1), t.v_od = vreg(e, "v_od", 1, 1);
    t.v_a = vreg(e, "v_a", 1, 1), t.v_b = vreg(e, "v_b", 1, 1);
    label l_y = e_label_new(e, "loop_y"), l_y_next = e_label_new(e, "next_y");
    label l_x = e_label_new(e, "loop_x"), l_x_next = e_label_new(e, "next_x");

    h_smov(e, t.s_y, imm(0));
    h_smov(e, t.s_hoff, n->a_ph);
    e_label(e, l_y);
    h_smov(e, EXEC, n->s_valid);
    h_vadd(e, t.v_h, t.s_hoff, n->v_hi);
    naive_valid(n, t.s_vh, t.v_h, t.v_ho, t.v_r, n->m_sh, n->sh_sh, n->a_sh, n->a_ho);
    e_sop2(e, "s_and_b64", t.s_vh, t.s_vh, n->s_valid);
    h_smov(e, EXEC, t.s_vh);
    e_branch(e, "s_cbranch_execz", l_y_next);

    h_smov(e, t.s_x, imm(0));
    h_smov(e, t.s_woff, n->a_pw);
    e_label(e, l_x);
    e_comment(e, "for x < X: w = wi + Pw - x*Dw, same conditions with Sw, Wo");
    h_smov(e, EXEC, t.s_vh);
    h_vadd(e, t.v_w, t.s_woff, n->v_wi);
    naive_valid(n, t.s_vw, t.v_w, t.v_wo, t.v_r, n->m_sw, n->sh_sw, n->a_sw, n->a_wo);
    e_sop2(e, "s_and_b64", EXEC, t.s_vw, t.s_vh);
    e_branch(e, "s_cbranch_execz", l_x_next);

    naive_tap(n, &t);

    e_label(e, l_x_next);
    e_sop2(e, "s_sub_u32", t.s_woff, t.s_woff, n->a_dw);
    e_sop2(e, "s_add_u32", t.s_x, t.s_x, imm(1));
    e_sopc(e, "s_cmp_lt_u32", t.s_x, n->a_fx);
    e_branch(e, "s_cbranch_scc1", l_x);

    e_label(e, l_y_next);
    e_sop2(e, "s_sub_u32", t.s_hoff, t.s_hoff, n->a_dh);
    e_sop2(e, "s_add_u32", t.s_y, t.s_y, imm(1));
    e_sopc(e, "s_cmp_lt_u32", t.s_y, n->a_fy);
    e_branch(e, "s_cbranch_scc1", l_y);
}

void kern_naive(emit *e)
{
    e_kernel_begin(e, KERNEL_NAIVE, NAIVE_BLOCK);
    e_scope_begin(e, "naive"); /* every register of the kernel, released at its end */
#define KARG_STRUCT igemm_naive_args
    IGEMM_NAIVE_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    naive_kw n = {.e = e};
    naive_args(&n);
    naive_decode(&n);
    naive_resources(&n);
    naive_loops(&n);

    e_comment(e, "dx[gid] = acc");
    h_smov(e, EXEC, n.s_valid);
    opnd s_rsrc_dx = sreg(e, "s_rsrc_dx", 4, 4);
    e_sop2(e, "s_lshl_b32", n.s_bytes, n.a_total, imm(2));
    h_buffer_rsrc(e, s_rsrc_dx, n.p_dx, n.s_bytes);
    e_vop2(e, "v_lshlrev_b32", n.v_gid, imm(2), n.v_gid);
    e_mubuf(e, "buffer_store_dword", n.v_acc, n.v_gid, s_rsrc_dx, imm(0), 0);

    e_label(e, n.l_end);
    e_scope_end(e, "naive", true);
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
    e_scope_begin(e, "fill"); /* every register of the kernel, released at its end */
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
    e_scope_end(e, "fill", true);
    e_kernel_end(e);
}

void kern_fill_zero(emit *e) { fill_zero(e, KERNEL_FILL, 4); }
void kern_fill_zero16(emit *e) { fill_zero(e, KERNEL_FILL16, 2); }
