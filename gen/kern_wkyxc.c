/* The filter copy of the _kyxc solvers (arch/kargs.h IGEMM_W_KYXC_ARGS):
 * an NCHW problem's w (K, C/G, Y, X) rewritten in K, Y, X, C/G order, so
 * that the v4r1 kernel's w loads, whose lanes run along the channels m,
 * read consecutive addresses (KCYX puts a tap's channels Y*X elements
 * apart: a cache line per lane on a 3x3 filter). Work-item i writes
 * element i of the copy (consecutive lanes, consecutive addresses) and
 * reads its source Y*X elements from its neighbour's: the gather is paid
 * once per launch on the filter's few bytes, not by every workgroup of the
 * GEMM on every K step. The values are moved, never converted. */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_w_kyxc_args, field) / 4)
#define NARGS (int)(sizeof(igemm_w_kyxc_args) / 4)

static void w_kyxc(emit *e, const char *name, int esz)
{
    e_kernel_begin(e, name, W_KYXC_BLOCK);
#define KARG_STRUCT igemm_w_kyxc_args
    IGEMM_W_KYXC_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2);
    opnd s_bx = sreg_fixed(e, "s_bx", 2, 1);
    opnd s_args = sreg(e, "s_args", NARGS, 4);
    h_load_kargs(e, s_ka, s_args, 0, NARGS);
    opnd p_out = alias(e, "s_p_out", sub(s_args, ARG(p_out), 2)), p_in = alias(e, "s_p_in", sub(s_args, ARG(p_in), 2));
    opnd v_tid = h_workitem_id(e);
    opnd s_rout = sreg(e, "s_rout", 4, 4), s_rin = sreg(e, "s_rin", 4, 4), s_t = sreg(e, "s_t", 1, 1);
    opnd s_save = sreg(e, "s_save", 2, 2);
    opnd v_i = vreg(e, "v_i", 1, 1), v_c = vreg(e, "v_c", 1, 1), v_q = vreg(e, "v_q", 1, 1);
    opnd v_t = vreg(e, "v_tap", 1, 1), v_gk = vreg(e, "v_gk", 1, 1), v_x = vreg(e, "v_x", 1, 1);
    label l_end = e_label_new(e, "done");

    e_comment(e, "element i = block * %d + tid of the copy; lanes past elems do nothing", W_KYXC_BLOCK);
    _Static_assert(W_KYXC_BLOCK == 256, "block = 2^8 work-items");
    e_sop2(e, "s_lshl_b32", s_t, s_bx, imm(8));
    h_vadd(e, v_i, s_t, v_tid);
    e_waitcnt(e, -1, 0);
    e_vopc(e, "v_cmp_gt_u32", VCC, at(s_args, ARG(elems)), v_i);
    e_sop1(e, "s_and_saveexec_b64", s_save, VCC);
    e_branch(e, "s_cbranch_execz", l_end);
    e_comment(e, "both buffers: elems * %d bytes", esz);
    e_sop2(e, "s_lshl_b32", s_t, at(s_args, ARG(elems)), imm(esz == 4 ? 2 : 1));
    h_buffer_rsrc(e, s_rout, p_out, s_t);
    h_buffer_rsrc(e, s_rin, p_in, s_t);
    e_comment(e, "i = (gk*yx + t)*cg + c  ->  source (gk*cg + c)*yx + t");
    h_mdiv_rem_v(e, v_c, v_q, v_i, at(s_args, ARG(mdiv_cg)), at(s_args, ARG(shift_cg)), at(s_args, ARG(cg)));
    h_mdiv_rem_v(e, v_t, v_gk, v_q, at(s_args, ARG(mdiv_yx)), at(s_args, ARG(shift_yx)), at(s_args, ARG(yx)));
    h_vmul_lo(e, v_gk, v_gk, at(s_args, ARG(cg)));
    h_vadd(e, v_gk, v_gk, v_c);
    h_vmul_lo(e, v_gk, v_gk, at(s_args, ARG(yx)));
    h_vadd(e, v_gk, v_gk, v_t);
    e_vop2(e, "v_lshlrev_b32", v_gk, imm(esz == 4 ? 2 : 1), v_gk);
    e_vop2(e, "v_lshlrev_b32", v_i, imm(esz == 4 ? 2 : 1), v_i);
    e_mubuf(e, esz == 4 ? "buffer_load_dword" : "buffer_load_ushort", v_x, v_gk, s_rin, imm(0), 0);
    e_waitcnt(e, 0, -1);
    e_mubuf(e, esz == 4 ? "buffer_store_dword" : "buffer_store_short", v_x, v_i, s_rout, imm(0), 0);
    e_label(e, l_end);
    opnd all[] = {v_x, v_gk, v_t, v_q, v_c, v_i, s_save, s_t, s_rin, s_rout, v_tid, s_args, s_bx, s_ka};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    e_kernel_end(e);
}

void kern_w_kyxc(emit *e)
{
    w_kyxc(e, KERNEL_W_KYXC, 4);
    w_kyxc(e, KERNEL_W_KYXC16, 2);
}
