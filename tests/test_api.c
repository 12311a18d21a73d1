/* The public API (include/igemm.h) on the emulator backend: every error
 * path returns its documented status with a message, find mode and the
 * performance database round trip, launch plans for embedders (launched
 * here by hand on the emulator), the embedded code objects, and batch
 * splitting at the per-launch byte limit.
 *
 * Expected values come from the definition of backward data (a direct loop
 * below, not the library's reference), from hand arithmetic written next to
 * each constant, or from the build's code object files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../include/igemm.h"
#include "common.h"

/* ---- helpers ---- */

static igemm_problem prob(int n, int c, int h, int w, int k, int y, int x)
{
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.n = n, p.c = c, p.hi = h, p.wi = w, p.k = k, p.y = y, p.x = x;
    return p;
}

/* dx from the definition: dx[n][c][hi][wi] = sum over k of the group, y, x
 * with hi = ho*S - P + y*D (same for w) of w[k][c%cg][y][x] * dy[n][k][ho][wo]. */
static void direct_bwd(const igemm_problem *p, const float *dy, const float *w, double *dx)
{
    int ho_n = (p->hi + 2 * p->pad_h - p->dil_h * (p->y - 1) - 1) / p->stride_h + 1;
    int wo_n = (p->wi + 2 * p->pad_w - p->dil_w * (p->x - 1) - 1) / p->stride_w + 1;
    int cg = p->c / p->groups, kg = p->k / p->groups;
    for (int n = 0; n < p->n; n++)
        for (int c = 0; c < p->c; c++)
            for (int hi = 0; hi < p->hi; hi++)
                for (int wi = 0; wi < p->wi; wi++) {
                    double s = 0;
                    int g = c / cg;
                    for (int k = g * kg; k < (g + 1) * kg; k++)
                        for (int y = 0; y < p->y; y++)
                            for (int x = 0; x < p->x; x++) {
                                int th = hi + p->pad_h - y * p->dil_h, tw = wi + p->pad_w - x * p->dil_w;
                                if (th < 0 || tw < 0 || th % p->stride_h || tw % p->stride_w)
                                    continue;
                                int ho = th / p->stride_h, wo = tw / p->stride_w;
                                if (ho >= ho_n || wo >= wo_n)
                                    continue;
                                s += (double)w[((size_t)k * cg + c % cg) * p->y * p->x + (size_t)y * p->x + x] *
                                     dy[(((size_t)n * p->k + k) * ho_n + ho) * wo_n + wo];
                            }
                    dx[(((size_t)n * p->c + c) * p->hi + hi) * p->wi + wi] = s;
                }
}

/* Small integers, so every sum is exact in fp32. */
static void fill_ints(float *v, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)((int)((i * 7 + (size_t)seed * 13) % 9) - 4);
}

static size_t elems_dx(const igemm_problem *p) { return (size_t)p->n * p->c * p->hi * p->wi; }
static size_t elems_dy(const igemm_problem *p)
{
    return (size_t)p->n * p->k * igemm_problem_ho(p) * igemm_problem_wo(p);
}
static size_t elems_w(const igemm_problem *p) { return (size_t)p->k * (p->c / p->groups) * p->y * p->x; }

typedef struct {
    float *dx, *dy, *w;
    double *ref;
} bufs;

static void bufs_make(bufs *b, const igemm_problem *p)
{
    b->dx = calloc(elems_dx(p), 4);
    b->dy = malloc(elems_dy(p) * 4);
    b->w = malloc(elems_w(p) * 4);
    b->ref = malloc(elems_dx(p) * sizeof(double));
    assert_non_null(b->dx);
    assert_non_null(b->dy);
    assert_non_null(b->w);
    assert_non_null(b->ref);
    fill_ints(b->dy, elems_dy(p), 1);
    fill_ints(b->w, elems_w(p), 2);
    direct_bwd(p, b->dy, b->w, b->ref);
}

static void bufs_check(const bufs *b, const igemm_problem *p)
{
    for (size_t i = 0; i < elems_dx(p); i++)
        if ((double)b->dx[i] != b->ref[i])
            fail_msg("dx[%zu] = %g, expected %g", i, (double)b->dx[i], b->ref[i]);
}

static void bufs_free(bufs *b)
{
    free(b->dx);
    free(b->dy);
    free(b->w);
    free(b->ref);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

static int count_records(const char *text)
{
    int n = 0;
    for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        if (*l != '#' && *l != '\n')
            n++;
        l = e ? e + 1 : NULL;
    }
    return n;
}

/* ---- handle creation ---- */

