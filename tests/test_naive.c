/* The naive kernel ("naive", the device-side reference) on every shape of
 * the edge list, for every target, through the public API on the emulator,
 * against the float64 CPU reference (tc_run_case, shared with test_v4r1):
 * relative error (error / sum of |terms|) within 1e-5, no NaN, and dx
 * pixels that receive no contribution exactly 0 (dx is prefilled with NaN,
 * so a pixel the kernel skips shows up).
 *
 * The shape list is edge.txt, read by tc_load_shapes (../shared/shapes/, else
 * the vendored tests/shapes/); test_v4r1 checks that it is complete and that
 * the two copies agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../include/igemm.h"
#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};

static tc_shape_list edge;

static int setup(void **state)
{
    (void)state;
    return tc_load_shapes(&edge, "edge.txt");
}

static void run_target(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    int64_t holes = 0;
    for (int i = 0; i < edge.n; i++) {
        tc_case_result r;
        char msg[1024];
        if (tc_run_case(h, &edge.s[i].p, "naive", 1000u + (uint64_t)i, &r, msg, sizeof msg))
            fail_msg("conv %s -F 2 --arch %s --solution naive: %s", edge.s[i].text, arch, msg);
        holes += r.holes;
    }
    igemm_destroy(h);
    /* The list holds shapes with holes; the exact-zero check is not vacuous. */
    assert_true(holes > 0);
}

static void naive_gfx906(void **state)
{
    (void)state;
    run_target(archs[0]);
}
static void naive_gfx908(void **state)
{
    (void)state;
    run_target(archs[1]);
}
static void naive_gfx90a(void **state)
{
    (void)state;
    run_target(archs[2]);
}
static void naive_gfx942(void **state)
{
    (void)state;
    run_target(archs[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(naive_gfx906),
        cmocka_unit_test(naive_gfx908),
        cmocka_unit_test(naive_gfx90a),
        cmocka_unit_test(naive_gfx942),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
