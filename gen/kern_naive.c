/* The naive dynamic backward-data kernels and the zero-fill kernel.
 *
 * Naive: work-item gid computes dx[n][c][hi][wi] for the gid-th element
 * (n, c, band pixel) of its launch, any layout (byte strides):
 *
 *   acc = 0
 *   for y < Y:  h = hi + Ph - y*Dh; valid if h >= 0, h % Sh == 0, h / Sh < Ho
 *     for x < X: (same for w)
 *       exec = lanes valid in both
 *       for kk < K/G: acc += w[g*Kg + kk][c % Cg][y][x] * dy[n][g*Kg + kk][ho][wo]
 *   dx = acc (rounded to nearest even for 16-bit types)
 *
 * Only the terms that exist are summed: an invalid tap is no term (never
 * 0 x w). Loops over y, x and kk are scalar (uniform); the per-lane
 * validity becomes the exec mask. With only_nan, a lane whose dx element
 * is not NaN does nothing: the fixup after a v4r1 launch, whose masked dy
 * taps (loaded as 0) make NaN out of an infinite or NaN weight, and only
 * there (docs/KERNELS.md, "Non-finite data"). The naive solver's launch
 * covers every pixel and needs no zero fill. It is slow by design: it is
 * the reference the fast kernels are checked against on real GPUs. */
#include <stddef.h>

#include "../arch/kargs.h"
#include "emit_helpers.h"
#include "kern.h"

#define ARG(field) (int)(offsetof(igemm_naive_args, field) / 4)

/* Load the element at byte offset off of rs into v as fp32. */
static void load_f32(emit *e, igemm_dtype dt, opnd v, opnd off, opnd rs)
{
    e_mubuf(e, dt == IGEMM_FP32 ? "buffer_load_dword" : "buffer_load_ushort", v, off, rs, imm(0), 0);
}

/* gid -> (n, c in group, g, hi, wi) through the band (kargs.h). */
static void band_coords(emit *e, opnd s_args, opnd v_gid, opnd v_n, opnd v_cl, opnd v_g, opnd v_hi, opnd v_wi)
{
    opnd v_t = vreg(e, "v_t", 4, 1), v_idx = vreg(e, "v_idx", 1, 1);
    e_comment(e, "gid -> (n, c, band pixel idx); c -> (g, c in group)");
    h_mdiv_rem_v(e, v_idx, at(v_t, 0), v_gid, at(s_args, ARG(mdiv_band)), at(s_args, ARG(shift_band)),
                 at(s_args, ARG(band_px)));
    h_mdiv_rem_v(e, at(v_t, 1), v_n, at(v_t, 0), at(s_args, ARG(mdiv_c)), at(s_args, ARG(shift_c)),
                 at(s_args, ARG(c)));
    h_mdiv_rem_v(e, v_cl, v_g, at(v_t, 1), at(s_args, ARG(mdiv_cg)), at(s_args, ARG(shift_cg)), at(s_args, ARG(cg)));
    e_comment(e, "top and bottom rows: (idx / wi, idx %% wi), rows past top moved down by rows_skip");
    h_mdiv_rem_v(e, v_wi, v_hi, v_idx, at(s_args, ARG(mdiv_wi)), at(s_args, ARG(shift_wi)), at(s_args, ARG(wi)));
    h_vmov(e, at(v_t, 0), at(s_args, ARG(rows_skip)));
    e_vopc(e, "v_cmp_le_u32", VCC, at(s_args, ARG(top)), v_hi);
    e_cndmask(e, at(v_t, 0), imm(0), at(v_t, 0), VCC);
    h_vadd(e, v_hi, v_hi, at(v_t, 0));
    e_comment(e, "rows between: j = idx - rows_px, (top + j / lr, j %% lr), columns past left moved by cols_skip");
    h_vsub(e, at(v_t, 0), v_idx, at(s_args, ARG(rows_px)));
    h_mdiv_rem_v(e, at(v_t, 1), at(v_t, 2), at(v_t, 0), at(s_args, ARG(mdiv_lr)), at(s_args, ARG(shift_lr)),
                 at(s_args, ARG(lr)));
    h_vadd(e, at(v_t, 2), at(s_args, ARG(top)), at(v_t, 2));
    h_vmov(e, at(v_t, 3), at(s_args, ARG(cols_skip)));
    e_vopc(e, "v_cmp_le_u32", VCC, at(s_args, ARG(left)), at(v_t, 1));
    e_cndmask(e, at(v_t, 3), imm(0), at(v_t, 3), VCC);
    h_vadd(e, at(v_t, 1), at(v_t, 1), at(v_t, 3));
    h_vmov(e, at(v_t, 3), at(s_args, ARG(rows_px)));
    e_vopc(e, "v_cmp_gt_u32", VCC, at(v_t, 3), v_idx);
    e_cndmask(e, v_hi, at(v_t, 2), v_hi, VCC);
    e_cndmask(e, v_wi, at(v_t, 1), v_wi, VCC);
    rfree(e, v_idx);
    rfree(e, v_t);
}