static void create_errors(void **state)
{
    (void)state;
    char why[1024];
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;

    assert_int_equal(igemm_create(NULL, &o, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "NULL");

    igemm_handle *h = (igemm_handle *)&o; /* must be reset to NULL on failure */
    igemm_options bad = o;
    bad.backend = (igemm_backend)7;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    assert_null(h);
    tc_expect_contains(why, "unknown backend 7");

    bad = o;
    bad.device = -1;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "device index -1");

    bad = o;
    bad.emu_threads = -2;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "-2");

    /* unsupported target: the reason names it and the known ones */
    bad = o;
    bad.arch = "gfx1030";
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_UNSUPPORTED);
    assert_null(h);
    tc_expect_contains(why, "gfx1030");
    tc_expect_contains(why, "gfx906, gfx908, gfx90a, gfx942");
    /* why may be NULL */
    assert_int_equal(igemm_create(&h, &bad, NULL, 0), IGEMM_ERR_UNSUPPORTED);

    /* code object directory without the target's file */
    char dir[] = "/tmp/igemm-api-XXXXXX";
    assert_non_null(mkdtemp(dir));
    bad = o;
    bad.arch = "gfx908";
    bad.codeobj_dir = dir;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "gfx908.hsaco");
    tc_expect_contains(why, "no target");
    /* ... and with a file that is not a code object (the directory now offers gfx908) */
    char path[256];
    snprintf(path, sizeof path, "%s/gfx908.hsaco", dir);
    write_text(path, "this is not an ELF file");
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    assert_null(h);
    tc_expect_contains(why, "loading the gfx908 code object");
    unlink(path);
    /* an empty file or a directory of that name is no code object, and the
     * message does not offer it (issue 13, item 6) */
    write_text(path, "");
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "gfx908.hsaco is empty");
    tc_expect_contains(why, "no target");
    unlink(path);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "gfx908.hsaco is a directory");
    tc_expect_contains(why, "no target");
    rmdir(path);

    /* malformed performance database lines (issue 13, item 9): each is
     * skipped with a warning naming the file and line; the handle is made
     * and the good records still count. A 2000-byte line and a NUL byte
     * are malformed lines too. */
    char long_line[2100];
    memset(long_line, 'x', 2000);
    snprintf(long_line + 2000, sizeof long_line - 2000, "\ngfx906 n1 naive 10 cycles\n");
    const char *const dbs[][2] = {
        {"# ok\ngfx906 n1 naive 10 cycles\ngfx906 n1 naive 10\n", ":3: expected 5 fields"},
        {"gfx906 n1 naive 10 seconds\ngfx906 n1 naive 10 cycles\n", ":1: unit 'seconds'"},
        {"\ngfx906 n1 naive -4 cycles\ngfx906 n1 naive 10 cycles\n", ":2: cost '-4'"},
        {"gfx906 n1 naive inf ms\ngfx906 n1 naive nan ms\ngfx906 n1 naive 10 cycles\n",
         ":1: cost 'inf' is not a number >= 0; the line is skipped (2 malformed lines"},
        {"gfx906 n1 naive 1 ms extra\ngfx906 n1 naive 10 cycles\n", ":1: expected 5 fields"},
        {long_line, ":1: line longer than 1023 bytes"},
    };
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        write_text(path, dbs[i][0]);
        bad = o;
        bad.perfdb = path;
        assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_OK);
        tc_expect_contains(igemm_handle_warning(h), path);
        tc_expect_contains(igemm_handle_warning(h), dbs[i][1]);
        tc_expect_contains(igemm_handle_warning(h), "skipped");
        igemm_destroy(h);
    }
    FILE *nul = fopen(path, "wb");
    assert_non_null(nul);
    assert_int_equal(fwrite("gfx906 n1 na\0ive 10 cycles\ngfx906 n1 naive 10 cycles\n", 1, 54, nul), 54);
    assert_int_equal(fclose(nul), 0);
    bad = o;
    bad.perfdb = path;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_OK);
    tc_expect_contains(igemm_handle_warning(h), ":1: NUL byte");
    igemm_destroy(h);
    /* a file none of whose lines is a record, and without the header, is no
     * database (issue 25): refused, not read as an empty one */
    write_text(path, "Dear diary,\ntoday I wrote no records.\n");
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "is not a performance database");
    /* the header alone is an empty database */
    write_text(path, "# igemm performance database: target problem configuration cost unit\nnot a record\n");
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_OK);
    tc_expect_contains(igemm_handle_warning(h), ":2: expected 5 fields");
    igemm_destroy(h);
    /* a good file warns about nothing */
    write_text(path, "gfx906 n1 naive 10 cycles\n");
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_warning(h), "");
    igemm_destroy(h);
    /* a device is no database: /dev/zero would be read forever */
    bad.perfdb = "/dev/zero";
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_IO);
    tc_expect_contains(why, "/dev/zero is not a regular file");
    unlink(path);
    /* a database that is a directory cannot be read */
    bad = o;
    bad.perfdb = dir;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_ERR_IO);
    tc_expect_contains(why, dir);
    /* a database that does not exist yet is empty */
    bad.perfdb = path;
    assert_int_equal(igemm_create(&h, &bad, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_backend(h), "emu");
    assert_string_equal(igemm_handle_arch(h), "gfx906");
    assert_string_equal(igemm_handle_fallback(h), ""); /* backend chosen explicitly */
    assert_string_equal(igemm_last_error(h), "");
    igemm_destroy(h);
    rmdir(dir);
}

/* ---- NULL handle and NULL pointers ---- */

