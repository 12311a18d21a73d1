/* Software hazards in the emitter: the wait states a target needs between
 * two instructions and does not interlock (arch/target.h hazard_facts, the
 * same facts emu/hazard.c checks), for SGPRs, VGPRs and AGPRs.
 *
 * Every instruction the format functions emit is described to hz_inst_issue
 * (its op-table row, the registers it reads and writes, for an MFMA its
 * table row): the rules that apply to it give the wait states it needs
 * since the last write of each register it touches; the shortfall is
 * inserted as s_nop before it; then its writes are recorded.
 *
 * Like LLVM's GCNHazardRecognizer (and the emulator), a VGPR/AGPR rule
 * counts from the most recent writer of the register: a write of another
 * kind ends an earlier writer's hazard. SGPR rules count from the last VALU
 * write, even when a SALU instruction wrote the register since.
 *
 * Positions count wait states: one per instruction, N+1 per s_nop N.
 * Control flow: a label's state is the merge (most recent write of each
 * kind, the largest MFMA) of the fall-through path and of every forward
 * branch to it. A backward branch cannot change the code already written
 * after its label: it waits until every instruction of the loop body that
 * issues within HZ_WINDOW wait states of the label would be safe on the
 * back edge, and hands its state to the forward branches of that window
 * whose labels are not placed yet. */
#include <stdlib.h>
#include <string.h>

#include "../arch/mfma.h"
#include "emit.h"

#define NS 128              /* SGPR operand codes: s0..s101, vcc 106, m0 124, exec 126 */
#define NV 256
#define NREG (NS + 2 * NV)  /* s*, then v0 at NS, then a0 at NS + NV */
#define NEVER (-1000000)
/* Wait states after which no rule can still apply: the largest need is a
   16-pass MFMA's mfma-read, 1 * 16 + 3 = 19. */
#define HZ_WINDOW 32

/* Writer kinds of a vector register, as emu/hazard.c keeps them. */
enum { HK_VALU, HK_MFMA, HK_ACCW, HK_ACCR, HK_DOT, HK_OTHER, HK_N };

typedef struct {
    int at[HK_N];            /* last write by each kind (SGPRs: at[HK_VALU] only) */
    int cread_until;         /* an overwrite before this position breaks mfma-c-war */
    int store;               /* data of a > 8-byte store issued here (store-data-valu) */
    uint8_t passes, xdl;     /* of the last MFMA write */
    uint16_t dot;            /* op of the last v_dot write */
} hz_reg;

typedef struct {
    hz_reg r[NREG];
    int accrw;               /* last v_accvgpr_read/write (accrw-mem-valu) */
} hz_state;

/* One issued instruction of the current kernel, for backward branches. */
typedef struct {
    hz_inst in;
    int pos;
} hz_logged;

struct emit_hz {
    int pos;
    hz_state cur;
    hz_state *labels;        /* per label id: merged incoming state, relative to the branch */
    unsigned char *has;      /* 0 unseen, 1 branched to (forward), 2 placed */
    int *label_pos, *label_log; /* placed labels: position and log index */
    int nlabels;
    hz_logged *log;          /* the kernel's instructions */
    int nlog, caplog;
};

static void state_clear(hz_state *s)
{
    for (int i = 0; i < NREG; i++) {
        hz_reg *r = &s->r[i];
        for (int k = 0; k < HK_N; k++)
            r->at[k] = NEVER;
        r->cread_until = NEVER;
        r->store = NEVER;
        r->passes = r->xdl = 0;
        r->dot = 0;
    }
    s->accrw = NEVER;
}

static int shifted(int at, int delta) { return at == NEVER ? NEVER : at + delta; }
static int later(int a, int b) { return a > b ? a : b; }

