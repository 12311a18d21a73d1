/* The timing model of a launch (docs/TIMING.md): which workgroups are
 * traced, the launch's machine (bandwidth shares, L2 miss share), the
 * sampled CUs' simulations (timing_cu.c), extrapolation and the device's
 * bandwidth bounds.
 *
 * Workgroups go to CUs round-robin in dispatch order: with A = min(CUs,
 * workgroups) active CUs, CU c runs workgroups c, c + A, c + 2A, ... Up to
 * TM_SAMPLE_CUS CUs spread over the active ones are simulated (CU 0, which
 * has the most workgroups, always); of each, `cap` workgroups (at least 4 x
 * what it holds at once): all of them when it has no more, else windows of
 * `win` consecutive workgroups (what it holds at once) spread evenly over
 * its sequence, the first window at its start and the last at its end. A
 * launch's workgroups are not alike (a multi-phase plan's phases run one
 * after another in the grid: the GEMM phases first, then the phases that
 * only write zeros), so the first `cap` alone would stand for phase 0 only.
 * A CU with more workgroups is extrapolated from the rate of its simulated
 * workgroups after the first window (the ramp).
 * The launch takes as long as its slowest sampled CU, or as the device's
 * L2 and HBM need for all the launch's lines, whichever is longer.
 *
 * Memory traffic: the cache pass (timing_cache.c) runs the sampled waves'
 * lines through the L1s and the L2; the launch's traffic is the sample's
 * scaled by workgroups (launches / sampled), except that cold L2 misses
 * are at most the lines of the buffers the sample read (each read from
 * HBM once: the unsampled workgroups share lines with the sampled ones)
 * and write-backs at most the lines of the buffers it wrote. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

#define TM_SAMPLE_CUS 4
#define TM_MAX_TRACED_WG 512
#define TM_TRACE_BUDGET ((size_t)512 << 20) /* bytes of traces per launch */

const char *const emu_limit_names[EL_COUNT] = {
    [EL_COMPUTE] = "compute", [EL_MATRIX] = "matrix", [EL_LDS] = "LDS", [EL_MEMORY] = "memory",
    [EL_LATENCY] = "latency",
};

struct emu_timing {
    emu_device *d;
    const emu_kernel *k;
    uint64_t nwg;
    int nwaves;
    tm_occupancy occ;
    uint64_t active;          /* CUs with work */
    int ns;                   /* sampled CUs */
    uint64_t cu[TM_SAMPLE_CUS];
    uint64_t cap;             /* traced workgroups per sampled CU */
    uint64_t win;             /* consecutive workgroups per traced window (when a CU has more than cap) */
    emu_trace *tr;            /* [ns][cap][nwaves] */
    emu_trace **ptr;          /* the same as pointers, for tm_simulate_cu */
    atomic_size_t bytes;      /* trace memory in use */
    bool bad;                 /* not timeable (occupancy) */
};

int emu_num_cu(const emu_device *d) { return d->opt.num_cu > 0 ? d->opt.num_cu : d->t->num_cu; }
double emu_clock_ghz(const emu_device *d) { return d->opt.clock_ghz > 0 ? d->opt.clock_ghz : d->t->clock_ghz; }

emu_limit emu_model_limit(uint64_t cycles, const uint64_t busy[EL_LATENCY])
{
    int best = 0;
    for (int i = 1; i < EL_LATENCY; i++)
        if (busy[i] > busy[best])
            best = i;
    return busy[best] * 2 > cycles ? (emu_limit)best : EL_LATENCY;
}

void emu_trace_grow(emu_trace *t)
{
    if (t->failed)
        return;
    uint32_t cap = t->cap ? t->cap * 2 : 4096;
    size_t add = (size_t)(cap - t->cap) * sizeof *t->e;
    size_t was = atomic_fetch_add(&t->owner->bytes, add);
    uint32_t *e = was + add <= TM_TRACE_BUDGET && cap > t->cap ? realloc(t->e, (size_t)cap * sizeof *e) : NULL;
    if (!e) {
        t->failed = true;
        return;
    }
    t->e = e;
    t->cap = cap;
}

/* The number of workgroups CU c runs. */
static uint64_t cu_count(const emu_timing *tm, uint64_t c) { return (tm->nwg - c + tm->active - 1) / tm->active; }

