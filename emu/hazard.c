/* Software-managed hazards: wait states the hardware does not enforce and a
 * kernel must provide itself (independent instructions, or s_nop N, which
 * counts N+1). Each wave counts wait states (one per issued instruction, N+1
 * per s_nop N) and remembers, per register, when and by what kind of
 * instruction it was last written. Before an instruction issues, every rule
 * that applies to it is checked; a shortfall is a fault naming the rule, the
 * registers, and the wait states provided and needed (emu_fault adds the
 * target, kernel, workgroup, wave, PC and instruction).
 *
 * The numbers are per-target facts (arch/target.h, hazard_facts); the
 * rules and their sources are listed in docs/EMULATOR.md, "Hazards". The
 * reference is LLVM's GCNHazardRecognizer.cpp: like it, a rule counts the
 * wait states since the most recent instruction of the rule's kind that
 * wrote the register. Two deliberate differences: an MFMA-dependent wait
 * uses the passes of the MFMA that wrote (or read) the register, where LLVM
 * takes the largest MFMA seen in its search window; and "VALU writes VGPR ->
 * DPP" counts VALU writers only (LLVM counts any instruction, loads
 * included, whose data arrives through s_waitcnt anyway).
 *
 * Rule names used in reports (and in tests/test_hazards.c):
 *   valu-sgpr-vmem      VALU writes SGPR        -> VMEM reads it
 *   valu-sgpr-lanesel   VALU writes SGPR        -> v_readlane/v_writelane lane select
 *   valu-exec-dpp       VALU writes EXEC        -> DPP
 *   valu-vgpr-dpp       VALU writes VGPR        -> DPP reads it
 *   store-data-valu     VMEM store > 8 bytes    -> VALU writes its data registers
 *   valu-sgpr-valu      VALU writes SGPR/VCC    -> VALU reads it (gfx940+)
 *   valu-exec-lane      VALU writes EXEC        -> v_readlane/readfirstlane/writelane (gfx940+)
 *   valu-vgpr-readlane  VALU writes VGPR        -> v_readlane/readfirstlane reads it (gfx940+)
 *   dot-read, dot-waw   v_dot writes            -> read by another opcode / overwritten (gfx90a+)
 *   valu-exec-mfma      VALU writes EXEC        -> MFMA
 *   valu-exec-accw      VALU writes EXEC        -> v_accvgpr_write (gfx908)
 *   valu-mfma           VALU writes             -> MFMA reads it
 *   valu-accw           VALU writes VGPR        -> v_accvgpr_write reads it (gfx908)
 *   accw-mfma-c/-ab     v_accvgpr_write         -> MFMA reads it as C / as A or B
 *   accw-accr/-accw     v_accvgpr_write         -> v_accvgpr_read / v_accvgpr_write of it (gfx908)
 *   accr-mem            v_accvgpr_read          -> VMEM/DS reads its VGPR (gfx908)
 *   accrw-mem-valu      VALU writes VGPR, v_accvgpr_read/write, VMEM/DS reads it (gfx908)
 *   mfma-c-overlap      MFMA writes             -> MFMA reads an overlapping, not identical C
 *   mfma-same-c         2-pass MFMA writes      -> MFMA reads exactly that C (gfx940+)
 *   mfma-ab             MFMA writes             -> MFMA reads it as A/B
 *   mfma-read           MFMA writes             -> any other instruction reads it
 *   mfma-waw            MFMA writes             -> any other instruction overwrites it
 *   mfma-c-war          MFMA reads C            -> any other instruction overwrites it
 *   valu-vcc-divfmas    VALU writes VCC         -> v_div_fmas reads it (implicitly)
 */
#include <stdio.h>
#include <string.h>

#include "exec.h"


static bool is_mem(const emu_inst *in) { return emu_is_vmem(in) || in->cls == EC_DS; }
static bool is_mfma(const emu_inst *in) { return in->cls == EC_MFMA; }
static bool is_readlane(isa_op op) { return op == OP_V_READLANE_B32 || op == OP_V_READFIRSTLANE_B32; }

