/* LDS visibility tracking between the waves of a workgroup (lds.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lds.h"

/* Sequence numbers are 31 bits; a context restarts them (clearing the
 * tables) at a workgroup start once they pass this. */
#define LDS_SEQ_RESTART (1u << 30)

int lds_track_alloc(wg_ctx *c, size_t dwords, int nwaves)
{
    c->lds_nw = nwaves > 0 ? nwaves : 1;
    c->lw_seq = calloc(dwords, sizeof *c->lw_seq);
    c->lw_pc = calloc(dwords, sizeof *c->lw_pc);
    c->lw_wave = calloc(dwords, 1);
    c->lr = calloc(dwords * (size_t)c->lds_nw, sizeof *c->lr);
    c->lds_dwords = dwords;
    return c->lw_seq && c->lw_pc && c->lw_wave && c->lr ? 0 : -1;
}

void lds_track_free(wg_ctx *c)
{
    free(c->lw_seq);
    free(c->lw_pc);
    free(c->lw_wave);
    free(c->lr);
}

/* Empty wave i's write and read ranges (lds_quiet_at) once every access
 * they summarize lies within its horizon. */
static void lds_ranges_clear(wg_ctx *c, int i, bool writes, bool reads)
{
    if (writes)
        lds_span_clear(&c->lds_w[i]);
    if (reads)
        lds_span_clear(&c->lds_r[i]);
}

void lds_track_begin(wg_ctx *c)
{
    if (c->lds_seq >= LDS_SEQ_RESTART) {
        memset(c->lw_seq, 0, c->lds_dwords * sizeof *c->lw_seq);
        memset(c->lr, 0, c->lds_dwords * (size_t)c->lds_nw * sizeof *c->lr);
        memset(c->lds_wmax, 0, sizeof c->lds_wmax);
        memset(c->lds_rmax, 0, sizeof c->lds_rmax);
        c->lds_seq = 0;
    }
    c->lds_barrier_seq = c->lds_seq;
    for (int i = 0; i < MAX_WAVES; i++) {
        c->lds_vis[i] = c->lds_seq;
        lds_ranges_clear(c, i, true, true);
    }
}

void lds_track_barrier(wg_ctx *c)
{
    for (int i = 0; i < c->nwaves; i++) {
        const wave *w = &c->waves[i];
        uint32_t vis = c->lds_seq;
        for (int j = 0; j < w->lq_n; j++)
            if (!w->lq[j].smem) { /* LDS retires in order: the first is the oldest */
                vis = w->lq[j].seq - 1;
                break;
            }
        c->lds_vis[i] = vis;
        lds_ranges_clear(c, i, c->lds_wmax[i] <= vis, c->lds_rmax[i] <= vis);
    }
    c->lds_barrier_seq = c->lds_seq;
}

uint32_t lds_track_next(wg_ctx *c, wave *w)
{
    if (c->lds_seq >= LDS_SEQ_MASK - 1) {
        emu_fault(c, w, "more than 2^31 LDS instructions in one workgroup");
        return 0;
    }
    return ++c->lds_seq;
}

int lds_race(wg_ctx *c, wave *w, uint32_t dw, int kind, bool other_wrote, uint32_t other_seq, int other_wave,
             int32_t other_pc)
{
    const char *what = kind == LDS_READ ? "reads" : kind == LDS_WRITE ? "writes" : "atomically updates";
    const char *did = !other_wrote ? "read" : other_seq & LDS_SEQ_ATOMIC ? "updated atomically" : "wrote";
    char text[128] = "?";
    unsigned long long pc = 0;
    if (other_pc >= 0 && other_pc < c->k->ninsts) {
        emu_disasm(&c->k->code[other_pc], text, sizeof text);
        pc = (unsigned long long)c->k->code[other_pc].pc;
    }
    if ((other_seq & LDS_SEQ_MASK) > c->lds_barrier_seq)
        return emu_fault(c, w, "LDS race: %s 0x%x, which wave %d %s since the last s_barrier (pc 0x%llx `%s`)", what,
                         dw * 4, other_wave, did, pc, text);
    return emu_fault(c, w,
                     "LDS race: %s 0x%x, which wave %d %s at pc 0x%llx `%s` before the last s_barrier without "
                     "retiring it first (s_waitcnt lgkmcnt): the barrier does not order it",
                     what, dw * 4, other_wave, did, pc, text);
}
