/* The emitter context: output, errors, register pools, labels, kernel scope,
 * descriptor and metadata. Instruction formats live in emit_fmt.c. */
#include "emit.h"
#include "../arch/occupancy.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const opnd VCC = {.kind = OPK_SPECIAL, .count = 2, .name = "vcc"};
const opnd EXEC = {.kind = OPK_SPECIAL, .count = 2, .name = "exec"};
const opnd M0 = {.kind = OPK_SPECIAL, .count = 1, .name = "m0"};
const opnd SCC = {.kind = OPK_SPECIAL, .count = 1, .name = "scc"};
const opnd OFF = {.kind = OPK_OFF, .name = "off"};
const opnd NOOP = {.kind = OPK_NONE};

/* ---- output and errors ---- */

static void out_vappend(emit *e, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if (e->len + (size_t)n + 2 > e->cap) {
        size_t cap = e->cap ? e->cap : 1 << 16;
        while (e->len + (size_t)n + 2 > cap)
            cap *= 2;
        char *nb = realloc(e->buf, cap);
        if (!nb) {
            e->failed = true;
            snprintf(e->err, sizeof e->err, "out of memory");
            return;
        }
        e->buf = nb;
        e->cap = cap;
    }
    vsnprintf(e->buf + e->len, e->cap - e->len, fmt, ap);
    e->len += (size_t)n;
}

static void out_append(emit *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    out_vappend(e, fmt, ap);
    va_end(ap);
}

void emit_line(emit *e, const char *fmt, ...)
{
    if (e->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    out_vappend(e, fmt, ap);
    va_end(ap);
    out_append(e, "\n");
}

void emit_fail(emit *e, const char *fmt, ...)
{
    if (e->failed)
        return;
    e->failed = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(e->err, sizeof e->err, "%s%s%s: %s", e->t->name, e->in_kernel ? " kernel " : "",
             e->in_kernel ? e->k.name : "", msg);
}

void e_comment(emit *e, const char *fmt, ...)
{
    if (e->failed)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit_line(e, "    ; %s", msg);
}

void e_blank(emit *e) { emit_line(e, "%s", ""); }

/* ---- pools ---- */

static void pool_init(pool *p, char kind, int limit)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->limit = limit;
}

static opnd pool_alloc(emit *e, pool *p, opkind kind, const char *name, int count, int align)
{
    opnd r = {.kind = (uint8_t)kind, .count = (uint8_t)count, .name = name};
    if (e->failed)
        return r;
    if (!e->in_kernel) {
        emit_fail(e, "register %s allocated outside a kernel", name);
        return r;
    }
    if (name[0] != p->kind || name[1] != '_') {
        emit_fail(e, "register name %s must start with %c_", name, p->kind);
        return r;
    }
    for (int i = 0; i < p->limit; i++)
        if (p->owner[i] && !strcmp(p->owner[i], name)) {
            emit_fail(e, "register name %s is already live", name);
            return r;
        }
    if (align < 1)
        align = 1;
    for (int base = 0; base + count <= p->limit; base += align) {
        int free = 1;
        for (int i = 0; i < count && free; i++)
            free = !p->owner[base + i];
        if (!free)
            continue;
        for (int i = 0; i < count; i++) {
            p->owner[base + i] = name;
            p->scope[base + i] = (uint8_t)e->nscopes;
        }
        if (base + count > p->high_water)
            p->high_water = base + count;
        r.index = (int16_t)base;
        emit_line(e, ".set %s, %d", name, base);
        return r;
    }
    emit_fail(e, "out of %cGPRs allocating %s[%d] (limit %d)", p->kind - 32, name, count, p->limit);
    return r;
}

static opnd pool_fixed(emit *e, pool *p, opkind kind, const char *name, int index, int count)
{
    opnd r = {.kind = (uint8_t)kind, .count = (uint8_t)count, .name = name, .index = (int16_t)index};
    if (e->failed)
        return r;
    for (int i = index; i < index + count; i++) {
        if (i >= p->limit || p->owner[i]) {
            emit_fail(e, "fixed register %s at %d is taken (%s)", name, i, i < p->limit ? p->owner[i] : "limit");
            return r;
        }
    }
    for (int i = index; i < index + count; i++) {
        p->owner[i] = name;
        p->scope[i] = (uint8_t)e->nscopes;
    }
    if (index + count > p->high_water)
        p->high_water = index + count;
    emit_line(e, ".set %s, %d", name, index);
    return r;
}

