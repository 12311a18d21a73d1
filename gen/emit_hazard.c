/* Software hazards in the emitter: the wait states between a VALU write of
 * an SGPR and a later read of it that the target does not interlock
 * (arch/target.h hazard_facts; the emulator checks the same table).
 *
 * Positions count wait states: one per instruction, N+1 per s_nop N. A
 * label's state is the merge (most recent writes) of the fall-through path
 * and of every forward branch to it, each shifted to the label's position;
 * a backward branch cannot change code already written, so it first waits
 * out every pending write. */
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define NREG 128
#define NEVER (-1000000)

typedef struct {
    int last[NREG]; /* position of the last VALU write, NEVER if none */
} hz_state;

struct emit_hz {
    int pos;
    hz_state cur;
    hz_state *labels; /* per label id: merged incoming state, relative to the branch */
    unsigned char *has; /* 0 unseen, 1 branched to (forward), 2 placed */
    int nlabels;
};

static struct emit_hz *get(emit *e)
{
    if (!e->hz) {
        e->hz = calloc(1, sizeof *e->hz);
        if (!e->hz) {
            emit_fail(e, "out of memory");
            return NULL;
        }
        hz_reset(e);
    }
    return e->hz;
}

void hz_reset(emit *e)
{
    struct emit_hz *h = e->hz;
    if (!h)
        return;
    h->pos = 0;
    for (int i = 0; i < NREG; i++)
        h->cur.last[i] = NEVER;
}

static int need_of(const emit *e, int kind)
{
    const hazard_facts *f = &e->t->hz;
    switch (kind) {
    case HZR_VALU: return f->valu_sgpr_valu;
    case HZR_VMEM: return f->valu_sgpr_vmem;
    case HZR_LANESEL: return f->valu_sgpr_lanesel;
    default: return 0;
    }
}

static void regs_of(const opnd *o, int *lo, int *n)
{
    *lo = -1;
    *n = 0;
    if (o->kind == OPK_SGPR) {
        *lo = o->index;
        *n = o->count ? o->count : 1;
    } else if (o->kind == OPK_SPECIAL && o->name) {
        if (!strcmp(o->name, "vcc"))
            *lo = 106, *n = 2;
        else if (!strcmp(o->name, "exec"))
            *lo = 126, *n = 2;
        else if (!strcmp(o->name, "m0"))
            *lo = 124, *n = 1;
    }
}

void hz_reads(emit *e, int kind, const opnd *ops, int n)
{
    struct emit_hz *h = get(e);
    int need = need_of(e, kind);
    if (!h || !need || e->failed)
        return;
    int missing = 0;
    for (int i = 0; i < n; i++) {
        int lo, cnt;
        regs_of(&ops[i], &lo, &cnt);
        for (int r = lo; r >= 0 && r < lo + cnt && r < NREG; r++) {
            int have = h->pos - h->cur.last[r] - 1;
            if (have < need && need - have > missing)
                missing = need - have;
        }
    }
    if (missing)
        e_nops(e, missing); /* e_nops counts its own wait states */
}

void hz_issue(emit *e, int wait_states)
{
    struct emit_hz *h = get(e);
    if (h)
        h->pos += wait_states;
}

void hz_writes(emit *e, const opnd *o)
{
    struct emit_hz *h = get(e);
    int lo, cnt;
    if (!h)
        return;
    regs_of(o, &lo, &cnt);
    /* the write happened at the instruction just counted */
    for (int r = lo; r >= 0 && r < lo + cnt && r < NREG; r++)
        h->cur.last[r] = h->pos - 1;
}

static int grow(emit *e, struct emit_hz *h, int id)
{
    if (id < h->nlabels)
        return 0;
    /* store each block as soon as its realloc succeeds (the old one may be
       gone); nlabels grows once both have, so hz_free stays right on failure */
    int n = id + 64;
    hz_state *l = realloc(h->labels, sizeof *l * (size_t)n);
    if (!l)
        goto oom;
    h->labels = l;
    unsigned char *has = realloc(h->has, sizeof *has * (size_t)n);
    if (!has)
        goto oom;
    memset(has + h->nlabels, 0, sizeof *has * (size_t)(n - h->nlabels));
    h->has = has;
    h->nlabels = n;
    return 0;
oom:
    emit_fail(e, "out of memory");
    return -1;
}

void hz_branch(emit *e, label l)
{
    struct emit_hz *h = get(e);
    if (!h || grow(e, h, l.id))
        return;
    if (h->has[l.id] == 2) {
        /* backward: wait out everything pending before leaving */
        int worst = 0, need = 0;
        for (int kind = HZR_VALU; kind <= HZR_LANESEL; kind++)
            if (need_of(e, kind) > need)
                need = need_of(e, kind);
        for (int r = 0; r < NREG; r++) {
            /* the first instruction after the label runs one wait state after the branch */
            int have = h->pos + 1 - h->cur.last[r] - 1;
            if (need - have > worst)
                worst = need - have;
        }
        if (worst > 0)
            e_nops(e, worst);
        return;
    }
    /* forward: remember the state relative to the instruction after the branch */
    hz_state *s = &h->labels[l.id];
    for (int r = 0; r < NREG; r++) {
        int rel = h->cur.last[r] == NEVER ? NEVER : h->cur.last[r] - (h->pos + 1);
        if (!h->has[l.id] || rel > s->last[r])
            s->last[r] = rel;
    }
    h->has[l.id] = 1;
}

void hz_label(emit *e, label l)
{
    struct emit_hz *h = get(e);
    if (!h || grow(e, h, l.id))
        return;
    if (h->has[l.id] == 1)
        for (int r = 0; r < NREG; r++)
            if (h->labels[l.id].last[r] != NEVER && h->labels[l.id].last[r] + h->pos > h->cur.last[r])
                h->cur.last[r] = h->labels[l.id].last[r] + h->pos;
    h->has[l.id] = 2; /* placed: later branches to it are backward */
}

void hz_free(emit *e)
{
    if (!e->hz)
        return;
    free(e->hz->labels);
    free(e->hz->has);
    free(e->hz);
    e->hz = NULL;
}
