/* igemm as a MIOpenDriver drop-in: command lines pasted from
 * MIOPEN_ENABLE_LOGGING_CMD=1 logs (several directions and types), every
 * long option name, MIOpenDriver's output lines (algorithm/solution, kernel
 * time, stats, verify sentence) with their values recomputed here from the
 * problem and from our own report, shape lists of mixed directions,
 * refusals with a reason, `igemm solutions`, --version, an unwritable perfdb.
 *
 * Expected values are computed in this file: the stats line from
 * MIOpenDriver's formulas (driver/conv_driver.hpp, PrintBackwardDataTime)
 * applied to the problem's sizes, the time from the modeled time of our own
 * report line, the solution number from `igemm solutions`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static void expect_status(const tc_result *r, int status)
{
    if (r->status != status)
        fail_msg("%s: exit status %d, expected %d; stdout: %s; stderr: %s", r->cmd, r->status, status, r->out, r->err);
}

/* The line of text that starts with prefix (copied into line); fails the test when none. */
static void line_starting(const char *text, const char *prefix, char *line, size_t len)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix))) {
            size_t n = strcspn(p, "\n");
            snprintf(line, len, "%.*s", (int)(n < len ? n : len - 1), p);
            return;
        }
    fail_msg("no line starting with '%s' in: %s", prefix, text);
}

/* A logged fp32 line, pasted: our report, then MIOpenDriver's lines with
 * the values MIOpenDriver's formulas give. */
static void pasted_line_prints_miopen_lines(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"./bin/MIOpenDriver", "conv", "-n", "2", "-c", "8", "-H", "9", "-W", "7", "-k", "6",
                          "-y", "3", "-x", "3", "-p", "1", "-q", "1", "-u", "2", "-v", "2", "-l", "1", "-j", "1",
                          "-m", "conv", "-g", "2", "-F", "2", "-t", "1", "-V", "1", "-i", "3", "--arch", "gfx908",
                          NULL};
    tc_run_igemm(&r, args);
    expect_status(&r, 0);
    char line[512], name[128];
    line_starting(r.out, "  solution ", line, sizeof line);
    assert_int_equal(sscanf(line, "  solution %127s", name), 1);
    /* algorithm and solution: 5 (implicit GEMM) or 1 (direct, the naive kernel) */
    char want[512];
    /* the solution id: MIOpen's of the solver family (ConvDirectNaiveConvBwd 86,
       ConvAsmImplicitGemmV4R1DynamicBwd 65, ConvAsmImplicitGemmGTCDynamicBwdXdlops 82) */
    int id = !strcmp(name, "naive") ? 86 : strstr(name, "_mfma_") ? 82 : 65;
    snprintf(want, sizeof want, "MIOpen Backward Data Conv. Algorithm: %d, Solution: %d/%s",
             strcmp(name, "naive") ? 5 : 1, id, name);
    line_starting(r.out, "MIOpen Backward Data Conv. ", line, sizeof line);
    assert_string_equal(line, want);
    /* the time: our modeled time in ms, MIOpenDriver's %f */
    line_starting(r.out, "  modeled time: ", line, sizeof line);
    double us = atof(line + strlen("  modeled time: "));
    assert_true(us > 0);
    line_starting(r.out, "Modeled Kernel Time Backward Data Conv. Elapsed: ", line, sizeof line);
    double ms = atof(line + strlen("Modeled Kernel Time Backward Data Conv. Elapsed: "));
    assert_true(ms > 0 && (ms * 1e3 - us) * (ms * 1e3 - us) < 1e-6 * us * us + 1e-6);
    assert_non_null(strstr(line, " ms (average; timing model of gfx908, not measured)"));
    /* stats: n 2, c 8, y x 3, k 6, ho = (9 + 2 - 3) / 2 + 1 = 5, wo = (7 + 2 - 3) / 2 + 1 = 4, g 2 */
    long flop = 2L * 2 * 8 * 3 * 3 * 6 * 5 * 4 / 2; /* 17280 */
    long rd = 2L * 8 * 6 * 4 + 6L * (8 / 2) * 3 * 3 * 4, wr = 2L * 6 * 5 * 4 * 4;
    char num[64];
    line_starting(r.out, "stats: bwdd", line, sizeof line);
    snprintf(num, sizeof num, "%f", atof(strrchr(line, ',') + 1)); /* the time as printed */
    double t = atof(num);
    snprintf(want, sizeof want, "stats: bwdd-conv3x3u2, 2, 8, 5, 4, 3, 3, 6, %ld, %ld, %ld, %.0f, %.0f, %f", flop, rd,
             wr, (double)flop / t / 1e6, (double)(rd + wr) / t / 1e6, t);
    assert_string_equal(line, want);
    snprintf(num, sizeof num, "%f", ms);
    assert_non_null(strstr(line, num)); /* the same time as the kernel time line */
    tc_expect_contains(r.out, "stats: name, n, c, ho, wo, y, x, k, flopCnt, bytesRead, bytesWritten, GFLOPs, GB/s, "
                              "timeMs\n");
    /* verify: ours and MIOpenDriver's sentence, tolerance 1.5e-6 (x10 for implicit GEMM) */
    tc_expect_contains(r.out, ": PASS (rule: ");
    line_starting(r.out, "Backward Convolution Data Verifies OK on CPU reference (", line, sizeof line);
    double err = atof(line + strlen("Backward Convolution Data Verifies OK on CPU reference ("));
    assert_true(err >= 0 && err < 1e-6);
    assert_non_null(strstr(line, strcmp(name, "naive") ? " < 1.5e-05)" : " < 1.5e-06)"));
    tc_result_free(&r);
}

