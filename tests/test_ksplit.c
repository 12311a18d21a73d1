/* The split along GEMM K (the _ks2/_ks4/_ks8 solvers, docs/KERNELS.md
 * "Split along GEMM K"): dx against the float64 reference on MFMA targets
 * in every type and layout and on its edge shapes (K/G not a multiple of
 * the split's range, fewer K blocks than the factor, stride-2 multi-phase
 * plans, groups), refusals where it cannot split, bitwise equal dx on
 * repeated runs with several emulator threads, and the reduction kernels
 * run directly on partial sums whose fp32 sum depends on the order (split
 * 0, 1, 2, ...) and whose 16-bit result depends on rounding once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/kargs.h"
#include "../conv/problem.h"
#include "../conv/half.h"
#include "../include/igemm.h"
#include "common.h"

/* The problems: NCHW fp32 (the type and layout are set per case). */
typedef struct {
    const char *what;
    igemm_problem p;
} ks_case;

static ks_case ks_cases(int i)
{
    igemm_problem p = IGEMM_PROBLEM_INIT;
    switch (i) {
    case 0: /* K/G = 200: 13 blocks of 16 in ranges of 4, 4, 4 and 1; a 3x3 filter with border taps */
        p.n = 2, p.c = 40, p.hi = 7, p.wi = 7, p.k = 200, p.y = 3, p.x = 3, p.pad_h = 1, p.pad_w = 1;
        return (ks_case){"K/G 200 (not a multiple of the ranges), 3x3", p};
    case 1: /* stride 2: 4 phases, each split a row of the phase table */
        p.n = 1, p.c = 24, p.hi = 9, p.wi = 8, p.k = 72, p.y = 3, p.x = 3, p.pad_h = 1, p.pad_w = 1, p.stride_h = 2,
        p.stride_w = 2;
        return (ks_case){"stride 2, 3x3: several phases", p};
    case 2: /* 2 groups of 36 K channels: the range inside each group */
        p.n = 2, p.c = 20, p.hi = 5, p.wi = 6, p.k = 72, p.y = 1, p.x = 1, p.groups = 2;
        return (ks_case){"2 groups, 1x1", p};
    default: /* K/G = 40: 3 blocks of 16 (2 of 32): fewer than the factor 8 */
        p.n = 3, p.c = 17, p.hi = 4, p.wi = 5, p.k = 40, p.y = 1, p.x = 1, p.stride_h = 2, p.stride_w = 2;
        return (ks_case){"K/G 40 < 8 blocks, stride 2 1x1 (zero-filled holes)", p};
    }
}
#define KS_CASES 4

/* A split solver of the type and layout on arch, by tile index and factor
 * (the tiles of v4r1_config_splits, each name as `igemm solutions` lists
 * it). */
static void split_name(char *buf, size_t len, igemm_dtype dt, igemm_layout l, int tile, int factor)
{
    static const char *const fp32_tiles[] = {"128x128x16_t256_wt32x32x2", "128x64x8_t256_wt32x32x2",
                                             "64x64x8_t256_wt32x32x2"};
    static const char *const h16_tiles[] = {"256x128x16_t256_wt32x32x8", "128x128x32_t256_wt32x32x8",
                                            "64x64x32_t256_wt32x32x8"};
    snprintf(buf, len, "igemm_bwd_v4r1_mfma_%s_%s_%s_ks%d",
             dt == IGEMM_FP32 ? "fp32" : dt == IGEMM_FP16 ? "fp16" : "bf16", l == IGEMM_LAYOUT_NHWC ? "nhwc" : "nchw",
             (dt == IGEMM_FP32 ? fp32_tiles : h16_tiles)[tile % 3], factor);
}

/* Every case, type and layout on arch, a tile and factor per run (cycling,
 * so that each tile and factor meets each case somewhere). */
static void verified_on(const char *arch)
{
    static const igemm_dtype dts[] = {IGEMM_FP32, IGEMM_FP16, IGEMM_BF16};
    static const int factors[] = {2, 4, 8};
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    int run = 0, ran = 0;
    for (int c = 0; c < KS_CASES; c++)
        for (int d = 0; d < 3; d++)
            for (int l = 0; l < 2; l++, run++) {
                ks_case k = ks_cases(c);
                k.p.dtype = dts[d];
                k.p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
                /* fp16 in the accurate default: gfx90a's split fp16 MFMA kernels
                   are exact too (v4r1_config_ftz_checked) */
                char name[128], why[512], msg[1024];
                /* 4 phases take at most 4 splits (16 rows of one launch) */
                int f = c == 1 ? factors[run % 2] : factors[run / 3 % 3];
                split_name(name, sizeof name, dts[d], k.p.layout, run, f);
                if (igemm_applicable(h, &k.p, name, why, sizeof why) != IGEMM_OK)
                    fail_msg("%s on %s (%s): %s", name, arch, k.what, why);
                tc_case_result r;
                if (tc_run_case(h, &k.p, name, 500 + (uint64_t)run, &r, msg, sizeof msg))
                    fail_msg("%s on %s (%s): %s", name, arch, k.what, msg);
                /* the workspace was used: the plan ends with the reduction */
                if (!strstr(r.ri.kernels, "igemm_ksplit_sum_"))
                    fail_msg("%s on %s: ran %s, no reduction", name, arch, r.ri.kernels);
                ran++;
            }
    assert_int_equal(ran, KS_CASES * 6);
    igemm_destroy(h);
}

