/* The non-finite guard of the unsplit v4r1 kernels (docs/KERNELS.md,
 * "Non-finite data"), between the K walk and the epilogue's stores.
 *
 * A masked dy tap loads 0 and meets a weight every column of the tile
 * shares: 0 x inf is NaN, and only in the border band of dx (the pixels
 * with a tap outside dy). The guard patches the accumulators before the
 * epilogue stores (and rounds) them:
 *
 *   check   sum = acc_0 + acc_1 + ... (NaN when some accumulator is NaN, or
 *           by chance, inf - inf: a false alarm costs time, never a
 *           result); no lane with a NaN sum: branch past the rest. This is
 *           all the normal path pays: one VALU add per accumulator (two
 *           where they are AGPRs, read out first).
 *   slow    a loop; per round each lane picks its next NaN accumulator
 *           (in the order (i, j), from v_next on: a flat index with the
 *           tile row and column, packed in v_sel), decodes its channel and
 *           pixel (the epilogue's column decode), and the lanes whose pick
 *           lies in dx, inside C/G and in the border band recompute it from
 *           the valid taps (naive_taps, the naive kernel's loop: masked taps
 *           never form 0 x w) into the picked accumulator. Interior NaNs
 *           are true NaNs (no tap is masked there): they stay. The loop
 *           ends when no lane has a NaN accumulator left past v_next.
 *
 * Exact as the naive fixup launch it replaces: the same terms in the same
 * order, stored through the epilogue's one rounding. The geometry the
 * recompute needs is the argument block's tail (igemm_nonfinite_args),
 * loaded only in the slow path; a static twin has it as constants (and no
 * guard where its band is empty). Split kernels (partial sums) have no
 * guard here. */
#include <stddef.h>

#include "../kern.h"
#include "kw.h"

/* v_sel: flat index t | tile row << ROW_SHIFT | tile column << COL_SHIFT */
#define ROW_SHIFT 11
#define COL_SHIFT 21

static uint32_t packed(const v4r1_kw *w, int i, int j)
{
    int cols = w->math->cols(w);
    return (uint32_t)(i * cols + j) | (uint32_t)w->math->row_off(w, i) << ROW_SHIFT |
           (uint32_t)w->math->col_off(w, j) << COL_SHIFT;
}

/* accumulator (i, j) as a VGPR: itself, or read out of its AGPR into v */
static opnd acc_value(v4r1_kw *w, int i, int j, opnd v)
{
    opnd a = w->math->acc(w, i, j, 1);
    if (a.kind != OPK_AGPR)
        return a;
    e_accvgpr_read(w->e, v, a);
    return v;
}

/* The normal path: VCC = the lanes whose accumulators sum to NaN. */
static void check(v4r1_kw *w)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    opnd v_sum = at(w->v_t, 0), v_rd[2] = {at(w->v_t, 1), at(w->v_t, 3)};
    e_comment(e, "non-finite guard: any NaN accumulator? (their sum is NaN)");
    int t = 0;
    for (int i = 0; i < m->rows(w); i++)
        for (int j = 0; j < m->cols(w); j++, t++) {
            if (t == 0) {
                opnd a = m->acc(w, i, j, 1);
                if (a.kind == OPK_AGPR)
                    e_accvgpr_read(e, v_sum, a);
                else
                    h_vmov(e, v_sum, a);
                continue;
            }
            e_vop2(e, "v_add_f32", v_sum, acc_value(w, i, j, v_rd[t % 2]), v_sum);
        }
    e_vopc(e, "v_cmp_u_f32", VCC, v_sum, v_sum);
}

/* Each lane of s_free (cleared as they pick) picks its first NaN
 * accumulator at or after v_next into v_sel (EXEC: every lane). */
static void pick(v4r1_kw *w, opnd s_free, opnd s_a, opnd v_next, opnd v_sel)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    for (int i = 0; i < m->rows(w); i++)
        for (int j = 0; j < m->cols(w); j++) {
            uint32_t p = packed(w, i, j);
            opnd v = acc_value(w, i, j, at(w->v_t, 1));
            e_vopc(e, "v_cmp_u_f32", s_a, v, v);
            e_sop2(e, "s_and_b64", s_a, s_a, s_free);
            e_vopc(e, "v_cmp_ge_u32", VCC, imm(p & ((1u << ROW_SHIFT) - 1)), v_next);
            e_sop2(e, "s_and_b64", s_a, s_a, VCC);
            e_sop2(e, "s_andn2_b64", s_free, s_free, s_a);
            h_smov(e, EXEC, s_a);
            h_vmov(e, v_sel, imm((int64_t)p));
            h_smov(e, EXEC, imm(-1));
        }
}

