/* Kernel launch: initial wave state as the kernel descriptor asks (user and
 * system SGPRs, workitem-id VGPRs, EXEC), workgroups distributed over host
 * threads, waves of a workgroup interleaved at s_barrier with shared LDS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "lds.h"
#include "timing.h"

#define POISON 0x7fc0deadu /* a quiet NaN: uninitialised registers show up */

typedef struct {
    emu_device *dev;
    const emu_kernel *k;
    unsigned grid[3], block[3];
    uint64_t *wave_cycles; /* [workgroup * waves + wave], NULL when too many to keep */
    int nwaves;
    const void *kernargs;
    const void *dispatch;
    uint64_t total;
    const uint64_t *ids;   /* this pass's workgroups (a traced pass), or NULL: every one not traced */
    uint64_t count;        /* this pass's workgroups: ids's entries, or total */
    atomic_uint_fast64_t next;
    atomic_bool stop;
    pthread_mutex_t lock;
    char *err;
    size_t errlen;
    bool failed;
    emu_stats stats;
    emu_timing *tm;        /* the timing model, or NULL when off */
} launch;

/* A wave's register files. gfx908 (and gfx906) keep VGPRs and AGPRs apart;
 * on the unified file of gfx90a+ there is one physical array of the
 * descriptor's total allocation: VGPR vN is physical N, AGPR ai is physical
 * accum_offset + i, so a write through one name is seen through the other,
 * and every per-register side table (pending loads, hazard history) aliases
 * the same way. */
static int regs_alloc(wave *w, const emu_kernel_info *ki)
{
    bool unified = ki->unified_total > 0;
    int nphys = unified ? (ki->unified_total > ki->accum_offset ? ki->unified_total : ki->accum_offset) : ki->vgprs;
    w->nv = unified ? ki->unified_total : ki->vgprs;
    w->na = unified ? (ki->unified_total > ki->accum_offset ? ki->unified_total - ki->accum_offset : 0) : ki->agprs;
    w->acc_alias = unified;
    w->pend_abase = emu_pend_abase(ki);
    size_t n = (size_t)nphys + 1;
    w->v = malloc(sizeof *w->v * n);
    w->vw = calloc(n, sizeof *w->vw);
    if (!w->v || !w->vw)
        return -1;
    if (unified) {
        size_t o = (size_t)ki->accum_offset;
        w->a = w->v + o;
        w->aw = w->vw + o;
        return 0;
    }
    size_t na = (size_t)w->na + 1;
    w->a = malloc(sizeof *w->a * na);
    w->aw = calloc(na, sizeof *w->aw);
    return w->a && w->aw ? 0 : -1;
}

static void regs_free(wave *w)
{
    free(w->v);
    free(w->vw);
    if (!w->acc_alias) {
        free(w->a);
        free(w->aw);
    }
}

/* Per-thread workgroup context with its register files. */
static int ctx_alloc(wg_ctx *c, const emu_kernel *k, int nwaves)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < nwaves; i++)
        if (regs_alloc(&c->waves[i], &k->info))
            return -1;
    c->lds_size = k->info.lds_bytes;
    size_t dw = (size_t)(c->lds_size + 3) / 4 + 1;
    c->lds = malloc(dw * 4);
    if (k->private_size) { /* the private segment size rounded up to dwords, as the CP does */
        c->private_size = k->private_size;
        c->scratch_wave_bytes = (size_t)(k->private_size + 3) / 4 * 4 * 64;
        if (!(c->scratch = malloc(c->scratch_wave_bytes * (size_t)nwaves)))
            return -1;
    }
    return c->lds && lds_track_alloc(c, dw, nwaves) == 0 ? 0 : -1;
}

static void ctx_free(wg_ctx *c)
{
    for (int i = 0; i < MAX_WAVES; i++)
        regs_free(&c->waves[i]);
    free(c->lds);
    free(c->scratch);
    lds_track_free(c);
}