static void null_handle(void **state)
{
    (void)state;
    igemm_problem p = prob(1, 1, 1, 1, 1, 1, 1);
    float buf[4] = {0};
    void *ptr = NULL;
    char name[96], why[256];
    int count = 5;
    igemm_perf perf[2];
    igemm_launch l[1];
    assert_string_equal(igemm_last_error(NULL), "handle is NULL");
    assert_null(igemm_handle_arch(NULL));
    assert_null(igemm_handle_backend(NULL));
    assert_null(igemm_handle_fallback(NULL));
    igemm_destroy(NULL);
    igemm_free(NULL, buf);
    assert_int_equal(igemm_alloc(NULL, &ptr, 4), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_copy_to_device(NULL, buf, buf, 4), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_copy_to_host(NULL, buf, buf, 4), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_set_stream(NULL, NULL), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_applicable(NULL, &p, NULL, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "handle is NULL");
    assert_int_equal(igemm_select(NULL, &p, name, sizeof name), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_conv_bwd_data(NULL, &p, buf, buf, buf), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_conv_bwd_data_ex(NULL, &p, "naive", buf, buf, buf, NULL), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_find(NULL, &p, buf, buf, buf, perf, 2, &count), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(count, 0);
    assert_int_equal(igemm_get_launches(NULL, &p, NULL, l, 1, &count), IGEMM_ERR_INVALID_ARG);
}

static void null_pointers(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = prob(1, 1, 2, 2, 1, 1, 1);
    float buf[8] = {0};
    char name[96];
    int count;
    igemm_perf perf[2];

    assert_int_equal(igemm_alloc(h, NULL, 4), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "igemm_alloc");
    assert_int_equal(igemm_copy_to_device(h, NULL, buf, 4), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "destination");
    assert_int_equal(igemm_copy_to_host(h, buf, NULL, 4), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "source");
    /* zero bytes with NULL pointers is a no-op, and a success clears the message */
    assert_int_equal(igemm_copy_to_host(h, NULL, NULL, 0), IGEMM_OK);
    assert_string_equal(igemm_last_error(h), "");

    assert_int_equal(igemm_conv_bwd_data(h, &p, NULL, buf, buf), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "dx must not be NULL");
    assert_int_equal(igemm_conv_bwd_data(h, &p, buf, NULL, buf), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "dy must not be NULL");
    assert_int_equal(igemm_conv_bwd_data(h, &p, buf, buf, NULL), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "w must not be NULL");
    assert_int_equal(igemm_conv_bwd_data(h, NULL, buf, buf, buf), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "problem is NULL");

    assert_int_equal(igemm_select(h, NULL, name, sizeof name), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "problem");
    assert_int_equal(igemm_select(h, &p, NULL, 0), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "solution");

    assert_int_equal(igemm_find(h, &p, buf, NULL, buf, perf, 2, &count), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "dy must not be NULL");
    assert_int_equal(igemm_find(h, &p, buf, buf, buf, NULL, 2, &count), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "results");
    assert_int_equal(igemm_find(h, &p, buf, buf, buf, perf, -1, &count), IGEMM_ERR_INVALID_ARG);

    assert_int_equal(igemm_get_launches(h, &p, NULL, NULL, 0, NULL), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "count is NULL");

    /* streams: the emulator takes only NULL */
    assert_int_equal(igemm_set_stream(h, NULL), IGEMM_OK);
    assert_int_equal(igemm_set_stream(h, buf), IGEMM_ERR_UNSUPPORTED);
    tc_expect_contains(igemm_last_error(h), "no streams");

    assert_null(igemm_solution_name(-1));
    assert_null(igemm_solution_name(igemm_solution_count()));
    assert_string_equal(igemm_solution_name(0), "naive");
    igemm_destroy(h);
}

/* ---- invalid, unsupported and refused problems ---- */

static void invalid_sizes(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    float buf[64] = {0};
    char why[1024];
    struct {
        igemm_problem p;
        igemm_status st;
        const char *reason;
    } cases[] = {
        {prob(1, 0, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "c (input channels) must be >= 1, got 0"},
        {prob(-3, 1, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "n (batch) must be >= 1, got -3"},
        {prob(1, 1, 2, 2, 1, 3, 3), IGEMM_ERR_INVALID_ARG, "output size"},
        {prob(1, 3, 4, 4, 4, 1, 1), IGEMM_ERR_INVALID_ARG, "groups"}, /* groups set to 2 below */
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "padding"}, /* pad -1 below */
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_UNSUPPORTED, "not NCHW or NHWC"}, /* layout 7 below */
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_UNSUPPORTED, "data type 5 is not fp32, fp16 or bf16"}, /* below */
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "fp16_mode 3 is not"},
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "fp16_mode flush applies to fp16 problems, this one is bf16"},
        {prob(1, 1, 4, 4, 1, 1, 1), IGEMM_ERR_INVALID_ARG, "fp16_mode alt applies to fp16 problems, this one is fp32"},
    };
    cases[3].p.groups = 2;
    cases[4].p.pad_h = -1;
    cases[5].p.layout = (igemm_layout)7;
    cases[6].p.dtype = (igemm_dtype)5;
    cases[7].p.dtype = IGEMM_FP16, cases[7].p.fp16_mode = (igemm_fp16_mode)3;
    cases[8].p.dtype = IGEMM_BF16, cases[8].p.fp16_mode = IGEMM_FP16_FLUSH;
    cases[9].p.fp16_mode = IGEMM_FP16_ALT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const igemm_problem *p = &cases[i].p;
        assert_int_equal(igemm_applicable(h, p, NULL, why, sizeof why), cases[i].st);
        tc_expect_contains(why, cases[i].reason);
        assert_int_equal(igemm_applicable(h, p, "naive", why, sizeof why), cases[i].st);
        assert_int_equal(igemm_conv_bwd_data(h, p, buf, buf, buf), cases[i].st);
        tc_expect_contains(igemm_last_error(h), cases[i].reason);
        char name[96];
        assert_int_equal(igemm_select(h, p, name, sizeof name), cases[i].st);
        tc_expect_contains(igemm_last_error(h), cases[i].reason);
        int count = -1;
        assert_int_equal(igemm_get_launches(h, p, NULL, NULL, 0, &count), cases[i].st);
        assert_int_equal(count, 0);
        igemm_perf perf[1];
        assert_int_equal(igemm_find(h, p, buf, buf, buf, perf, 1, &count), cases[i].st);
        tc_expect_contains(igemm_last_error(h), cases[i].reason);
    }
    /* NHWC is a valid problem the v4r1 kernels take and the naive one refuses */
    igemm_problem p = prob(1, 1, 4, 4, 1, 1, 1);
    p.layout = IGEMM_LAYOUT_NHWC;
    assert_int_equal(igemm_applicable(h, &p, NULL, why, sizeof why), IGEMM_OK);
    assert_int_equal(igemm_applicable(h, &p, "naive", why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "written for nchw fp32 tensors (the naive kernel), not nhwc fp32");
    char picked[96];
    assert_int_equal(igemm_select(h, &p, picked, sizeof picked), IGEMM_OK);
    tc_expect_contains(picked, "_nhwc_");
    /* unknown configuration */
    p = prob(1, 1, 4, 4, 1, 1, 1);
    assert_int_equal(igemm_applicable(h, &p, "no_such_kernel", why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "unknown solution 'no_such_kernel'");
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, "no_such_kernel", buf, buf, buf, NULL), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "no_such_kernel");
    igemm_destroy(h);
}