/* dst = the most recent of dst and src shifted by delta (dst_fresh: dst holds nothing yet) */
static void state_merge(hz_state *dst, const hz_state *src, int delta, bool dst_fresh)
{
    if (dst_fresh)
        state_clear(dst);
    for (int i = 0; i < NREG; i++) {
        hz_reg *d = &dst->r[i];
        const hz_reg *s = &src->r[i];
        for (int k = 0; k < HK_N; k++)
            d->at[k] = later(d->at[k], shifted(s->at[k], delta));
        d->cread_until = later(d->cread_until, shifted(s->cread_until, delta));
        d->store = later(d->store, shifted(s->store, delta));
        if (s->passes > d->passes)
            d->passes = s->passes;
        d->xdl |= s->xdl;
        if (s->dot)
            d->dot = s->dot;
    }
    dst->accrw = later(dst->accrw, shifted(src->accrw, delta));
}

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
    h->nlog = 0;
    state_clear(&h->cur);
}

/* ---- registers ---- */

/* The tracked registers of an operand: [*lo, *lo + *n) in the NREG space. */
static void regs_of(const opnd *o, int *lo, int *n)
{
    *lo = 0;
    *n = 0;
    int c = o->count ? o->count : 1;
    if (o->kind == OPK_SGPR) {
        *lo = o->index, *n = c;
    } else if (o->kind == OPK_VGPR) {
        *lo = NS + o->index, *n = c;
    } else if (o->kind == OPK_AGPR) {
        *lo = NS + NV + o->index, *n = c;
    } else if (o->kind == OPK_SPECIAL && o->name) {
        if (!strcmp(o->name, "vcc"))
            *lo = 106, *n = 2;
        else if (!strcmp(o->name, "exec"))
            *lo = 126, *n = 2;
        else if (!strcmp(o->name, "m0"))
            *lo = 124, *n = 1;
    }
    if (*lo < 0 || *lo + *n > NREG)
        *n = 0;
}

static bool is_vec(int r) { return r >= NS; }

/* ---- the rules ---- */

static int pass_need(hz_pass_rule r, int passes)
{
    int n = r.per_pass * passes + r.base;
    return n > 0 ? n : 0;
}

/* A rule's shortfall: need wait states since a write at `at`, now at pos. */
static int short_of(int pos, int at, int need)
{
    if (at == NEVER || need <= 0)
        return 0;
    int have = pos - at - 1;
    return have < need ? need - have : 0;
}

static int most(int a, int b) { return a > b ? a : b; }

/* the last VALU-kind write (VALU, v_accvgpr_read, v_dot) of a vector register */
static int valu_at(const hz_reg *r) { return most(r->at[HK_VALU], most(r->at[HK_ACCR], r->at[HK_DOT])); }

/* Is [lo, lo + n) exactly the destination of the MFMA that wrote at `at`? */
static bool same_tuple(const hz_state *s, int lo, int n, int at)
{
    for (int r = lo; r < lo + n; r++)
        if (s->r[r].at[HK_MFMA] != at)
            return false;
    int file_lo = lo >= NS + NV ? NS + NV : NS;
    if (lo > file_lo && s->r[lo - 1].at[HK_MFMA] == at)
        return false;
    return !(lo + n < file_lo + NV && s->r[lo + n].at[HK_MFMA] == at);
}

static const hz_pass_rule *pick(const hz_pass_rule rule[2], bool xdl) { return &rule[xdl ? 0 : 1]; }

