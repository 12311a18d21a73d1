/* The wave executor: the instruction loop with its strictness checks
 * (registers beyond the descriptor's allocation, use of data a load has not
 * yet delivered), scalar ALU, scalar memory, program control and s_waitcnt.
 * Vector ALU is in exec_valu.c, memory in exec_mem.c, MFMA in mfma.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"
#include "timing.h"

int emu_exec_valu(wg_ctx *c, wave *w, const emu_inst *in);
/* v_fmac_f32 of VGPRs without modifiers (in->plain_fmac) with denormals
 * kept (mode 3): the result straight into its lanes (exec_valu.c). */
void emu_exec_fmac(wave *w, const emu_inst *in);
int emu_exec_mem(wg_ctx *c, wave *w, const emu_inst *in);

int emu_fault(wg_ctx *c, wave *w, const char *fmt, ...)
{
    if (c->failed)
        return -1;
    c->failed = true;
    char msg[512], text[160] = "?";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const emu_kernel *k = c->k;
    unsigned long long pc = 0;
    if (w && w->pc >= 0 && w->pc < k->ninsts) {
        emu_disasm(&k->code[w->pc], text, sizeof text);
        pc = (unsigned long long)k->code[w->pc].pc;
    }
    if (c->err && c->errlen) {
        if (w)
            snprintf(c->err, c->errlen, "%s kernel %s: workgroup (%u,%u,%u) wave %d pc 0x%llx `%s`: %s",
                     c->dev->t->name, k->info.name, c->wg[0], c->wg[1], c->wg[2], w->id, pc, text, msg);
        else
            snprintf(c->err, c->errlen, "%s kernel %s: workgroup (%u,%u,%u): %s", c->dev->t->name, k->info.name,
                     c->wg[0], c->wg[1], c->wg[2], msg);
    }
    return -1;
}

/* ---- register bounds and outstanding loads ---- */

/* in's register operands read (pass 0) or written (pass 1): how many, and
 * their first codes and widths. */
static int inst_operands(const emu_inst *in, int pass, const uint16_t **codes, const uint8_t **widths)
{
    *codes = pass ? in->wr : in->rd;
    *widths = pass ? in->wrw : in->rdw;
    return pass ? in->nwr : in->nrd;
}

int emu_pend_abase(const emu_kernel_info *ki) { return ki->unified_total > 0 ? ki->accum_offset : 512; }

static unsigned pend_bit_at(int abase, unsigned code)
{
    if (code >= R_A0)
        return 128 + (unsigned)abase + (code - R_A0);
    if (code >= R_V0)
        return 128 + (code - R_V0);
    return code;
}

static unsigned pend_bit(const wave *w, unsigned code) { return pend_bit_at(w->pend_abase, code); }

void emu_pend_span(const emu_kernel *k, emu_inst *in)
{
    int abase = emu_pend_abase(&k->info);
    in->npend = 0;
    for (int pass = 0; pass < 2; pass++) {
        const uint16_t *codes;
        const uint8_t *widths;
        int n = inst_operands(in, pass, &codes, &widths);
        for (int i = 0; i < n; i++)
            for (unsigned r = pend_bit_at(abase, codes[i]), e = r + widths[i]; r < e; r++) {
                int j = 0;
                while (j < in->npend && in->pend_word[j] != r / 64)
                    j++;
                if (j == in->npend) {
                    if (j == 4) {
                        in->npend = EMU_PEND_MANY;
                        return;
                    }
                    in->pend_word[j] = (uint8_t)(r / 64);
                    in->pend_mask[j] = 0;
                    in->npend++;
                }
                in->pend_mask[j] |= 1ull << (r % 64);
            }
    }
}

/* The mask of n bits (1 <= n <= 64) from bit sh of a word (sh + n <= 64). */
static inline uint64_t bits_at(unsigned sh, unsigned n) { return (n == 64 ? ~0ull : (1ull << n) - 1) << sh; }

/* Is any of the bits [b, b + n) of the pending-load bitmap set? */
static inline bool pend_any(const wave *w, unsigned b, unsigned n)
{
    unsigned sh = b & 63;
    if (sh + n <= 64) /* the common case: within one word */
        return (w->pend[b >> 6] & bits_at(sh, n)) != 0;
    for (unsigned i = b; i < b + n; i++)
        if (w->pend[i >> 6] >> (i & 63) & 1)
            return true;
    return false;
}