static pool *pool_of(emit *e, opnd r)
{
    switch (r.kind) {
    case OPK_SGPR: return &e->sgpr;
    case OPK_VGPR: return &e->vgpr;
    case OPK_AGPR: return &e->agpr;
    default: return NULL;
    }
}

opnd sreg(emit *e, const char *name, int count, int align) { return pool_alloc(e, &e->sgpr, OPK_SGPR, name, count, align); }
opnd vreg(emit *e, const char *name, int count, int align) { return pool_alloc(e, &e->vgpr, OPK_VGPR, name, count, align); }
opnd areg(emit *e, const char *name, int count, int align) { return pool_alloc(e, &e->agpr, OPK_AGPR, name, count, align); }
opnd sreg_fixed(emit *e, const char *name, int index, int count) { return pool_fixed(e, &e->sgpr, OPK_SGPR, name, index, count); }
opnd vreg_fixed(emit *e, const char *name, int index, int count) { return pool_fixed(e, &e->vgpr, OPK_VGPR, name, index, count); }

void rfree(emit *e, opnd r)
{
    pool *p = pool_of(e, r);
    if (e->failed || !p)
        return;
    if (r.name_off != 0) {
        emit_fail(e, "freeing a sub-register of %s", r.name);
        return;
    }
    for (int i = r.index; i < r.index + r.count; i++) {
        if (p->owner[i] != r.name) {
            emit_fail(e, "freeing %s which does not own %c%d", r.name, p->kind, i);
            return;
        }
        p->owner[i] = NULL;
    }
}

opnd alias(emit *e, const char *name, opnd r)
{
    opnd a = r;
    if (!r.name) {
        emit_line(e, ".set %s, %d", name, r.index);
    } else if (r.name_off) {
        emit_line(e, ".set %s, %s+%d", name, r.name, r.name_off);
    } else {
        emit_line(e, ".set %s, %s", name, r.name);
    }
    a.name = name;
    a.name_off = 0;
    return a;
}

opnd at(opnd r, int i) { return sub(r, i, 1); }

opnd sub(opnd r, int i, int count)
{
    opnd s = r;
    if (i < 0 || count < 1 || i + count > r.count) {
        /* An out-of-range sub-register is a generator bug; make it visible
         * to the format checks, which refuse this kind. */
        s.kind = OPK_BAD;
        return s;
    }
    s.index = (int16_t)(r.index + i);
    s.name_off = (int16_t)(r.name_off + i);
    s.count = (uint8_t)count;
    return s;
}

opnd imm(int64_t v) { return (opnd){.kind = OPK_INT, .count = 1, .imm = v}; }
opnd fimm(float f) { return (opnd){.kind = OPK_FLOAT, .count = 1, .f = f}; }

opnd neg(opnd o)
{
    o.mods ^= MOD_NEG;
    return o;
}

opnd fabs_(opnd o)
{
    o.mods |= MOD_ABS;
    return o;
}

/* ---- allocation scopes ---- */

void e_scope_begin(emit *e, const char *name)
{
    if (e->failed)
        return;
    if (!e->in_kernel || e->nscopes == MAX_SCOPES) {
        emit_fail(e, "scope %s: %s", name, e->in_kernel ? "scopes nested too deep" : "opened outside a kernel");
        return;
    }
    e->scopes[e->nscopes++] = name;
}

void e_scope_end(emit *e, const char *name, bool release)
{
    if (e->failed)
        return;
    if (!e->nscopes || strcmp(e->scopes[e->nscopes - 1], name)) {
        emit_fail(e, "scope %s ended while %s is the innermost", name, e->nscopes ? e->scopes[e->nscopes - 1] : "none");
        return;
    }
    pool *pools[] = {&e->sgpr, &e->vgpr, &e->agpr};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < pools[p]->limit; i++) {
            if (!pools[p]->owner[i] || pools[p]->scope[i] != e->nscopes)
                continue;
            if (!release) {
                emit_fail(e, "register %s (%c%d) of scope %s still allocated at its end", pools[p]->owner[i],
                          pools[p]->kind, i, name);
                return;
            }
            pools[p]->owner[i] = NULL;
        }
    e->nscopes--;
}

