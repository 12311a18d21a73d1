/* igemm-miopen (tools/miopen_cmp.c), the host side of `make compare-miopen`:
 * MIOpen's applicability rule, kernel choice, grid and kernel arguments for
 * its gfx906 dynamic v4r1 backward-data kernels, and the fill/verify steps.
 * Every expected value below is worked out by hand from the formulas of
 * MIOpen's host code (conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp,
 * impl_gemm_dynamic.cpp), shown in the comments; the data checks compute dx
 * of a 1x1 problem directly. (MIOpen's kernel itself is not part of the
 * repository: docs/MIOPEN.md.) */
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
#include "../conv/problem.h" /* igemm_fill_random: the sequence igemm conv --seed fills */

#define HELPER BUILD_DIR "/bin/igemm-miopen"

/* Run the helper with args (a shell word list); its stdout and stderr. */
static char *run(const char *args, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", HELPER, args);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    tc_sbuf b = {0};
    char line[4096];
    while (fgets(line, sizeof line, f))
        tc_put(&b, "%s", line);
    int ws = pclose(f);
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    if (!b.s)
        tc_put(&b, "%s", "");
    return b.s;
}

static void expect_plan(const char *problem, const char *want)
{
    char args[512];
    int st;
    snprintf(args, sizeof args, "plan %s", problem);
    char *got = run(args, &st);
    if (st != 0 || strcmp(got, want))
        fail_msg("plan %s: exit %d\n got:\n%s want:\n%s", problem, st, got, want);
    free(got);
}

#define ARGS_3X3S2 "hi=14 wi=14 n_=32 k=512 c=512 ho=7 wo=7 stride_h=2 stride_w=2 dilation_h=1 dilation_w=1 " \
                   "pad_h=1 pad_w=1 y_=3 x=3 "
#define TILE_3X3S2 "dtile_dy=1 dtile_dx=1 dtile_y=2 dtile_x=2 dtile_h=8 dtile_w=8 "
#define SLICE_3X3S2 "dslice_h=8 dslice_w=8 dslice_h_left=0 dslice_w_left=0 __pack0=0\n"

/* ResNet-50's conv5 3x3 stride 2 at batch 32: Ho = (14+2-3)/2+1 = 7;
 * YTilda = 2/gcd(2,1) = 2, YDot = ceil(3/2) = 2, HTilda = 7 + ceil(2/2) = 8,
 * HTildaLeft = max(0, 1-1)/2 = 0, HTildaRight = min(8, (1+13+1)/2+1) = 8:
 * slice 8, GEMM N = 32*8*8 = 2048, grid (512/128)*(2048/128) = 64. Four
 * phases (iy, ix) with YDotSlice = 2 for iy 0 ((0+1)*2 <= 3) and 3 % 2 = 1
 * for iy 1; y = 3 >= stride: no zero fill. dx: 32*512*14*14*4 bytes. */
static void four_phases(void **state)
{
    (void)state;
    expect_plan("conv -n 32 -c 512 -H 14 -W 14 -k 512 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 2",
                "dx 12845056\n"
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "dtile_iy=0 dtile_ix=0 " TILE_3X3S2
                "dslice_y=2 dslice_x=2 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "dtile_iy=0 dtile_ix=1 " TILE_3X3S2
                "dslice_y=2 dslice_x=1 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "dtile_iy=1 dtile_ix=0 " TILE_3X3S2
                "dslice_y=1 dslice_x=2 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "dtile_iy=1 dtile_ix=1 " TILE_3X3S2
                "dslice_y=1 dslice_x=1 " SLICE_3X3S2);
}

/* 1x1 stride 2: Ho = 8, YTilda 2, YDot 1, HTilda = 8 + ceil(0/2) = 8, left
 * max(0, 0-1)/2 = 0, right min(8, (0+15+1)/2+1 = 9) = 8; GEMM N = 2*64 =
 * 128, grid 1. Y = 1 < stride: SetTensor first (2*128*16*16 = 65536 dwords,
 * this project's fill grid 65536/(4*256) = 64); of the four phases only
 * (0,0) has taps (YDotSlice for iy 1: 1 % 1 = 0). */
