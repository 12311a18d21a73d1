/* Static twins of 16-bit NHWC configurations, end to end: igemm-bench
 * (BUILD_DIR/bin/igemm-bench) generates the twin of the library's pick with
 * igemmgen --static, assembles it with LLVM, runs the dynamic kernel and the
 * twin on the emulator and verifies both against the float64 reference
 * (conv/reference.c, independent of the kernels), in fp16 and bf16, NHWC, on
 * MFMA targets, for a strided layer with several phases and no dimension a
 * multiple of a tile. The report's summary line must say every layer
 * verified and give dyn/static ratios near 1; bad --type / --layout values
 * are refused in one line; --lines reports cache lines per useful byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static char dir[] = "/tmp/igemm-twins-XXXXXX";

/* Run igemm-bench with args; its stdout in out (stderr dropped unless
 * err_too), the exit status returned. */
static int bench(const char *args, char *out, size_t len, int err_too)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/bin/igemm-bench --igemmgen %s/bin/igemmgen --llvm-bin %s %s %s", BUILD_DIR,
             BUILD_DIR, LLVM_BIN, args, err_too ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = 0;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static double ratio(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

static void twin_16bit_nhwc_verifies(void **state)
{
    (void)state;
    static const struct {
        const char *arch, *type;
    } cases[] = {{"gfx90a", "fp16"}, {"gfx908", "bf16"}, {"gfx942", "fp16"}};
    char list[200], out[4096], args[1024], report[256];
    snprintf(list, sizeof list, "%s/list.txt", dir);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    fputs("conv -n 2 -c 40 -H 11 -W 9 -k 36 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 2  # 4 phases\n", f);
    assert_int_equal(fclose(f), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(report, sizeof report, "%s/%s.md", dir, cases[i].arch);
        snprintf(args, sizeof args,
                 "--input %s --batch 2 --arch %s --type %s --layout NHWC -o %s --density "
                 "'conv -n 1 -c 8 -H 4 -W 4 -k 8 -y 1 -x 1 -F 2'",
                 list, cases[i].arch, cases[i].type, report);
        int rc = bench(args, out, sizeof out, 0);
        char want[96];
        snprintf(want, sizeof want, "summary arch=%s type=%s layout=NHWC ", cases[i].arch, cases[i].type);
        if (rc || strncmp(out, want, strlen(want)) || !strstr(out, " verified=1/1\n"))
            fail_msg("%s %s: exit %d, stdout: %s", cases[i].arch, cases[i].type, rc, out);
        double issue = ratio(out, " issue="), modeled = ratio(out, " modeled=");
        if (!(issue > 0.9 && issue < 1.1 && modeled > 0.9 && modeled < 1.1))
            fail_msg("%s %s: dyn/static issue %g, modeled %g", cases[i].arch, cases[i].type, issue, modeled);
        /* the report's row is the MFMA pick of that type and layout */
        size_t n;
        char *text = read_file(report, &n);
        assert_non_null(text);
        char kernel[64];
        snprintf(kernel, sizeof kernel, "| v4r1_mfma_%s_nhwc_", cases[i].type);
        if (!strstr(text, kernel) || strstr(text, "FAIL"))
            fail_msg("%s: no verified %s row in %s", cases[i].arch, kernel, report);
        free(text);
    }
}

/* igemm-bench --lines: a 1x1 stride-1 layer whose rows are whole cache
 * lines (32 fp32 pixels, 128 bytes; tensors 4 KiB aligned) on a gfx906
 * FMA NCHW kernel with K blocks of 8: consecutive lanes load consecutive channels of w (1x1:
 * contiguous) and pixels of dy, and store 4 consecutive pixels each side by
 * side, so every line an instruction touches is wholly useful: 1.00 and
 * 1.00 (the kernels before were at 2.00 and 4.00: lanes 4 elements apart
 * on dy, along channels on dx). The LDS column is 1.00 too: consecutive
 * lanes write consecutive LDS words (one tile row per 32-lane group) and
 * read 16-byte groups of one row per 8 lanes, so no bank serves two
 * dwords of one group. */
static void lines_fma_nchw_full(void **state)
{
    (void)state;
    char list[200], out[4096], args[1024], report[256];
    snprintf(list, sizeof list, "%s/lines.txt", dir);
    snprintf(report, sizeof report, "%s/lines.md", dir);
    FILE *f = fopen(list, "w");
    assert_non_null(f);
    fputs("conv -n 1 -c 64 -H 32 -W 32 -k 32 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -F 2\n", f);
    assert_int_equal(fclose(f), 0);
    /* batch 4: the pick is a KPB-8 tile (64x128x8_t256); at batch 1 the
       heuristic takes 32x32x16_t64, whose dy loads touch 2.00 line bytes
       per useful byte and whose LDS reads conflict (1.33x): issue 23 */
    snprintf(args, sizeof args, "--lines --batch 4 --input %s --arch gfx906 -o %s", list, report);
    int rc = bench(args, out, sizeof out, 1);
    size_t n;
    char *text = read_file(report, &n);
    if (rc || !text)
        fail_msg("igemm-bench %s: exit %d, output: %s", args, rc, out);
    if (!strstr(text, "| v4r1_fma_fp32_nchw_") || !strstr(text, " | 1 | 1.00 | 1.00 | 1.00 |\n"))
        fail_msg("want one launch of an FMA NCHW kernel at 1.00 line bytes per useful byte for loads and stores, "
                 "LDS free of bank conflicts:\n%s",
                 text);
    free(text);
}

static void bad_type_or_layout_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"--type fp8", "--layout nchw", "--layout CHWN", "--type"};
    char out[4096], args[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(args, sizeof args, "--input tests/shapes/resnet50.txt %s", bad[i]);
        int rc = bench(args, out, sizeof out, 1);
        if (rc != 2 || !tc_one_line(out) || strncmp(out, "igemm-bench: ", 13))
            fail_msg("igemm-bench %s: exit %d, output: %s", bad[i], rc, out);
    }
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) ? -1 : 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(twin_16bit_nhwc_verifies),
        cmocka_unit_test(lines_fma_nchw_full),
        cmocka_unit_test(bad_type_or_layout_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
