/* The CLI's 16-bit commands as MIOpenDriver spells them: `igemm convfp16`
 * and `igemm convbfp16` take conv's flags. Where the library has a kernel
 * configuration of the type the run verifies (-V 1) by the 16-bit rule,
 * which the report states; where it has none the command fails with one
 * line naming the type and each configuration's reason. Bad --fp16_mode
 * values are usage errors; shape lists carry the type in their command
 * word; the JSON report and the manifest name the data types. */
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

static const char *const archs[] = {TC_ARCH_LIST};
static const char *const commands[] = {"convfp16", "convbfp16"}, *const types[] = {"fp16", "bf16"};

/* Does the library have a configuration for that type (its name says it)? */
static int have_kernels(const char *type)
{
    for (int i = 0; i < igemm_solution_count(); i++)
        if (strstr(igemm_solution_name(i), type))
            return 1;
    return 0;
}

static void expect_usage_error(const char *const *args, const char *needle)
{
    tc_result r;
    tc_run_igemm(&r, args);
    if (r.status != 2 || !tc_one_line(r.err) || strncmp(r.err, "igemm: ", 7) || *r.out)
        fail_msg("%s: want exit 2 and one 'igemm: ' line on stderr only, got %d, stdout '%s', stderr '%s'", r.cmd,
                 r.status, r.out, r.err);
    tc_expect_contains(r.err, needle);
    tc_result_free(&r);
}

static void sixteen_bit_commands(void **state)
{
    (void)state;
    for (int a = 0; a < 4; a++)
        for (int t = 0; t < 2; t++) {
            const char *args[] = {commands[t], "-n", "2", "-c", "3", "-H", "5", "-W", "7", "-k", "5", "-y", "3",
                                  "-x", "3", "-p", "1", "-q", "1", "-F", "2", "-V", "1", "--arch", archs[a], NULL};
            tc_result r;
            tc_run_igemm(&r, args);
            char want[256];
            if (have_kernels(types[t])) {
                snprintf(want, sizeof want, "rule: |dx - ref| <= half a%s %s ulp of ref + 1e-5 * sum|terms|",
                         t ? "" : "n", types[t]);
                if (r.status != 0 || !strstr(r.out, ": PASS") || !strstr(r.out, want))
                    fail_msg("%s: exit %d, stdout %s, stderr %s", r.cmd, r.status, r.out, r.err);
                snprintf(want, sizeof want, "%s -n 2 -c 3 -H 5 -W 7", commands[t]);
                tc_expect_contains(r.out, want);
            } else {
                snprintf(want, sizeof want, "no kernel configuration applies on %s to %s -n 2 -c 3 -H 5 -W 7",
                         archs[a], commands[t]);
                if (r.status != 2 || *r.out)
                    fail_msg("%s: exit %d (want 2), stdout %s", r.cmd, r.status, r.out);
                tc_expect_contains(r.err, want);
                /* configurations of other types are not candidates: none is of this type */
                snprintf(want, sizeof want, "none is written for NCHW %s tensors", types[t]);
                tc_expect_contains(r.err, want);
                /* one line for the refusal besides the seed note */
                const char *line = strstr(r.err, "igemm: no kernel configuration applies");
                assert_non_null(line);
                assert_true(tc_one_line(line));
            }
            tc_result_free(&r);
        }
}

/* The fp32 report states its rule too, and --json carries the type and the rule. */
static void reports_name_type_and_rule(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                          "-F", "2", "-V", "1", NULL};
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "PASS (rule: |dx - ref| <= 1e-5 * sum|terms|, uncovered pixels 0, no NaN)");
    tc_result_free(&r);
    const char *json[] = {"conv", "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                          "-F", "2", "-V", "1", "--json", NULL};
    tc_run_igemm(&r, json);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "\"dtype\": \"fp32\"");
    tc_expect_contains(r.out, "\"verify_rule\": \"|dx - ref| <= 1e-5 * sum|terms|");
    tc_result_free(&r);
    for (int t = 0; t < 2; t++) {
        if (!have_kernels(types[t]))
            continue;
        const char *j16[] = {commands[t], "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                             "-F", "2", "-V", "1", "--json", "--arch", "gfx942", NULL};
        tc_run_igemm(&r, j16);
        assert_int_equal(r.status, 0);
        char want[64];
        snprintf(want, sizeof want, "\"dtype\": \"%s\"", types[t]);
        tc_expect_contains(r.out, want);
        tc_result_free(&r);
    }
}

static void bad_fp16_mode(void **state)
{
    (void)state;
    const char *fast[] = {"convfp16", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-F", "2",
                          "--fp16_mode", "fast", NULL};
    expect_usage_error(fast, "'--fp16_mode' needs accurate, flush or alt, got 'fast'");
    const char *none[] = {"convfp16", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "--fp16_mode", NULL};
    expect_usage_error(none, "--fp16_mode");
    const char *bf[] = {"convbfp16", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-F", "2",
                        "--fp16_mode", "flush", NULL};
    expect_usage_error(bf, "fp16_mode flush applies to fp16 problems, this one is bf16");
    const char *f32[] = {"conv", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-F", "2",
                         "--fp16_mode", "flush", NULL};
    expect_usage_error(f32, "this one is fp32");
    const char *bfalt[] = {"convbfp16", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-F", "2",
                           "--fp16_mode", "alt", NULL};
    expect_usage_error(bfalt, "fp16_mode alt applies to fp16 problems, this one is bf16");
}