/* MFMA operands: A (rd[0]), B (rd[1]), C (rd[2]). */
static int mfma_need(const emit *e, const hz_state *s, int pos, const hz_inst *in)
{
    const hazard_facts *f = &e->t->hz;
    bool xdl = in->mfma && mfma_is_xdl(in->mfma);
    int worst = short_of(pos, s->r[126].at[HK_VALU], f->valu_exec_mfma);
    for (int k = 0; k < 3 && k < in->nrd; k++) {
        int lo, n;
        regs_of(&in->rd[k], &lo, &n);
        bool is_c = k == 2;
        for (int r = lo; r < lo + n; r++) {
            if (!is_vec(r))
                continue;
            const hz_reg *g = &s->r[r];
            worst = most(worst, short_of(pos, most(g->at[HK_VALU], g->at[HK_ACCR]), f->valu_mfma));
            worst = most(worst, short_of(pos, g->at[HK_ACCW], is_c ? f->accw_mfma_c : f->accw_mfma_ab));
            int m = g->at[HK_MFMA], need;
            if (m == NEVER)
                continue;
            if (!is_c)
                need = pass_need(*pick(f->mfma_ab, g->xdl), g->passes);
            else if (same_tuple(s, lo, n, m))
                need = g->passes == 2 ? f->mfma_same_c_2pass : 0;
            else if (f->mfma_c_smfma_xdl_free && xdl && !g->xdl)
                need = 0;
            else
                need = pass_need(*pick(f->mfma_c_overlap, g->xdl), g->passes);
            worst = most(worst, short_of(pos, m, need));
        }
    }
    return worst;
}

/* Vector registers read and written by a VALU or memory instruction. */
static int vector_need(const emit *e, const hz_state *s, int pos, const hz_inst *in)
{
    const hazard_facts *f = &e->t->hz;
    unsigned fl = in->info->flags;
    bool mem = in->info->cls == IC_VMEM || in->info->cls == IC_DS, valu = in->info->cls == IC_VALU;
    int worst = 0;
    for (int k = 0; k < in->nrd; k++) {
        int lo, n;
        regs_of(&in->rd[k], &lo, &n);
        bool dot_c = (fl & ISAF_DOT) && k == 2;
        for (int r = lo; r < lo + n; r++) {
            if (!is_vec(r))
                continue;
            const hz_reg *g = &s->r[r];
            worst = most(worst, short_of(pos, g->at[HK_MFMA], pass_need(*pick(f->mfma_read, g->xdl), g->passes)));
            if (fl & ISAF_ACC_READ)
                worst = most(worst, short_of(pos, g->at[HK_ACCW], f->accw_accr));
            if (mem)
                worst = most(worst, short_of(pos, g->at[HK_ACCR], f->accr_mem));
            if (mem && f->accrw_mem_valu && short_of(pos, g->at[HK_VALU], 2))
                worst = most(worst, short_of(pos, s->accrw, f->accrw_mem_valu));
            if (!(dot_c && g->dot == in->info->op))
                worst = most(worst, short_of(pos, g->at[HK_DOT], f->dot_read));
            if ((fl & ISAF_SDST) && k == 0)
                worst = most(worst, short_of(pos, most(valu_at(g), g->at[HK_MFMA]), f->valu_vgpr_readlane));
            if ((fl & ISAF_ACC_WRITE) && k == 0)
                worst = most(worst, short_of(pos, valu_at(g), f->valu_accw));
        }
    }
    for (int k = 0; k < in->nwr; k++) {
        int lo, n;
        regs_of(&in->wr[k], &lo, &n);
        for (int r = lo; r < lo + n; r++) {
            if (!is_vec(r))
                continue;
            const hz_reg *g = &s->r[r];
            worst = most(worst, short_of(pos, g->at[HK_MFMA], pass_need(*pick(f->mfma_waw, g->xdl), g->passes)));
            if (fl & ISAF_ACC_WRITE)
                worst = most(worst, short_of(pos, g->at[HK_ACCW], f->accw_accw));
            if (g->dot != in->info->op)
                worst = most(worst, short_of(pos, g->at[HK_DOT], f->dot_waw));
            if (g->cread_until != NEVER && g->cread_until > pos)
                worst = most(worst, g->cread_until - pos);
            if (valu)
                worst = most(worst, short_of(pos, g->store, f->store_data_valu));
        }
    }
    return worst;
}

