/* v4r1 setup: kernel arguments, workgroup -> (phase, group, m tile, n
 * tile), sizes, tensor bases of the workgroup and the buffer resources. */
#include <stddef.h>

#include "../kern.h"
#include "kw.h"

sv v4r1_arg(v4r1_kw *w, const char *name, size_t offset, uint32_t static_value)
{
    if (w->st)
        return sv_const(static_value);
    return sv_reg(alias(w->e, name, at(w->s_args, (int)(offset / 4))));
}

void v4r1_ptr_add(emit *e, opnd dst, opnd ptr, sv off)
{
    e_sop2(e, "s_add_u32", at(dst, 0), at(ptr, 0), sv_op(off));
    e_sop2(e, "s_addc_u32", at(dst, 1), at(ptr, 1), imm(0));
}

void v4r1_smul(emit *e, opnd d, opnd a, sv s)
{
    if (s.known && is_pow2(s.k))
        e_sop2(e, "s_lshl_b32", d, a, imm(log2u(s.k)));
    else
        e_sop2(e, "s_mul_i32", d, a, sv_op(s));
}

void v4r1_rsrc_words(emit *e, opnd rs, uint32_t num_records)
{
    h_smov(e, at(rs, 2), imm(num_records));
    h_smov(e, at(rs, 3), imm(e->t->buffer_rsrc_word3));
}

/* The kernel's argument metadata: the static twin takes only pointers. */
static void declare_args(v4r1_kw *w)
{
    emit *e = w->e;
    if (w->st) {
#define KARG_STRUCT igemm_static_args
        IGEMM_STATIC_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
    } else {
#define KARG_STRUCT igemm_v4r1_args
        IGEMM_V4R1_ARGS(KARG_DECLARE)
#undef KARG_STRUCT
        e_karg(e, "phases", (int)offsetof(igemm_v4r1_args, ph), (int)sizeof(((igemm_v4r1_args *)0)->ph), false,
               false);
        e_karg(e, "nonfinite", (int)offsetof(igemm_v4r1_args, nf), (int)sizeof(igemm_nonfinite_args), false, false);
    }
}

/* Block id -> phase and its row of the phase table (w's offset of the
 * phase's first tap, which only the w base needs, into *tap_off; the
 * row's split into *split); returns the block's index within the phase. */
static sv decode_phase(v4r1_kw *w, int ph_at, sv *tap_off, sv *split)
{
    emit *e = w->e;
    const igemm_v4r1_args *st = w->st;
    e_comment(e, "block id -> phase (every phase has the same number of workgroups) and its row of the table");
    sv phase, lbx;
    sv_divmod(e, "s_phase", "s_lbx", sv_reg(w->s_bx), V4R1_ARG(w, wgs), V4R1_ARG(w, mdiv_wgs),
              V4R1_ARG(w, shift_wgs), &phase, &lbx);
    sv ph[PH_WORDS];
    opnd s_ph = sub(w->s_args, ph_at, PH_WORDS);
    if (!st) {
        /* row 0 came with the header (v4r1_setup); another phase's row is a
           second load (a launch of one phase never waits for it) */
        label l_row = e_label_new(e, "phase_row");
        e_sopc(e, "s_cmp_eq_u32", phase.r, imm(0));
        e_branch(e, "s_cbranch_scc1", l_row);
        e_sop2(e, "s_lshl_b32", at(w->s_t, 0), phase.r, imm(5));
        e_sop2(e, "s_add_u32", at(w->s_t, 0), at(w->s_t, 0), imm((int)offsetof(igemm_v4r1_args, ph)));
        e_smem_soff(e, "s_load_dwordx8", s_ph, w->s_ka, at(w->s_t, 0));
        e_waitcnt(e, -1, 0);
        e_label(e, l_row);
        for (int f = 0; f < PH_WORDS; f++)
            ph[f] = sv_reg(at(s_ph, f));
    } else if (w->nph == 1) {
        for (int f = 0; f < PH_WORDS; f++)
            ph[f] = sv_const(st->ph[0][f]);
    } else {
        /* the static twin selects its phase's constants without branches */
        for (int f = 0; f < PH_WORDS; f++) {
            h_smov(e, at(s_ph, f), imm(st->ph[0][f]));
            ph[f] = sv_reg(at(s_ph, f));
        }
        for (int p = 1; p < w->nph; p++) {
            e_sopc(e, "s_cmp_eq_u32", sv_op(phase), imm(p));
            for (int f = 0; f < PH_WORDS; f++)
                if (st->ph[p][f] != st->ph[0][f])
                    e_sop2(e, "s_cselect_b32", at(s_ph, f), imm(st->ph[p][f]), at(s_ph, f));
        }
    }
    sv_free(e, phase);
    sv a_tap = ph[PH_WOFF];
    w->a_steps = ph[PH_STEPS], w->a_xdot = ph[PH_XDOT];
    w->a_hoff = ph[PH_HI_OFF], w->a_woff = ph[PH_WI_OFF];
    w->a_guard = ph[PH_GUARD];
    if (!st || w->nph > 1) {
        a_tap.r = alias(e, "s_tap_off", a_tap.r), w->a_steps.r = alias(e, "s_steps", w->a_steps.r);
        w->a_xdot.r = alias(e, "s_xdot_slice", w->a_xdot.r);
        w->a_hoff.r = alias(e, "s_hi_off", w->a_hoff.r), w->a_woff.r = alias(e, "s_wi_off", w->a_woff.r);
    }
    *tap_off = a_tap;
    *split = ph[PH_SPLIT];
    return lbx;
}