static void wave_init(wave *w, int id)
{
    w->id = id;
    w->pc = 0;
    w->done = w->at_barrier = false;
    w->vm_head = w->vm_n = w->lq_n = 0;
    w->ws = 0;
    w->scc = 0;
    w->exec_valu_ws = 0;
    memset(&w->hz_side, 0, sizeof w->hz_side);
    w->hz_vec = false;
    w->hz_store_until = 0;
    w->cycles = 0;
    w->insts = 0;
    for (int i = 0; i < EMU_DS_MEMO; i++)
        w->ds_memo[i].pc = -1;
    for (int i = 0; i < 128; i++)
        w->s[i] = POISON;
    memset(w->pend, 0, sizeof w->pend);
    memset(w->sw_valu_ws, 0, sizeof w->sw_valu_ws);
    memset(w->vw, 0, sizeof *w->vw * (size_t)w->nv);
    memset(w->aw, 0, sizeof *w->aw * (size_t)w->na);
    for (int r = 0; r < w->nv; r++)
        for (int l = 0; l < 64; l++)
            w->v[r][l] = POISON;
    for (int r = 0; r < w->na; r++)
        for (int l = 0; l < 64; l++)
            w->a[r][l] = POISON;

}

/* The private segment buffer of wave slot 0 (AMDGPUUsage "Private
 * Segment Buffer"): a swizzled V# with ADD_TID_ENABLE over the workgroup's
 * scratch backing, dword elements interleaved by 64 lanes (ELEMENT_SIZE 4
 * bytes, INDEX_STRIDE 64); each wave adds its wavefront offset to the base
 * in its prologue. exec_mem.c mubuf_scratch reads it. */
static void private_segment_buffer(const wg_ctx *c, uint32_t v[4])
{
    uint64_t base = (uint64_t)(uintptr_t)c->scratch;
    v[0] = (uint32_t)base;
    v[1] = (uint32_t)(base >> 32 & 0xffff) | 1u << 31; /* stride 0, SWIZZLE_ENABLE */
    v[2] = 0xffffffffu;                                 /* NUM_RECORDS: the emulator checks per lane */
    v[3] = c->dev->t->buffer_rsrc_word3 | 1u << 19 | 3u << 21 | 1u << 23;
}

/* Initial SGPRs, VGPRs and EXEC of wave id of workgroup wg. */
static void wave_setup(const launch *L, wg_ctx *c, wave *w, int id)
{
    const emu_kernel *k = L->k;
    unsigned threads = L->block[0] * L->block[1] * L->block[2];
    wave_init(w, id);
    int s = 0;
    if (k->props & 1) {
        if (c->scratch)
            private_segment_buffer(c, &w->s[s]);
        else
            memset(&w->s[s], 0, 16);
        s += 4;
    }
    if (k->props & 2) {
        sset64(w, (uint16_t)s, (uint64_t)(uintptr_t)L->dispatch);
        s += 2;
    }
    if (k->props & 4) { /* queue pointer: no queue, a null pointer */
        sset64(w, (uint16_t)s, 0);
        s += 2;
    }
    if (k->props & 8) {
        sset64(w, (uint16_t)s, (uint64_t)(uintptr_t)L->kernargs);
        s += 2;
    }
    if (k->props & 16) {
        sset64(w, (uint16_t)s, 0);
        s += 2;
    }
    if (k->props & 32) { /* flat scratch init (gfx9): the base of the scratch backing */
        sset64(w, (uint16_t)s, (uint64_t)(uintptr_t)c->scratch);
        s += 2;
    }
    if (k->props & 64) /* private segment size: per work-item, rounded up to dwords */
        w->s[s++] = (uint32_t)(c->private_size + 3) / 4 * 4;
    s = k->user_sgprs > s ? k->user_sgprs : s;
    for (int d = 0; d < 3; d++)
        if (k->wg_id[d])
            w->s[s++] = c->wg[d];
    if (k->wg_info)
        w->s[s++] = 0;
    if (k->rsrc2 & 1) /* private segment wavefront offset: this wave's part of the backing */
        w->s[s++] = (uint32_t)((size_t)id * c->scratch_wave_bytes);

    unsigned first = (unsigned)id * 64;
    uint64_t exec = 0;
    for (int l = 0; l < 64; l++) {
        unsigned t = first + (unsigned)l;
        if (t >= threads)
            continue;
        exec |= 1ull << l;
        unsigned x = t % L->block[0], y = (t / L->block[0]) % L->block[1], z = t / (L->block[0] * L->block[1]);
        if (c->dev->t->packed_workitem_ids) {
            w->v[0][l] = x | y << 10 | z << 20;
        } else {
            w->v[0][l] = x;
            if (k->vgpr_ids >= 1 && w->nv > 1)
                w->v[1][l] = y;
            if (k->vgpr_ids >= 2 && w->nv > 2)
                w->v[2][l] = z;
        }
    }
    set_exec(w, exec);
}

