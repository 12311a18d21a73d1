/* Foreign kernels (issue 9): what hardware runs correctly must run, with
 * the right numbers, and its twin that goes wrong must be refused.
 *   - hazards as warnings: the run goes on, findings counted per rule
 *   - the unified register file of gfx90a/gfx942 (AGPR ai = v[accum_offset + i])
 *   - an MFMA kernel in the style of MIOpen's NHWC kernels: accumulators in
 *     VGPRs above accum_offset, no AGPR; its twin with an AGPR that aliases a
 *     live VGPR is caught by verification
 *   - the buffer range check chosen by IDXEN, not the stride alone
 *   - gfx940 / gfx941 code objects
 * Expected values come from the snippets' own arithmetic and the matrix
 * calculator's layout formulas (tests/isa/mfma/CDNA2/v_mfma_f32_32x32x2f32.md),
 * not from the emulator. Snippet: p0 = out, p1 = in (TC_PRELUDE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};

/* Run body on arch: groups x threads, out/in of nout/nin dwords. */
static int run(const char *arch, const char *body, int vgprs, int agprs, emu_hazard_mode mode, unsigned groups,
               unsigned threads, uint32_t *out, size_t nout, uint32_t *in, size_t nin, emu_stats *st, char *err,
               size_t errlen)
{
    tc_sbuf src = {0};
    tc_put(&src, "%s%s", TC_PRELUDE, body);
    tc_snippet s = {.arch = arch, .body = src.s, .vgprs = vgprs, .agprs = agprs, .sgprs = 48, .nptrs = 2,
                    .hazards = mode};
    void *ptrs[2] = {out, in};
    size_t sizes[2] = {4 * nout, 4 * nin};
    int rc = tc_run(&s, groups, threads, ptrs, sizes, st, err, errlen);
    free(src.s);
    return rc;
}

static int rule_index(const char *name)
{
    for (int r = 0; r < EMU_HZ_RULES; r++)
        if (!strcmp(emu_hazard_rule_names[r], name))
            return r;
    fail_msg("no hazard rule %s", name);
    return -1;
}

/* The pc and text of `label` in body assembled for arch. */
static void label_of(const char *arch, const char *body, int vgprs, int agprs, uint64_t *pc, char *text, size_t len)
{
    tc_sbuf src = {0};
    tc_put(&src, "%s%s", TC_PRELUDE, body);
    tc_snippet s = {.arch = arch, .body = src.s, .vgprs = vgprs, .agprs = agprs, .sgprs = 48, .nptrs = 2};
    char err[1024];
    size_t size = 0;
    void *image = tc_assemble(&s, &size, err, sizeof err);
    free(src.s);
    if (!image)
        fail_msg("%s: %s", arch, err);
    tc_locate_label(image, size, arch, "fault_here", pc, text, len);
    free(image);
}

/* ---- hazards as warnings ---- */

/* gfx942: v_cmp writes VCC, v_cndmask reads it at once (valu-sgpr-valu needs
 * 2), five times per wave, 2 workgroups of 2 waves: 20 findings. */
static const char cndmask_loop[] = "    v_mov_b32 v3, 1\n"
                                   "    v_mov_b32 v4, 2\n"
                                   "    s_mov_b32 s20, 5\n"
                                   ".Lloop:\n"
                                   "    v_cmp_gt_u32 vcc, 32, v0\n"
                                   "fault_here:\n"
                                   "    v_cndmask_b32 v2, v3, v4, vcc\n"
                                   "    s_sub_u32 s20, s20, 1\n"
                                   "    s_cmp_lg_u32 s20, 0\n"
                                   "    s_cbranch_scc1 .Lloop\n"
                                   "    global_store_dword v1, v2, s[4:5]\n";

