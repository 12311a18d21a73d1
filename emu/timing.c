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
 * Where two neighbouring windows of a CU differ (their waves' instruction
 * counts more than TM_ALIKE apart), the workgroups change kind somewhere
 * between them: the launch runs another window halfway between (a further
 * traced pass, emu_timing_next_pass), until the change is found within a
 * window's width or TM_MAX_WIN windows are traced. Each window stands for
 * the workgroups nearer to it than to its neighbours; a run of alike
 * windows for the workgroups of theirs.
 * A CU with more workgroups is extrapolated run by run: from the rate of
 * the run's simulated workgroups after its first window (the ramp), or
 * for a run of one window from the time that window added.
 * The launch takes as long as its slowest sampled CU, or as the device's
 * L2 and HBM need for all the launch's lines, whichever is longer.
 *
 * Memory traffic: the cache pass (timing_cache.c) runs the sampled waves'
 * lines through the L1s and the L2; the launch's traffic is the sample's
 * scaled by workgroups (launches / sampled; a run's traced workgroups
 * weighted by the workgroups the run stands for), except that cold L2 misses
 * are at most the lines of the buffers the sample read (each read from
 * HBM once: the unsampled workgroups share lines with the sampled ones)
 * and write-backs at most the lines of the buffers it wrote. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

#define TM_MAX_TRACED_WG 512 /* the first pass's traced workgroups */
#define TM_MAX_WIN 24        /* traced windows per sampled CU, the added ones included */
#define TM_ALIKE 0.1         /* windows whose instruction counts differ by at most this fraction are alike */
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
    uint64_t cap;             /* the first pass's traced workgroups per sampled CU */
    uint64_t win;             /* consecutive workgroups per traced window (when a CU has more than cap) */
    uint64_t slots;           /* trace slots per sampled CU: every workgroup, or TM_MAX_WIN windows */
    bool all[TM_SAMPLE_CUS];  /* the CU runs at most cap workgroups: all traced, slot j = its j-th */
    int nwin[TM_SAMPLE_CUS];  /* else its windows so far, in the order added (window w: slots w * win ...) */
    uint64_t start[TM_SAMPLE_CUS][TM_MAX_WIN]; /* first workgroup of window w in the CU's sequence */
    int passes;               /* traced passes handed out (emu_timing_next_pass) */
    int pass_from[TM_SAMPLE_CUS]; /* the windows the latest pass added: pass_from[s] .. nwin[s] - 1 */
    emu_trace *tr;            /* [ns][slots][nwaves] */
    emu_trace **ptr;          /* the traces in sequence order, as tm_simulate_cu takes them */
    double *weight;           /* [ns][slots]: the workgroups each traced one stands for */
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
    tm->slots = tm->cap;
    for (int s = 0; s < tm->ns; s++) {
        uint64_t n = cu_count(tm, tm->cu[s]);
        tm->all[s] = n <= tm->cap;
        if (tm->all[s])
            continue;
        /* windows spread evenly over the sequence, the first at its start
           and the last at its end */
        tm->nwin[s] = (int)(tm->cap / tm->win);
        for (int w = 0; w < tm->nwin[s]; w++)
            tm->start[s][w] = (uint64_t)w * (n - tm->win) / (uint64_t)(tm->nwin[s] - 1);
        tm->slots = TM_MAX_WIN * tm->win;
    }
    size_t n = (size_t)tm->ns * (size_t)tm->slots * (size_t)nwaves;
    tm->tr = calloc(n, sizeof *tm->tr);
    tm->ptr = calloc(n, sizeof *tm->ptr);
    tm->weight = calloc((size_t)tm->ns * (size_t)tm->slots, sizeof *tm->weight);
    if (!tm->tr || !tm->ptr || !tm->weight) {
        emu_timing_free(tm);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        tm->tr[i].owner = tm;
    return tm;
}

/* The trace slot of the j-th workgroup of sampled CU s, or -1 when it is not
 * traced: slot j when the CU runs at most cap workgroups, else its place in
 * one of the CU's windows (they never overlap). */