/* ---- labels ---- */

label e_label_new(emit *e, const char *hint) { return (label){.id = ++e->label_seq, .hint = hint}; }

void e_label(emit *e, label l)
{
    emit_line(e, ".L%d_%s:", l.id, l.hint);
    hz_label(e, l);
}

void e_symbol(emit *e, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    emit_line(e, "%s:", name);
}

/* ---- file and kernel scope ---- */

void emit_init(emit *e, const target *t)
{
    memset(e, 0, sizeof *e);
    e->t = t;
}

void emit_free(emit *e)
{
    hz_free(e);
    free(e->buf);
    free(e->done);
    memset(e, 0, sizeof *e);
}

void emit_begin_file(emit *e)
{
    emit_line(e, "; Generated by igemmgen for %s (%s). Do not edit.", e->t->name, e->t->family);
    emit_line(e, ".amdgcn_target \"amdgcn-amd-amdhsa--%s\"", e->t->name);
    emit_line(e, ".amdhsa_code_object_version 4");
    e_blank(e);
}

void e_kernel_begin(emit *e, const char *name, int block_size)
{
    if (e->failed)
        return;
    if (e->in_kernel) {
        emit_fail(e, "kernel %s begun inside %s", name, e->k.name);
        return;
    }
    memset(&e->k, 0, sizeof e->k);
    snprintf(e->k.name, sizeof e->k.name, "%s", name);
    e->k.block_size = block_size;
    e->in_kernel = true;
    e->nscopes = 0;
    hz_reset(e);
    pool_init(&e->sgpr, 's', e->t->max_sgprs - e->t->sgprs_reserved);
    pool_init(&e->vgpr, 'v', e->t->arch_vgprs);
    pool_init(&e->agpr, 'a', e->t->acc_vgprs);
    e_blank(e);
    emit_line(e, ".text");
    emit_line(e, ".globl %s", name);
    emit_line(e, ".p2align 8");
    emit_line(e, ".type %s,@function", name);
    emit_line(e, "%s:", name);
}

void e_karg(emit *e, const char *name, int offset, int size, bool is_ptr, bool is_const)
{
    if (e->failed)
        return;
    if (e->k.nargs == MAX_KARGS) {
        emit_fail(e, "too many kernel arguments");
        return;
    }
    e->k.args[e->k.nargs++] = (karg){name, offset, size, is_ptr, is_const};
    if (offset + size > e->k.kernarg_size)
        e->k.kernarg_size = offset + size;
}

void e_kernel_lds(emit *e, int bytes)
{
    if (bytes > e->t->lds_bytes)
        emit_fail(e, "LDS use %d exceeds the target's %d bytes", bytes, e->t->lds_bytes);
    e->k.lds_bytes = bytes;
}

static int round_up(int v, int a) { return (v + a - 1) / a * a; }