/* SGPR and EXEC rules. */
static int scalar_need(const emit *e, const hz_state *s, int pos, const hz_inst *in)
{
    const hazard_facts *f = &e->t->hz;
    unsigned fl = in->info->flags;
    int cls = in->info->cls, worst = 0;
    int need = cls == IC_VALU ? f->valu_sgpr_valu : cls == IC_VMEM ? f->valu_sgpr_vmem : 0;
    for (int k = 0; k < in->nrd; k++) {
        int lo, n, kneed = need;
        if ((fl & ISAF_LANESEL) && k == 1 && f->valu_sgpr_lanesel > kneed)
            kneed = f->valu_sgpr_lanesel;
        regs_of(&in->rd[k], &lo, &n);
        for (int r = lo; r < lo + n; r++)
            if (!is_vec(r))
                worst = most(worst, short_of(pos, s->r[r].at[HK_VALU], kneed));
    }
    if (fl & (ISAF_SDST | ISAF_LANESEL))
        worst = most(worst, short_of(pos, s->r[126].at[HK_VALU], f->valu_exec_lane));
    if (fl & ISAF_ACC_WRITE)
        worst = most(worst, short_of(pos, s->r[126].at[HK_VALU], f->valu_exec_accw));
    return worst;
}

/* Wait states instruction in still needs at pos in state s. */
static int need_of(const emit *e, const hz_state *s, int pos, const hz_inst *in)
{
    if (!in->info)
        return 0;
    int worst = scalar_need(e, s, pos, in);
    if (in->info->cls == IC_MFMA)
        worst = most(worst, mfma_need(e, s, pos, in));
    else if (in->info->cls == IC_VALU || in->info->cls == IC_VMEM || in->info->cls == IC_DS)
        worst = most(worst, vector_need(e, s, pos, in));
    return worst;
}

/* Record the writes of in, issued at pos. */
static void record(const emit *e, hz_state *s, int pos, const hz_inst *in)
{
    const hazard_facts *f = &e->t->hz;
    if (!in->info)
        return;
    unsigned fl = in->info->flags;
    int kind = HK_OTHER, passes = 0;
    bool xdl = false;
    if (in->info->cls == IC_MFMA && in->mfma) {
        kind = HK_MFMA;
        passes = mfma_passes(in->mfma);
        xdl = mfma_is_xdl(in->mfma);
        int lo, n;
        regs_of(&in->rd[2], &lo, &n);
        int until = pos + pass_need(*pick(f->mfma_c_war, xdl), passes) + 1;
        for (int r = lo; r < lo + n; r++)
            if (is_vec(r))
                s->r[r].cread_until = later(s->r[r].cread_until, until);
    } else if (fl & ISAF_ACC_WRITE) {
        kind = HK_ACCW;
        s->accrw = pos;
    } else if (fl & ISAF_ACC_READ) {
        kind = HK_ACCR;
        s->accrw = pos;
    } else if ((fl & ISAF_DOT) && (f->dot_read || f->dot_waw)) {
        kind = HK_DOT;
    } else if (in->info->cls == IC_VALU) {
        kind = HK_VALU;
    }
    bool valuish = kind != HK_OTHER && kind != HK_ACCW;
    for (int k = 0; k < in->nwr; k++) {
        int lo, n;
        regs_of(&in->wr[k], &lo, &n);
        for (int r = lo; r < lo + n; r++) {
            hz_reg *g = &s->r[r];
            if (!is_vec(r)) {
                if (valuish) /* as in LLVM, SALU writes are not recorded */
                    g->at[HK_VALU] = pos;
                continue;
            }
            for (int x = 0; x < HK_N; x++)
                g->at[x] = NEVER;
            g->at[kind] = pos;
            g->passes = (uint8_t)passes;
            g->xdl = xdl;
            g->dot = kind == HK_DOT ? (uint16_t)in->info->op : 0;
        }
    }
    int lo, n;
    regs_of(&in->store_data, &lo, &n);
    for (int r = lo; r < lo + n; r++)
        s->r[r].store = pos;
}

/* ---- the log of the kernel's instructions ---- */