/* IGEMM_DISABLE_MATH leaves math strategies out of the automatic
 * selection (not out of an explicit solution); an unknown name is refused. */
static void disable_math_env(void **state)
{
    (void)state;
    igemm_problem p = prob(2, 64, 14, 14, 64, 3, 3);
    p.pad_h = p.pad_w = 1;
    char name[128], why[256];
    const char *const want[] = {"_mfma_", "_fma_"};
    const char *const env[] = {NULL, "mfma"};
    for (int i = 0; i < 2; i++) {
        if (env[i])
            setenv("IGEMM_DISABLE_MATH", env[i], 1);
        else
            unsetenv("IGEMM_DISABLE_MATH");
        igemm_handle *h = tc_emu_handle("gfx908", NULL, 1);
        assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
        tc_expect_contains(name, want[i]);
        assert_int_equal(igemm_applicable(h, &p, "igemm_bwd_v4r1_mfma_fp32_nchw_64x64x8_t256_wt32x32x2", why,
                                          sizeof why), IGEMM_OK);
        igemm_destroy(h);
    }
    setenv("IGEMM_DISABLE_MATH", "fma,xdl", 1);
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    igemm_handle *h = NULL;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(why, "IGEMM_DISABLE_MATH: 'xdl' is not a math strategy");
    unsetenv("IGEMM_DISABLE_MATH");
}

/* One image of 1024 x 1024 x 1024 floats is 4 GiB: no launch can address it
 * with 32-bit offsets, so every configuration refuses it, with the reason.
 * Nothing is allocated: the refusal comes before any buffer is touched. */