/* Without -t 1 MIOpenDriver prints no time lines, and neither do we. */
static void no_time_lines_without_t(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"MIOpenDriver", "conv", "-n", "1", "-c", "4", "-H", "5", "-W", "5", "-k", "4", "-y", "3",
                          "-x", "3", "-F", "2", "-V", "0", NULL};
    tc_run_igemm(&r, args);
    expect_status(&r, 0);
    assert_null(strstr(r.out, "stats:"));
    assert_null(strstr(r.out, "Kernel Time"));
    assert_null(strstr(r.out, "Verifies"));
    tc_result_free(&r);
}

/* Every long name of MIOpenDriver that applies, and the ones with no effect. */
static void long_names(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "--batchsize", "2", "--in_channels", "4", "--in_h", "6", "--in_w", "5",
                          "--out_channels", "6", "--fil_h", "3", "--fil_w", "2", "--pad_h", "1", "--pad_w", "1",
                          "--conv_stride_h", "2", "--conv_stride_w", "1", "--dilation_h", "1", "--dilation_w", "2",
                          "--group_count", "2", "--forw", "2", "--verify", "1", "--time", "1", "--iter", "2",
                          "--mode", "conv", "--spatial_dim", "2", "--in_layout", "NHWC", "--out_layout", "NHWC",
                          "--fil_layout", "NHWC", "--bias", "0", "--pad_mode", "default", "--printconv", "1",
                          "--search", "0", "--wall", "1", NULL};
    tc_run_igemm(&r, args);
    expect_status(&r, 0);
    tc_expect_contains(r.out, "conv -n 2 -c 4 -H 6 -W 5 -k 6 -y 3 -x 2 -p 1 -q 1 -u 2 -v 1 -l 1 -j 2 -g 2");
    tc_expect_contains(r.out, "_nhwc_");
    tc_expect_contains(r.out, "Verifies OK");
    tc_expect_contains(r.out, "Wall-clock Time Backward Data Conv. Elapsed: ");
    tc_result_free(&r);
    /* the rest: no effect here, or their defaults */
    const char *rest[] = {"conv", "--batchsize", "1", "--in_channels", "2", "--in_h", "4", "--in_w", "4",
                          "--out_channels", "2", "--fil_h", "1", "--fil_w", "1", "--solution", "-1", "--gpualloc",
                          "0", "--dump_output", "0", "--in_d", "32", "--fil_d", "3", "--pad_val", "0",
                          "--verification_cache", "/tmp", "--in_data", "x.bin", "--conv_stride_0", "1",
                          "--vector_length", "1", "--in_cast_type", "-1", "-V", "1", NULL};
    tc_run_igemm(&r, rest);
    expect_status(&r, 0);
    tc_expect_contains(r.out, "Verifies OK");
    tc_result_free(&r);
}

/* Logged 16-bit lines parse; the library has no 16-bit kernel configuration
 * yet, so they are refused with the type named (one line, exit 2). */
