/* The CU model: replays the traced waves of the workgroups one CU runs
 * (docs/TIMING.md "The model").
 *
 * Workgroups are dispatched in order while the CU has room (wave slots per
 * SIMD, LDS, barrier slots: tm_occupancy); a workgroup's waves go to the
 * SIMDs with the most free slots. SIMD s gets its issue turn every 4th
 * cycle (cycles = s mod 4); in a turn it issues, oldest wave first, at most
 * one instruction of each type (VALU, MFMA, SALU/SMEM, VMEM, LDS, branch)
 * and at most one per wave; internal instructions (s_waitcnt, s_nop,
 * s_barrier, s_endpgm, s_setprio) take no issue slot. A wave issues in
 * order and waits until:
 *   - its sources are ready: VALU results after the op's cycles (4 for
 *     wave64 on 16 lanes, 8 for 64-bit, 16 for quarter rate), MFMA results
 *     after its passes x 4, SALU after lat_salu, loads when they return;
 *   - its unit is free: a VALU op holds the SIMD's VALU for its cycles, an
 *     MFMA the SIMD's matrix unit for passes x 4 cycles (and the VALU issue
 *     port for 4), while other instructions keep issuing;
 *   - s_waitcnt: the counted operations have returned (in issue order);
 *   - s_barrier: every wave of its workgroup has arrived;
 *   - s_nop N: N + 1 issue turns have passed.
 * Memory: LDS is one pipe per CU of lds_bytes_per_clk; vector memory goes
 * through the CU's L1 path (l1_bytes_per_clk), then its share of L2 and,
 * for misses and every store, of HBM; an operation returns after its
 * latency or when its bytes are through the busiest of those servers,
 * whichever is later. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

#define NSLOT 640     /* s0..s127, v0..v255, a0..a255 */
#define QCAP 64
#define NEVER 1e300

enum { U_VALU, U_MFMA, U_SALU, U_VMEM, U_LDS, U_BRANCH, U_INTERNAL };

typedef struct {
    emu_trace *tr;
    uint32_t i;
    int simd, wg, wid;       /* its SIMD, its workgroup's slot, its index in the workgroup */
    bool live, barrier;
    bool used;               /* held by a workgroup that has not finished */
    double next;             /* earliest issue (one per turn, s_nop) */
    double earliest;         /* lower bound of the next issue, for the clock skip */
    double vm[QCAP], lg[QCAP];
    int vm_h, vm_n, lg_h, lg_n;
    double vm_last, lg_last;
    double ready[NSLOT];
} twave;

typedef struct {
    int waves[16], nwaves, done, arrived;
    bool live;
    int index;               /* workgroup number in the CU's list */
    double last;             /* latest completion of its operations */
} twg;

typedef struct {
    const tm_machine *m;
    twave *w;                /* [max waves on the CU] */
    int nw;
    int *order, norder;      /* live waves, oldest first */
    twg *g;
    int ng, max_live_wg, live_wg, lds_used;
    int slots[4];            /* free wave slots per SIMD */
    double valu[4], mfma[4], vmem[4];
    double lds, l1, l2, hbm, miss_acc;
    double busy_valu[4], busy_mfma[4], busy_lds, busy_l1, busy_l2, busy_hbm;
    double end;
} cu_state;

static int slot_of(unsigned code)
{
    if (code < 128)
        return (int)code;
    if (code >= R_V0 && code < R_A0 + 256)
        return (int)code - 128;
    return -1;
}

static int unit_of(const emu_inst *in)
{
    switch (in->cls) {
    case EC_VALU: case EC_VALU_FMA: case EC_VALU_TRANS: case EC_VALU_64: return U_VALU;
    case EC_MFMA: return U_MFMA;
    case EC_SALU: case EC_SMEM: return U_SALU;
    case EC_VMEM_LOAD: case EC_VMEM_STORE: return in->fmt == F_DS ? U_LDS : U_VMEM;
    case EC_DS: return U_LDS;
    case EC_BRANCH: return U_BRANCH;
    default: return U_INTERNAL;
    }
}