static void hazards_warn(void **state)
{
    (void)state;
    uint32_t out[128], in[64] = {0};
    char err[2048], text[256];
    uint64_t pc;
    emu_stats st = {0};
    /* error (the default): stopped at the first */
    assert_int_not_equal(run("gfx942", cndmask_loop, 32, 0, EMU_HAZARDS_ERROR, 2, 128, out, 128, in, 64, NULL, err,
                             sizeof err), 0);
    tc_expect_contains(err, "hazard valu-sgpr-valu");
    /* warn: every shortfall counted, the first one kept, right numbers */
    memset(out, 0xff, sizeof out);
    if (run("gfx942", cndmask_loop, 32, 0, EMU_HAZARDS_WARN, 2, 128, out, 128, in, 64, &st, err, sizeof err))
        fail_msg("warn run: %s", err);
    for (int t = 0; t < 128; t++)
        if (out[t] != (t < 32 ? 2u : 1u))
            fail_msg("out[%d] = %u, expected %u", t, out[t], t < 32 ? 2u : 1u);
    const emu_hazard_finding *f = &st.hazards[rule_index("valu-sgpr-valu")];
    assert_int_equal(f->count, 20);
    assert_int_equal(emu_stats_hazards(&st), 20);
    label_of("gfx942", cndmask_loop, 32, 0, &pc, text, sizeof text);
    assert_int_equal(f->pc, pc);
    char ftext[128];
    snprintf(ftext, sizeof ftext, "%s", f->text);
    tc_normalize(ftext);
    assert_string_equal(ftext, text);
    assert_int_equal(f->wg, 0);
    assert_int_equal(f->wave, 0);
    tc_expect_contains(f->msg, "workgroup (0,0,0) wave 0: VALU wrote an SGPR, then a VALU instruction reads it (vcc)");
    /* the same first finding whatever the number of worker threads */
    emu_stats st2 = {0};
    tc_sbuf src = {0};
    tc_put(&src, "%s%s", TC_PRELUDE, cndmask_loop);
    tc_snippet s = {.arch = "gfx942", .body = src.s, .vgprs = 32, .sgprs = 48, .nptrs = 2, .host_threads = 2,
                    .hazards = EMU_HAZARDS_WARN};
    void *ptrs[2] = {out, in};
    size_t sizes[2] = {sizeof out, sizeof in};
    if (tc_run(&s, 8, 128, ptrs, sizes, &st2, err, sizeof err))
        fail_msg("warn run, 2 threads: %s", err);
    free(src.s);
    const emu_hazard_finding *f2 = &st2.hazards[rule_index("valu-sgpr-valu")];
    assert_int_equal(f2->count, 80);
    assert_int_equal(f2->wg, 0);
    assert_int_equal(f2->pc, pc);

    /* gfx908 MIOpen epilogue: v_accvgpr_read, one wait state, a store of
       that VGPR (accr-mem needs 2) */
    static const char accr[] = "    v_accvgpr_write_b32 a0, v0\n"
                               "    s_nop 2\n"
                               "    v_accvgpr_read_b32 v2, a0\n"
                               "    s_nop 0\n"
                               "fault_here:\n"
                               "    global_store_dword v1, v2, s[4:5]\n";
    assert_int_not_equal(run("gfx908", accr, 32, 32, EMU_HAZARDS_ERROR, 1, 64, out, 128, in, 64, NULL, err,
                             sizeof err), 0);
    tc_expect_contains(err, "hazard accr-mem");
    memset(&st, 0, sizeof st);
    if (run("gfx908", accr, 32, 32, EMU_HAZARDS_WARN, 1, 64, out, 128, in, 64, &st, err, sizeof err))
        fail_msg("gfx908 warn run: %s", err);
    for (int t = 0; t < 64; t++)
        assert_int_equal(out[t], t);
    assert_int_equal(st.hazards[rule_index("accr-mem")].count, 1);
    assert_int_equal(emu_stats_hazards(&st), 1);

    /* warn keeps every other check fatal: a missing s_waitcnt after the hazard */
    static const char other[] = "    v_cmp_gt_u32 vcc, 32, v0\n"
                                "    v_cndmask_b32 v2, 0, 1, vcc\n"
                                "    global_load_dword v3, v1, s[6:7]\n"
                                "    v_add_u32 v2, v2, v3\n";
    memset(&st, 0, sizeof st);
    assert_int_not_equal(run("gfx942", other, 32, 0, EMU_HAZARDS_WARN, 1, 64, out, 128, in, 64, &st, err,
                             sizeof err), 0);
    tc_expect_contains(err, "missing s_waitcnt vmcnt");
    assert_int_equal(st.hazards[rule_index("valu-sgpr-valu")].count, 1);
}