/* Set the bits [b, b + n) to v. */
static void pend_set(wave *w, unsigned b, unsigned n, bool v)
{
    for (unsigned i = b; i < b + n;) {
        unsigned sh = i & 63, k = 64 - sh < b + n - i ? 64 - sh : b + n - i;
        uint64_t m = bits_at(sh, k);
        w->pend[i >> 6] = v ? w->pend[i >> 6] | m : w->pend[i >> 6] & ~m;
        i += k;
    }
}

void emu_reg_name(unsigned code, char *buf, size_t len)
{
    if (code >= R_A0)
        snprintf(buf, len, "a%u", code - R_A0);
    else if (code >= R_V0)
        snprintf(buf, len, "v%u", code - R_V0);
    else if (code == R_VCC || code == R_VCC + 1)
        snprintf(buf, len, "vcc");
    else if (code == R_EXEC || code == R_EXEC + 1)
        snprintf(buf, len, "exec");
    else if (code == R_M0)
        snprintf(buf, len, "m0");
    else
        snprintf(buf, len, "s%u", code);
}

/* The outstanding operation that writes register code (for reports). */
static const pend_op *pending_writer(const wave *w, unsigned code)
{
    for (int i = 0; i < w->vm_n; i++) {
        const pend_op *p = &w->vmq[(w->vm_head + i) % VM_QUEUE];
        if (p->code != R_NONE && code >= p->code && code < (unsigned)p->code + p->width)
            return p;
    }
    for (int i = 0; i < w->lq_n; i++) {
        const pend_op *p = &w->lq[i];
        if (p->code != R_NONE && code >= p->code && code < (unsigned)p->code + p->width)
            return p;
    }
    return NULL;
}

static int pending_fault(wg_ctx *c, wave *w, unsigned code, bool write)
{
    char r[16], by[160] = "a load";
    emu_reg_name(code, r, sizeof r);
    const pend_op *p = pending_writer(w, code);
    const char *cnt = "s_waitcnt";
    if (p) {
        char t[128];
        emu_disasm(&c->k->code[p->pc], t, sizeof t);
        snprintf(by, sizeof by, "`%s` at pc 0x%llx", t, (unsigned long long)c->k->code[p->pc].pc);
        cnt = p->smem ? "s_waitcnt lgkmcnt(0)" : c->k->code[p->pc].fmt == F_DS ? "s_waitcnt lgkmcnt" : "s_waitcnt vmcnt";
    }
    return emu_fault(c, w, "%s %s while %s into it is outstanding (missing %s)", write ? "overwrites" : "reads", r, by,
                     cnt);
}

/* A VGPR/AGPR beyond the allocation. On a unified file (gfx90a+) VGPRs are
 * limited by the total allocation and AGPR ai is physical accum_offset + i. */
static int regs_fault(wg_ctx *c, wave *w, unsigned code)
{
    const emu_kernel_info *ki = &c->k->info;
    bool agpr = code >= R_A0;
    unsigned r = code - (agpr ? R_A0 : R_V0);
    if (!ki->unified_total)
        return emu_fault(c, w, "%c%u beyond the %d %s the descriptor allocates", agpr ? 'a' : 'v', r,
                         agpr ? w->na : w->nv, agpr ? "AGPRs" : "VGPRs");
    if (agpr)
        return emu_fault(c, w,
                         "a%u beyond the %d AGPRs the descriptor allocates (physical register %u of a unified "
                         "file of %d, AGPRs from accum_offset %d)",
                         r, w->na, r + (unsigned)ki->accum_offset, ki->unified_total, ki->accum_offset);
    return emu_fault(c, w, "v%u beyond the %d VGPRs the descriptor allocates (the unified file's total)", r, w->nv);
}

/* The register counts of a wave of kernel k, as launch.c allocates them. */
static void reg_counts(const emu_kernel_info *ki, int *nv, int *na)
{
    bool unified = ki->unified_total > 0;
    *nv = unified ? ki->unified_total : ki->vgprs;
    *na = unified ? (ki->unified_total > ki->accum_offset ? ki->unified_total - ki->accum_offset : 0) : ki->agprs;
}

/* The last register of in's first operand (reads, then writes) that lies
 * beyond an allocation of nv VGPRs, na AGPRs and sgprs SGPRs (special
 * SGPRs from 102 on are always there), or R_NONE when every one is inside.
 * A tuple that runs past the last register of its file (s127, v255, a255:
 * s[124:131], v[255:256]) is returned as its first register with *past
 * set: no allocation holds it. */