void e_kernel_end(emit *e)
{
    if (e->failed)
        return;
    kernel_info *k = &e->k;
    if (e->nscopes) {
        emit_fail(e, "scope %s still open at kernel end", e->scopes[e->nscopes - 1]);
        return;
    }
    /* Leak check: every named allocation must have been released. */
    pool *pools[] = {&e->sgpr, &e->vgpr, &e->agpr};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < pools[p]->limit; i++)
            if (pools[p]->owner[i]) {
                emit_fail(e, "register %s (%c%d) still allocated at kernel end", pools[p]->owner[i],
                          pools[p]->kind, i);
                return;
            }
    k->next_free_sgpr = e->sgpr.high_water ? e->sgpr.high_water : 1;
    k->next_free_vgpr = e->vgpr.high_water ? e->vgpr.high_water : 1;
    k->next_free_agpr = e->agpr.high_water;
    k->kernarg_size = round_up(k->kernarg_size, 8);
    /* the wave's allocation (arch/occupancy.h): on gfx908 the larger of
       the two files' counts, on a unified file the AGPRs after accum_offset */
    k->accum_offset = target_accum_offset(e->t, k->next_free_vgpr);
    int total_vgpr = target_wave_vgprs(e->t, k->next_free_vgpr, k->next_free_agpr);
    if (total_vgpr > e->t->vgprs_per_simd) {
        emit_fail(e, "VGPR+AGPR use %d exceeds %d", total_vgpr, e->t->vgprs_per_simd);
        return;
    }

    emit_line(e, "    s_endpgm");
    hz_issue(e, 1);
    emit_line(e, ".Lfunc_end_%s:", k->name);
    emit_line(e, ".size %s, .Lfunc_end_%s - %s", k->name, k->name, k->name);
    e_blank(e);
    emit_line(e, ".rodata");
    emit_line(e, ".p2align 6");
    emit_line(e, ".amdhsa_kernel %s", k->name);
    emit_line(e, "    .amdhsa_group_segment_fixed_size %d", k->lds_bytes);
    emit_line(e, "    .amdhsa_user_sgpr_kernarg_segment_ptr 1");
    emit_line(e, "    .amdhsa_system_sgpr_workgroup_id_x 1");
    emit_line(e, "    .amdhsa_system_vgpr_workitem_id 0");
    emit_line(e, "    .amdhsa_next_free_vgpr %d", total_vgpr);
    emit_line(e, "    .amdhsa_next_free_sgpr %d", k->next_free_sgpr);
    if (e->t->unified_acc_vgprs)
        emit_line(e, "    .amdhsa_accum_offset %d", k->accum_offset);
    emit_line(e, "    .amdhsa_reserve_vcc 1");
    emit_line(e, "    .amdhsa_float_denorm_mode_32 3");
    emit_line(e, "    .amdhsa_float_denorm_mode_16_64 3");
    emit_line(e, ".end_amdhsa_kernel");

    if (e->ndone == MAX_KERNELS) {
        emit_fail(e, "too many kernels in one code object");
        return;
    }
    if (!e->done && !(e->done = calloc(MAX_KERNELS, sizeof *e->done))) {
        emit_fail(e, "out of memory");
        return;
    }
    e->done[e->ndone++] = *k;
    e->in_kernel = false;
}

int emit_finish(emit *e)
{
    if (!e->failed && e->in_kernel)
        emit_fail(e, "kernel %s not ended", e->k.name);
    if (e->failed)
        return -1;
    e_blank(e);
    emit_line(e, ".amdgpu_metadata");
    emit_line(e, "---");
    emit_line(e, "amdhsa.version: [ 1, 1 ]");
    /* the target ID without features: the code object runs with xnack and sramecc either way */
    emit_line(e, "amdhsa.target: \"amdgcn-amd-amdhsa--%s\"", e->t->name);
    emit_line(e, "amdhsa.kernels:");
    for (int i = 0; i < e->ndone; i++) {
        const kernel_info *k = &e->done[i];
        emit_line(e, "  - .name: %s", k->name);
        emit_line(e, "    .symbol: %s.kd", k->name);
        emit_line(e, "    .sgpr_count: %d", k->next_free_sgpr + 2);
        emit_line(e, "    .vgpr_count: %d", k->next_free_vgpr);
        if (e->t->has_mfma)
            emit_line(e, "    .agpr_count: %d", k->next_free_agpr);
        emit_line(e, "    .kernarg_segment_size: %d", k->kernarg_size);
        emit_line(e, "    .kernarg_segment_align: 8");
        emit_line(e, "    .group_segment_fixed_size: %d", k->lds_bytes);
        emit_line(e, "    .private_segment_fixed_size: 0");
        emit_line(e, "    .wavefront_size: 64");
        emit_line(e, "    .sgpr_spill_count: 0");
        emit_line(e, "    .vgpr_spill_count: 0");
        emit_line(e, "    .max_flat_workgroup_size: %d", k->block_size);
        emit_line(e, "    .reqd_workgroup_size: [ %d, 1, 1 ]", k->block_size);
        emit_line(e, "    .args:");
        for (int a = 0; a < k->nargs; a++) {
            const karg *g = &k->args[a];
            if (g->is_ptr)
                emit_line(e,
                          "      - { .name: %s, .size: %d, .offset: %d, .value_kind: global_buffer, "
                          ".address_space: global%s }",
                          g->name, g->size, g->offset, g->is_const ? ", .is_const: true" : "");
            else
                emit_line(e, "      - { .name: %s, .size: %d, .offset: %d, .value_kind: by_value }", g->name,
                          g->size, g->offset);
        }
    }
    emit_line(e, "...");
    emit_line(e, ".end_amdgpu_metadata");
    return e->failed ? -1 : 0;
}