static void verified_gfx942(void **state)
{
    (void)state;
    verified_on("gfx942");
}

static void verified_gfx90a(void **state)
{
    (void)state;
    verified_on("gfx90a");
}

static void verified_gfx908(void **state)
{
    (void)state;
    verified_on("gfx908");
}

/* Non-finite dy/w through the split: NaN and Inf where the reference has
 * them (the partial sums keep them; the reduction's non-finite guard
 * recomputes the border pixels that only masked taps made NaN). */
static void non_finite_data(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx942", NULL, 0);
    for (int d = 0; d < 2; d++) {
        ks_case k = ks_cases(0);
        k.p.dtype = d ? IGEMM_BF16 : IGEMM_FP32;
        k.p.layout = IGEMM_LAYOUT_NHWC;
        char name[128], msg[1024];
        split_name(name, sizeof name, k.p.dtype, k.p.layout, 1, 4);
        tc_case_result r;
        if (tc_run_case_ex(h, &k.p, name, 77, TC_SPECIALS_DY | TC_SPECIALS_W, &r, msg, sizeof msg))
            fail_msg("%s: %s", name, msg);
    }
    igemm_destroy(h);
}

/* The split solutions: <config>_ks<N> for N = 2, 4, 8 of each splitting
 * tile (3 fp32 ones, 3 k-quad ones in fp16 and in bf16; both layouts), each
 * <config> itself a solution. */
static void names(void **state)
{
    (void)state;
    int n = 0;
    for (int i = 0; i < igemm_solution_count(); i++) {
        const char *name = igemm_solution_name(i);
        const char *ks = strstr(name, "_ks");
        if (!ks || !strstr(name, "igemm_bwd_v4r1_"))
            continue;
        int f = 0, end = 0;
        if (sscanf(ks, "_ks%d%n", &f, &end) != 1 || ks[end] || (f != 2 && f != 4 && f != 8))
            fail_msg("%s: not <config>_ks<2|4|8>", name);
        char base[128];
        snprintf(base, sizeof base, "%.*s", (int)(ks - name), name);
        int found = 0;
        for (int j = 0; j < igemm_solution_count(); j++)
            found |= !strcmp(igemm_solution_name(j), base);
        if (!found)
            fail_msg("%s: %s is no solution", name, base);
        n++;
    }
    assert_int_equal(n, 3 * (3 * 2 + 3 * 2 * 2));
}

/* Where nothing splits: one K block (K/G <= KPB), or more (split, phase)
 * rows than one launch holds, refused with the reason; and gfx906 has no
 * split solver (FMA only). */
static void refusals(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx942", NULL, 0);
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.c = 8, p.hi = 4, p.wi = 4, p.k = 16, p.y = 3, p.x = 3, p.pad_h = 1, p.pad_w = 1; /* K/G 16: one block of 16 */
    char why[512];
    assert_int_equal(igemm_applicable(h, &p, "igemm_bwd_v4r1_mfma_fp32_nchw_128x128x16_t256_wt32x32x2_ks2", why,
                                      sizeof why),
                     IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "nothing to split");
    /* 4 phases of 5 K blocks of 16 in 5 splits: 20 rows, more than one launch's 16 */
    ks_case k = ks_cases(1);
    assert_int_equal(igemm_applicable(h, &k.p, "igemm_bwd_v4r1_mfma_fp32_nchw_128x128x16_t256_wt32x32x2_ks8", why,
                                      sizeof why),
                     IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "exceed one launch's phase table");
    /* 8 blocks of 8: splits */
    assert_int_equal(igemm_applicable(h, &p, "igemm_bwd_v4r1_mfma_fp32_nchw_64x64x8_t256_wt32x32x2_ks8", why,
                                      sizeof why),
                     IGEMM_OK);
    igemm_destroy(h);
    h = tc_emu_handle("gfx906", NULL, 0);
    assert_int_not_equal(igemm_applicable(h, &p, "igemm_bwd_v4r1_mfma_fp32_nchw_64x64x8_t256_wt32x32x2_ks8", why,
                                          sizeof why),
                         IGEMM_OK);
    igemm_destroy(h);
}