/* ---- the unified register file ---- */

/* A write through one name is seen through the other: v33 is a1 and a2 is
 * v34 when accum_offset is 32 (32 VGPRs + 8 AGPRs). */
static void unified_aliasing(void **state)
{
    (void)state;
    static const char body[] = "    v_mov_b32 v33, v0\n"
                               "    v_accvgpr_read_b32 v2, a1\n"
                               "    v_accvgpr_write_b32 a2, v1\n"
                               "    s_nop 2\n"
                               "    v_mov_b32 v3, v34\n"
                               "    global_store_dword v1, v2, s[4:5]\n"
                               "    global_store_dword v1, v3, s[4:5] offset:256\n";
    uint32_t out[128], in[64] = {0};
    char err[2048];
    for (int a = 2; a < TC_NARCH(archs); a++) {
        memset(out, 0, sizeof out);
        if (run(archs[a], body, 32, 8, EMU_HAZARDS_ERROR, 1, 64, out, 128, in, 64, NULL, err, sizeof err))
            fail_msg("%s: %s", archs[a], err);
        for (int l = 0; l < 64; l++) {
            if (out[l] != (uint32_t)l || out[64 + l] != 4u * (uint32_t)l)
                fail_msg("%s lane %d: a1 read %u (v33 = %d), v34 read %u (a2 = %d)", archs[a], l, out[l], l,
                         out[64 + l], 4 * l);
        }
    }
    /* gfx908 keeps two files (48 VGPRs, 48 AGPRs): writing v33 leaves a1
       with its poison, writing a2 leaves v34's */
    memset(out, 0, sizeof out);
    if (run("gfx908", body, 48, 48, EMU_HAZARDS_ERROR, 1, 64, out, 128, in, 64, NULL, err, sizeof err))
        fail_msg("gfx908: %s", err);
    for (int l = 0; l < 64; l++)
        if (out[l] == (uint32_t)l || out[64 + l] == 4u * (uint32_t)l)
            fail_msg("gfx908 lane %d: the AGPR and VGPR files must be separate", l);
}

/* ---- an NHWC-style MFMA kernel ---- */

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* A lane values (A[i][k] at lane 32k + i), B lane values (B[k][j] at lane 32k + j). */
static float a_val(int l) { return (float)((l * 7) % 5 - 2); }
static float b_val(int l) { return (float)((l * 3) % 7 - 3); }

/* Mismatches of out (16 rows of D, register r lane l at out[64r + l], then
 * the live marker row 16) against the calculator's 32x32x2 f32 layout:
 * D[i][j] in register r, lane l with j = l % 32,
 * i = (8 * floor(r / 4)) % 32 + 4 * floor(l / 32) + r % 4. */
static int verify_32x32x2(const uint32_t *out, uint32_t marker)
{
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int l = 0; l < 64; l++) {
            int i = (8 * (r / 4)) % 32 + 4 * (l / 32) + r % 4, j = l % 32;
            float d = 0;
            for (int k = 0; k < 2; k++)
                d += a_val(32 * k + i) * b_val(32 * k + j);
            bad += out[64 * r + l] != fbits(d);
        }
    for (int l = 0; l < 64; l++)
        bad += out[64 * 16 + l] != marker;
    return bad;
}

/* dst: the MFMA's D; the 16 stores read it through `rd` (VGPRs v32.. or
 * v_accvgpr_read from a0..); v9 holds a live marker stored last. */
