/* The cache pass of the timing model (docs/TIMING.md "Caches"): before the
 * CU simulation, the sampled waves' VMEM lines run through a vector L1 per
 * sampled CU and one L2 shared by the sampled CUs, and every VMEM
 * instruction's trace word records its outcome (TM_OUT_*).
 *
 * Order: each sampled CU holds the workgroups it holds at once
 * (occupancy); the pass takes one memory instruction of each resident
 * wave in turn, CU after CU, and a finished workgroup makes room for the
 * CU's next one. That is the order of a machine where every wave
 * progresses at the same rate: the caches see the interleaving of the
 * waves, not the cycle-exact order of the CU simulation.
 *
 * L1: l1_bytes, l1_ways-way LRU, lines of line_bytes; loads allocate,
 * except device-coherent ones (glc before gfx940, sc1 on gfx940+: the ISA
 * guides' L1 miss-always policy), stores write through without
 * allocating, atomics bypass it. L2: the
 * sampled CUs get their share of it, l2_bytes x sampled / active CUs (each
 * CU's share of the capacity, as on the device where all active CUs
 * stream through it at once), at most their own L2 each (MI300X: one of
 * 4 MiB per XCD), l2_ways-way LRU, write-back with write
 * allocation (a store does not read the line: byte masks); an evicted or,
 * at the end, remaining dirty line is a write-back. A line's set is its
 * number in the sample's device address space (region_of) modulo the
 * sets (consecutive lines fill the sets evenly).
 *
 * An L2 miss of a line no sampled wave touched before is a cold miss; of a
 * line touched before (and evicted) a capacity miss. The unsampled
 * workgroups share cold lines with the sampled ones (weights, overlapping
 * input tiles) in a way the sample cannot see: timing.c bounds the cold
 * misses of the launch by the size of the buffers the sample read from
 * (each such line read from HBM once), and scales the rest by workgroups. */
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

typedef struct {
    uint64_t *tag;    /* line + 1, 0 empty */
    uint64_t *stamp;  /* last use */
    uint8_t *dirty;
    uint64_t sets, clock;
    int ways;
    int fold; /* bits of the set index: sets = 2^fold */
} cache;

/* A cache of bytes in lines of `line` bytes, at least `ways` ways: the
 * sets a power of two (the set index a field of bits, as in hardware), the
 * ways what the capacity leaves per set (ways to 2 x ways - 1: a share of
 * an L2 is not a power of two). */
static int cache_init(cache *c, uint64_t bytes, int line, int ways)
{
    uint64_t lines = bytes / (uint64_t)line;
    c->fold = 0;
    while (((uint64_t)2 << c->fold) * (uint64_t)ways <= lines)
        c->fold++;
    c->sets = (uint64_t)1 << c->fold;
    c->ways = lines / c->sets > (uint64_t)ways ? (int)(lines / c->sets) : ways;
    c->clock = 0;
    size_t n = (size_t)(c->sets * (uint64_t)c->ways);
    c->tag = calloc(n, sizeof *c->tag);
    c->stamp = calloc(n, sizeof *c->stamp);
    c->dirty = calloc(n, 1);
    return c->tag && c->stamp && c->dirty ? 0 : -1;
}

static void cache_free(cache *c)
{
    free(c->tag);
    free(c->stamp);
    free(c->dirty);
}

static uint64_t hash_line(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ x >> 32;
}

/* The set of a line: the low fold bits of its number with the two bit
 * fields above them folded in (xor). Within an aligned run of 2^fold lines
 * the fold is a permutation, so consecutive lines still fill the
 * sets evenly; lines a power of two apart (a tensor's rows, the ranges of
 * a split along GEMM K) no longer all fall into one set, which the
 * hardware's address hashing also prevents. */
static uint64_t cache_set(const cache *c, uint64_t line)
{
    uint64_t x = line;
    if (c->fold)
        x ^= line >> c->fold ^ line >> 2 * c->fold;
    return x & (c->sets - 1);
}

/* Look line up; on a miss with alloc, insert it (LRU) and set *wb when a
 * dirty line is evicted. mark_dirty dirties the line (hit or inserted).
 * Returns whether it hit. */
static bool cache_access(cache *c, uint64_t line, bool alloc, bool mark_dirty, bool *wb)
{
    size_t base = (size_t)(cache_set(c, line) * (uint64_t)c->ways);
    uint64_t *tag = &c->tag[base], *st = &c->stamp[base];
    uint8_t *dy = &c->dirty[base];
    c->clock++;
    int victim = 0;
    for (int i = 0; i < c->ways; i++) {
        if (tag[i] == line + 1) {
            st[i] = c->clock;
            dy[i] |= mark_dirty;
            return true;
        }
        if (st[i] < st[victim])
            victim = i;
    }
    if (alloc) {
        *wb |= tag[victim] && dy[victim];
        tag[victim] = line + 1;
        st[victim] = c->clock;
        dy[victim] = mark_dirty;
    }
    return false;
}

