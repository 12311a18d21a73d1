/* LDS visibility between the waves of a workgroup (lds.c).
 *
 * The rule: an LDS access of one wave is ordered before another wave's
 * access when it has retired (the s_waitcnt lgkmcnt that covers it has run)
 * and then an s_barrier that both waves pass separates them. Every LDS
 * instruction gets a sequence number (wg_ctx.lds_seq); at each barrier,
 * wave w's visible horizon lds_vis[w] becomes the number of its oldest LDS
 * operation still outstanding, minus one (or the current number when none
 * is). Per dword the tracker keeps the last write (sequence number, wave,
 * instruction) and, per wave, the last read; an access races when
 *   - it reads (or writes) a dword whose last write is another wave's and
 *     lies beyond that wave's horizon, or
 *   - it writes a dword another wave read beyond that wave's horizon.
 * LDS atomics of different waves do not race with each other, only with
 * plain accesses (an entry keeps LDS_SEQ_ATOMIC while only atomics touched
 * it beyond the horizon). Sequence numbers keep counting across the
 * workgroups a context runs, so the tables need no clearing: each workgroup
 * starts with every horizon at the current number. */
#ifndef IGEMM_EMU_LDS_H
#define IGEMM_EMU_LDS_H

#include "emu_int.h"

enum { LDS_READ, LDS_WRITE, LDS_ATOMIC };
#define LDS_SEQ_ATOMIC 0x80000000u
#define LDS_SEQ_MASK 0x7fffffffu

int lds_track_alloc(wg_ctx *c, size_t dwords, int nwaves);
void lds_track_free(wg_ctx *c);
/* A new workgroup: everything before is ordered. */
void lds_track_begin(wg_ctx *c);
/* Every wave has arrived at an s_barrier (or ended): advance the horizons. */
void lds_track_barrier(wg_ctx *c);
/* A new LDS instruction's sequence number; 0 after a fault (too many). */
uint32_t lds_track_next(wg_ctx *c, wave *w);

/* The report of a race on dword dw (lds.c). other_seq is the conflicting
 * entry, other_pc its instruction, other its wave. */
int lds_race(wg_ctx *c, wave *w, uint32_t dw, int kind, bool other_wrote, uint32_t other_seq, int other_wave,
             int32_t other_pc);

static inline void lds_span_clear(lds_span *s)
{
    s->lo[0] = s->lo[1] = UINT32_MAX;
    s->hi[0] = s->hi[1] = 0;
}

/* Does span s hold a dword of [lo, hi]? */
static inline bool lds_span_meets(const lds_span *s, uint32_t lo, uint32_t hi)
{
    return (s->lo[0] <= hi && lo <= s->hi[0]) || (s->lo[1] <= hi && lo <= s->hi[1]);
}

/* Add [lo, hi] (dword indices, below 2^31) to span s: into the interval it
 * overlaps or adjoins, else into an unused one, else into the interval
 * whose hull grows least; two intervals that come to meet become one. */
static inline void lds_span_add(lds_span *s, uint32_t lo, uint32_t hi)
{
    int i = 0;
    if (!(s->lo[0] <= hi + 1 && lo <= s->hi[0] + 1)) {
        if (s->lo[1] <= hi + 1 && lo <= s->hi[1] + 1)
            i = 1;
        else if (s->lo[0] > s->hi[0] || s->lo[1] > s->hi[1]) {
            int u = s->lo[0] > s->hi[0] ? 0 : 1;
            s->lo[u] = lo;
            s->hi[u] = hi;
            return;
        } else {
            uint32_t g0 = (lo < s->lo[0] ? s->lo[0] - lo : 0) + (hi > s->hi[0] ? hi - s->hi[0] : 0);
            uint32_t g1 = (lo < s->lo[1] ? s->lo[1] - lo : 0) + (hi > s->hi[1] ? hi - s->hi[1] : 0);
            i = g1 < g0;
        }
    }
    s->lo[i] = lo < s->lo[i] ? lo : s->lo[i];
    s->hi[i] = hi > s->hi[i] ? hi : s->hi[i];
    int j = !i;
    if (s->lo[j] <= s->hi[j] && s->lo[j] <= s->hi[i] + 1 && s->lo[i] <= s->hi[j] + 1) {
        s->lo[i] = s->lo[j] < s->lo[i] ? s->lo[j] : s->lo[i];
        s->hi[i] = s->hi[j] > s->hi[i] ? s->hi[j] : s->hi[i];
        s->lo[j] = UINT32_MAX;
        s->hi[j] = 0;
    }
}

/* A write (or atomic) and a read (or atomic) of dwords [first, last] by
 * wave me's LDS instruction seq, in the per-wave horizons' summaries. */