static void put_mfma_kernel(tc_sbuf *b, const char *arch, bool agpr_dst)
{
    const char *op = target_by_name(arch)->mfma_gfx940_names ? "v_mfma_f32_32x32x2_f32" : "v_mfma_f32_32x32x2f32";
    tc_put(b, "    v_mov_b32 v9, 0x1234\n"
              "    global_load_dword v2, v1, s[6:7]\n"
              "    global_load_dword v3, v1, s[6:7] offset:256\n"
              "    s_waitcnt vmcnt(0)\n"
              "    %s %s, v2, v3, 0\n"
              "    s_nop 7\n    s_nop 7\n    s_nop 7\n",
           op, agpr_dst ? "a[0:15]" : "v[32:47]");
    for (int r = 0; r < 16; r++) {
        if (agpr_dst) {
            tc_put(b, "    v_accvgpr_read_b32 v4, a%d\n", r);
            tc_put(b, "    global_store_dword v1, v4, s[4:5] offset:%d\n", 256 * r);
            tc_put(b, "    s_waitcnt vmcnt(0)\n");
        } else {
            tc_put(b, "    global_store_dword v1, v%d, s[4:5] offset:%d\n", 32 + r, 256 * r);
        }
    }
    tc_put(b, "    v_mov_b32 v5, 0x1000\n"
              "    v_add_u32 v5, v5, v1\n"
              "    global_store_dword v5, v9, s[4:5]\n"
              "    s_waitcnt vmcnt(0)\n");
}

static void nhwc_style_mfma(void **state)
{
    (void)state;
    uint32_t *out = malloc(17 * 64 * 4), in[128];
    assert_non_null(out);
    for (int l = 0; l < 64; l++) {
        in[l] = fbits(a_val(l));
        in[64 + l] = fbits(b_val(l));
    }
    char err[2048];
    for (int a = 2; a < TC_NARCH(archs); a++) {
        /* accumulators in v[32:47], at and above accum_offset 32, no AGPR used;
           the descriptor allocates 32 + 16 registers */
        tc_sbuf body = {0};
        put_mfma_kernel(&body, archs[a], false);
        memset(out, 0, 17 * 64 * 4);
        if (run(archs[a], body.s, 32, 16, EMU_HAZARDS_ERROR, 1, 64, out, 17 * 64, in, 128, NULL, err, sizeof err))
            fail_msg("%s NHWC-style MFMA: %s", archs[a], err);
        int bad = verify_32x32x2(out, 0x1234);
        if (bad)
            fail_msg("%s NHWC-style MFMA: %d values differ from the calculator's layout", archs[a], bad);
        free(body.s);
        /* the twin: accum_offset 8, D in a[0:15] = v[8:23], and the kernel
           keeps a live value in v9 (= a1): the MFMA overwrites it, which
           verification must catch */
        tc_sbuf twin = {0};
        put_mfma_kernel(&twin, archs[a], true);
        memset(out, 0, 17 * 64 * 4);
        if (run(archs[a], twin.s, 8, 16, EMU_HAZARDS_ERROR, 1, 64, out, 17 * 64, in, 128, NULL, err, sizeof err))
            fail_msg("%s aliasing twin: %s", archs[a], err);
        bad = verify_32x32x2(out, 0x1234);
        if (bad != 64)
            fail_msg("%s aliasing twin: verification should find exactly the 64 clobbered marker values, found %d",
                     archs[a], bad);
        free(twin.s);
    }
    free(out);
}

/* ---- range check by IDXEN ---- */

/* A resource with stride 16 and NUM_RECORDS 64: without IDXEN the check is
 * raw, in bytes (lanes 0..15 of a dword per lane are in range); with IDXEN
 * (NUM_RECORDS 4) it is structured, in records (lanes 0..3). Before the fix
 * the stride alone chose structured checking, and the raw load faulted
 * ("beyond the record stride"). */