static int run_workgroup(launch *L, wg_ctx *c, uint64_t flat)
{
    c->flat = flat;
    c->wg[0] = (unsigned)(flat % L->grid[0]);
    c->wg[1] = (unsigned)((flat / L->grid[0]) % L->grid[1]);
    c->wg[2] = (unsigned)(flat / ((uint64_t)L->grid[0] * L->grid[1]));
    c->failed = false;
    size_t dw = (size_t)(c->lds_size + 3) / 4;
    for (size_t i = 0; i < dw; i++)
        memcpy(c->lds + 4 * i, &(uint32_t){POISON}, 4);
    for (size_t i = 0; c->scratch && i < c->scratch_wave_bytes / 4 * (size_t)c->nwaves; i++)
        memcpy(c->scratch + 4 * i, &(uint32_t){POISON}, 4); /* private memory starts undefined */
    lds_track_begin(c);
    for (int i = 0; i < c->nwaves; i++)
        wave_setup(L, c, &c->waves[i], i);
    c->stats.workgroups++;
    c->stats.waves += (uint64_t)c->nwaves;
    for (;;) {
        int done = 0, waiting = 0;
        for (int i = 0; i < c->nwaves; i++) {
            wave *w = &c->waves[i];
            if (!w->done && !w->at_barrier && emu_run_wave(c, w))
                return -1;
            done += w->done;
            waiting += w->at_barrier;
        }
        if (done == c->nwaves)
            return 0;
        if (done + waiting == c->nwaves) { /* everyone left has arrived */
            lds_track_barrier(c);
            for (int i = 0; i < c->nwaves; i++)
                c->waves[i].at_barrier = false;
        }
        if (atomic_load(&L->stop))
            return 0;
    }
}

static void *worker(void *arg)
{
    launch *L = arg;
    wg_ctx *c = malloc(sizeof *c);
    char err[1024] = "";
    int nwaves = L->nwaves;
    if (!c || ctx_alloc(c, L->k, nwaves)) {
        pthread_mutex_lock(&L->lock);
        if (!L->failed) {
            L->failed = true;
            snprintf(L->err, L->errlen, "emulator: out of memory");
        }
        pthread_mutex_unlock(&L->lock);
        atomic_store(&L->stop, true);
        if (c)
            ctx_free(c);
        free(c);
        return NULL;
    }
    c->nwaves = nwaves;
    c->dev = L->dev;
    c->k = L->k;
    c->kernargs = L->kernargs;
    c->err = err;
    c->errlen = sizeof err;
    while (!atomic_load(&L->stop)) {
        uint64_t at = atomic_fetch_add(&L->next, 1);
        if (at >= L->count)
            break;
        uint64_t wg = L->ids ? L->ids[at] : at;
        if (!L->ids && L->tm && emu_timing_traced(L->tm, wg))
            continue; /* ran in a traced pass */
        if (L->tm)
            emu_timing_attach(L->tm, wg, c->waves, nwaves);
        int rc = run_workgroup(L, c, wg);
        if (!rc && L->wave_cycles)
            for (int i = 0; i < nwaves; i++)
                L->wave_cycles[wg * (uint64_t)nwaves + (uint64_t)i] = c->waves[i].cycles;
        if (rc) {
            pthread_mutex_lock(&L->lock);
            if (!L->failed) {
                L->failed = true;
                snprintf(L->err, L->errlen, "%s", err);
            }
            pthread_mutex_unlock(&L->lock);
            atomic_store(&L->stop, true);
            break;
        }
    }
    pthread_mutex_lock(&L->lock);
    emu_stats_add(&L->stats, &c->stats);
    pthread_mutex_unlock(&L->lock);
    ctx_free(c);
    free(c);
    return NULL;
}

/* Run one pass of the launch's workgroups (ids: these; NULL: every one of
 * the `count` the timing model has not traced) on the device's threads. */
