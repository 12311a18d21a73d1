/* v4r1 K walk: the prologue, the double-buffered main loop and the advance
 * between steps.
 *
 * Pipeline: the next tile is fetched from global memory into registers
 * while the current one is multiplied out of LDS (the math strategy's
 * slice); LDS is double buffered with one s_barrier per step. */
#include "kw.h"

/* Step to the next (tap, channel block). */
static void advance(v4r1_kw *w)
{
    emit *e = w->e;
    opnd s_kb = w->s_kb, s_krem = w->s_krem, s_xd = w->s_xd, s_yd = w->s_yd;
    label l_new = e_label_new(e, "new_tap"), l_row = e_label_new(e, "same_row"), l_adone = e_label_new(e, "advanced");
    e_sop2(e, "s_add_u32", s_kb, s_kb, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_kb, sv_op(w->a_nkb));
    e_branch(e, "s_cbranch_scc0", l_new);
    e_sop2(e, "s_add_u32", at(w->s_rsa, 0), at(w->s_rsa, 0), sv_op(w->a_kstep));
    e_sop2(e, "s_addc_u32", at(w->s_rsa, 1), at(w->s_rsa, 1), imm(0));
    e_sop2(e, "s_add_u32", at(w->s_rsb, 0), at(w->s_rsb, 0), sv_op(w->b_kstep));
    e_sop2(e, "s_addc_u32", at(w->s_rsb, 1), at(w->s_rsb, 1), imm(0));
    e_sop2(e, "s_sub_u32", s_krem, s_krem, imm(w->kpb));
    e_branch(e, "s_branch", l_adone);
    e_label(e, l_new);
    h_smov(e, s_kb, imm(0));
    h_smov(e, s_krem, sv_op(w->a_kn));
    e_sop2(e, "s_add_u32", s_xd, s_xd, imm(1));
    e_sopc(e, "s_cmp_lt_u32", s_xd, sv_op(w->a_xdot));
    e_branch(e, "s_cbranch_scc1", l_row);
    h_smov(e, s_xd, imm(0));
    e_sop2(e, "s_add_u32", s_yd, s_yd, imm(1));
    e_label(e, l_row);
    v4r1_set_tap(w);
    e_label(e, l_adone);
}

/* The tile in registers -> LDS; unless it is the last (s_iter < 2), step
 * the walk and fetch the next one; then point the LDS writes at the other
 * buffer (and, in the loop, the reads at the one just written) and
 * synchronise. */
static void next_tile(v4r1_kw *w, const char *hint, bool toggle_reads)
{
    emit *e = w->e;
    e_waitcnt(e, 0, -1);
    v4r1_write_tile(w);
    label l_nofetch = e_label_new(e, hint);
    e_sopc(e, "s_cmp_lt_u32", w->s_iter, imm(2));
    e_branch(e, "s_cbranch_scc1", l_nofetch);
    advance(w);
    v4r1_load_tile(w);
    e_label(e, l_nofetch);
    if (toggle_reads)
        w->math->toggle_reads(w);
    v4r1_toggle_writes(w);
    e_waitcnt(e, -1, 0);
    e_sopp(e, "s_barrier", 0);
}

void v4r1_walk(v4r1_kw *w)
{
    emit *e = w->e;
    w->s_kb = sreg(e, "s_kb", 1, 1), w->s_xd = sreg(e, "s_xd", 1, 1), w->s_yd = sreg(e, "s_yd", 1, 1);
    w->s_krem = sreg(e, "s_krem", 1, 1), w->s_iter = sreg(e, "s_iter", 1, 1), w->s_m = sreg(e, "s_m", 2, 2);
    sv fx4 = sv_mul(e, "s_fx4", w->a_fx, w->a_tapunit);
    w->a_ystep = sv_mul(e, "s_a_ystep", V4R1_ARG(w, ytilda), fx4);
    sv_free(e, fx4);
    w->a_xstep = sv_mul(e, "s_a_xstep", V4R1_ARG(w, xtilda), w->a_tapunit);
    v4r1_staging_alloc(w);

    /* an empty phase (no filter tap: v4r1_zeros_inside) has no K to walk:
       its workgroups store the zeroed accumulators, their tile of dx's
       zeros. Its taps are known where a static twin's one phase is known */
    sv taps = sv_mul(e, "s_taps", w->a_ydot, w->a_xdot);
    label l_empty = {0};
    bool may_be_empty = !taps.known || !taps.k;
    if (may_be_empty) {
        l_empty = e_label_new(e, "empty_phase");
        e_comment(e, "an empty phase: no K, only the stores of its zeros");
        e_sopc(e, "s_cmp_eq_u32", sv_op(taps), imm(0));
        e_branch(e, "s_cbranch_scc1", l_empty);
    }
    e_comment(e, "prologue: tile 0 into LDS buffer 0, tile 1 in flight");
    h_smov(e, w->s_kb, imm(0));
    h_smov(e, w->s_xd, imm(0));
    h_smov(e, w->s_yd, imm(0));
    h_smov(e, w->s_krem, sv_op(w->a_kn));
    v4r1_set_tap(w);
    v4r1_load_tile(w);
    sv total = sv_mul(e, "s_total", taps, w->a_nkb);
    h_smov(e, w->s_iter, sv_op(total));
    sv_free(e, total);
    sv_free(e, taps);
    next_tile(w, "single_step", false);

    /* ---- main loop ---- */
    w->math->loop_alloc(w);
    label l_loop = e_label_new(e, "k_loop"), l_end = e_label_new(e, "k_loop_end");
    e_label(e, l_loop);
    e_symbol(e, "__kloop_begin_%s", w->name);
    w->math->slice(w);
    e_sop2(e, "s_sub_u32", w->s_iter, w->s_iter, imm(1));
    e_sopc(e, "s_cmp_eq_u32", w->s_iter, imm(0));
    e_branch(e, "s_cbranch_scc1", l_end);
    e_comment(e, "next tile: registers -> the other LDS buffer; fetch the one after");
    next_tile(w, "no_fetch", true);
    e_branch(e, "s_branch", l_loop);
    e_symbol(e, "__kloop_end_%s", w->name);
    e_label(e, l_end);
    if (may_be_empty)
        e_label(e, l_empty);

    w->math->loop_free(w);
    v4r1_staging_free(w);
    sv loop_only[] = {w->yx,        w->cgyx,      w->yx_bytes,    w->cgyx_bytes, w->howo,
                      w->howo_bytes, w->khowo_bytes, w->a_kstep, w->b_kstep,    w->a_ystep,
                      w->a_xstep,    w->a_mstride, w->a_tapunit, w->b_rowstride, w->b_pix,
                      w->a_kn,       w->a_nkb};
    for (size_t i = 0; i < sizeof loop_only / sizeof loop_only[0]; i++)
        sv_free(e, loop_only[i]);
    opnd loop_regs[] = {w->s_kb, w->s_xd, w->s_yd, w->s_krem, w->s_iter, w->s_rsa, w->s_rsb, w->s_wbase, w->s_dybase};
    for (size_t i = 0; i < sizeof loop_regs / sizeof loop_regs[0]; i++)
        rfree(e, loop_regs[i]);
}