static void range_check_by_idxen(void **state)
{
    (void)state;
    static const char body[] = "    s_mov_b32 s8, s6\n"
                               "    s_and_b32 s9, s7, 0xffff\n"
                               "    s_or_b32 s9, s9, 0x100000\n" /* stride 16 */
                               "    s_movk_i32 s10, 0x40\n"
                               "    s_mov_b32 s11, 0x27000\n"
                               "    s_mov_b64 s[12:13], s[8:9]\n"
                               "    s_mov_b32 s14, 4\n"
                               "    s_mov_b32 s15, 0x27000\n"
                               "    buffer_load_dword v2, v1, s[8:11], 0 offen\n"
                               "    buffer_load_dword v3, v0, s[12:15], 0 idxen\n"
                               "    s_waitcnt vmcnt(0)\n"
                               "    global_store_dword v1, v2, s[4:5]\n"
                               "    global_store_dword v1, v3, s[4:5] offset:256\n";
    uint32_t out[128], in[64];
    for (int i = 0; i < 64; i++)
        in[i] = 1000u + (uint32_t)i;
    char err[2048];
    for (int a = 0; a < TC_NARCH(archs); a++) {
        memset(out, 0xff, sizeof out);
        if (run(archs[a], body, 32, 0, EMU_HAZARDS_ERROR, 1, 64, out, 128, in, 64, NULL, err, sizeof err))
            fail_msg("%s: %s", archs[a], err);
        for (int l = 0; l < 64; l++) {
            uint32_t raw = l < 16 ? in[l] : 0, structured = l < 4 ? in[4 * l] : 0;
            if (out[l] != raw || out[64 + l] != structured)
                fail_msg("%s lane %d: raw %u (expected %u), structured %u (expected %u)", archs[a], l, out[l], raw,
                         out[64 + l], structured);
        }
    }
}

/* ---- gfx940 and gfx941 ---- */

static void mi300_variants(void **state)
{
    (void)state;
    static const char body[] = "    global_load_dword v2, v1, s[6:7]\n"
                               "    s_waitcnt vmcnt(0)\n"
                               "    v_pk_add_f32 v[4:5], v[2:3], v[2:3] op_sel_hi:[0,0]\n"
                               "    s_nop 1\n"
                               "    global_store_dword v1, v4, s[4:5] sc0 sc1\n";
    static const char *const variants[] = {"gfx940", "gfx941"};
    uint32_t out[64], in[64];
    for (int i = 0; i < 64; i++)
        in[i] = fbits((float)i + 0.5f);
    char err[2048];
    for (int v = 0; v < 2; v++) {
        const target *t = target_by_name(variants[v]);
        assert_non_null(t);
        assert_true(t->emulate_only);
        assert_true(t->unified_acc_vgprs && t->cache_bits_sc && t->force_store_sc0_sc1);
        memset(out, 0, sizeof out);
        if (run(variants[v], body, 32, 0, EMU_HAZARDS_ERROR, 1, 64, out, 64, in, 64, NULL, err, sizeof err))
            fail_msg("%s: %s", variants[v], err);
        for (int l = 0; l < 64; l++)
            assert_int_equal(out[l], fbits(2.0f * ((float)l + 0.5f)));
        /* its code object names its own target and is refused by a gfx942 device */
        tc_sbuf src = {0};
        tc_put(&src, "%s%s", TC_PRELUDE, body);
        tc_snippet s = {.arch = variants[v], .body = src.s, .vgprs = 32, .sgprs = 48, .nptrs = 2};
        size_t size = 0;
        void *image = tc_assemble(&s, &size, err, sizeof err);
        free(src.s);
        assert_non_null(image);
        assert_string_equal(emu_elf_target(image, size), variants[v]);
        tc_loaded l;
        assert_int_not_equal(tc_load_image(&l, "gfx942", 1, image, size, err, sizeof err), 0);
        char want[96];
        snprintf(want, sizeof want, "code object is for %s, the emulator runs gfx942", variants[v]);
        tc_expect_contains(err, want);
        free(image);
    }
    /* the project builds no kernels for them */
    tc_expect_contains(target_names(), "gfx940");
    assert_null(strstr(target_names_generated(), "gfx940"));
    assert_null(strstr(target_names_generated(), "gfx941"));
    assert_string_equal(target_names_generated(), "gfx906, gfx908, gfx90a, gfx942");
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = "gfx940";
    igemm_handle *h = NULL;
    char why[512] = "";
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_UNSUPPORTED);
    tc_expect_contains(why, "emulate-only target 'gfx940'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hazards_warn),
        cmocka_unit_test(unified_aliasing),
        cmocka_unit_test(nhwc_style_mfma),
        cmocka_unit_test(range_check_by_idxen),
        cmocka_unit_test(mi300_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
