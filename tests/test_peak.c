/* The dense matrix peak per target and data type (arch/mfma.c,
 * mfma_peak_flops_per_clk / mfma_peak_tflops) and its CLI query (igemm arch).
 *
 * Expected values are AMD's published product figures, not the code's
 * arithmetic: MI100 (gfx908) 46.1 fp32 / 184.6 fp16 / 92.3 bf16 matrix
 * TFLOP/s; MI250X (gfx90a) 95.7 fp32 and 383 fp16/bf16 for its two GCDs,
 * i.e. 47.9 and 191.5 per GCD (the reference product of the target table
 * is one GCD); MI300X (gfx942) 163.4 fp32 and 1307.4 fp16/bf16 dense.
 * gfx906 (MI50/MI60) has no matrix cores. The timing model's own typed-in
 * rates (target.tm.mfma_flops_*, FLOP/clk/CU) must agree with the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/mfma.h"
#include "../arch/target.h"
#include "common.h"

static const struct {
    const char *arch;
    double tf[3]; /* fp32, fp16, bf16 TFLOP/s as published, 0: none */
} published[] = {
    {"gfx906", {0, 0, 0}},
    {"gfx908", {46.1, 184.6, 92.3}},
    {"gfx90a", {47.9, 191.5, 191.5}},
    {"gfx942", {163.4, 1307.4, 1307.4}},
};
static const mfma_type mtypes[3] = {MFMA_F32, MFMA_F16, MFMA_BF16};
static const char *const tnames[3] = {"fp32", "fp16", "bf16"};

static void peak_matches_published_figures(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        const target *t = target_by_name(published[i].arch);
        assert_non_null(t);
        for (int k = 0; k < 3; k++) {
            const mfma_info *best;
            double per_clk = mfma_peak_flops_per_clk(t, mtypes[k], &best), tf = mfma_peak_tflops(t, mtypes[k]);
            if (fabs(tf - published[i].tf[k]) > 0.05)
                fail_msg("%s %s: %.3f TFLOP/s, published %.1f", t->name, tnames[k], tf, published[i].tf[k]);
            assert_true((best != NULL) == (published[i].tf[k] > 0));
            if (best) {
                /* the instruction is the target's and of the type, and gives that rate */
                assert_true(best->targets & target_isa_bit(t));
                assert_int_equal(best->type, mtypes[k]);
                assert_true(2.0 * best->m * best->n * best->k * best->blocks / best->cycles == per_clk);
            } else
                assert_true(per_clk == 0);
        }
        /* the timing model's rates per CU are the table's per SIMD times the SIMDs */
        const int tm[3] = {t->tm.mfma_flops_f32, t->tm.mfma_flops_f16, t->tm.mfma_flops_bf16};
        for (int k = 0; k < 3; k++)
            if (mfma_peak_flops_per_clk(t, mtypes[k], NULL) * t->simds_per_cu != tm[k])
                fail_msg("%s %s: table %.0f FLOP/clk/CU, timing facts %d", t->name, tnames[k],
                         mfma_peak_flops_per_clk(t, mtypes[k], NULL) * t->simds_per_cu, tm[k]);
    }
    /* the emulate-only MI300 steppings decode as gfx942: the same peak */
    assert_true(mfma_peak_tflops(target_by_name("gfx940"), MFMA_F16) ==
                mfma_peak_tflops(target_by_name("gfx942"), MFMA_F16));
}

static void arch_peak_query(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++)
        for (int k = 0; k < 3; k++) {
            tc_result r;
            const char *args[] = {"arch", "--arch", published[i].arch, "--peak", tnames[k], NULL};
            tc_run_igemm(&r, args);
            if (published[i].tf[k] > 0) {
                char *end;
                double v = strtod(r.out, &end);
                if (r.status || !tc_one_line(r.out) || *end != '\n' || fabs(v - published[i].tf[k]) > 0.05)
                    fail_msg("%s: status %d, stdout '%s', stderr '%s'", r.cmd, r.status, r.out, r.err);
            } else if (r.status != 1 || r.out[0] || !tc_one_line(r.err) || !strstr(r.err, " has no "))
                fail_msg("%s: status %d, stdout '%s', stderr '%s'", r.cmd, r.status, r.out, r.err);
            tc_result_free(&r);
        }
    /* the table: a header and one row per target and type */
    tc_result r;
    const char *table[] = {"arch", NULL};
    tc_run_igemm(&r, table);
    assert_int_equal(r.status, 0);
    int lines = 0;
    for (const char *c = r.out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 3 * igemm_target_count);
    assert_non_null(strstr(r.out, "1307.4"));
    tc_result_free(&r);
    /* bad input: one line, exit status 2 */
    static const char *const bad[][6] = {
        {"arch", "--peak", "fp8", "--arch", "gfx908", NULL},
        {"arch", "--peak", "fp16", NULL},
        {"arch", "--arch", "gfx1", NULL},
        {"arch", "--arch", NULL},
        {"arch", "--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_run_igemm(&r, bad[i]);
        if (r.status != 2 || r.out[0] || !tc_one_line(r.err) || strncmp(r.err, "igemm: arch: ", 13))
            fail_msg("%s: status %d, stdout '%s', stderr '%s'", r.cmd, r.status, r.out, r.err);
        tc_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peak_matches_published_figures),
        cmocka_unit_test(arch_peak_query),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