/* Lines any sampled wave touched (open addressing, grows). */
typedef struct {
    uint64_t *slot; /* line + 1 */
    size_t cap, n;
} line_set;

static int set_grow(line_set *s);

/* Insert line; returns 1 when it was new, 0 when present, -1 out of memory. */
static int set_add(line_set *s, uint64_t line)
{
    if (2 * (s->n + 1) > s->cap && set_grow(s))
        return -1;
    size_t i = (size_t)hash_line(line) & (s->cap - 1);
    while (s->slot[i]) {
        if (s->slot[i] == line + 1)
            return 0;
        i = (i + 1) & (s->cap - 1);
    }
    s->slot[i] = line + 1;
    s->n++;
    return 1;
}

static int set_grow(line_set *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1 << 12;
    uint64_t *old = s->slot;
    size_t oc = s->cap;
    s->slot = calloc(cap, sizeof *s->slot);
    if (!s->slot) {
        s->slot = old;
        return -1;
    }
    s->cap = cap;
    s->n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i])
            set_add(s, old[i] - 1);
    free(old);
    return 0;
}

/* The buffer (registered region) holding addr, added to the sample's
 * list when new; NULL when none holds it or the list is full.
 *
 * A new buffer gets its place in the sample's own device address space:
 * right after the previous one, at the next TM_VA_PAGE boundary plus the
 * host address's offset within a page (so that host lines map to whole
 * device lines). Sets are chosen by those device addresses: the cache
 * outcome depends on the buffers' sizes and the order the sample first
 * touches them, not on where the host's allocator put them, so the
 * modeled time is the same from run to run. */
#define TM_VA_PAGE 4096u
static tm_region *region_of(tm_cache_sum *o, const emu_device *d, uint64_t addr, int line)
{
    uintptr_t lo, hi;
    if (!emu_mem_region(d, (uintptr_t)addr, 1, &lo, &hi))
        return NULL;
    for (int i = 0; i < o->nregions; i++)
        if (o->region[i].base == lo)
            return &o->region[i];
    if (o->nregions == TM_MAX_REGIONS)
        return NULL;
    uint64_t va = 0;
    if (o->nregions) {
        const tm_region *pr = &o->region[o->nregions - 1];
        va = (pr->base + pr->line_delta * (uint64_t)line + pr->size + TM_VA_PAGE - 1) / TM_VA_PAGE * TM_VA_PAGE;
    }
    va += lo % TM_VA_PAGE;
    o->region[o->nregions] = (tm_region){.base = lo, .size = hi - lo, .line_delta = (va - lo) / (uint64_t)line};
    return &o->region[o->nregions++];
}

/* Host line x in the sample's device address space (region_of); rg: the
 * instruction's first line's buffer, which holds nearly every line. */
static uint64_t device_line(tm_cache_sum *o, const emu_device *d, const tm_region *rg, uint64_t x, int line)
{
    uint64_t a = x * (uint64_t)line;
    if (!rg || a < rg->base || a - rg->base >= rg->size)
        rg = region_of(o, d, a, line);
    return rg ? x + rg->line_delta : x;
}

typedef struct {
    const tm_cache_in *in;
    cache *l1, l2;
    line_set seen;
    line_set *own; /* [ns]: the lines each sampled CU sent to L2 */
    double wt;     /* the weight of the workgroup being stepped (tm_cache_in.weight) */
    tm_cache_sum *out;
    bool oom;
} pass;