/* The lanes of EXEC write v_acc into the accumulator they picked. */
static void put_back(v4r1_kw *w, opnd v_sel, opnd v_acc)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    opnd v = at(w->v_t, 1);
    for (int i = 0; i < m->rows(w); i++)
        for (int j = 0; j < m->cols(w); j++) {
            e_vopc(e, "v_cmp_eq_u32", VCC, imm((int64_t)packed(w, i, j)), v_sel);
            opnd a = m->acc(w, i, j, 1);
            if (a.kind == OPK_AGPR) {
                e_accvgpr_read(e, v, a);
                e_cndmask(e, v, v, v_acc, VCC);
                e_accvgpr_write(e, a, v);
            } else {
                e_cndmask(e, a, a, v_acc, VCC);
            }
        }
}

/* Where the guard's block goes (kernel registers are scarce here: about
 * 32 SGPRs free after the K walk, and VGPRs count for occupancy): its first
 * NF_SGPRS words (pad_h .. bot) into header words of the argument block
 * that neither the guard nor the epilogue reads (k, ytilda .. dw_step,
 * n_tiles .. shift_wgs, mdiv_ntiles .. ks_slice, w_kyxc: read by the setup
 * only, written by nobody in an unsplit kernel), reloaded from the kernel
 * arguments afterwards (w_kyxc, the last, is not: nothing reads it again); the next NF_VGPRS
 * words (left, rgt) into VGPRs; the byte counts through the resources'
 * quads. A static twin has no header: its SGPR words come from the pool,
 * as constants. */
#define NF_SGPRS 18
#define NF_VGPRS 2
#define HDR(f) ((int)(offsetof(igemm_v4r1_args, f) / 4))
#define NFW(f) ((int)(offsetof(igemm_nonfinite_args, f) / 4))
_Static_assert(offsetof(igemm_nonfinite_args, left) == 4 * NF_SGPRS, "the guard's SGPR words come first");
_Static_assert(offsetof(igemm_nonfinite_args, w_bytes) == 4 * (NF_SGPRS + NF_VGPRS), "then its VGPR words");
_Static_assert(HDR(dw_step) == HDR(ytilda) + 3 && HDR(shift_wgs) == HDR(n_tiles) + 5 &&
                   HDR(ks_slice) == HDR(mdiv_ntiles) + 5 && HDR(w_kyxc) == HDR(ks_slice) + 1 &&
                   HDR(w_kyxc) + 1 == HDR(ph),
               "borrowed header words");

/* The borrowed header runs: (first header word, words), in block order;
 * the last (w_kyxc, read by the setup alone) is not reloaded. */
static const int borrowed[][2] = {{HDR(ytilda), 4}, {HDR(n_tiles), 6}, {HDR(k), 1}, {HDR(mdiv_ntiles), 6},
                                  {HDR(w_kyxc), 1}};
#define NRUNS (int)(sizeof borrowed / sizeof borrowed[0])

typedef struct {
    opnd s[NF_SGPRS];   /* pad_h .. bot */
    opnd v;             /* NF_VGPRS VGPRs: left, rgt */
    opnd s_pool;        /* a static twin's SGPRs, or NOOP */
    opnd s_twin;        /* a static twin's stride_h, stride_w, ho, wo, or NOOP */
} nf_regs;
#define NFV(r, f) at((r)->v, NFW(f) - NF_SGPRS)
#define NFS(r, f) ((r)->s[NFW(f)])

/* The block into registers; s_rs: the two resource quads, left holding
 * w_bytes and dy_bytes in words 2 and 6. */
