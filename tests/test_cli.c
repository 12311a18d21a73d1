/* The igemm CLI as a user runs it: BUILD_DIR/bin/igemm in a child process,
 * stdout and stderr captured apart, the exit status checked.
 *
 *   - `igemm conv ... -V 1` prints max abs/rel error and PASS, exits 0;
 *   - bad input gives exactly one line on stderr ("igemm: ..."), nothing on
 *     stdout and exit status 2, never a crash (a signal, or a sanitizer
 *     report under `make check-asan`, fails the test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define MAX_ARGV 64

/* ---- valid runs ---- */

/* Pull the number after `key` out of the report; -1 when absent. */
static double number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return -1.0;
    char *end;
    double v = strtod(p + strlen(key), &end);
    return end == p + strlen(key) ? -1.0 : v;
}

static void check_verified_pass(const tc_result *r)
{
    if (r->status != 0)
        fail_msg("%s: exit status %d (negative: killed by that signal), stderr: %s", r->cmd, r->status, r->err);
    double abs_err = number_after(r->out, "max abs err "), rel_err = number_after(r->out, "max rel err ");
    if (abs_err < 0 || rel_err < 0 || !strstr(r->out, "PASS") || strstr(r->out, "FAIL"))
        fail_msg("%s: no verified PASS report in: %s", r->cmd, r->out);
    /* Random data in [-1, 1), sums of a few dozen products: fp32 error is
     * far below these bounds, and a wrong kernel is far above them. */
    assert_true(rel_err <= 1e-5);
    assert_true(abs_err <= 1e-3);
}

static void conv_verify_passes_on_every_target(void **state)
{
    (void)state;
    static const char *const archs[] = {TC_ARCH_LIST};
    for (int i = 0; i < TC_NARCH(archs); i++) {
        tc_result r;
        const char *args[] = {"conv", "-n", "2", "-c", "3", "-H", "5", "-W", "7", "-k", "5", "-y", "3", "-x",
                              "3",    "-p", "1", "-q", "1", "-u", "1", "-v", "1", "-l", "1", "-j", "1", "-g",
                              "1",    "-F", "2", "-V", "1", "--arch", archs[i], NULL};
        tc_run_igemm(&r, args);
        check_verified_pass(&r);
        /* The report names the problem and the target it ran on. */
        assert_non_null(strstr(r.out, "-n 2 -c 3 -H 5 -W 7 -k 5 -y 3 -x 3 -p 1 -q 1"));
        assert_non_null(strstr(r.out, archs[i]));
        tc_result_free(&r);
    }
}

/* Stride, dilation and groups through the CLI, MIOpenDriver flag order. */
static void conv_verify_strided_grouped(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "8", "-H", "11", "-W", "9", "-k", "4", "-y", "3", "-x", "2",
                          "-p",   "2",  "-q", "1", "-u", "2", "-v", "3", "-l", "2", "-j", "1", "-g", "2", "-F",
                          "2",    "-V", "1", NULL};
    tc_run_igemm(&r, args);
    check_verified_pass(&r);
    tc_result_free(&r);
}

/* NHWC through MIOpenDriver's layout flags, long and short: verified on
 * every target, and the JSON report names the layout. */
static void conv_verify_nhwc(void **state)
{
    (void)state;
    static const char *const archs[] = {TC_ARCH_LIST};
    for (int i = 0; i < TC_NARCH(archs); i++) {
        tc_result r;
        const char *args[] = {"conv", "-n", "2", "-c", "6", "-H", "7", "-W", "5", "-k", "4", "-y", "3", "-x", "2",
                              "-p", "1", "-q", "1", "-u", "2", "-v", "1", "-g", "2", "-F", "2", "-V", "1",
                              i % 2 ? "-I" : "--in_layout", "NHWC", i % 2 ? "-O" : "--out_layout", "NHWC",
                              i % 2 ? "-f" : "--fil_layout", "NHWC", "--arch", archs[i], NULL};
        tc_run_igemm(&r, args);
        check_verified_pass(&r);
        assert_non_null(strstr(r.out, "_nhwc_"));
        assert_non_null(strstr(r.out, "--in_layout NHWC --out_layout NHWC --fil_layout NHWC"));
        tc_result_free(&r);
    }
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                          "-F", "2", "-I", "NHWC", "-O", "NHWC", "-f", "NHWC", "--json", NULL};
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"layout\": \"NHWC\""));
    tc_result_free(&r);
}

