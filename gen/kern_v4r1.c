/* The v4r1 backward-data kernel with v_fmac_f32 (one writer, every tile
 * configuration; dynamic, or static when the shape's values are given).
 *
 * A workgroup computes (part of) one phase (iy, ix) of DESIGN.md section 2;
 * one launch covers every non-empty phase ("multihead": the phase is
 * block / workgroups-per-phase, its values a row of a table in the kernel
 * arguments). A phase is the GEMM
 *   C[M x N] = A[K x M]^T B[K x N],  M = C/G, N = n * HTs * WTs,
 *   K = (K/G) * YDotSlice * XDotSlice,
 * with A = w (rows gemm_k = (k, ydot, xdot), columns c) and B = dy (columns
 * (n, htilda, wtilda), zero where ho or wo falls outside dy).
 *
 * GEMM K is walked tap by tap: for each (ydot, xdot), ceil(Kg / KPB) steps
 * of KPB channels k. Every thread of a workgroup shares (ydot, xdot) and
 * the channel block, so the walk is scalar: the buffer resources' base
 * addresses move, the per-thread offsets stay. Only a tap change recomputes
 * which dy elements are inside dy (a few VALU ops per element); only the
 * last channel block of a tap, when K/G is not a multiple of KPB, masks
 * rows (A by shrinking NUM_RECORDS, B by a scalar-branched masked load).
 * Lanes with nothing to load use offset 0x80000000, past NUM_RECORDS under
 * every reading of the gfx9 range check, and read 0.
 *
 * Pipeline: the next tile is fetched from global memory into registers
 * while the current one is multiplied out of LDS; LDS is double buffered
 * (one s_barrier per step) and, inside a step, the LDS reads of row kk+1
 * are in flight while the FMAs of row kk issue. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../arch/kargs.h"
#include "../conv/v4r1_config.h"
#include "emit_helpers.h"
#include "kern.h"
#include "values.h"

#define INVALID_OFFSET 0x80000000u
#define B_NUM_RECORDS 0x7fffffffu

typedef struct {
    emit *e;
    const igemm_v4r1_args *st; /* static: the shape's values; NULL: dynamic */
    opnd s_args;
    /* LDS layout: byte offsets of buffer 0 of A and B; buffer 1 is at
       offset ^ size (the larger tile goes first so both toggles are xors) */
    int a_lds, b_lds, a_size, b_size;
} kw;

/* A kernel argument: an SGPR of the loaded argument block (named after the
 * field), or the static twin's constant. */