/* The id of a v_dot opcode (emu_inst_finalize), 0 for any other. */
static int dot_id(const emu_inst *in) { return (in->hz_kind & HZ_KIND) == HZ_DOT ? in->hz_passes : 0; }

static int pass_need(hz_pass_rule r, int passes)
{
    int n = r.per_pass * passes + r.base;
    return n > 0 ? n : 0;
}

/* Wait states between an instruction recorded at `at` (its ws + 1) and now. */
static long waits(const wave *w, uint64_t at) { return (long)w->ws - (long)at; }

const char *const emu_hazard_rule_names[EMU_HZ_RULES] = {
    "valu-sgpr-vmem", "valu-sgpr-lanesel", "valu-exec-dpp", "valu-vgpr-dpp", "store-data-valu",
    "valu-sgpr-valu", "valu-exec-lane", "valu-vgpr-readlane", "dot-read", "dot-waw",
    "valu-exec-mfma", "valu-exec-accw", "valu-mfma", "valu-accw", "accw-mfma-c",
    "accw-mfma-ab", "accw-accr", "accw-accw", "accr-mem", "accrw-mem-valu",
    "mfma-c-overlap", "mfma-same-c", "mfma-ab", "mfma-read", "mfma-waw", "mfma-c-war", "valu-vcc-divfmas",
};

static int rule_index(const char *rule)
{
    for (int i = 0; i < EMU_HZ_RULES; i++)
        if (!strcmp(emu_hazard_rule_names[i], rule))
            return i;
    return -1;
}

/* A shortfall: a fault, or under EMU_HAZARDS_WARN a finding of its rule
 * (the report kept for the first one) and the run goes on. */
static int hz_fault(wg_ctx *c, wave *w, const char *rule, const char *what, unsigned code, long have, int need)
{
    char r[16];
    emu_reg_name(code, r, sizeof r);
    int ri = c->dev->opt.hazards == EMU_HAZARDS_WARN ? rule_index(rule) : -1;
    if (ri < 0)
        return emu_fault(c, w, "hazard %s: %s (%s): %ld wait state%s provided, %d needed", rule, what, r, have,
                         have == 1 ? "" : "s", need);
    emu_hazard_finding *f = &c->stats.hazards[ri];
    /* a context runs its workgroups in increasing order: a later finding is
       first only within the same workgroup, for a lower wave or earlier issue */
    if (!f->count || (f->wg == c->flat && (w->id < f->wave || (w->id == f->wave && w->ws < f->ws)))) {
        f->wg = c->flat;
        f->wave = w->id;
        f->ws = w->ws;
        f->pc = (unsigned long long)c->k->code[w->pc].pc;
        emu_disasm(&c->k->code[w->pc], f->text, sizeof f->text);
        snprintf(f->msg, sizeof f->msg, "workgroup (%u,%u,%u) wave %d: %s (%s): %ld wait state%s provided, %d needed",
                 c->wg[0], c->wg[1], c->wg[2], w->id, what, r, have, have == 1 ? "" : "s", need);
    }
    f->count++;
    return 0;
}

/* ---- per-register history ---- */

typedef struct {
    uint64_t at;
    int kind, passes;
    bool xdl;
} writer;

static writer last_write(const wave *w, unsigned code)
{
    uint64_t r = code >= R_A0 ? w->aw[code - R_A0] : w->vw[code - R_V0];
    uint64_t at = r >> 16;
    uint8_t k = (uint8_t)(r >> 8);
    return (writer){.at = at, .kind = at ? k & HZ_KIND : HZ_NONE, .passes = (uint8_t)r, .xdl = (k & HZ_XDL) != 0};
}

/* Writer kinds that count as a VALU write for the VALU-write rules:
 * v_accvgpr_read and v_dot are VALU instructions, v_accvgpr_write (an AGPR
 * writer with rules of its own) is not. */
