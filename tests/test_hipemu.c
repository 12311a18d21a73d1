/* The HIP backend's whole path on the HIP test double
 * (BUILD_DIR/lib/libigemm_hipemu.so through IGEMM_HIP_LIBRARY): device
 * facts, code object load from memory, argument-buffer launches, streams,
 * events, copies and failures, on every target, with the double's
 * per-launch delay on, so that a result read without the stream's
 * synchronisation comes back unfinished (prefilled NaN) and fails.
 * The expected values come from the float64 reference (tc_run_case) and
 * from the double's own counters. */
#define __HIP_PLATFORM_AMD__ 1
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../hipemu/hooks.h"
#include "../include/igemm.h"
#include "common.h"

#define DOUBLE_LIB BUILD_DIR "/lib/libigemm_hipemu.so"

static struct {
    void *lib;
    int (*inject)(const char *, int, int);
    void (*set_delay_us)(unsigned);
    void (*counters)(hipemu_counters *);
    int (*fault)(char *, unsigned);
    void (*clear_fault)(void);
    hipError_t (*StreamCreateWithFlags)(hipStream_t *, unsigned);
    hipError_t (*StreamDestroy)(hipStream_t);
    hipError_t (*StreamSynchronize)(hipStream_t);
    hipError_t (*Memcpy)(void *, const void *, size_t, hipMemcpyKind);
} D;

