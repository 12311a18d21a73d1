/* Software-managed hazards: wait states the hardware does not enforce and a
 * kernel must provide itself (independent instructions or s_nop N, which
 * counts N+1). Each wave counts wait states (one per issued instruction,
 * N+1 per s_nop N) and remembers, per register, when and by what kind of
 * instruction it was last written. Before an instruction issues, every rule
 * below that applies to it is checked; a shortfall is a fault naming the
 * rule, the writer and the wait states provided and needed.
 *
 * The table (docs/EMULATOR.md lists it with sources; LLVM's
 * GCNHazardRecognizer.cpp is the reference):
 *
 *  all gfx9   VALU writes SGPR/VCC     -> VMEM reads that SGPR            5
 *  all gfx9   VALU writes SGPR/VCC     -> v_readlane/v_writelane lane sel 4
 *  all gfx9   VALU writes EXEC         -> DPP operation                   5
 *  all gfx9   VALU writes VGPR         -> DPP reads that VGPR             2
 *  all gfx9   VMEM store > 8 bytes     -> VALU writes its data VGPRs      1
 *  MFMA       VALU writes VGPR         -> MFMA reads it (A, B or C)       2
 *  MFMA       VALU writes EXEC         -> MFMA                            4
 *  MFMA       v_accvgpr_write          -> MFMA reads it as C              1
 *  MFMA       v_accvgpr_write          -> MFMA A/B or v_accvgpr_read      3
 *  MFMA       v_accvgpr_read (to VGPR) -> VMEM/DS reads that VGPR         2
 *  gfx908     MFMA writes D            -> v_accvgpr_read of it            passes + 2  (4/10/18)
 *  gfx908     MFMA writes D            -> v_accvgpr_write overlapping it  passes - 1  (1/7/15)
 *  gfx908     MFMA writes D            -> MFMA A/B, or C partly overlapping passes + 2
 *  gfx90a+    MFMA writes D            -> VALU/VMEM/DS/accvgpr_read of it passes + 3 (+ target extra)
 *  gfx90a+    MFMA writes D            -> v_accvgpr_write overlapping it  passes + 1
 *  all MFMA   MFMA writes D            -> MFMA C exactly the same registers: 0 (hardware chains)
 */
#include <stdio.h>
#include <string.h>

#include "exec.h"

enum { HZ_NONE, HZ_VALU, HZ_MFMA, HZ_ACCW, HZ_ACCR, HZ_LOAD };

static const char *kind_name(int k)
{
    switch (k) {
    case HZ_VALU: return "a VALU write";
    case HZ_MFMA: return "an MFMA result";
    case HZ_ACCW: return "v_accvgpr_write";
    case HZ_ACCR: return "v_accvgpr_read";
    default: return "a write";
    }
}

static bool is_vmem(const emu_inst *in) { return in->fmt == F_MUBUF || in->fmt == F_FLAT || in->fmt == F_GLOBAL; }
static bool is_valu(const emu_inst *in)
{
    return in->fmt == F_VOP1 || in->fmt == F_VOP2 || in->fmt == F_VOPC || in->fmt == F_VOP3 || in->fmt == F_VOP3P ||
           (in->fmt == F_MAI && in->cls != EC_MFMA);
}
static bool is_mfma(const emu_inst *in) { return in->cls == EC_MFMA; }

/* waits between a write recorded at ws value `at` (stored +1) and now */
static long waits(const wave *w, uint64_t at) { return (long)w->ws - (long)(at - 1) - 1; }

static int check_sgpr_valu(wg_ctx *c, wave *w, uint16_t code, int width, int need, const char *what)
{
    for (int i = 0; i < width; i++) {
        unsigned s = code + (unsigned)i;
        if (s >= 128 || !w->sw_valu_ws[s])
            continue;
        long h = waits(w, w->sw_valu_ws[s]);
        if (h < need)
            return emu_fault(c, w, "hazard: VALU wrote s%u, then %s reads it, %ld wait state%s provided, %d needed", s,
                             what, h, h == 1 ? "" : "s", need);
    }
    return 0;
}