static bool valu_kind(int kind) { return kind == HZ_VALU || kind == HZ_ACCR || kind == HZ_DOT; }

/* A VALU-write rule on register r: fewer than `need` wait states since a
 * VALU (or, when `mfma`, an MFMA) wrote it. */
static int valu_write_rule(wg_ctx *c, wave *w, unsigned r, int need, bool mfma, const char *rule, const char *what)
{
    writer wr = last_write(w, r);
    if ((valu_kind(wr.kind) || (mfma && wr.kind == HZ_MFMA)) && waits(w, wr.at) < need)
        return hz_fault(c, w, rule, what, r, waits(w, wr.at), need);
    return 0;
}

/* Is [base, base+width) exactly the destination of the MFMA recorded at
 * `at` (same instruction on every register, not on the neighbours)? */
static bool same_tuple(const wave *w, unsigned base, unsigned width, uint64_t at)
{
    bool agpr = base >= R_A0;
    unsigned first = base - (agpr ? R_A0 : R_V0), n = (unsigned)(agpr ? w->na : w->nv);
    const uint64_t *rec = agpr ? w->aw : w->vw;
    for (unsigned i = first; i < first + width; i++)
        if (rec[i] >> 16 != at)
            return false;
    if (first > 0 && rec[first - 1] >> 16 == at)
        return false;
    return !(first + width < n && rec[first + width] >> 16 == at);
}

/* ---- scalar rules ---- */

static int check_sgpr(wg_ctx *c, wave *w, unsigned code, int width, int need, const char *rule, const char *what)
{
    if (!need)
        return 0;
    for (int i = 0; i < width; i++) {
        unsigned s = code + (unsigned)i;
        if (s >= 128 || !w->sw_valu_ws[s])
            continue;
        long h = waits(w, w->sw_valu_ws[s]);
        if (h < need)
            return hz_fault(c, w, rule, what, s, h, need);
    }
    return 0;
}

static int check_exec(wg_ctx *c, wave *w, int need, const char *rule, const char *what)
{
    if (need && w->exec_valu_ws && waits(w, w->exec_valu_ws) < need)
        return hz_fault(c, w, rule, what, R_EXEC, waits(w, w->exec_valu_ws), need);
    return 0;
}