static void logged_16bit_lines(void **state)
{
    (void)state;
    static const char *const cmds[] = {"convfp16", "convbfp16"};
    for (int i = 0; i < 2; i++) {
        tc_result r;
        const char *args[] = {"./bin/MIOpenDriver", cmds[i], "-n", "1", "-c", "8", "-H", "6", "-W", "6", "-k", "8",
                              "-y", "3", "-x", "3", "-p", "1", "-q", "1", "-u", "1", "-v", "1", "-l", "1", "-j", "1",
                              "-m", "conv", "-g", "1", "-F", "2", "-t", "1", "--arch", "gfx90a", NULL};
        tc_run_igemm(&r, args);
        if (r.status == 0) { /* once 16-bit kernels exist they run: the lines are there */
            tc_expect_contains(r.out, "stats: bwdd-conv3x3u1, 1, 8, 6, 6, 3, 3, 8,");
        } else {
            expect_status(&r, 2);
            assert_true(tc_one_line(r.err) || strstr(r.err, "igemm note: "));
            tc_expect_contains(r.err, cmds[i]);
            tc_expect_contains(r.err, "no kernel configuration applies");
        }
        tc_result_free(&r);
    }
}

/* -F 0 (every direction) runs its backward-data part, with a note. */
static void forw_all_runs_bwd_part(void **state)
{
    (void)state;
    static const char *const forw[] = {"0", "3", "6"};
    for (int i = 0; i < 3; i++) {
        tc_result r;
        const char *args[] = {"conv", "-n", "1", "-c", "3", "-H", "5", "-W", "5", "-k", "2", "-y", "3", "-x", "3",
                              "-F", forw[i], "-V", "1", NULL};
        tc_run_igemm(&r, args);
        expect_status(&r, 0);
        tc_expect_contains(r.out, "-F 2  (");
        tc_expect_contains(r.err, "igemm note: -F ");
        tc_expect_contains(r.err, "running its backward-data part");
        tc_result_free(&r);
    }
}

/* Values this project cannot do: one line naming why, exit 2. */
static void refusals(void **state)
{
    (void)state;
    static const char *const bad[][3] = {
        {"-m", "trans", "transposed"},         {"--spatial_dim", "3", "2-D"},
        {"-b", "2", "-b"},                     {"-z", "same", "padding mode"},
        {"--in_layout", "NCDHW", "NCHW or NHWC"}, {"-e", "w.bin", "random data"},
        {"-S", "99999", "MIOpen has no backward-data solver"}, {"-S", "bogus", "igemm solutions"},
        {"--math_type", "2", "--math_type"},   {"--gpubuffer_check", "3", "--gpubuffer_check"},
        {"-w", "3", "-w"},                     {"--tensor_vect", "1", "vectorization"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_result r;
        const char *args[] = {"MIOpenDriver", "conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-y",
                              "1", "-x", "1", bad[i][0], bad[i][1], NULL};
        tc_run_igemm(&r, args);
        expect_status(&r, 2);
        if (!tc_one_line(r.err) || strncmp(r.err, "igemm: ", 7) || !strstr(r.err, bad[i][2]))
            fail_msg("%s: stderr '%s' is not one line naming '%s'", r.cmd, r.err, bad[i][2]);
        assert_string_equal(r.out, "");
        tc_result_free(&r);
    }
}

/* A shape list as MIOpen logs it: log prefixes, every direction, several
 * types; other directions are skipped with a note, the run goes on, the
 * summary counts both. */
static void mixed_direction_list(void **state)
{
    (void)state;
    char path[] = "/tmp/igemm-miopen-list-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *list =
        "# captured with MIOPEN_ENABLE_LOGGING_CMD=1\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 8 -H 6 -W 6 -k 4 -y 3 -x 3 "
        "-p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 8 -H 6 -W 6 -k 4 -y 3 -x 3 "
        "-p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 2 -t 1\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 8 -H 6 -W 6 -k 4 -y 3 -x 3 "
        "-p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 4 -t 1\n"
        "./bin/MIOpenDriver convfp16 -n 1 -c 8 -H 6 -W 6 -k 4 -y 1 -x 1 -F 1\n"
        "MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 1 -x 1 -u 2 -v 2 -g 2 -F 0\n";
    assert_true(write(fd, list, strlen(list)) == (ssize_t)strlen(list));
    close(fd);
    tc_result r;
    const char *args[] = {"conv", "--input", path, "-V", "1", NULL};
    tc_run_igemm(&r, args);
    unlink(path);
    expect_status(&r, 0);
    tc_expect_contains(r.out, "2 of 2 problems passed, 3 skipped (other directions than backward data)\n");
    tc_expect_contains(r.out, "conv -n 1 -c 8 -H 6 -W 6 -k 4 -y 3 -x 3 -p 1 -q 1");
    tc_expect_contains(r.out, "conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2");
    char note[128];
    snprintf(note, sizeof note, "igemm note: %s:2: skipped: -F 1 is forward only", path);
    tc_expect_contains(r.err, note);
    snprintf(note, sizeof note, "igemm note: %s:4: skipped: -F 4 is backward weights only", path);
    tc_expect_contains(r.err, note);
    snprintf(note, sizeof note, "igemm note: %s:5: skipped: -F 1", path);
    tc_expect_contains(r.err, note);
    tc_result_free(&r);
}

/* Decode a v4r1 name "igemm_bwd_v4r1_MATH_TYPE_LAYOUT_MxNxK_tT[...]" and
 * check the columns of its `igemm solutions` row against it. */
static void check_row(const char *row, const char *name)
{
    char math[8], type[8], lay[8], tile[32], threads[8];
    static const char *const naive[][2] = {{"naive", "fp32"}, {"naive_fp16", "fp16"}, {"naive_bf16", "bf16"}};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, naive[i][0])) {
            char want[64];
            snprintf(want, sizeof want, " naive fma  %s  nchw  -", naive[i][1]);
            if (!strstr(row, want))
                fail_msg("row '%s' does not say '%s'", row, want);
            return;
        }
    assert_int_equal(sscanf(name, "igemm_bwd_v4r1_%7[^_]_%7[^_]_%7[^_]_%31[^_]_t%7[0-9]", math, type, lay, tile,
                            threads),
                     5);
    char want[128];
    if (!strcmp(type, "fp16alt")) /* fp16 tensors staged as bf16 (--fp16_mode alt): the type column is fp16 */
        snprintf(type, sizeof type, "fp16");
    snprintf(want, sizeof want, " v4r1  %-4s %-5s %-5s %-10s %-7s ", math, type, lay, tile, threads);
    if (!strstr(row, want))
        fail_msg("row '%s' does not say '%s'", row, want);
}