static int setup(void **state)
{
    (void)state;
    setenv("IGEMM_HIP_LIBRARY", DOUBLE_LIB, 1);
    setenv("IGEMM_HIPEMU_THREADS", "2", 1);
    if (!(D.lib = dlopen(DOUBLE_LIB, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "cannot load %s: %s (make builds it)\n", DOUBLE_LIB, dlerror());
        return -1;
    }
    *(void **)&D.inject = dlsym(D.lib, "hipemu_inject");
    *(void **)&D.set_delay_us = dlsym(D.lib, "hipemu_set_delay_us");
    *(void **)&D.counters = dlsym(D.lib, "hipemu_get_counters");
    *(void **)&D.fault = dlsym(D.lib, "hipemu_fault");
    *(void **)&D.clear_fault = dlsym(D.lib, "hipemu_clear_fault");
    *(void **)&D.StreamCreateWithFlags = dlsym(D.lib, "hipStreamCreateWithFlags");
    *(void **)&D.StreamDestroy = dlsym(D.lib, "hipStreamDestroy");
    *(void **)&D.StreamSynchronize = dlsym(D.lib, "hipStreamSynchronize");
    *(void **)&D.Memcpy = dlsym(D.lib, "hipMemcpy");
    return D.inject && D.set_delay_us && D.counters && D.fault && D.clear_fault && D.StreamCreateWithFlags &&
                   D.StreamDestroy && D.StreamSynchronize && D.Memcpy
               ? 0
               : -1;
}

/* A HIP handle on the double's device described by gcn (and cus, NULL:
 * the target's count); fails the test unless it is created. */
static igemm_handle *hip_handle(const char *gcn, const char *cus, const char *perfdb, int timing)
{
    setenv("IGEMM_HIPEMU_ARCH", gcn, 1);
    if (cus)
        setenv("IGEMM_HIPEMU_CUS", cus, 1);
    else
        unsetenv("IGEMM_HIPEMU_CUS");
    igemm_options o = igemm_options_init();
    o.backend = IGEMM_BACKEND_HIP;
    o.perfdb = perfdb;
    o.timing = timing;
    igemm_handle *h = NULL;
    char why[1024];
    igemm_status st = igemm_create(&h, &o, why, sizeof why);
    if (st != IGEMM_OK)
        fail_msg("igemm_create on the HIP double (%s): %s: %s", gcn, igemm_status_name(st), why);
    assert_string_equal(igemm_handle_backend(h), "hip");
    return h;
}

static tc_shape_list edge;

static int setup_all(void **state)
{
    return setup(state) || tc_load_shapes(&edge, "edge.txt");
}

/* Every edge shape with the library's choice, read back right after the
 * call with igemm_copy_to_host; every kernel waits 2 ms on its stream. */
static void edge_shapes(const char *gcn)
{
    igemm_handle *h = hip_handle(gcn, NULL, NULL, 0);
    D.set_delay_us(2000);
    hipemu_counters c0, c1;
    D.counters(&c0);
    int64_t holes = 0, launches = 0;
    for (int i = 0; i < edge.n; i++) {
        tc_case_result r;
        char msg[1024];
        if (tc_run_case(h, &edge.s[i].p, NULL, 2000u + (uint64_t)i, &r, msg, sizeof msg))
            fail_msg("conv %s -F 2 --backend hip on the double (%s): %s", edge.s[i].text, gcn, msg);
        holes += r.holes;
        launches += r.ri.launches;
        assert_true(r.ri.ms == 0); /* untimed */
    }
    D.set_delay_us(0);
    D.counters(&c1);
    /* every launch of the plans went through hipModuleLaunchKernel and ran */
    assert_int_equal(c1.launches_done - c0.launches_done, launches);
    /* nothing left allocated but the handle's workspace (a split along
       GEMM K's partial sums, kept for later calls), which igemm_destroy
       frees */
    assert_true(c1.live_allocs - c0.live_allocs <= 1);
    assert_true(holes > 0);
    igemm_destroy(h);
    D.counters(&c1);
    assert_true(c1.live_allocs <= c0.live_allocs);
}

static void edge_gfx906(void **state)
{
    (void)state;
    edge_shapes("gfx906");
}
static void edge_gfx908(void **state)
{
    (void)state;
    edge_shapes("gfx908:sramecc-:xnack-");
}
static void edge_gfx90a(void **state)
{
    (void)state;
    edge_shapes("gfx90a:sramecc+:xnack-");
}
static void edge_gfx942(void **state)
{
    (void)state;
    edge_shapes("gfx942:sramecc+:xnack-");
}

/* The problem of the stream tests: 1x1, k = 1, dx[c][i] = w[c] * dy[i]. */
static igemm_problem small_problem(void)
{
    igemm_problem p = igemm_problem_init();
    p.n = 2, p.c = 3, p.hi = 4, p.wi = 5;
    return p;
}

/* Stream order: on a non-blocking stream the call returns with its kernels
 * still queued; a copy that does not wait for the stream (hipMemcpy on the
 * null stream) sees dx unfinished; igemm_copy_to_host (on the handle's
 * stream) and igemm_synchronize see it done. */
static void launches_do_not_wait(void **state)
{
    (void)state;
    igemm_handle *h = hip_handle("gfx90a:sramecc+:xnack-", NULL, NULL, 0);
    hipStream_t s;
    assert_int_equal(D.StreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    assert_int_equal(igemm_set_stream(h, s), IGEMM_OK);
    igemm_problem p = small_problem();
    enum { NX = 2 * 3 * 20, NY = 2 * 20 };
    float hy[NY], hw[3] = {0.5f, -2.0f, 4.0f}, hx[NX];
    tc_fill_uniform(hy, NY, 7);
    for (int i = 0; i < NX; i++)
        hx[i] = NAN;
    void *dx, *dy, *dw;
    assert_int_equal(igemm_alloc(h, &dx, sizeof hx), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &dy, sizeof hy), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &dw, sizeof hw), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, dx, hx, sizeof hx), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, dy, hy, sizeof hy), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, dw, hw, sizeof hw), IGEMM_OK);

    D.set_delay_us(300000);
    hipemu_counters c;
    D.counters(&c);
    uint64_t done0 = c.launches_done;
    assert_int_equal(igemm_conv_bwd_data(h, &p, dx, dy, dw), IGEMM_OK);
    D.counters(&c);
    assert_true(c.pending > 0);               /* the call returned with its kernel queued */
    assert_int_equal(c.launches_done, done0); /* ... and not yet run */
    float early[NX];
    assert_int_equal(D.Memcpy(early, dx, sizeof early, hipMemcpyDeviceToHost), hipSuccess);
    assert_true(isnan(early[0])); /* a missing synchronisation reads the old dx */
    assert_int_equal(igemm_copy_to_host(h, hx, dx, sizeof hx), IGEMM_OK);
    for (int n = 0; n < 2; n++)
        for (int ch = 0; ch < 3; ch++)
            for (int i = 0; i < 20; i++)
                assert_true(hx[(n * 3 + ch) * 20 + i] == hw[ch] * hy[n * 20 + i]);
    /* again, waiting with igemm_synchronize */
    D.set_delay_us(100000);
    float zero[NX] = {0};
    assert_int_equal(igemm_copy_to_device(h, dx, zero, sizeof zero), IGEMM_OK);
    assert_int_equal(igemm_conv_bwd_data(h, &p, dx, dy, dw), IGEMM_OK);
    assert_int_equal(igemm_synchronize(h), IGEMM_OK);
    D.counters(&c);
    assert_int_equal(c.pending, 0);
    D.set_delay_us(0);
    assert_int_equal(D.Memcpy(early, dx, sizeof early, hipMemcpyDeviceToHost), hipSuccess);
    assert_memory_equal(early, hx, sizeof hx);
    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, dw);
    assert_int_equal(igemm_set_stream(h, NULL), IGEMM_OK);
    assert_int_equal(D.StreamDestroy(s), hipSuccess);
    igemm_destroy(h);
}