static void run_pass(launch *L, const uint64_t *ids, uint64_t count)
{
    L->ids = ids;
    L->count = count;
    atomic_store(&L->next, 0);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = L->dev->opt.threads > 0 ? L->dev->opt.threads : (int)(ncpu > 0 ? ncpu : 1);
    if ((uint64_t)nt > count)
        nt = (int)count;
    if (nt <= 1) {
        worker(L);
        return;
    }
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    int started = 0;
    for (int i = 0; th && i < nt; i++)
        if (!pthread_create(&th[i], NULL, worker, L))
            started++;
        else
            break;
    if (!started)
        worker(L);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}

/* ---- the schedule model (emu.h) ---- */

int emu_sched_create(emu_sched *s, int ncu)
{
    s->ncu = ncu > 0 ? ncu : 1;
    s->simd = calloc((size_t)s->ncu * 4, sizeof *s->simd);
    return s->simd ? 0 : -1;
}

static uint64_t cu_load(const emu_sched *s, int cu)
{
    const uint64_t *p = &s->simd[4 * cu];
    return p[0] + p[1] + p[2] + p[3];
}

/* Restores the min-heap of CUs (by load) below position j. */
static void sift_down(const emu_sched *s, int *heap, int n, int j)
{
    for (;;) {
        int m = j, a = 2 * j + 1, b = a + 1;
        if (a < n && cu_load(s, heap[a]) < cu_load(s, heap[m]))
            m = a;
        if (b < n && cu_load(s, heap[b]) < cu_load(s, heap[m]))
            m = b;
        if (m == j)
            return;
        int t = heap[j];
        heap[j] = heap[m];
        heap[m] = t;
        j = m;
    }
}

/* Place the launch's workgroups in dispatch order on the least-loaded CU
 * (a binary min-heap of CUs by total load), each wave on that CU's
 * least-loaded SIMD. */
static void sched_place(emu_sched *s, const uint64_t *wave_cycles, uint64_t nwg, int nwaves)
{
    int n = s->ncu, *heap = malloc(sizeof *heap * (size_t)n);
    if (!heap)
        return;
    for (int i = 0; i < n; i++)
        heap[i] = i;
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(s, heap, n, i);
    for (uint64_t g = 0; g < nwg; g++) {
        int cu = heap[0];
        uint64_t *simd = &s->simd[4 * cu];
        for (int wv = 0; wv < nwaves; wv++) {
            int best = 0;
            for (int k = 1; k < 4; k++)
                if (simd[k] < simd[best])
                    best = k;
            simd[best] += wave_cycles[g * (uint64_t)nwaves + (uint64_t)wv];
        }
        sift_down(s, heap, n, 0);
    }
    free(heap);
}

static uint64_t sched_makespan(const emu_sched *s)
{
    uint64_t m = 0;
    for (int i = 0; i < 4 * s->ncu; i++)
        if (s->simd[i] > m)
            m = s->simd[i];
    return m;
}

void emu_schedule_reset(emu_device *d)
{
    if (d && d->sched.simd)
        memset(d->sched.simd, 0, sizeof *d->sched.simd * 4 * (size_t)d->sched.ncu);
}

uint64_t emu_schedule_makespan(const emu_device *d) { return d && d->sched.simd ? sched_makespan(&d->sched) : 0; }