static double dmax(double a, double b) { return a > b ? a : b; }

/* x mod 4 for 0 <= x < 2^53, exactly fmod(x, 4.0) (x / 4 is exact, its
 * truncation is its floor) without libm's general fmod, which the issue
 * loop calls every cycle. */
static double mod4(double x) { return x - 4.0 * (double)(int64_t)(x * 0.25); }

/* ceil(t) for 0 <= t < 2^53 (the truncation is the floor), without the
 * libm call that x86-64's baseline needs for it. */
static double ceil_time(double t)
{
    double c = (double)(int64_t)t;
    return c < t ? c + 1 : c;
}

/* The next cycle >= t that is SIMD s's turn. */
static double turn_at(double t, int s)
{
    double c = ceil_time(t);
    double r = mod4(c - s + 4); /* c - s >= -3; the same residue */
    return r ? c + 4 - r : c;
}

static void q_pop_done(double *q, int *h, int *n, double t)
{
    while (*n && q[*h] <= t) {
        *h = (*h + 1) % QCAP;
        (*n)--;
    }
}

/* Time when at most keep of the queue's operations remain outstanding. */
static double q_wait(const double *q, int h, int n, int keep)
{
    if (n <= keep)
        return 0;
    return q[(h + n - keep - 1) % QCAP];
}

static void q_push(double *q, int *h, int *n, double *last, double ret)
{
    ret = dmax(ret, *last); /* returns in issue order */
    *last = ret;
    if (*n == QCAP) {      /* cannot happen: issue stalls at the counter's maximum */
        *h = (*h + 1) % QCAP;
        (*n)--;
    }
    q[(*h + (*n)++) % QCAP] = ret;
}

/* Earliest cycle the wave's next instruction may issue, ignoring the turn. */
static double ready_at(const cu_state *c, const twave *w, const emu_inst *in, int u)
{
    double e = w->next;
    for (int i = 0; i < in->nrd; i++)
        for (int j = 0; j < in->rdw[i]; j++) {
            int s = slot_of(in->rd[i] + (unsigned)j);
            if (s >= 0)
                e = dmax(e, w->ready[s]);
        }
    switch (u) {
    case U_VALU: e = dmax(e, c->valu[w->simd]); break;
    case U_MFMA: e = dmax(e, dmax(c->mfma[w->simd], c->valu[w->simd])); break;
    case U_VMEM: e = dmax(e, c->vmem[w->simd]); break;
    default: break;
    }
    if (in->op == OP_S_WAITCNT) {
        unsigned v = (uint16_t)in->simm16;
        int vm = (int)((v & 15) | ((v >> 14) & 3) << 4), lgkm = (int)((v >> 8) & 15);
        e = dmax(e, q_wait(w->vm, w->vm_h, w->vm_n, vm));
        e = dmax(e, q_wait(w->lg, w->lg_h, w->lg_n, lgkm));
    } else if (u == U_VMEM) {
        e = dmax(e, q_wait(w->vm, w->vm_h, w->vm_n, 62)); /* vmcnt saturates at 63 */
    } else if (u == U_LDS || in->cls == EC_SMEM) {
        e = dmax(e, q_wait(w->lg, w->lg_h, w->lg_n, 14)); /* lgkmcnt at 15 */
    }
    return e;
}

static void set_ready(twave *w, const emu_inst *in, double at)
{
    for (int i = 0; i < in->nwr; i++)
        for (int j = 0; j < in->wrw[i]; j++) {
            int s = slot_of(in->wr[i] + (unsigned)j);
            if (s >= 0)
                w->ready[s] = at;
        }
}

/* A vector memory operation issued at t touching n lines with cache
 * outcome out (TM_OUT_*): its return cycle. The address path takes a
 * line per line_bytes / l1_bytes_per_clk cycles (a cycle per line), the
 * CU's L2 share the L2 requests (atomics twice: read-modify-write), its
 * HBM share the misses and the store's share of write-backs. A load
 * returns after lat_l1 when every line hit L1, lat_hbm when one missed
 * L2 (cold misses count by the share that goes to HBM, spread evenly),
 * else lat_l2; stores and atomics after lat_l2 at least. */