/* Block in phase -> n tile, m tile, group; the tile's first row and column. */
static void decode_tile(v4r1_kw *w, sv lbx)
{
    emit *e = w->e;
    e_comment(e, "block in phase -> n tile, m tile, group");
    sv bid_q, n_tile, m_tile;
    sv_divmod(e, "s_bq", "s_ntile", lbx, V4R1_ARG(w, n_tiles), V4R1_ARG(w, mdiv_ntiles), V4R1_ARG(w, shift_ntiles),
              &bid_q, &n_tile);
    sv_free(e, lbx);
    sv_divmod(e, "s_g", "s_mtile", bid_q, V4R1_ARG(w, m_tiles), V4R1_ARG(w, mdiv_mtiles), V4R1_ARG(w, shift_mtiles),
              &w->g, &m_tile);
    sv_free(e, bid_q);
    w->m0 = sv_shl(e, "s_m0", m_tile, log2u((uint32_t)w->mpb));
    w->n0 = sv_shl(e, "s_n0", n_tile, log2u((uint32_t)w->npb));
    sv_free(e, m_tile);
    sv_free(e, n_tile);
}

/* A split kernel's range (cfg->ksplit): K channels k0 = split * ks_chunk
 * on of each group, a_kn = min(Kg - k0, ks_chunk) of them in
 * ceil(a_kn / KPB) steps per tap, the partial sums to the workspace slice
 * p_dx + split * ks_slice; returns k0 (0 when unsplit: a_kn = Kg). */
static sv split_range(v4r1_kw *w, sv split)
{
    emit *e = w->e;
    if (!w->cfg->ksplit) {
        w->a_kn = sv_borrow(w->a_kg);
        return sv_const(0);
    }
    e_comment(e, "split: K channels [split * ks_chunk, + min(kg - that, ks_chunk)); dx: the split's workspace slice");
    sv chunk = V4R1_ARG(w, ks_chunk);
    sv k0 = sv_mul(e, "s_k0", split, chunk);
    sv left = sv_sub(e, "s_kleft", w->a_kg, k0);
    /* in place of arguments the kernel is done with (no SGPR more through
       the loop): kn over ks_chunk, its steps over nkb */
    w->a_kn = sv_borrow(chunk);
    e_sop2(e, "s_min_u32", w->a_kn.r, sv_op(left), sv_op(chunk));
    sv_free(e, left);
    e_sop2(e, "s_add_u32", w->a_nkb.r, w->a_kn.r, imm(w->kpb - 1));
    e_sop2(e, "s_lshr_b32", w->a_nkb.r, w->a_nkb.r, imm(log2u((uint32_t)w->kpb)));
    sv off = sv_mul(e, "s_ws_off", split, V4R1_ARG(w, ks_slice));
    v4r1_ptr_add(e, w->p_dx, w->p_dx, off);
    sv_free(e, off);
    return k0;
}

/* w base: p_w + (g*kg + k0)*w_sk + m0*a_mstride + the phase's tap offset;
 * dy base: p_dy + (g*kg + k0)*b_rowstride (the layout's strides) */
static void tensor_bases(v4r1_kw *w, sv a_tap, sv k0)
{
    emit *e = w->e;
    e_comment(e, "%s", w->lay->w_base_note(w));
    w->s_wbase = sreg(e, "s_wbase", 2, 2), w->s_dybase = sreg(e, "s_dybase", 2, 2);
    sv gk0 = sv_mul(e, "s_gk", w->g, w->a_kg);
    sv gk = sv_add(e, "s_gk0", gk0, k0); /* gk0 itself when unsplit */
    sv t1 = sv_mul(e, "s_t1", gk, w->w_sk);
    sv t2 = sv_mul(e, "s_t2", w->m0, w->a_mstride);
    sv t3 = sv_add(e, "s_t3", t1, t2);
    sv t7 = sv_add(e, "s_t7", t3, a_tap);
    v4r1_ptr_add(e, w->s_wbase, w->p_w, t7);
    sv u1 = sv_mul(e, "s_u1", gk, w->b_rowstride);
    v4r1_ptr_add(e, w->s_dybase, w->p_dy, u1);
    sv tmp[] = {u1, t7, t3, t2, t1, gk, gk0};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++)
        sv_free(e, tmp[i]);
}