static void log_inst(emit *e, struct emit_hz *h, const hz_inst *in)
{
    if (h->nlog == h->caplog) {
        int cap = h->caplog ? 2 * h->caplog : 1024;
        hz_logged *l = realloc(h->log, sizeof *l * (size_t)cap);
        if (!l) {
            emit_fail(e, "out of memory");
            return;
        }
        h->log = l;
        h->caplog = cap;
    }
    h->log[h->nlog++] = (hz_logged){*in, h->pos};
}

void hz_inst_issue(emit *e, const hz_inst *in)
{
    struct emit_hz *h = get(e);
    if (!h || e->failed)
        return;
    int missing = need_of(e, &h->cur, h->pos, in);
    if (missing)
        e_nops(e, missing); /* e_nops counts its own wait states */
    log_inst(e, h, in);
    record(e, &h->cur, h->pos, in);
    h->pos += 1;
}

/* ---- wait states of instructions printed outside hz_inst_issue (s_nop,
 * s_waitcnt, s_endpgm: no register operands) ---- */

void hz_issue(emit *e, int wait_states)
{
    struct emit_hz *h = get(e);
    if (h)
        h->pos += wait_states;
}

/* ---- control flow ---- */

static int grow(emit *e, struct emit_hz *h, int id)
{
    if (id < h->nlabels)
        return 0;
    /* store each block as soon as its realloc succeeds (the old one may be
       gone); nlabels grows once all have, so hz_free stays right on failure */
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
    int *lp = realloc(h->label_pos, sizeof *lp * (size_t)n);
    if (!lp)
        goto oom;
    h->label_pos = lp;
    int *ll = realloc(h->label_log, sizeof *ll * (size_t)n);
    if (!ll)
        goto oom;
    h->label_log = ll;
    h->nlabels = n;
    return 0;
oom:
    emit_fail(e, "out of memory");
    return -1;
}

/* Hand state s, as it is `delta` wait states before the instruction after
   a forward branch to label id, to that label. */
static void to_label(struct emit_hz *h, int id, const hz_state *s, int delta)
{
    state_merge(&h->labels[id], s, delta, !h->has[id]);
    h->has[id] = 1;
}

void hz_branch(emit *e, label l)
{
    struct emit_hz *h = get(e);
    if (!h || grow(e, h, l.id))
        return;
    if (h->has[l.id] != 2) {
        /* forward: remember the state relative to the instruction after the branch */
        to_label(h, l.id, &h->cur, -(h->pos + 1));
        return;
    }
    /* backward: the body's first instruction runs one wait state after the branch */
    int start = h->pos + 1 - h->label_pos[l.id], worst = 0;
    for (int i = h->label_log[l.id]; i < h->nlog; i++) {
        const hz_logged *g = &h->log[i];
        int rel = g->pos - h->label_pos[l.id];
        if (rel >= HZ_WINDOW)
            break;
        worst = most(worst, need_of(e, &h->cur, g->pos + start, &g->in));
    }
    if (worst > 0)
        e_nops(e, worst);
    start = h->pos + 1 - h->label_pos[l.id];
    for (int i = h->label_log[l.id]; i < h->nlog; i++) {
        const hz_logged *g = &h->log[i];
        if (g->pos - h->label_pos[l.id] >= HZ_WINDOW)
            break;
        if (g->in.label > 0 && g->in.label < h->nlabels && h->has[g->in.label] != 2)
            to_label(h, g->in.label, &h->cur, -(g->pos + start + 1));
    }
}

void hz_label(emit *e, label l)
{
    struct emit_hz *h = get(e);
    if (!h || grow(e, h, l.id))
        return;
    if (h->has[l.id] == 1)
        state_merge(&h->cur, &h->labels[l.id], h->pos, false);
    h->has[l.id] = 2; /* placed: later branches to it are backward */
    h->label_pos[l.id] = h->pos;
    h->label_log[l.id] = h->nlog;
}

void hz_free(emit *e)
{
    if (!e->hz)
        return;
    free(e->hz->labels);
    free(e->hz->has);
    free(e->hz->label_pos);
    free(e->hz->label_log);
    free(e->hz->log);
    free(e->hz);
    e->hz = NULL;
}