static unsigned reg_beyond(const emu_inst *in, int nv, int na, int sgprs, bool *past)
{
    *past = false;
    for (int pass = 0; pass < 2; pass++) {
        const uint16_t *codes;
        const uint8_t *widths;
        int n = inst_operands(in, pass, &codes, &widths);
        for (int i = 0; i < n; i++) {
            unsigned code = codes[i], wd = widths[i];
            unsigned first = code >= R_A0 ? code - R_A0 : code >= R_V0 ? code - R_V0 : code;
            if (first + wd > (code >= R_V0 ? 256u : 128u)) {
                *past = true;
                return code;
            }
            if (code >= R_A0 ? code - R_A0 + wd > (unsigned)na
                : code >= R_V0 ? code - R_V0 + wd > (unsigned)nv
                               : code + wd - 1 < 102 && code + wd > (unsigned)sgprs)
                return code + wd - 1;
        }
    }
    return R_NONE;
}

bool emu_regs_in_bounds(const emu_kernel *k, const emu_inst *in)
{
    int nv, na;
    reg_counts(&k->info, &nv, &na);
    bool past;
    return reg_beyond(in, nv, na, k->info.sgprs, &past) == R_NONE;
}

/* Reads or overwrites of registers an outstanding load writes (the bounds
 * are known to hold). */
static int check_pending(wg_ctx *c, wave *w, const emu_inst *in)
{
    if (!w->vm_n && !w->lq_n) /* nothing outstanding: no register is pending */
        return 0;
    if (in->npend != EMU_PEND_MANY) { /* the loader's words: a set bit means one of them is pending */
        uint64_t any = 0;
        for (int i = 0; i < in->npend; i++)
            any |= w->pend[in->pend_word[i]] & in->pend_mask[i];
        if (!any)
            return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        const uint16_t *codes;
        const uint8_t *widths;
        int n = inst_operands(in, pass, &codes, &widths);
        for (int i = 0; i < n; i++) {
            unsigned b = pend_bit(w, codes[i]);
            if (pend_any(w, b, widths[i]))
                for (unsigned j = 0; j < widths[i]; j++)
                    if (pend_any(w, b + j, 1))
                        return pending_fault(c, w, codes[i] + j, pass);
        }
    }
    return 0;
}

/* The register operands of in against the wave's allocation (unless the
 * loader found them inside: regs_ok), then against outstanding loads. */
static int check_regs(wg_ctx *c, wave *w, const emu_inst *in)
{
    const emu_kernel_info *ki = &c->k->info;
    bool past = false;
    unsigned bad = in->regs_ok ? R_NONE : reg_beyond(in, w->nv, w->na, ki->sgprs, &past);
    if (past) {
        char r[16];
        emu_reg_name(bad, r, sizeof r);
        return emu_fault(c, w, "a register tuple from %s runs past the last register of its file", r);
    }
    if (bad >= R_V0 && bad != R_NONE)
        return regs_fault(c, w, bad);
    if (bad != R_NONE)
        return emu_fault(c, w, "s%u beyond the %d SGPRs the descriptor allocates", bad, ki->sgprs);
    return check_pending(c, w, in);
}

/* ---- outstanding memory operations ---- */

static void set_pend(wave *w, uint16_t code, int width, uint8_t v)
{
    if (code == R_NONE || width <= 0)
        return;
    pend_set(w, pend_bit(w, code), (unsigned)width, v);
}

static void wait_vm(wave *w, int n);
static void wait_lgkm(wave *w, int n);

/* The counters are as wide as the target's s_waitcnt fields (vmcnt_max,
 * lgkmcnt_max: 63 and 15 on gfx9): an operation issued with that many
 * outstanding stalls until the counter drops, which retires what every
 * completion order guarantees, as s_waitcnt would. */
int emu_issue_vm(wg_ctx *c, wave *w, const emu_inst *in, uint16_t code, int width)
{
    int vm_max = c->dev->t->vmcnt_max;
    if (w->vm_n >= vm_max)
        wait_vm(w, vm_max - 1);
    if (w->vm_n == VM_QUEUE)
        return emu_fault(c, w, "more than %d vector memory operations outstanding", VM_QUEUE);
    pend_op *p = &w->vmq[(w->vm_head + w->vm_n++) % VM_QUEUE];
    *p = (pend_op){.code = code, .width = (uint8_t)width, .pc = (int32_t)(in - c->k->code)};
    set_pend(w, code, width, 1);
    return 0;
}

