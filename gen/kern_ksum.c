/* The reduction kernels of the split along GEMM K (the _ks solvers,
 * arch/kargs.h IGEMM_KSUM_ARGS): work-item i loads element i of partial
 * slice 0, adds slice 1, 2, ... in that order (the same order on every run
 * and every lane: the sum is deterministic), and stores
 * it once in the kernel's type (16-bit: rounded to nearest even as the v4r1
 * epilogue rounds; NaN stays NaN, an infinite partial stays infinite),
 * after the non-finite guard (guard below) has recomputed the border's NaN
 * sums. The loads are not a chain: the slices after the first go in
 * batches (arch/kargs.h KSUM_BATCH while that many are left, then the
 * binary digits of the rest: 4, 2, 1), every load of a batch issued before
 * its first add and each add waiting for its own slice only, so a sum of S
 * slices waits for about log2(S) + S / KSUM_BATCH memory latencies, not S. */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_ksum_args, field) / 4)

#define HEAD_WORDS ARG(p_dy) /* what the sum itself reads; the guard loads the rest */
#define NF(f) at(s_nf, (int)(offsetof(igemm_nonfinite_args, f) / 4))

/* The non-finite guard (docs/KERNELS.md): the lanes of EXEC whose sum
 * v_acc is NaN and whose element (index v_i) lies in the border band get
 * v_acc recomputed from the valid taps (naive_taps: never 0 x w); the
 * rest keep it. An interior NaN is a true NaN. Runs only where some lane's
 * sum is NaN. */