/* One VMEM instruction: its lines e[2..] through the caches, outcome in e[1]. */
static void vmem(pass *p, int s, const emu_inst *ins, uint32_t *e)
{
    int n = (int)(e[0] & 0xffff), lanes = (int)(e[0] >> 16), line = p->in->t->tm.line_bytes;
    bool load = ins->is_load && !ins->is_atomic, atomic = ins->is_atomic;
    unsigned req = 0, cap = 0, cold = 0;
    tm_cache_sum *o = p->out;
    double wt = p->wt, useful = (double)lanes * (atomic ? 4 : ins->mem_bytes) * wt;
    tm_region *rg = n ? region_of(o, p->in->d, ((uint64_t)e[2] | (uint64_t)e[3] << 32) * (uint64_t)line, line) : NULL;
    if (load) {
        o->lines_loaded += n * wt;
        o->useful_loaded += useful;
    } else {
        o->lines_stored += n * wt;
        o->useful_stored += useful;
    }
    if (rg) {
        rg->read |= load || atomic;
        rg->written |= !load;
        *(load ? &rg->lines_loaded : &rg->lines_stored) += n * wt;
        *(load ? &rg->useful_loaded : &rg->useful_stored) += useful;
    }
    for (int i = 0; i < n; i++) {
        uint64_t x = device_line(o, p->in->d, rg, (uint64_t)e[2 + 2 * i] | (uint64_t)e[3 + 2 * i] << 32, line);
        bool wb = false;
        if (load && !(ins->glc || ins->sc1)) { /* device-coherent loads miss L1 */
            o->l1_lookups += wt;
            if (cache_access(&p->l1[s], x, true, false, &wb)) {
                o->l1_hits += wt;
                continue;
            }
        }
        req++;
        bool hit = cache_access(&p->l2, x, true, !load, &wb);
        o->wb_lines += wb * wt;
        int fresh = set_add(&p->seen, x), mine = set_add(&p->own[s], x);
        if (fresh < 0 || mine < 0)
            p->oom = true;
        if (rg) {
            rg->sent += fresh > 0;
            rg->sent_own += mine > 0;
        }
        if (!load && !atomic)
            continue; /* stores allocate without reading */
        o->l2_reads += wt;
        if (hit)
            continue;
        if (fresh > 0)
            cold++;
        else
            cap++;
    }
    o->l2_requests += (atomic ? 2.0 * req : req) * wt;
    o->cold += cold * wt;
    o->capacity += cap * wt;
    tm_demand *own = &o->cu[s]; /* the sample's weighted totals are the ones above */
    own->req += atomic ? 2.0 * req : req, own->cap += cap, own->cold += cold, own->stored += load ? 0 : n;
    e[1] = TM_OUT(req, cap, cold);
}

/* Per sampled CU: its resident workgroups and their waves' positions. */
typedef struct {
    int wg[64], nres, next;
    uint32_t pos[64][16];
    bool done[64][16];
} cu_walk;

/* Advance wave (cu c, resident r, wave w) to and through its next memory
 * instruction; false when its trace has ended. */
static bool step_wave(pass *p, int s, cu_walk *c, int r, int w)
{
    const tm_cache_in *in = p->in;
    emu_trace *t = in->traces[((size_t)s * in->cap + (size_t)c->wg[r]) * (size_t)in->nwaves + (size_t)w];
    uint32_t i = c->pos[r][w];
    p->wt = in->weight[(size_t)s * in->cap + (size_t)c->wg[r]];
    while (i < t->n) {
        const emu_inst *ins = &in->code[t->e[i] & ((1u << EMU_TRACE_PC_BITS) - 1)];
        i++;
        if (!emu_trace_is_mem(ins))
            continue;
        if (ins->fmt == F_DS) {
            p->out->lds_cycles += (t->e[i] & 0xffff) * p->wt;
            p->out->lds_ideal += (t->e[i] >> 16) * p->wt;
            i++;
            continue;
        }
        uint32_t n = t->e[i] & 0xffff;
        vmem(p, s, ins, &t->e[i]);
        c->pos[r][w] = i + 2 + 2 * n;
        return true;
    }
    c->pos[r][w] = i;
    return false;
}

/* Bring CU s's next workgroup into resident slot r; false when none is left. */
static bool admit(const tm_cache_in *in, int s, cu_walk *c, int r)
{
    if ((uint64_t)c->next >= in->count[s])
        return false;
    c->wg[r] = c->next++;
    memset(c->pos[r], 0, sizeof c->pos[r]);
    memset(c->done[r], 0, sizeof c->done[r]);
    return true;
}

/* One pass with an L2 of l2 bytes; *distinct: the lines the sample sent to
 * L2, *own_sum: the same counted per sampled CU and added up. */