/* `igemm solutions` and `conv --solution list` name every configuration the
 * library knows, numbered from 1 in the library's order, with its columns;
 * --solution NAME runs that one. */
static void solution_list(void **state)
{
    (void)state;
    const char *a1[] = {"solutions", NULL}, *a2[] = {"conv", "--solution", "list", NULL};
    tc_result r1, r2;
    tc_run_igemm(&r1, a1);
    tc_run_igemm(&r2, a2);
    expect_status(&r1, 0);
    expect_status(&r2, 0);
    assert_string_equal(r1.out, r2.out);
    int n = igemm_solution_count();
    assert_true(n > 1);
    for (int i = 0; i < n; i++) {
        char key[160], row[512];
        snprintf(key, sizeof key, "%3d  %s ", i + 1, igemm_solution_name(i));
        line_starting(r1.out, key, row, sizeof row);
        check_row(row, igemm_solution_name(i));
    }
    tc_result_free(&r1);
    tc_result_free(&r2);
    /* --solution NAME: that configuration */
    tc_result r;
    const char *a3[] = {"conv", "-n", "1", "-c", "4", "-H", "5", "-W", "5", "-k", "4", "-y", "3", "-x", "3",
                        "--solution", igemm_solution_name(1), NULL};
    tc_run_igemm(&r, a3);
    expect_status(&r, 0);
    char want[160];
    snprintf(want, sizeof want, "  solution %s (user)", igemm_solution_name(1));
    tc_expect_contains(r.out, want);
    tc_result_free(&r);
}

static void version_and_wall_note(void **state)
{
    (void)state;
    tc_result r;
    const char *a1[] = {"--version", NULL};
    tc_run_igemm(&r, a1);
    expect_status(&r, 0);
    assert_string_equal(r.out, "igemm " IGEMM_VERSION " (library " IGEMM_VERSION ")\n");
    tc_result_free(&r);
    /* -w 1 without -t 1: MIOpenDriver's note, as a note; --warmup runs */
    const char *a2[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-y", "1", "-x", "1",
                        "-w", "1", "--warmup", "1", NULL};
    tc_run_igemm(&r, a2);
    expect_status(&r, 0);
    tc_expect_contains(r.err, "igemm note: '--wall 1' is ignored because '--time' is not set\n");
    assert_null(strstr(r.out, "Wall-clock"));
    tc_result_free(&r);
}