static double vmem_op(cu_state *c, const emu_inst *in, double t, uint32_t n, uint32_t out)
{
    const tm_machine *m = c->m;
    const timing_facts *f = &m->t->tm;
    double line = f->line_bytes, req = TM_OUT_REQ(out);
    bool load = in->is_load && !in->is_atomic;
    double miss = TM_OUT_CAP(out) + TM_OUT_COLD(out) * m->cold_hbm;
    double l1 = (n ? n : 1) * line / f->l1_bytes_per_clk;
    double l2 = (in->is_atomic ? 2 : 1) * req * line / m->l2_rate;
    double hbm = (miss + (load ? 0 : n * m->store_hbm)) * line / m->hbm_rate;
    c->l1 = dmax(t, c->l1) + l1;
    c->l2 = dmax(t, c->l2) + l2;
    c->hbm = dmax(t, c->hbm) + hbm;
    c->busy_l1 += l1;
    c->busy_l2 += l2;
    c->busy_hbm += hbm;
    double lat = load && !req ? f->lat_l1 : f->lat_l2;
    if (load || in->is_atomic) {
        c->miss_acc += miss;
        if (c->miss_acc >= 1.0 - 1e-9) {
            c->miss_acc -= c->miss_acc < 1.0 ? c->miss_acc : 1.0;
            lat = f->lat_hbm;
        }
    }
    return dmax(t + lat, dmax(c->l1, dmax(c->l2, c->hbm)));
}

static void finish_wg(cu_state *c, twg *g, double t, tm_cu_result *r)
{
    for (int i = 0; i < g->nwaves; i++) {
        twave *w = &c->w[g->waves[i]];
        g->last = dmax(g->last, dmax(w->vm_last, w->lg_last));
        c->slots[w->simd]++;
        w->live = w->used = false;
    }
    g->last = dmax(g->last, t);
    r->wg_end[g->index] = g->last;
    c->end = dmax(c->end, g->last);
    c->lds_used -= c->m->occ.lds_alloc;
    c->live_wg--;
    g->live = false;
}

/* Once every wave of g has arrived at the barrier or ended, the waiting
 * ones go on from the next cycle. */
static void release_barrier(cu_state *c, twg *g, double t)
{
    if (!g->arrived || g->arrived + g->done < g->nwaves)
        return;
    g->arrived = 0;
    for (int i = 0; i < g->nwaves; i++) {
        twave *o = &c->w[g->waves[i]];
        if (o->barrier) {
            o->barrier = false;
            o->next = dmax(o->next, t + 1);
            o->earliest = o->next;
        }
    }
}

