/* The reduction kernels of the split along GEMM K (the _ks solvers,
 * arch/kargs.h IGEMM_KSUM_ARGS): work-item i loads element i of partial
 * slice 0, adds slice 1, 2, ... in that order (one scalar loop, the same
 * order on every run and every lane: the sum is deterministic), and stores
 * it once in the kernel's type (16-bit: rounded to nearest even as the v4r1
 * epilogue rounds; NaN stays NaN, an infinite partial stays infinite). */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_ksum_args, field) / 4)

static void ksum(emit *e, const char *name, igemm_dtype dt)
{
    const int esz = dt == IGEMM_FP32 ? 4 : 2;
    e_kernel_begin(e, name, KSUM_BLOCK);
#define KARG_STRUCT igemm_ksum_args
    IGEMM_KSUM_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2);
    opnd s_bx = sreg_fixed(e, "s_bx", 2, 1);
    opnd s_args = sreg(e, "s_args", 8, 4);
    h_load_kargs(e, s_ka, s_args, 0, (int)(sizeof(igemm_ksum_args) / 4));
    opnd p_out = alias(e, "s_p_out", sub(s_args, 0, 2)), p_ws = alias(e, "s_p_ws", sub(s_args, 2, 2));
    opnd v_tid = h_workitem_id(e);
    opnd s_rout = sreg(e, "s_rout", 4, 4), s_rws = sreg(e, "s_rws", 4, 4), s_t = sreg(e, "s_t", 2, 2);
    opnd s_s = sreg(e, "s_split", 1, 1), s_save = sreg(e, "s_save", 2, 2);
    opnd v_i = vreg(e, "v_i", 1, 1), v_off = vreg(e, "v_off", 1, 1), v_acc = vreg(e, "v_acc", 1, 1);
    opnd v_p = vreg(e, "v_part", 1, 1), v_tmp = vreg(e, "v_tmp", 1, 1), v_nan = vreg(e, "v_nan", 1, 1);
    opnd s_m = sreg(e, "s_m", 2, 2);
    label l_end = e_label_new(e, "done"), l_loop = e_label_new(e, "splits"), l_sum = e_label_new(e, "summed");

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
    e_comment(e, "acc += slice s, s = 1 .. splits-1 in order");
    h_smov(e, s_s, imm(1));
    e_sopc(e, "s_cmp_ge_u32", s_s, at(s_args, ARG(splits)));
    e_branch(e, "s_cbranch_scc1", l_sum);
    e_label(e, l_loop);
    h_vadd(e, v_off, at(s_args, ARG(slice_bytes)), v_off);
    e_mubuf(e, "buffer_load_dword", v_p, v_off, s_rws, imm(0), 0);
    e_waitcnt(e, 0, -1);
    e_vop2(e, "v_add_f32", v_acc, v_acc, v_p);
    e_sop2(e, "s_add_u32", s_s, s_s, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_s, at(s_args, ARG(splits)));
    e_branch(e, "s_cbranch_scc1", l_loop);
    e_label(e, l_sum);
    e_waitcnt(e, 0, -1);
    h_narrow16_nan(e, dt, v_nan);
    h_narrow16(e, dt, v_acc, v_tmp, v_nan, s_m);
    e_vop2(e, "v_lshlrev_b32", v_off, imm(esz == 4 ? 2 : 1), v_i);
    e_mubuf(e, esz == 4 ? "buffer_store_dword" : "buffer_store_short", v_acc, v_off, s_rout, imm(0), 0);
    e_label(e, l_end);
    opnd all[] = {s_m, v_nan, v_tmp, v_p, v_acc, v_off, v_i, s_save, s_s, s_t, s_rws, s_rout, v_tid, s_args, s_bx, s_ka};
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