static void zero_fill_and_empty_phases(void **state)
{
    (void)state;
    expect_plan("conv -n 2 -c 128 -H 16 -W 16 -k 32 -y 1 -x 1 -u 2 -v 2 -F 2",
                "dx 262144\n"
                "zero 64 256 65536\n"
                "launch igemm_bwd_gtc 1 256 hi=16 wi=16 n_=2 k=32 c=128 ho=8 wo=8 stride_h=2 stride_w=2 "
                "dilation_h=1 dilation_w=1 pad_h=0 pad_w=0 y_=1 x=1 dtile_iy=0 dtile_ix=0 dtile_dy=1 dtile_dx=1 "
                "dtile_y=2 dtile_x=2 dtile_h=8 dtile_w=8 dslice_y=1 dslice_x=1 dslice_h=8 dslice_w=8 "
                "dslice_h_left=0 dslice_w_left=0 __pack0=0\n");
}

/* The other kernels of MIOpen's choice: a plain 1x1 with N % 128 == 0 (grid
 * 1 * 128*2*2/128 = 4), and with C = 64 and K = 8 the 64x64x8 kernel of 64
 * work-items (needs N % 64; grid 1). A 1x1 stride 2 on 3x3 images (Ho = 2,
 * HTilda 2 + ceil(0/2) = 2, slice 2, GEMM N 128*4 = 512) is not plain: the
 * general kernel, grid 4, after a zero fill; on 1x1 images (Ho = 1) the
 * stride does not count. */
static void kernel_choice(void **state)
{
    (void)state;
    expect_plan("conv -n 128 -c 128 -H 2 -W 2 -k 16 -F 2",
                "dx 262144\nlaunch igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_16x1x1x16x1_"
                "tb1x1x1x2x4x1x1_16x1x1x16x1x1x1 4 256 hi=2 wi=2 n_=128 k=16 c=128 ho=2 wo=2 stride_h=1 "
                "stride_w=1 dilation_h=1 dilation_w=1 pad_h=0 pad_w=0 y_=1 x=1 dtile_iy=0 dtile_ix=0 dtile_dy=1 "
                "dtile_dx=1 dtile_y=1 dtile_x=1 dtile_h=2 dtile_w=2 dslice_y=1 dslice_x=1 dslice_h=2 dslice_w=2 "
                "dslice_h_left=0 dslice_w_left=0 __pack0=0\n");
    expect_plan("conv -n 64 -c 64 -H 1 -W 1 -k 8 -F 2",
                "dx 16384\nlaunch igemm_bwd_gtc_bt64x64x8_tt8x8_gm2x4x2_gn2x4x2_ta1x2x1x1x4_4x1x1x16x1_"
                "tb1x2x1x1x4x1x1_4x1x1x16x1x1x1 1 64 hi=1 wi=1 n_=64 k=8 c=64 ho=1 wo=1 stride_h=1 stride_w=1 "
                "dilation_h=1 dilation_w=1 pad_h=0 pad_w=0 y_=1 x=1 dtile_iy=0 dtile_ix=0 dtile_dy=1 dtile_dx=1 "
                "dtile_y=1 dtile_x=1 dtile_h=1 dtile_w=1 dslice_y=1 dslice_x=1 dslice_h=1 dslice_w=1 "
                "dslice_h_left=0 dslice_w_left=0 __pack0=0\n");
    char *got;
    int st;
    got = run("plan conv -n 128 -c 128 -H 3 -W 3 -k 16 -u 2 -v 2 -F 2", &st);
    tc_expect_contains(got, "zero ");
    tc_expect_contains(got, "launch igemm_bwd_gtc 4 256 hi=3 wi=3 n_=128 k=16 c=128 ho=2 wo=2 stride_h=2 ");
    free(got);
    /* Ho = 1: MIOpen counts no stride, a plain 1x1 without zero fill */
    expect_plan("conv -n 128 -c 128 -H 1 -W 1 -k 16 -u 2 -v 2 -F 2",
                "dx 65536\nlaunch igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_16x1x1x16x1_"
                "tb1x1x1x2x4x1x1_16x1x1x16x1x1x1 1 256 hi=1 wi=1 n_=128 k=16 c=128 ho=1 wo=1 stride_h=1 "
                "stride_w=1 dilation_h=1 dilation_w=1 pad_h=0 pad_w=0 y_=1 x=1 dtile_iy=0 dtile_ix=0 dtile_dy=1 "
                "dtile_dx=1 dtile_y=1 dtile_x=1 dtile_h=1 dtile_w=1 dslice_y=1 dslice_x=1 dslice_h=1 dslice_w=1 "
                "dslice_h_left=0 dslice_w_left=0 __pack0=0\n");
    /* N = 64: plain 1x1 but not N % 128, the general kernel (grid 1 * 256/128) */
    got = run("plan conv -n 64 -c 128 -H 2 -W 2 -k 16 -F 2", &st);
    tc_expect_contains(got, "launch igemm_bwd_gtc 2 256 ");
    free(got);
}