int emu_issue_lgkm(wg_ctx *c, wave *w, const emu_inst *in, uint16_t code, int width, bool smem, bool lds_store)
{
    int lgkm_max = c->dev->t->lgkmcnt_max;
    if (w->lq_n >= lgkm_max)
        wait_lgkm(w, lgkm_max - 1);
    if (w->lq_n == LGKM_QUEUE)
        return emu_fault(c, w, "more than %d LDS/scalar memory operations outstanding", LGKM_QUEUE);
    w->lq[w->lq_n++] = (pend_op){.code = code, .width = (uint8_t)width, .smem = smem, .lds_store = lds_store,
                                 .pc = (int32_t)(in - c->k->code), .seq = smem ? 0 : c->lds_seq};
    set_pend(w, code, width, 1);
    return 0;
}

static void wait_vm(wave *w, int n)
{
    while (w->vm_n > n) {
        pend_op *p = &w->vmq[w->vm_head];
        set_pend(w, p->code, p->width, 0);
        w->vm_head = (w->vm_head + 1) % VM_QUEUE;
        w->vm_n--;
    }
}

/* lgkmcnt(n): at most n operations remain. LDS returns in order, scalar
 * memory in any order, so only what every completion order guarantees is
 * retired: the LDS operations with more than n LDS operations after (and
 * including) them, and scalar loads only when n == 0. */
static void wait_lgkm(wave *w, int n)
{
    int lds_total = 0;
    for (int i = 0; i < w->lq_n; i++)
        lds_total += !w->lq[i].smem;
    int rank = 0, keep = 0;
    for (int i = 0; i < w->lq_n; i++) {
        pend_op *p = &w->lq[i];
        bool done = p->smem ? n == 0 : lds_total - rank > n;
        if (!p->smem)
            rank++;
        if (done)
            set_pend(w, p->code, p->width, 0);
        else
            w->lq[keep++] = *p;
    }
    w->lq_n = keep;
}

/* ---- scalar ALU ---- */

/* SOPK: the 16-bit immediate against or into the destination SGPR. */
static int exec_sopk(wg_ctx *c, wave *w, const emu_inst *in)
{
    uint16_t d = in->dst.code;
    int32_t k16 = in->simm16;
    uint32_t r;
    switch ((isa_op)in->op) {
    case OP_S_MOVK_I32: sset(w, d, (uint32_t)k16); break;
    case OP_S_CMOVK_I32: if (w->scc) sset(w, d, (uint32_t)k16); break;
    case OP_S_CMPK_EQ_I32: w->scc = (int32_t)w->s[d] == k16; break;
    case OP_S_CMPK_LG_I32: w->scc = (int32_t)w->s[d] != k16; break;
    case OP_S_CMPK_GT_I32: w->scc = (int32_t)w->s[d] > k16; break;
    case OP_S_CMPK_GE_I32: w->scc = (int32_t)w->s[d] >= k16; break;
    case OP_S_CMPK_LT_I32: w->scc = (int32_t)w->s[d] < k16; break;
    case OP_S_CMPK_LE_I32: w->scc = (int32_t)w->s[d] <= k16; break;
    case OP_S_CMPK_EQ_U32: w->scc = w->s[d] == (uint16_t)k16; break;
    case OP_S_CMPK_LG_U32: w->scc = w->s[d] != (uint16_t)k16; break;
    case OP_S_CMPK_GT_U32: w->scc = w->s[d] > (uint16_t)k16; break;
    case OP_S_CMPK_GE_U32: w->scc = w->s[d] >= (uint16_t)k16; break;
    case OP_S_CMPK_LT_U32: w->scc = w->s[d] < (uint16_t)k16; break;
    case OP_S_CMPK_LE_U32: w->scc = w->s[d] <= (uint16_t)k16; break;
    case OP_S_ADDK_I32: {
        int32_t o = (int32_t)w->s[d];
        r = (uint32_t)o + (uint32_t)k16;
        w->scc = ((o >= 0) == (k16 >= 0)) && (((int32_t)r >= 0) != (o >= 0));
        sset(w, d, r);
        break;
    }
    case OP_S_MULK_I32: sset(w, d, w->s[d] * (uint32_t)k16); break;
    default:
        return emu_fault(c, w, "scalar operation not implemented by the emulator");
    }
    return 0;
}