static int run_pass(const tm_cache_in *in, tm_cache_sum *out, uint64_t l2, size_t *distinct, double *own_sum)
{
    const timing_facts *f = &in->t->tm;
    memset(out, 0, sizeof *out);
    pass p = {.in = in, .out = out};
    p.own = calloc((size_t)in->ns, sizeof *p.own);
    p.l1 = calloc((size_t)in->ns, sizeof *p.l1);
    cu_walk *w = calloc((size_t)in->ns, sizeof *w);
    int rc = !p.own || !p.l1 || !w || cache_init(&p.l2, l2 > (uint64_t)f->line_bytes ? l2 : (uint64_t)f->line_bytes,
                                       f->line_bytes, f->l2_ways);
    for (int s = 0; !rc && s < in->ns; s++)
        rc = cache_init(&p.l1[s], (uint64_t)f->l1_bytes, f->line_bytes, f->l1_ways);
    int hold = in->max_wg < 64 ? in->max_wg : 64;
    for (int s = 0; !rc && s < in->ns; s++)
        while (w[s].nres < hold && admit(in, s, &w[s], w[s].nres))
            w[s].nres++;
    for (bool any = true; !rc && any && !p.oom;) {
        any = false;
        for (int s = 0; s < in->ns; s++)
            for (int r = 0; r < w[s].nres; r++) {
                bool live = false;
                for (int v = 0; v < in->nwaves; v++)
                    if (!w[s].done[r][v])
                        live |= !(w[s].done[r][v] = !step_wave(&p, s, &w[s], r, v));
                if (!live && !admit(in, s, &w[s], r)) {
                    w[s].wg[r] = w[s].wg[--w[s].nres]; /* slot r takes the last one's */
                    memcpy(w[s].pos[r], w[s].pos[w[s].nres], sizeof w[s].pos[r]);
                    memcpy(w[s].done[r], w[s].done[w[s].nres], sizeof w[s].done[r]);
                    r--;
                }
                any = true;
            }
    }
    /* dirty lines still in L2 are written back at the end (as many times as
       a traced workgroup stands for, on average) */
    double wsum = 0, traced = 0;
    for (int s = 0; s < in->ns; s++)
        for (uint64_t k = 0; k < in->count[s]; k++, traced++)
            wsum += in->weight[(size_t)s * in->cap + (size_t)k];
    for (size_t i = 0; !rc && i < (size_t)(p.l2.sets * (uint64_t)p.l2.ways); i++)
        out->wb_lines += (p.l2.tag[i] && p.l2.dirty[i]) * (traced > 0 ? wsum / traced : 1);
    if (p.oom)
        rc = -1;
    for (int s = 0; p.l1 && s < in->ns; s++)
        cache_free(&p.l1[s]);
    cache_free(&p.l2);
    free(p.l1);
    *distinct = p.seen.n;
    free(p.seen.slot);
    *own_sum = 0;
    for (int s = 0; p.own && s < in->ns; s++) {
        *own_sum += (double)p.own[s].n;
        free(p.own[s].slot);
    }
    free(p.own);
    free(w);
    return rc ? -1 : 0;
}

/* The capacity of one L2 instance that the sample's lines get. The sampled
 * CUs (all of one instance: timing.c) stand for the `others` CUs of that
 * instance; how many distinct lines those add is read from the sample, per
 * buffer: with d the buffer's distinct lines in the sample and S the sum of
 * each sampled CU's own, d = S/ns when they all read the same lines (a
 * filter tile) and d = S when none is shared; u, the share of a CU's lines
 * that no other sampled CU sent, says what a further CU adds: u x S/ns. The
 * instance's footprint is the sum over buffers of d + others x u x S/ns, each
 * at most the buffer's lines; the sample gets the part of one L2 that its
 * lines are of that footprint, all of it when the footprint fits. */
static double sample_capacity(const tm_cache_in *in, const tm_cache_sum *out, double one, double distinct)
{
    double ns = in->ns;
    int inst = in->t->tm.l2_instances > 1 ? in->t->tm.l2_instances : 1;
    double cus = (double)((in->active + (uint64_t)inst - 1) / (uint64_t)inst), others = cus > ns ? cus - ns : 0;
    double footprint = 0;
    for (int i = 0; i < out->nregions; i++) {
        const tm_region *r = &out->region[i];
        double d = r->sent, per_cu = r->sent_own / ns, size = (double)r->size / in->t->tm.line_bytes;
        double u = ns > 1 && r->sent_own > per_cu ? (d - per_cu) / (r->sent_own - per_cu) : 1;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        double fp = d + others * u * per_cu;
        footprint += fp < size ? fp : size;
    }
    if (footprint * in->t->tm.line_bytes <= one)
        return one;
    return footprint > 0 ? one * distinct / footprint : one;
}

int tm_cache_pass(const tm_cache_in *in, tm_cache_sum *out)
{
    const timing_facts *f = &in->t->tm;
    double l2 = f->l2_bytes, one = l2 / (f->l2_instances > 1 ? f->l2_instances : 1);
    double share = l2 * in->ns / (double)in->active;
    size_t distinct;
    double own_sum;
    if (run_pass(in, out, (uint64_t)(share < one ? share : one), &distinct, &own_sum))
        return -1;
    /* lines the sampled CUs share with the rest of their L2's CUs
       (weights, overlapping tiles) take its capacity once for all of them
       (sample_capacity) */
    double held = sample_capacity(in, out, one, (double)distinct), cap = share > held ? share : held;
    if (cap > one)
        cap = one;
    if (cap <= share * 1.01)
        return 0;
    return run_pass(in, out, (uint64_t)cap, &distinct, &own_sum);
}
