/* The HIP backend where no AMD GPU exists (this project's machines): it must
 * fail cleanly with hipErrorNoDevice's meaning spelled out, AUTO must fall
 * back to the emulator and say why, a missing or wrong HIP library is
 * reported, and a device of a target without a code object is refused with
 * the list of available targets.
 *
 * The no-device expectations hold on a machine without /dev/kfd (no amdgpu
 * kernel driver); on a machine with one they are skipped, since HIP may
 * then find a GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/backend.h"
#include "../include/igemm.h"
#include "common.h"

static int have_kfd(void) { return access("/dev/kfd", F_OK) == 0; }

static void hip_fails_cleanly(void **state)
{
    (void)state;
    if (have_kfd())
        skip();
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_HIP;
    igemm_handle *h = (igemm_handle *)&o; /* must come back NULL */
    char why[1024];
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_DEVICE);
    assert_null(h);
    /* the code, its meaning, the cause on this machine and the way out */
    tc_expect_contains(why, "hipErrorNoDevice (100)");
    tc_expect_contains(why, "found no AMD GPU it can use");
    tc_expect_contains(why, "/dev/kfd does not exist");
    tc_expect_contains(why, IGEMM_KNOB_EMU); /* the C caller's knob, not a CLI flag */
    assert_null(strchr(why, '\n'));
    /* a device index does not change that */
    o.device = 3;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_DEVICE);
    tc_expect_contains(why, "hipErrorNoDevice");
}

/* AUTO runs on the emulator and says why; the result is right:
 * a 1x1 filter with k = 1 gives dx[c][i] = w[c] * dy[i]. */
static void auto_falls_back_to_emulator(void **state)
{
    (void)state;
    if (have_kfd())
        skip();
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.arch = "gfx90a";
    o.emu_threads = 1;
    igemm_handle *h;
    char why[1024];
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_backend(h), "emu");
    assert_string_equal(igemm_handle_arch(h), "gfx90a");
    tc_expect_contains(igemm_handle_fallback(h), "hipErrorNoDevice");
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.c = 2, p.hi = 2, p.wi = 3;
    float dy[6] = {1, 2, 3, 4, 5, 6}, w[2] = {0.5f, -2.0f}, dx[12];
    assert_int_equal(igemm_conv_bwd_data(h, &p, dx, dy, w), IGEMM_OK);
    for (int i = 0; i < 6; i++) {
        assert_true(dx[i] == 0.5f * dy[i]);
        assert_true(dx[6 + i] == -2.0f * dy[i]);
    }
    igemm_destroy(h);
    /* an explicit emulator handle has no fallback story */
    o.backend = IGEMM_BACKEND_EMU;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_fallback(h), "");
    igemm_destroy(h);
}

/* No HIP runtime at all (IGEMM_HIP_LIBRARY names a file that is absent),
 * and a library that is not HIP. */
static void hip_library_missing_or_wrong(void **state)
{
    (void)state;
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_HIP;
    igemm_handle *h;
    char why[1024];
    setenv("IGEMM_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_DEVICE);
    tc_expect_contains(why, "HIP runtime not found");
    tc_expect_contains(why, "/nonexistent/libamdhip64.so");
    tc_expect_contains(why, "libamdhip64-5");
    o.backend = IGEMM_BACKEND_AUTO;
    o.emu_threads = 1;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_backend(h), "emu");
    tc_expect_contains(igemm_handle_fallback(h), "HIP runtime not found");
    igemm_destroy(h);

    setenv("IGEMM_HIP_LIBRARY", "libm.so.6", 1);
    o.backend = IGEMM_BACKEND_HIP;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_DEVICE);
    tc_expect_contains(why, "libm.so.6 lacks hipGetDeviceCount");
    unsetenv("IGEMM_HIP_LIBRARY");
}

/* The device's gcnArchName against the available code objects. */
static void device_target_matching(void **state)
{
    (void)state;
    const char *all = "gfx906, gfx908, gfx90a, gfx942";
    char arch[32], why[512];
    assert_int_equal(backend_hip_match_arch("gfx90a:sramecc+:xnack-", all, arch, sizeof arch, why, sizeof why),
                     IGEMM_OK);
    assert_string_equal(arch, "gfx90a");
    assert_int_equal(backend_hip_match_arch("gfx942", all, arch, sizeof arch, why, sizeof why), IGEMM_OK);
    assert_string_equal(arch, "gfx942");
    /* a GPU igemm has no kernels for: the list of available targets */
    assert_int_equal(backend_hip_match_arch("gfx1030", all, arch, sizeof arch, why, sizeof why),
                     IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "the GPU is a gfx1030");
    tc_expect_contains(why, "code objects only for gfx906, gfx908, gfx90a, gfx942");
    /* a known target whose code object is not in the set in use */
    assert_int_equal(backend_hip_match_arch("gfx908:sramecc-:xnack-", "gfx906", arch, sizeof arch, why, sizeof why),
                     IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "gfx908 (gfx908:sramecc-:xnack-)");
    tc_expect_contains(why, "only for gfx906");
    /* whole names only: gfx90 is not gfx906 or gfx90a */
    assert_int_equal(backend_hip_match_arch("gfx90", all, arch, sizeof arch, why, sizeof why),
                     IGEMM_ERR_NO_CODE_OBJECT);
    assert_int_equal(backend_hip_match_arch("gfx906", "", arch, sizeof arch, why, sizeof why),
                     IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "only for no target");
}

static void error_meanings(void **state)
{
    (void)state;
    tc_expect_contains(backend_hip_error_meaning(100), "no AMD GPU");
    tc_expect_contains(backend_hip_error_meaning(209), "not valid for this device");
    tc_expect_contains(backend_hip_error_meaning(701), "registers or LDS");
    tc_expect_contains(backend_hip_error_meaning(12345), "see the HIP documentation");
}

/* The CLI with --backend hip: exit status 1, one stderr line with the
 * status and the meaning, nothing on stdout. */
static void cli_backend_hip(void **state)
{
    (void)state;
    if (have_kfd())
        skip();
    const char *args[] = {"conv", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-y", "1", "-x", "1",
                          "-F", "2", "--backend", "hip", NULL};
    tc_result r;
    tc_run_igemm(&r, args);
    if (r.status != 1)
        fail_msg("%s: exit status %d, expected 1; stderr: %s", r.cmd, r.status, r.err);
    assert_string_equal(r.out, "");
    tc_expect_contains(r.err, "igemm: IGEMM_ERR_NO_DEVICE: no AMD GPU");
    tc_expect_contains(r.err, "hipErrorNoDevice");
    assert_true(tc_one_line(r.err));
    tc_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hip_fails_cleanly),
        cmocka_unit_test(auto_falls_back_to_emulator),
        cmocka_unit_test(hip_library_missing_or_wrong),
        cmocka_unit_test(device_target_matching),
        cmocka_unit_test(error_meanings),
        cmocka_unit_test(cli_backend_hip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