static int64_t trace_slot(const emu_timing *tm, int s, uint64_t j)
{
    if (tm->all[s])
        return j < cu_count(tm, tm->cu[s]) ? (int64_t)j : -1;
    for (int w = 0; w < tm->nwin[s]; w++)
        if (j >= tm->start[s][w] && j < tm->start[s][w] + tm->win)
            return (int64_t)((uint64_t)w * tm->win + (j - tm->start[s][w]));
    return -1;
}

/* The trace slot of workgroup wg (its sampled CU in *s), or -1 when no
 * window holds it (whatever tm->bad says). */
static int64_t slot_of(const emu_timing *tm, uint64_t wg, int *s)
{
    uint64_t c = wg % tm->active, j = wg / tm->active;
    for (*s = 0; *s < tm->ns; (*s)++)
        if (tm->cu[*s] == c)
            return trace_slot(tm, *s, j);
    return -1;
}

/* The traces of workgroup wg's waves, NULL when it is not traced. */
static emu_trace *traces_of(const emu_timing *tm, uint64_t wg)
{
    int s;
    int64_t slot = tm->bad ? -1 : slot_of(tm, wg, &s);
    return slot < 0 ? NULL : &tm->tr[((size_t)s * (size_t)tm->slots + (size_t)slot) * (size_t)tm->nwaves];
}

bool emu_timing_traced(const emu_timing *tm, uint64_t wg)
{
    int s;
    return tm->passes && slot_of(tm, wg, &s) >= 0; /* none before a traced pass ran */
}
bool emu_timing_sampled(const emu_timing *tm) { return !tm->bad; }

/* Whether every trace stayed within the memory budget. */
static bool traces_ok(const emu_timing *tm)
{
    for (size_t i = 0; i < (size_t)tm->ns * (size_t)tm->slots * (size_t)tm->nwaves; i++)
        if (tm->tr[i].failed)
            return false;
    return true;
}

/* The instructions the waves of window w of sampled CU s ran, per workgroup. */
static double window_insts(const emu_timing *tm, int s, int w)
{
    double sum = 0;
    const emu_trace *t = &tm->tr[(size_t)s * (size_t)tm->slots * (size_t)tm->nwaves +
                                 (size_t)w * (size_t)tm->win * (size_t)tm->nwaves];
    for (size_t i = 0; i < (size_t)tm->win * (size_t)tm->nwaves; i++)
        sum += t[i].n;
    return sum / (double)tm->win;
}

static bool alike(double a, double b) { return fabs(a - b) <= TM_ALIKE * (a > b ? a : b); }

/* CU s's windows in sequence order (ord[0..nwin-1]: window numbers). */
static void windows_in_order(const emu_timing *tm, int s, int *ord)
{
    int n = tm->nwin[s];
    for (int i = 0; i < n; i++) {
        int k = i;
        while (k > 0 && tm->start[s][ord[k - 1]] > tm->start[s][i]) {
            ord[k] = ord[k - 1];
            k--;
        }
        ord[k] = i;
    }
}

/* Add a window halfway between each pair of neighbouring windows of CU s
 * that differ and have room for one between them; the number added. */
static int refine(emu_timing *tm, int s)
{
    int ord[TM_MAX_WIN], n = tm->nwin[s], added = 0;
    windows_in_order(tm, s, ord);
    for (int i = 0; i + 1 < n && tm->nwin[s] < TM_MAX_WIN; i++) {
        uint64_t from = tm->start[s][ord[i]] + tm->win, to = tm->start[s][ord[i + 1]];
        if (to - from < tm->win || alike(window_insts(tm, s, ord[i]), window_insts(tm, s, ord[i + 1])))
            continue;
        tm->start[s][tm->nwin[s]++] = from + (to - from - tm->win) / 2;
        added++;
    }
    return added;
}