static int scalar_rules(wg_ctx *c, wave *w, const emu_inst *in, const hazard_facts *hz)
{
    isa_op op = (isa_op)in->op;
    if (emu_is_vmem(in))
        for (int i = 0; i < in->nrd; i++)
            if (in->rd[i] < 128 && check_sgpr(c, w, in->rd[i], in->rdw[i], hz->valu_sgpr_vmem, "valu-sgpr-vmem",
                                              "VALU wrote an SGPR, then a VMEM instruction reads it"))
                return -1;
    if ((op == OP_V_READLANE_B32 || op == OP_V_WRITELANE_B32) && in->src[1].kind == K_SGPR &&
        check_sgpr(c, w, in->src[1].code, 1, hz->valu_sgpr_lanesel, "valu-sgpr-lanesel",
                   "VALU wrote an SGPR, then v_readlane/v_writelane selects the lane with it"))
        return -1;
    if (in->ext == EXT_DPP) {
        if (check_exec(c, w, hz->valu_exec_dpp, "valu-exec-dpp", "VALU wrote EXEC, then a DPP operation"))
            return -1;
        for (int i = 0; hz->valu_vgpr_dpp && i < in->nrd; i++) {
            unsigned base = in->rd[i];
            if (base < R_V0 || base >= R_A0)
                continue;
            for (unsigned r = base; r < base + in->rdw[i]; r++)
                if (valu_write_rule(c, w, r, hz->valu_vgpr_dpp, false, "valu-vgpr-dpp",
                                    "VALU wrote a VGPR, then a DPP operation reads it"))
                    return -1;
        }
        /* LLVM's checkDPPHazards counts every use of the DPP instruction,
           the destination's old value (the tied `old` operand) included,
           whether or not row/bank masks and bound_ctrl let it be read */
        for (unsigned r = in->dst.code; hz->valu_vgpr_dpp && in->dst.kind == K_VGPR && r < in->dst.code + in->dst.width;
             r++)
            if (valu_write_rule(c, w, r, hz->valu_vgpr_dpp, false, "valu-vgpr-dpp",
                                "VALU wrote a VGPR, then a DPP operation takes it as its old value"))
                return -1;
    }
    if (emu_is_valu(in) && hz->valu_sgpr_valu)
        for (int i = 0; i < in->nrd; i++)
            if (in->rd[i] < 128 && check_sgpr(c, w, in->rd[i], in->rdw[i], hz->valu_sgpr_valu, "valu-sgpr-valu",
                                              "VALU wrote an SGPR, then a VALU instruction reads it"))
                return -1;
    if ((op == OP_V_DIV_FMAS_F64 || op == OP_V_DIV_FMAS_F32) &&
        check_sgpr(c, w, R_VCC, 2, hz->valu_vcc_div_fmas, "valu-vcc-divfmas",
                   "VALU wrote VCC, then v_div_fmas reads it"))
        return -1;
    if (is_readlane(op) || op == OP_V_WRITELANE_B32) {
        if (check_exec(c, w, hz->valu_exec_lane, "valu-exec-lane", "VALU wrote EXEC, then a lane read/write"))
            return -1;
        if (is_readlane(op) && hz->valu_vgpr_readlane && in->src[0].kind == K_VGPR &&
            valu_write_rule(c, w, in->src[0].code, hz->valu_vgpr_readlane, true, "valu-vgpr-readlane",
                            "VALU wrote a VGPR, then v_readlane reads it"))
            return -1;
    }
    return 0;
}

/* ---- vector register rules ---- */

/* VALU overwriting the data of a recent store of more than 8 bytes. */
static int store_rule(wg_ctx *c, wave *w, const emu_inst *in, const hazard_facts *hz, hz_side *sd)
{
    if (!hz->store_data_valu || !emu_is_valu(in))
        return 0;
    /* the ring's newest store: when it is out of the rule's reach, so are the others */
    uint64_t newest = sd->store[(sd->store_next + HZ_STORE_RING - 1) % HZ_STORE_RING].at;
    if (!newest || waits(w, newest) >= hz->store_data_valu)
        return 0;
    for (int s = 0; s < HZ_STORE_RING; s++) {
        if (!sd->store[s].at || waits(w, sd->store[s].at) >= hz->store_data_valu)
            continue;
        unsigned lo = sd->store[s].code, hi = lo + sd->store[s].width;
        for (int i = 0; i < in->nwr; i++)
            for (unsigned r = in->wr[i]; r < (unsigned)in->wr[i] + in->wrw[i]; r++)
                if (r >= R_V0 && r >= lo && r < hi)
                    return hz_fault(c, w, "store-data-valu",
                                    "a VMEM store of more than 8 bytes, then VALU overwrites its data", r,
                                    waits(w, sd->store[s].at), hz->store_data_valu);
    }
    return 0;
}

/* Do the registers [code, code + width) of one file differ in their
 * last-write records? */
static bool uncommon_records(const wave *w, unsigned code, unsigned width)
{
    const uint64_t *rec = code >= R_A0 ? &w->aw[code - R_A0] : &w->vw[code - R_V0];
    for (unsigned i = 1; i < width; i++)
        if (rec[i] != rec[0])
            return true;
    return false;
}