/* SOPC: compares into SCC. */
static int exec_sopc(wg_ctx *c, wave *w, const emu_inst *in, uint32_t x, uint32_t y, uint64_t X, uint64_t Y)
{
    int32_t sx = (int32_t)x, sy = (int32_t)y;
    switch ((isa_op)in->op) {
    case OP_S_CMP_EQ_I32: case OP_S_CMP_EQ_U32: w->scc = x == y; break;
    case OP_S_CMP_LG_I32: case OP_S_CMP_LG_U32: w->scc = x != y; break;
    case OP_S_CMP_GT_I32: w->scc = sx > sy; break;
    case OP_S_CMP_GE_I32: w->scc = sx >= sy; break;
    case OP_S_CMP_LT_I32: w->scc = sx < sy; break;
    case OP_S_CMP_LE_I32: w->scc = sx <= sy; break;
    case OP_S_CMP_GT_U32: w->scc = x > y; break;
    case OP_S_CMP_GE_U32: w->scc = x >= y; break;
    case OP_S_CMP_LT_U32: w->scc = x < y; break;
    case OP_S_CMP_LE_U32: w->scc = x <= y; break;
    case OP_S_BITCMP0_B32: w->scc = !((x >> (y & 31)) & 1); break;
    case OP_S_BITCMP1_B32: w->scc = (x >> (y & 31)) & 1; break;
    case OP_S_CMP_EQ_U64: w->scc = X == Y; break;
    case OP_S_CMP_LG_U64: w->scc = X != Y; break;
    default:
        return emu_fault(c, w, "scalar operation not implemented by the emulator");
    }
    return 0;
}