#define ARG(w, f)                                                                                                   \
    ((w)->st ? sv_const((w)->st->f)                                                                                 \
             : sv_reg(alias((w)->e, "s_" #f, at((w)->s_args, (int)(offsetof(igemm_v4r1_args, f) / 4)))))

/* 64-bit pointer + 32-bit unsigned offset into dst (an SGPR pair). */
static void ptr_add(emit *e, opnd dst, opnd ptr, sv off)
{
    e_sop2(e, "s_add_u32", at(dst, 0), at(ptr, 0), sv_op(off));
    e_sop2(e, "s_addc_u32", at(dst, 1), at(ptr, 1), imm(0));
}

static void rsrc_words(emit *e, opnd rs, uint32_t num_records)
{
    h_smov(e, at(rs, 2), imm(num_records));
    h_smov(e, at(rs, 3), imm(e->t->buffer_rsrc_word3));
}

static const char *ds_width_op(int w, bool read)
{
    if (read)
        return w == 4 ? "ds_read_b128" : w == 2 ? "ds_read_b64" : "ds_read_b32";
    return w == 4 ? "ds_write_b128" : w == 2 ? "ds_write_b64" : "ds_write_b32";
}

void kern_v4r1(emit *e, const v4r1_config *cfg, const igemm_v4r1_args *st, int nph, const char *name)
{
    kw W = {.e = e, .st = st};
    kw *w = &W;
    const int MPB = cfg->mpb, NPB = cfg->npb, KPB = cfg->kpb, BLOCK = cfg->block;
    const int TX = cfg->tx, TY = cfg->ty, RM = cfg->rm, RN = cfg->rn;
    const int WA = cfg->wa, VA = cfg->va, WB = cfg->wb, VB = cfg->vb;
    const int TM = 4 * RM, TN = 4 * RN; /* thread tile */
    const int DKA = BLOCK * WA / MPB, DKB = BLOCK * WB / NPB; /* kk distance between a thread's vectors */
    w->a_size = KPB * MPB * 4;
    w->b_size = KPB * NPB * 4;
    if (w->a_size >= w->b_size) {
        w->a_lds = 0;
        w->b_lds = 2 * w->a_size;
    } else {
        w->b_lds = 0;
        w->a_lds = 2 * w->b_size;
    }

    e_kernel_begin(e, name, BLOCK);
    if (st) {
#define KARG_STRUCT igemm_static_args
        IGEMM_STATIC_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    } else {
#define KARG_STRUCT igemm_v4r1_args
        IGEMM_V4R1_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
        e_karg(e, "phases", (int)offsetof(igemm_v4r1_args, ph), (int)sizeof(((igemm_v4r1_args *)0)->ph), false,
               false);
    }
    e_kernel_lds(e, cfg->lds_bytes);
    e_comment(e, "v4r1 bwd-data, %s: tile %dx%dx%d, %d threads as %dx%d, thread tile %dx%d, A %dx%d B %dx%d loads",
              st ? "static" : "dynamic", MPB, NPB, KPB, BLOCK, TX, TY, TM, TN, VA, WA, VB, WB);

    opnd s_ka = sreg_fixed(e, "s_karg", 0, 2), s_bx = sreg_fixed(e, "s_bx", 2, 1);
    /* the scalar arguments, and room after them (4-aligned) for this
       workgroup's row of the phase table */
    int nargs = st ? (int)(sizeof(igemm_static_args) / 4) : (int)(offsetof(igemm_v4r1_args, ph) / 4);
    int ph_at = (nargs + 3) / 4 * 4;
    w->s_args = sreg(e, "s_args", ph_at + PH_WORDS, 4);
    h_load_kargs(e, s_ka, w->s_args, 0, nargs);
    opnd p_dx = alias(e, "s_p_dx", sub(w->s_args, 0, 2));
    opnd p_dy = alias(e, "s_p_dy", sub(w->s_args, 2, 2));
    opnd p_w = alias(e, "s_p_w", sub(w->s_args, 4, 2));
    opnd v_tid = h_workitem_id(e);
    opnd s_t = sreg(e, "s_t", 4, 2); /* scratch */
    e_waitcnt(e, -1, 0);

    sv a_cg = ARG(w, cg), a_kg = ARG(w, kg), a_fx = ARG(w, fx), a_fy = ARG(w, fy), a_k = ARG(w, k);
    sv a_ho = ARG(w, ho), a_wo = ARG(w, wo), a_hi = ARG(w, hi), a_wi = ARG(w, wi), a_c = ARG(w, c);
    sv a_nkb = ARG(w, nkb), a_gemm_n = ARG(w, gemm_n), a_hts = ARG(w, hts), a_wts = ARG(w, wts);
    sv a_mdiv_hwts = ARG(w, mdiv_hwts), a_shift_hwts = ARG(w, shift_hwts);
    sv a_mdiv_wts = ARG(w, mdiv_wts), a_shift_wts = ARG(w, shift_wts);
    sv a_htl = ARG(w, htl), a_wtl = ARG(w, wtl), a_dh_step = ARG(w, dh_step), a_dw_step = ARG(w, dw_step);

    /* ---- workgroup -> phase, then (group, m tile, n tile) ---- */
    e_comment(e, "block id -> phase (every phase has the same number of workgroups) and its row of the table");
    sv phase, lbx;
    sv_divmod(e, "s_phase", "s_lbx", sv_reg(s_bx), ARG(w, wgs), ARG(w, mdiv_wgs), ARG(w, shift_wgs), &phase, &lbx);
    sv ph[PH_WORDS];
    opnd s_ph = sub(w->s_args, ph_at, PH_WORDS);
    if (!st) {
        e_sop2(e, "s_lshl_b32", at(s_t, 0), phase.r, imm(5));
        e_sop2(e, "s_add_u32", at(s_t, 0), at(s_t, 0), imm((int)offsetof(igemm_v4r1_args, ph)));
        e_smem_soff(e, "s_load_dwordx8", s_ph, s_ka, at(s_t, 0));
        e_waitcnt(e, -1, 0);
        for (int f = 0; f < PH_WORDS; f++)
            ph[f] = sv_reg(at(s_ph, f));
    } else if (nph == 1) {
        for (int f = 0; f < PH_WORDS; f++)
            ph[f] = sv_const(st->ph[0][f]);
    } else {
        /* the static twin selects its phase's constants without branches */
        for (int f = 0; f < PH_WORDS; f++) {
            h_smov(e, at(s_ph, f), imm(st->ph[0][f]));
            ph[f] = sv_reg(at(s_ph, f));
        }
        for (int p = 1; p < nph; p++) {
            e_sopc(e, "s_cmp_eq_u32", sv_op(phase), imm(p));
            for (int f = 0; f < PH_WORDS; f++)
                if (st->ph[p][f] != st->ph[0][f])
                    e_sop2(e, "s_cselect_b32", at(s_ph, f), imm(st->ph[p][f]), at(s_ph, f));
        }
    }
    sv_free(e, phase);
    sv a_iy = ph[PH_IY], a_ix = ph[PH_IX], a_ydot = ph[PH_YDOT], a_xdot = ph[PH_XDOT];
    sv a_hoff = ph[PH_HI_OFF], a_woff = ph[PH_WI_OFF];
    if (!st || nph > 1) {
        a_iy.r = alias(e, "s_iy", a_iy.r), a_ix.r = alias(e, "s_ix", a_ix.r);
        a_ydot.r = alias(e, "s_ydot_slice", a_ydot.r), a_xdot.r = alias(e, "s_xdot_slice", a_xdot.r);
        a_hoff.r = alias(e, "s_hi_off", a_hoff.r), a_woff.r = alias(e, "s_wi_off", a_woff.r);
    }

    e_comment(e, "block in phase -> n tile, m tile, group");
    sv bid_q, n_tile, g, m_tile;
    sv_divmod(e, "s_bq", "s_ntile", lbx, ARG(w, n_tiles), ARG(w, mdiv_ntiles), ARG(w, shift_ntiles), &bid_q,
              &n_tile);
    sv_free(e, lbx);
    sv_divmod(e, "s_g", "s_mtile", bid_q, ARG(w, m_tiles), ARG(w, mdiv_mtiles), ARG(w, shift_mtiles), &g, &m_tile);
    sv_free(e, bid_q);
    sv m0 = sv_shl(e, "s_m0", m_tile, log2u((uint32_t)MPB));
    sv n0 = sv_shl(e, "s_n0", n_tile, log2u((uint32_t)NPB));
    sv_free(e, m_tile);
    sv_free(e, n_tile);

    e_comment(e, "sizes in bytes");
    sv yx = sv_mul(e, "s_yx", a_fy, a_fx);
    sv cgyx = sv_mul(e, "s_cgyx", a_cg, yx);
    sv yx4 = sv_shl(e, "s_yx4", yx, 2);
    sv cgyx4 = sv_shl(e, "s_cgyx4", cgyx, 2);
    sv howo = sv_mul(e, "s_howo", a_ho, a_wo);
    sv howo4 = sv_shl(e, "s_howo4", howo, 2);
    sv khowo4 = sv_mul(e, "s_khowo4", a_k, howo4);
    sv a_kstep = sv_mul(e, "s_a_kstep", cgyx4, sv_const((uint32_t)KPB));
    sv b_kstep = sv_mul(e, "s_b_kstep", howo4, sv_const((uint32_t)KPB));

    /* ---- tensor bases of this workgroup ---- */
    e_comment(e, "w base: p_w + (g*kg*cg*yx + m0*yx + iy*x + ix) * 4; dy base: p_dy + g*kg*ho*wo*4");
    opnd s_wbase = sreg(e, "s_wbase", 2, 2), s_dybase = sreg(e, "s_dybase", 2, 2);
    {
        sv gk = sv_mul(e, "s_gk", g, a_kg);
        sv t1 = sv_mul(e, "s_t1", gk, cgyx4);
        sv t2 = sv_mul(e, "s_t2", m0, yx4);
        sv t3 = sv_add(e, "s_t3", t1, t2);
        sv t4 = sv_mul(e, "s_t4", a_iy, a_fx);
        sv t5 = sv_add(e, "s_t5", t4, a_ix);
        sv t6 = sv_shl(e, "s_t6", t5, 2);
        sv t7 = sv_add(e, "s_t7", t3, t6);
        ptr_add(e, s_wbase, p_w, t7);
        sv u1 = sv_mul(e, "s_u1", gk, howo4);
        ptr_add(e, s_dybase, p_dy, u1);
        sv_free(e, u1);
        sv_free(e, t7);
        sv_free(e, t6);
        sv_free(e, t5);
        sv_free(e, t4);
        sv_free(e, t3);
        sv_free(e, t2);
        sv_free(e, t1);
        sv_free(e, gk);
    }
    opnd s_rsa = sreg(e, "s_rsa", 4, 4), s_rsb = sreg(e, "s_rsb", 4, 4);
    rsrc_words(e, s_rsb, B_NUM_RECORDS);
    h_smov(e, at(s_rsa, 3), imm(e->t->buffer_rsrc_word3));

    opnd v_inv = vreg(e, "v_inv", 1, 1);
    h_vmov(e, v_inv, imm(INVALID_OFFSET));
    opnd v_t = vreg(e, "v_t", 4, 1); /* scratch */

    /* ---- A (w) loads: thread -> (kk_a, m_a), vector i at kk_a + i*DKA ---- */
    e_comment(e, "A loads: m_a = (tid %% %d) * %d, kk_a = tid / %d; offset ((kk*cg + m) * y*x) * 4, 0x%x past cg",
              MPB / WA, WA, MPB / WA, INVALID_OFFSET);
    opnd v_aoff = vreg(e, "v_aoff", VA * WA, 1);
    opnd v_ma = at(v_t, 0), v_kka = at(v_t, 1);
    e_vop2(e, "v_and_b32", v_ma, imm(MPB / WA - 1), v_tid);
    e_vop2(e, "v_lshlrev_b32", v_ma, imm(log2u((uint32_t)WA)), v_ma);
    e_vop2(e, "v_lshrrev_b32", v_kka, imm(log2u((uint32_t)(MPB / WA))), v_tid);
    {
        /* base = (kk_a*cg + m_a) * y*x*4; element (i, j) adds j*y*x*4 + i*DKA*cg*y*x*4 */
        sv mlim = sv_sub(e, "s_mlim", a_cg, m0);
        opnd v_abase = at(v_t, 3);
        vx_mad24(e, v_abase, v_kka, a_cg, v_ma, at(s_t, 0));
        vx_mul(e, v_abase, v_abase, yx4, at(s_t, 0));
        for (int i = 0; i < VA; i++)
            for (int j = 0; j < WA; j++) {
                opnd off = at(v_aoff, i * WA + j);
                sv dj = sv_mul(e, "s_dj", yx4, sv_const((uint32_t)j));
                sv di = sv_mul(e, "s_di", cgyx4, sv_const((uint32_t)(i * DKA)));
                sv dij = sv_add(e, "s_dij", dj, di);
                h_vadd(e, off, sv_op(dij), v_abase);
                sv_free(e, dij);
                sv_free(e, di);
                sv_free(e, dj);
                h_vadd(e, at(v_t, 2), imm(j), v_ma);
                e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(mlim), at(v_t, 2));
                e_cndmask(e, off, v_inv, off, VCC);
            }
        sv_free(e, mlim);
    }
    opnd v_awr = vreg(e, "v_awr", 1, 1); /* LDS write address of vector 0 */
    e_vop2(e, "v_lshlrev_b32", v_awr, imm(log2u((uint32_t)MPB)), v_kka);
    h_vadd(e, v_awr, v_awr, v_ma);
    e_vop2(e, "v_lshlrev_b32", v_awr, imm(2), v_awr);
    if (w->a_lds)
        h_vadd(e, v_awr, imm(w->a_lds), v_awr);

    /* ---- B (dy) loads: thread -> (kk_b, n_b); element j of a vector is
       column n0 + n_b + j, the same for every vector ---- */
    e_comment(e, "B loads: n_b = (tid %% %d) * %d, kk_b = tid / %d; per column: htilda, wtilda, offset", NPB / WB,
              WB, NPB / WB);
    opnd v_bht = vreg(e, "v_bht", WB, 1), v_bwt = vreg(e, "v_bwt", WB, 1);
    opnd v_bpre = vreg(e, "v_bpre", VB * WB, 1), v_boff = vreg(e, "v_boff", VB * WB, 1);
    opnd v_bkk = vreg(e, "v_bkk", 1, 1);
    opnd v_nb = at(v_t, 0);
    e_vop2(e, "v_and_b32", v_nb, imm(NPB / WB - 1), v_tid);
    e_vop2(e, "v_lshlrev_b32", v_nb, imm(log2u((uint32_t)WB)), v_nb);
    e_vop2(e, "v_lshrrev_b32", v_bkk, imm(log2u((uint32_t)(NPB / WB))), v_tid);
    opnd v_bwr = vreg(e, "v_bwr", 1, 1);
    e_vop2(e, "v_lshlrev_b32", v_bwr, imm(log2u((uint32_t)NPB)), v_bkk);
    h_vadd(e, v_bwr, v_bwr, v_nb);
    e_vop2(e, "v_lshlrev_b32", v_bwr, imm(2), v_bwr);
    if (w->b_lds)
        h_vadd(e, v_bwr, imm(w->b_lds), v_bwr);
    {
        opnd v_n = at(v_t, 1), v_img = at(v_t, 2), v_r = at(v_t, 3);
        opnd v_q = vreg(e, "v_q", 2, 1);
        sv hwts = sv_mul(e, "s_hwts", a_hts, a_wts);
        opnd v_bkkoff = vreg(e, "v_bkkoff", 1, 1); /* kk_b * ho*wo*4 */
        vx_mul(e, v_bkkoff, v_bkk, howo4, at(s_t, 0));
        h_vadd(e, v_n, sv_op(n0), v_nb);
        for (int j = 0; j < WB; j++) {
            if (j)
                h_vadd(e, v_n, imm(1), v_n);
            /* n -> (image, hts index, wts index) */
            vx_divmod(e, v_img, v_r, v_n, hwts, a_mdiv_hwts, a_shift_hwts, at(s_t, 0));
            vx_divmod(e, at(v_q, 0), at(v_q, 1), v_r, a_wts, a_mdiv_wts, a_shift_wts, at(s_t, 0));
            h_vadd(e, at(v_bht, j), sv_op(a_htl), at(v_q, 0));
            h_vadd(e, at(v_bwt, j), sv_op(a_wtl), at(v_q, 1));
            /* columns past gemm_n: an htilda no tap brings inside dy */
            e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(a_gemm_n), v_n);
            h_vmov(e, at(v_q, 0), imm(0x7fffffff));
            e_cndmask(e, at(v_bht, j), at(v_q, 0), at(v_bht, j), VCC);
            /* pre = image*k*ho*wo*4 + kk_b*ho*wo*4 + (htilda*wo + wtilda)*4, per vector */
            vx_mul(e, at(v_q, 0), v_img, khowo4, at(s_t, 0));
            vx_mad24(e, at(v_q, 1), at(v_bht, j), a_wo, at(v_bwt, j), at(s_t, 0));
            e_vop2(e, "v_lshlrev_b32", at(v_q, 1), imm(2), at(v_q, 1));
            h_vadd(e, at(v_q, 0), at(v_q, 0), at(v_q, 1));
            h_vadd(e, at(v_q, 0), at(v_q, 0), v_bkkoff);
            for (int i = 0; i < VB; i++) {
                sv di = sv_mul(e, "s_di", howo4, sv_const((uint32_t)(i * DKB)));
                h_vadd(e, at(v_bpre, i * WB + j), sv_op(di), at(v_q, 0));
                sv_free(e, di);
            }
        }
        sv_free(e, hwts);
        rfree(e, v_bkkoff);
        rfree(e, v_q);
    }

    /* ---- LDS read addresses and accumulators ---- */
    opnd v_ard = vreg(e, "v_ard", 1, 1), v_brd = vreg(e, "v_brd", 1, 1), v_tm4 = vreg(e, "v_tm4", 1, 1);
    e_vop2(e, "v_and_b32", v_tm4, imm(TX - 1), v_tid);
    e_vop2(e, "v_lshlrev_b32", v_tm4, imm(2), v_tm4); /* tm*4: first row of the thread */
    e_vop2(e, "v_lshlrev_b32", v_ard, imm(2), v_tm4);
    if (w->a_lds)
        h_vadd(e, v_ard, imm(w->a_lds), v_ard);
    e_vop2(e, "v_lshrrev_b32", v_brd, imm(log2u((uint32_t)TX)), v_tid);
    e_vop2(e, "v_lshlrev_b32", v_brd, imm(4), v_brd); /* tn*4 floats */
    if (w->b_lds)
        h_vadd(e, v_brd, imm(w->b_lds), v_brd);
    opnd v_c = vreg(e, "v_c", TM * TN, 1);
    for (int i = 0; i < TM * TN; i++)
        h_vmov(e, at(v_c, i), imm(0));

    /* ---- the walk over taps and channel blocks ---- */
    opnd s_kb = sreg(e, "s_kb", 1, 1), s_xd = sreg(e, "s_xd", 1, 1), s_yd = sreg(e, "s_yd", 1, 1);
    opnd s_krem = sreg(e, "s_krem", 1, 1), s_iter = sreg(e, "s_iter", 1, 1), s_m = sreg(e, "s_m", 2, 2);
    sv fx4 = sv_shl(e, "s_fx4", a_fx, 2);
    sv a_ystep = sv_mul(e, "s_a_ystep", ARG(w, ytilda), fx4);
    sv_free(e, fx4);
    sv a_xstep = sv_shl(e, "s_a_xstep", ARG(w, xtilda), 2);
    sv xslice = a_xdot;

    /* tap (ydot, xdot): bases and which dy elements are inside */
#define SET_TAP()                                                                                                   \
    do {                                                                                                            \
        e_comment(e, "tap (ydot, xdot): A base = w base + ydot*ytilda*x*4 + xdot*xtilda*4, dy base moves back");   \
        e_sop2(e, "s_mul_i32", at(s_t, 0), s_yd, sv_op(a_ystep));                                                   \
        e_sop2(e, "s_mul_i32", at(s_t, 1), s_xd, sv_op(a_xstep));                                                   \
        e_sop2(e, "s_add_u32", at(s_t, 0), at(s_t, 0), at(s_t, 1));                                                  \
        e_sop2(e, "s_add_u32", at(s_rsa, 0), at(s_wbase, 0), at(s_t, 0));                                           \
        e_sop2(e, "s_addc_u32", at(s_rsa, 1), at(s_wbase, 1), imm(0));                                              \
        e_sop2(e, "s_mul_i32", at(s_t, 2), s_yd, sv_op(a_dh_step));                                           \
        e_sop2(e, "s_mul_i32", at(s_t, 3), s_xd, sv_op(a_dw_step));                                           \
        e_sop2(e, "s_mul_i32", at(s_t, 0), at(s_t, 2), sv_op(a_wo));                                                \
        e_sop2(e, "s_add_u32", at(s_t, 0), at(s_t, 0), at(s_t, 3));                                                  \
        e_sop2(e, "s_lshl_b32", at(s_t, 0), at(s_t, 0), imm(2));                                                    \
        e_sop2(e, "s_sub_u32", at(s_rsb, 0), at(s_dybase, 0), at(s_t, 0));                                          \
        e_sop2(e, "s_subb_u32", at(s_rsb, 1), at(s_dybase, 1), imm(0));                                             \
        for (int j = 0; j < WB; j++) {                                                                              \
            e_vop2(e, "v_subrev_u32", at(v_t, 0), at(s_t, 2), at(v_bht, j));                                        \
            e_vopc(e, "v_cmp_gt_u32", s_m, sv_sgpr(e, a_ho, at(s_t, 1)), at(v_t, 0));                              \
            e_vop2(e, "v_subrev_u32", at(v_t, 0), at(s_t, 3), at(v_bwt, j));                                        \
            e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(a_wo), at(v_t, 0));                                                \
            e_sop2(e, "s_and_b64", VCC, VCC, s_m);                                                                  \
            for (int i = 0; i < VB; i++)                                                                            \
                e_cndmask(e, at(v_boff, i * WB + j), v_inv, at(v_bpre, i * WB + j), VCC);                           \
        }                                                                                                           \
    } while (0)

    /* load the tile at the current (tap, channel block) into registers */
    opnd v_ga = vreg(e, "v_ga", VA * WA, 4), v_gb = vreg(e, "v_gb", VB * WB, 4);
#define LOAD_TILE()                                                                                                 \
    do {                                                                                                            \
        label l_part = e_label_new(e, "partial_k"), l_done = e_label_new(e, "loaded");                             \
        e_comment(e, "A rows past the channel block are past NUM_RECORDS = min(krem, KPB) * cg*y*x*4");           \
        e_sop2(e, "s_min_u32", at(s_t, 0), s_krem, imm(KPB));                                                       \
        e_sop2(e, "s_mul_i32", at(s_rsa, 2), at(s_t, 0), sv_op(cgyx4));                                              \
        for (int x = 0; x < VA * WA; x++)                                                                           \
            e_mubuf(e, "buffer_load_dword", at(v_ga, x), at(v_aoff, x), s_rsa, imm(0), 0);                          \
        e_sopc(e, "s_cmp_lt_u32", s_krem, imm(KPB));                                                                \
        e_branch(e, "s_cbranch_scc1", l_part);                                                                      \
        for (int x = 0; x < VB * WB; x++)                                                                           \
            e_mubuf(e, "buffer_load_dword", at(v_gb, x), at(v_boff, x), s_rsb, imm(0), 0);                          \
        e_branch(e, "s_branch", l_done);                                                                            \
        e_label(e, l_part);                                                                                         \
        e_comment(e, "last channel block of the tap: rows kk >= krem load nothing");                               \
        for (int i = 0; i < VB; i++) {                                                                              \
            e_sop2(e, "s_sub_u32", at(s_t, 1), s_krem, imm(i * DKB));                                               \
            e_vopc(e, "v_cmp_gt_i32", VCC, at(s_t, 1), v_bkk);                                                      \
            for (int j = 0; j < WB; j++) {                                                                          \
                e_cndmask(e, at(v_t, j % 4), v_inv, at(v_boff, i * WB + j), VCC);                                   \
                e_mubuf(e, "buffer_load_dword", at(v_gb, i * WB + j), at(v_t, j % 4), s_rsb, imm(0), 0);            \
            }                                                                                                       \
        }                                                                                                           \
        e_label(e, l_done);                                                                                         \
    } while (0)

    /* step to the next (tap, channel block) */
#define ADVANCE()                                                                                                   \
    do {                                                                                                            \
        label l_new = e_label_new(e, "new_tap"), l_row = e_label_new(e, "same_row"),                               \
              l_adone = e_label_new(e, "advanced");                                                                 \
        e_sop2(e, "s_add_u32", s_kb, s_kb, imm(1));                                                                 \
        e_sopc(e, "s_cmp_lt_u32", s_kb, sv_op(a_nkb));                                                              \
        e_branch(e, "s_cbranch_scc0", l_new);                                                                       \
        e_sop2(e, "s_add_u32", at(s_rsa, 0), at(s_rsa, 0), sv_op(a_kstep));                                         \
        e_sop2(e, "s_addc_u32", at(s_rsa, 1), at(s_rsa, 1), imm(0));                                                \
        e_sop2(e, "s_add_u32", at(s_rsb, 0), at(s_rsb, 0), sv_op(b_kstep));                                         \
        e_sop2(e, "s_addc_u32", at(s_rsb, 1), at(s_rsb, 1), imm(0));                                                \
        e_sop2(e, "s_sub_u32", s_krem, s_krem, imm(KPB));                                                           \
        e_branch(e, "s_branch", l_adone);                                                                           \
        e_label(e, l_new);                                                                                          \
        h_smov(e, s_kb, imm(0));                                                                                    \
        h_smov(e, s_krem, sv_op(a_kg));                                                                             \
        e_sop2(e, "s_add_u32", s_xd, s_xd, imm(1));                                                                 \
        e_sopc(e, "s_cmp_lt_u32", s_xd, sv_op(xslice));                                                             \
        e_branch(e, "s_cbranch_scc1", l_row);                                                                       \
        h_smov(e, s_xd, imm(0));                                                                                    \
        e_sop2(e, "s_add_u32", s_yd, s_yd, imm(1));                                                                 \
        e_label(e, l_row);                                                                                          \
        SET_TAP();                                                                                                  \
        e_label(e, l_adone);                                                                                        \
    } while (0)

    /* LDS writes of the loaded tile (addresses v_awr / v_bwr) */
#define WRITE_TILE()                                                                                                \
    do {                                                                                                            \
        for (int i = 0; i < VA; i++)                                                                                \
            e_ds(e, ds_width_op(WA, false), NOOP, v_awr, sub(v_ga, i * WA, WA), NOOP, i * DKA * MPB * 4, 0);       \
        for (int i = 0; i < VB; i++)                                                                                \
            e_ds(e, ds_width_op(WB, false), NOOP, v_bwr, sub(v_gb, i * WB, WB), NOOP, i * DKB * NPB * 4, 0);       \
    } while (0)

#define TOGGLE(v, size) e_vop2(e, "v_xor_b32", v, imm(size), v)

    /* the tile in registers -> LDS; unless it is the last (s_iter < 2), step
       the walk and fetch the next one; then point the LDS writes at the
       other buffer (and, in the loop, the reads at the one just written)
       and synchronise */
#define NEXT_TILE(hint, toggle_reads)                                                                               \
    do {                                                                                                            \
        e_waitcnt(e, 0, -1);                                                                                        \
        WRITE_TILE();                                                                                               \
        label l_nofetch = e_label_new(e, hint);                                                                     \
        e_sopc(e, "s_cmp_lt_u32", s_iter, imm(2));                                                                  \
        e_branch(e, "s_cbranch_scc1", l_nofetch);                                                                   \
        ADVANCE();                                                                                                  \
        LOAD_TILE();                                                                                                \
        e_label(e, l_nofetch);                                                                                      \
        if (toggle_reads) {                                                                                         \
            TOGGLE(v_ard, w->a_size);                                                                               \
            TOGGLE(v_brd, w->b_size);                                                                               \
        }                                                                                                           \
        TOGGLE(v_awr, w->a_size);                                                                                   \
        TOGGLE(v_bwr, w->b_size);                                                                                   \
        e_waitcnt(e, -1, 0);                                                                                        \
        e_sopp(e, "s_barrier", 0);                                                                                  \
    } while (0)

    e_comment(e, "prologue: tile 0 into LDS buffer 0, tile 1 in flight");
    h_smov(e, s_kb, imm(0));
    h_smov(e, s_xd, imm(0));
    h_smov(e, s_yd, imm(0));
    h_smov(e, s_krem, sv_op(a_kg));
    SET_TAP();
    LOAD_TILE();
    {
        sv taps = sv_mul(e, "s_taps", a_ydot, xslice);
        sv total = sv_mul(e, "s_total", taps, a_nkb);
        h_smov(e, s_iter, sv_op(total));
        sv_free(e, total);
        sv_free(e, taps);
    }
    NEXT_TILE("single_step", false);

    /* ---- main loop ---- */
    opnd v_la = vreg(e, "v_la", 2 * TM, 4), v_lb = vreg(e, "v_lb", 2 * TN, 4);
    label l_loop = e_label_new(e, "k_loop"), l_end = e_label_new(e, "k_loop_end");
    e_label(e, l_loop);
    e_symbol(e, "__kloop_begin_%s", name);
    int nreads = RM + RN;
#define LDS_READS(kk, set)                                                                                          \
    do {                                                                                                            \
        for (int r = 0; r < RM; r++)                                                                                \
            e_ds(e, "ds_read_b128", sub(v_la, (set) * TM + 4 * r, 4), v_ard, NOOP, NOOP,                            \
                 ((kk) * MPB + r * TX * 4) * 4, 0);                                                                 \
        for (int r = 0; r < RN; r++)                                                                                \
            e_ds(e, "ds_read_b128", sub(v_lb, (set) * TN + 4 * r, 4), v_brd, NOOP, NOOP,                            \
                 ((kk) * NPB + r * TY * 4) * 4, 0);                                                                 \
    } while (0)
    LDS_READS(0, 0);
    for (int kk = 0; kk < KPB; kk++) {
        int set = kk & 1;
        if (kk + 1 < KPB) {
            LDS_READS(kk + 1, set ^ 1);
            e_waitcnt(e, -1, nreads);
        } else {
            e_waitcnt(e, -1, 0);
        }
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++)
                e_vop2(e, "v_fmac_f32", at(v_c, i * TN + j), at(v_la, set * TM + i), at(v_lb, set * TN + j));
    }
    e_sop2(e, "s_sub_u32", s_iter, s_iter, imm(1));
    e_sopc(e, "s_cmp_eq_u32", s_iter, imm(0));
    e_branch(e, "s_cbranch_scc1", l_end);
    e_comment(e, "next tile: registers -> the other LDS buffer; fetch the one after");
    NEXT_TILE("no_fetch", true);
    e_branch(e, "s_branch", l_loop);
    e_symbol(e, "__kloop_end_%s", name);
    e_label(e, l_end);

    rfree(e, v_la);
    rfree(e, v_lb);
    rfree(e, v_ga);
    rfree(e, v_gb);
    rfree(e, v_aoff);
    rfree(e, v_bpre);
    rfree(e, v_boff);
    rfree(e, v_awr);
    rfree(e, v_bwr);
    rfree(e, v_bkk);
    rfree(e, v_ard);
    {
        sv loop_only[] = {yx, cgyx, yx4, cgyx4, howo, howo4, khowo4, a_kstep, b_kstep, a_ystep, a_xstep};
        for (size_t i = 0; i < sizeof loop_only / sizeof loop_only[0]; i++)
            sv_free(e, loop_only[i]);
        opnd loop_regs[] = {s_kb, s_xd, s_yd, s_krem, s_iter, s_rsa, s_rsb, s_wbase, s_dybase};
        for (size_t i = 0; i < sizeof loop_regs / sizeof loop_regs[0]; i++)
            rfree(e, loop_regs[i]);
    }

    /* ---- epilogue: C tile -> dx ---- */
    e_comment(e, "store: column j -> (image, hi, wi); row -> channel; pixels outside dx or past gemm_n are skipped");
    opnd v_coff = vreg(e, "v_coff", TN, 1);
    {
        opnd v_n = at(v_t, 0), v_img = at(v_t, 1), v_r = at(v_t, 2);
        opnd v_q = vreg(e, "v_q2", 2, 1);
        sv hiwi = sv_mul(e, "s_hiwi", a_hi, a_wi);
        sv hiwi4 = sv_shl(e, "s_hiwi4", hiwi, 2);
        sv chiwi4 = sv_mul(e, "s_chiwi4", a_c, hiwi4);
        sv hwts = sv_mul(e, "s_hwts", a_hts, a_wts);
        e_vop2(e, "v_lshrrev_b32", v_brd, imm(log2u((uint32_t)TX)), v_tid); /* v_brd now holds tn*4 */
        e_vop2(e, "v_lshlrev_b32", v_brd, imm(2), v_brd);
        sv a_sh = ARG(w, stride_h), a_sw = ARG(w, stride_w);
        /* per thread: the first row's offset tm*4*hi*wi*4, and the column constants */
        opnd v_rowoff = vreg(e, "v_rowoff", 1, 1), v_ch = vreg(e, "v_ch", 1, 1), v_cw = vreg(e, "v_cw", 1, 1);
        vx_mul(e, v_rowoff, v_tm4, hiwi4, at(s_t, 0));
        {
            sv th = sv_mul(e, "s_th", a_htl, a_sh), ch = sv_add(e, "s_ch", th, a_hoff);
            h_vmov(e, v_ch, sv_op(ch));
            sv_free(e, ch);
            sv_free(e, th);
            sv tw = sv_mul(e, "s_tw", a_wtl, a_sw), cw = sv_add(e, "s_cw", tw, a_woff);
            h_vmov(e, v_cw, sv_op(cw));
            sv_free(e, cw);
            sv_free(e, tw);
        }
        for (int j = 0; j < TN; j++) {
            opnd off = at(v_coff, j);
            h_vadd(e, v_n, imm((j / 4) * TY * 4 + j % 4), v_brd);
            h_vadd(e, v_n, sv_op(n0), v_n);
            vx_divmod(e, v_img, v_r, v_n, hwts, a_mdiv_hwts, a_shift_hwts, at(s_t, 0));
            vx_divmod(e, at(v_q, 0), at(v_q, 1), v_r, a_wts, a_mdiv_wts, a_shift_wts, at(s_t, 0));
            /* hi = hts_i * stride_h + (htl * stride_h + hi_off), all below 2^24 */
            vx_mad24(e, at(v_q, 0), at(v_q, 0), a_sh, v_ch, at(s_t, 0));
            vx_mad24(e, at(v_q, 1), at(v_q, 1), a_sw, v_cw, at(s_t, 0));
            e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(a_gemm_n), v_n);
            e_vopc(e, "v_cmp_gt_u32", s_m, sv_sgpr(e, a_hi, at(s_t, 1)), at(v_q, 0));
            e_sop2(e, "s_and_b64", VCC, VCC, s_m);
            e_vopc(e, "v_cmp_gt_u32", s_m, sv_sgpr(e, a_wi, at(s_t, 1)), at(v_q, 1));
            e_sop2(e, "s_and_b64", VCC, VCC, s_m);
            /* off = image*c*hi*wi*4 + (hi*wi_ + wi)*4 + tm*4*hi*wi*4 */
            vx_mad24(e, at(v_q, 0), at(v_q, 0), a_wi, at(v_q, 1), at(s_t, 0));
            e_vop2(e, "v_lshlrev_b32", at(v_q, 0), imm(2), at(v_q, 0));
            vx_mul(e, off, v_img, chiwi4, at(s_t, 0));
            h_vadd(e, off, off, at(v_q, 0));
            h_vadd(e, off, off, v_rowoff);
            e_cndmask(e, off, v_inv, off, VCC);
        }
        rfree(e, v_q);
        rfree(e, v_rowoff);
        rfree(e, v_ch);
        rfree(e, v_cw);
        sv_free(e, hwts);
        sv_free(e, chiwi4);

        opnd s_rsc = sreg(e, "s_rsc", 4, 4), s_dxbase = sreg(e, "s_dxbase", 2, 2), s_save = sreg(e, "s_save", 2, 2);
        rsrc_words(e, s_rsc, B_NUM_RECORDS);
        sv gcg = sv_mul(e, "s_gcg", g, a_cg);
        sv cm0 = sv_add(e, "s_cm0", gcg, m0);
        sv dxo = sv_mul(e, "s_dxo", cm0, hiwi4);
        ptr_add(e, s_dxbase, p_dx, dxo);
        sv_free(e, dxo);
        sv_free(e, cm0);
        sv_free(e, gcg);
        sv mlim = sv_sub(e, "s_mlim2", a_cg, m0);
        for (int i = 0; i < TM; i++) {
            int row = (i / 4) * TX * 4 + i % 4; /* row of this accumulator row relative to tm*4 */
            label l_skip = e_label_new(e, "row_done");
            e_sop2(e, "s_sub_u32", at(s_t, 0), sv_op(mlim), imm(row));
            e_vopc(e, "v_cmp_gt_i32", VCC, at(s_t, 0), v_tm4);
            e_sop1(e, "s_and_saveexec_b64", s_save, VCC);
            e_branch(e, "s_cbranch_execz", l_skip);
            e_sop2(e, "s_mul_i32", at(s_t, 1), sv_op(hiwi4), imm(row));
            e_sop2(e, "s_add_u32", at(s_rsc, 0), at(s_dxbase, 0), at(s_t, 1));
            e_sop2(e, "s_addc_u32", at(s_rsc, 1), at(s_dxbase, 1), imm(0));
            for (int j = 0; j < TN; j++)
                e_mubuf(e, "buffer_store_dword", at(v_c, i * TN + j), at(v_coff, j), s_rsc, imm(0), 0);
            e_label(e, l_skip);
            h_smov(e, EXEC, s_save);
        }
        sv_free(e, mlim);
        sv_free(e, hiwi4);
        sv_free(e, hiwi);
        rfree(e, s_rsc);
        rfree(e, s_dxbase);
        rfree(e, s_save);
    }
    rfree(e, v_coff);
    rfree(e, v_brd);
    rfree(e, v_c);
    rfree(e, v_tm4);
    rfree(e, v_bht);
    rfree(e, v_bwt);
    rfree(e, v_t);
    rfree(e, v_inv);
    /* release the remaining scalar values and registers */
    sv rest[] = {m0, n0, g};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        sv_free(e, rest[i]);
    opnd regs[] = {s_m, s_t, w->s_args, v_tid, s_bx, s_ka};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        rfree(e, regs[i]);
    e_kernel_end(e);
}