emu_timing *emu_timing_begin(emu_device *d, const emu_kernel *k, uint64_t nwg, int nwaves)
{
    emu_timing *tm = calloc(1, sizeof *tm);
    if (!tm)
        return NULL;
    tm->d = d;
    tm->k = k;
    tm->nwg = nwg;
    tm->nwaves = nwaves;
    atomic_init(&tm->bytes, 0);
    if (k->ninsts >= 1 << EMU_TRACE_PC_BITS || nwaves > 16 ||
        tm_occupancy_of(d->t, &k->info, nwaves, &tm->occ)) {
        tm->bad = true;
        return tm;
    }
    uint64_t ncu = (uint64_t)emu_num_cu(d);
    tm->active = nwg < ncu ? nwg : ncu;
    tm->ns = tm->active < TM_SAMPLE_CUS ? (int)tm->active : TM_SAMPLE_CUS;
    /* the sampled CUs share one L2: on a device of several L2 instances
       (MI300X: one per XCD, workgroups dealt to the XCDs round-robin, so CU
       c of this numbering is on XCD c mod instances) CUs 0, I, 2I, ...;
       else spread over the active CUs; all of them when there are no more
       than TM_SAMPLE_CUS */
    uint64_t inst = d->t->tm.l2_instances > 1 ? (uint64_t)d->t->tm.l2_instances : 1;
    if (tm->active <= TM_SAMPLE_CUS) { /* every active CU: nothing to extrapolate */
        for (int i = 0; i < tm->ns; i++)
            tm->cu[i] = (uint64_t)i;
    } else if (inst > 1) {
        uint64_t in_one = (tm->active + inst - 1) / inst;
        tm->ns = in_one < TM_SAMPLE_CUS ? (int)in_one : TM_SAMPLE_CUS;
        for (int i = 0; i < tm->ns; i++)
            tm->cu[i] = (uint64_t)i * inst;
    } else {
        for (int i = 0; i < tm->ns; i++)
            tm->cu[i] = tm->ns > 1 ? (uint64_t)i * (tm->active - 1) / (uint64_t)(tm->ns - 1) : 0;
    }
    uint64_t hold = (uint64_t)tm->occ.max_wg, cap = 4 * hold < 8 ? 8 : 4 * hold;
    if (cap * (uint64_t)tm->ns > TM_MAX_TRACED_WG)
        cap = TM_MAX_TRACED_WG / (uint64_t)tm->ns;
    if (cap < 2 * hold)
        cap = 2 * hold;
    uint64_t most = cu_count(tm, 0);
    tm->win = hold;
    cap -= cap % hold; /* whole windows: cap >= 2 * hold */
    tm->cap = cap < most ? cap : most;
    size_t n = (size_t)tm->ns * (size_t)tm->cap * (size_t)nwaves;
    tm->tr = calloc(n, sizeof *tm->tr);
    tm->ptr = calloc(n, sizeof *tm->ptr);
    if (!tm->tr || !tm->ptr) {
        emu_timing_free(tm);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        tm->tr[i].owner = tm;
        tm->ptr[i] = &tm->tr[i];
    }
    return tm;
}

/* The trace slot of the j-th workgroup of sampled CU s, or -1 when it is not
 * traced: slot j when the CU runs at most cap workgroups, else its place in
 * one of the cap / win windows (window w starts at w * (n - win) / (windows -
 * 1) of the CU's n workgroups; they never overlap, n > cap). */
static int64_t trace_slot(const emu_timing *tm, int s, uint64_t j)
{
    uint64_t n = cu_count(tm, tm->cu[s]);
    if (n <= tm->cap)
        return j < n ? (int64_t)j : -1;
    uint64_t nwin = tm->cap / tm->win;
    for (uint64_t w = 0; w < nwin; w++) {
        uint64_t start = w * (n - tm->win) / (nwin - 1);
        if (j >= start && j < start + tm->win)
            return (int64_t)(w * tm->win + (j - start));
    }
    return -1;
}

/* The traces of workgroup wg's waves, NULL when it is not traced. */
static emu_trace *traces_of(const emu_timing *tm, uint64_t wg)
{
    if (tm->bad)
        return NULL;
    uint64_t c = wg % tm->active, j = wg / tm->active;
    for (int s = 0; s < tm->ns; s++) {
        int64_t slot = tm->cu[s] == c ? trace_slot(tm, s, j) : -1;
        if (slot >= 0)
            return &tm->tr[((size_t)s * (size_t)tm->cap + (size_t)slot) * (size_t)tm->nwaves];
    }
    return NULL;
}