/* Issue in (the wave's next instruction) at cycle t. */
static void issue(cu_state *c, twave *w, const emu_inst *in, int u, double t, tm_cu_result *r)
{
    const timing_facts *f = &c->m->t->tm;
    twg *g = &c->g[w->wg];
    if (c->m->timeline) {
        char text[160];
        emu_disasm(in, text, sizeof text);
        fprintf(c->m->timeline, "%.0f %d %d %d 0x%llx %s\n", t, g->index, w->wid, w->simd,
                (unsigned long long)in->pc, text);
    }
    const uint32_t *words = &w->tr->e[++w->i]; /* a memory instruction's words (timing.h) */
    if (emu_trace_is_mem(in))
        w->i += in->fmt == F_DS ? 1 : 2 + 2 * (words[0] & 0xffff);
    w->next = u == U_INTERNAL ? t : t + 4;
    double done = t;
    switch (u) {
    case U_VALU:
        c->valu[w->simd] = t + in->cycles;
        c->busy_valu[w->simd] += in->cycles;
        set_ready(w, in, t + in->cycles);
        break;
    case U_MFMA: {
        double cyc = 4.0 * in->mfma_passes;
        c->mfma[w->simd] = t + cyc;
        c->valu[w->simd] = dmax(c->valu[w->simd], t + 4);
        c->busy_mfma[w->simd] += cyc;
        set_ready(w, in, t + cyc);
        done = t + cyc;
        break;
    }
    case U_SALU:
        if (in->cls == EC_SMEM) {
            q_pop_done(w->lg, &w->lg_h, &w->lg_n, t);
            q_push(w->lg, &w->lg_h, &w->lg_n, &w->lg_last, t + f->lat_smem);
            set_ready(w, in, w->lg_last);
        } else {
            set_ready(w, in, t + f->lat_salu);
        }
        break;
    case U_VMEM: {
        c->vmem[w->simd] = t + 4;
        q_pop_done(w->vm, &w->vm_h, &w->vm_n, t);
        q_push(w->vm, &w->vm_h, &w->vm_n, &w->vm_last, vmem_op(c, in, t, words[0] & 0xffff, words[1]));
        if (in->is_load || in->nwr)
            set_ready(w, in, w->vm_last);
        break;
    }
    case U_LDS: {
        double cyc = words[0] & 0xffff; /* the bank model's cycles (timing_trace.c) */
        c->lds = dmax(t, c->lds) + cyc;
        c->busy_lds += cyc;
        q_pop_done(w->lg, &w->lg_h, &w->lg_n, t);
        q_push(w->lg, &w->lg_h, &w->lg_n, &w->lg_last, dmax(t + f->lat_lds, c->lds));
        set_ready(w, in, w->lg_last);
        break;
    }
    default:
        break;
    }
    c->end = dmax(c->end, done);
    if (in->op == OP_S_NOP)
        w->next = t + 4.0 * ((in->simm16 & 15) + 1);
    else if (in->op == OP_S_WAITCNT) {
        q_pop_done(w->vm, &w->vm_h, &w->vm_n, t);
        q_pop_done(w->lg, &w->lg_h, &w->lg_n, t);
    } else if (in->op == OP_S_BARRIER) {
        w->barrier = true;
        g->arrived++;
        release_barrier(c, g, t);
    }
    if (in->op == OP_S_ENDPGM || w->i >= w->tr->n) {
        w->live = false;
        g->done++;
        /* waves waiting at a barrier are released when the rest have ended */
        release_barrier(c, g, t);
        if (g->done == g->nwaves)
            finish_wg(c, g, t, r);
    }
}

/* Drop the waves that have ended from the age order. */
static void compact_order(cu_state *c)
{
    int k = 0;
    for (int i = 0; i < c->norder; i++)
        if (c->w[c->order[i]].live)
            c->order[k++] = c->order[i];
    c->norder = k;
}

/* Dispatch the next workgroups that fit, at cycle t. */
static void dispatch(cu_state *c, emu_trace *const *traces, int nwg, int *next, double t, tm_cu_result *r)
{
    const tm_machine *m = c->m;
    int nwaves = m->nwaves;
    while (*next < nwg && c->live_wg < m->occ.max_wg && c->lds_used + m->occ.lds_alloc <= m->t->lds_bytes) {
        int place[16], free_[4];
        memcpy(free_, c->slots, sizeof free_);
        bool ok = true;
        for (int i = 0; i < nwaves && ok; i++) {
            int best = 0;
            for (int s = 1; s < 4; s++)
                if (free_[s] > free_[best])
                    best = s;
            ok = free_[best] > 0;
            place[i] = best;
            free_[best]--;
        }
        if (!ok)
            return;
        int gi = 0;
        while (c->g[gi].live)
            gi++;
        twg *g = &c->g[gi];
        memset(g, 0, sizeof *g);
        g->live = true;
        g->nwaves = nwaves;
        g->index = *next;
        for (int i = 0; i < nwaves; i++) {
            int wi = 0;
            while (c->w[wi].used)
                wi++;
            twave *w = &c->w[wi];
            memset(w, 0, offsetof(twave, ready));
            for (int s = 0; s < NSLOT; s++)
                w->ready[s] = 0;
            w->tr = traces[(size_t)*next * (size_t)nwaves + (size_t)i];
            w->simd = place[i];
            w->wg = gi;
            w->wid = i;
            w->live = w->tr->n > 0;
            w->used = true;
            w->next = w->earliest = t;
            g->waves[i] = wi;
            c->order[c->norder++] = wi;
            if (!w->live)
                g->done++;
        }
        memcpy(c->slots, free_, sizeof free_);
        c->live_wg++;
        c->lds_used += m->occ.lds_alloc;
        (*next)++;
        if (g->done == g->nwaves)
            finish_wg(c, g, t, r);
    }
}