static void guard(emit *e, igemm_dtype dt, opnd s_ka, opnd v_i, opnd v_acc)
{
    label l_done = e_label_new(e, "guard_done");
    e_comment(e, "non-finite guard: a NaN sum in the border band is recomputed from the valid taps");
    e_vopc(e, "v_cmp_u_f32", VCC, v_acc, v_acc);
    e_branch(e, "s_cbranch_vccz", l_done);
    e_scope_begin(e, "guard");
    /* the pointers, the decode's words (released once decoded: SGPRs are
       short here) and the block */
    const int nd = (int)(offsetof(igemm_ksum_args, nf) / 4) - ARG(nhwc);
    const int nn = (int)(sizeof(igemm_nonfinite_args) / 4);
    opnd s_p = sreg(e, "s_gp", 4, 2), s_h = sreg(e, "s_gh", nd, 1), s_nf = sreg(e, "s_nf", nn, 1);
#define H(f) at(s_h, ARG(f) - ARG(nhwc))
    opnd s_live = sreg(e, "s_glive", 2, 2), s_do = sreg(e, "s_gdo", 2, 2), s_a = sreg(e, "s_ga", 2, 2);
    h_smov(e, s_live, EXEC);
    e_sop2(e, "s_and_b64", s_do, EXEC, VCC);
    h_load_kargs(e, s_ka, s_p, 4 * ARG(p_dy), 4);
    h_load_kargs(e, s_ka, s_h, 4 * ARG(nhwc), nd);
    h_load_kargs(e, s_ka, s_nf, (int)offsetof(igemm_ksum_args, nf), nn);
    opnd v_r = vreg(e, "v_gr", 3, 1), v_q = vreg(e, "v_gq", 2, 1), v_px = vreg(e, "v_gpx", 3, 1);
    opnd v_wb = vreg(e, "v_gwb", 1, 1), v_db = vreg(e, "v_gdb", 1, 1), v_new = vreg(e, "v_gnew", 1, 1);
    opnd v_c = at(v_px, 0), v_hi = at(v_px, 1), v_wi = at(v_px, 2), v_n = at(v_q, 1);
    e_waitcnt(e, -1, 0);
    h_smov(e, EXEC, s_do);
    e_comment(e, "element -> r0, r1, r2 (innermost first), image; NCHW (wi, hi, c), NHWC (c, wi, hi)");
    h_mdiv_rem_v(e, at(v_r, 0), at(v_q, 0), v_i, H(mdiv_d0), H(shift_d0), H(d0));
    h_mdiv_rem_v(e, at(v_r, 1), at(v_q, 1), at(v_q, 0), H(mdiv_d1), H(shift_d1), H(d1));
    h_mdiv_rem_v(e, at(v_r, 2), at(v_q, 0), at(v_q, 1), H(mdiv_d2), H(shift_d2), H(d2));
    h_vmov(e, v_n, at(v_q, 0));
    e_sopc(e, "s_cmp_eq_u32", H(nhwc), imm(1));
    e_sop2(e, "s_cselect_b64", VCC, imm(-1), imm(0));
    e_cndmask(e, v_c, at(v_r, 2), at(v_r, 0), VCC);
    e_cndmask(e, v_wi, at(v_r, 0), at(v_r, 1), VCC);
    e_cndmask(e, v_hi, at(v_r, 1), at(v_r, 2), VCC);
    e_comment(e, "only the band's pixels: hi < top, hi >= bot, wi < left, wi >= rgt");
    e_vopc(e, "v_cmp_gt_u32", s_a, NF(top), v_hi);
    e_vopc(e, "v_cmp_le_u32", VCC, NF(bot), v_hi);
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_vopc(e, "v_cmp_gt_u32", VCC, NF(left), v_wi);
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_vopc(e, "v_cmp_le_u32", VCC, NF(rgt), v_wi);
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_sop2(e, "s_and_b64", s_do, s_do, s_a);
    label l_none = e_label_new(e, "guard_none");
    e_branch(e, "s_cbranch_scc0", l_none);
    h_smov(e, EXEC, s_do);
    e_comment(e, "c -> (g, c in group); w at (g*kg)*w_sk + cl*w_sc, dy at n*dy_sn + (g*kg)*dy_sk");
    h_mdiv_rem_v(e, at(v_r, 0), at(v_r, 1), v_c, H(mdiv_cg), H(shift_cg), H(cg));
    rfree(e, s_h);
    opnd s_tmp = sreg(e, "s_gtmp", 4, 2), s_rw = sreg(e, "s_grw", 4, 4), s_rdy = sreg(e, "s_grdy", 4, 4);
    h_vmul_lo(e, at(v_r, 1), at(v_r, 1), NF(kg));
    h_vmul_lo(e, v_wb, at(v_r, 1), NF(w_sk));
    h_vmul_lo(e, at(v_r, 2), at(v_r, 0), NF(w_sc));
    h_vadd(e, v_wb, v_wb, at(v_r, 2));
    h_vmul_lo(e, v_db, at(v_r, 1), NF(dy_sk));
    h_vmul_lo(e, at(v_r, 2), v_n, NF(dy_sn));
    h_vadd(e, v_db, v_db, at(v_r, 2));
    h_buffer_rsrc(e, s_rw, sub(s_p, 2, 2), NF(w_bytes));
    h_buffer_rsrc(e, s_rdy, sub(s_p, 0, 2), NF(dy_bytes));
    h_vmov(e, v_new, imm(0));
    naive_geom geom = {
        .pad_h = NF(pad_h), .pad_w = NF(pad_w), .dil_h = NF(dil_h), .dil_w = NF(dil_w),
        .stride_h = NF(stride_h), .stride_w = NF(stride_w), .mdiv_sh = NF(mdiv_sh), .shift_sh = NF(shift_sh),
        .mdiv_sw = NF(mdiv_sw), .shift_sw = NF(shift_sw), .ho = NF(ho), .wo = NF(wo), .fy = NF(fy), .fx = NF(fx),
        .kg = NF(kg), .dy_sk = NF(dy_sk), .dy_sh = NF(dy_sh), .dy_sw = NF(dy_sw), .w_sk = NF(w_sk),
        .w_sy = NF(w_sy), .w_sx = NF(w_sx),
    };
    naive_taps(e, dt, &geom, s_do, s_tmp, v_new, v_hi, v_wi, v_wb, v_db, s_rw, s_rdy);
    h_smov(e, EXEC, s_do);
    h_vmov(e, v_acc, v_new);
    e_label(e, l_none);
    h_smov(e, EXEC, s_live);
#undef H
    e_scope_end(e, "guard", true);
    e_label(e, l_done);
}

/* acc += the next n slices in order (s_left of them still to add, n at
 * least; s_o the byte offset of the last slice loaded): their n loads,
 * then each add once its own load is back. */
static void add_slices(emit *e, int n, opnd v_acc, opnd v_p, opnd v_off, opnd s_rws, opnd s_o, opnd s_slice,
                       opnd s_left)
{
    for (int j = 0; j < n; j++) {
        e_sop2(e, "s_add_u32", s_o, s_o, s_slice);
        e_mubuf(e, "buffer_load_dword", at(v_p, j), v_off, s_rws, s_o, 0);
    }
    for (int j = 0; j < n; j++) {
        e_waitcnt(e, n - 1 - j, -1);
        e_vop2(e, "v_add_f32", v_acc, v_acc, at(v_p, j));
    }
    e_sop2(e, "s_sub_u32", s_left, s_left, imm(n));
}

