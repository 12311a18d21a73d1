/* v4r1 K walk: the prologue, the double-buffered main loop and the advance
 * between steps.
 *
 * Pipeline: the next tile is fetched from global memory into registers
 * while the current one is multiplied out of LDS (the math strategy's
 * slice); LDS is double buffered with one s_barrier per step. Which buffer
 * a step reads and which it writes is known where the code is emitted
 * (w->rd_buf, w->wr_buf: the ds instructions' offsets say it), so the
 * main loop is unrolled to a multiple of two copies and swapping the
 * buffers costs no instruction (a lone wave issues every instruction of
 * its step in order: docs/KERNELS.md, "Tiles in flight"). A walk
 * with D tiles in flight (v4r1_in_flight: the configuration's, 3 for the
 * MFMA tiles) keeps the loads of the D tiles after the one being multiplied
 * outstanding, each in its own register set: a tile's loads have D slices
 * to land instead of one, and the wait for the next tile lets the loads of
 * the ones after it stay in flight. At batch 8 a CU holds one or two
 * workgroups, so nothing else hides the loads' latency (docs/KERNELS.md,
 * "Tiles in flight"). */
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

/* Until the tile about to be written has landed. The k tiles after it
 * that the walk has (s_iter counts the tiles from this one; up to
 * v4r1_in_flight - 1 of them) may stay outstanding: their loads are the
 * last issued, at least v4r1_tile_min_loads each. */
static void wait_tile(v4r1_kw *w)
{
    emit *e = w->e;
    const int ahead = v4r1_in_flight(w);
    for (int k = 0; k + 1 < ahead; k++) {
        /* fewer than k + 1 tiles after it: at most k of them in flight */
        label l_more = e_label_new(e, "later_in_flight");
        e_sopc(e, "s_cmp_lt_u32", w->s_iter, imm(k + 2));
        e_branch(e, "s_cbranch_scc0", l_more);
        e_waitcnt(e, k * v4r1_tile_min_loads(w), -1);
        e_label(e, l_more);
    }
    e_waitcnt(e, (ahead - 1) * v4r1_tile_min_loads(w), -1);
}

/* Swap the LDS write buffer (and, in the loop, the read buffer: the one
 * just written) and synchronise. */
static void swap_buffers(v4r1_kw *w, bool swap_reads)
{
    if (swap_reads)
        w->rd_buf ^= 1;
    w->wr_buf ^= 1;
    e_waitcnt(w->e, -1, 0);
    e_sopp(w->e, "s_barrier", 0);
}

/* The prologue's: the tile in register set `set` -> LDS; unless the walk
 * has no tile v4r1_in_flight steps after it (s_iter <= v4r1_in_flight),
 * step the walk and fetch that one into the same set. */
static void first_tile(v4r1_kw *w, int set)
{
    emit *e = w->e;
    wait_tile(w);
    v4r1_use_set(w, set);
    v4r1_write_tile(w);
    label l_nofetch = e_label_new(e, "single_step");
    e_sopc(e, "s_cmp_lt_u32", w->s_iter, imm(v4r1_in_flight(w) + 1));
    e_branch(e, "s_cbranch_scc1", l_nofetch);
    advance(w);
    v4r1_load_tile(w);
    e_label(e, l_nofetch);
    swap_buffers(w, false);
}

/* A loop copy's last steps (s_iter <= v4r1_in_flight: fewer tiles in
 * flight after this one, none to fetch), out of line after the loop: the
 * copy's register set and LDS write buffer, and where it goes back to. */
typedef struct {
    label at, back;
    int set, wr_buf;
} tail_step;

/* The loop's: in the steady state (the walk has the tile v4r1_in_flight
 * steps after this one) the next tile's in_flight - 1 successors stay in
 * flight, so one test sends the last steps out of line (tail_tile) and the
 * rest wait, write the tile in register set `set` to LDS, step the walk and
 * fetch into the same set. */
static void next_tile(v4r1_kw *w, int set, tail_step *tail)
{
    emit *e = w->e;
    const int ahead = v4r1_in_flight(w);
    *tail = (tail_step){e_label_new(e, "last_steps"), e_label_new(e, "tile_written"), set, w->wr_buf};
    e_sopc(e, "s_cmp_lt_u32", w->s_iter, imm(ahead + 1));
    e_branch(e, "s_cbranch_scc1", tail->at);
    e_waitcnt(e, (ahead - 1) * v4r1_tile_min_loads(w), -1);
    v4r1_use_set(w, set);
    v4r1_write_tile(w);
    v4r1_load_tile(w); /* at the bases the slice advanced to (v4r1_walk) */
    e_label(e, tail->back);
    swap_buffers(w, true);
}

/* A copy's last steps, out of line: wait for the tiles still outstanding
 * (wait_tile), write the tile to the copy's write buffer, fetch nothing,
 * and go back into the copy. (It leaves v_ga/v_gb at its register set:
 * nothing after the loop reads them.) */
static void tail_tile(v4r1_kw *w, const tail_step *t)
{
    const int wr_buf = w->wr_buf;
    e_label(w->e, t->at);
    wait_tile(w);
    v4r1_use_set(w, t->set);
    w->wr_buf = t->wr_buf;
    v4r1_write_tile(w);
    w->wr_buf = wr_buf;
    e_branch(w->e, "s_branch", t->back);
}

