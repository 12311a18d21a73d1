/* Software-managed hazards on every target.
 *
 * Each case below is a writer instruction, a gap, and a consumer. The
 * wait states a target needs between them are written here from LLVM's
 * GCNHazardRecognizer.cpp (constant names in the comments; which target has
 * which from GCNSubtarget.h; MFMA passes from SISchedule.td, equal to the
 * .md "Execution cycles" / 4), not taken from the emulator.
 *
 * For every target a case applies to, one kernel holds all cases with
 * exactly the needed wait states (s_nop, independent SALU or independent
 * VALU instructions, in turn) and must run clean; then every case whose
 * need is not 0 runs alone with one wait state fewer and must fail with a
 * report that names the rule, the wait states provided and needed, and the
 * target, kernel, workgroup, wave, PC and the consumer instruction. A need
 * of 0 documents that the target has no such hazard (the sequence with no
 * gap at all runs clean there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define X (-1) /* case does not apply to the target */

static const char *const archs[] = {TC_ARCH_LIST};

typedef struct {
    const char *rule;     /* rule name in the report */
    const char *setup;    /* instructions just before the writer */
    const char *writer;
    const char *consumer;
    const char *after;    /* instructions after the consumer */
    int need[4];          /* gfx906, gfx908, gfx90a, gfx942 */
} hz_case;

/* MFMA spellings: {F4} 4x4x1 f32 (2 passes), {F16} 16x16x1 f32 (8),
 * {F32} 32x32x2 f32 (16), {H4} 4x4x4 f16 (2), {H16} 16x16x16 f16 (8; CDNA3
 * 4), {H16B} 16x16x4 f16 (8), {H32} 32x32x8 f16 (16; CDNA3 8). On gfx942
 * the f16 ones are XDL, the f32 ones SMFMA. */