static void refused_problem_with_reason(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = prob(1, 1024, 1024, 1024, 1, 1, 1);
    char why[1024];
    /* 1024 * 1024 * 1024 floats: 2^32 bytes */
    assert_int_equal(igemm_applicable(h, &p, "naive", why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "one image of dx is 4294967296 bytes");
    assert_int_equal(igemm_applicable(h, &p, NULL, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "no kernel configuration applies on gfx906 to conv -n 1 -c 1024 -H 1024 -W 1024");
    /* every configuration refuses for the same reason: said once */
    tc_expect_contains(why, "one image of dx is 4294967296 bytes, more than the 2147418112 one launch can address "
                            "(32-bit offsets) (every configuration)");
    assert_null(strstr(strstr(why, "4294967296") + 1, "4294967296"));
    float dummy[4];
    assert_int_equal(igemm_conv_bwd_data(h, &p, dummy, dummy, dummy), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(igemm_last_error(h), "(every configuration)");
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, "naive", dummy, dummy, dummy, NULL), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(igemm_last_error(h), "naive does not apply on gfx906: one image of dx is 4294967296 bytes");
    int count = -1;
    igemm_perf perf[4];
    assert_int_equal(igemm_find(h, &p, dummy, dummy, dummy, perf, 4, &count), IGEMM_ERR_NOT_APPLICABLE);
    assert_int_equal(count, 0);
    tc_expect_contains(igemm_last_error(h), "no kernel configuration applies");
    igemm_destroy(h);
}

/* fp16 and bf16 problems are valid on every target. A configuration written
 * for fp32 refuses them with its reason; where the library has no
 * configuration of that type the whole problem is refused in one line that
 * names the type (MIOpenDriver's command word) and each reason, and where it
 * has one the run verifies by the 16-bit rule (tc_run_case). */
static void sixteen_bit_problems(void **state)
{
    (void)state;
    const igemm_dtype types[] = {IGEMM_FP16, IGEMM_BF16};
    const char *names[] = {"fp16", "bf16"}, *commands[] = {"convfp16", "convbfp16"};
    const char *fp32_v4r1 = NULL;
    for (int i = 0; i < igemm_solution_count() && !fp32_v4r1; i++)
        if (strstr(igemm_solution_name(i), "_fma_fp32_nchw_"))
            fp32_v4r1 = igemm_solution_name(i);
    assert_non_null(fp32_v4r1);
    const char *arches[] = {TC_ARCH_LIST};
    for (int a = 0; a < TC_NARCH(arches); a++) {
        igemm_handle *h = tc_emu_handle(arches[a], NULL, 1);
        for (int t = 0; t < 2; t++) {
            igemm_problem p = prob(2, 5, 6, 7, 3, 3, 3);
            p.pad_h = p.pad_w = 1;
            p.dtype = types[t];
            char why[4096], want[256];
            assert_int_equal(igemm_problem_check(&p, why, sizeof why), IGEMM_OK);
            assert_int_equal(igemm_applicable(h, &p, fp32_v4r1, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
            assert_string_equal(why, "written for nchw fp32 tensors");
            assert_int_equal(igemm_applicable(h, &p, "naive", why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
            snprintf(want, sizeof want, "written for nchw fp32 tensors (the naive kernel), not nchw %s", names[t]);
            assert_string_equal(why, want);
            int have = 0;
            for (int i = 0; i < igemm_solution_count(); i++)
                have |= strstr(igemm_solution_name(i), names[t]) != NULL;
            if (have) {
                tc_case_result res;
                if (tc_run_case(h, &p, NULL, 5, &res, why, sizeof why))
                    fail_msg("%s %s: %s", arches[a], names[t], why);
                continue;
            }
            snprintf(want, sizeof want, "no kernel configuration applies on %s to %s -n 2 -c 5 -H 6 -W 7", arches[a],
                     commands[t]);
            assert_int_equal(igemm_applicable(h, &p, NULL, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
            tc_expect_contains(why, want);
            /* the configurations of other types are not candidates: the reason is that none is of this type */
            char none[96];
            snprintf(none, sizeof none, "none is written for NCHW %s tensors", names[t]);
            tc_expect_contains(why, none);
            assert_null(strchr(why, '\n'));
            uint16_t buf[2048] = {0};
            assert_int_equal(igemm_conv_bwd_data(h, &p, buf, buf, buf), IGEMM_ERR_NOT_APPLICABLE);
            tc_expect_contains(igemm_last_error(h), want);
            int count = -1;
            igemm_perf perf[1];
            assert_int_equal(igemm_find(h, &p, buf, buf, buf, perf, 1, &count), IGEMM_ERR_NOT_APPLICABLE);
            assert_int_equal(count, 0);
        }
        igemm_destroy(h);
    }
}

/* ---- a run through the public API ---- */

static void run_matches_definition(void **state)
{
    (void)state;
    static const char *const archs[] = {"gfx906", "gfx90a"};
    for (int a = 0; a < 2; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 1);
        igemm_problem p = prob(2, 4, 5, 6, 6, 3, 2);
        p.pad_h = 1, p.stride_w = 2, p.dil_h = 2, p.groups = 2;
        bufs b;
        bufs_make(&b, &p);
        void *dx;
        assert_int_equal(igemm_alloc(h, &dx, elems_dx(&p) * 4), IGEMM_OK);
        igemm_run_info ri;
        igemm_status st = igemm_conv_bwd_data_ex(h, &p, NULL, dx, b.dy, b.w, &ri);
        if (st != IGEMM_OK)
            fail_msg("%s: %s", archs[a], igemm_last_error(h));
        assert_int_equal(igemm_copy_to_host(h, b.dx, dx, elems_dx(&p) * 4), IGEMM_OK);
        bufs_check(&b, &p);
        assert_string_equal(ri.source, "heuristic");
        assert_true(ri.launches >= 1);
        assert_true(ri.cycles > 0);
        tc_expect_contains(ri.kernels, "igemm_bwd_");
        /* the naive kernel by name: one launch of one kernel */
        memset(b.dx, 0, elems_dx(&p) * 4);
        assert_int_equal(igemm_conv_bwd_data_ex(h, &p, "naive", b.dx, b.dy, b.w, &ri), IGEMM_OK);
        bufs_check(&b, &p);
        assert_string_equal(ri.source, "user");
        assert_string_equal(ri.kernels, "igemm_bwd_naive_nchw_fp32");
        assert_int_equal(ri.launches, 1);
        igemm_free(h, dx);
        bufs_free(&b);
        igemm_destroy(h);
    }
}

/* ---- find mode and the performance database ---- */

/* The fp16 modes in find mode on gfx90a and in the perf-db: find times only
 * the fp16alt configurations' peers that the mode allows (alt problems some
 * fp16alt ones, accurate and flush ones none), and each mode's record has
 * its own key type: FP16, FP16-FLUSH, FP16-ALT (one record each). */
static void find_fp16_modes_and_perfdb_keys(void **state)
{
    (void)state;
    char dir[] = "/tmp/igemm-api-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[300];
    snprintf(db, sizeof db, "%s/perf.db", dir);
    igemm_handle *h = tc_emu_handle("gfx90a", db, 1);
    static const char *const key[] = {",FP16,cu", ",FP16-FLUSH,cu", ",FP16-ALT,cu"};
    for (int m = IGEMM_FP16_ACCURATE; m <= IGEMM_FP16_ALT; m++) {
        igemm_problem p = prob(1, 8, 4, 4, 8, 1, 1);
        p.dtype = IGEMM_FP16, p.layout = IGEMM_LAYOUT_NHWC, p.fp16_mode = (igemm_fp16_mode)m;
        void *dx, *dy, *w;
        assert_int_equal(igemm_alloc(h, &dx, 8 * 16 * 2), IGEMM_OK);
        assert_int_equal(igemm_alloc(h, &dy, 8 * 16 * 2), IGEMM_OK);
        assert_int_equal(igemm_alloc(h, &w, 8 * 8 * 2), IGEMM_OK);
        uint16_t ones[8 * 16];
        for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++)
            ones[i] = 0x3c00; /* 1.0 */
        assert_int_equal(igemm_copy_to_device(h, dy, ones, sizeof ones), IGEMM_OK);
        assert_int_equal(igemm_copy_to_device(h, w, ones, 8 * 8 * 2), IGEMM_OK);
        igemm_perf perf[256];
        int count = -1, alt = 0;
        assert_int_equal(igemm_find(h, &p, dx, dy, w, perf, 256, &count), IGEMM_OK);
        for (int i = 0; i < count && i < 256; i++)
            alt += strstr(perf[i].solution, "_fp16alt_") != NULL;
        if (m == IGEMM_FP16_ALT ? alt == 0 : alt != 0)
            fail_msg("fp16 mode %d: find timed %d fp16alt configurations", m, alt);
        size_t len = 0;
        char *text = read_file(db, &len);
        assert_non_null(text);
        assert_int_equal(count_records(text), m + 1);
        tc_expect_contains(text, key[m]);
        free(text);
        igemm_free(h, dx), igemm_free(h, dy), igemm_free(h, w);
    }
    igemm_destroy(h);
    unlink(db);
    rmdir(dir);
}

/* Find on the emulator runs only the workgroups its timing model traces
 * (backend_ops.cost_only): on a problem whose grids are larger than that
 * sample (gfx908: 4 CUs traced of 120; four phases of stride 2), every cost
 * is the modeled time of a whole run of that configuration, and dx holds the
 * result afterwards (find runs the best whole). */
static void find_costs_are_whole_runs(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx908", NULL, 2);
    igemm_problem p = prob(8, 64, 16, 16, 32, 3, 3);
    p.pad_h = p.pad_w = 1, p.stride_h = p.stride_w = 2;
    bufs b;
    bufs_make(&b, &p);
    igemm_perf perf[64];
    int count = -1;
    assert_int_equal(igemm_find(h, &p, b.dx, b.dy, b.w, perf, 64, &count), IGEMM_OK);
    assert_true(count >= 2);
    bufs_check(&b, &p);
    for (int i = 0; i < count && i < 64; i++) {
        igemm_run_info ri;
        assert_int_equal(igemm_conv_bwd_data_ex(h, &p, perf[i].solution, b.dx, b.dy, b.w, &ri), IGEMM_OK);
        if ((double)ri.modeled_cycles != perf[i].cost)
            fail_msg("%s: find's cost %.17g cycles, a whole run models %llu", perf[i].solution, perf[i].cost,
                     (unsigned long long)ri.modeled_cycles);
    }
    bufs_free(&b);
    igemm_destroy(h);
}

static void find_and_perfdb_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/igemm-api-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char db[300];
    snprintf(db, sizeof db, "%s/perf.db", dir);
    /* a record of another problem is already there: find must keep it */
    const char *other = "gfx908 n9,c9,H9,W9,k9,y1,x1,p0,q0,u1,v1,l1,j1,g1,NCHW,FP32,cu120 naive 77 cycles\n";
    write_text(db, other);

    igemm_handle *h = tc_emu_handle("gfx906", db, 1);
    igemm_problem p = prob(1, 4, 5, 5, 4, 3, 3);
    p.pad_h = p.pad_w = 1;
    bufs b;
    bufs_make(&b, &p);

    /* how many configurations apply, asked one by one */
    int applicable = 0;
    for (int i = 0; i < igemm_solution_count(); i++)
        applicable += igemm_applicable(h, &p, igemm_solution_name(i), NULL, 0) == IGEMM_OK;
    assert_true(applicable >= 1);

    igemm_perf perf[64];
    int count = -1;
    assert_int_equal(igemm_find(h, &p, b.dx, b.dy, b.w, perf, 64, &count), IGEMM_OK);
    assert_int_equal(count, applicable);
    bufs_check(&b, &p); /* dx holds the result */
    for (int i = 0; i < count && i < 64; i++) {
        assert_int_equal(perf[i].status, IGEMM_OK);
        assert_string_equal(perf[i].unit, "cycles");
        if (i)
            assert_true(perf[i - 1].cost <= perf[i].cost);
        /* the cost is the modeled time a separate run of that configuration
           reports (the timing model is on by default: docs/TIMING.md) */
        igemm_run_info ri;
        memset(b.dx, 0, elems_dx(&p) * 4);
        assert_int_equal(igemm_conv_bwd_data_ex(h, &p, perf[i].solution, b.dx, b.dy, b.w, &ri), IGEMM_OK);
        bufs_check(&b, &p);
        assert_true(ri.modeled_cycles > 0);
        assert_true((double)ri.modeled_cycles == perf[i].cost);
        assert_int_equal(ri.launches, perf[i].launches);
    }
    const char *best = perf[0].solution;

    /* the file: the other record kept, one new record for this problem */
    size_t text_len = 0;
    char *text = read_file(db, &text_len);
    assert_non_null(text);
    tc_expect_contains(text, other);
    char line[400];
    snprintf(line, sizeof line, "gfx906 n1,c4,H5,W5,k4,y3,x3,p1,q1,u1,v1,l1,j1,g1,NCHW,FP32,cu60 %s %.17g cycles\n", best,
             perf[0].cost);
    tc_expect_contains(text, line);
    assert_int_equal(count_records(text), 2);
    free(text);

    /* this handle now selects the best, from the database */
    char name[96];
    assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
    assert_string_equal(name, best);
    igemm_run_info ri;
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, NULL, b.dx, b.dy, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "perfdb");
    assert_string_equal(ri.solution, best);

    /* find again: the record is replaced, not duplicated */
    assert_int_equal(igemm_find(h, &p, b.dx, b.dy, b.w, NULL, 0, &count), IGEMM_OK);
    text = read_file(db, &text_len);
    assert_non_null(text);
    assert_int_equal(count_records(text), 2);
    free(text);
    igemm_destroy(h);

    /* a new handle reads it back */
    h = tc_emu_handle("gfx906", db, 1);
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, NULL, b.dx, b.dy, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "perfdb");
    assert_string_equal(ri.solution, best);
    bufs_check(&b, &p);
    /* another batch size is another problem */
    igemm_problem p2 = p;
    p2.n = 2;
    char why[256];
    assert_int_equal(igemm_applicable(h, &p2, NULL, why, sizeof why), IGEMM_OK);
    float *dx2 = calloc(elems_dx(&p2), 4), *dy2 = calloc(elems_dy(&p2), 4);
    assert_non_null(dx2);
    assert_non_null(dy2);
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p2, NULL, dx2, dy2, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "heuristic");
    free(dx2);
    free(dy2);
    igemm_destroy(h);

    /* another target does not use gfx906's record */
    h = tc_emu_handle("gfx908", db, 1);
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, NULL, b.dx, b.dy, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "heuristic");
    igemm_destroy(h);

    /* a record overrides the heuristic: name a configuration the heuristic
     * does not pick (the last of find's list differs from the first) */
    assert_true(count >= 2); /* else there would be nothing to override with */
    h = tc_emu_handle("gfx906", NULL, 1);
    assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
    igemm_destroy(h);
    const char *pick = NULL;
    for (int i = 0; i < count && !pick; i++)
        if (strcmp(perf[i].solution, name))
            pick = perf[i].solution;
    assert_non_null(pick);
    char rec[400];
    snprintf(rec, sizeof rec, "gfx906 n1,c4,H5,W5,k4,y3,x3,p1,q1,u1,v1,l1,j1,g1,NCHW,FP32,cu60 %.95s 1 cycles\n", pick);
    write_text(db, rec);
    h = tc_emu_handle("gfx906", db, 1);
    assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
    assert_string_equal(name, pick);
    igemm_destroy(h);

    /* a record naming a configuration this library lacks is ignored */
    write_text(db, "gfx906 n1,c4,H5,W5,k4,y3,x3,p1,q1,u1,v1,l1,j1,g1,NCHW,FP32,cu60 retired_kernel 1 cycles\n");
    h = tc_emu_handle("gfx906", db, 1);
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, NULL, b.dx, b.dy, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "heuristic");
    bufs_check(&b, &p);
    igemm_destroy(h);
    unlink(db);

    /* a database file that cannot be written: find measures, remembers the
     * best in the handle and reports IGEMM_ERR_IO */
    char nodir[320];
    snprintf(nodir, sizeof nodir, "%s/missing-dir/perf.db", dir);
    h = tc_emu_handle("gfx906", nodir, 1);
    assert_int_equal(igemm_find(h, &p, b.dx, b.dy, b.w, perf, 64, &count), IGEMM_ERR_IO);
    tc_expect_contains(igemm_last_error(h), "missing-dir");
    assert_int_equal(count, applicable);
    assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
    assert_string_equal(name, perf[0].solution);
    igemm_destroy(h);

    /* without a database file find still remembers the best in the handle */
    h = tc_emu_handle("gfx906", NULL, 1);
    assert_int_equal(igemm_find(h, &p, b.dx, b.dy, b.w, perf, 1, &count), IGEMM_OK);
    assert_int_equal(count, applicable);
    assert_int_equal(igemm_conv_bwd_data_ex(h, &p, NULL, b.dx, b.dy, b.w, &ri), IGEMM_OK);
    assert_string_equal(ri.source, "perfdb");
    assert_string_equal(ri.solution, perf[0].solution);
    igemm_destroy(h);

    bufs_free(&b);
    rmdir(dir);
}