/* Operands of an MFMA: A, B and (unless a constant) C. */
static int mfma_reads(wg_ctx *c, wave *w, const emu_inst *in, const hazard_facts *hz)
{
    bool xdl = in->mfma_xdl;
    for (int s = 0; s < 3; s++) {
        const emu_opnd *o = &in->src[s];
        if (o->kind != K_VGPR && o->kind != K_AGPR)
            continue;
        bool is_c = s == 2;
        uint64_t tuple_at = 0; /* same_tuple of the last MFMA writer seen in this operand */
        bool tuple_same = false;
        /* registers with the same record (the C tuple of an MFMA chain)
           meet the same rule with the same wait states: the first decides */
        unsigned end = o->code + (uncommon_records(w, o->code, o->width) ? o->width : 1u);
        for (unsigned r = o->code; r < end; r++) {
            writer wr = last_write(w, r);
            long h = waits(w, wr.at);
            int need = 0;
            const char *rule = NULL, *what = NULL;
            switch (wr.kind) {
            case HZ_VALU: case HZ_ACCR:
                need = hz->valu_mfma;
                rule = "valu-mfma";
                what = "VALU wrote a register, then an MFMA reads it";
                break;
            case HZ_ACCW:
                need = is_c ? hz->accw_mfma_c : hz->accw_mfma_ab;
                rule = is_c ? "accw-mfma-c" : "accw-mfma-ab";
                what = is_c ? "v_accvgpr_write, then an MFMA reads the AGPR as C"
                            : "v_accvgpr_write, then an MFMA reads the AGPR as A/B";
                break;
            case HZ_MFMA:
                if (!is_c) {
                    need = pass_need(hz->mfma_ab[!wr.xdl], wr.passes);
                    rule = "mfma-ab";
                    what = "an MFMA wrote the register, then an MFMA reads it as A/B";
                } else if (wr.at == tuple_at ? tuple_same
                                             : (tuple_at = wr.at, tuple_same = same_tuple(w, o->code, o->width, wr.at))) {
                    need = wr.passes == 2 ? hz->mfma_same_c_2pass : 0;
                    rule = "mfma-same-c";
                    what = "a 2-pass MFMA wrote its result, then an MFMA reads exactly that as C";
                } else {
                    need = hz->mfma_c_smfma_xdl_free && xdl && !wr.xdl ? 0
                                                                       : pass_need(hz->mfma_c_overlap[!wr.xdl], wr.passes);
                    rule = "mfma-c-overlap";
                    what = "an MFMA wrote the register, then an MFMA reads an overlapping, different C";
                }
                break;
            default:
                break;
            }
            if (rule && h < need)
                return hz_fault(c, w, rule, what, r, h, need);
        }
    }
    return 0;
}

/* Registers read by a non-MFMA instruction. */
static int other_reads(wg_ctx *c, wave *w, const emu_inst *in, const hazard_facts *hz, hz_side *sd)
{
    bool accr = in->op == OP_V_ACCVGPR_READ_B32, mem = is_mem(in), valu = emu_is_valu(in);
    if (!valu && !mem)
        return 0;
    int dot = dot_id(in);
    for (int i = 0; i < in->nrd; i++) {
        unsigned base = in->rd[i];
        if (base < R_V0)
            continue;
        /* src2 of a v_dot is its accumulator: reading it back is not a hazard */
        bool dot_c = dot && in->src[2].code == base && in->src[2].kind != K_CONST;
        for (unsigned r = base; r < base + in->rdw[i]; r++) {
            writer wr = last_write(w, r);
            long h = waits(w, wr.at);
            int need = 0;
            const char *rule = NULL, *what = NULL;
            switch (wr.kind) {
            case HZ_MFMA:
                need = pass_need(hz->mfma_read[!wr.xdl], wr.passes);
                rule = "mfma-read";
                what = accr ? "an MFMA wrote the register, then v_accvgpr_read reads it"
                            : "an MFMA wrote the register, then a VALU/memory instruction reads it";
                break;
            case HZ_ACCW:
                if (accr) {
                    need = hz->accw_accr;
                    rule = "accw-accr";
                    what = "v_accvgpr_write, then v_accvgpr_read of the same AGPR";
                }
                break;
            case HZ_ACCR:
                if (mem) {
                    need = hz->accr_mem;
                    rule = "accr-mem";
                    what = "v_accvgpr_read wrote a VGPR, then a memory instruction reads it";
                }
                break;
            case HZ_VALU:
                if (mem && hz->accrw_mem_valu && h < 2 && sd->accrw_at && waits(w, sd->accrw_at) < hz->accrw_mem_valu) {
                    need = hz->accrw_mem_valu;
                    h = waits(w, sd->accrw_at);
                    rule = "accrw-mem-valu";
                    what = "VALU wrote a VGPR, then v_accvgpr_read/write, then a memory instruction reads the VGPR";
                }
                break;
            case HZ_DOT:
                if (!(dot == wr.passes && dot_c)) {
                    need = hz->dot_read;
                    rule = "dot-read";
                    what = "v_dot wrote a register, then another instruction reads it";
                }
                break;
            default:
                break;
            }
            if (rule && h < need)
                return hz_fault(c, w, rule, what, r, h, need);
        }
    }
    return 0;
}