/* Timing is opt-in: events on the stream give the double's modeled time
 * (> 0, the same on every run); untimed calls report 0. */
static void timing_with_events(void **state)
{
    (void)state;
    igemm_handle *h = hip_handle("gfx908", NULL, NULL, 1);
    igemm_problem p = small_problem();
    tc_case_result r1, r2;
    char msg[512];
    if (tc_run_case(h, &p, NULL, 5, &r1, msg, sizeof msg) || tc_run_case(h, &p, NULL, 6, &r2, msg, sizeof msg))
        fail_msg("%s", msg);
    assert_true(r1.ri.ms > 0);
    assert_true(r1.ri.ms == r2.ri.ms);
    igemm_destroy(h);
}

/* Device facts: target ID and CU count from the device; the heuristic and
 * the perfdb key use that count; records of other CU counts, and records
 * the emulator measured, do not steer the HIP handle. */
static void device_facts_and_perfdb(void **state)
{
    (void)state;
    igemm_handle *h = hip_handle("gfx942:sramecc+:xnack-", "80", NULL, 0);
    assert_string_equal(igemm_handle_arch(h), "gfx942");
    assert_string_equal(igemm_handle_target_id(h), "gfx942:sramecc+:xnack-");
    assert_int_equal(igemm_handle_cu_count(h), 80);
    igemm_problem p = small_problem();
    char heur[96], pick[96] = "";
    assert_int_equal(igemm_select(h, &p, heur, sizeof heur), IGEMM_OK);
    igemm_destroy(h);
    /* another applicable configuration than the heuristic's */
    for (int i = 0; i < igemm_solution_count() && !pick[0]; i++) {
        char why[256];
        igemm_handle *e = tc_emu_handle("gfx942", NULL, 1);
        if (strcmp(igemm_solution_name(i), heur) &&
            igemm_applicable(e, &p, igemm_solution_name(i), why, sizeof why) == IGEMM_OK)
            snprintf(pick, sizeof pick, "%s", igemm_solution_name(i));
        igemm_destroy(e);
    }
    assert_true(pick[0]);
    char db[] = "/tmp/igemm-test-hipemu-XXXXXX";
    int fd = mkstemp(db);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    /* the same problem measured on 304 CUs, and on the emulator with 80 */
    fprintf(f, "gfx942 n2,c3,H4,W5,k1,y1,x1,p0,q0,u1,v1,l1,j1,g1,NCHW,FP32,cu304 %s 1 ms\n", pick);
    fprintf(f, "gfx942 n2,c3,H4,W5,k1,y1,x1,p0,q0,u1,v1,l1,j1,g1,NCHW,FP32,cu80 %s 1 cycles\n", pick);
    fclose(f);
    char sel[96];
    h = hip_handle("gfx942:sramecc+:xnack-", "80", db, 0);
    assert_int_equal(igemm_select(h, &p, sel, sizeof sel), IGEMM_OK);
    assert_string_equal(sel, heur);
    igemm_destroy(h);
    /* a HIP record of this CU count steers it */
    f = fopen(db, "a");
    fprintf(f, "gfx942 n2,c3,H4,W5,k1,y1,x1,p0,q0,u1,v1,l1,j1,g1,NCHW,FP32,cu80 %s 1 ms\n", pick);
    fclose(f);
    h = hip_handle("gfx942:sramecc+:xnack-", "80", db, 0);
    assert_int_equal(igemm_select(h, &p, sel, sizeof sel), IGEMM_OK);
    assert_string_equal(sel, pick);
    igemm_destroy(h);
    /* find mode on HIP writes a record in ms under the device's count */
    h = hip_handle("gfx942:sramecc+:xnack-", "228", db, 0);
    assert_int_equal(igemm_handle_cu_count(h), 228);
    void *dx, *dy, *dw;
    assert_int_equal(igemm_alloc(h, &dx, 120 * 4), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &dy, 40 * 4), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &dw, 3 * 4), IGEMM_OK);
    igemm_perf perf[64];
    int n;
    assert_int_equal(igemm_find(h, &p, dx, dy, dw, perf, 64, &n), IGEMM_OK);
    assert_string_equal(perf[0].unit, "ms");
    assert_true(perf[0].cost > 0);
    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, dw);
    igemm_destroy(h);
    size_t len;
    char *text = read_file(db, &len);
    tc_expect_contains(text, ",FP32,cu228 ");
    free(text);
    unlink(db);
}

