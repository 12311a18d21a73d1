/* Helpers shared by the executor files (exec.c, exec_valu.c, exec_mem.c,
 * mfma.c): operand access and masked write-back. */
#ifndef IGEMM_EMU_EXEC_H
#define IGEMM_EMU_EXEC_H

#include "emu_int.h"
#include "fp.h"

static inline uint64_t exec_mask(const wave *w) { return (uint64_t)w->s[R_EXEC] | (uint64_t)w->s[R_EXEC + 1] << 32; }
static inline void set_exec(wave *w, uint64_t m)
{
    w->s[R_EXEC] = (uint32_t)m;
    w->s[R_EXEC + 1] = (uint32_t)(m >> 32);
}
static inline uint64_t vcc_mask(const wave *w) { return (uint64_t)w->s[R_VCC] | (uint64_t)w->s[R_VCC + 1] << 32; }

/* 32-bit value of a scalar operand (SGPR, special register or constant). */
static inline uint32_t sval(const wave *w, const emu_opnd *o)
{
    if (o->kind == K_CONST)
        return o->value;
    switch (o->code) {
    case R_SCC: return (uint32_t)w->scc;
    case R_VCCZ: return vcc_mask(w) == 0;
    case R_EXECZ: return exec_mask(w) == 0;
    default: return o->code < 128 ? w->s[o->code] : 0;
    }
}

static inline uint64_t sval64(const wave *w, const emu_opnd *o)
{
    if (o->kind == K_CONST)
        return (uint64_t)o->value | (uint64_t)o->value_hi << 32;
    if (o->code == R_SCC || o->code == R_VCCZ || o->code == R_EXECZ)
        return sval(w, o);
    return o->code < 127 ? (uint64_t)w->s[o->code] | (uint64_t)w->s[o->code + 1] << 32 : 0;
}

static inline void sset(wave *w, uint16_t code, uint32_t v)
{
    if (code < 128)
        w->s[code] = v;
}

static inline void sset64(wave *w, uint16_t code, uint64_t v)
{
    if (code < 127) {
        w->s[code] = (uint32_t)v;
        w->s[code + 1] = (uint32_t)(v >> 32);
    }
}

/* Lane values of a vector operand: a register's lanes, or a scalar
 * broadcast into tmp. `dword` selects the n-th register of a range. */
static inline const uint32_t *vsrc(wave *w, const emu_opnd *o, int dword, uint32_t *tmp)
{
    if (o->kind == K_VGPR)
        return w->v[o->code - R_V0 + dword];
    if (o->kind == K_AGPR)
        return w->a[o->code - R_A0 + dword];
    uint32_t x;
    if (o->kind == K_CONST)
        x = dword ? o->value_hi : o->value;
    else if (o->code < 128 && dword)
        x = w->s[o->code + 1];
    else
        x = sval(w, o);
    for (int l = 0; l < 64; l++)
        tmp[l] = x;
    return tmp;
}

static inline uint32_t *vdst(wave *w, uint16_t code, int dword)
{
    return code >= R_A0 ? w->a[code - R_A0 + dword] : w->v[code - R_V0 + dword];
}

/* Write r to the lanes of exec. */
static inline void wb(uint32_t *d, const uint32_t *r, uint64_t exec)
{
    if (exec == ~0ull) {
        memcpy(d, r, 64 * sizeof *d);
        return;
    }
    for (int l = 0; l < 64; l++)
        if (exec >> l & 1)
            d[l] = r[l];
}

/* Is [a, a+len) inside one registered region? The region of the last hit
 * is kept in c->mem_lo/mem_hi, so a run of accesses to one buffer skips
 * the search. */
static inline bool mem_ok(wg_ctx *c, uintptr_t a, size_t len)
{
    return (a >= c->mem_lo && a < c->mem_hi && len <= c->mem_hi - a) ||
           emu_mem_region(c->dev, a, len, &c->mem_lo, &c->mem_hi);
}

/* Outstanding-operation bookkeeping (exec.c). */
int emu_issue_vm(wg_ctx *c, wave *w, const emu_inst *in, uint16_t code, int width);
int emu_issue_lgkm(wg_ctx *c, wave *w, const emu_inst *in, uint16_t code, int width, bool smem, bool lds_store);
#endif