/* ---- embedding: code objects and launch plans ---- */

static void embedded_code_objects(void **state)
{
    (void)state;
    static const char *const archs[] = {TC_ARCH_LIST};
    assert_int_equal(igemm_codeobj_count(), TC_NARCH(archs));
    for (int i = 0; i < TC_NARCH(archs); i++) {
        const char *arch;
        const void *image;
        size_t size;
        assert_int_equal(igemm_codeobj_get(i, &arch, &image, &size), IGEMM_OK);
        assert_string_equal(arch, archs[i]);
        /* the same bytes as the build's code object file */
        char path[256];
        size_t fsize = 0;
        void *file = read_file(tc_codeobj_path(arch, path, sizeof path), &fsize);
        assert_non_null(file);
        assert_int_equal(size, fsize);
        assert_memory_equal(image, file, size);
        assert_memory_equal(image, "\177ELF", 4);
        free(file);
    }
    assert_int_equal(igemm_codeobj_get(-1, NULL, NULL, NULL), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_codeobj_get(4, NULL, NULL, NULL), IGEMM_ERR_INVALID_ARG);
    assert_string_equal(igemm_version(), IGEMM_VERSION);
}

/* The naive plan of n=3, c=2, 4x5 images: 3*2*4*5 = 120 dx elements, one
 * workgroup of 256; 8-byte pointers dx, dy, w at offsets 0, 8, 16 and 52
 * 32-bit values after them (sizes, the pixel band, byte strides, magic
 * numbers): 232 bytes. Launched by hand on the emulator
 * with the embedded code object, as a library embedding them would. */