/* Registers written by a non-MFMA instruction: overwriting an MFMA result
 * (WAW), an MFMA's C still being read (WAR), a v_dot result, an AGPR just
 * written by v_accvgpr_write. */
static int other_writes(wg_ctx *c, wave *w, const emu_inst *in, const hazard_facts *hz, hz_side *sd)
{
    bool accw = in->op == OP_V_ACCVGPR_WRITE_B32;
    if (!emu_is_valu(in) && !is_mem(in))
        return 0;
    int dot = dot_id(in);
    for (int i = 0; i < in->nwr; i++) {
        unsigned base = in->wr[i];
        if (base < R_V0)
            continue;
        for (unsigned r = base; r < base + in->wrw[i]; r++) {
            writer wr = last_write(w, r);
            long h = waits(w, wr.at);
            if (wr.kind == HZ_MFMA) {
                int need = pass_need(hz->mfma_waw[!wr.xdl], wr.passes);
                if (h < need)
                    return hz_fault(c, w, "mfma-waw", "an MFMA wrote the register, then another instruction overwrites it",
                                    r, h, need);
            } else if (wr.kind == HZ_ACCW && accw && h < hz->accw_accw) {
                return hz_fault(c, w, "accw-accw", "v_accvgpr_write, then v_accvgpr_write of the same AGPR", r, h,
                                hz->accw_accw);
            } else if (wr.kind == HZ_DOT && dot != wr.passes && h < hz->dot_waw) {
                return hz_fault(c, w, "dot-waw", "v_dot wrote a register, then another instruction overwrites it", r,
                                h, hz->dot_waw);
            }
            for (int k = 0; k < HZ_CREAD_RING; k++) {
                int idx = (sd->cread_next - 1 - k + HZ_CREAD_RING) % HZ_CREAD_RING;
                if (!sd->cread[idx].at)
                    break;
                long hc = waits(w, sd->cread[idx].at);
                if (hc >= HZ_CREAD_RING)
                    break;
                if (r < sd->cread[idx].code || r >= (unsigned)sd->cread[idx].code + sd->cread[idx].width)
                    continue;
                int need = pass_need(hz->mfma_c_war[!sd->cread[idx].xdl], sd->cread[idx].passes);
                if (hc < need)
                    return hz_fault(c, w, "mfma-c-war", "an MFMA reads the register as C, then another instruction overwrites it",
                                    r, hc, need);
            }
        }
    }
    return 0;
}