/* Shape lists: lines start with conv, convfp16 or convbfp16; `igemm conv
 * --input` runs each in its type, `igemm convbfp16 --input` all in bf16. */
static void shape_list_types(void **state)
{
    (void)state;
    char path[] = "/tmp/igemm-cli16-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *list = "conv -n 1 -c 2 -H 4 -W 4 -k 2 -F 2\n"
                       "convfp16 -n 1 -c 2 -H 5 -W 5 -k 2 -F 2  # fp16\n";
    assert_true(write(fd, list, strlen(list)) == (ssize_t)strlen(list));
    close(fd);
    tc_result r;
    const char *as_written[] = {"conv", "--input", path, "-V", "1", NULL};
    tc_run_igemm(&r, as_written);
    tc_expect_contains(r.out, "conv -n 1 -c 2 -H 4 -W 4");
    if (have_kernels("fp16")) {
        assert_int_equal(r.status, 0);
        tc_expect_contains(r.out, "convfp16 -n 1 -c 2 -H 5 -W 5");
    } else {
        assert_int_equal(r.status, 2);
        tc_expect_contains(r.err, "to convfp16 -n 1 -c 2 -H 5 -W 5");
        tc_expect_contains(r.out, "1 of 2 problems passed");
    }
    tc_result_free(&r);
    const char *all_bf16[] = {"convbfp16", "--input", path, NULL};
    tc_run_igemm(&r, all_bf16);
    if (have_kernels("bf16")) {
        assert_int_equal(r.status, 0);
    } else {
        assert_int_equal(r.status, 2);
        tc_expect_contains(r.err, "to convbfp16 -n 1 -c 2 -H 4 -W 4");
        tc_expect_contains(r.err, "to convbfp16 -n 1 -c 2 -H 5 -W 5");
        tc_expect_contains(r.out, "0 of 2 problems ran");
    }
    tc_result_free(&r);
    unlink(path);
    /* a line with another command word names it */
    char bad[] = "/tmp/igemm-cli16-XXXXXX";
    fd = mkstemp(bad);
    assert_true(fd >= 0);
    const char *word = "convfp32 -n 1 -c 2 -H 4 -W 4 -k 2 -F 2\n";
    assert_true(write(fd, word, strlen(word)) == (ssize_t)strlen(word));
    close(fd);
    const char *read_bad[] = {"conv", "--input", bad, NULL};
    expect_usage_error(read_bad, "expected a line starting with 'conv', 'convfp16' or 'convbfp16', got 'convfp32'");
    unlink(bad);
}

static void manifest_names_types(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"manifest", NULL};
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "\"dtypes\": \"fp32, fp16, bf16");
    tc_expect_contains(r.out, "\"fp16_modes\": \"accurate (default), flush");
    tc_expect_contains(r.out, "alt (MIOpen's alternate implementation");
    tc_result_free(&r);
}

/* igemm plan convfp16 / convbfp16: the plan of the 16-bit problem, its JSON
 * naming the dtype and the tensors' bytes at 2 an element (dx 1x8x6x6,
 * dy 1x8x6x6 with padding 1, w 8x8x3x3), its kernels of that type. */
static void plan_16bit(void **state)
{
    (void)state;
    static const struct {
        const char *cmd, *arch, *dtype, *kern;
    } cases[] = {{"convfp16", "gfx90a", "fp16", "_fp16_"}, {"convbfp16", "gfx906", "bf16", "_bf16_"},
                 {"convfp16", "gfx942", "fp16", "_fp16_"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_result r;
        const char *args[] = {"plan", cases[i].cmd, "-n", "1", "-c", "8", "-H", "6", "-W", "6", "-k", "8", "-y", "3",
                              "-x", "3", "-p", "1", "-q", "1", "-F", "2", "--arch", cases[i].arch, "--json", NULL};
        tc_run_igemm(&r, args);
        if (r.status != 0)
            fail_msg("%s: exit %d: %s", r.cmd, r.status, r.err);
        char want[256];
        snprintf(want, sizeof want, "\"problem\": \"%s -n 1 -c 8 -H 6 -W 6 -k 8 -y 3 -x 3 -p 1 -q 1 ", cases[i].cmd);
        tc_expect_contains(r.out, want);
        snprintf(want, sizeof want, "\"dtype\": \"%s\"", cases[i].dtype);
        tc_expect_contains(r.out, want);
        snprintf(want, sizeof want, "\"tensor_bytes\": {\"dx\": %d, \"dy\": %d, \"w\": %d, \"ws\": 0}", 8 * 36 * 2,
                 8 * 36 * 2, 8 * 8 * 9 * 2);
        tc_expect_contains(r.out, want);
        const char *k = strstr(r.out, "\"kernel\": \"");
        assert_non_null(k);
        char kname[128];
        assert_int_equal(sscanf(k + strlen("\"kernel\": \""), "%127[^\"]", kname), 1);
        if (!strstr(kname, cases[i].kern) && strcmp(kname, "igemm_bwd_zero_fill"))
            fail_msg("%s: kernel %s is not %s", r.cmd, kname, cases[i].dtype);
        tc_result_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sixteen_bit_commands), cmocka_unit_test(reports_name_type_and_rule),
        cmocka_unit_test(bad_fp16_mode),        cmocka_unit_test(shape_list_types),
        cmocka_unit_test(manifest_names_types), cmocka_unit_test(plan_16bit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