static void load_block(v4r1_kw *w, nf_regs *r, opnd s_rs)
{
    emit *e = w->e;
    const int base = (int)offsetof(igemm_v4r1_args, nf);
    r->v = vreg(e, "v_nf", NF_VGPRS, 1);
    r->s_pool = r->s_twin = NOOP;
    if (w->st) {
        const uint32_t *k = (const uint32_t *)&w->st->nf;
        const igemm_nonfinite_args *nf = &w->st->nf;
        r->s_pool = sreg(e, "s_nf", NF_SGPRS, 1);
        r->s_twin = sreg(e, "s_nf_twin", 4, 1);
        for (int i = 0; i < NF_SGPRS; i++) {
            r->s[i] = at(r->s_pool, i);
            h_smov(e, r->s[i], imm(k[i]));
        }
        const uint32_t tw[4] = {nf->stride_h, nf->stride_w, nf->ho, nf->wo};
        for (int i = 0; i < 4; i++)
            h_smov(e, at(r->s_twin, i), imm(tw[i]));
        for (int i = 0; i < NF_VGPRS; i++)
            h_vmov(e, at(r->v, i), imm(k[NF_SGPRS + i]));
        h_smov(e, at(s_rs, 2), imm(nf->w_bytes));
        h_smov(e, at(s_rs, 6), imm(nf->dy_bytes));
        return;
    }
    for (int g = 0, i = 0; g < NRUNS; i += borrowed[g][1], g++) {
        for (int j = 0; j < borrowed[g][1]; j++)
            r->s[i + j] = at(w->s_args, borrowed[g][0] + j);
        h_load_kargs(e, w->s_ka, sub(w->s_args, borrowed[g][0], borrowed[g][1]), base + 4 * i, borrowed[g][1]);
    }
    h_load_kargs(e, w->s_ka, sub(s_rs, 0, 4), base + 4 * NF_SGPRS, 4);
    e_waitcnt(e, -1, 0);
    for (int i = 0; i < NF_VGPRS; i++)
        h_vmov(e, at(r->v, i), at(s_rs, i));
    h_smov(e, at(s_rs, 6), at(s_rs, 3));
}

/* The slow path's end: the borrowed header words back (the pad word needs
 * none). */
static void unload_block(v4r1_kw *w, nf_regs *r)
{
    emit *e = w->e;
    if (w->st) {
        rfree(e, r->s_twin);
        rfree(e, r->s_pool);
    } else {
        for (int g = 0; g < NRUNS - 1; g++)
            h_load_kargs(e, w->s_ka, sub(w->s_args, borrowed[g][0], borrowed[g][1]), 4 * borrowed[g][0],
                         borrowed[g][1]);
        e_waitcnt(e, -1, 0);
    }
    rfree(e, r->v);
}

/* s_do &= the lanes whose pixel (v_q: hi, wi) is in the band (s_a scratch) */
static void band_lanes(v4r1_kw *w, const nf_regs *r, opnd v_q, opnd s_do, opnd s_a)
{
    emit *e = w->e;
    e_vopc(e, "v_cmp_gt_u32", s_a, NFS(r, top), at(v_q, 0));
    e_vopc(e, "v_cmp_le_u32", VCC, NFS(r, bot), at(v_q, 0));
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_vopc(e, "v_cmp_gt_u32", VCC, NFV(r, left), at(v_q, 1));
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_vopc(e, "v_cmp_le_u32", VCC, NFV(r, rgt), at(v_q, 1));
    e_sop2(e, "s_or_b64", s_a, s_a, VCC);
    e_sop2(e, "s_and_b64", s_do, s_do, s_a);
}

/* An SGPR holding the header value x (dynamic), or the twin's constant in
 * tw (its SGPR). */
static opnd hdr_sgpr(sv x, opnd tw) { return x.known ? tw : sv_op(x); }