static void ksum(emit *e, const char *name, igemm_dtype dt)
{
    const int esz = dt == IGEMM_FP32 ? 4 : 2;
    e_kernel_begin(e, name, KSUM_BLOCK);
#define KARG_STRUCT igemm_ksum_args
    IGEMM_KSUM_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    e_karg(e, "nonfinite", (int)offsetof(igemm_ksum_args, nf), (int)sizeof(igemm_nonfinite_args), false, false);
    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2);
    opnd s_bx = sreg_fixed(e, "s_bx", 2, 1);
    opnd s_args = sreg(e, "s_args", 8, 4);
    h_load_kargs(e, s_ka, s_args, 0, HEAD_WORDS);
    opnd p_out = alias(e, "s_p_out", sub(s_args, 0, 2)), p_ws = alias(e, "s_p_ws", sub(s_args, 2, 2));
    opnd v_tid = h_workitem_id(e);
    opnd s_rout = sreg(e, "s_rout", 4, 4), s_rws = sreg(e, "s_rws", 4, 4), s_t = sreg(e, "s_t", 2, 2);
    opnd s_s = sreg(e, "s_left", 1, 1), s_o = sreg(e, "s_soff", 1, 1), s_save = sreg(e, "s_save", 2, 2);
    opnd v_i = vreg(e, "v_i", 1, 1), v_off = vreg(e, "v_off", 1, 1), v_acc = vreg(e, "v_acc", 1, 1);
    opnd v_p = vreg(e, "v_part", KSUM_BATCH, 1), v_tmp = vreg(e, "v_tmp", 1, 1), v_nan = vreg(e, "v_nan", 1, 1);
    opnd s_m = sreg(e, "s_m", 2, 2);
    label l_end = e_label_new(e, "done"), l_loop = e_label_new(e, "batches");

    e_comment(e, "element i = block * %d + tid; lanes past elems do nothing", KSUM_BLOCK);
    e_sop2(e, "s_lshl_b32", at(s_t, 0), s_bx, imm(8));
    h_vadd(e, v_i, at(s_t, 0), v_tid);
    e_waitcnt(e, -1, 0);
    e_vopc(e, "v_cmp_gt_u32", VCC, at(s_args, ARG(elems)), v_i);
    e_sop1(e, "s_and_saveexec_b64", s_save, VCC);
    e_branch(e, "s_cbranch_execz", l_end);
    e_comment(e, "the workspace: splits * slice_bytes; dx: elems * %d bytes", esz);
    e_sop2(e, "s_mul_i32", at(s_t, 0), at(s_args, ARG(splits)), at(s_args, ARG(slice_bytes)));
    h_buffer_rsrc(e, s_rws, p_ws, at(s_t, 0));
    e_sop2(e, "s_lshl_b32", at(s_t, 1), at(s_args, ARG(elems)), imm(esz == 4 ? 2 : 1));
    h_buffer_rsrc(e, s_rout, p_out, at(s_t, 1));
    e_vop2(e, "v_lshlrev_b32", v_off, imm(2), v_i);
    e_mubuf(e, "buffer_load_dword", v_acc, v_off, s_rws, imm(0), 0);
    e_comment(e, "acc += slices 1 .. splits-1 in order: batches of %d while that many are left, then the rest's "
                 "binary digits", KSUM_BATCH);
    e_sop2(e, "s_sub_u32", s_s, at(s_args, ARG(splits)), imm(1));
    h_smov(e, s_o, imm(0));
    e_label(e, l_loop);
    for (int n = KSUM_BATCH; n >= 1; n /= 2) {
        label l_skip = e_label_new(e, "fewer");
        e_sopc(e, "s_cmp_lt_u32", s_s, imm(n));
        e_branch(e, "s_cbranch_scc1", l_skip);
        add_slices(e, n, v_acc, v_p, v_off, s_rws, s_o, at(s_args, ARG(slice_bytes)), s_s);
        if (n == KSUM_BATCH)
            e_branch(e, "s_branch", l_loop);
        e_label(e, l_skip);
    }
    e_waitcnt(e, 0, -1);
    guard(e, dt, s_ka, v_i, v_acc);
    h_narrow16_nan(e, dt, v_nan);
    h_narrow16(e, dt, v_acc, v_tmp, v_nan, s_m);
    e_vop2(e, "v_lshlrev_b32", v_off, imm(esz == 4 ? 2 : 1), v_i);
    e_mubuf(e, esz == 4 ? "buffer_store_dword" : "buffer_store_short", v_acc, v_off, s_rout, imm(0), 0);
    e_label(e, l_end);
    opnd all[] = {s_m, v_nan, v_tmp, v_p, v_acc, v_off, v_i, s_save, s_o, s_s, s_t, s_rws, s_rout, v_tid, s_args, s_bx, s_ka};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    e_kernel_end(e);
}

void kern_ksum(emit *e)
{
    ksum(e, KERNEL_KSUM, IGEMM_FP32);
    ksum(e, KERNEL_KSUM_FP16, IGEMM_FP16);
    ksum(e, KERNEL_KSUM_BF16, IGEMM_BF16);
}