static int exec_salu(wg_ctx *c, wave *w, const emu_inst *in)
{
    const emu_opnd *a = &in->src[0], *b = &in->src[1];
    uint16_t d = in->dst.code;
    uint32_t x = 0, y = 0, r = 0;
    uint64_t X = 0, Y = 0, R = 0;
    int32_t sx, sy;
    int64_t wide;
    if (in->fmt == F_SOP2 || in->fmt == F_SOPC || in->fmt == F_SOP1) {
        if (in->src[0].code != R_NONE) {
            x = sval(w, a);
            X = a->width == 2 ? sval64(w, a) : x;
        }
        if (in->src[1].code != R_NONE) {
            y = sval(w, b);
            Y = b->width == 2 ? sval64(w, b) : y;
        }
    }
    if (in->fmt == F_SOPK)
        return exec_sopk(c, w, in);
    if (in->fmt == F_SOPC)
        return exec_sopc(c, w, in, x, y, X, Y);
    sx = (int32_t)x;
    sy = (int32_t)y;
    switch ((isa_op)in->op) {
    /* SOP2 */
    case OP_S_ADD_U32: R = (uint64_t)x + y; sset(w, d, (uint32_t)R); w->scc = R >> 32 != 0; break;
    case OP_S_SUB_U32: sset(w, d, x - y); w->scc = y > x; break;
    case OP_S_ADD_I32: r = x + y; sset(w, d, r); w->scc = ((sx >= 0) == (sy >= 0)) && ((int32_t)r >= 0) != (sx >= 0); break;
    case OP_S_SUB_I32: r = x - y; sset(w, d, r); w->scc = ((sx >= 0) != (sy >= 0)) && ((int32_t)r >= 0) != (sx >= 0); break;
    case OP_S_ADDC_U32: R = (uint64_t)x + y + (uint64_t)w->scc; sset(w, d, (uint32_t)R); w->scc = R >> 32 != 0; break;
    case OP_S_SUBB_U32: R = (uint64_t)x - y - (uint64_t)w->scc; sset(w, d, (uint32_t)R); w->scc = (uint64_t)y + (uint64_t)w->scc > x; break;
    case OP_S_MIN_I32: sset(w, d, sx < sy ? x : y); w->scc = sx < sy; break;
    case OP_S_MIN_U32: sset(w, d, x < y ? x : y); w->scc = x < y; break;
    case OP_S_MAX_I32: sset(w, d, sx > sy ? x : y); w->scc = sx > sy; break;
    case OP_S_MAX_U32: sset(w, d, x > y ? x : y); w->scc = x > y; break;
    case OP_S_CSELECT_B32: sset(w, d, w->scc ? x : y); break;
    case OP_S_CSELECT_B64: sset64(w, d, w->scc ? X : Y); break;
    case OP_S_AND_B32: r = x & y; goto w32;
    case OP_S_OR_B32: r = x | y; goto w32;
    case OP_S_XOR_B32: r = x ^ y; goto w32;
    case OP_S_ANDN2_B32: r = x & ~y; goto w32;
    case OP_S_ORN2_B32: r = x | ~y; goto w32;
    case OP_S_AND_B64: R = X & Y; goto w64;
    case OP_S_OR_B64: R = X | Y; goto w64;
    case OP_S_XOR_B64: R = X ^ Y; goto w64;
    case OP_S_ANDN2_B64: R = X & ~Y; goto w64;
    case OP_S_ORN2_B64: R = X | ~Y; goto w64;
    case OP_S_NAND_B64: R = ~(X & Y); goto w64;
    case OP_S_NOR_B64: R = ~(X | Y); goto w64;
    case OP_S_XNOR_B64: R = ~(X ^ Y); goto w64;
    case OP_S_LSHL_B32: r = x << (y & 31); goto w32;
    case OP_S_LSHR_B32: r = x >> (y & 31); goto w32;
    case OP_S_ASHR_I32: r = (uint32_t)(sx >> (y & 31)); goto w32;
    case OP_S_LSHL_B64: R = X << (y & 63); goto w64;
    case OP_S_LSHR_B64: R = X >> (y & 63); goto w64;
    case OP_S_ASHR_I64: R = (uint64_t)((int64_t)X >> (y & 63)); goto w64;
    case OP_S_BFM_B32: sset(w, d, ((1u << (x & 31)) - 1) << (y & 31)); break;
    case OP_S_MUL_I32: sset(w, d, x * y); break;
    case OP_S_MUL_HI_U32: sset(w, d, (uint32_t)(((uint64_t)x * y) >> 32)); break;
    case OP_S_MUL_HI_I32: sset(w, d, (uint32_t)(((int64_t)sx * sy) >> 32)); break;
    case OP_S_BFE_U32: {
        unsigned off = y & 31, wd = (y >> 16) & 127;
        r = wd >= 32 ? x >> off : (x >> off) & ((1u << wd) - 1);
        goto w32;
    }
    case OP_S_BFE_I32: {
        unsigned off = y & 31, wd = (y >> 16) & 127;
        if (!wd)
            r = 0;
        else if (off + wd >= 32) /* the field reaches past bit 31: the arithmetic shift */
            r = (uint32_t)(sx >> off);
        else
            r = (uint32_t)((int32_t)((x >> off) << (32 - wd)) >> (32 - wd));
        goto w32;
    }
    case OP_S_BFE_U64: {
        unsigned off = y & 63, wd = (y >> 16) & 127;
        R = wd >= 64 ? X >> off : (X >> off) & ((1ull << wd) - 1);
        goto w64;
    }
    case OP_S_ABSDIFF_I32: wide = (int64_t)sx - sy; r = (uint32_t)(wide < 0 ? -wide : wide); goto w32;
    case OP_S_LSHL1_ADD_U32: R = ((uint64_t)x << 1) + y; goto lshl_add;
    case OP_S_LSHL2_ADD_U32: R = ((uint64_t)x << 2) + y; goto lshl_add;
    case OP_S_LSHL3_ADD_U32: R = ((uint64_t)x << 3) + y; goto lshl_add;
    case OP_S_LSHL4_ADD_U32: R = ((uint64_t)x << 4) + y;
    lshl_add:
        sset(w, d, (uint32_t)R);
        w->scc = R >> 32 != 0;
        break;
    case OP_S_PACK_LL_B32_B16: sset(w, d, (x & 0xffff) | y << 16); break;
    case OP_S_PACK_LH_B32_B16: sset(w, d, (x & 0xffff) | (y & 0xffff0000u)); break;
    case OP_S_PACK_HH_B32_B16: sset(w, d, x >> 16 | (y & 0xffff0000u)); break;
    /* SOP1 */
    case OP_S_MOV_B32: sset(w, d, x); break;
    case OP_S_MOV_B64: sset64(w, d, X); break;
    case OP_S_CMOV_B32: if (w->scc) sset(w, d, x); break;
    case OP_S_CMOV_B64: if (w->scc) sset64(w, d, X); break;
    case OP_S_NOT_B32: r = ~x; goto w32;
    case OP_S_NOT_B64: R = ~X; goto w64;
    case OP_S_BREV_B32: {
        r = 0;
        for (int i = 0; i < 32; i++)
            r |= ((x >> i) & 1) << (31 - i);
        sset(w, d, r);
        break;
    }
    case OP_S_BCNT1_I32_B32: r = (uint32_t)__builtin_popcount(x); goto w32;
    case OP_S_BCNT1_I32_B64: r = (uint32_t)__builtin_popcountll(X); goto w32;
    case OP_S_FF1_I32_B32: sset(w, d, x ? (uint32_t)__builtin_ctz(x) : 0xffffffffu); break;
    case OP_S_FF1_I32_B64: sset(w, d, X ? (uint32_t)__builtin_ctzll(X) : 0xffffffffu); break;
    case OP_S_FLBIT_I32_B32: sset(w, d, x ? (uint32_t)__builtin_clz(x) : 0xffffffffu); break;
    case OP_S_SEXT_I32_I8: sset(w, d, (uint32_t)(int32_t)(int8_t)x); break;
    case OP_S_SEXT_I32_I16: sset(w, d, (uint32_t)(int32_t)(int16_t)x); break;
    case OP_S_BITSET0_B32: sset(w, d, w->s[d] & ~(1u << (x & 31))); break;
    case OP_S_BITSET1_B32: sset(w, d, w->s[d] | 1u << (x & 31)); break;
    case OP_S_GETPC_B64: sset64(w, d, in->pc + 4); break;
    case OP_S_AND_SAVEEXEC_B64: R = X & exec_mask(w); goto saveexec;
    case OP_S_OR_SAVEEXEC_B64: R = X | exec_mask(w); goto saveexec;
    case OP_S_XOR_SAVEEXEC_B64: R = X ^ exec_mask(w); goto saveexec;
    case OP_S_ANDN2_SAVEEXEC_B64: R = X & ~exec_mask(w); goto saveexec;
    case OP_S_ORN2_SAVEEXEC_B64: R = X | ~exec_mask(w);
    saveexec:
        sset64(w, d, exec_mask(w));
        set_exec(w, R);
        w->scc = R != 0;
        break;
    case OP_S_ABS_I32: r = (uint32_t)(sx < 0 ? -(int64_t)sx : sx); goto w32;
    default:
        return emu_fault(c, w, "scalar operation not implemented by the emulator");
    }
    return 0;
w32:
    sset(w, d, r);
    w->scc = r != 0;
    return 0;
w64:
    sset64(w, d, R);
    w->scc = R != 0;
    return 0;
}

