/* igemm-miopen (tools/miopen_cmp.c), the host side of `make compare-miopen`:
 * MIOpen's applicability rule, kernel choice, grid and kernel arguments for
 * its gfx906 dynamic v4r1 backward-data kernels, and the fill/verify steps.
 * Every expected value below is worked out by hand from the formulas of
 * MIOpen's host code (conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp,
 * impl_gemm_dynamic.cpp), shown in the comments; the data checks compute dx
 * of a 1x1 problem directly. The xdlops tests (--arch gfx908/gfx90a/gfx942)
 * hold values worked out by hand from MIOpen's xdlops host code
 * (conv_asm_implicit_gemm_gtc_bwd.cpp, conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp,
 * asm_implicit_gemm.hpp, impl_gemm_dynamic.cpp), walking by hand the small
 * configuration lists written below in MIOpen's source syntax (the helper
 * reads them as it reads a MIOpen checkout); the magic numbers are MIOpen's magic_div_u32_gen,
 * magic = 2^32 * (2^shift - d) / d + 1 with 2^shift the first power >= d.
 * (MIOpen's kernels are not part of the repository: docs/MIOPEN.md.) */
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
#include "../conv/half.h"

#define HELPER BUILD_DIR "/bin/igemm-miopen"

/* The gfx906 launch lines give the kernel's argument values after its
 * three pointers in its order: hi wi n k c ho wo, strides, dilations, pads,
 * y x, the phase's iy ix, dtile dy dx, y x tilda, h w tilda, slice y x,
 * slice h w, left h w, and a last 0. */

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

#define ARGS_3X3S2 "14 14 32 512 512 7 7 2 2 1 1 1 1 3 3 "
#define TILE_3X3S2 "1 1 2 2 8 8 "
#define SLICE_3X3S2 "8 8 0 0 0\n"

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
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "0 0 " TILE_3X3S2
                "2 2 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "0 1 " TILE_3X3S2
                "2 1 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "1 0 " TILE_3X3S2
                "1 2 " SLICE_3X3S2
                "launch igemm_bwd_gtc 64 256 " ARGS_3X3S2 "1 1 " TILE_3X3S2
                "1 1 " SLICE_3X3S2);
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
                "launch igemm_bwd_gtc 1 256 16 16 2 32 128 8 8 2 2 "
                "1 1 0 0 1 1 0 0 1 1 "
                "2 2 8 8 1 1 8 8 "
                "0 0 0\n");
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
                "tb1x1x1x2x4x1x1_16x1x1x16x1x1x1 4 256 2 2 128 16 128 2 2 1 "
                "1 1 1 0 0 1 1 0 0 1 "
                "1 1 1 2 2 1 1 2 2 "
                "0 0 0\n");
    expect_plan("conv -n 64 -c 64 -H 1 -W 1 -k 8 -F 2",
                "dx 16384\nlaunch igemm_bwd_gtc_bt64x64x8_tt8x8_gm2x4x2_gn2x4x2_ta1x2x1x1x4_4x1x1x16x1_"
                "tb1x2x1x1x4x1x1_4x1x1x16x1x1x1 1 64 1 1 64 8 64 1 1 1 1 "
                "1 1 0 0 1 1 0 0 1 1 "
                "1 1 1 1 1 1 1 1 "
                "0 0 0\n");
    char *got;
    int st;
    got = run("plan conv -n 128 -c 128 -H 3 -W 3 -k 16 -u 2 -v 2 -F 2", &st);
    tc_expect_contains(got, "zero ");
    tc_expect_contains(got, "launch igemm_bwd_gtc 4 256 3 3 128 16 128 2 2 2 ");
    free(got);
    /* Ho = 1: MIOpen counts no stride, a plain 1x1 without zero fill */
    expect_plan("conv -n 128 -c 128 -H 1 -W 1 -k 16 -u 2 -v 2 -F 2",
                "dx 65536\nlaunch igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_16x1x1x16x1_"
                "tb1x1x1x2x4x1x1_16x1x1x16x1x1x1 1 256 1 1 128 16 128 1 1 1 "
                "1 1 1 0 0 1 1 0 0 1 "
                "1 1 1 1 1 1 1 1 1 "
                "0 0 0\n");
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

#define NHWC " -I NHWC -O NHWC -f NHWC -F 2"