bool emu_timing_attach(emu_timing *tm, uint64_t wg, wave *waves, int nwaves)
{
    emu_trace *base = traces_of(tm, wg);
    for (int i = 0; i < nwaves; i++)
        waves[i].trace = base ? &base[i] : NULL;
    return tm->bad || base;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Time of sampled CU s and its busy cycles, extrapolated to all its workgroups. */
static int time_cu(const emu_timing *tm, const tm_machine *m, int s, double *end, double busy[EL_LATENCY])
{
    uint64_t n = cu_count(tm, tm->cu[s]), sim = n < tm->cap ? n : tm->cap;
    double *wg_end = calloc((size_t)sim, sizeof *wg_end);
    tm_cu_result r = {.wg_end = wg_end};
    if (!wg_end || tm_simulate_cu(m, &tm->ptr[(size_t)s * (size_t)tm->cap * (size_t)tm->nwaves], (int)sim, &r)) {
        free(wg_end);
        return -1;
    }
    *end = r.end;
    for (int i = 0; i < EL_LATENCY; i++)
        busy[i] = r.busy[i];
    if (n > sim) {
        /* the rate after the first window (the ramp), over windows spread
           through the CU's sequence: every kind of workgroup in its share */
        qsort(wg_end, (size_t)sim, sizeof *wg_end, cmp_double);
        uint64_t h = tm->win;
        double slope = (wg_end[sim - 1] - wg_end[h - 1]) / (double)(sim - h);
        *end = r.end + slope * (double)(n - sim);
        for (int i = 0; i < EL_LATENCY; i++)
            busy[i] *= (double)n / (double)sim;
    }
    free(wg_end);
    return 0;
}

const target *emu_timing_target(const emu_timing *tm) { return tm->d->t; }

/* The launch's memory traffic from the cache pass's sample (timing_cache.c):
 * sets m's HBM factors; *l2_bytes, *hbm_bytes: the whole launch's. */
static void launch_traffic(const emu_timing *tm, const tm_cache_sum *cs, double scale, tm_machine *m,
                           double *l2_bytes, double *hbm_bytes, emu_stats *st)
{
    double line = (double)tm->d->t->tm.line_bytes, read_fp = 0, write_fp = 0;
    for (int i = 0; i < cs->nregions; i++) {
        if (cs->region[i].read)
            read_fp += (double)cs->region[i].size / line;
        if (cs->region[i].written)
            write_fp += (double)cs->region[i].size / line;
    }
    /* cold misses: at most each line of the buffers read, once */
    double cold = cs->cold * scale, cold_dev = cold < read_fp ? cold : read_fp;
    m->cold_hbm = cold > 0 ? cold_dev / cold : 1.0;
    double wb = cs->wb_lines * scale, wb_dev = wb < write_fp ? wb : write_fp;
    m->store_hbm = cs->lines_stored > 0 ? wb_dev / (cs->lines_stored * scale) : 0;
    double miss = cold_dev + cs->capacity * scale;
    *l2_bytes = cs->l2_requests * scale * line;
    *hbm_bytes = (miss + wb_dev) * line;
    st->model_line_loaded += (uint64_t)(cs->lines_loaded * scale * line + 0.5);
    st->model_line_stored += (uint64_t)(cs->lines_stored * scale * line + 0.5);
    st->model_useful_loaded += (uint64_t)(cs->useful_loaded * scale + 0.5);
    st->model_useful_stored += (uint64_t)(cs->useful_stored * scale + 0.5);
    st->model_l1_lookups += (uint64_t)(cs->l1_lookups * scale + 0.5);
    st->model_l1_hits += (uint64_t)(cs->l1_hits * scale + 0.5);
    st->model_l2_reads += (uint64_t)(cs->l2_reads * scale + 0.5);
    st->model_l2_hits += (uint64_t)((cs->l2_reads * scale - miss > 0 ? cs->l2_reads * scale - miss : 0) + 0.5);
    st->model_hbm_bytes += (uint64_t)(*hbm_bytes + 0.5);
    st->model_lds_cycles += (uint64_t)(cs->lds_cycles * scale + 0.5);
    st->model_lds_ideal += (uint64_t)(cs->lds_ideal * scale + 0.5);
    /* per buffer: the EMU_MODEL_BUFFERS with the most lines */
    bool taken[TM_MAX_REGIONS] = {false};
    for (int k = 0; k < EMU_MODEL_BUFFERS; k++) {
        int best = -1;
        for (int i = 0; i < cs->nregions; i++) {
            const tm_region *r = &cs->region[i];
            if (!taken[i] && (best < 0 || r->lines_loaded + r->lines_stored >
                                              cs->region[best].lines_loaded + cs->region[best].lines_stored))
                best = i;
        }
        if (best < 0)
            break;
        taken[best] = true;
        const tm_region *r = &cs->region[best];
        st->model_buf[k] = (emu_model_buffer){
            .base = r->base,
            .line_loaded = (uint64_t)(r->lines_loaded * scale * line + 0.5),
            .useful_loaded = (uint64_t)(r->useful_loaded * scale + 0.5),
            .line_stored = (uint64_t)(r->lines_stored * scale * line + 0.5),
            .useful_stored = (uint64_t)(r->useful_stored * scale + 0.5),
        };
    }
}

/* The cache pass over the sampled traces; the sample's workgroups in *sampled. */
static int cache_pass(const emu_timing *tm, tm_cache_sum *cs, uint64_t *sampled)
{
    uint64_t count[TM_SAMPLE_CUS];
    *sampled = 0;
    for (int s = 0; s < tm->ns; s++) {
        uint64_t n = cu_count(tm, tm->cu[s]);
        count[s] = n < tm->cap ? n : tm->cap;
        *sampled += count[s];
    }
    tm_cache_in in = {
        .t = tm->d->t, .d = tm->d, .code = tm->k->code, .traces = tm->ptr, .count = count, .ns = tm->ns,
        .nwaves = tm->nwaves, .max_wg = tm->occ.max_wg, .cap = (size_t)tm->cap, .active = tm->active,
    };
    pthread_rwlock_rdlock(&tm->d->lock);
    int rc = tm_cache_pass(&in, cs);
    pthread_rwlock_unlock(&tm->d->lock);
    return rc;
}

void emu_timing_end(emu_timing *tm, emu_stats *st)
{
    const target *t = tm->d->t;
    const timing_facts *f = &t->tm;
    size_t n = (size_t)tm->ns * (size_t)tm->cap * (size_t)tm->nwaves;
    bool ok = !tm->bad;
    for (size_t i = 0; ok && i < n; i++)
        ok = !tm->tr[i].failed;
    tm_cache_sum cs;
    uint64_t sampled = 0;
    if (!ok || cache_pass(tm, &cs, &sampled) || !sampled) {
        st->model_failed++;
        return;
    }
    double hbm_clk = f->hbm_tbps * f->hbm_achievable * 1e3 / emu_clock_ghz(tm->d); /* bytes per clock */
    tm_machine m = {
        .t = t,
        .k = tm->k,
        .occ = tm->occ,
        .nwaves = tm->nwaves,
    };
    double l2_bytes, hbm_bytes;
    emu_stats ms = {0};
    launch_traffic(tm, &cs, (double)tm->nwg / (double)sampled, &m, &l2_bytes, &hbm_bytes, &ms);
    double end = 0, busy[EL_LATENCY] = {0};
    for (int s = 0; s < tm->ns; s++) {
        double e, b[EL_LATENCY];
        /* the device's L2 and HBM bandwidth shared by workgroups, not by
           CUs: a CU of the grid's last, partial round has the bandwidth the
           idle CUs leave (docs/TIMING.md "Bandwidth shares") */
        tm_machine mc = m;
        double share = (double)cu_count(tm, tm->cu[s]) / (double)tm->nwg;
        mc.l2_rate = (double)f->l2_bytes_per_clk * share;
        mc.hbm_rate = hbm_clk * share;
        if (time_cu(tm, &mc, s, &e, b)) {
            st->model_failed++;
            return;
        }
        if (e > end) {
            end = e;
            memcpy(busy, b, sizeof busy);
        }
    }
    /* the device's bandwidth over all the launch's lines */
    double hbm = hbm_bytes / hbm_clk, l2 = l2_bytes / f->l2_bytes_per_clk;
    double dev = hbm > l2 ? hbm : l2;
    if (dev > busy[EL_MEMORY])
        busy[EL_MEMORY] = dev;
    if (dev > end)
        end = dev;
    end += f->launch_us * 1e3 * emu_clock_ghz(tm->d); /* dispatch */
    st->model_cycles += (uint64_t)(end + 0.5);
    for (int i = 0; i < EL_LATENCY; i++)
        st->model_busy[i] += (uint64_t)(busy[i] + 0.5);
    st->model_launches++;
    emu_stats_add(st, &ms); /* only its memory fields are set */
}

void emu_timing_free(emu_timing *tm)
{
    if (!tm)
        return;
    if (tm->tr) {
        size_t n = (size_t)tm->ns * (size_t)tm->cap * (size_t)tm->nwaves;
        for (size_t i = 0; i < n; i++)
            free(tm->tr[i].e);
    }
    free(tm->tr);
    free(tm->ptr);
    free(tm);
}