static void launch_plan_by_hand(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx908", NULL, 1);
    igemm_problem p = prob(3, 2, 4, 5, 3, 3, 2);
    p.pad_w = 1;
    int count = -1;
    assert_int_equal(igemm_get_launches(h, &p, "naive", NULL, 0, &count), IGEMM_OK);
    assert_int_equal(count, 1);
    igemm_launch l[2];
    assert_int_equal(igemm_get_launches(h, &p, "naive", l, 0, &count), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(count, 1);
    tc_expect_contains(igemm_last_error(h), "has 1 launches");
    assert_int_equal(igemm_get_launches(h, &p, "naive", l, 2, &count), IGEMM_OK);
    assert_string_equal(l[0].kernel, "igemm_bwd_naive_nchw_fp32");
    assert_int_equal(l[0].grid[0], 1);
    assert_int_equal(l[0].grid[1], 1);
    assert_int_equal(l[0].block[0], 256);
    assert_int_equal(l[0].args_size, 232);
    assert_int_equal(l[0].ptr_offset[0], 0);
    assert_int_equal(l[0].ptr_offset[1], 8);
    assert_int_equal(l[0].ptr_offset[2], 16);
    uint32_t total;
    memcpy(&total, l[0].args + 24, 4);
    assert_int_equal(total, 120);

    bufs b;
    bufs_make(&b, &p);
    const void *image = NULL;
    size_t size = 0;
    for (int i = 0; i < igemm_codeobj_count(); i++) {
        const char *arch;
        const void *im;
        size_t sz;
        igemm_codeobj_get(i, &arch, &im, &sz);
        if (!strcmp(arch, "gfx908"))
            image = im, size = sz;
    }
    assert_non_null(image);
    emu_device *d = emu_create(target_by_name("gfx908"), &(emu_options){.threads = 1});
    emu_module *m = NULL;
    char err[512];
    assert_non_null(d);
    if (emu_load(d, image, size, &m, err, sizeof err))
        fail_msg("%s", err);
    void *base[3] = {b.dx, b.dy, b.w};
    size_t bytes[3] = {elems_dx(&p) * 4, elems_dy(&p) * 4, elems_w(&p) * 4};
    for (int t = 0; t < 3; t++) {
        emu_register(d, base[t], bytes[t]);
        uint64_t addr = (uint64_t)(uintptr_t)base[t] + l[0].ptr_add[t];
        memcpy(l[0].args + l[0].ptr_offset[t], &addr, 8);
    }
    if (emu_launch(d, emu_find_kernel(m, l[0].kernel), l[0].grid, l[0].block, l[0].args, l[0].args_size, NULL, err,
                   sizeof err))
        fail_msg("%s", err);
    bufs_check(&b, &p);
    emu_module_free(m);
    emu_destroy(d);
    bufs_free(&b);
    igemm_destroy(h);
}

/* ---- batch splitting at the per-launch byte limit ---- */

/* dx-dominant, planned only: 600 images of 1024 x 32 x 32 floats, 4 MiB
 * each (2.5 GB in all). A launch may address at most 0x7fff0000 bytes
 * (2147418112) of a tensor: floor(2147418112 / 4194304) = 511 images, so
 * two launches of 511 and 89 images; the second starts 511 * 4194304 =
 * 2143289344 bytes into dx and 511 * 4096 = 2093056 bytes into dy. */
static void batch_split_plan(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = prob(600, 1024, 32, 32, 1, 1, 1);
    int count = -1;
    igemm_launch l[4];
    assert_int_equal(igemm_get_launches(h, &p, "naive", l, 4, &count), IGEMM_OK);
    assert_int_equal(count, 2);
    uint32_t total[2], batch[2];
    for (int i = 0; i < 2; i++) {
        memcpy(&total[i], l[i].args + 24, 4);
        memcpy(&batch[i], l[i].args + 28, 4);
    }
    assert_int_equal(batch[0], 511);
    assert_int_equal(batch[1], 89);
    assert_int_equal(total[0], 511u * 1024 * 32 * 32);
    assert_int_equal(total[1], 89u * 1024 * 32 * 32);
    assert_int_equal(l[0].ptr_add[0], 0);
    assert_int_equal(l[1].ptr_add[0], 2143289344ull);
    assert_int_equal(l[1].ptr_add[1], 2093056ull);
    assert_int_equal(l[1].ptr_add[2], 0);
    /* the heuristic's configuration splits too: no launch's dx slice
     * reaches the limit */
    assert_int_equal(igemm_get_launches(h, &p, NULL, NULL, 0, &count), IGEMM_OK);
    assert_true(count >= 2);
    igemm_destroy(h);
}

/* dy-dominant, run for real: 1x1 dx images, pad 2048, so dy images are
 * 4097 x 4097 floats = 67141636 bytes; 40 of them are 2.69 GB, more than a
 * launch may address. floor(2147418112 / 67141636) = 31 images per launch:
 * two launches (31 + 9). dy is reserved with mmap and never written except
 * at the one pixel each dx element reads (dy[n][0][2048][2048] = n + 1), so
 * only 40 pages are touched. With w = {2, -3}: dx[n][0] = 2(n+1),
 * dx[n][1] = -3(n+1); the second launch's images come out right only when
 * its dy base pointer is advanced by 31 images. */
static void batch_split_runs(void **state)
{
    (void)state;
    igemm_problem p = prob(40, 2, 1, 1, 1, 1, 1);
    p.pad_h = p.pad_w = 2048;
    assert_int_equal(igemm_problem_ho(&p), 4097);
    const size_t image = (size_t)4097 * 4097, bytes = 40 * image * 4;
    float *dy = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (dy == MAP_FAILED)
        fail_msg("cannot reserve %zu bytes of address space with MAP_NORESERVE (is overcommit disabled, "
                 "vm.overcommit_memory = 2?)", bytes);
    for (int n = 0; n < 40; n++)
        dy[(size_t)n * image + (size_t)2048 * 4097 + 2048] = (float)(n + 1);
    float w[2] = {2.0f, -3.0f}, dx[80];
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    const char *solutions[2] = {"naive", NULL};
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 80; i++)
            dx[i] = NAN;
        igemm_run_info ri;
        igemm_status st = igemm_conv_bwd_data_ex(h, &p, solutions[s], dx, dy, w, &ri);
        if (st != IGEMM_OK)
            fail_msg("%s: %s", solutions[s] ? solutions[s] : "selected", igemm_last_error(h));
        for (int n = 0; n < 40; n++) {
            assert_true(dx[2 * n] == 2.0f * (float)(n + 1));
            assert_true(dx[2 * n + 1] == -3.0f * (float)(n + 1));
        }
        assert_true(ri.launches >= 2);
        if (s == 0)
            assert_int_equal(ri.launches, 2);
    }
    igemm_destroy(h);
    munmap(dy, bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_errors),
        cmocka_unit_test(null_handle),
        cmocka_unit_test(null_pointers),
        cmocka_unit_test(invalid_sizes),
        cmocka_unit_test(disable_math_env), cmocka_unit_test(refused_problem_with_reason),
        cmocka_unit_test(sixteen_bit_problems),
        cmocka_unit_test(run_matches_definition),
        cmocka_unit_test(find_and_perfdb_round_trip),
        cmocka_unit_test(find_costs_are_whole_runs),
        cmocka_unit_test(embedded_code_objects),
        cmocka_unit_test(launch_plan_by_hand),
        cmocka_unit_test(batch_split_plan),
        cmocka_unit_test(batch_split_runs),
        cmocka_unit_test(find_fp16_modes_and_perfdb_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