uint64_t *emu_timing_next_pass(emu_timing *tm, size_t *count)
{
    *count = 0;
    if (tm->bad)
        return NULL;
    if (tm->passes++ > 0) {
        /* further windows where the last pass's traces show a change,
           while the traces stay within half their memory budget */
        bool more = atomic_load(&tm->bytes) < TM_TRACE_BUDGET / 2 && traces_ok(tm);
        int added = 0;
        for (int s = 0; s < tm->ns; s++) {
            tm->pass_from[s] = tm->nwin[s];
            if (more && !tm->all[s])
                added += refine(tm, s);
        }
        if (!added)
            return NULL;
    }
    size_t n = 0;
    for (int s = 0; s < tm->ns; s++)
        n += tm->all[s] ? (tm->passes == 1 ? cu_count(tm, tm->cu[s]) : 0)
                        : (size_t)(tm->nwin[s] - tm->pass_from[s]) * tm->win;
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) { /* not timed; the windows of this pass are not run */
        tm->bad = true;
        for (int s = 0; s < tm->ns; s++)
            tm->nwin[s] = tm->pass_from[s];
        if (tm->passes == 1)
            tm->passes = 0;
        return NULL;
    }
    for (int s = 0; s < tm->ns; s++) {
        if (tm->all[s] && tm->passes > 1)
            continue;
        uint64_t c = tm->cu[s];
        if (tm->all[s])
            for (uint64_t j = 0; j < cu_count(tm, c); j++)
                ids[(*count)++] = c + j * tm->active;
        else
            for (int w = tm->pass_from[s]; w < tm->nwin[s]; w++)
                for (uint64_t j = 0; j < tm->win; j++)
                    ids[(*count)++] = c + (tm->start[s][w] + j) * tm->active;
    }
    return ids;
}