/* ---- scalar memory ---- */

static int exec_smem(wg_ctx *c, wave *w, const emu_inst *in)
{
    int n = in->dst.width;
    uint64_t addr;
    uint32_t limit = 0xffffffffu;
    bool buffer = in->src[0].width == 4;
    uint32_t off = in->src[1].code != R_NONE ? w->s[in->src[1].code] : (uint32_t)in->offset;
    if (buffer) {
        const uint32_t *rs = &w->s[in->src[0].code];
        addr = ((uint64_t)rs[0] | (uint64_t)(rs[1] & 0xffff) << 32);
        limit = rs[2];
    } else {
        addr = sval64(w, &in->src[0]);
    }
    if ((addr + off) & 3)
        return emu_fault(c, w, "scalar load address 0x%llx is not 4-byte aligned",
                         (unsigned long long)(addr + off));
    for (int i = 0; i < n; i++) {
        uint64_t o = (uint64_t)off + 4u * (unsigned)i;
        uint32_t v = 0;
        if (!buffer || o + 4 <= limit) {
            uintptr_t a = (uintptr_t)(addr + o);
            if (!mem_ok(c, a, 4))
                return emu_fault(c, w, "scalar load from 0x%llx outside every registered buffer",
                                 (unsigned long long)a);
            memcpy(&v, (const void *)a, 4);
            c->stats.global_read += 4;
        }
        sset(w, (uint16_t)(in->dst.code + i), v);
    }
    return emu_issue_lgkm(c, w, in, in->dst.code, n, true, false);
}

/* ---- program control ---- */

/* Returns 0 to continue, 1 to yield (barrier, end), -1 on a fault; sets *next. */
static int exec_sopp(wg_ctx *c, wave *w, const emu_inst *in, int *next)
{
    bool take = false;
    switch ((isa_op)in->op) {
    case OP_S_NOP: case OP_S_SETPRIO: case OP_S_SLEEP: return 0;
    case OP_S_ENDPGM:
        wait_vm(w, 0);
        wait_lgkm(w, 0);
        w->done = true;
        return 1;
    case OP_S_BARRIER: /* what it orders: lds.h */
        w->at_barrier = true;
        *next = w->pc + 1;
        return 1;
    case OP_S_WAITCNT: {
        unsigned v = (uint16_t)in->simm16;
        int vm = (int)((v & 15) | ((v >> 14) & 3) << 4), lgkm = (int)((v >> 8) & 15);
        wait_vm(w, vm);
        wait_lgkm(w, lgkm);
        return 0;
    }
    case OP_S_BRANCH: take = true; break;
    case OP_S_CBRANCH_SCC0: take = !w->scc; break;
    case OP_S_CBRANCH_SCC1: take = w->scc; break;
    case OP_S_CBRANCH_VCCZ: take = vcc_mask(w) == 0; break;
    case OP_S_CBRANCH_VCCNZ: take = vcc_mask(w) != 0; break;
    case OP_S_CBRANCH_EXECZ: take = exec_mask(w) == 0; break;
    case OP_S_CBRANCH_EXECNZ: take = exec_mask(w) != 0; break;
    default:
        return emu_fault(c, w, "program-control operation not implemented by the emulator");
    }
    if (take)
        *next = in->target;
    return 0;
}