/* Last write of a vector register (VGPR or AGPR code). */
static void last_write(const wave *w, unsigned code, uint64_t *ws, int *kind, int *passes)
{
    if (code >= R_A0) {
        unsigned i = code - R_A0;
        *ws = w->aw_ws[i];
        *kind = w->aw_kind[i];
        *passes = w->aw_passes[i];
    } else {
        unsigned i = code - R_V0;
        *ws = w->vw_ws[i];
        *kind = w->vw_kind[i];
        *passes = w->vw_passes[i];
    }
}

static int need_fault(wg_ctx *c, wave *w, unsigned code, int kind, uint64_t at, int need, const char *reader)
{
    char rule[200], r[16];
    if (code >= R_A0)
        snprintf(r, sizeof r, "a%u", code - R_A0);
    else
        snprintf(r, sizeof r, "v%u", code - R_V0);
    snprintf(rule, sizeof rule, "%s to %s, then %s reads it", kind_name(kind), r, reader);
    long have = waits(w, at);
    return emu_fault(c, w, "hazard: %s, %ld wait state%s provided, %d needed", rule, have, have == 1 ? "" : "s", need);
}

int hz_check(wg_ctx *c, wave *w, const emu_inst *in)
{
    const target *t = c->dev->t;
    /* SGPRs written by VALU, read by VMEM or as a lane select */
    if (is_vmem(in)) {
        for (int i = 0; i < in->nrd; i++)
            if (in->rd[i] < 128 && check_sgpr_valu(c, w, in->rd[i], in->rdw[i], t->valu_write_sgpr_vmem_ws, "a VMEM instruction"))
                return -1;
    }
    if ((in->op == OP_V_READLANE_B32 || in->op == OP_V_WRITELANE_B32) && in->src[1].kind == K_SGPR &&
        check_sgpr_valu(c, w, in->src[1].code, 1, 4, "a lane select"))
        return -1;
    if (in->ext == EXT_DPP) {
        if (w->exec_valu_ws && waits(w, w->exec_valu_ws) < 5)
            return emu_fault(c, w, "hazard: VALU wrote EXEC, then a DPP operation, %ld wait states provided, 5 needed",
                             waits(w, w->exec_valu_ws));
        unsigned code = in->src[0].code;
        if (code >= R_V0 && code < R_A0 && w->vw_kind[code - R_V0] == HZ_VALU && waits(w, w->vw_ws[code - R_V0]) < 2)
            return need_fault(c, w, code, HZ_VALU, w->vw_ws[code - R_V0], 2, "a DPP operation");
    }
    /* VALU overwriting the data of a recent wide store */
    if (is_valu(in) && w->store_ws && waits(w, w->store_ws) < 1) {
        for (int i = 0; i < in->nwr; i++) {
            unsigned a = in->wr[i], b = a + in->wrw[i];
            if (a < (unsigned)w->store_code + w->store_width && b > w->store_code)
                return emu_fault(c, w, "hazard: VALU overwrites the data registers of a store of more than 8 bytes "
                                       "issued just before, 0 wait states provided, 1 needed");
        }
    }
    if (!t->has_mfma)
        return 0;

    /* Vector registers read by this instruction against their last writer. */
    bool mfma = is_mfma(in);
    bool accr = in->op == OP_V_ACCVGPR_READ_B32;
    bool mem = is_vmem(in) || in->fmt == F_DS;
    if (mfma && w->exec_valu_ws && waits(w, w->exec_valu_ws) < 4)
        return emu_fault(c, w, "hazard: VALU wrote EXEC, then an MFMA, %ld wait states provided, 4 needed",
                         waits(w, w->exec_valu_ws));
    for (int i = 0; i < in->nrd; i++) {
        unsigned base = in->rd[i];
        if (base < R_V0)
            continue;
        bool is_c = mfma && base == in->src[2].code && in->src[2].kind != K_CONST;
        for (unsigned r = base; r < base + in->rdw[i]; r++) {
            uint64_t at;
            int kind, passes;
            last_write(w, r, &at, &kind, &passes);
            if (!at)
                continue;
            long h = waits(w, at);
            int need = 0;
            const char *reader = NULL;
            if (kind == HZ_VALU && mfma && r < R_A0) {
                need = 2;
                reader = "an MFMA";
            } else if (kind == HZ_ACCW && mfma) {
                need = is_c ? 1 : 3;
                reader = is_c ? "an MFMA as C" : "an MFMA as A/B";
            } else if (kind == HZ_ACCW && accr) {
                need = 3;
                reader = "v_accvgpr_read";
            } else if (kind == HZ_ACCR && mem) {
                need = 2;
                reader = "a memory instruction";
            } else if (kind == HZ_MFMA) {
                if (mfma && is_c) {
                    /* chaining into the same C registers is interlocked */
                    bool same = base == w->mfma_d_code && in->src[2].width == w->mfma_d_width;
                    need = same ? 0 : passes + 2;
                    reader = "an MFMA as C (partial overlap)";
                } else if (mfma) {
                    need = passes + 2;
                    reader = "an MFMA as A/B";
                } else if (t->unified_acc_vgprs) {
                    need = passes + 3 + t->mfma_read_extra;
                    reader = accr ? "v_accvgpr_read" : mem ? "a memory instruction" : "a VALU instruction";
                } else if (accr) {
                    need = passes + 2;
                    reader = "v_accvgpr_read";
                }
            }
            if (reader && h < need)
                return need_fault(c, w, r, kind, at, need, reader);
        }
    }
    /* writes that overlap a recent MFMA result */
    if (in->op == OP_V_ACCVGPR_WRITE_B32 || (t->unified_acc_vgprs && is_valu(in))) {
        for (int i = 0; i < in->nwr; i++) {
            unsigned base = in->wr[i];
            if (base < R_V0)
                continue;
            for (unsigned r = base; r < base + in->wrw[i]; r++) {
                uint64_t at;
                int kind, passes;
                last_write(w, r, &at, &kind, &passes);
                if (kind != HZ_MFMA || !at)
                    continue;
                int need = t->unified_acc_vgprs ? passes + 1 : passes - 1;
                if (waits(w, at) < need)
                    return need_fault(c, w, r, kind, at, need, "an overwriting instruction");
            }
        }
    }
    return 0;
}