static inline void lds_note_write(wg_ctx *c, int me, uint32_t first, uint32_t last, uint32_t seq)
{
    c->lds_wmax[me] = seq;
    lds_span_add(&c->lds_w[me], first, last);
}
static inline void lds_note_read(wg_ctx *c, int me, uint32_t first, uint32_t last, uint32_t seq)
{
    c->lds_rmax[me] = seq;
    lds_span_add(&c->lds_r[me], first, last);
}
/* An access of `kind` (an atomic is both) in the summaries: after
 * lds_track or lds_record, by the caller, once per access or once for a
 * whole instruction's range. */
static inline void lds_note(wg_ctx *c, int me, int kind, uint32_t first, uint32_t last, uint32_t seq)
{
    if (kind != LDS_READ)
        lds_note_write(c, me, first, last, seq);
    if (kind != LDS_WRITE)
        lds_note_read(c, me, first, last, seq);
}

/* Check and record an access of `kind` to dwords [first, last] by wave w's
 * LDS instruction seq (the summaries: lds_note). Returns 0, or -1 after a
 * report. */
static inline int lds_track(wg_ctx *c, wave *w, uint32_t first, uint32_t last, int kind, uint32_t seq)
{
    int me = w->id, nw = c->lds_nw;
    int32_t pc = w->pc;
    uint32_t atom = kind == LDS_ATOMIC ? LDS_SEQ_ATOMIC : 0;
    for (uint32_t dw = first; dw <= last; dw++) {
        uint32_t ws = c->lw_seq[dw];
        int wv = c->lw_wave[dw];
        if (wv != me && (ws & LDS_SEQ_MASK) > c->lds_vis[wv] && !(atom && (ws & LDS_SEQ_ATOMIC)))
            return lds_race(c, w, dw, kind, true, ws, wv, c->lw_pc[dw]);
        emu_lds_read *rs = &c->lr[(size_t)dw * (size_t)nw];
        /* other waves' reads: a write conflicts with plain reads and (plain)
           with atomics; a plain read with atomics, which only matter while
           the last write is an atomic (a later plain write checked them) */
        if (kind != LDS_READ || (ws & LDS_SEQ_ATOMIC))
            for (int r = 0; r < nw; r++) {
                uint32_t x = rs[r].seq;
                bool conflict = kind == LDS_WRITE || (kind == LDS_READ ? (x & LDS_SEQ_ATOMIC) : !(x & LDS_SEQ_ATOMIC));
                if (r != me && conflict && (x & LDS_SEQ_MASK) > c->lds_vis[r])
                    return lds_race(c, w, dw, kind, (x & LDS_SEQ_ATOMIC) != 0, x, r, rs[r].pc);
            }
        if (kind != LDS_READ) {
            /* an atomic does not hide this wave's own plain write beyond the horizon */
            bool keep_plain = atom && wv == me && !(ws & LDS_SEQ_ATOMIC) && (ws & LDS_SEQ_MASK) > c->lds_vis[me];
            c->lw_seq[dw] = seq | (keep_plain ? 0 : atom);
            c->lw_wave[dw] = (uint8_t)me;
            c->lw_pc[dw] = pc;
        }
        if (kind != LDS_WRITE) {
            bool keep_plain = atom && !(rs[me].seq & LDS_SEQ_ATOMIC) && (rs[me].seq & LDS_SEQ_MASK) > c->lds_vis[me];
            rs[me] = (emu_lds_read){seq | (keep_plain ? 0 : atom), pc};
        }
    }
    return 0;
}

/* Whether no plain access of `kind` by wave `me` to dwords within [lo, hi]
 * can race now: every other wave's writes and atomics (and, for a write,
 * also its reads) lie within that wave's horizon or outside [lo, hi] (its
 * spans), so
 * lds_track would find nothing on any of those dwords. Then lds_record
 * does its bookkeeping alone. */
static inline bool lds_quiet_at(const wg_ctx *c, int me, int kind, uint32_t lo, uint32_t hi)
{
    for (int r = 0; r < c->lds_nw; r++) {
        if (r == me)
            continue;
        if (c->lds_wmax[r] > c->lds_vis[r] && lds_span_meets(&c->lds_w[r], lo, hi))
            return false;
        if (kind == LDS_WRITE && c->lds_rmax[r] > c->lds_vis[r] && lds_span_meets(&c->lds_r[r], lo, hi))
            return false;
    }
    return true;
}
/* lds_track's bookkeeping of a plain read or write when lds_quiet_at holds
 * (the summaries: lds_note). */
static inline void lds_record(wg_ctx *c, const wave *w, uint32_t first, uint32_t last, int kind, uint32_t seq)
{
    int me = w->id, nw = c->lds_nw;
    int32_t pc = w->pc;
    if (kind == LDS_WRITE) {
        for (uint32_t dw = first; dw <= last; dw++) {
            c->lw_seq[dw] = seq;
            c->lw_wave[dw] = (uint8_t)me;
            c->lw_pc[dw] = pc;
        }
    } else {
        for (uint32_t dw = first; dw <= last; dw++) {
            c->lr[(size_t)dw * (size_t)nw + (size_t)me] = (emu_lds_read){seq, pc};
        }
    }
}

#endif