int hz_check(wg_ctx *c, wave *w, const emu_inst *in)
{
    const target *t = c->dev->t;
    const hazard_facts *hz = &t->hz;
    hz_side *sd = &w->hz_side;
    if ((in->hz_scalar && scalar_rules(c, w, in, hz)) || store_rule(c, w, in, hz, sd))
        return -1;
    if (is_mfma(in)) {
        if (check_exec(c, w, hz->valu_exec_mfma, "valu-exec-mfma", "VALU wrote EXEC, then an MFMA"))
            return -1;
        return mfma_reads(c, w, in, hz);
    }
    if (in->op == OP_V_ACCVGPR_WRITE_B32) {
        if (check_exec(c, w, hz->valu_exec_accw, "valu-exec-accw", "VALU wrote EXEC, then v_accvgpr_write"))
            return -1;
        if (hz->valu_accw && in->src[0].kind == K_VGPR &&
            valu_write_rule(c, w, in->src[0].code, hz->valu_accw, false, "valu-accw",
                            "VALU wrote a VGPR, then v_accvgpr_write reads it"))
            return -1;
    }
    /* The rules below all concern registers written by an MFMA, an AGPR
       move or a v_dot, or C operands an MFMA read: a wave that ran none of
       these (every wave of an FMA kernel) skips them. */
    if (w->hz_vec && (other_reads(c, w, in, hz, sd) || other_writes(c, w, in, hz, sd)))
        return -1;
    return 0;
}

/* ---- recording ---- */

static void mark(wave *w, unsigned code, int width, int kind, int passes)
{
    uint64_t at = w->ws + 1, rec = hz_rec(at, kind, passes);
    if (code >= R_V0) { /* one register file: VGPRs or AGPRs */
        uint64_t *p = code >= R_A0 ? &w->aw[code - R_A0] : &w->vw[code - R_V0];
        for (int i = 0; i < width; i++)
            p[i] = rec;
        return;
    }
    int k = kind & HZ_KIND;
    if (!(valu_kind(k) || k == HZ_MFMA))
        return;
    /* as in LLVM, a later SALU write does not end a VALU write's hazard */
    for (unsigned r = code; r < code + (unsigned)width && r < 128; r++) {
        w->sw_valu_ws[r] = at;
        if (r == R_EXEC || r == R_EXEC + 1)
            w->exec_valu_ws = at;
    }
}

void hz_after(wg_ctx *c, wave *w, const emu_inst *in)
{
    const hazard_facts *hz = &c->dev->t->hz;
    hz_side *sd = &w->hz_side;
    uint64_t at = w->ws + 1;
    int kind = in->hz_kind, passes = in->hz_passes;
    switch (kind & HZ_KIND) {
    case HZ_MFMA:
        if (in->src[2].kind == K_VGPR || in->src[2].kind == K_AGPR) {
            sd->cread[sd->cread_next].at = at;
            sd->cread[sd->cread_next].code = in->src[2].code;
            sd->cread[sd->cread_next].width = in->src[2].width;
            sd->cread[sd->cread_next].passes = (uint8_t)passes;
            sd->cread[sd->cread_next].xdl = (uint8_t)((kind & HZ_XDL) != 0);
            sd->cread_next = (sd->cread_next + 1) % HZ_CREAD_RING;
        }
        w->hz_vec = true;
        break;
    case HZ_ACCW: case HZ_ACCR:
        sd->accrw_at = at;
        w->hz_vec = true;
        break;
    case HZ_DOT:
        if (hz->dot_read || hz->dot_waw)
            w->hz_vec = true;
        else /* no v_dot rules on this target: an ordinary VALU write */
            kind = HZ_VALU, passes = 0;
        break;
    default:
        break;
    }
    for (int i = 0; i < in->nwr; i++)
        mark(w, in->wr[i], in->wrw[i], kind, passes);
    if (in->is_store && emu_is_vmem(in)) {
        /* MUBUF only when soffset is not a register (LLVM createsVALUHazard) */
        const emu_opnd *data = in->fmt == F_MUBUF ? &in->dst : &in->src[1];
        if (data->width > 2 && (in->fmt != F_MUBUF || in->src[2].kind == K_CONST)) {
            sd->store[sd->store_next].at = at;
            sd->store[sd->store_next].code = data->code;
            sd->store[sd->store_next].width = data->width;
            sd->store_next = (sd->store_next + 1) % HZ_STORE_RING;
            if (hz->store_data_valu)
                w->hz_store_until = at + (uint64_t)hz->store_data_valu;
        }
    }
}