void v4r1_walk(v4r1_kw *w)
{
    emit *e = w->e;
    w->s_kb = sreg(e, "s_kb", 1, 1), w->s_xd = sreg(e, "s_xd", 1, 1), w->s_yd = sreg(e, "s_yd", 1, 1);
    w->s_krem = sreg(e, "s_krem", 1, 1), w->s_iter = sreg(e, "s_iter", 1, 1), w->s_m = sreg(e, "s_m", 2, 2);
    w->a_ystep = V4R1_ARG(w, w_ystep), w->a_xstep = V4R1_ARG(w, w_xstep);
    v4r1_staging_alloc(w);

    /* an empty phase (no filter tap: v4r1_zeros_inside) has no K to walk:
       its workgroups store the zeroed accumulators, their tile of dx's
       zeros. Its K steps (the phase table's, taps times K blocks) are known
       where a static twin's one phase is known */
    sv steps = w->a_steps;
    label l_empty = {0};
    bool may_be_empty = !steps.known || !steps.k;
    if (may_be_empty) {
        l_empty = e_label_new(e, "empty_phase");
        e_comment(e, "an empty phase: no K, only the stores of its zeros");
        e_sopc(e, "s_cmp_eq_u32", sv_op(steps), imm(0));
        e_branch(e, "s_cbranch_scc1", l_empty);
    }
    if (v4r1_in_flight(w) == 1)
        e_comment(e, "prologue: tile 0 into LDS buffer 0, tile 1 in flight");
    else
        e_comment(e, "prologue: tile 0 into LDS buffer 0, tiles 1 .. %d in flight", v4r1_in_flight(w));
    h_smov(e, w->s_kb, imm(0));
    h_smov(e, w->s_xd, imm(0));
    h_smov(e, w->s_yd, imm(0));
    h_smov(e, w->s_krem, sv_op(w->a_kn));
    v4r1_set_first_tap(w);
    v4r1_load_tile(w);
    if (w->math->late_setup)
        w->math->late_setup(w);
    h_smov(e, w->s_iter, sv_op(steps));
    const int ahead = v4r1_in_flight(w);
    w->rd_buf = w->wr_buf = 0;
    for (int k = 1; k < ahead; k++) {
        e_comment(e, "tile %d in flight into register set %d (when the walk has it)", k, k);
        label l_short = e_label_new(e, "short_walk");
        e_sopc(e, "s_cmp_lt_u32", w->s_iter, imm(k + 1));
        e_branch(e, "s_cbranch_scc1", l_short);
        advance(w);
        v4r1_use_set(w, k);
        v4r1_load_tile(w);
        e_label(e, l_short);
    }
    first_tile(w, 0);

    /* ---- main loop: tile t is in register set t % v4r1_in_flight and
       LDS buffer t % 2, so the loop is unrolled lcm(in_flight, 2) times
       and every copy knows both ---- */
    const int copies = ahead % 2 ? 2 * ahead : ahead;
    tail_step tails[2 * V4R1_MAX_SETS];
    w->math->loop_alloc(w);
    label l_loop = e_label_new(e, "k_loop"), l_end = e_label_new(e, "k_loop_end");
    e_label(e, l_loop);
    e_symbol(e, "__kloop_begin_%s", w->name);
    for (int h = 0; h < copies; h++) {
        /* the step to the next fetch's tile, inside the slice, where a lone
           wave would wait for its first fragments: the tile written next
           is in registers already, and the last steps (no fetch) step past
           the walk's end harmlessly (bases and masks, no access) */
        w->slice_fill = advance;
        w->math->slice(w);
        w->slice_fill = NULL;
        e_sop2(e, "s_sub_u32", w->s_iter, w->s_iter, imm(1));
        e_sopc(e, "s_cmp_eq_u32", w->s_iter, imm(0));
        e_branch(e, "s_cbranch_scc1", l_end);
        e_comment(e, "next tile: registers -> the other LDS buffer; fetch the one after");
        next_tile(w, (h + 1) % ahead, &tails[h]);
    }
    e_branch(e, "s_branch", l_loop);
    for (int h = 0; h < copies; h++)
        tail_tile(w, &tails[h]);
    e_symbol(e, "__kloop_end_%s", w->name);
    e_label(e, l_end);
    if (may_be_empty)
        e_label(e, l_empty);

    w->math->loop_free(w);
    v4r1_staging_free(w);
    sv loop_only[] = {w->a_kstep, w->b_kstep, w->a_kn, w->a_nkb};
    for (size_t i = 0; i < sizeof loop_only / sizeof loop_only[0]; i++)
        sv_free(e, loop_only[i]);
    opnd loop_regs[] = {w->s_kb, w->s_xd, w->s_yd, w->s_krem, w->s_iter, w->s_rsa, w->s_rsb, w->s_wbase, w->s_dybase};
    for (size_t i = 0; i < sizeof loop_regs / sizeof loop_regs[0]; i++)
        rfree(e, loop_regs[i]);
}