/* out += a * s, with tmp for the product: one term of the byte offsets
 * below (every index times its stride). */
static void mul_acc(emit *e, opnd v_out, opnd v_tmp, opnd v_a, opnd s)
{
    h_vmul_lo(e, v_tmp, v_a, s);
    h_vadd(e, v_out, v_out, v_tmp);
}

/* out = a * sa + b * sb, with tmp for the second product. */
static void offset2(emit *e, opnd v_out, opnd v_tmp, opnd v_a, opnd sa, opnd v_b, opnd sb)
{
    h_vmul_lo(e, v_out, v_a, sa);
    mul_acc(e, v_out, v_tmp, v_b, sb);
}

/* A buffer resource for p of count * stride bytes (s_bytes: scratch). */
static void rsrc_sized(emit *e, opnd s_rsrc, opnd p, opnd s_bytes, opnd count, opnd stride)
{
    e_sop2(e, "s_mul_i32", s_bytes, count, stride);
    h_buffer_rsrc(e, s_rsrc, p, s_bytes);
}

/* One tap axis: pix = off + in, out = pix / stride, and mask = the lanes
 * (of exec) where pix >= 0, pix % stride == 0 and out < limit. */
static void tap_axis(emit *e, opnd s_mask, opnd s_tmp, opnd v_pix, opnd v_r, opnd v_out, opnd s_off, opnd v_in,
                     opnd mdiv, opnd shift, opnd stride, opnd limit)
{
    h_vadd(e, v_pix, s_off, v_in);
    e_vopc(e, "v_cmp_le_i32", s_mask, imm(0), v_pix);
    h_mdiv_rem_v(e, v_r, v_out, v_pix, mdiv, shift, stride);
    e_vopc(e, "v_cmp_eq_u32", sub(s_tmp, 0, 2), imm(0), v_r);
    e_sop2(e, "s_and_b64", s_mask, s_mask, sub(s_tmp, 0, 2));
    e_vopc(e, "v_cmp_gt_u32", sub(s_tmp, 0, 2), limit, v_out);
    e_sop2(e, "s_and_b64", s_mask, s_mask, sub(s_tmp, 0, 2));
}