int emu_launch(emu_device *d, const emu_kernel *k, const unsigned grid[3], const unsigned block[3],
               const void *kernargs, size_t kernarg_size, emu_stats *stats, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (!d || !k)
        return snprintf(err, errlen, "emu_launch: no device or kernel"), -1;
    const char *kn = k->info.name;
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
        return snprintf(err, errlen, "%s: grid and block sizes must be >= 1", kn), -1;
    for (int i = 0; i < 3; i++)
        if ((uint64_t)grid[i] * block[i] > UINT32_MAX)
            return snprintf(err, errlen, "%s: grid x block is more than 2^32 - 1 work-items in dimension %c", kn,
                            "xyz"[i]),
                   -1;
    if (threads > 1024 || threads > (uint64_t)k->info.max_block)
        return snprintf(err, errlen, "%s: block of %llu work-items exceeds the kernel's maximum %d", kn,
                        (unsigned long long)threads, k->info.max_block < 1024 ? k->info.max_block : 1024),
               -1;
    for (int i = 0; i < 3; i++)
        if (k->info.reqd_block[i] && (int)block[i] != k->info.reqd_block[i])
            return snprintf(err, errlen, "%s: block must be %dx%dx%d (reqd_workgroup_size)", kn, k->info.reqd_block[0],
                            k->info.reqd_block[1], k->info.reqd_block[2]),
                   -1;
    if (kernarg_size < (size_t)k->info.kernarg_size)
        return snprintf(err, errlen, "%s: %zu bytes of kernel arguments given, the kernel takes %d", kn, kernarg_size,
                        k->info.kernarg_size),
               -1;
    if (k->private_size > EMU_MAX_PRIVATE)
        return snprintf(err, errlen, "%s: %d bytes of private memory per work-item, more than the emulator's %d", kn,
                        k->private_size, EMU_MAX_PRIVATE),
               -1;
    if (d->t->architected_flat_scratch && (k->props & (1 | 32)))
        return snprintf(err, errlen, "%s: the descriptor asks for the %s SGPRs, which %s (architected flat scratch) "
                        "does not set up (AMDGPUUsage: must be 0)", kn, k->props & 1 ? "private segment buffer" :
                        "flat scratch init", d->t->name),
               -1;

    /* the timing model sees the memory the host registered, not the launch's own */
    bool timed = d->opt.timing;
    emu_timing *tm = timed ? emu_timing_begin(d, k, (uint64_t)grid[0] * grid[1] * grid[2], (int)((threads + 63) / 64))
                           : NULL;
    /* kernarg segment and dispatch packet live in registered memory */
    size_t ka = (kernarg_size + 63) & ~(size_t)63;
    void *kbuf = emu_buffer_alloc(ka ? ka : 64);
    uint8_t *pkt = emu_buffer_alloc(64);
    if (!kbuf || !pkt) {
        emu_buffer_free(kbuf);
        emu_buffer_free(pkt);
        emu_timing_free(tm);
        return snprintf(err, errlen, "emulator: out of memory"), -1;
    }
    if (kernarg_size)
        memcpy(kbuf, kernargs, kernarg_size);
    uint16_t wgs[3] = {(uint16_t)block[0], (uint16_t)block[1], (uint16_t)block[2]};
    uint16_t setup = 3;
    memcpy(pkt + 2, &setup, 2);
    memcpy(pkt + 4, wgs, 6);
    for (int i = 0; i < 3; i++) {
        uint32_t gs = grid[i] * block[i];
        memcpy(pkt + 12 + 4 * i, &gs, 4);
    }
    uint32_t group = (uint32_t)k->info.lds_bytes;
    memcpy(pkt + 28, &group, 4);
    uint64_t kaddr = (uint64_t)(uintptr_t)kbuf;
    memcpy(pkt + 40, &kaddr, 8);
    emu_register(d, kbuf, ka ? ka : 64);
    emu_register(d, pkt, 64);

    launch L = {.dev = d, .k = k, .kernargs = kbuf, .dispatch = pkt, .err = err, .errlen = errlen, .tm = tm};
    for (int i = 0; i < 3; i++) {
        L.grid[i] = grid[i];
        L.block[i] = block[i];
    }
    L.total = (uint64_t)grid[0] * grid[1] * grid[2];
    L.nwaves = (int)((threads + 63) / 64);
    /* the schedule model's wave cycles, of every workgroup (not when some are skipped) */
    if (L.total * (uint64_t)L.nwaves <= (1u << 26) && !(tm && d->opt.timing_only))
        L.wave_cycles = calloc((size_t)(L.total * (uint64_t)L.nwaves), sizeof *L.wave_cycles);
    atomic_init(&L.next, 0);
    atomic_init(&L.stop, false);
    pthread_mutex_init(&L.lock, NULL);

    pthread_rwlock_rdlock(&d->lock);
    /* the workgroups the timing model traces first, in passes (where its
       sample shows the workgroups change, it asks for more between), then
       the rest, unless only the model's cost is wanted */
    bool sampled = tm && emu_timing_sampled(tm);
    size_t n;
    for (uint64_t *ids; sampled && !L.failed && (ids = emu_timing_next_pass(tm, &n)) != NULL; free(ids))
        run_pass(&L, ids, n);
    if (!L.failed && !(sampled && emu_timing_sampled(tm) && d->opt.timing_only))
        run_pass(&L, NULL, L.total);
    pthread_rwlock_unlock(&d->lock);
    emu_unregister(d, kbuf);
    emu_unregister(d, pkt);
    emu_buffer_free(kbuf);
    emu_buffer_free(pkt);
    pthread_mutex_destroy(&L.lock);
    if (L.wave_cycles && !L.failed) {
        emu_sched one;
        if (!emu_sched_create(&one, d->t->num_cu)) {
            sched_place(&one, L.wave_cycles, L.total, L.nwaves);
            L.stats.makespan = sched_makespan(&one);
            free(one.simd);
        }
        if (d->sched.simd)
            sched_place(&d->sched, L.wave_cycles, L.total, L.nwaves);
    }
    free(L.wave_cycles);
    if (timed && !L.failed) {
        if (tm)
            emu_timing_end(tm, &L.stats);
        else
            L.stats.model_failed++;
    }
    emu_timing_free(tm);
    if (stats)
        emu_stats_add(stats, &L.stats);
    return L.failed ? -1 : 0;
}