/* Refusals: C = 64; batch 1 at 56x56 (GEMM N 3136 = 24.5 * 128); K = 8
 * with a 3x3 filter (only plain 1x1 problems have K % 8 kernels); 2 groups. */
static void refusals(void **state)
{
    (void)state;
    expect_plan("conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 2", "skip C % 128 != 0\n");
    expect_plan("conv -n 1 -c 256 -H 56 -W 56 -k 64 -F 2", "skip N*HTildaSlice*WTildaSlice % 128 != 0\n");
    expect_plan("conv -n 2 -c 128 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -F 2", "skip K % 16 != 0\n");
    expect_plan("conv -n 32 -c 256 -H 14 -W 14 -k 256 -g 2 -F 2",
                "skip groups, layout or data type (MIOpen's kernel: 1 group, NCHW fp32)\n");
    int st;
    char *got = run("plan conv -n 0 -c 1 -F 2", &st);
    assert_int_equal(st, 2);
    assert_true(tc_one_line(got));
    free(got);
}

/* fill writes dy then w of the seed's sequence; verify passes dx computed
 * here for a 1x1 problem (dx[n][c][p] = sum_k dy[n][k][p] * w[k][c]) and
 * fails it with one element changed, and a dx file of the wrong size. */
static void fill_and_verify(void **state)
{
    (void)state;
    char dir[] = "/tmp/igemm-miopen-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *prob = "conv -n 2 -c 3 -H 2 -W 2 -k 5 -F 2";
    enum { N = 2, C = 3, P = 4, K = 5 };
    char args[1024], path[256];
    int st;
    snprintf(args, sizeof args, "fill --seed 7 --dy %s/dy --w %s/w %s", dir, dir, prob);
    free(run(args, &st));
    assert_int_equal(st, 0);
    size_t ny, nw;
    snprintf(path, sizeof path, "%s/dy", dir);
    float *dy = read_file(path, &ny);
    snprintf(path, sizeof path, "%s/w", dir);
    float *w = read_file(path, &nw);
    assert_non_null(dy);
    assert_non_null(w);
    assert_int_equal(ny, sizeof(float) * N * K * P);
    assert_int_equal(nw, sizeof(float) * K * C);
    float want[N * K * P + K * C];
    igemm_fill_random(want, N * K * P + K * C, 7);
    assert_memory_equal(dy, want, ny);
    assert_memory_equal(w, want + N * K * P, nw);
    float dx[N * C * P];
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int p = 0; p < P; p++) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += (double)dy[(n * K + k) * P + p] * w[k * C + c];
                dx[(n * C + c) * P + p] = (float)s;
            }
    snprintf(path, sizeof path, "%s/dx", dir);
    for (int round = 0; round < 3; round++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        if (round == 1)
            dx[5] += 1e-3f;
        assert_int_equal(fwrite(dx, sizeof(float), round == 2 ? N * C * P - 1 : N * C * P, f),
                         round == 2 ? N * C * P - 1 : N * C * P);
        assert_int_equal(fclose(f), 0);
        snprintf(args, sizeof args, "verify --seed 7 --dx %s %s", path, prob);
        char *got = run(args, &st);
        assert_int_equal(st, round == 0 ? 0 : 1);
        tc_expect_contains(got, round == 0 ? ": PASS" : round == 1 ? ": FAIL" : "exactly N*C*Hi*Wi");
        free(got);
    }
    free(dy);
    free(w);
    snprintf(args, sizeof args, "rm -rf %s", dir);
    assert_int_equal(system(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(four_phases),   cmocka_unit_test(zero_fill_and_empty_phases),
        cmocka_unit_test(kernel_choice), cmocka_unit_test(refusals),
        cmocka_unit_test(fill_and_verify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