static void mark(wave *w, unsigned code, int width, int kind, int passes)
{
    uint64_t at = w->ws + 1;
    for (unsigned r = code; r < code + (unsigned)width; r++) {
        if (r >= R_A0) {
            w->aw_ws[r - R_A0] = at;
            w->aw_kind[r - R_A0] = (uint8_t)kind;
            w->aw_passes[r - R_A0] = (uint8_t)passes;
        } else if (r >= R_V0) {
            w->vw_ws[r - R_V0] = at;
            w->vw_kind[r - R_V0] = (uint8_t)kind;
            w->vw_passes[r - R_V0] = (uint8_t)passes;
        } else if (r < 128) {
            w->sw_valu_ws[r] = kind == HZ_VALU ? at : 0;
            if (r == R_EXEC)
                w->exec_valu_ws = kind == HZ_VALU ? at : 0;
        }
    }
}

void hz_after(wg_ctx *c, wave *w, const emu_inst *in)
{
    (void)c;
    int kind = HZ_LOAD, passes = 0;
    if (is_mfma(in)) {
        kind = HZ_MFMA;
        passes = emu_mfma_passes((emu_op)in->op);
        w->mfma_d_code = in->dst.code;
        w->mfma_d_width = in->dst.width;
    } else if (in->op == OP_V_ACCVGPR_WRITE_B32) {
        kind = HZ_ACCW;
    } else if (in->op == OP_V_ACCVGPR_READ_B32) {
        kind = HZ_ACCR;
    } else if (is_valu(in)) {
        kind = HZ_VALU;
    }
    for (int i = 0; i < in->nwr; i++)
        mark(w, in->wr[i], in->wrw[i], kind, passes);
    if (in->is_store && !in->is_atomic && is_vmem(in) && in->mem_dwords > 2) {
        w->store_ws = w->ws + 1;
        w->store_code = in->fmt == F_MUBUF ? in->dst.code : in->src[1].code;
        w->store_width = in->mem_dwords;
    }
}