/* The xdlops plans walk MIOpen's configuration lists, which the helper reads
 * at run time from a MIOpen checkout (--miopen-root). The tests need no
 * MIOpen: they give it a checkout of two files written here by hand in the
 * syntax of MIOpen's solver sources, a few entries each, designed so that a
 * wrong walk picks another entry: a same-tile entry of another precision or
 * of the other nxe before the one to pick, and a second fitting entry after
 * it (first-fit order); tile lists whose first tile does not fit; pad
 * fallback candidates with a smaller padding but thread lengths > 1 along
 * K, and a tie. Comments, a forward declaration, a debug block, trailing
 * commas, make_tuple and braced tiles are there for the reader. The
 * expected plans are worked out by hand from these lists. */
static char root[] = "/tmp/igemm-miopen-root-XXXXXX";
static char bad_root[] = "/tmp/igemm-miopen-bad-XXXXXX";

/* fields of an NHWC entry: "bwd", "nhwc", precision, nxb, nxe, block tile
 * m n k, wave tile m n k, wave step m n, wave repeat m n, multihead, vector
 * store, k split, merge e, pass-through, lengths of a (thread, cluster) and b */
static const char nhwc_src[] =
    "// a hand-written stand-in for conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp\n"
    "#include <miopen/conv/solvers.hpp>\n"
    "static const inline std::vector<PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC>&\n"
    "GetBwdXdlopsNHWCConfigList();\n"
    "static const inline std::vector<PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC>&\n"
    "GetBwdXdlopsNHWCConfigList()\n"
    "{\n"
    "    // clang-format off\n"
    "    static const  std::vector<PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC> kernel_param_list {\n"
    "        /* 0 */ {\"bwd\", \"nhwc\", miopenFloat, 0, 1,  32, 128, 32, 16, 64, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, "
    "{ 1, 4, 1, 1}, {  1,  8,  1, 32}, { 1, 4, 1, 4}, {  1,  8,  1, 32}},\n"
    "        /* 1 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 0,  32, 128, 32, 16, 64, 4, 1, 1, 1, 1, 0, 0, 0, 0, 0, "
    "{ 1, 4, 1, 1}, {  1,  8,  1, 32}, { 1, 4, 1, 4}, {  1,  8,  1, 32}},\n"
    "        /* 2 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1,  32, 128, 32, 16, 64, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, "
    "{ 1, 4, 1, 1}, {  1,  8,  1, 32}, { 1, 4, 1, 4}, {  1,  8,  1, 32}},\n"
    "        /* 3 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1,  32, 128, 32, 32, 32, 8, 1, 1, 1, 2, 0, 0, 0, 0, 0, "
    "{ 1, 4, 1, 1}, {  1,  8,  1, 32}, { 1, 4, 1, 4}, {  1,  8,  1, 32}},\n"
    "        /* 4 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 1, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "        /* 5 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 0, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 0, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "        /* 6 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 0, 128, 128, 32, 16, 16, 16, 2, 2, 2, 2, 0, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "        // pad fallback candidates\n"
    "        /* 7 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1,  64,  16, 16, 16, 16, 4, 1, 1, 1, 1, 1, 0, 0, 1, 0, "
    "{ 1, 8, 1, 1}, {  1,  2,  1, 32}, { 1, 1, 1, 1}, {  1,  2,  1, 32}},\n"
    "        /* 8 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1, 128,  32, 16, 64, 16, 4, 1, 1, 1, 1, 1, 0, 0, 1, 0, "
    "{ 1, 1, 8, 1}, {  1, 16,  1, 16}, { 1, 1, 2, 1}, {  1, 16,  1, 16}},\n"
    "        /* 9 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1, 128,  32, 16, 32, 32, 8, 1, 1, 2, 1, 1, 0, 0, 1, 0, "
    "{ 1, 1, 8, 1}, {  1, 16,  1, 16}, { 1, 1, 2, 1}, {  1, 16,  1, 16}},\n"
    "        /*10 */ {\"bwd\", \"nhwc\", miopenHalf,  0, 1, 256,  32, 16, 64, 16, 4, 1, 1, 2, 1, 1, 0, 0, 1, 0, "
    "{ 1, 1,16, 1}, {  1, 16,  1, 16}, { 1, 1, 2, 1}, {  1, 16,  1, 16}},\n"
    "        /*11 */ {\"bwd\", \"nhwc\", miopenBFloat16, 0, 0, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 0, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "        /*12 */ {\"bwd\", \"nhwc\", miopenBFloat16, 0, 1, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 1, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "        /*13 */ {\"bwd\", \"nhwc\", miopenBFloat16, 0, 1, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 0, 0, 0, 0, 0, "
    "{ 1, 8, 2, 1}, {  1,  4,  1, 64}, { 1, 8, 1, 2}, {  1,  4,  1, 64}},\n"
    "    };\n"
    "    // clang-format on\n"
    "    return kernel_param_list;\n"
    "}\n"
    "static inline PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC\n"
    "GetBwdXdlopsNHWCConfigLargestTileFp32()\n"
    "{\n"
    "    return {\"bwd\", \"nhwc\", miopenFloat, 0, 1, 32, 128, 32, 16, 64, 4, 1, 1, 1, 1, 1, 0, 0, 0, 0, "
    "{1, 4, 1, 1}, {1, 8, 1, 32}, {1, 4, 1, 4}, {1, 8, 1, 32}};\n"
    "}\n"
    "static inline PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC\n"
    "GetBwdXdlopsNHWCConfigLargestTileFp16()\n"
    "{\n"
    "    return {\"bwd\", \"nhwc\", miopenHalf, 0, 1, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 1, 0, 0, 0, 0, "
    "{1, 8, 2, 1}, {1, 4, 1, 64}, {1, 8, 1, 2}, {1, 4, 1, 64}};\n"
    "}\n"
    "static inline PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC\n"
    "GetBwdXdlopsNHWCConfigLargestTileBf16()\n"
    "{\n"
    "    return {\"bwd\", \"nhwc\", miopenBFloat16, 0, 1, 128, 128, 32, 32, 32, 8, 1, 1, 2, 2, 1, 0, 0, 0, 0, "
    "{1, 8, 2, 1}, {1, 4, 1, 64}, {1, 8, 1, 2}, {1, 4, 1, 64}};\n"
    "}\n"
    "void PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC::HeuristicInit(\n"
    "    const ExecutionContext&, const ProblemDescription& problem)\n"
    "{\n"
    "    static const std::vector<std::tuple<int, int, int>> tile_list_fp32 = {\n"
    "        std::make_tuple(128, 128, 16),\n"
    "        std::make_tuple(64, 64, 32),\n"
    "    };\n"
    "    static const std::vector<std::tuple<int, int, int>> tile_list_fp16 = {\n"
    "        std::make_tuple(128, 128, 32), std::make_tuple(64, 64, 16), // M % 64 fails the 3x3 layer\n"
    "        std::make_tuple(32, 128, 32), std::make_tuple(32, 64, 32)\n"
    "    };\n"
    "    static const std::vector<std::tuple<int, int, int>> tile_list_bfp16 = {\n"
    "        {256, 128, 32}, {128, 128, 32}, {64, 64, 16},\n"
    "    };\n"
    "#ifdef DEBUG_CHECK\n"
    "    for(const auto& tile : tile_list_fp16) { MIOPEN_LOG_I(\"tile {\" << std::get<0>(tile) << '}'); }\n"
    "#endif\n"
    "    if(problem.IsFp16()) { gemm_k_global_split = 0; }\n"
    "}\n";

/* fields of an NCHW entry: "bwd", precision, nxb, nxe, block tile m n k,
 * wave tile m n k, wave step m n, wave repeat m n, the four length lists,
 * k split. The fp16 entry, first in the file, would fit the fp32 layer. */
static const char nchw_src[] =
    "static inline const std::vector<TunableImplicitGemmGTCDynamic_t>&\n"
    "GetImplicitGemmGtcDynamicBwdTunablesList(const ProblemDescription& problem)\n"
    "{\n"
    "    static const std::vector<TunableImplicitGemmGTCDynamic_t> tunables_fp16 = {\n"
    "        { \"bwd\", miopenHalf,   4, 1, 128, 128, 16, 32, 32, 1, 1, 1, 2, 2, {2, 1, 4, 1}, {1, 8, 1, 32}, "
    "{2, 1, 4, 1}, {1, 8, 1, 32}, 0},\n"
    "    };\n"
    "    static const std::vector<TunableImplicitGemmGTCDynamic_t> tunables_fp32 = {\n"
    "        { \"bwd\", miopenFloat, 16, 0, 128, 128, 16, 32, 32, 1, 1, 1, 2, 2, {2, 1, 1, 4}, {1, 8, 1, 32}, "
    "{2, 1, 1, 4}, {1, 8, 1, 32}, 0},\n"
    "        { \"bwd\", miopenFloat, 16, 1, 128, 128, 16, 32, 32, 1, 1, 1, 2, 2, {2, 1, 4, 1}, {1, 8, 1, 32}, "
    "{2, 1, 4, 1}, {1, 8, 1, 32}, 0},\n"
    "        { \"bwd\", miopenFloat,  4, 1, 128, 128, 16, 32, 32, 1, 1, 1, 2, 2, {2, 1, 4, 1}, {1, 8, 1, 32}, "
    "{2, 1, 4, 1}, {1, 8, 1, 32}, 0},\n"
    "        { \"bwd\", miopenFloat,  4, 1, 128,  64, 16, 32, 32, 1, 1, 1, 2, 1, {2, 1, 4, 1}, {1, 8, 1, 32}, "
    "{2, 1, 2, 1}, {1, 8, 1, 32}, 0},\n"
    "    };\n"
    "    if(problem.IsFp16())\n"
    "        return tunables_fp16;\n"
    "    else\n"
    "        return tunables_fp32;\n"
    "}\n";

static void write_root(const char *dir, const char *nhwc, const char *nchw)
{
    char path[256];
    snprintf(path, sizeof path, "mkdir -p %s/src/solver/conv", dir);
    assert_int_equal(system(path), 0);
    const char *text[2] = {nhwc, nchw}, *name[2] = {"conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp",
                                                    "conv_asm_implicit_gemm_gtc_bwd.cpp"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/src/solver/conv/%s", dir, name[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fputs(text[i], f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
    }
}

static int make_roots(void **state)
{
    (void)state;
    if (!mkdtemp(root) || !mkdtemp(bad_root))
        return -1;
    write_root(root, nhwc_src, nchw_src);
    /* bad: an NHWC entry of 5 values on line 3; no NCHW definition (a call only) */
    write_root(bad_root,
               "GetBwdXdlopsNHWCConfigList()\n{\n    static const std::vector<C> list { {\"bwd\", \"nhwc\", "
               "miopenHalf, 0, 1},\n    };\n}\n",
               "auto x = GetImplicitGemmGtcDynamicBwdTunablesList(problem);\n");
    return 0;
}

static int remove_roots(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", root, bad_root);
    return system(cmd) ? -1 : 0;
}

/* plan --arch ARCH --miopen-root (the hand-written checkout) PROBLEM */
static void expect_xplan(const char *arch, const char *problem, const char *want)
{
    char args[1024];
    snprintf(args, sizeof args, "--arch %s --miopen-root %s %s", arch, root, problem);
    expect_plan(args, want);
}

/* gfx942 fp16 NHWC 3x3 stride 1 at batch 8: HTilda = 14 + 2 = 16, left
 * (1-0)/1 = 1, right min(16, 14+1) = 15, slice 14; GEMM M = 8*14*14 = 1568
 * (2^5 * 49), N = C = 256, K = 256. The fp16 tile list: 128x128x32 and
 * 64x64x16 fail M (1568 % 64 = 32), 32x128x32 divides all (32x64x32 after
 * it would too). Entries of 32x128x32: 0 is fp32, 1 has nxe 0 (the problem
 * is not 1x1), 2 is taken (3 would fit too): multihead, ta 1x4x1x1, tb
 * 1x4x1x4, block 1*8*1*32 = 256; IsValid: K % 32 = 0, C % gcd(128, 8) = 0.
 * Grid 49 * 2 = 98 (one phase); the k split: 98 << 3 = 784 <= 1200 with
 * (256 >> 3) % 32 = 0, 98 << 4 > 1200: log2 3, grid 784, _gkgs, ks 3, and a
 * zero fill of dx first (8*256*14*14 = 401408 halves, 8 per work-item: 196
 * groups). magic(2) = 1 shift 1, magic(98) = 2^32*30/98+1 = 1314785907
 * shift 7, magic(14) = 2^32*2/14+1 = 613566757 shift 4, magic(196) =
 * 2^32*60/196+1 = 1314785907 shift 8: shift_pack 1 | 7<<8 | 4<<16 | 8<<24 =
 * 134481665. The launch's values, in the kernel's argument order after its
 * three pointers: dx, hi wi n k c ho wo, strides, dilations, pads, y x;
 * tile iy ix (single phase: 0 0), dy dx, y x tilda, h w tilda (single
 * phase: HTilda, WTilda), slice y x (Y, X), slice h w, left h w; groups;
 * the four magics, the shift pack, ks. */
static void xdlops_nhwc_fp16(void **state)
{
    (void)state;
    expect_xplan("gfx942", "convfp16 -n 8 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1" NHWC,
                 "asm igemm_bwd_gtcx3_nhwc_fp16_bx0_ex1_bt32x128x32_wt16x64x4_ws1x1_wr1x1_ta1x4x1x1_1x8x1x32_"
                 "tb1x4x1x4_1x8x1x32_mh_gkgs.s ROCM_METADATA_VERSION=5 force_sc0_sc1=0 atomic_add_using_cas=0\n"
                 "dx 802816\n"
                 "zero dx igemm_fill_zero_b16 196 256 401408\n"
                 "launch igemm_bwd_gtcx3_nhwc_fp16_bx0_ex1_bt32x128x32_wt16x64x4_ws1x1_wr1x1_ta1x4x1x1_1x8x1x32_"
                 "tb1x4x1x4_1x8x1x32_mh_gkgs 784 256 dx 14 14 8 256 256 14 14 1 1 1 1 1 1 3 3 0 0 1 1 1 1 16 16 3 "
                 "3 14 14 1 1 1 1 1314785907 613566757 1314785907 134481665 3\n");
}

/* gfx90a bf16 NHWC 1x1 stride 2 (ResNet-50's downsample at batch 8): Ho
 * 28, YTilda 2, HTilda 28 + 1/2 = 28, left 0, right min(28, 56/2+1) = 28;
 * M = 8*28*28 = 6272 = 49*128, N 256, K 512: the bf16 tile list's 256x128x32
 * fails M (6272 / 256 = 24.5), 128x128x32 divides all; entry 11 has nxe 0
 * (a stride 2 problem is not 1x1), 12 (multihead, block 1*4*1*64 = 256) is
 * taken (13 would fit too): grid 49*2*4 phases = 392, 784 <= 1200 with (512>>1) % 32 = 0,
 * 1568 > 1200: log2 split 1, grid 784, ks 1. Y < stride and the split need
 * the zero fill, and bf16 with a zero fill goes through an fp32 workspace
 * (8*256*56*56 = 6422528 floats, 4 a work-item: 6272 groups), then
 * CastTensor. Four phases: tile iy/ix carry magic(XTilda = 2) = 1, 1,
 * slice y/x magic(YTilda) = 1, 1, tile h/w magic(2*49 = 98) = 1314785907,
 * 7. magic(28) = 2^32*4/28+1 = 613566757 shift 5, magic(784) =
 * 2^32*240/784+1 = 1314785907 shift 10: pack 1 | 7<<8 | 5<<16 | 10<<24 =
 * 168101633. */
static void xdlops_nhwc_bf16_cast(void **state)
{
    (void)state;
    expect_xplan("gfx90a", "convbfp16 -n 8 -c 256 -H 56 -W 56 -k 512 -y 1 -x 1 -u 2 -v 2" NHWC,
                 "asm igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_"
                 "tb1x8x1x2_1x4x1x64_mh_gkgs.s ROCM_METADATA_VERSION=5\n"
                 "dx 12845056\n"
                 "ws 25690112\n"
                 "zero ws igemm_fill_zero_b32 6272 256 6422528\n"
                 "launch igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_"
                 "tb1x8x1x2_1x4x1x64_mh_gkgs 784 256 ws 56 56 8 512 256 28 28 2 2 1 1 0 0 1 1 1 1 1 1 2 2 "
                 "1314785907 7 1 1 28 28 0 0 1 1 1314785907 613566757 1314785907 168101633 1\n"
                 "cast ws dx\n"
                 "model ws igemm_fill_zero_b32 6272 256 6422528\n"
                 "model dx igemm_fill_zero_b16 3136 256 6422528\n");
}

/* gfx90a fp16: MIOpen builds the kernel twice, igemm_bwd_fp16_alt_impl 0
 * and 1, and backward runs 1 unless told otherwise. A 1x1 stride 1 layer
 * (M = 8*56*56 = 25088 = 196*128, N 256, K 64: tile 128x128x32; entry 4 has
 * nxe 1, 5 (nxe 0) is taken, 6 would fit too: grid 196*2 = 392, 784 <= 1200, (64>>1) % 32 =
 * 0, 1568 > 1200: split 1). */
static void xdlops_gfx90a_fp16_alt(void **state)
{
    (void)state;
    char *got, args[512];
    int st;
    snprintf(args, sizeof args, "plan --arch gfx90a --miopen-root %s convfp16 -n 8 -c 256 -H 56 -W 56 -k 64" NHWC,
             root);
    got = run(args, &st);
    assert_int_equal(st, 0);
    tc_expect_contains(got, "asm igemm_bwd_gtcx2_nhwc_fp16_bx0_ex0_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_"
                            "1x4x1x64_tb1x8x1x2_1x4x1x64_gkgs.s ROCM_METADATA_VERSION=5 igemm_bwd_fp16_alt_impl=1\n");
    tc_expect_contains(got, "_gkgs 784 256 dx 56 56 8 64 256 56 56 ");
    tc_expect_contains(got, " 1\n");
    free(got);
    snprintf(args, sizeof args,
             "plan --arch gfx90a --fp16-alt 0 --miopen-root %s convfp16 -n 8 -c 256 -H 56 -W 56 -k 64" NHWC, root);
    got = run(args, &st);
    tc_expect_contains(got, " igemm_bwd_fp16_alt_impl=0\n");
    free(got);
}

/* gfx908 NCHW fp32, 3x3 stride 1 at batch 32: GEMM M = C = 256, N =
 * 32*14*14 = 6272, K*YDot*XDot = 256*9. The fp16 list's entry is not for an
 * fp32 problem; in the fp32 list the nxe 0 entry needs a 1x1 problem; the
 * nxe 1 entry with nxb 16 fails 196 % 16; the next (nxb 4: 32 % (128/4) =
 * 0, 196 % 4 = 0, K % 16 = 0, 2304 % 16 = 0) fits (the 128x64x16 one after
 * it would too: 6272 % 64 = 0, 64 % 4 = 0, 32 % 16 = 0). Grid (256/128) * (6272/128) = 98, block (128/64) * (128/64) *
 * 64 = 256. b = 196; n0 = 1*4, n1b = 32*1, sub n1 = (128/4)/4 = 8:
 * magic(256*32*196/16384 = 98) 1314785907 shift 7, magic(32*196/128 = 49)
 * 1314785907 shift 6, magic(196*8/32 = 49), magic(196) shift 8, magic(14)
 * 613566757 shift 4; per phase magic(9) = 2^32*7/9+1 = 3340530120 shift 4,
 * magic(3) = 2^32/3+1 = 1431655766 shift 2. Packs: 4 | 2<<8 | 7<<16 |
 * 6<<24 = 101122564 and 6 | 8<<8 | 4<<16 = 264198; a last 0. */
static void xdlops_nchw(void **state)
{
    (void)state;
    expect_xplan("gfx908", "conv -n 32 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1 -F 2",
                 "asm igemm_bwd_gtcx_nchw_fp32_bx4_ex1_bt128x128x16_wt32x32x1_ws1x1_wr2x2_ta2x1x4x1_1x8x1x32_"
                 "tb2x1x4x1_1x8x1x32.s ROCM_METADATA_VERSION=5\n"
                 "dx 6422528\n"
                 "launch igemm_bwd_gtcx_nchw_fp32_bx4_ex1_bt128x128x16_wt32x32x1_ws1x1_wr2x2_ta2x1x4x1_1x8x1x32_"
                 "tb2x1x4x1_1x8x1x32 98 256 dx 14 14 32 256 256 14 14 1 1 1 1 1 1 3 3 0 0 1 1 1 1 16 16 3 3 14 14 "
                 "1 1 1 3340530120 1431655766 1314785907 1314785907 1314785907 1314785907 613566757 101122564 "
                 "264198 0\n");
}

/* The stem in fp16 NHWC on gfx942: C = 3 is odd, so HeuristicInit goes
 * straight to find_with_gemm_k_pad: among the fp16 entries with thread
 * lengths 1 along K (ta[1] = tb[1] = 1: 8, 9, 10; not 7, whose 64x16x16
 * would pad least), the least padding of M = 8*113*113 = 102152 (HTilda
 * 112 + 7/2 = 115, left (3-1)/2 = 1, right min(115, 227/2+1) = 114), N = 3
 * and K = 64, summed over the (M,K), (N,K) and (M,N) matrices, each
 * ce*rows + re*cols + ce*re with ce, re the padding of columns and rows:
 * 128x32x16 pads M by 799*128 - 102152 = 120, N by 29, K by 0: 120*64 +
 * 29*64 + (120*3 + 29*102152 + 120*29) = 7680 + 1856 + 2966248 = 2975784;
 * 256x32x16 pads M by 400*256 - 102152 = 248: 15872 + 1856 + (744 +
 * 2962408 + 7192) = 2988072. Entries 8 and 9 tie: the first, 8, is taken.
 * No k split (the pad configuration keeps ks 0), Y >= stride: no fill.
 * Grid ceil(102152/128) = 799, ceil(3/32) = 1, times 4 phases = 3196;
 * block 16*16 = 256. magic(799) = 2^32*225/799+1 = 1209471392 shift 10
 * (tile h/w: 2*2 phases), magic(113) = 570128403 shift 7, magic(12769) =
 * 1215937566 shift 14; magic(1) = 1 shift 0: pack 10<<8 | 7<<16 | 14<<24 =
 * 235342336. */
static void xdlops_pad_fallback(void **state)
{
    (void)state;
    expect_xplan("gfx942", "convfp16 -n 8 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2" NHWC,
                 "asm igemm_bwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x32x16_wt64x16x4_ws1x1_wr1x1_ta1x1x8x1_1x16x1x16_"
                 "tb1x1x2x1_1x16x1x16_mh_me.s ROCM_METADATA_VERSION=5 force_sc0_sc1=0 atomic_add_using_cas=0\n"
                 "dx 2408448\n"
                 "launch igemm_bwd_gtcx3_nhwc_fp16_bx0_ex1_bt128x32x16_wt64x16x4_ws1x1_wr1x1_ta1x1x8x1_1x16x1x16_"
                 "tb1x1x2x1_1x16x1x16_mh_me 3196 256 dx 224 224 8 64 3 112 112 2 2 1 1 3 3 7 7 1 1 1 1 2 2 "
                 "1209471392 10 1 1 113 113 1 1 1 1 1209471392 570128403 1215937566 235342336 0\n");
}

/* Refusals: the stem's C = 3 fits no NCHW entry (GEMM M tile 128); NHWC
 * with 2 groups; NCHW problems on gfx942 (MIOpen would transpose them: not
 * run here); bf16 on gfx908; an unknown --arch. */
static void xdlops_refusals(void **state)
{
    (void)state;
    expect_xplan("gfx908", "conv -n 8 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 -F 2",
                 "skip no tunable configuration fits (C, N*HTildaSlice*WTildaSlice or K*YDotSlice*XDotSlice)\n");
    expect_xplan("gfx942", "convfp16 -n 8 -c 256 -H 14 -W 14 -k 256 -g 2" NHWC,
                 "skip groups != 1 (WORKAROUND_ISSUE_1979)\n");
    expect_xplan("gfx942", "convfp16 -n 8 -c 256 -H 14 -W 14 -k 256 -F 2",
                 "skip layout (this harness runs MIOpen's NHWC solver on NHWC problems)\n");
    expect_xplan("gfx908", "convbfp16 -n 8 -c 256 -H 14 -W 14 -k 256" NHWC, "skip bf16 on gfx908\n");
    int st;
    char *got = run("plan --arch gfx1030 conv -n 8 -c 256 -H 14 -W 14 -k 256 -F 2", &st);
    assert_int_equal(st, 2);
    assert_true(tc_one_line(got));
    free(got);
}

/* The lists cannot be read: no checkout given, a directory without the
 * solver file, an entry of 5 values (line 3 of the file), a file with no
 * definition of the list's function; each a one-line error naming the
 * file (and line), exit 2. */
static void xdlops_list_errors(void **state)
{
    (void)state;
    char args[512];
    const char *nhwc = "convfp16 -n 8 -c 256 -H 14 -W 14 -k 256" NHWC, *nchw = "conv -n 8 -c 256 -H 14 -W 14 -k 256 -F 2";
    struct {
        const char *root, *arch, *problem, *want;
    } c[] = {
        {NULL, "gfx942", nhwc, "no MIOpen checkout given"},
        {"/nonexistent", "gfx942", nhwc, "/nonexistent/src/solver/conv/conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp: cannot read"},
        {bad_root, "gfx90a", nhwc, "/src/solver/conv/conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp:3: an NHWC entry of 5 values"},
        {bad_root, "gfx908", nchw,
         "/src/solver/conv/conv_asm_implicit_gemm_gtc_bwd.cpp: no definition of GetImplicitGemmGtcDynamicBwdTunablesList"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (c[i].root)
            snprintf(args, sizeof args, "plan --arch %s --miopen-root %s %s", c[i].arch, c[i].root, c[i].problem);
        else
            snprintf(args, sizeof args, "plan --arch %s %s", c[i].arch, c[i].problem);
        int st;
        char *got = run(args, &st);
        assert_int_equal(st, 2);
        assert_true(tc_one_line(got));
        tc_expect_contains(got, c[i].want);
        free(got);
    }
}

/* fill and verify in fp16 NHWC: dx[n][p][c] = sum_k dy[n][p][k] * w[k][c]
 * (1x1, filter K,Y,X,C) computed here from the fp16 values, rounded to
 * fp16: PASS; one element 8 units in the last place off: FAIL. cast: fp32
 * ws to fp16 dx, each value rounded to nearest even. */
static void fill_verify_cast_fp16_nhwc(void **state)
{
    (void)state;
    char dir[] = "/tmp/igemm-miopen-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *prob = "convfp16 -n 2 -c 3 -H 2 -W 2 -k 5" NHWC;
    enum { N = 2, C = 3, P = 4, K = 5 };
    char args[1024], path[256];
    int st;
    snprintf(args, sizeof args, "fill --seed 3 --dy %s/dy --w %s/w %s", dir, dir, prob);
    free(run(args, &st));
    assert_int_equal(st, 0);
    size_t ny, nw;
    snprintf(path, sizeof path, "%s/dy", dir);
    uint16_t *dy = (uint16_t *)read_file(path, &ny);
    snprintf(path, sizeof path, "%s/w", dir);
    uint16_t *w = (uint16_t *)read_file(path, &nw);
    assert_non_null(dy);
    assert_non_null(w);
    assert_int_equal(ny, 2 * N * P * K);
    assert_int_equal(nw, 2 * K * C);
    uint16_t dx[N * P * C];
    for (int n = 0; n < N; n++)
        for (int p = 0; p < P; p++)
            for (int c = 0; c < C; c++) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += igemm_f16_to_f64(dy[(n * P + p) * K + k]) * igemm_f16_to_f64(w[k * C + c]);
                dx[(n * P + p) * C + c] = igemm_f64_to_f16(s);
            }
    snprintf(path, sizeof path, "%s/dx", dir);
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            dx[7] = (uint16_t)(dx[7] + 8);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(dx, sizeof dx, 1, f), 1);
        assert_int_equal(fclose(f), 0);
        snprintf(args, sizeof args, "verify --seed 3 --dx %s %s", path, prob);
        char *got = run(args, &st);
        assert_int_equal(st, round);
        tc_expect_contains(got, round == 0 ? ": PASS" : ": FAIL");
        free(got);
    }
    float ws[N * C * P];
    for (int i = 0; i < N * C * P; i++)
        ws[i] = 1.0f + (float)i / 4096.0f + 1.0f / 65536.0f; /* between two fp16 values */
    snprintf(path, sizeof path, "%s/ws", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(ws, sizeof ws, 1, f), 1);
    assert_int_equal(fclose(f), 0);
    snprintf(args, sizeof args, "cast --ws %s/ws --dx %s/cast %s", dir, dir, prob);
    free(run(args, &st));
    assert_int_equal(st, 0);
    snprintf(path, sizeof path, "%s/cast", dir);
    size_t nc;
    uint16_t *cast = (uint16_t *)read_file(path, &nc);
    assert_non_null(cast);
    assert_int_equal(nc, sizeof dx);
    for (int i = 0; i < N * C * P; i++)
        assert_int_equal(cast[i], igemm_f32_to_f16(ws[i]));
    free(cast);
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
        cmocka_unit_test(xdlops_nhwc_fp16), cmocka_unit_test(xdlops_nhwc_bf16_cast),
        cmocka_unit_test(xdlops_gfx90a_fp16_alt), cmocka_unit_test(xdlops_nchw), cmocka_unit_test(xdlops_pad_fallback),
        cmocka_unit_test(xdlops_refusals), cmocka_unit_test(xdlops_list_errors),
        cmocka_unit_test(fill_verify_cast_fp16_nhwc),
    };
    return cmocka_run_group_tests(tests, make_roots, remove_roots);
}