void emu_timing_attach(emu_timing *tm, uint64_t wg, wave *waves, int nwaves)
{
    emu_trace *base = traces_of(tm, wg);
    for (int i = 0; i < nwaves; i++)
        waves[i].trace = base ? &base[i] : NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The traced workgroups of sampled CU s in sequence order (slot k of
 * tm->ptr's row s) with the workgroups each stands for (tm->weight), and
 * its windows' runs of alike ones: run r is windows run[r] .. run[r + 1] - 1
 * in sequence order, standing for rep[r] workgroups. Returns the traced
 * workgroups; *nruns = 0 when the CU's workgroups are all traced. */
static uint64_t order_cu(emu_timing *tm, int s, int *ord, int *run, double *rep, int *nruns)
{
    uint64_t n = cu_count(tm, tm->cu[s]), win = tm->win;
    size_t row = (size_t)s * (size_t)tm->slots, nw = (size_t)tm->nwaves;
    *nruns = 0;
    if (tm->all[s]) {
        for (uint64_t j = 0; j < n; j++) {
            tm->weight[row + j] = 1;
            for (size_t v = 0; v < nw; v++)
                tm->ptr[(row + j) * nw + v] = &tm->tr[(row + j) * nw + v];
        }
        return n;
    }
    int nwin = tm->nwin[s];
    windows_in_order(tm, s, ord);
    for (int k = 0; k < nwin; k++)
        for (uint64_t o = 0; o < win; o++)
            for (size_t v = 0; v < nw; v++)
                tm->ptr[(row + k * win + o) * nw + v] = &tm->tr[(row + (size_t)ord[k] * win + o) * nw + v];
    /* window k stands for the workgroups from halfway after its left
       neighbour to halfway before its right one */
    double lo = 0;
    for (int k = 0; k < nwin; k++) {
        if (k == 0 || !alike(window_insts(tm, s, ord[k - 1]), window_insts(tm, s, ord[k]))) {
            run[*nruns] = k;
            rep[(*nruns)++] = 0;
        }
        double hi = k + 1 < nwin ? (double)(tm->start[s][ord[k]] + win + tm->start[s][ord[k + 1]]) / 2 : (double)n;
        rep[*nruns - 1] += hi - lo;
        lo = hi;
    }
    run[*nruns] = nwin;
    /* each traced workgroup of a run stands for an equal share of it */
    for (int r = 0; r < *nruns; r++)
        for (uint64_t k = (uint64_t)run[r] * win; k < (uint64_t)run[r + 1] * win; k++)
            tm->weight[row + k] = rep[r] / (double)((uint64_t)(run[r + 1] - run[r]) * win);
    return (uint64_t)nwin * win;
}

/* Time of sampled CU s and its busy cycles, extrapolated to all its
 * workgroups run by run (order_cu): a run of several windows at the rate of
 * its workgroups after the first window's worth (the ramp), a run of one at
 * the time its window added to the simulation. */
static int time_cu(const emu_timing *tm, const tm_machine *m, int s, uint64_t sim, const int *run, const double *rep,
                   int nruns, double *end, double busy[EL_LATENCY])
{
    uint64_t n = cu_count(tm, tm->cu[s]), h = tm->win;
    double *wg_end = calloc((size_t)sim, sizeof *wg_end);
    tm_cu_result r = {.wg_end = wg_end};
    if (!wg_end || tm_simulate_cu(m, &tm->ptr[(size_t)s * (size_t)tm->slots * (size_t)tm->nwaves], (int)sim, &r)) {
        free(wg_end);
        return -1;
    }
    *end = r.end;
    for (int i = 0; i < EL_LATENCY; i++)
        busy[i] = r.busy[i];
    double before = 0; /* the latest end of the windows before the run */
    for (int q = 0; q < nruns; q++) {
        double *e = wg_end + (size_t)run[q] * h;
        uint64_t traced = (uint64_t)(run[q + 1] - run[q]) * h;
        double last = 0, rate;
        for (uint64_t i = 0; i < traced; i++)
            last = e[i] > last ? e[i] : last;
        if (traced > h) {
            qsort(e, (size_t)traced, sizeof *e, cmp_double);
            rate = (e[traced - 1] - e[h - 1]) / (double)(traced - h);
        } else {
            rate = (last > before ? last - before : 0) / (double)h;
        }
        before = last > before ? last : before;
        *end += rate * (rep[q] - (double)traced);
    }
    if (n > sim)
        for (int i = 0; i < EL_LATENCY; i++)
            busy[i] *= (double)n / (double)sim;
    free(wg_end);
    return 0;
}

const target *emu_timing_target(const emu_timing *tm) { return tm->d->t; }

/* The timeline file (emu_options.timeline) opened for appending, its
 * launch header written; NULL when there is none or it cannot be opened
 * (the timeline is a diagnostic: the launch is timed either way). */
static FILE *timeline_open(const emu_timing *tm, uint64_t nwg)
{
    const char *path = tm->d->opt.timeline;
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (f)
        fprintf(f,
                "# kernel %s on %s, sampled CU 0: %llu workgroups of %d waves in dispatch order; "
                "cycle workgroup wave simd pc instruction\n",
                emu_kernel_get_info(tm->k)->name, tm->d->t->name, (unsigned long long)nwg, tm->nwaves);
    return f;
}

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

/* The cache pass over the sampled traces (in sequence order, order_cu). */
static int cache_pass(const emu_timing *tm, const uint64_t *count, tm_cache_sum *cs)
{
    tm_cache_in in = {
        .t = tm->d->t, .d = tm->d, .code = tm->k->code, .traces = tm->ptr, .weight = tm->weight, .count = count,
        .ns = tm->ns, .nwaves = tm->nwaves, .max_wg = tm->occ.max_wg, .cap = (size_t)tm->slots,
        .active = tm->active,
    };
    pthread_rwlock_rdlock(&tm->d->lock);
    int rc = tm_cache_pass(&in, cs);
    pthread_rwlock_unlock(&tm->d->lock);
    return rc;
}

/* HBM lines of demand d: cold misses by the share that reaches HBM,
 * stored lines by their write-backs (launch_traffic's factors in m) */
static double hbm_lines(const tm_machine *m, const tm_demand *d)
{
    return d->cap + d->cold * m->cold_hbm + d->stored * m->store_hbm;
}

/* The sample's demand per workgroup it stands for: its weighted totals
 * (the cache pass's, each traced workgroup by its weight) over the weights */
static tm_demand sample_mean(const emu_timing *tm, const tm_cache_sum *cs, const uint64_t *count)
{
    double wsum = 0;
    for (int i = 0; i < tm->ns; i++)
        for (uint64_t k = 0; k < count[i]; k++)
            wsum += tm->weight[(size_t)i * (size_t)tm->slots + k];
    if (wsum <= 0)
        return (tm_demand){0};
    return (tm_demand){cs->l2_requests / wsum, cs->capacity / wsum, cs->cold / wsum, cs->lines_stored / wsum};
}

/* How many times the launch's average workgroup (mean) the n traced
 * workgroups of a sampled CU (their demand own) ask of the L2 (*l2) and of
 * HBM (*hbm), at least 1. The L2 channels and the memory controllers serve
 * whichever CU has requests queued, so a CU that asks more than its
 * workgroups' share gets that much more of their bandwidth (the CU that
 * first touches the lines all the CUs share, a filter every workgroup
 * reads, brings them in for all of them); one that asks less keeps its
 * workgroups' share: its requests are not served more slowly for being
 * fewer (docs/TIMING.md "Bandwidth shares"). */
static void demand_factors(const tm_machine *m, const tm_demand *mean, const tm_demand *own, uint64_t n,
                           double *l2, double *hbm)
{
    double per = n ? 1.0 / (double)n : 1, req = own->req * per, h = hbm_lines(m, own) * per;
    double mean_h = hbm_lines(m, mean);
    *l2 = mean->req > 0 && req > mean->req ? req / mean->req : 1;
    *hbm = mean_h > 0 && h > mean_h ? h / mean_h : 1;
}

void emu_timing_end(emu_timing *tm, emu_stats *st)
{
    const target *t = tm->d->t;
    const timing_facts *f = &t->tm;
    bool ok = !tm->bad && traces_ok(tm);
    /* per sampled CU: its traces in sequence order, its runs of alike windows */
    uint64_t count[TM_SAMPLE_CUS];
    int ord[TM_MAX_WIN], run[TM_SAMPLE_CUS][TM_MAX_WIN + 1], nruns[TM_SAMPLE_CUS];
    double rep[TM_SAMPLE_CUS][TM_MAX_WIN], sampled = 0;
    bool alike_all = true;
    for (int s = 0; ok && s < tm->ns; s++) {
        count[s] = order_cu(tm, s, ord, run[s], rep[s], &nruns[s]);
        alike_all &= nruns[s] <= 1;
        sampled += (double)cu_count(tm, tm->cu[s]);
    }
    /* a sample of alike windows: each traced workgroup stands for as many */
    if (alike_all) {
        sampled = 0;
        for (int s = 0; s < tm->ns; s++) {
            for (uint64_t k = 0; k < count[s]; k++)
                tm->weight[(size_t)s * (size_t)tm->slots + k] = 1;
            sampled += (double)count[s];
        }
    }
    tm_cache_sum cs;
    if (!ok || cache_pass(tm, count, &cs) || !sampled) {
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
    launch_traffic(tm, &cs, (double)tm->nwg / sampled, &m, &l2_bytes, &hbm_bytes, &ms);
    double end = 0, busy[EL_LATENCY] = {0};
    tm_demand mean = sample_mean(tm, &cs, count);
    for (int s = 0; s < tm->ns; s++) {
        double e, b[EL_LATENCY];
        /* the device's L2 and HBM bandwidth shared by workgroups, not by
           CUs: a CU of the grid's last, partial round has the bandwidth the
           idle CUs leave (docs/TIMING.md "Bandwidth shares") */
        tm_machine mc = m;
        double share = (double)cu_count(tm, tm->cu[s]) / (double)tm->nwg, dl2, dhbm;
        demand_factors(&m, &mean, &cs.cu[s], count[s], &dl2, &dhbm);
        mc.l2_rate = (double)f->l2_bytes_per_clk * share * dl2;
        mc.hbm_rate = hbm_clk * share * dhbm;
        if (s == 0)
            mc.timeline = timeline_open(tm, count[s]);
        int failed = time_cu(tm, &mc, s, count[s], run[s], rep[s], nruns[s], &e, b);
        if (mc.timeline)
            fclose(mc.timeline);
        if (failed) {
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
        size_t n = (size_t)tm->ns * (size_t)tm->slots * (size_t)tm->nwaves;
        for (size_t i = 0; i < n; i++)
            free(tm->tr[i].e);
    }
    free(tm->tr);
    free(tm->ptr);
    free(tm->weight);
    free(tm);
}