/* The naive recompute of the picked elements of EXEC = s_do. */
static void recompute(v4r1_kw *w, const nf_regs *r, opnd s_do, opnd s_tmp, opnd s_rs, opnd v_c, opnd v_img,
                      opnd v_q, opnd v_wbase, opnd v_dybase, opnd v_acc)
{
    emit *e = w->e;
    e_comment(e, "recompute from the valid taps: w at (g*kg)*w_sk + c*w_sc, dy at img*dy_sn + (g*kg)*dy_sk");
    h_smov(e, EXEC, s_do);
    opnd s_gk = at(s_tmp, 2);
    e_sop2(e, "s_mul_i32", s_gk, sv_sgpr(e, w->g, at(s_tmp, 3)), sv_op(w->a_kg));
    h_vadd(e, v_c, sv_op(w->m0), v_c);
    h_vmul_lo(e, v_wbase, v_c, NFS(r, w_sc));
    e_sop2(e, "s_mul_i32", at(s_tmp, 3), s_gk, NFS(r, w_sk));
    h_vadd(e, v_wbase, at(s_tmp, 3), v_wbase);
    h_vmul_lo(e, v_dybase, v_img, NFS(r, dy_sn));
    e_sop2(e, "s_mul_i32", at(s_tmp, 3), s_gk, NFS(r, dy_sk));
    h_vadd(e, v_dybase, at(s_tmp, 3), v_dybase);
    h_vmov(e, v_acc, imm(0));
    naive_geom geom = {
        .pad_h = NFS(r, pad_h), .pad_w = NFS(r, pad_w), .dil_h = NFS(r, dil_h), .dil_w = NFS(r, dil_w),
        .mdiv_sh = NFS(r, mdiv_sh), .shift_sh = NFS(r, shift_sh), .mdiv_sw = NFS(r, mdiv_sw),
        .shift_sw = NFS(r, shift_sw), .w_sy = NFS(r, w_sy), .w_sx = NFS(r, w_sx),
        .stride_h = hdr_sgpr(V4R1_ARG(w, stride_h), at(r->s_twin, 0)),
        .stride_w = hdr_sgpr(V4R1_ARG(w, stride_w), at(r->s_twin, 1)),
        .ho = hdr_sgpr(w->a_ho, at(r->s_twin, 2)), .wo = hdr_sgpr(w->a_wo, at(r->s_twin, 3)),
        .fy = sv_op(w->a_fy), .fx = sv_op(w->a_fx), .kg = sv_op(w->a_kg),
        .dy_sk = NFS(r, dy_sk), .dy_sh = NFS(r, dy_sh), .dy_sw = NFS(r, dy_sw), .w_sk = NFS(r, w_sk),
        .round_to = w->cfg->stage, /* the terms as the tiles multiply them */
    };
    naive_taps(e, w->dt->id, &geom, s_do, s_tmp, v_acc, at(v_q, 0), at(v_q, 1), v_wbase, v_dybase, sub(s_rs, 0, 4),
               sub(s_rs, 4, 4));
    h_smov(e, EXEC, s_do);
}

/* The slow path (the file's comment). EXEC is every lane here (whole
 * waves, no divergence after the K walk), and is again at its end. */