static int setpc(wg_ctx *c, wave *w, const emu_inst *in, int *next)
{
    uint64_t a = sval64(w, &in->src[0]);
    *next = emu_inst_at(c->k, a);
    if (*next < 0)
        return emu_fault(c, w, "s_setpc_b64 to 0x%llx, not an instruction of this kernel", (unsigned long long)a);
    return 0;
}

/* ---- the loop ---- */

int emu_run_wave(wg_ctx *c, wave *w)
{
    const emu_kernel *k = c->k;
    const emu_inst *code = k->code;
    emu_stats *st = &c->stats;
    w->at_barrier = false;
    for (;;) {
        if (w->pc < 0 || w->pc >= k->ninsts) {
            w->pc = -1;
            return emu_fault(c, w, "execution ran off the end of the kernel (missing s_endpgm)");
        }
        const emu_inst *in = &code[w->pc];
        if (!in->info) {
            uint8_t bytes[8];
            char derr[200] = "unknown encoding";
            emu_inst tmp;
            for (int i = 0; i < 8; i++)
                bytes[i] = (uint8_t)(in->raw[i / 4] >> (8 * (i % 4)));
            if (!emu_decode(c->dev->dec, bytes, sizeof bytes, in->pc, &tmp, derr, sizeof derr)) {
                const char *why = strstr(derr, ": ");
                return emu_fault(c, w, "unknown instruction: %s", why ? why + 2 : derr);
            }
            return emu_fault(c, w, "unknown instruction");
        }
        if (++w->insts > c->dev->opt.max_wave_insts)
            return emu_fault(c, w, "the wave executed %llu instructions without reaching s_endpgm (the budget, "
                             "emu_options.max_wave_insts / --max-wave-insts): an endless loop?",
                             (unsigned long long)c->dev->opt.max_wave_insts);
        if (check_regs(c, w, in) || (hz_may_apply(w, in) && hz_check(c, w, in)))
            return -1;
        if (w->trace) { /* timing model (timing.h) */
            emu_trace_push(w->trace, w->pc, exec_mask(w));
            if (emu_trace_is_mem(in))
                emu_trace_mem(w->trace, w, in);
        }
        st->insts[in->cls]++;
        st->cycles[in->cls] += in->cycles;
        w->cycles += in->cycles;
        if (w->pc >= k->loop_begin && w->pc < k->loop_end && emu_is_valu(in)) {
            st->loop_valu_cycles += in->cycles;
            if (in->cls == EC_VALU_FMA)
                st->loop_fma_cycles += in->cycles;
        }
        int next = w->pc + 1, rc;
        switch (in->fmt) {
        case F_SOP1:
            if (in->op == OP_S_SETPC_B64) {
                rc = setpc(c, w, in, &next);
                break;
            }
            /* fall through */
        case F_SOP2: case F_SOPC: case F_SOPK:
            rc = exec_salu(c, w, in);
            break;
        case F_SOPP:
            rc = exec_sopp(c, w, in, &next);
            break;
        case F_SMEM:
            rc = exec_smem(c, w, in);
            break;
        case F_VOP1: case F_VOP2: case F_VOPC: case F_VOP3: case F_VOP3P:
            if (in->plain_fmac && k->denorm32 == 3) { /* the FMA main loop's instruction, straight to its lanes */
                emu_exec_fmac(w, in);
                rc = 0;
            } else
                rc = emu_exec_valu(c, w, in);
            break;
        case F_MAI:
            rc = in->op == OP_V_ACCVGPR_READ_B32 || in->op == OP_V_ACCVGPR_WRITE_B32 ? emu_exec_valu(c, w, in)
                                                                                  : emu_mfma(c, w, in);
            break;
        default:
            rc = emu_exec_mem(c, w, in);
            break;
        }
        if (rc < 0)
            return -1;
        if (in->hz_plain)
            hz_after_plain(w, in);
        else
            hz_after(c, w, in);
        w->ws += in->op == OP_S_NOP ? (uint64_t)((in->simm16 & 15) + 1) : 1;
        if (rc > 0) {
            w->pc = w->done ? w->pc : next;
            return 0;
        }
        w->pc = next;
    }
}