uint64_t emu_stats_cycles(const emu_stats *s)
{
    uint64_t t = 0;
    for (int i = 0; i < EC_COUNT; i++)
        t += s->cycles[i];
    return t;
}

void emu_stats_add(emu_stats *dst, const emu_stats *src)
{
    for (int i = 0; i < EC_COUNT; i++) {
        dst->insts[i] += src->insts[i];
        dst->cycles[i] += src->cycles[i];
    }
    dst->global_read += src->global_read;
    dst->global_written += src->global_written;
    dst->lds_read += src->lds_read;
    dst->lds_written += src->lds_written;
    dst->mfma_flops += src->mfma_flops;
    dst->waves += src->waves;
    dst->workgroups += src->workgroups;
    dst->loop_valu_cycles += src->loop_valu_cycles;
    dst->loop_fma_cycles += src->loop_fma_cycles;
    dst->makespan += src->makespan;
    for (int i = 0; i < EMU_HZ_RULES; i++) {
        emu_hazard_finding *d = &dst->hazards[i];
        const emu_hazard_finding *f = &src->hazards[i];
        if (!f->count)
            continue;
        bool first = !d->count || f->wg < d->wg || (f->wg == d->wg && (f->wave < d->wave || (f->wave == d->wave && f->ws < d->ws)));
        uint64_t n = d->count + f->count;
        if (first)
            *d = *f;
        d->count = n;
    }
    dst->model_cycles += src->model_cycles;
    for (int i = 0; i < EL_LATENCY; i++)
        dst->model_busy[i] += src->model_busy[i];
    dst->model_launches += src->model_launches;
    dst->model_failed += src->model_failed;
    dst->model_line_loaded += src->model_line_loaded;
    dst->model_line_stored += src->model_line_stored;
    dst->model_useful_loaded += src->model_useful_loaded;
    dst->model_useful_stored += src->model_useful_stored;
    dst->model_l1_lookups += src->model_l1_lookups;
    dst->model_l1_hits += src->model_l1_hits;
    dst->model_l2_reads += src->model_l2_reads;
    dst->model_l2_hits += src->model_l2_hits;
    dst->model_hbm_bytes += src->model_hbm_bytes;
    dst->model_lds_cycles += src->model_lds_cycles;
    dst->model_lds_ideal += src->model_lds_ideal;
    for (int i = 0; i < EMU_MODEL_BUFFERS && src->model_buf[i].base; i++) {
        const emu_model_buffer *b = &src->model_buf[i];
        int j = 0;
        while (j < EMU_MODEL_BUFFERS && dst->model_buf[j].base && dst->model_buf[j].base != b->base)
            j++;
        if (j == EMU_MODEL_BUFFERS)
            continue; /* more buffers than slots: the totals above still count them */
        emu_model_buffer *d = &dst->model_buf[j];
        d->base = b->base;
        d->line_loaded += b->line_loaded;
        d->useful_loaded += b->useful_loaded;
        d->line_stored += b->line_stored;
        d->useful_stored += b->useful_stored;
    }
}

uint64_t emu_stats_hazards(const emu_stats *s)
{
    uint64_t n = 0;
    for (int i = 0; i < EMU_HZ_RULES; i++)
        n += s->hazards[i].count;
    return n;
}