void naive_taps(emit *e, igemm_dtype dt, const naive_geom *g, opnd s_valid, opnd s_tmp, opnd v_acc, opnd v_hi,
                opnd v_wi, opnd v_wbase, opnd v_dybase, opnd s_rsrc_w, opnd s_rsrc_dy)
{
#define A(f) (g->f)
    e_comment(e, "for y < Y: h = hi + Ph - y*Dh must be >= 0, divisible by Sh, h/Sh < Ho");
    opnd s_y = sreg(e, "s_y", 1, 1), s_x = sreg(e, "s_x", 1, 1), s_kk = sreg(e, "s_kk", 1, 1);
    opnd s_hoff = sreg(e, "s_hoff", 1, 1), s_woff = sreg(e, "s_woff", 1, 1);
    opnd s_vh = sreg(e, "s_vh", 2, 2), s_vw = sreg(e, "s_vw", 2, 2);
    opnd v_h = vreg(e, "v_h", 1, 1), v_ho = vreg(e, "v_ho", 1, 1), v_r = vreg(e, "v_r", 1, 1);
    opnd v_w = vreg(e, "v_w", 1, 1), v_wo = vreg(e, "v_wo", 1, 1);
    opnd v_ow = vreg(e, "v_ow", 1, 1), v_od = vreg(e, "v_od", 1, 1);
    opnd v_a = vreg(e, "v_a", 1, 1), v_b = vreg(e, "v_b", 1, 1);
    opnd v_t = NOOP, v_nan = NOOP, s_m = NOOP;
    if (g->round_to) {
        v_t = vreg(e, "v_rt", 1, 1), v_nan = vreg(e, "v_rnan", 1, 1), s_m = sreg(e, "s_rm", 2, 2);
        h_smov(e, EXEC, s_valid); /* every lane that may reach a term */
        h_narrow16_nan(e, g->round_to, v_nan);
    }
    label l_y = e_label_new(e, "loop_y"), l_y_next = e_label_new(e, "next_y");
    label l_x = e_label_new(e, "loop_x"), l_x_next = e_label_new(e, "next_x");
    label l_k = e_label_new(e, "loop_k");

    h_smov(e, s_y, imm(0));
    h_smov(e, s_hoff, A(pad_h));
    e_label(e, l_y);
    h_smov(e, EXEC, s_valid);
    tap_axis(e, s_vh, s_tmp, v_h, v_r, v_ho, s_hoff, v_hi, A(mdiv_sh), A(shift_sh), A(stride_h), A(ho));
    e_sop2(e, "s_and_b64", s_vh, s_vh, s_valid);
    h_smov(e, EXEC, s_vh);
    e_branch(e, "s_cbranch_execz", l_y_next);

    h_smov(e, s_x, imm(0));
    h_smov(e, s_woff, A(pad_w));
    e_label(e, l_x);
    e_comment(e, "for x < X: w = wi + Pw - x*Dw, same conditions with Sw, Wo");
    h_smov(e, EXEC, s_vh);
    tap_axis(e, s_vw, s_tmp, v_w, v_r, v_wo, s_woff, v_wi, A(mdiv_sw), A(shift_sw), A(stride_w), A(wo));
    e_sop2(e, "s_and_b64", EXEC, s_vw, s_vh);
    e_branch(e, "s_cbranch_execz", l_x_next);

    e_comment(e, "w offset = wbase + y*w_sy + x*w_sx, dy offset = dybase + ho*dy_sh + wo*dy_sw");
    e_sop2(e, "s_mul_i32", at(s_tmp, 2), s_y, A(w_sy));
    e_sop2(e, "s_mul_i32", at(s_tmp, 3), s_x, A(w_sx));
    e_sop2(e, "s_add_u32", at(s_tmp, 2), at(s_tmp, 2), at(s_tmp, 3));
    h_vadd(e, v_ow, at(s_tmp, 2), v_wbase);
    offset2(e, v_od, v_r, v_ho, A(dy_sh), v_wo, A(dy_sw));
    h_vadd(e, v_od, v_od, v_dybase);

    h_smov(e, s_kk, imm(0));
    e_label(e, l_k);
    load_f32(e, dt, v_a, v_ow, s_rsrc_w);
    load_f32(e, dt, v_b, v_od, s_rsrc_dy);
    h_vadd(e, v_ow, A(w_sk), v_ow);
    h_vadd(e, v_od, A(dy_sk), v_od);
    e_sop2(e, "s_add_u32", s_kk, s_kk, imm(1));
    e_waitcnt(e, 0, -1);
    h_widen16(e, dt, v_a);
    h_widen16(e, dt, v_b);
    if (g->round_to)
        for (int f = 0; f < 2; f++) {
            opnd v = f ? v_b : v_a;
            h_narrow16(e, g->round_to, v, v_t, v_nan, s_m);
            h_widen16(e, g->round_to, v);
        }
    e_vop2(e, "v_fmac_f32", v_acc, v_a, v_b);
    e_sopc(e, "s_cmp_lt_u32", s_kk, A(kg));
    e_branch(e, "s_cbranch_scc1", l_k);

    e_label(e, l_x_next);
    e_sop2(e, "s_sub_u32", s_woff, s_woff, A(dil_w));
    e_sop2(e, "s_add_u32", s_x, s_x, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_x, A(fx));
    e_branch(e, "s_cbranch_scc1", l_x);

    e_label(e, l_y_next);
    e_sop2(e, "s_sub_u32", s_hoff, s_hoff, A(dil_h));
    e_sop2(e, "s_add_u32", s_y, s_y, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_y, A(fy));
    e_branch(e, "s_cbranch_scc1", l_y);

    opnd all[] = {s_y, s_x, s_kk, s_hoff, s_woff, s_vh, s_vw, v_h, v_ho, v_r, v_w, v_wo, v_ow, v_od, v_a, v_b};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    if (g->round_to) {
        rfree(e, v_t);
        rfree(e, v_nan);
        rfree(e, s_m);
    }
#undef A
}