int tm_simulate_cu(const tm_machine *m, emu_trace *const *traces, int nwg, tm_cu_result *r)
{
    cu_state c = {.m = m};
    int maxw = m->t->simds_per_cu * m->occ.waves_per_simd;
    c.w = calloc((size_t)maxw, sizeof *c.w);
    c.g = calloc((size_t)m->occ.max_wg, sizeof *c.g);
    c.order = calloc((size_t)maxw, sizeof *c.order);
    if (!c.w || !c.g || !c.order) {
        free(c.w);
        free(c.g);
        free(c.order);
        return -1;
    }
    c.nw = maxw;
    for (int s = 0; s < 4; s++)
        c.slots[s] = m->occ.waves_per_simd;
    const emu_inst *code = m->k->code;
    int next = 0;
    double t = 0;
    dispatch(&c, traces, nwg, &next, t, r);
    while (c.live_wg || next < nwg) {
        int s = (int)mod4(t);
        unsigned used = 0;
        /* oldest first: c.order holds the live waves in dispatch order */
        for (int oi = 0; oi < c.norder; oi++) {
            twave *w = &c.w[c.order[oi]];
            if (!w->live || w->simd != s || w->barrier || w->earliest > t)
                continue;
            /* issue what this wave can this turn (internal ones do not end it) */
            for (;;) {
                const emu_inst *in = &code[w->tr->e[w->i] & ((1u << EMU_TRACE_PC_BITS) - 1)];
                int u = unit_of(in);
                double e = ready_at(&c, w, in, u);
                if (e > t) {
                    w->earliest = e;
                    break;
                }
                if (u != U_INTERNAL && (used >> u & 1)) {
                    w->earliest = t + 4;
                    break;
                }
                if (u != U_INTERNAL)
                    used |= 1u << u;
                issue(&c, w, in, u, t, r);
                if (!w->live || w->barrier) {
                    w->earliest = NEVER;
                    break;
                }
                if (w->next > t) {
                    w->earliest = w->next;
                    break;
                }
            }
        }
        compact_order(&c);
        dispatch(&c, traces, nwg, &next, t + 1, r);
        /* the next cycle any wave may issue at */
        double tn = NEVER;
        for (int oi = 0; oi < c.norder; oi++) {
            twave *x = &c.w[c.order[oi]];
            if (x->live && !x->barrier) {
                double e = turn_at(dmax(x->earliest, t + 1), x->simd);
                if (e < tn)
                    tn = e;
            }
        }
        if (tn >= NEVER) /* nothing can issue: every live wave waits at a barrier (not in a complete trace) */
            break;
        t = tn;
    }
    c.end = dmax(c.end, dmax(c.l1, dmax(c.l2, dmax(c.hbm, c.lds))));
    r->end = c.end;
    double bv = 0, bm = 0;
    for (int s = 0; s < 4; s++) {
        bv = dmax(bv, c.busy_valu[s]);
        bm = dmax(bm, c.busy_mfma[s]);
    }
    r->busy[EL_COMPUTE] = bv;
    r->busy[EL_MATRIX] = bm;
    r->busy[EL_LDS] = c.busy_lds;
    r->busy[EL_MEMORY] = dmax(c.busy_l1, dmax(c.busy_l2, c.busy_hbm));
    free(c.w);
    free(c.g);
    free(c.order);
    return 0;
}