void v4r1_setup(v4r1_kw *w)
{
    emit *e = w->e;
    const v4r1_config *cfg = w->cfg;
    e_kernel_begin(e, w->name, w->block);
    declare_args(w);
    e_kernel_lds(e, cfg->lds_bytes);
    e_comment(e, "v4r1 bwd-data, %s: tile %dx%dx%d, %d threads as %dx%d, thread tile %dx%d, A %dx%d B %dx%d loads",
              w->st ? "static" : "dynamic", w->mpb, w->npb, w->kpb, w->block, w->tx, w->ty, w->tm, w->tn, w->va,
              w->wa, w->vb, w->wb);

    w->s_ka = sreg_fixed(e, "s_karg", 0, 2), w->s_bx = sreg_fixed(e, "s_bx", 2, 1);
    /* the scalar arguments, and room after them (4-aligned) for this
       workgroup's row of the phase table */
    int nargs = w->st ? (int)(sizeof(igemm_static_args) / 4) : (int)(offsetof(igemm_v4r1_args, ph) / 4);
    int ph_at = (nargs + 3) / 4 * 4;
    w->s_args = sreg(e, "s_args", ph_at + PH_WORDS, 4);
    h_load_kargs(e, w->s_ka, w->s_args, 0, nargs);
    if (!w->st) /* and phase 0's row of the table (decode_phase) */
        h_load_kargs(e, w->s_ka, sub(w->s_args, ph_at, PH_WORDS), (int)offsetof(igemm_v4r1_args, ph), PH_WORDS);
    w->p_dx = alias(e, "s_p_dx", sub(w->s_args, 0, 2));
    w->p_dy = alias(e, "s_p_dy", sub(w->s_args, 2, 2));
    w->p_w = alias(e, "s_p_w", sub(w->s_args, 4, 2));
    w->v_tid = h_workitem_id(e);
    w->s_t = sreg(e, "s_t", 4, 2);
    e_waitcnt(e, -1, 0);

    w->a_cg = V4R1_ARG(w, cg), w->a_kg = V4R1_ARG(w, kg), w->a_fx = V4R1_ARG(w, fx), w->a_fy = V4R1_ARG(w, fy);
    w->a_k = V4R1_ARG(w, k), w->a_ho = V4R1_ARG(w, ho), w->a_wo = V4R1_ARG(w, wo), w->a_hi = V4R1_ARG(w, hi);
    w->a_wi = V4R1_ARG(w, wi), w->a_c = V4R1_ARG(w, c), w->a_nkb = V4R1_ARG(w, nkb);
    w->a_gemm_n = V4R1_ARG(w, gemm_n), w->a_hts = V4R1_ARG(w, hts), w->a_wts = V4R1_ARG(w, wts);
    w->a_mdiv_hwts = V4R1_ARG(w, mdiv_hwts), w->a_shift_hwts = V4R1_ARG(w, shift_hwts);
    w->a_mdiv_wts = V4R1_ARG(w, mdiv_wts), w->a_shift_wts = V4R1_ARG(w, shift_wts);
    w->a_htl = V4R1_ARG(w, htl), w->a_wtl = V4R1_ARG(w, wtl), w->a_dh_step = V4R1_ARG(w, dh_step);
    w->a_dw_step = V4R1_ARG(w, dw_step);

    sv a_tap, a_split;
    decode_tile(w, decode_phase(w, ph_at, &a_tap, &a_split));
    sv k0 = split_range(w, a_split);

    e_comment(e, "byte strides (arguments: the host computes them)");
    w->w_sk = V4R1_ARG(w, w_sk), w->dy_sn = V4R1_ARG(w, dy_sn);
    /* the layout's strides (layout.c says which) */
    w->lay->strides(w, sv_const((uint32_t)w->dt->bytes));
    w->a_kstep = sv_mul(e, "s_a_kstep", w->w_sk, sv_const((uint32_t)w->kpb));
    w->b_kstep = sv_mul(e, "s_b_kstep", w->b_rowstride, sv_const((uint32_t)w->kpb));

    tensor_bases(w, a_tap, k0);
    sv_free(e, k0);
    w->s_rsa = sreg(e, "s_rsa", 4, 4), w->s_rsb = sreg(e, "s_rsb", 4, 4);
    v4r1_rsrc_words(e, w->s_rsb, V4R1_OPEN_RECORDS);
    h_smov(e, at(w->s_rsa, 3), imm(e->t->buffer_rsrc_word3));

    w->v_inv = vreg(e, "v_inv", 1, 1);
    h_vmov(e, w->v_inv, imm(V4R1_INVALID_OFFSET));
    w->v_t = vreg(e, "v_t", 4, 1);
}