static const char *mfma_name(const char *key, int t)
{
    static const char *const tab[][3] = {
        {"F4", "v_mfma_f32_4x4x1f32", "v_mfma_f32_4x4x1_16b_f32"},
        {"F16", "v_mfma_f32_16x16x1f32", "v_mfma_f32_16x16x1_4b_f32"},
        {"F32", "v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2_f32"},
        {"H4", "v_mfma_f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16"},
        {"H16", "v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16"},
        {"H16B", "v_mfma_f32_16x16x4f16", "v_mfma_f32_16x16x4_4b_f16"},
        {"H32", "v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(tab[i][0], key))
            return tab[i][t == 3 ? 2 : 1];
    fail_msg("unknown MFMA key %s", key);
    return NULL;
}

#define CMPX "v_cmpx_le_u32_e64 s[10:11], 0, v0" /* VALU writes EXEC (all lanes stay on) */
#define DPP "v_mov_b32_dpp v12, v13 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"
#define RSRC "s_mov_b32 s12, s4\n s_and_b32 s13, s5, 0xffff\n s_mov_b32 s14, 256\n s_mov_b32 s15, 0x00027000\n"

static const hz_case cases[] = {
    /* ---- every gfx9 target ---- */
    /* checkVMEMHazards: VmemSgprWaitStates = 5 */
    {"valu-sgpr-vmem", "s_mov_b32 s9, s5\n v_mov_b32 v10, s4\n s_nop 4", "v_readfirstlane_b32 s8, v10",
     "global_load_dword v2, v11, s[8:9]", "s_waitcnt vmcnt(0)", {5, 5, 5, 5}},
    /* checkRWLaneHazards: RWLaneWaitStates = 4 */
    {"valu-sgpr-lanesel", "v_mov_b32 v10, 0\n s_nop 4", "v_readfirstlane_b32 s8, v10", "v_readlane_b32 s9, v13, s8",
     "", {4, 4, 4, 4}},
    {"valu-sgpr-lanesel", "v_mov_b32 v10, 0\n s_nop 4", "v_readfirstlane_b32 s8, v10", "v_writelane_b32 v14, 7, s8",
     "", {4, 4, 4, 4}},
    /* checkDPPHazards: DppExecWaitStates = 5, DppVgprWaitStates = 2 */
    {"valu-exec-dpp", "", CMPX, DPP, "", {5, 5, 5, 5}},
    {"valu-vgpr-dpp", "", "v_mov_b32 v13, 1", DPP, "", {2, 2, 2, 2}},
    /* checkVALUHazardsHelper: VALUWaitStates = hasGFX940Insts ? 2 : 1, for a
       FLAT store of more than 64 bits, or a MUBUF one whose soffset is not
       a register (createsVALUHazard) */
    {"store-data-valu", "", "global_store_dwordx4 v11, v[20:23], s[4:5]", "v_mov_b32 v21, 0", "s_waitcnt vmcnt(0)",
     {1, 1, 1, 2}},
    {"store-data-valu", RSRC, "buffer_store_dwordx4 v[20:23], v11, s[12:15], 0 offen", "v_mov_b32 v22, 0",
     "s_waitcnt vmcnt(0)", {1, 1, 1, 2}},
    {"store-data-valu", RSRC "s_mov_b32 s16, 0", "buffer_store_dwordx4 v[20:23], v11, s[12:15], s16 offen",
     "v_mov_b32 v22, 0", "s_waitcnt vmcnt(0)", {0, 0, 0, 0}},
    {"store-data-valu", "", "global_store_dwordx2 v11, v[20:21], s[4:5]", "v_mov_b32 v21, 0", "s_waitcnt vmcnt(0)",
     {0, 0, 0, 0}},
    /* hasVDecCoExecHazard (gfx940): VALUWriteSGPRVALUReadWaitstates = 2,
       VALUWriteEXECRWLane = 4, VALUWriteVGPRReadlaneRead = 1 */
    {"valu-sgpr-valu", "", "v_cmp_eq_u32 vcc, v13, v13", "v_cndmask_b32 v12, 0, v13, vcc", "", {0, 0, 0, 2}},
    {"valu-sgpr-valu", "v_mov_b32 v10, 0\n s_nop 4", "v_readfirstlane_b32 s8, v10", "v_add_u32 v12, s8, v13", "",
     {0, 0, 0, 2}},
    /* VCC read implicitly counts (readsRegister(VCC); clang-19 inserts the
       s_nop between v_add_co_u32_e32 and v_addc_co_u32_e32 itself) */
    {"valu-sgpr-valu", "", "v_add_co_u32 v12, vcc, v13, v13", "v_addc_co_u32 v14, vcc, v13, v13, vcc", "",
     {0, 0, 0, 2}},
    {"valu-exec-lane", "", CMPX, "v_readfirstlane_b32 s12, v13", "", {0, 0, 0, 4}},
    /* checkDivFMasHazards: DivFMasWaitStates = 4 (v_div_fmas reads VCC implicitly) */
    {"valu-vcc-divfmas", "", "v_cmp_eq_u32 vcc, v13, v13", "v_div_fmas_f64 v[20:21], v[22:23], v[24:25], v[26:27]", "",
     {4, 4, 4, 4}},
    {"valu-vgpr-readlane", "", "v_mov_b32 v13, 5", "v_readfirstlane_b32 s12, v13", "", {0, 0, 0, 1}},
    /* checkMAIVALUHazards (gfx90a+): DotWriteSameDotReadSrcAB = 3,
       DotWriteDifferentVALURead = 3, DotWriteDifferentVALUWrite = 3; the
       same v_dot reading it as C needs nothing */
    {"dot-read", "", "v_dot2_f32_f16 v14, v15, v16, v17", "v_add_f32 v18, v14, v14", "", {0, 0, 3, 3}},
    {"dot-read", "", "v_dot2_f32_f16 v14, v15, v16, v17", "v_dot2_f32_f16 v18, v14, v16, v17", "", {0, 0, 3, 3}},
    {"dot-read", "", "v_dot2_f32_f16 v14, v15, v16, v17", "v_dot2_f32_f16 v14, v15, v16, v14", "", {0, 0, 0, 0}},
    {"dot-waw", "", "v_dot2_f32_f16 v14, v15, v16, v17", "v_mov_b32 v14, 0", "", {0, 0, 3, 3}},

    /* ---- MFMA targets ---- */
    /* checkMAIHazards908/90A: VALUWritesExecWaitStates = 4 (gfx908 also
       before v_accvgpr_write) */
    {"valu-exec-mfma", "", CMPX, "{F4} a[0:3], v20, v21, a[0:3]", "", {X, 4, 4, 4}},
    {"valu-exec-accw", "", CMPX, "v_accvgpr_write_b32 a5, v20", "", {X, 4, 0, 0}},
    /* LegacyVALUWritesVGPRWaitStates = 2 (gfx908: MFMA and v_accvgpr_write);
       LegacyVALUNotDotWritesVGPRWaitStates = 2 (gfx90a+: MFMA) */
    {"valu-mfma", "", "v_mov_b32 v20, 1.0", "{F4} a[0:3], v20, v21, a[0:3]", "", {X, 2, 2, 2}},
    {"valu-mfma", "", "v_mov_b32 v25, 1.0", "{F4} v[24:27], v20, v21, v[24:27]", "", {X, X, 2, 2}},
    {"valu-accw", "", "v_mov_b32 v20, 1.0", "v_accvgpr_write_b32 a5, v20", "", {X, 2, 0, 0}},
    /* gfx908: AccVGPRWriteMFMAReadSrcCWaitStates = 1, ...SrcABWaitStates =
       3, AccVGPRWriteAccVgprReadWaitStates = 3 (and the write after write);
       gfx90a+: v_accvgpr_write is a legacy VALU, 2 before any MFMA read */
    {"accw-mfma-c", "", "v_accvgpr_write_b32 a1, v20", "{F4} a[0:3], v20, v21, a[0:3]", "", {X, 1, 2, 2}},
    {"accw-mfma-ab", "", "v_accvgpr_write_b32 a8, v20", "{F4} a[0:3], a8, v21, a[0:3]", "", {X, 3, 2, 2}},
    {"accw-accr", "", "v_accvgpr_write_b32 a8, v20", "v_accvgpr_read_b32 v22, a8", "", {X, 3, 0, 0}},
    {"accw-accw", "", "v_accvgpr_write_b32 a8, v20", "v_accvgpr_write_b32 a8, v21", "", {X, 3, 0, 0}},
    /* checkMAILdStHazards (gfx908): AccVgprReadLdStWaitStates = 2,
       VALUWriteAccVgprRdWrLdStDepVALUWaitStates = 1 */
    {"accr-mem", "", "v_accvgpr_read_b32 v22, a8", "global_store_dword v11, v22, s[4:5]", "s_waitcnt vmcnt(0)",
     {X, 2, 0, 0}},
    {"accrw-mem-valu", "v_mov_b32 v22, 0", "v_accvgpr_read_b32 v23, a8", "global_store_dword v11, v22, s[4:5]",
     "s_waitcnt vmcnt(0)", {X, 1, 0, 0}},
    /* MFMA result read as an overlapping, different C. gfx908:
       MFMAWritesAGPROverlappedSrcCWaitStates = 2; gfx90a:
       SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSMFMASrcCWaitStates =
       2/8/16; gfx940: XDL writer passes + 1, SMFMA writer passes, and none
       from an SMFMA to an XDL reader */
    {"mfma-c-overlap", "", "{F16} a[0:15], v20, v21, a[0:15]", "{F4} a[16:19], v20, v21, a[0:3]", "", {X, 2, 8, 8}},
    {"mfma-c-overlap", "", "{H16B} a[0:15], v[20:21], v[22:23], a[0:15]", "{H4} a[16:19], v[20:21], v[22:23], a[0:3]",
     "", {X, 2, 8, 9}},
    {"mfma-c-overlap", "", "{F16} a[0:15], v20, v21, a[0:15]", "{H4} a[16:19], v[20:21], v[22:23], a[0:3]", "",
     {X, 2, 8, 0}},
    /* Exactly the same C: no wait, except GFX940_SMFMA4x4WritesVGPRFullSrcCWaitStates = 2 */
    {"mfma-same-c", "", "{F4} a[0:3], v20, v21, a[0:3]", "{F4} a[0:3], v20, v21, a[0:3]", "", {X, 0, 0, 2}},
    {"mfma-same-c", "", "{F32} a[0:15], v20, v21, a[0:15]", "{F32} a[0:15], v20, v21, a[0:15]", "", {X, 0, 0, 0}},
    /* MFMA result read as A/B. gfx908: MFMAWritesAGPROverlappedSrcABWaitStates
       = 4; gfx90a: SMFMA{4x4,16x16,32x32}WritesVGPROverlappedSrcABWaitStates
       = 5/11/19; gfx940: XDL passes + 3, SMFMA passes + 2 */
    {"mfma-ab", "", "{F4} a[0:3], v20, v21, a[0:3]", "{F4} a[4:7], a1, v21, a[4:7]", "", {X, 4, 5, 4}},
    {"mfma-ab", "", "{F32} a[0:15], v20, v21, a[0:15]", "{F4} a[16:19], a3, v21, a[16:19]", "", {X, 4, 19, 18}},
    {"mfma-ab", "", "{H32} a[0:15], v[20:21], v[22:23], a[0:15]", "{F4} a[16:19], a3, v21, a[16:19]", "",
     {X, 4, 19, 11}},
    /* MFMA result read by anything else. gfx908 (v_accvgpr_read):
       MFMA{4x4,16x16,32x32}WritesAGPRAccVgprReadWaitStates = 4/10/18;
       gfx90a: SMFMA*WriteVgprVALUMemExpReadWaitStates = 5/11/19; gfx940:
       XDL passes + 3, SMFMA passes + 2 */
    {"mfma-read", "", "{F4} a[0:3], v20, v21, a[0:3]", "v_accvgpr_read_b32 v22, a2", "", {X, 4, 5, 4}},
    {"mfma-read", "", "{F16} a[0:15], v20, v21, a[0:15]", "v_accvgpr_read_b32 v22, a9", "", {X, 10, 11, 10}},
    {"mfma-read", "", "{F32} a[0:15], v20, v21, a[0:15]", "v_accvgpr_read_b32 v22, a15", "", {X, 18, 19, 18}},
    {"mfma-read", "", "{H16} a[0:3], v[20:21], v[22:23], a[0:3]", "v_accvgpr_read_b32 v22, a1", "", {X, 10, 11, 7}},
    {"mfma-read", "", "{F16} v[24:39], v20, v21, v[24:39]", "v_add_f32 v40, v30, v30", "", {X, X, 11, 10}},
    {"mfma-read", "", "{F32} v[24:39], v20, v21, v[24:39]", "global_store_dword v11, v39, s[4:5]",
     "s_waitcnt vmcnt(0)", {X, X, 19, 18}},
    /* MFMA result overwritten. gfx908 (v_accvgpr_write):
       MFMA{4x4,16x16,32x32}WritesAGPRAccVgprWriteWaitStates = 1/7/15;
       gfx90a: SMFMA*WriteVgprVALUWawWaitStates = 5/11/19; gfx940: XDL
       passes + 3, SMFMA passes + 2 */
    {"mfma-waw", "", "{F4} a[0:3], v20, v21, a[0:3]", "v_accvgpr_write_b32 a2, v20", "", {X, 1, 5, 4}},
    {"mfma-waw", "", "{F32} a[0:15], v20, v21, a[0:15]", "v_accvgpr_write_b32 a7, v20", "", {X, 15, 19, 18}},
    {"mfma-waw", "", "{F16} v[24:39], v20, v21, v[24:39]", "global_load_dword v30, v11, s[4:5]", "s_waitcnt vmcnt(0)",
     {X, X, 11, 10}},
    /* An MFMA's C overwritten while it may still be read. gfx908:
       MFMA{4x4,16x16,32x32}ReadSrcCAccVgprWriteWaitStates = 0/5/13; gfx90a:
       SMFMA{4x4,16x16,32x32}ReadVgprVALUWarWaitStates = 1/7/15; gfx940: XDL
       readers only, GFX940_XDL4PassReadVgprVALUWarWaitStates = 3 */
    {"mfma-c-war", "", "{F32} a[16:31], v20, v21, a[0:15]", "v_accvgpr_write_b32 a4, v20", "", {X, 13, 15, 0}},
    {"mfma-c-war", "", "{H16} a[4:7], v[20:21], v[22:23], a[0:3]", "v_accvgpr_write_b32 a1, v20", "", {X, 5, 7, 3}},
    {"mfma-c-war", "", "{F4} a[4:7], v20, v21, a[0:3]", "v_accvgpr_write_b32 a1, v20", "", {X, 0, 1, 0}},
    {"mfma-c-war", "", "{F32} v[40:55], v20, v21, v[24:39]", "v_mov_b32 v30, 0", "", {X, X, 15, 0}},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* Copy text with {KEY} replaced by the target's MFMA spelling. */
static void put_text(tc_sbuf *b, const char *text, int t)
{
    const char *p = text;
    while (*p) {
        const char *o = strchr(p, '{');
        if (!o) {
            tc_put(b, "%s", p);
            break;
        }
        const char *cl = strchr(o, '}');
        assert_non_null(cl);
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)(cl - o - 1), o + 1);
        tc_put(b, "%.*s%s", (int)(o - p), p, mfma_name(key, t));
        p = cl + 1;
    }
    tc_put(b, "\n");
}

/* `n` wait states: s_nop (at most 8 each), or independent SALU / VALU
   instructions. */
static void put_gap(tc_sbuf *b, int n, int style)
{
    while (n > 0) {
        int k = n > 8 ? 8 : n;
        if (style == 0)
            tc_put(b, "    s_nop %d\n", k - 1);
        else
            for (int i = 0; i < k; i++)
                tc_put(b, style == 1 ? "    s_mov_b32 s30, %d\n" : "    v_mov_b32 v60, %d\n", i);
        n -= k;
    }
}

static const char prologue[] = "    s_load_dwordx2 s[4:5], s[0:1], 0\n"
                               "    v_mov_b32 v11, 0\n    v_mov_b32 v13, 1\n"
                               "    v_mov_b32 v20, 1.0\n    v_mov_b32 v21, 1.0\n"
                               "    v_mov_b32 v22, 1.0\n    v_mov_b32 v23, 1.0\n"
                               "    s_waitcnt lgkmcnt(0)\n    s_nop 7\n    s_nop 7\n    s_nop 7\n";

static void put_case(tc_sbuf *b, const hz_case *c, int t, int gap, int style)
{
    if (*c->setup)
        put_text(b, c->setup, t);
    put_text(b, c->writer, t);
    put_gap(b, gap, style);
    put_text(b, c->consumer, t);
    if (*c->after)
        put_text(b, c->after, t);
    tc_put(b, "    s_nop 7\n    s_nop 7\n    s_nop 7\n"); /* let every hazard expire */
}

static int run_mode(int t, const char *body, emu_hazard_mode mode, emu_stats *st, char *err, size_t errlen)
{
    static uint32_t buf[64];
    void *ptrs[1] = {buf};
    size_t sizes[1] = {sizeof buf};
    tc_snippet sn = {.arch = archs[t], .body = body, .vgprs = 64, .agprs = 32, .sgprs = 32, .nptrs = 1, .hazards = mode};
    return tc_run(&sn, 1, 64, ptrs, sizes, st, err, errlen);
}

static int run(int t, const char *body, char *err, size_t errlen)
{
    return run_mode(t, body, EMU_HAZARDS_ERROR, NULL, err, errlen);
}

/* Under EMU_HAZARDS_WARN the same sequence runs to the end, with one
 * finding of its rule (by the rule's name in emu_hazard_rule_names). */
static bool warn_records(int t, const char *body, const char *rule, char *err, size_t errlen)
{
    emu_stats st = {0};
    int rc = run_mode(t, body, EMU_HAZARDS_WARN, &st, err, errlen);
    for (int r = 0; r < EMU_HZ_RULES; r++)
        if (!strcmp(emu_hazard_rule_names[r], rule)) {
            if (rc == 0 && st.hazards[r].count >= 1)
                return true;
            if (rc == 0)
                snprintf(err, errlen, "warn: ran clean without a %s finding", rule);
            return false;
        }
    snprintf(err, errlen, "warn: rule %s is not in emu_hazard_rule_names", rule);
    return false;
}

/* All cases of target t with exactly the needed wait states: clean. */
static void clean_target(int t)
{
    tc_sbuf b = {0};
    tc_put(&b, "%s", prologue);
    int n = 0;
    for (int i = 0; i < NCASES; i++)
        if (cases[i].need[t] >= 0)
            put_case(&b, &cases[i], t, cases[i].need[t], n++ % 3);
    char err[1024] = "";
    int rc = run(t, b.s, err, sizeof err);
    if (rc)
        print_error("%s, every case with the wait states it needs: %s\n", archs[t], err);
    free(b.s);
    print_message("%s: %d sequences with exactly the needed wait states ran clean\n", archs[t], n);
    assert_int_equal(rc, 0);
}

/* Every case of target t with one wait state too few: reported. */
static void short_target(int t)
{
    int fails = 0, runs = 0;
    for (int i = 0; i < NCASES; i++) {
        const hz_case *c = &cases[i];
        int need = c->need[t];
        if (need <= 0)
            continue;
        tc_sbuf b = {0};
        tc_put(&b, "%s", prologue);
        put_case(&b, c, t, need - 1, i % 3);
        char err[1024] = "", want_rule[64], want_ws[96], want_where[96], want_inst[96];
        int rc = run(t, b.s, err, sizeof err);
        runs++;
        snprintf(want_rule, sizeof want_rule, "hazard %s:", c->rule);
        snprintf(want_ws, sizeof want_ws, ": %d wait state%s provided, %d needed", need - 1, need - 1 == 1 ? "" : "s",
                 need);
        snprintf(want_where, sizeof want_where, "%s kernel snippet: workgroup (0,0,0) wave 0 pc 0x", archs[t]);
        /* the consumer's mnemonic, as the report quotes the instruction */
        tc_sbuf cons = {0};
        put_text(&cons, c->consumer, t);
        snprintf(want_inst, sizeof want_inst, "`%.*s", (int)strcspn(cons.s, " \n"), cons.s);
        free(cons.s);
        if (rc == 0 || !strstr(err, want_rule) || !strstr(err, want_ws) || !strstr(err, want_where) ||
            !strstr(err, want_inst)) {
            print_error("%s case %d (%s, %d wait states given, %d needed): %s\n", archs[t], i, c->rule, need - 1,
                        need, rc == 0 ? "ran clean" : err);
            fails++;
        } else if (!warn_records(t, b.s, c->rule, err, sizeof err)) {
            print_error("%s case %d (%s) with --hazards warn: %s\n", archs[t], i, c->rule, err);
            fails++;
        }
        free(b.s);
    }
    print_message("%s: %d sequences one wait state short were reported (and recorded under warn)\n", archs[t], runs);
    assert_int_equal(fails, 0);
}

static void gfx906_exact(void **state) { (void)state; clean_target(0); }
static void gfx908_exact(void **state) { (void)state; clean_target(1); }
static void gfx90a_exact(void **state) { (void)state; clean_target(2); }
static void gfx942_exact(void **state) { (void)state; clean_target(3); }
static void gfx906_short(void **state) { (void)state; short_target(0); }
static void gfx908_short(void **state) { (void)state; short_target(1); }
static void gfx90a_short(void **state) { (void)state; short_target(2); }
static void gfx942_short(void **state) { (void)state; short_target(3); }

/* The named case: gfx908, a 16x16 MFMA (8 passes) writes a[0:15]
 * and v_accvgpr_read follows after s_nop 8 (9 wait states); LLVM's
 * MFMA16x16WritesAGPRAccVgprReadWaitStates is 10. s_nop 9 is enough. */
static void gfx908_mfma_then_short_nop_accvgpr_read(void **state)
{
    (void)state;
    char err[1024] = "";
    const char *shorter = "    v_mfma_f32_16x16x1f32 a[0:15], v20, v21, a[0:15]\n    s_nop 8\n"
                          "    v_accvgpr_read_b32 v22, a3\n";
    char body[512];
    snprintf(body, sizeof body, "%s%s", prologue, shorter);
    assert_int_equal(run(1, body, err, sizeof err), -1);
    assert_non_null(strstr(err, "gfx908 kernel snippet: workgroup (0,0,0) wave 0 pc 0x"));
    assert_non_null(strstr(err, "`v_accvgpr_read_b32 v22, a3`"));
    assert_non_null(strstr(err, "hazard mfma-read:"));
    assert_non_null(strstr(err, "(a3): 9 wait states provided, 10 needed"));
    snprintf(body, sizeof body,
             "%s    v_mfma_f32_16x16x1f32 a[0:15], v20, v21, a[0:15]\n    s_nop 9\n    v_accvgpr_read_b32 v22, a3\n",
             prologue);
    err[0] = 0;
    int rc = run(1, body, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gfx908_mfma_then_short_nop_accvgpr_read),
        cmocka_unit_test(gfx906_exact), cmocka_unit_test(gfx908_exact),
        cmocka_unit_test(gfx90a_exact), cmocka_unit_test(gfx942_exact),
        cmocka_unit_test(gfx906_short), cmocka_unit_test(gfx908_short),
        cmocka_unit_test(gfx90a_short), cmocka_unit_test(gfx942_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