/* Bitwise equal dx on repeated runs, 1 and 4 emulator threads (the
 * workgroups of the split launch finish in another order every time; the
 * partial sums go to slices of their own and the reduction adds them in
 * split order). */
static void deterministic(void **state)
{
    (void)state;
    igemm_handle *one = tc_emu_handle("gfx942", NULL, 1), *many = tc_emu_handle("gfx942", NULL, 4);
    for (int c = 0; c < 2; c++) {
        ks_case k = ks_cases(c);
        k.p.layout = IGEMM_LAYOUT_NHWC;
        size_t nx = (size_t)k.p.n * k.p.c * k.p.hi * k.p.wi;
        size_t ny = (size_t)k.p.n * k.p.k * igemm_problem_ho(&k.p) * igemm_problem_wo(&k.p);
        size_t nw = (size_t)k.p.k * (k.p.c / k.p.groups) * k.p.y * k.p.x;
        float *dy = malloc(ny * 4), *w = malloc(nw * 4), *a = malloc(nx * 4), *b = malloc(nx * 4);
        assert_true(dy && w && a && b);
        tc_fill_uniform(dy, ny, 31 + (uint64_t)c);
        tc_fill_uniform(w, nw, 32 + (uint64_t)c);
        char name[128];
        split_name(name, sizeof name, IGEMM_FP32, k.p.layout, c, c ? 4 : 8); /* 4 phases: 4 splits */
        for (size_t i = 0; i < nx; i++)
            a[i] = NAN;
        if (igemm_conv_bwd_data_ex(one, &k.p, name, a, dy, w, NULL) != IGEMM_OK)
            fail_msg("%s: %s", name, igemm_last_error(one));
        for (int rep = 0; rep < 3; rep++) {
            for (size_t i = 0; i < nx; i++)
                b[i] = NAN;
            if (igemm_conv_bwd_data_ex(many, &k.p, name, b, dy, w, NULL) != IGEMM_OK)
                fail_msg("%s: %s", name, igemm_last_error(many));
            if (memcmp(a, b, nx * 4))
                fail_msg("%s (%s): dx differs between runs (1 vs 4 emulator threads, run %d)", name,
                         ks_cases(c).what, rep);
        }
        free(dy);
        free(w);
        free(a);
        free(b);
    }
    igemm_destroy(one);
    igemm_destroy(many);
}

/* ---- the reduction kernels on their own ---- */

#define RED_ELEMS 300 /* two workgroups of 256, the second partial */
#define RED_SPLITS 4      /* the slices the special elements below are written for */
#define RED_MAX_SPLITS 19 /* sums of 1 .. 19 slices: every batch size of the kernel (8, 4, 2, 1), 8 twice */

/* Partial sums of element i in slice s: element 0 sums to 0 in split order
 * (2^24 + 1 rounds to 2^24 twice, then - 2^24) and to 1 or 2 in any other;
 * 1: +Inf and finite; 2: NaN; 3: +Inf + -Inf (NaN); 4: 1 + 2^-11 + 2^-20
 * + 0 (rounded once to fp16: 1 + 2^-10; with the last nonzero split left
 * out, or each partial rounded first: 1); the rest varied. */
static float partial(int s, int i)
{
    static const float e0[RED_SPLITS] = {16777216.0f, 1.0f, 1.0f, -16777216.0f};
    static const float e4[RED_SPLITS] = {1.0f, 0.00048828125f, 0.00000095367431640625f, 0.0f};
    switch (i) {
    case 0: return s < RED_SPLITS ? e0[s] : 0.0f;
    case 1: return s == 2 ? INFINITY : 3.0f;
    case 2: return s == 1 ? NAN : 1.0f;
    case 3: return s == 0 ? INFINITY : s == 3 ? -INFINITY : 0.0f;
    case 4: return s < RED_SPLITS ? e4[s] : 0.0f;
    default: return (float)((i * 7 + s * 13) % 29) * 0.37f - 5.0f + (float)s * 1e-3f;
    }
}