/* A kernel fault (a host buffer passed as device memory) shows at the next
 * synchronising call with the HIP error and its meaning; injected HIP
 * errors come back as IGEMM_ERR_BACKEND with the call named. */
static void failures(void **state)
{
    (void)state;
    igemm_handle *h = hip_handle("gfx906", NULL, NULL, 0);
    igemm_problem p = small_problem();
    float hy[40] = {0}, hw[3] = {0}, hx[120];
    assert_int_equal(igemm_conv_bwd_data(h, &p, hx, hy, hw), IGEMM_OK); /* queued */
    assert_int_equal(igemm_synchronize(h), IGEMM_ERR_BACKEND);
    tc_expect_contains(igemm_last_error(h), "hipStreamSynchronize failed on gfx906");
    tc_expect_contains(igemm_last_error(h), "hipErrorIllegalAddress (700)");
    tc_expect_contains(igemm_last_error(h), "run the problem on the emulator");
    char msg[1024];
    assert_int_equal(D.fault(msg, sizeof msg), hipErrorIllegalAddress);
    assert_true(msg[0]);
    D.clear_fault();

    void *d;
    assert_int_equal(igemm_alloc(h, &d, 64), IGEMM_OK);
    assert_int_equal(D.inject("hipMemcpyAsync", 1, hipErrorInvalidValue), 0);
    assert_int_equal(igemm_copy_to_device(h, d, hx, 64), IGEMM_ERR_BACKEND);
    tc_expect_contains(igemm_last_error(h), "hipMemcpyAsync failed");
    tc_expect_contains(igemm_last_error(h), "hipErrorInvalidValue");
    assert_int_equal(igemm_copy_to_device(h, d, hx, 64), IGEMM_OK); /* only once */
    igemm_free(h, d);
    assert_int_equal(D.inject("hipMalloc", 1, hipErrorOutOfMemory), 0);
    assert_int_equal(igemm_alloc(h, &d, 64), IGEMM_ERR_NO_MEMORY);
    tc_expect_contains(igemm_last_error(h), "hipErrorOutOfMemory");
    igemm_destroy(h);

    /* a device whose target igemm has no code object for, and no device */
    igemm_options o = igemm_options_init();
    o.backend = IGEMM_BACKEND_HIP;
    char why[1024];
    setenv("IGEMM_HIPEMU_ARCH", "gfx1030", 1);
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "the GPU is a gfx1030");
    setenv("IGEMM_HIPEMU_ARCH", "", 1);
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_DEVICE);
    tc_expect_contains(why, "hipErrorNoDevice");
    /* module load failing: the code object does not load */
    setenv("IGEMM_HIPEMU_ARCH", "gfx906", 1);
    assert_int_equal(D.inject("hipModuleLoadData", 1, hipErrorInvalidImage), 0);
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "hipModuleLoadData failed");
}

/* The CLI on the double: -V 1 passes on every target, -t 1 reports a time. */
static void cli_on_the_double(void **state)
{
    (void)state;
    const char *gcn[] = {"gfx906", "gfx908", "gfx90a:sramecc+:xnack-", "gfx942"};
    for (int i = 0; i < 4; i++) {
        setenv("IGEMM_HIPEMU_ARCH", gcn[i], 1);
        const char *args[] = {"conv", "-n", "2", "-c", "5", "-H", "7", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                              "-p", "1", "-q", "1", "-F", "2", "--backend", "hip", "-V", "1", "-t", "1", NULL};
        tc_result r;
        tc_run_igemm(&r, args);
        if (r.status != 0)
            fail_msg("%s on %s: exit %d: %s", r.cmd, gcn[i], r.status, r.err);
        tc_expect_contains(r.out, ", hip)");
        tc_expect_contains(r.out, "verify: ");
        tc_expect_contains(r.out, "PASS");
        tc_expect_contains(r.out, "  time ");
        tc_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edge_gfx906),       cmocka_unit_test(edge_gfx908),
        cmocka_unit_test(edge_gfx90a),       cmocka_unit_test(edge_gfx942),
        cmocka_unit_test(launches_do_not_wait), cmocka_unit_test(timing_with_events),
        cmocka_unit_test(device_facts_and_perfdb), cmocka_unit_test(failures),
        cmocka_unit_test(cli_on_the_double),
    };
    return cmocka_run_group_tests(tests, setup_all, NULL);
}