static void slow(v4r1_kw *w)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    e_scope_begin(e, "nonfinite");
    e_comment(e, "non-finite guard, slow path: recompute the NaN accumulators of the border band");
    /* pick: s_a scratch, s_free the lanes without a pick yet, then those
       with one; s_do (s_m): the picks to recompute */
    opnd s_a = sub(w->s_t, 0, 2), s_free = sub(w->s_t, 2, 2), s_do = w->s_m;
    opnd s_tmp = sreg(e, "s_nf_tmp", 4, 2), s_rs = sreg(e, "s_nf_rs", 8, 4);
    nf_regs r;
    load_block(w, &r, s_rs);
    e_comment(e, "buffer resources of w and dy (NUM_RECORDS: w_bytes, dy_bytes)");
    h_buffer_rsrc(e, sub(s_rs, 4, 4), w->p_dy, at(s_rs, 6));
    h_buffer_rsrc(e, sub(s_rs, 0, 4), w->p_w, at(s_rs, 2));
    /* v_t[1] and v_t[3] are free between the pick and the put-back: the
       pick's image and channel; the bases hold the column constants until
       the recompute needs them */
    opnd v_next = vreg(e, "v_nf_next", 1, 1), v_sel = vreg(e, "v_nf_sel", 1, 1), v_acc = vreg(e, "v_nf_acc", 1, 1);
    opnd v_wbase = vreg(e, "v_nf_wbase", 1, 1), v_dybase = vreg(e, "v_nf_dybase", 1, 1);
    opnd v_q = vreg(e, "v_nf_q", 2, 1);
    opnd v_n = at(w->v_t, 0), v_img = at(w->v_t, 1), v_c = at(w->v_t, 3);
    h_vmov(e, v_next, imm(0));
    h_vmov(e, v_sel, imm(0));
    opnd v_col0 = m->col_base(w), v_row0 = m->row_base(w);

    label l_round = e_label_new(e, "nf_round"), l_done = e_label_new(e, "nf_done");
    e_label(e, l_round);
    h_smov(e, EXEC, imm(-1));
    h_smov(e, s_free, imm(-1));
    pick(w, s_free, s_a, v_next, v_sel);
    e_sop1(e, "s_not_b64", s_free, s_free);
    e_branch(e, "s_cbranch_scc0", l_done);
    h_smov(e, EXEC, s_free);
    e_comment(e, "the pick: next = t + 1; its tile row (channel) and column (pixel)");
    e_vop2(e, "v_and_b32", v_next, imm((1 << ROW_SHIFT) - 1), v_sel);
    h_vadd(e, v_next, imm(1), v_next);
    e_vop2(e, "v_lshrrev_b32", v_c, imm(ROW_SHIFT), v_sel);
    e_vop2(e, "v_and_b32", v_c, imm((1 << (COL_SHIFT - ROW_SHIFT)) - 1), v_c);
    h_vadd(e, v_c, v_c, v_row0);
    e_vop2(e, "v_lshrrev_b32", v_n, imm(COL_SHIFT), v_sel);
    h_vadd(e, v_n, v_n, v_col0);
    h_vadd(e, v_n, sv_op(w->n0), v_n);
    v4r1_column_consts(w, v_wbase, v_dybase);
    sv hwts = sv_const(0);
    if (w->a_hts.known && w->a_wts.known) {
        hwts = sv_const(w->a_hts.k * w->a_wts.k);
    } else {
        e_sop2(e, "s_mul_i32", at(s_tmp, 3), sv_sgpr(e, w->a_hts, at(s_tmp, 2)), sv_op(w->a_wts));
        hwts = sv_reg(at(s_tmp, 3));
    }
    v4r1_column_pixel(w, v_n, v_img, v_q, hwts, v_wbase, v_dybase);
    sv mlim = sv_sub(e, "s_nf_mlim", w->a_cg, w->m0);
    e_vopc(e, "v_cmp_gt_u32", s_do, sv_sgpr(e, mlim, at(s_tmp, 2)), v_c);
    sv_free(e, mlim);
    e_sop2(e, "s_and_b64", s_do, s_do, VCC);
    band_lanes(w, &r, v_q, s_do, s_a);
    e_branch(e, "s_cbranch_scc0", l_round);
    recompute(w, &r, s_do, s_tmp, s_rs, v_c, v_img, v_q, v_wbase, v_dybase, v_acc);
    put_back(w, v_sel, v_acc);
    e_branch(e, "s_branch", l_round);
    e_label(e, l_done);
    h_smov(e, EXEC, imm(-1));
    unload_block(w, &r);
    e_scope_end(e, "nonfinite", true);
}

void v4r1_nonfinite(v4r1_kw *w)
{
    emit *e = w->e;
    /* PH_GUARD is the same in every row of the phase table (v4r1_fill_args) */
    if (w->st && !(w->st->ph[0][PH_GUARD] & PH_GUARD_BAND))
        return; /* a static twin without a border band: nothing to guard */
    const v4r1_math *m = w->math;
    if (m->rows(w) * m->cols(w) > (1 << ROW_SHIFT) || m->row_off(w, m->rows(w) - 1) >= 1 << (COL_SHIFT - ROW_SHIFT) ||
        m->col_off(w, m->cols(w) - 1) >= 1 << (32 - COL_SHIFT)) {
        emit_fail(e, "kernel %s: the non-finite guard's packed index cannot hold a %dx%d thread tile", w->name,
                  m->rows(w), m->cols(w));
        return;
    }
    label l_end = e_label_new(e, "nonfinite_done");
    if (!w->st) { /* the dynamic kernel: no border band, no check */
        e_sopc(e, "s_bitcmp0_b32", sv_op(w->a_guard), imm(log2u(PH_GUARD_BAND)));
        e_branch(e, "s_cbranch_scc1", l_end);
    }
    check(w);
    e_branch(e, "s_cbranch_vccz", l_end);
    slow(w);
    e_label(e, l_end);
}