/* Run igemm_ksplit_sum_<type> on arch over the partials; out gets dx. */
static void run_sum(const char *arch, igemm_dtype dt, int splits, void *out)
{
    tc_loaded co = tc_load_codeobj(arch);
    const char *kname = dt == IGEMM_FP16 ? KERNEL_KSUM_FP16 : dt == IGEMM_BF16 ? KERNEL_KSUM_BF16 : KERNEL_KSUM;
    const emu_kernel *k = emu_find_kernel(co.m, kname);
    assert_non_null(k);
    size_t esz = dt == IGEMM_FP32 ? 4 : 2, slice = RED_ELEMS * 4 + 64; /* slices not back to back */
    float *ws = malloc(slice * (size_t)splits);
    assert_non_null(ws);
    for (int s = 0; s < splits; s++)
        for (int i = 0; i < RED_ELEMS; i++)
            ws[(size_t)s * slice / 4 + (size_t)i] = partial(s, i);
    memset(out, 0x7f, RED_ELEMS * esz);
    assert_int_equal(emu_register(co.d, ws, slice * (size_t)splits), 0);
    assert_int_equal(emu_register(co.d, out, RED_ELEMS * esz), 0);
    igemm_ksum_args a = {.p_out = (uint64_t)(uintptr_t)out, .p_ws = (uint64_t)(uintptr_t)ws, .elems = RED_ELEMS,
                         .splits = (uint32_t)splits, .slice_bytes = (uint32_t)slice};
    /* the non-finite guard's geometry: RED_ELEMS pixels of one channel in
       one row, no border band (no pixel has hi < 0, hi >= ~0, ...): a NaN
       sum stays NaN */
    igemm_magic m1 = igemm_magic_for(1), mw = igemm_magic_for(RED_ELEMS);
    a.d0 = RED_ELEMS, a.mdiv_d0 = mw.magic, a.shift_d0 = mw.shift;
    a.d1 = a.d2 = a.cg = 1;
    a.mdiv_d1 = a.mdiv_d2 = a.mdiv_cg = m1.magic, a.shift_d1 = a.shift_d2 = a.shift_cg = m1.shift;
    a.nf.bot = a.nf.rgt = UINT32_MAX;
    unsigned grid[3] = {(RED_ELEMS + KSUM_BLOCK - 1) / KSUM_BLOCK, 1, 1}, block[3] = {KSUM_BLOCK, 1, 1};
    char err[512];
    if (emu_launch(co.d, k, grid, block, &a, sizeof a, NULL, err, sizeof err))
        fail_msg("%s on %s: %s", kname, arch, err);
    emu_unregister(co.d, ws);
    emu_unregister(co.d, out);
    free(ws);
    tc_unload(&co);
}

/* The host's sum of element i over `splits` slices in split order. */
static float ordered_sum(int i, int splits)
{
    float acc = partial(0, i);
    for (int s = 1; s < splits; s++)
        acc += partial(s, i);
    return acc;
}

static void reduction_order_and_rounding(void **state)
{
    (void)state;
    static const char *const archs[] = {"gfx942", "gfx906"};
    for (int a = 0; a < 2; a++)
        for (int splits = 1; splits <= RED_MAX_SPLITS; splits++) {
            float f[RED_ELEMS];
            uint16_t hv[RED_ELEMS], bv[RED_ELEMS];
            run_sum(archs[a], IGEMM_FP32, splits, f);
            run_sum(archs[a], IGEMM_FP16, splits, hv);
            run_sum(archs[a], IGEMM_BF16, splits, bv);
            for (int i = 0; i < RED_ELEMS; i++) {
                float want = ordered_sum(i, splits);
                uint16_t wh = igemm_f32_to_f16(want), wb = igemm_f32_to_bf16(want);
                if (isnan(want)) {
                    if (!isnan(f[i]) || !isnan(igemm_f16_to_f32(hv[i])) || !isnan(igemm_bf16_to_f32(bv[i])))
                        fail_msg("%s, %d splits, element %d: NaN expected", archs[a], splits, i);
                    continue;
                }
                if (memcmp(&f[i], &want, 4) || hv[i] != wh || bv[i] != wb)
                    fail_msg("%s, %d splits, element %d: fp32 %a (want %a), fp16 0x%04x (0x%04x), bf16 0x%04x "
                             "(0x%04x)",
                             archs[a], splits, i, (double)f[i], (double)want, hv[i], wh, bv[i], wb);
            }
            if (splits == RED_SPLITS) {
                /* what the values above are for: the order shows in element
                   0, rounding once in element 4 */
                assert_true(f[0] == 0.0f);
                assert_int_equal(hv[4], 0x3c01);
                assert_true(isinf(f[1]) && isnan(f[2]) && isnan(f[3]));
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(reduction_order_and_rounding),
        cmocka_unit_test(refusals),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(non_finite_data),
        cmocka_unit_test(verified_gfx942),
        cmocka_unit_test(verified_gfx90a),
        cmocka_unit_test(verified_gfx908),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