/* Without -V nothing is verified, and nothing claims it was. */
static void conv_without_verify_reports_no_check(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-y", "1", "-x", "1",
                          "-F",   "2",  NULL};
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "solution "));
    assert_null(strstr(r.out, "PASS"));
    assert_null(strstr(r.out, "max abs err"));
    tc_result_free(&r);
}

static void conv_json_report(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                          "-F",   "2",  "-V", "1", "--json", "--arch", "gfx90a", NULL};
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    assert_true(tc_one_line(r.out));
    assert_true(r.out[0] == '{');
    assert_non_null(strstr(r.out, "\"verify\": \"PASS\""));
    assert_non_null(strstr(r.out, "\"arch\": \"gfx90a\""));
    tc_result_free(&r);
}

/* A shape list: every problem verified, a summary line at the end. */
static void conv_input_list(void **state)
{
    (void)state;
    char path[] = "/tmp/igemm-cli-shapes-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *list = "# two problems\n"
                       "conv -n 1 -c 3 -H 5 -W 5 -k 2 -y 3 -x 3 -p 1 -q 1 -F 2   # x2\n"
                       "\n"
                       "conv -n 2 -c 2 -H 6 -W 6 -k 2 -y 1 -x 1 -u 2 -v 2 -F 2\n";
    assert_true(write(fd, list, strlen(list)) == (ssize_t)strlen(list));
    close(fd);
    tc_result r;
    const char *args[] = {"conv", "--input", path, "-V", "1", "--batch", "1", NULL};
    tc_run_igemm(&r, args);
    unlink(path);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "2 of 2 problems passed"));
    /* --batch 1 overrides -n 2 of the second line */
    assert_non_null(strstr(r.out, "conv -n 1 -c 2 -H 6 -W 6"));
    tc_result_free(&r);
}

/* ---- bad input ---- */

/* Expect a usage error: exit status 2, stderr one line "igemm: ...",
 * containing `needle` (when not NULL), stdout empty. */
static void expect_usage_error(const char *const *args, const char *needle)
{
    tc_result r;
    tc_run_igemm(&r, args);
    if (r.status < 0)
        fail_msg("%s: killed by signal %d; stderr: %s", r.cmd, -r.status, r.err);
    if (r.status != 2)
        fail_msg("%s: exit status %d, expected 2; stderr: %s", r.cmd, r.status, r.err);
    if (!tc_one_line(r.err) || strncmp(r.err, "igemm: ", 7) || strlen(r.err) < 10)
        fail_msg("%s: stderr is not one 'igemm: ...' line: '%s'", r.cmd, r.err);
    if (*r.out)
        fail_msg("%s: stdout carries output on a usage error: '%s'", r.cmd, r.out);
    if (needle && !strstr(r.err, needle))
        fail_msg("%s: stderr '%s' does not mention '%s'", r.cmd, r.err, needle);
    tc_result_free(&r);
}

/* A valid problem with one flag replaced (or appended): `flag` and `value`
 * (value NULL: the flag is the last word, without a value). */
static void expect_bad_flag(const char *flag, const char *value, const char *needle)
{
    static const char *const base[][2] = {
        {"-n", "2"}, {"-c", "4"}, {"-H", "6"}, {"-W", "6"}, {"-k", "4"}, {"-y", "3"}, {"-x", "3"},
        {"-p", "1"}, {"-q", "1"}, {"-u", "1"}, {"-v", "1"}, {"-l", "1"}, {"-j", "1"}, {"-g", "1"},
        {"-F", "2"}, {"-V", "1"},
    };
    const char *args[MAX_ARGV] = {"conv"};
    int n = 1, replaced = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        if (value && !strcmp(base[i][0], flag)) {
            args[n++] = flag;
            args[n++] = value;
            replaced = 1;
            continue;
        }
        args[n++] = base[i][0];
        args[n++] = base[i][1];
    }
    if (!replaced) {
        args[n++] = flag;
        if (value)
            args[n++] = value;
    }
    args[n] = NULL;
    expect_usage_error(args, needle);
}