/* Find with a perfdb that cannot be written: the results stand (printed,
 * the best runs), a warning says the file was not written, and the exit
 * status is 1 (issue 25: it was 0, as if the results were saved). */
static void unwritable_perfdb_keeps_results(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "4", "-H", "5", "-W", "5", "-k", "4", "-y", "3", "-x", "3",
                          "-s", "1", "--perfdb", "/nonexistent-dir/igemm.db", "-V", "1", NULL};
    tc_run_igemm(&r, args);
    expect_status(&r, 1);
    tc_expect_contains(r.out, "(best)");
    tc_expect_contains(r.out, "best kept for this run only (could not write /nonexistent-dir/igemm.db)");
    tc_expect_contains(r.out, ": PASS");
    tc_expect_contains(r.err, "igemm: warning: find results not saved: ");
    tc_result_free(&r);
}

/* The lines of stderr that start with "igemm note: " and hold key. */
static int notes_with(const char *err, const char *key)
{
    int n = 0;
    for (const char *p = err; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t len = strcspn(p, "\n");
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        if (!strncmp(line, "igemm note: ", 12) && strstr(line, key))
            n++;
    }
    return n;
}

/* Today's MIOpenDriver (MIOpen 3.5): the five flags it added, -b 1 on a
 * backward-data run, an environment prefix and MIOpenDriver.exe, long
 * names; each noted flag once on stderr, the run goes on; the stats line
 * in today's column order (n, c, ho, wo, y, x, k) with values from the
 * problem: n 2, c 6, H 7 W 9, k 4, y 3 x 1, p 1 q 0, u 2 v 1:
 * ho = (7 + 2 - 3) / 2 + 1 = 4, wo = (9 - 1) / 1 + 1 = 9. */
static void todays_driver_line(void **state)
{
    (void)state;
    tc_result r;
    const char *args[] = {"MIOPEN_FIND_MODE=1", "MIOPEN_LOG_LEVEL=6", "MIOpenDriver.exe", "conv", "--batchsize", "2",
                          "--in_channels", "6", "--in_h", "7", "--in_w", "9", "--out_channels", "4", "--fil_h", "3",
                          "--fil_w", "1", "--pad_h", "1", "--pad_w", "0", "--conv_stride_h", "2",
                          "--conv_stride_w", "1", "-F", "2", "-t", "1", "-V", "1", "-b", "1",
                          "--gpubuffer_check", "1", "--init_output_nan", "1", "--tuning_policy", "3",
                          "--math_type", "0", "--use_hip_graph", "1", NULL};
    tc_run_igemm(&r, args);
    expect_status(&r, 0);
    static const char *const noted[] = {"'-b 1'", "'--gpubuffer_check 1'", "'--tuning_policy 3'", "'--math_type 0'",
                                        "'--use_hip_graph 1'"};
    for (size_t i = 0; i < sizeof noted / sizeof noted[0]; i++)
        if (notes_with(r.err, noted[i]) != 1)
            fail_msg("%s: no single note for %s in: %s", r.cmd, noted[i], r.err);
    assert_int_equal(notes_with(r.err, "init_output_nan"), 0); /* igemm always fills dx with NaN */
    tc_expect_contains(r.out, "stats: name, n, c, ho, wo, y, x, k, flopCnt, bytesRead, bytesWritten, GFLOPs, GB/s, "
                              "timeMs\n");
    char line[512];
    line_starting(r.out, "stats: bwdd", line, sizeof line);
    long flop = 2L * 2 * 6 * 3 * 1 * 4 * 4 * 9, rd = 2L * 6 * 4 * 4 + 4L * 6 * 3 * 1 * 4, wr = 2L * 4 * 4 * 9 * 4;
    char want[512];
    snprintf(want, sizeof want, "stats: bwdd-conv3x1u2, 2, 6, 4, 9, 3, 1, 4, %ld, %ld, %ld, ", flop, rd, wr);
    if (strncmp(line, want, strlen(want)))
        fail_msg("stats line '%s' does not start '%s'", line, want);
    tc_expect_contains(r.out, "Verifies OK");
    tc_result_free(&r);
    /* the default values need no note */
    const char *quiet[] = {"conv", "-n", "1", "-c", "2", "-H", "3", "-W", "3", "-k", "2", "-y", "1", "-x", "1",
                           "-b", "0", "--math_type", "1", "--gpubuffer_check", "0", "--use_hip_graph", "0", NULL};
    tc_run_igemm(&r, quiet);
    expect_status(&r, 0);
    assert_int_equal(notes_with(r.err, "ignored"), 0);
    tc_result_free(&r);
}