static void naive(emit *e, const char *name, igemm_dtype dt)
{
    const int esz = dt == IGEMM_FP32 ? 4 : 2;
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
#define A(f) at(s_args, ARG(f))

    opnd v_tid = h_workitem_id(e);
    opnd v_gid = vreg(e, "v_gid", 1, 1);
    opnd s_tmp = sreg(e, "s_tmp", 4, 2);
    opnd s_valid = sreg(e, "s_valid", 2, 2);
    label l_end = e_label_new(e, "end");

    e_comment(e, "gid = block * %d + tid; lanes past the end do nothing", NAIVE_BLOCK);
    e_sop2(e, "s_lshl_b32", at(s_tmp, 0), s_bx, imm(8));
    e_waitcnt(e, -1, 0);
    h_vadd(e, v_gid, at(s_tmp, 0), v_tid);
    e_vopc(e, "v_cmp_gt_u32", VCC, A(total), v_gid);
    h_smov(e, s_valid, VCC);
    h_smov(e, EXEC, VCC);
    e_branch(e, "s_cbranch_execz", l_end);

    opnd v_n = vreg(e, "v_n", 1, 1), v_cl = vreg(e, "v_cl", 1, 1), v_g = vreg(e, "v_g", 1, 1);
    opnd v_hi = vreg(e, "v_hi", 1, 1), v_wi = vreg(e, "v_wi", 1, 1);
    band_coords(e, s_args, v_gid, v_n, v_cl, v_g, v_hi, v_wi);

    e_comment(e, "dx offset = n*dx_sn + (g*cg + cl)*dx_sc + hi*dx_sh + wi*dx_sw");
    opnd v_dxoff = vreg(e, "v_dxoff", 1, 1), v_t = vreg(e, "v_tt", 1, 1);
    h_vmul_lo(e, v_t, v_g, A(cg));
    h_vadd(e, v_t, v_t, v_cl);
    offset2(e, v_dxoff, v_t, v_t, A(dx_sc), v_n, A(dx_sn));
    mul_acc(e, v_dxoff, v_t, v_hi, A(dx_sh));
    mul_acc(e, v_dxoff, v_t, v_wi, A(dx_sw));
    opnd s_rsrc_dx = sreg(e, "s_rsrc_dx", 4, 4), s_bytes = at(s_tmp, 0);
    rsrc_sized(e, s_rsrc_dx, p_dx, s_bytes, A(dx_sn), A(batch));

    opnd v_acc = vreg(e, "v_acc", 1, 1);
    label l_all = e_label_new(e, "compute");
    e_comment(e, "only_nan: lanes whose dx element is not NaN keep it");
    e_sopc(e, "s_cmp_eq_u32", A(only_nan), imm(0));
    e_branch(e, "s_cbranch_scc1", l_all);
    load_f32(e, dt, v_acc, v_dxoff, s_rsrc_dx);
    e_waitcnt(e, 0, -1);
    h_widen16(e, dt, v_acc);
    e_vopc(e, "v_cmp_u_f32", VCC, v_acc, v_acc);
    e_sop2(e, "s_and_b64", s_valid, s_valid, VCC);
    h_smov(e, EXEC, s_valid);
    e_branch(e, "s_cbranch_execz", l_end);
    e_label(e, l_all);

    e_comment(e, "w base: (g*kg)*w_sk + cl*w_sc; dy base: n*dy_sn + (g*kg)*dy_sk");
    opnd v_gk = v_t, v_wbase = vreg(e, "v_wbase", 1, 1), v_dybase = vreg(e, "v_dybase", 1, 1);
    h_vmul_lo(e, v_gk, v_g, A(kg));
    offset2(e, v_wbase, v_dybase, v_gk, A(w_sk), v_cl, A(w_sc));
    offset2(e, v_dybase, v_gk, v_gk, A(dy_sk), v_n, A(dy_sn));
    rfree(e, v_cl);
    rfree(e, v_g);
    rfree(e, v_n);

    e_comment(e, "buffer resources: dy and w with their byte sizes");
    opnd s_rsrc_dy = sreg(e, "s_rsrc_dy", 4, 4), s_rsrc_w = sreg(e, "s_rsrc_w", 4, 4);
    rsrc_sized(e, s_rsrc_dy, p_dy, s_bytes, A(dy_sn), A(batch));
    rsrc_sized(e, s_rsrc_w, p_w, s_bytes, A(k), A(w_sk));

    h_vmov(e, v_acc, imm(0));

    naive_geom geom = {
        .pad_h = A(pad_h), .pad_w = A(pad_w), .dil_h = A(dil_h), .dil_w = A(dil_w),
        .stride_h = A(stride_h), .stride_w = A(stride_w), .mdiv_sh = A(mdiv_sh), .shift_sh = A(shift_sh),
        .mdiv_sw = A(mdiv_sw), .shift_sw = A(shift_sw), .ho = A(ho), .wo = A(wo), .fy = A(fy), .fx = A(fx),
        .kg = A(kg), .dy_sk = A(dy_sk), .dy_sh = A(dy_sh), .dy_sw = A(dy_sw), .w_sk = A(w_sk), .w_sy = A(w_sy),
        .w_sx = A(w_sx),
    };
    naive_taps(e, dt, &geom, s_valid, s_tmp, v_acc, v_hi, v_wi, v_wbase, v_dybase, s_rsrc_w, s_rsrc_dy);

    e_comment(e, "dx = acc");
    h_smov(e, EXEC, s_valid);
    opnd v_tmp = vreg(e, "v_tmp", 1, 1), v_nan = vreg(e, "v_nan", 1, 1), s_m = sreg(e, "s_m", 2, 2);
    h_narrow16_nan(e, dt, v_nan);
    h_narrow16(e, dt, v_acc, v_tmp, v_nan, s_m);
    e_mubuf(e, esz == 4 ? "buffer_store_dword" : "buffer_store_short", v_acc, v_dxoff, s_rsrc_dx, imm(0), 0);

    e_label(e, l_end);
#undef A
    opnd all[] = {v_acc, v_tmp, v_nan, s_m, s_rsrc_dx, s_rsrc_dy, s_rsrc_w, v_wbase, v_dybase, v_dxoff, v_t,
                  v_wi, v_hi, v_gid, s_tmp, s_valid, s_args, v_tid, s_bx, s_ka};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        rfree(e, all[i]);
    e_kernel_end(e);
}

void kern_naive(emit *e)
{
    naive(e, KERNEL_NAIVE, IGEMM_FP32);
    naive(e, KERNEL_NAIVE_FP16, IGEMM_FP16);
    naive(e, KERNEL_NAIVE_BF16, IGEMM_BF16);
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