static void bad_sizes_negative_or_zero(void **state)
{
    (void)state;
    static const char *const flags[] = {"-n", "-c", "-H", "-W", "-k", "-y", "-x", "-u", "-v", "-l", "-j", "-g"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        expect_bad_flag(flags[i], "0", ">= 1");
        expect_bad_flag(flags[i], "-3", ">= 1");
    }
    expect_bad_flag("-p", "-1", "padding");
    expect_bad_flag("-q", "-2", "padding");
}

static void bad_sizes_not_numbers(void **state)
{
    (void)state;
    static const char *const values[] = {"abc", "1.5", "5x", "", "0x3", "two", "99999999999999999999", "-"};
    static const char *const flags[] = {"-n", "-c", "-H", "-W", "-k", "-y", "-x", "-p",
                                        "-q", "-u", "-v", "-l", "-j", "-g"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        for (size_t j = 0; j < sizeof values / sizeof values[0]; j++)
            expect_bad_flag(flags[i], values[j], flags[i]);
    expect_bad_flag("-V", "yes", "-V");
    expect_bad_flag("-V", "2", "-V");
    expect_bad_flag("-i", "0", "-i");
    expect_bad_flag("-t", "x", "-t");
    expect_bad_flag("-s", "2", "-s");
    expect_bad_flag("--device", "-1", "--device");
}

static void bad_sizes_too_large(void **state)
{
    (void)state;
    expect_bad_flag("-n", "16777216", "too large");
    expect_bad_flag("-p", "2147483647", "too large");
    /* every size legal on its own, the tensors far past 2^40 elements (and
     * their product past int64: must not overflow) */
    const char *huge[] = {"conv", "-n", "16777215", "-c", "16777215", "-H", "16777215", "-W", "16777215",
                          "-k",   "16777215", "-y", "1", "-x", "1", "-F", "2", NULL};
    expect_usage_error(huge, "too large");
    /* small tensors, padding makes the output and the work enormous */
    const char *work[] = {"conv", "-n", "1", "-c", "1", "-H", "1", "-W", "1", "-k", "1", "-y", "32768", "-x",
                          "32768", "-p", "540000", "-q", "540000", "-F", "2", NULL};
    expect_usage_error(work, "too large");
}

static void bad_output_size(void **state)
{
    (void)state;
    const char *a[] = {"conv", "-n", "1", "-c", "1", "-H", "2", "-W", "2", "-k", "1", "-y", "3", "-x", "3",
                       "-F",   "2",  NULL};
    expect_usage_error(a, "output size");
    /* the dilated filter (span 7) is wider than the padded input (5 + 0) */
    const char *b[] = {"conv", "-n", "1", "-c", "1", "-H", "8", "-W", "5", "-k", "1", "-y", "1", "-x", "3",
                       "-j",   "3",  "-F", "2", NULL};
    expect_usage_error(b, "output size");
}

static void bad_groups(void **state)
{
    (void)state;
    const char *a[] = {"conv", "-n", "1", "-c", "6", "-H", "4", "-W", "4", "-k", "4", "-y", "1", "-x", "1",
                       "-g",   "4",  "-F", "2", NULL}; /* 4 divides k, not c */
    expect_usage_error(a, "groups");
    const char *b[] = {"conv", "-n", "1", "-c", "6", "-H", "4", "-W", "4", "-k", "4", "-y", "1", "-x", "1",
                       "-g",   "3",  "-F", "2", NULL}; /* 3 divides c, not k */
    expect_usage_error(b, "groups");
    expect_bad_flag("-g", "5", "groups");
}

static void bad_arch(void **state)
{
    (void)state;
    expect_bad_flag("--arch", "gfx1100", "gfx1100");
    expect_bad_flag("--arch", "gfx9", "gfx9");
    expect_bad_flag("--arch", "", NULL);
    expect_bad_flag("--backend", "cuda", "cuda");
    expect_bad_flag("--solution", "no_such_kernel", "no_such_kernel");
}

/* Layouts: only NCHW and NHWC, and all three tensors alike. */
static void bad_layouts(void **state)
{
    (void)state;
    expect_bad_flag("--in_layout", "NCWH", "NCHW or NHWC");
    expect_bad_flag("-f", "nhwc", "NCHW or NHWC");
    expect_bad_flag("-O", "NHWC", "mixed layouts");
    expect_bad_flag("--fil_layout", NULL, "needs a value");
}

static void bad_unknown_flags(void **state)
{
    (void)state;
    expect_bad_flag("--bogus", "1", "--bogus");
    expect_bad_flag("-Z", "1", "-Z");
    expect_bad_flag("-nn", "1", "-nn");
    expect_bad_flag("--verifyy", "1", "--verifyy");
    const char *stray[] = {"conv", "-n", "1", "-c", "1", "-H", "1", "-W", "1", "-k", "1", "extra", NULL};
    expect_usage_error(stray, "extra");
    const char *cmd[] = {"convolve", "-n", "1", NULL};
    expect_usage_error(cmd, "convolve");
    const char *er[] = {"emu-run", "--bogus", "1", NULL};
    expect_usage_error(er, "--bogus");
    const char *er2[] = {"emu-run", "--kernel", "k", NULL};
    expect_usage_error(er2, "--co");
}

static void bad_missing_value(void **state)
{
    (void)state;
    static const char *const flags[] = {"-n", "-c", "-H", "-W", "-k", "-y", "-x", "-p", "-q", "-u", "-v",
                                        "-l", "-j", "-g", "-F", "-V", "-t", "-i", "-w", "--arch", "--backend",
                                        "--solution", "--input", "--batch", "--seed", "--threads",
                                        "-s", "--perfdb", "--device", "--codeobj-dir"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        /* the flag as the last word of an otherwise valid command line */
        const char *args[] = {"conv", "-n", "1", "-c", "1", "-H", "1", "-W", "1", "-k", "1", flags[i], NULL};
        expect_usage_error(args, flags[i]);
    }
}

/* Directions without backward data are refused with the reason; values
 * MIOpenDriver does not know are bad usage. (0, 3, 6 run: test_miopen.c) */
static void bad_direction(void **state)
{
    (void)state;
    expect_bad_flag("-F", "1", "-F 1 is forward only");
    expect_bad_flag("-F", "4", "-F 4 is backward weights only");
    expect_bad_flag("--forw", "5", "forward + backward weights");
    static const char *const values[] = {"7", "-2", "x"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        expect_bad_flag("-F", values[i], "-F");
}

static void bad_input_file(void **state)
{
    (void)state;
    const char *missing[] = {"conv", "--input", "/nonexistent/shapes.txt", NULL};
    expect_usage_error(missing, "shapes.txt");
    char path[] = "/tmp/igemm-cli-bad-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *list = "conv -n 1 -c 1 -H 4 -W 4 -k 1 -F 2\n"
                       "conv -n 1 -c 1 -H 4 -W 4 -k 1 -y 0 -F 2\n";
    assert_true(write(fd, list, strlen(list)) == (ssize_t)strlen(list));
    close(fd);
    const char *bad[] = {"conv", "--input", path, "-V", "1", NULL};
    expect_usage_error(bad, ":2:"); /* names the line */
    const char *mixed[] = {"conv", "--input", path, "-n", "2", NULL};
    expect_usage_error(mixed, "--input");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conv_verify_passes_on_every_target),
        cmocka_unit_test(conv_verify_strided_grouped),
        cmocka_unit_test(conv_verify_nhwc),
        cmocka_unit_test(conv_without_verify_reports_no_check),
        cmocka_unit_test(conv_json_report),
        cmocka_unit_test(conv_input_list),
        cmocka_unit_test(bad_sizes_negative_or_zero),
        cmocka_unit_test(bad_sizes_not_numbers),
        cmocka_unit_test(bad_sizes_too_large),
        cmocka_unit_test(bad_output_size),
        cmocka_unit_test(bad_groups),
        cmocka_unit_test(bad_arch),
        cmocka_unit_test(bad_layouts),
        cmocka_unit_test(bad_unknown_flags),
        cmocka_unit_test(bad_missing_value),
        cmocka_unit_test(bad_direction),
        cmocka_unit_test(bad_input_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