/* -S is a MIOpen solver id or name: 86 (ConvDirectNaiveConvBwd) runs our
 * naive kernel, 65 (ConvAsmImplicitGemmV4R1DynamicBwd) an fma v4r1
 * configuration, 82 (ConvAsmImplicitGemmGTCDynamicBwdXdlops) an mfma one on
 * gfx908; 97 (GemmBwdRest) has no counterpart: one note, our selection. */
static void miopen_solver_ids(void **state)
{
    (void)state;
    static const struct {
        const char *s, *arch, *want, *note;
    } cases[] = {
        {"86", "gfx906", "  solution naive (user)", "ConvDirectNaiveConvBwd"},
        {"ConvDirectNaiveConvBwd", "gfx906", "  solution naive (user)", "ConvDirectNaiveConvBwd"},
        {"65", "gfx906", "  solution igemm_bwd_v4r1_fma_fp32_nchw_", "ConvAsmImplicitGemmV4R1DynamicBwd"},
        {"82", "gfx908", "  solution igemm_bwd_v4r1_mfma_fp32_nchw_", "ConvAsmImplicitGemmGTCDynamicBwdXdlops"},
        {"97", "gfx906", "(heuristic)", "has no counterpart here: our selection is used"},
        {"-1", "gfx906", "(heuristic)", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_result r;
        const char *args[] = {"./bin/MIOpenDriver", "conv", "-n", "1", "-c", "16", "-H", "6", "-W", "6", "-k", "16",
                              "-y", "3", "-x", "3", "-p", "1", "-q", "1", "-F", "2", "-S", cases[i].s, "-V", "1",
                              "--arch", cases[i].arch, NULL};
        tc_run_igemm(&r, args);
        expect_status(&r, 0);
        tc_expect_contains(r.out, cases[i].want);
        tc_expect_contains(r.out, "Verifies OK");
        if (cases[i].note && notes_with(r.err, cases[i].note) != 1)
            fail_msg("%s: no single note naming '%s' in: %s", r.cmd, cases[i].note, r.err);
        if (!cases[i].note)
            assert_int_equal(notes_with(r.err, "-S "), 0);
        tc_result_free(&r);
    }
}

/* A raw MIOpen log, as MIOPEN_ENABLE_LOGGING_CMD=1 writes it into a
 * program's output: Info lines, the program's own text, a quoted line with
 * an environment prefix and MIOpenDriver.exe, another operation, a
 * transposed convolution (skipped with the reason), other directions, and
 * one problem three times (-F 2 twice, -F 0 once): run once, counted. */
static void raw_log_with_repeats(void **state)
{
    (void)state;
    char path[] = "/tmp/igemm_rawlog_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] =
        "MIOpen(HIP): Info [get_device_name] Raw device name: gfx906\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 "
        "-q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 1 -t 1\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 "
        "-q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 2 -t 1\n"
        "MIOpen(HIP): Info [FindSolutionImpl] Perf Db: record not found\n"
        "epoch 1: loss 0.25\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 "
        "-q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 2 -t 1\n"
        "\"MIOPEN_FIND_MODE=1 MIOpenDriver.exe convfp16 -n 1 -c 4 -H 5 -W 5 -k 4 -y 1 -x 1 -F 2\"\n"
        "MIOpen(HIP): Command [LogCmdBNorm] ./bin/MIOpenDriver bnorm -n 1 -c 4 -H 5 -W 5 -m 1\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -m "
        "trans -F 2\n"
        "MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 "
        "-q 1 -u 1 -v 1 -l 1 -j 1 -m conv -g 1 -F 0 -t 1\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    tc_result r;
    const char *args[] = {"conv", "--input", path, "-V", "1", NULL};
    tc_run_igemm(&r, args);
    unlink(path);
    expect_status(&r, 0);
    /* two distinct problems, each reported once */
    const char *first = strstr(r.out, "conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 -q 1 ");
    assert_non_null(first);
    assert_null(strstr(first + 1, "conv -n 1 -c 4 -H 5 -W 5 -k 4 -y 3 -x 3 -p 1 -q 1 "));
    tc_expect_contains(r.out, "convfp16 -n 1 -c 4 -H 5 -W 5 -k 4 -y 1 -x 1 ");
    tc_expect_contains(r.out, "has this problem 3 times: run once\n");
    tc_expect_contains(r.out, "2 of 2 problems passed, 1 skipped (other directions than backward data), 1 skipped "
                              "(commands igemm cannot run: see the notes)\n");
    tc_expect_contains(r.err, "4 command lines, 2 distinct problems (each run once), 4 other lines left out");
    tc_expect_contains(r.err, ":9: skipped: flag '-m trans'");
    tc_result_free(&r);
}

/* Find mode's progress (--progress): one line per configuration it times,
 * numbered up to the count the report gives, with the time left from the
 * second on; -i 3 on the emulator runs once and says so; with
 * IGEMM_ENABLE_LOGGING_CMD=1 the library logs each call's command line,
 * and IGEMM_USER_DB_PATH gives the default perf-db that find writes. */
static void progress_iterations_env(void **state)
{
    (void)state;
    char dir[] = "/tmp/igemm_udb_XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("IGEMM_ENABLE_LOGGING_CMD", "1", 1);
    setenv("IGEMM_USER_DB_PATH", dir, 1);
    tc_result r;
    const char *args[] = {"conv", "-n", "1", "-c", "8", "-H", "5", "-W", "5", "-k", "8", "-y", "3", "-x", "3",
                          "-s", "1", "--progress", "-i", "3", "-t", "1", NULL};
    tc_run_igemm(&r, args);
    unsetenv("IGEMM_ENABLE_LOGGING_CMD");
    unsetenv("IGEMM_USER_DB_PATH");
    expect_status(&r, 0);
    char line[512];
    line_starting(r.out, "  find: ", line, sizeof line);
    int tried = atoi(line + strlen("  find: "));
    assert_true(tried > 1);
    for (int i = 1; i <= tried; i++) {
        char key[64];
        snprintf(key, sizeof key, "igemm progress: find [%d/%d] ", i, tried);
        tc_expect_contains(r.err, key);
    }
    char over[64];
    snprintf(over, sizeof over, "[%d/%d]", tried + 1, tried);
    assert_null(strstr(r.err, over));
    tc_expect_contains(r.err, "s left)");
    tc_expect_contains(r.err, "igemm note: -i 3: ");
    tc_expect_contains(r.err, "emulated once");
    /* the library's call log: find, then the run, each with the problem's command line */
    tc_expect_contains(r.err, "igemm(emu): Command [igemm_find] igemm conv -n 1 -c 8 -H 5 -W 5 -k 8 -y 3 -x 3 ");
    tc_expect_contains(r.err, "igemm(emu): Command [igemm_conv_bwd_data] igemm conv -n 1 -c 8 -H 5 -W 5 -k 8 ");
    /* one emulated run: the average is its modeled time */
    line_starting(r.out, "  modeled time: ", line, sizeof line);
    double us = atof(line + strlen("  modeled time: "));
    line_starting(r.out, "Modeled Kernel Time Backward Data Conv. Elapsed: ", line, sizeof line);
    double ms = atof(line + strlen("Modeled Kernel Time Backward Data Conv. Elapsed: "));
    assert_true(fabs(ms * 1e3 - us) <= 1e-3 * us);
    tc_result_free(&r);
    /* the default perf-db holds the best configuration find reported */
    char db[512];
    snprintf(db, sizeof db, "%s/igemm.udb", dir);
    size_t n;
    char *text = read_file(db, &n);
    assert_non_null(text);
    assert_non_null(strstr(text, "gfx906"));
    free(text);
    unlink(db);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pasted_line_prints_miopen_lines),
        cmocka_unit_test(no_time_lines_without_t),
        cmocka_unit_test(long_names),
        cmocka_unit_test(logged_16bit_lines),
        cmocka_unit_test(forw_all_runs_bwd_part),
        cmocka_unit_test(refusals),
        cmocka_unit_test(mixed_direction_list),
        cmocka_unit_test(solution_list),
        cmocka_unit_test(version_and_wall_note),
        cmocka_unit_test(unwritable_perfdb_keeps_results),
        cmocka_unit_test(todays_driver_line),
        cmocka_unit_test(miopen_solver_ids),
        cmocka_unit_test(raw_log_with_repeats),
        cmocka_unit_test(progress_iterations_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
