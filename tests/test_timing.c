/* The timing model (docs/TIMING.md) against answers derived from the
 * target facts (arch/target.c .tm, num_cu, clock_ghz) and published product
 * peaks, with hand-written microkernels:
 *   - a dependent-free v_fmac_f32 loop reaches the vector peak (3%);
 *   - an MFMA loop reaches each instruction's matrix rate (3%), and the
 *     fastest instruction of each type is the product's matrix peak;
 *   - an LDS-bound loop reaches lds_bytes_per_clk (3%);
 *   - a streaming copy reaches the HBM bandwidth (3%);
 *   - one wave of a dependent load chain shows the LDS, L2 and HBM latency;
 *   - a VGPR-heavy kernel holds fewer waves and exposes more latency.
 * With IGEMM_TIMING_TABLE=FILE the suite also writes the microkernel table
 * of docs/TIMING.md to FILE (make timing-table). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "../arch/target.h"
#include "../conv/problem.h"

static FILE *table;

static void row(const char *arch, const char *what, double got, double want, const char *unit)
{
    if (table)
        fprintf(table, "| %s | %s | %.4g | %.4g | %s | %.3f |\n", arch, what, got, want, unit, want ? got / want : 0);
}

/* Run a snippet with the timing model on; fails the test on an error. */
static emu_stats run_timed(tc_snippet *sn, unsigned groups, unsigned threads, void **ptrs, const size_t *sizes)
{
    char err[2048] = "";
    emu_stats st = {0};
    sn->timing = true;
    if (!sn->host_threads)
        sn->host_threads = 2;
    if (tc_run(sn, groups, threads, ptrs, sizes, &st, err, sizeof err))
        fail_msg("%s: %s", sn->arch, err);
    assert_int_equal(st.model_launches, 1);
    assert_true(st.model_cycles > 0);
    return st;
}

/* Zeroed memory aligned to 4 KiB, so that lines of the buffers start
 * where the microkernels' expected line counts assume (free with free). */
static void *zalloc(size_t bytes)
{
    size_t n = (bytes + 4095) / 4096 * 4096;
    void *p = aligned_alloc(4096, n ? n : 4096);
    assert_non_null(p);
    memset(p, 0, n ? n : 4096);
    return p;
}

/* run_timed with one buffer of `bytes` zeroed bytes as the snippet's first
 * pointer (s[4:5]), the second NULL; the buffer is freed afterwards. */
static emu_stats run_on_buffer(tc_snippet *sn, size_t bytes, unsigned groups, unsigned threads)
{
    void *buf = zalloc(bytes);
    void *ptrs[2] = {buf, NULL};
    size_t sizes[2] = {bytes, 0};
    sn->nptrs = 2;
    emu_stats st = run_timed(sn, groups, threads, ptrs, sizes);
    free(buf);
    return st;
}

/* Modeled cycles of st's launches without their dispatch cost (launch_us
 * each): what the rate microkernels measure. */
static double kernel_cycles(const emu_stats *st, const char *arch)
{
    const target *t = target_by_name(arch);
    return (double)st->model_cycles - (double)st->model_launches * t->tm.launch_us * 1e3 * t->clock_ghz;
}

static void expect_near(const char *arch, const char *what, double got, double want, double tol)
{
    if (!(got >= want * (1 - tol) && got <= want * (1 + tol)))
        fail_msg("%s %s: %.6g, expected %.6g within %.0f%%", arch, what, got, want, 100 * tol);
}

static void each_target(void (*f)(const char *arch))
{
    for (int i = 0; i < igemm_target_count; i++)
        f(igemm_targets[i]->name);
}

#define CUS 2 /* the microkernels that measure one CU's rate run on 2 CUs */

/* ---- vector peak ---- */

static void fma_peak(const char *arch)
{
    const target *t = target_by_name(arch);
    tc_sbuf b = {0};
    for (int i = 2; i < 36; i++)
        tc_put(&b, "    v_mov_b32 v%d, 0\n", i);
    tc_put(&b, "    s_mov_b32 s10, 128\n.Lloop:\n");
    for (int i = 2; i < 34; i++)
        tc_put(&b, "    v_fmac_f32 v%d, v34, v35\n", i);
    tc_put(&b, "    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .num_cu = CUS};
    unsigned groups = 8 * CUS; /* 8 waves per SIMD */
    emu_stats st = run_timed(&sn, groups, 256, NULL, NULL);
    free(b.s);
    double flops = (double)groups * 4 * 128 * 32 * 128; /* waves x iterations x fmacs x 64 lanes x 2 */
    double got = flops / kernel_cycles(&st, arch) / CUS, want = t->tm.valu_flops_f32;
    row(arch, "v_fmac_f32 loop, 8 waves/SIMD", got, want, "FLOP/clk/CU");
    expect_near(arch, "v_fmac_f32 FLOPs per CU per clock", got, want, 0.03);
    assert_int_equal(emu_model_limit(st.model_cycles, st.model_busy), EL_COMPUTE);
}

static void test_fma_peak(void **state)
{
    (void)state;
    each_target(fma_peak);
}

/* ---- matrix peak ---- */

typedef struct {
    const char *arch, *op, *a, *b; /* A/B operand spellings */
    int m, n, k, blocks;
    int flops_per_clk_cu; /* AMD's CDNA1/2/3 ISA guides (MFMA tables), independent of mfma.c */
    char type;            /* 's' f32, 'h' f16, 'b' bf16 */
} mfma_case;

static const mfma_case mfma_cases[] = {
    {"gfx908", "v_mfma_f32_32x32x2f32", "v1", "v2", 32, 32, 2, 1, 256, 's'},
    {"gfx908", "v_mfma_f32_4x4x1f32", "v1", "v2", 4, 4, 1, 16, 256, 's'},
    {"gfx908", "v_mfma_f32_32x32x8f16", "v[2:3]", "v[4:5]", 32, 32, 8, 1, 1024, 'h'},
    {"gfx908", "v_mfma_f32_16x16x16f16", "v[2:3]", "v[4:5]", 16, 16, 16, 1, 1024, 'h'},
    {"gfx908", "v_mfma_f32_32x32x4bf16", "v1", "v2", 32, 32, 4, 1, 512, 'b'},
    {"gfx90a", "v_mfma_f32_32x32x2f32", "v1", "v2", 32, 32, 2, 1, 256, 's'},
    {"gfx90a", "v_mfma_f32_16x16x4f32", "v1", "v2", 16, 16, 4, 1, 256, 's'},
    {"gfx90a", "v_mfma_f32_32x32x8f16", "v[2:3]", "v[4:5]", 32, 32, 8, 1, 1024, 'h'},
    {"gfx90a", "v_mfma_f32_32x32x8bf16_1k", "v[2:3]", "v[4:5]", 32, 32, 8, 1, 1024, 'b'},
    {"gfx90a", "v_mfma_f32_32x32x4bf16", "v1", "v2", 32, 32, 4, 1, 512, 'b'},
    {"gfx942", "v_mfma_f32_32x32x2_f32", "v1", "v2", 32, 32, 2, 1, 256, 's'},
    {"gfx942", "v_mfma_f32_32x32x8_f16", "v[2:3]", "v[4:5]", 32, 32, 8, 1, 2048, 'h'},
    {"gfx942", "v_mfma_f32_16x16x16_f16", "v[2:3]", "v[4:5]", 16, 16, 16, 1, 2048, 'h'},
    {"gfx942", "v_mfma_f32_16x16x4_4b_f16", "v[2:3]", "v[4:5]", 16, 16, 4, 4, 1024, 'h'},
    {"gfx942", "v_mfma_f32_32x32x8_bf16", "v[2:3]", "v[4:5]", 32, 32, 8, 1, 2048, 'b'},
};

static void mfma_peak(const mfma_case *c)
{
    int acc = c->m * c->n * c->blocks / 64; /* accumulator registers */
    tc_sbuf b = {0};
    for (int i = 1; i < 6; i++)
        tc_put(&b, "    v_mov_b32 v%d, 0\n", i);
    for (int i = 0; i < 4 * acc; i++)
        tc_put(&b, "    v_accvgpr_write_b32 a%d, 0\n", i);
    /* about 16K cycles of matrix work per wave, whatever the instruction */
    double flops_op = 2.0 * c->m * c->n * c->k * c->blocks, cyc = flops_op / (c->flops_per_clk_cu / 4.0);
    int iters = (int)(2048 / cyc) < 32 ? 32 : (int)(2048 / cyc);
    tc_put(&b, "    s_nop 4\n    s_mov_b32 s10, %d\n.Lloop:\n", iters);
    /* the loop counter's SALU ops issue in the shadow of the MFMAs, as a
       tuned kernel schedules them; only the branch ends the body */
    for (int i = 0; i < 8; i++) {
        int j = i % 4;
        tc_put(&b, "    %s a[%d:%d], %s, %s, a[%d:%d]\n", c->op, j * acc, j * acc + acc - 1, c->a, c->b, j * acc,
               j * acc + acc - 1);
        if (i == 0)
            tc_put(&b, "    s_sub_u32 s10, s10, 1\n");
        if (i == 1)
            tc_put(&b, "    s_cmp_lg_u32 s10, 0\n");
    }
    tc_put(&b, "    s_cbranch_scc1 .Lloop\n");
    /* gfx908 allocates AGPRs with the VGPR count */
    int v = target_by_name(c->arch)->unified_acc_vgprs || 4 * acc < 8 ? 8 : 4 * acc;
    tc_snippet sn = {.arch = c->arch, .body = b.s, .vgprs = v, .agprs = 4 * acc, .num_cu = CUS};
    unsigned groups = 2 * CUS; /* 2 waves per SIMD */
    emu_stats st = run_timed(&sn, groups, 256, NULL, NULL);
    free(b.s);
    double flops = (double)groups * 4 * iters * 8 * flops_op;
    double got = flops / kernel_cycles(&st, c->arch) / CUS;
    char what[96];
    snprintf(what, sizeof what, "%s loop", c->op);
    row(c->arch, what, got, c->flops_per_clk_cu, "FLOP/clk/CU");
    expect_near(c->arch, c->op, got, c->flops_per_clk_cu, 0.03);
    assert_int_equal(emu_model_limit(st.model_cycles, st.model_busy), EL_MATRIX);
}

static void test_mfma_peak(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof mfma_cases / sizeof mfma_cases[0]; i++)
        mfma_peak(&mfma_cases[i]);
    /* the fastest instruction of each type is the target's published peak */
    for (int i = 0; i < igemm_target_count; i++) {
        const target *t = igemm_targets[i];
        int best[3] = {0};
        if (t->emulate_only)
            continue; /* gfx940/gfx941: gfx942's facts, no cases of their own */
        for (size_t j = 0; j < sizeof mfma_cases / sizeof mfma_cases[0]; j++)
            if (!strcmp(mfma_cases[j].arch, t->name)) {
                int *bp = &best[mfma_cases[j].type == 's' ? 0 : mfma_cases[j].type == 'h' ? 1 : 2];
                if (mfma_cases[j].flops_per_clk_cu > *bp)
                    *bp = mfma_cases[j].flops_per_clk_cu;
            }
        assert_int_equal(best[0], t->tm.mfma_flops_f32);
        assert_int_equal(best[1], t->tm.mfma_flops_f16);
        assert_int_equal(best[2], t->tm.mfma_flops_bf16);
    }
}

/* ---- LDS bandwidth ---- */

static void lds_peak(const char *arch)
{
    const target *t = target_by_name(arch);
    tc_sbuf b = {0};
    tc_put(&b, "    s_mov_b32 m0, -1\n    v_and_b32 v1, 255, v0\n    v_lshlrev_b32 v1, 4, v1\n"
               "    s_mov_b32 s10, 32\n.Lloop:\n");
    for (int i = 0; i < 8; i++)
        tc_put(&b, "    ds_read_b128 v[%d:%d], v1\n", 2 + 4 * i, 5 + 4 * i);
    tc_put(&b, "    s_waitcnt lgkmcnt(0)\n    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n"
               "    s_cbranch_scc1 .Lloop\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .lds_bytes = 4096, .num_cu = CUS};
    unsigned groups = 4 * CUS;
    emu_stats st = run_timed(&sn, groups, 256, NULL, NULL);
    free(b.s);
    double bytes = (double)groups * 4 * 32 * 8 * 1024;
    double got = bytes / kernel_cycles(&st, arch) / CUS, want = t->tm.lds_bytes_per_clk;
    row(arch, "ds_read_b128 loop, 4 waves/SIMD", got, want, "B/clk/CU");
    expect_near(arch, "LDS bytes per CU per clock", got, want, 0.03);
    assert_int_equal(emu_model_limit(st.model_cycles, st.model_busy), EL_LDS);
}

static void test_lds_peak(void **state)
{
    (void)state;
    each_target(lds_peak);
}

/* ---- HBM bandwidth: a streaming copy on every CU of the product ---- */

static void stream_copy(const char *arch)
{
    const target *t = target_by_name(arch);
    const char *body = TC_PRELUDE
        "    s_lshl_b32 s8, s2, 12\n"
        "    v_lshlrev_b32 v6, 4, v0\n"
        "    v_add_u32 v6, s8, v6\n"
        "    global_load_dwordx4 v[2:5], v6, s[4:5]\n"
        "    s_waitcnt vmcnt(0)\n"
        "    global_store_dwordx4 v6, v[2:5], s[6:7]\n";
    size_t bytes = (size_t)64 << 20;
    void *src = zalloc(bytes), *dst = zalloc(bytes);
    assert_non_null(src);
    assert_non_null(dst);
    void *ptrs[2] = {src, dst};
    size_t sizes[2] = {bytes, bytes};
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 8, .nptrs = 2};
    emu_stats st = run_timed(&sn, (unsigned)(bytes / 4096), 256, ptrs, sizes);
    free(src);
    free(dst);
    double secs = (double)st.model_cycles / (t->clock_ghz * 1e9);
    /* every byte once through HBM at its achievable rate, plus the dispatch */
    double bw = t->tm.hbm_tbps * t->tm.hbm_achievable * 1e12;
    double got = 2.0 * (double)bytes / secs / 1e12, want = 2.0 * (double)bytes / (2.0 * (double)bytes / bw + t->tm.launch_us * 1e-6) / 1e12;
    row(arch, "streaming copy, 2 x 64 MiB", got, want, "TB/s");
    expect_near(arch, "copy bandwidth (TB/s)", got, want, 0.03);
    assert_int_equal(emu_model_limit(st.model_cycles, st.model_busy), EL_MEMORY);
}

static void test_stream_copy(void **state)
{
    (void)state;
    each_target(stream_copy);
}

/* ---- latency: one wave, each load's address is the previous load's data ---- */

#define CHAIN 16

/* A chain of iters x CHAIN dependent loads by one wave, every lane at the
 * same address: buf holds at each visited offset the next one. */
static double chain(const char *arch, bool lds, void *buf, size_t buf_bytes, int iters)
{
    tc_sbuf b = {0};
    tc_put(&b, "%s", TC_PRELUDE);
    if (lds)
        tc_put(&b, "    s_mov_b32 m0, -1\n    v_mov_b32 v2, 0\n    ds_write_b32 v2, v2\n    s_waitcnt lgkmcnt(0)\n");
    tc_put(&b, "    v_mov_b32 v1, 0\n    s_mov_b32 s10, %d\n.Lloop:\n", iters);
    for (int i = 0; i < CHAIN; i++)
        tc_put(&b, lds ? "    ds_read_b32 v1, v1\n    s_waitcnt lgkmcnt(0)\n"
                       : "    global_load_dword v1, v1, s[4:5]\n    s_waitcnt vmcnt(0)\n");
    tc_put(&b, "    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n");
    void *ptrs[2] = {buf, NULL};
    size_t sizes[2] = {buf_bytes, 0};
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 8, .lds_bytes = lds ? 256 : 0, .nptrs = 2, .num_cu = 1};
    emu_stats st = run_timed(&sn, 1, 64, ptrs, sizes);
    free(b.s);
    return kernel_cycles(&st, arch) / (CHAIN * iters);
}

/* A buffer of `lines` lines of line bytes whose first dwords form a ring
 * (line i points to line i + 1, the last to the first). */
static void *ring(size_t lines, size_t line)
{
    uint32_t *p = zalloc(lines * line);
    for (size_t i = 0; i < lines; i++)
        p[i * line / 4] = (uint32_t)(((i + 1) % lines) * line);
    return p;
}

static void latency(const char *arch)
{
    const timing_facts *f = &target_by_name(arch)->tm;
    /* each step: the latency, plus the loop's 3 scalar instructions (one
       issue turn of 4 cycles each) per CHAIN steps */
    double over = 3.0 * 4 / CHAIN;
    void *zero = zalloc(4096);
    assert_non_null(zero);
    double lds = chain(arch, true, zero, 4096, 64);
    row(arch, "ds_read_b32 chain, 1 wave", lds, f->lat_lds + over, "cycles/load");
    expect_near(arch, "LDS chain cycles per load", lds, f->lat_lds + over, 0.03);
    /* one line: the first load misses everything (cold), the other 1023 hit L1 */
    double l1 = chain(arch, false, zero, 4096, 64), n = CHAIN * 64;
    double want = (f->lat_hbm + (n - 1) * f->lat_l1) / n + over;
    row(arch, "global_load_dword chain, L1 hits", l1, want, "cycles/load");
    expect_near(arch, "L1 chain cycles per load", l1, want, 0.03);
    free(zero);
    /* a ring of 4 x the L1's lines, walked 4 times: the first walk misses
       (cold), the others miss L1 (LRU; a ring 4x its capacity leaves no set
       with room) and hit L2 (one CU: all of L2 is its share) */
    size_t lines = 4 * (size_t)f->l1_bytes / (size_t)f->line_bytes;
    void *r = ring(lines, (size_t)f->line_bytes);
    double l2 = chain(arch, false, r, lines * (size_t)f->line_bytes, (int)(4 * lines / CHAIN));
    want = (f->lat_hbm + 3.0 * f->lat_l2) / 4 + over;
    row(arch, "global_load_dword chain, L2 hits", l2, want, "cycles/load");
    expect_near(arch, "L2 chain cycles per load", l2, want, 0.03);
    /* the ring walked once: every load is a cold miss */
    double hbm = chain(arch, false, r, lines * (size_t)f->line_bytes, (int)(lines / CHAIN));
    free(r);
    row(arch, "global_load_dword chain, HBM", hbm, f->lat_hbm + over, "cycles/load");
    expect_near(arch, "HBM chain cycles per load", hbm, f->lat_hbm + over, 0.03);
}

static void test_latency(void **state)
{
    (void)state;
    each_target(latency);
}

/* ---- a launch whose workgroups differ: heavy ones first, then empty ---- */

/* 256-thread workgroups: those with an id in [lo, hi) run the FMA loop of
 * fma_peak, the others end at once (a multi-phase plan's order: its GEMM
 * phases first, then phases that only store zeros; or the other way). */
static double mixed_launch(const char *arch, unsigned groups, unsigned lo, unsigned hi)
{
    tc_sbuf b = {0};
    tc_put(&b, "    s_cmp_lt_u32 s2, %u\n    s_cbranch_scc1 .Ldone\n", lo);
    tc_put(&b, "    s_cmp_ge_u32 s2, %u\n    s_cbranch_scc1 .Ldone\n", hi);
    for (int i = 2; i < 36; i++)
        tc_put(&b, "    v_mov_b32 v%d, 0\n", i);
    tc_put(&b, "    s_mov_b32 s10, 64\n.Lloop:\n");
    for (int i = 2; i < 34; i++)
        tc_put(&b, "    v_fmac_f32 v%d, v34, v35\n", i);
    tc_put(&b, "    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n.Ldone:\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .num_cu = CUS};
    emu_stats st = run_timed(&sn, groups, 256, NULL, NULL);
    free(b.s);
    return kernel_cycles(&st, arch);
}

/* 512 workgroups per CU, far more than the CU's traced sample: when a
 * quarter of them are heavy and the rest empty, the launch takes a quarter
 * of the all-heavy time (the FMA work is a quarter; an empty workgroup costs
 * a few cycles), wherever in the grid the heavy ones are: not the all-heavy
 * time that the CU's first workgroups alone would predict, nor the time of
 * the windows that happen to fall on heavy ones (a window of 4 evenly spread
 * over the sequence, 1 of them heavy, stands for a quarter only by luck:
 * the model finds where the kind changes, timing.c). */
static void mixed(const char *arch)
{
    unsigned groups = 512 * CUS, q = groups / 4;
    double all = mixed_launch(arch, groups, 0, groups);
    const struct {
        unsigned lo, hi;
        const char *what;
    } cases[] = {
        {0, q, "the first quarter"}, {groups - q, groups, "the last quarter"}, {q + q / 2, 2 * q + q / 2, "a quarter in the middle"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double part = mixed_launch(arch, groups, cases[i].lo, cases[i].hi);
        char what[128];
        snprintf(what, sizeof what, "1024 workgroups, %s heavy, the rest empty: time / all heavy", cases[i].what);
        row(arch, what, part / all, 0.25, "x");
        if (!(part / all > 0.24 && part / all < 0.26))
            fail_msg("%s: a launch with %s of its workgroups heavy took %.3fx the all-heavy launch, expected 0.25x "
                     "within 4%%", arch, cases[i].what, part / all);
    }
}

static void test_mixed_workgroups(void **state)
{
    (void)state;
    each_target(mixed);
}

/* emu_options.timing_only (find mode's measurements): a launch of far more
 * workgroups than the model traces, the first quarter heavy, runs only the
 * traced ones and models exactly the cycles of the whole run. */
static void timing_only(const char *arch)
{
    tc_sbuf b = {0};
    tc_put(&b, "    s_cmp_ge_u32 s2, %u\n    s_cbranch_scc1 .Ldone\n", 64 * CUS);
    for (int i = 0; i < 8; i++)
        tc_put(&b, "    v_fmac_f32 v%d, v34, v35\n", i + 2);
    tc_put(&b, ".Ldone:\n");
    emu_stats st[2];
    for (int only = 0; only < 2; only++) {
        tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .num_cu = CUS, .timing_only = only};
        st[only] = run_timed(&sn, 256 * CUS, 256, NULL, NULL);
    }
    free(b.s);
    assert_int_equal(st[0].workgroups, 256 * CUS);
    if (st[1].workgroups * 4 > st[0].workgroups)
        fail_msg("%s: timing_only ran %llu of %llu workgroups", arch, (unsigned long long)st[1].workgroups,
                 (unsigned long long)st[0].workgroups);
    assert_int_equal(st[1].model_cycles, st[0].model_cycles);
    for (int i = 0; i < EL_LATENCY; i++)
        assert_int_equal(st[1].model_busy[i], st[0].model_busy[i]);
}

static void test_timing_only(void **state)
{
    (void)state;
    each_target(timing_only);
}

/* ---- occupancy: the same loop with few and with many VGPRs ---- */

static void occupancy_loops(const char *arch)
{
    const target *t = target_by_name(arch);
    char body[1024];
    snprintf(body, sizeof body, "%s"
             "    v_mov_b32 v3, 0\n"
             "    s_mov_b32 s10, 16\n"
             ".Lloop:\n"
             "    global_load_dword v2, v1, s[4:5] %s\n" /* device scope: from L2, not L1 */
             "    s_waitcnt vmcnt(0)\n"
             "    v_add_f32 v3, v2, v3\n"
             "    v_add_f32 v3, v2, v3\n"
             "    s_sub_u32 s10, s10, 1\n"
             "    s_cmp_lg_u32 s10, 0\n"
             "    s_cbranch_scc1 .Lloop\n", TC_PRELUDE, t->cache_bits_sc ? "sc1" : "glc");
    void *buf = zalloc(4096);
    assert_non_null(buf);
    void *ptrs[2] = {buf, NULL};
    size_t sizes[2] = {4096, 0};
    int heavy_v = 256; /* every architectural VGPR: 1 wave per SIMD, 2 with the unified file of 512 */
    tc_snippet light = {.arch = arch, .body = body, .vgprs = 16, .nptrs = 2, .num_cu = 1};
    tc_snippet heavy = light;
    heavy.vgprs = heavy_v;
    int light_wps = t->vgprs_per_simd / 16 < t->max_waves_per_simd ? t->vgprs_per_simd / 16 : t->max_waves_per_simd;
    int heavy_wps = t->vgprs_per_simd / heavy_v;
    unsigned groups = (unsigned)light_wps; /* 4-wave groups: light_wps waves per SIMD when all resident */
    emu_stats sl = run_timed(&light, groups, 256, ptrs, sizes);
    emu_stats sh = run_timed(&heavy, groups, 256, ptrs, sizes);
    free(buf);
    double ratio = kernel_cycles(&sh, arch) / kernel_cycles(&sl, arch);
    /* latency-bound: the light kernel overlaps all its waves' loads, the
       heavy one light_wps / heavy_wps times fewer */
    double want = (double)light_wps / heavy_wps;
    char what[96];
    snprintf(what, sizeof what, "load-use loop, %d vs %d VGPRs: time ratio", heavy_v, 16);
    row(arch, what, ratio, want, "x");
    if (ratio < 0.9 * want)
        fail_msg("%s: %d VGPRs took %.3gx the time of 16 VGPRs, expected about %.3gx (%d vs %d waves per SIMD)", arch,
                 heavy_v, ratio, want, heavy_wps, light_wps);
    assert_int_equal(emu_model_limit(sh.model_cycles, sh.model_busy), EL_LATENCY);
}

static void test_occupancy(void **state)
{
    (void)state;
    each_target(occupancy_loops);
}

/* ---- coalescing: the same loads, stride-1 or one line per lane ---- */

/* 64 iterations of 16 loads (or stores) of a dword per lane at lane x
 * stride bytes, every wave at the same addresses (L1-resident after the
 * first touch), 8 waves per SIMD on 2 CUs: enough in flight that the
 * address path, not the latency, bounds even stride-1 stores. */
static emu_stats strided(const char *arch, int stride, bool store)
{
    tc_sbuf b = {0};
    tc_put(&b, "%s    v_and_b32 v1, 63, v0\n    v_mul_u32_u24 v1, %d, v1\n    v_mov_b32 v2, 0\n    s_mov_b32 s10, 64\n"
               ".Lloop:\n", TC_PRELUDE, stride);
    for (int i = 0; i < 16; i++)
        tc_put(&b, store ? "    global_store_dword v1, v2, s[4:5]\n" : "    global_load_dword v%d, v1, s[4:5]\n", 3 + i);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n");
    size_t bytes = (size_t)64 * (size_t)stride;
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 24, .num_cu = CUS};
    emu_stats st = run_on_buffer(&sn, bytes, 8 * CUS, 256);
    free(b.s);
    return st;
}

static void coalescing(const char *arch)
{
    const timing_facts *f = &target_by_name(arch)->tm;
    for (int store = 0; store < 2; store++) {
        emu_stats one = strided(arch, 4, store), wide = strided(arch, f->line_bytes, store);
        /* the address path takes a cycle per line: 64 lines against 256 / line_bytes */
        double got = kernel_cycles(&wide, arch) / kernel_cycles(&one, arch), want = 64.0 / (256.0 / f->line_bytes);
        char what[96];
        snprintf(what, sizeof what, "global_%s_dword, a line per lane vs stride-1: time ratio", store ? "store" : "load");
        row(arch, what, got, want, "x");
        expect_near(arch, what, got, want, 0.1);
        assert_true(got >= 8);
    }
    /* lines per useful byte, as --stats reports them */
    emu_stats wide = strided(arch, f->line_bytes, false);
    double per = (double)wide.model_line_loaded / (double)wide.model_useful_loaded;
    expect_near(arch, "line bytes per useful byte", per, f->line_bytes / 4.0, 0.01);
}

static void test_coalescing(void **state)
{
    (void)state;
    each_target(coalescing);
}

/* ---- L1: a re-read of L1-resident lines and a streaming read ---- */

static void l1_reread(const char *arch)
{
    const target *t = target_by_name(arch);
    /* every wave loads the same 1 KiB (dwordx4 per lane) 64 x 8 times */
    tc_sbuf b = {0};
    tc_put(&b, "%s    v_lshlrev_b32 v1, 4, v0\n    v_and_b32 v1, 0x3ff, v1\n    s_mov_b32 s10, 64\n.Lloop:\n", TC_PRELUDE);
    for (int i = 0; i < 8; i++)
        tc_put(&b, "    global_load_dwordx4 v[%d:%d], v1, s[4:5]\n", 4 + 4 * i, 7 + 4 * i);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .num_cu = CUS};
    unsigned groups = 4 * CUS;
    emu_stats st = run_on_buffer(&sn, 1024, groups, 256);
    free(b.s);
    double bytes = (double)groups * 4 * 64 * 8 * 1024;
    double got = bytes / kernel_cycles(&st, arch) / CUS, want = t->tm.l1_bytes_per_clk;
    row(arch, "L1-resident re-read (dwordx4), 4 waves/SIMD", got, want, "B/clk/CU");
    expect_near(arch, "L1 re-read bytes per CU per clock", got, want, 0.05);
    double hit = (double)st.model_l1_hits / (double)st.model_l1_lookups;
    if (hit < 0.99)
        fail_msg("%s: L1 hit rate %.3f of a re-read of 1 KiB", arch, hit);
}

/* a streaming read of 64 MiB on every CU: HBM at its achievable rate */
static void stream_read(const char *arch)
{
    const target *t = target_by_name(arch);
    const char *body = TC_PRELUDE
        "    s_lshl_b32 s8, s2, 12\n"
        "    v_lshlrev_b32 v6, 4, v0\n"
        "    v_add_u32 v6, s8, v6\n"
        "    global_load_dwordx4 v[2:5], v6, s[4:5]\n"
        "    s_waitcnt vmcnt(0)\n";
    size_t bytes = (size_t)64 << 20;
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 8};
    emu_stats st = run_on_buffer(&sn, bytes, (unsigned)(bytes / 4096), 256);
    double secs = (double)st.model_cycles / (t->clock_ghz * 1e9);
    double bw = t->tm.hbm_tbps * t->tm.hbm_achievable * 1e12;
    double got = (double)bytes / secs / 1e12, want = (double)bytes / ((double)bytes / bw + t->tm.launch_us * 1e-6) / 1e12;
    row(arch, "streaming read, 64 MiB", got, want, "TB/s");
    expect_near(arch, "streaming read bandwidth (TB/s)", got, want, 0.03);
    if (st.model_l1_hits)
        fail_msg("%s: %llu L1 hits in a streaming read", arch, (unsigned long long)st.model_l1_hits);
}

/* Workgroups of 256 lanes each streaming its own 64 KiB (dwordx4, four
 * loads in flight per wave), first loading a table of `shared` bytes that
 * every workgroup shares (after the streamed bytes; its loads in flight with
 * the stream's first ones): expected the achievable HBM rate over the
 * bytes (the table once) plus one dispatch. */
static void stream_groups(const char *arch, unsigned groups, size_t shared, const char *label, const char *what)
{
    const target *t = target_by_name(arch);
    size_t own = (size_t)groups << 16, bytes = own + shared;
    tc_sbuf b = {0};
    tc_put(&b, "%s    v_lshlrev_b32 v6, 4, v0\n", TC_PRELUDE);
    for (size_t i = 0; i < shared / 4096; i++)
        tc_put(&b, "    v_add_u32 v7, %zu, v6\n    global_load_dwordx4 v[%zu:%zu], v7, s[4:5]\n", own + i * 4096,
               24 + 4 * i, 27 + 4 * i);
    tc_put(&b, "    s_lshl_b32 s8, s2, 16\n    v_add_u32 v6, s8, v6\n    s_mov_b32 s10, 4\n.Lloop:\n");
    for (int i = 0; i < 4; i++)
        tc_put(&b, "    v_add_u32 v7, %d, v6\n    global_load_dwordx4 v[%d:%d], v7, s[4:5]\n", i * 4096, 8 + 4 * i,
               11 + 4 * i);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n    v_add_u32 v6, 0x4000, v6\n"
               "    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 24 + 4 * (int)(shared / 4096)};
    emu_stats st = run_on_buffer(&sn, bytes, groups, 256);
    free(b.s);
    double secs = (double)st.model_cycles / (t->clock_ghz * 1e9);
    double bw = t->tm.hbm_tbps * t->tm.hbm_achievable * 1e12;
    double got = (double)bytes / secs / 1e12, want = (double)bytes / ((double)bytes / bw + t->tm.launch_us * 1e-6) / 1e12;
    row(arch, label, got, want, "TB/s");
    expect_near(arch, what, got, want, 0.03);
}

/* A streaming read of 1.5 workgroups per CU (half the CUs run two at once,
 * half one): bandwidth-bound, so the CUs with two workgroups take the
 * bandwidth the others leave when they finish, and the launch moves its
 * bytes at the achievable HBM rate (a share of 1/CUs each would take 2 / 1.5
 * of that). */
static void stream_partial(const char *arch)
{
    stream_groups(arch, (unsigned)target_by_name(arch)->num_cu * 3 / 2, 0, "streaming read, 1.5 workgroups per CU",
                  "uneven streaming read bandwidth (TB/s)");
}

/* Every workgroup (one per CU) reads a 16 KiB table they all share, then
 * streams its own 64 KiB: the table comes from HBM once, whichever CU
 * touches it first. The sampled CU that first touches it takes its misses;
 * charged to that CU's bandwidth share alone (before the shares followed
 * each CU's demand) it ran 80 KiB in a 64 KiB share: gfx906 0.429 against
 * 0.475 TB/s (seen failing). */
static void stream_shared(const char *arch)
{
    stream_groups(arch, (unsigned)target_by_name(arch)->num_cu, 16 << 10, "streaming read after a shared 16 KiB table",
                  "streaming read with a shared table (TB/s)");
}

static void test_l1(void **state)
{
    (void)state;
    each_target(l1_reread);
    each_target(stream_read);
    each_target(stream_partial);
    each_target(stream_shared);
}

/* ---- L2: a working set read twice, just under and just over one L2 ---- */

/* v2 = a lane's first byte in its wave's quarter of a region: wave w at
 * w x per_wave, lane l at 16 l. */
static void quarter_start(tc_sbuf *b, size_t per_wave)
{
    tc_put(b, "    v_lshrrev_b32 v2, 6, v0\n    v_mul_u32_u24 v2, %zu, v2\n    v_and_b32 v3, 63, v0\n"
              "    v_lshlrev_b32 v3, 4, v3\n    v_add_u32 v2, v2, v3\n", per_wave);
}

/* Read the quarter from v1 on: per_wave / 1024 dwordx4 loads per lane, the
 * wave's loads 1 KiB apart, each waited for (s10 counts). */
static void quarter_loop(tc_sbuf *b, size_t per_wave)
{
    tc_put(b, "    s_mov_b32 s10, %zu\n.Lloop:\n"
              "    global_load_dwordx4 v[4:7], v1, s[4:5]\n    v_add_u32 v1, 1024, v1\n    s_waitcnt vmcnt(0)\n"
              "    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n    s_cbranch_scc1 .Lloop\n", per_wave / 1024);
}

/* One workgroup of 4 waves on one CU reads `bytes` twice (dwordx4 per
 * lane, each wave a quarter, in order): the HBM bytes per byte of it. */
static double reread(const char *arch, size_t bytes)
{
    size_t per_wave = bytes / 4;
    tc_sbuf b = {0};
    tc_put(&b, "%s", TC_PRELUDE);
    quarter_start(&b, per_wave);
    tc_put(&b, "    s_mov_b32 s11, 2\n.Lpass:\n    v_mov_b32 v1, v2\n");
    quarter_loop(&b, per_wave);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n    s_sub_u32 s11, s11, 1\n    s_cmp_lg_u32 s11, 0\n    s_cbranch_scc1 .Lpass\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 8, .num_cu = 1};
    emu_stats st = run_on_buffer(&sn, bytes, 1, 256);
    free(b.s);
    return (double)st.model_hbm_bytes / (double)bytes;
}

static void l2_working_set(const char *arch)
{
    const timing_facts *f = &target_by_name(arch)->tm;
    /* one CU sees its own L2 (MI300X: its XCD's 4 MiB) */
    size_t l2 = (size_t)f->l2_bytes / (size_t)(f->l2_instances > 1 ? f->l2_instances : 1);
    size_t under = l2 / 10 * 9 / 4096 * 4096, over = l2 / 10 * 11 / 4096 * 4096;
    /* LRU: under, the second pass hits (HBM reads the set once); over, a
       sequential second pass finds none of its lines (twice) */
    double u = reread(arch, under), o = reread(arch, over);
    row(arch, "working set 0.9 x L2 read twice: HBM bytes / set", u, 1, "x");
    row(arch, "working set 1.1 x L2 read twice: HBM bytes / set", o, 2, "x");
    expect_near(arch, "HBM traffic of a set under L2", u, 1, 0.01);
    expect_near(arch, "HBM traffic of a set over L2", o, 2, 0.01);
}

/* One wave reads 64 lines twice, lane l at l x sets x line bytes: lines a
 * power of two apart, whose set index bits are all equal. 64 lines are a
 * tiny part of an L2 (and the pass's LRU keeps them all in a fully
 * associative cache), so the second pass hits: HBM reads each line once.
 * An L2 indexed by the plain low bits of the line number puts all 64 in
 * one set of l2_ways and the second pass misses every one of them (2x). */
static void l2_power_of_two_stride(const char *arch)
{
    const timing_facts *f = &target_by_name(arch)->tm;
    size_t one = (size_t)f->l2_bytes / (size_t)(f->l2_instances > 1 ? f->l2_instances : 1);
    size_t stride = one / (size_t)f->l2_ways, bytes = 64 * stride;
    int shift = 0;
    while (((size_t)1 << shift) < stride)
        shift++;
    assert_int_equal((size_t)1 << shift, stride); /* the L2 sizes and ways are powers of two */
    tc_sbuf b = {0};
    tc_put(&b, "%s    v_and_b32 v1, 63, v0\n    v_lshlrev_b32 v1, %d, v1\n    s_mov_b32 s11, 2\n.Lpass:\n"
               "    global_load_dword v4, v1, s[4:5]\n    s_waitcnt vmcnt(0)\n    s_sub_u32 s11, s11, 1\n"
               "    s_cmp_lg_u32 s11, 0\n    s_cbranch_scc1 .Lpass\n", TC_PRELUDE, shift);
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 8, .num_cu = 1};
    emu_stats st = run_on_buffer(&sn, bytes, 1, 64);
    free(b.s);
    double got = (double)st.model_hbm_bytes / (64.0 * f->line_bytes);
    row(arch, "64 lines one L2-way-size apart read twice: HBM bytes / lines", got, 1, "x");
    expect_near(arch, "HBM traffic of 64 power-of-two-strided lines read twice", got, 1, 0.01);
}

static void test_l2(void **state)
{
    (void)state;
    each_target(l2_working_set);
    each_target(l2_power_of_two_stride);
}

/* ---- L2: many CUs of one L2 read the same lines ---- */

/* Workgroup g reads tile g mod I of I tiles (I: the target's L2 instances;
 * MI300X deals workgroups to its 8 XCDs round-robin, so each XCD's CUs read
 * one tile), 4 waves a quarter each, dwordx4 per lane; two workgroups per
 * CU, one after the other. Every tile fits its L2, so the launch reads each tile from HBM once:
 * HBM bytes / the tiles' bytes is 1 (the cold misses), whatever the number
 * of CUs that share a tile. A model that gives the sampled CUs a 1/CUs
 * share of the L2 as if the other CUs' lines were their own (and samples
 * CUs of different L2s) finds the re-reads evicted: capacity misses scaled
 * to every workgroup. */
static void shared_tiles(const char *arch)
{
    const target *t = target_by_name(arch);
    const timing_facts *f = &t->tm;
    unsigned inst = f->l2_instances > 1 ? (unsigned)f->l2_instances : 1;
    size_t one = (size_t)f->l2_bytes / inst, tile = one / 2, per_wave = tile / 4;
    tc_sbuf b = {0};
    tc_put(&b, "%s    s_and_b32 s12, s2, %u\n    s_mul_i32 s12, s12, %zu\n", TC_PRELUDE, inst - 1, tile);
    quarter_start(&b, per_wave);
    tc_put(&b, "    v_add_u32 v1, s12, v2\n");
    quarter_loop(&b, per_wave);
    size_t bytes = tile * inst;
    /* all of LDS: one workgroup per CU at a time, so a CU's second one re-reads the tile later */
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 8, .host_threads = 4, .lds_bytes = t->lds_bytes};
    emu_stats st = run_on_buffer(&sn, bytes, 2 * (unsigned)t->num_cu, 256);
    free(b.s);
    double got = (double)st.model_hbm_bytes / (double)bytes;
    row(arch, "every CU of an L2 reads its tile (2 workgroups per CU): HBM bytes / tiles", got, 1, "x");
    if (got > 1.25)
        fail_msg("%s: %u tiles of %zu KiB read by %d workgroups each: HBM %.2fx the tiles' bytes, expected 1x (each "
                 "tile fits its L2)", arch, inst, tile >> 10, 2 * t->num_cu / (int)inst, got);
}

static void test_l2_shared(void **state)
{
    (void)state;
    each_target(shared_tiles);
}

/* ---- LDS bank conflicts ---- */

/* The LDS loop of lds_peak with lane l at l x stride bytes. */
static double lds_rate(const char *arch, int width, int stride)
{
    tc_sbuf b = {0};
    tc_put(&b, "    s_mov_b32 m0, -1\n    v_and_b32 v1, 63, v0\n    v_mul_u32_u24 v1, %d, v1\n"
               "    s_mov_b32 s10, 32\n.Lloop:\n", stride);
    for (int i = 0; i < 8; i++)
        if (width == 16)
            tc_put(&b, "    ds_read_b128 v[%d:%d], v1\n", 2 + 4 * i, 5 + 4 * i);
        else
            tc_put(&b, "    ds_read_b32 v%d, v1\n", 2 + i);
    tc_put(&b, "    s_waitcnt lgkmcnt(0)\n    s_sub_u32 s10, s10, 1\n    s_cmp_lg_u32 s10, 0\n"
               "    s_cbranch_scc1 .Lloop\n");
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 40, .lds_bytes = 64 * stride + 16, .num_cu = CUS};
    unsigned groups = 4 * CUS;
    emu_stats st = run_timed(&sn, groups, 256, NULL, NULL);
    free(b.s);
    double bytes = (double)groups * 4 * 32 * 8 * 64 * width;
    return bytes / kernel_cycles(&st, arch) / CUS;
}

static void lds_conflicts(const char *arch)
{
    const timing_facts *f = &target_by_name(arch)->tm;
    /* 32 banks of 4 bytes: a stride of s dwords puts min(s, 32) lanes of
       a 32-lane (b32) group on one bank; b128's 8-lane groups: a stride of
       16 x d bytes puts d of them on the same 4 banks (both groupings);
       stride 0, every lane the same dword: one access, a broadcast */
    static const struct { int width, stride, ways; } cases[] = {
        {4, 0, 1}, {4, 4, 1}, {4, 8, 2}, {4, 16, 4}, {4, 128, 32}, {16, 16, 1}, {16, 32, 2}, {16, 64, 4}, {16, 128, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = lds_rate(arch, cases[i].width, cases[i].stride), want = (double)f->lds_bytes_per_clk / cases[i].ways;
        char what[96];
        snprintf(what, sizeof what, "ds_read_b%d, %d-way conflict (stride %d B)", 8 * cases[i].width, cases[i].ways,
                 cases[i].stride);
        row(arch, what, got, want, "B/clk/CU");
        expect_near(arch, what, got, want, 0.05);
    }
}

static void test_lds_conflicts(void **state)
{
    (void)state;
    each_target(lds_conflicts);
}

/* ---- launches: one copy, or the same bytes in 8 launches ---- */

static double copy_cycles(const char *arch, char *src, char *dst, size_t bytes, int launches)
{
    const char *body = TC_PRELUDE
        "    s_lshl_b32 s8, s2, 12\n"
        "    v_lshlrev_b32 v6, 4, v0\n"
        "    v_add_u32 v6, s8, v6\n"
        "    global_load_dwordx4 v[2:5], v6, s[4:5]\n"
        "    s_waitcnt vmcnt(0)\n"
        "    global_store_dwordx4 v6, v[2:5], s[6:7]\n";
    double cycles = 0;
    size_t part = bytes / (size_t)launches;
    for (int i = 0; i < launches; i++) {
        void *ptrs[2] = {src + (size_t)i * part, dst + (size_t)i * part};
        size_t sizes[2] = {part, part};
        tc_snippet sn = {.arch = arch, .body = body, .vgprs = 8, .nptrs = 2};
        cycles += (double)run_timed(&sn, (unsigned)(part / 4096), 256, ptrs, sizes).model_cycles;
    }
    return cycles;
}

static void launches(const char *arch)
{
    const target *t = target_by_name(arch);
    /* 8 x 8 workgroups per CU: each launch fills every CU evenly */
    size_t bytes = (size_t)t->num_cu * 64 * 4096;
    char *src = zalloc(bytes), *dst = zalloc(bytes);
    assert_non_null(src);
    assert_non_null(dst);
    double one = copy_cycles(arch, src, dst, bytes, 1), eight = copy_cycles(arch, src, dst, bytes, 8);
    free(src);
    free(dst);
    /* bandwidth-bound: the same bytes at the achievable HBM rate, plus a dispatch each */
    double move = 2.0 * (double)bytes / (t->tm.hbm_tbps * t->tm.hbm_achievable * 1e12), l = t->tm.launch_us * 1e-6;
    double got = eight / one, want = (move + 8 * l) / (move + l);
    row(arch, "copy in 8 launches vs 1: time ratio", got, want, "x");
    expect_near(arch, "8 launches vs 1", got, want, 0.03);
}

static void test_launches(void **state)
{
    (void)state;
    each_target(launches);
}

/* ---- real kernels: never above the roofline ---- */

static const char *const roof_layers[] = {
    "-n 1 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2",
    "-n 1 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2",
    "-n 1 -c 512 -H 28 -W 28 -k 1024 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -g 1 -F 2",
};

static void roofline(const char *arch)
{
    const target *t = target_by_name(arch);
    igemm_handle *h = tc_emu_handle(arch, NULL, 2);
    for (size_t i = 0; i < sizeof roof_layers / sizeof roof_layers[0]; i++) {
        igemm_problem p;
        char why[256], msg[512];
        char line[300];
        snprintf(line, sizeof line, "conv %s", roof_layers[i]);
        assert_int_equal(igemm_problem_parse_line(&p, line, why, sizeof why), 1);
        tc_case_result res;
        if (tc_run_case(h, &p, NULL, 7, &res, msg, sizeof msg))
            fail_msg("%s %s: %s", arch, roof_layers[i], msg);
        double flops = 2.0 * p.n * p.c * p.k * p.y * p.x; /* times the output pixels: */
        int ho = (p.hi + 2 * p.pad_h - p.y) / p.stride_h + 1, wo = (p.wi + 2 * p.pad_w - p.x) / p.stride_w + 1;
        flops *= (double)ho * wo;
        double bytes = 4.0 * ((double)p.n * p.c * p.hi * p.wi + (double)p.n * p.k * ho * wo + (double)p.k * p.c * p.y * p.x);
        double peak = t->tm.valu_flops_f32 * (double)t->num_cu * t->clock_ghz * 1e9; /* FMA kernels */
        double bound_us = 1e6 * (flops / peak > bytes / (t->tm.hbm_tbps * 1e12) ? flops / peak : bytes / (t->tm.hbm_tbps * 1e12));
        if (!(res.ri.modeled_us > 0) || res.ri.modeled_us < bound_us)
            fail_msg("%s %s: modeled %.3f us, below the roofline bound %.3f us", arch, roof_layers[i],
                     res.ri.modeled_us, bound_us);
        assert_true(res.ri.limit[0]);
    }
    igemm_destroy(h);
}

static void test_roofline(void **state)
{
    (void)state;
    roofline("gfx906");
    roofline("gfx942");
}

/* ---- the CLI reports it ---- */

static void test_cli_reports_modeled_time(void **state)
{
    (void)state;
    const char *args[] = {"conv", "-n", "1", "-c", "16", "-H", "14", "-W", "14", "-k", "16", "-y", "3", "-x", "3",
                          "-p", "1", "-q", "1", "-F", "2", "-t", "1", NULL};
    tc_result r;
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "  modeled time: ");
    tc_expect_contains(r.out, " TFLOP/s (limit: ");
    tc_result_free(&r);
    const char *json[] = {"conv", "-n", "1", "-c", "16", "-H", "14", "-W", "14", "-k", "16", "-y", "3", "-x", "3",
                          "-p", "1", "-q", "1", "-F", "2", "--json", NULL};
    tc_run_igemm(&r, json);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "\"modeled_us\": ");
    assert_null(strstr(r.out, "\"modeled_us\": 0,"));
    /* the busiest CU's busy cycles per resource: none exceeds the launch's
       modeled cycles, and some resource was busy */
    const char *mc = strstr(r.out, "\"modeled_cycles\": "), *mb = strstr(r.out, "\"modeled_busy\": ");
    assert_non_null(mc);
    assert_non_null(mb);
    unsigned long long cycles = 0, busy[4] = {0};
    assert_int_equal(sscanf(mc, "\"modeled_cycles\": %llu", &cycles), 1);
    assert_int_equal(sscanf(mb, "\"modeled_busy\": {\"valu\": %llu, \"matrix\": %llu, \"lds\": %llu, \"memory\": %llu}",
                            &busy[0], &busy[1], &busy[2], &busy[3]),
                     4);
    unsigned long long most = 0;
    for (int i = 0; i < 4; i++) {
        assert_true(busy[i] <= cycles);
        most = busy[i] > most ? busy[i] : most;
    }
    assert_true(most > 0);
    tc_result_free(&r);
    const char *bad[] = {"emu-run", "--cus", "0", NULL};
    tc_run_igemm(&r, bad);
    assert_int_equal(r.status, 2);
    assert_true(tc_one_line(r.err));
    tc_result_free(&r);
}

/* Each launch of a multi-launch plan on its own (igemm_run_info.launch):
 * a split along GEMM K runs its GEMM kernel and its reduction. `igemm conv
 * --json` lists them (modeled_launches) with the kernels, grids and blocks
 * `igemm plan` prints for the same plan, their times add up to the run's
 * modeled_us, and --stats prints a line per launch. */
#define LT_ARGS "conv", "-n", "1", "-c", "64", "-H", "8", "-W", "8", "-k", "256", "-y", "1", "-x", "1", "-F", "2", \
                "-I", "NHWC", "-O", "NHWC", "-f", "NHWC", "--arch", "gfx942", "--solution",                       \
                "igemm_bwd_v4r1_mfma_fp32_nhwc_64x64x8_t256_wt32x32x2_ks4"
static void test_cli_launch_times(void **state)
{
    (void)state;
    tc_result r;
    const char *plan[] = {"plan", LT_ARGS, NULL};
    tc_run_igemm(&r, plan);
    assert_int_equal(r.status, 0);
    char kern[2][128];
    unsigned grid[2], block[2];
    const char *at = r.out;
    for (int i = 0; i < 2; i++) {
        char want[8];
        snprintf(want, sizeof want, "  %d: ", i + 1);
        at = strstr(at, want);
        assert_non_null(at);
        assert_int_equal(sscanf(at + strlen(want), "%127s grid %u block %u", kern[i], &grid[i], &block[i]), 3);
        at++;
    }
    tc_result_free(&r);
    assert_string_equal(kern[1], "igemm_ksplit_sum_fp32");
    const char *json[] = {LT_ARGS, "-V", "0", "--json", NULL};
    tc_run_igemm(&r, json);
    assert_int_equal(r.status, 0);
    const char *mu = strstr(r.out, "\"modeled_us\": "), *ml = strstr(r.out, "\"modeled_launches\": [");
    assert_non_null(mu);
    assert_non_null(ml);
    double total = 0, sum = 0;
    assert_int_equal(sscanf(mu, "\"modeled_us\": %lf", &total), 1);
    at = ml;
    for (int i = 0; i < 2; i++) {
        char k[128], lim[16];
        unsigned g, b;
        double us;
        at = strstr(at, "{\"kernel\": \"");
        assert_non_null(at);
        assert_int_equal(sscanf(at, "{\"kernel\": \"%127[^\"]\", \"grid\": %u, \"block\": %u, \"modeled_us\": %lf, "
                                    "\"limit\": \"%15[^\"]\"}",
                                k, &g, &b, &us, lim),
                         5);
        assert_string_equal(k, kern[i]);
        assert_int_equal(g, grid[i]);
        assert_int_equal(b, block[i]);
        assert_true(us > 0);
        assert_true(lim[0]);
        sum += us;
        at++;
    }
    assert_null(strstr(at, "{\"kernel\": ")); /* two launches, no more */
    assert_true(total > 0 && fabs(sum - total) <= 1e-4 * total);
    tc_result_free(&r);
    const char *stats[] = {LT_ARGS, "-V", "0", "--stats", NULL};
    tc_run_igemm(&r, stats);
    assert_int_equal(r.status, 0);
    char line[256];
    snprintf(line, sizeof line, "  modeled launch 2 of 2: igemm_ksplit_sum_fp32, %u workgroups of %u: ", grid[1], block[1]);
    tc_expect_contains(r.out, line);
    tc_expect_contains(r.out, "  modeled launch 1 of 2: ");
    tc_result_free(&r);
}

/* `igemm conv --json` carries the model's memory view of the run
 * (modeled_memory) and --stats prints it. A 1x1 stride-1 layer whose tiles
 * all are whole: every dx element is stored once (useful stored bytes = dx's
 * bytes), HBM moves at least dx, dy and w once (tensor_bytes, the problem's
 * sizes), and the counts are ordered (hits <= lookups, line bytes >= useful
 * bytes, LDS cycles >= their conflict-free count). */
static void test_cli_memory_view(void **state)
{
    (void)state;
    const char *json[] = {"conv", "-n", "1", "-c", "64", "-H", "16", "-W", "16", "-k", "64", "-y", "1", "-x", "1",
                          "-F", "2", "--arch", "gfx908", "--json", NULL};
    tc_result r;
    tc_run_igemm(&r, json);
    assert_int_equal(r.status, 0);
    const char *m = strstr(r.out, "\"modeled_memory\": ");
    assert_non_null(m);
    unsigned long long v[12];
    assert_int_equal(sscanf(m,
                            "\"modeled_memory\": {\"line_loaded\": %llu, \"useful_loaded\": %llu, \"line_stored\": "
                            "%llu, \"useful_stored\": %llu, \"l1_lookups\": %llu, \"l1_hits\": %llu, \"l2_reads\": "
                            "%llu, \"l2_hits\": %llu, \"hbm_bytes\": %llu, \"tensor_bytes\": %llu, \"lds_cycles\": "
                            "%llu, \"lds_ideal\": %llu}",
                            &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]),
                     12);
    unsigned long long dx = 64ull * 16 * 16 * 4, dy = dx, w = 64ull * 64 * 4;
    assert_int_equal(v[9], dx + dy + w);
    assert_int_equal(v[3], dx);
    assert_true(v[2] >= v[3] && v[0] >= v[1] && v[1] >= dy + w);
    assert_true(v[5] <= v[4] && v[7] <= v[6] && v[6] > 0);
    if ((double)v[8] < 0.999 * (double)(dx + dy + w))
        fail_msg("HBM %llu bytes, under dx, dy and w once (%llu)", v[8], dx + dy + w);
    assert_true(v[10] >= v[11] && v[11] > 0);
    tc_result_free(&r);
    const char *human[] = {"conv", "-n", "1", "-c", "64", "-H", "16", "-W", "16", "-k", "64", "-y", "1", "-x", "1",
                           "-F", "2", "--arch", "gfx908", "--stats", NULL};
    tc_run_igemm(&r, human);
    assert_int_equal(r.status, 0);
    tc_expect_contains(r.out, "  modeled memory: loads ");
    tc_expect_contains(r.out, "x dx, dy and w once); LDS ");
    tc_result_free(&r);
}

/* A fresh, empty temporary file's path (the caller unlinks it). */
static void temp_path(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

/* The timeline's lines after its "# kernel" header (which must come first
 * and once), parsed: cycle, workgroup, wave, pc, the instruction's text. */
typedef struct {
    double cycle;
    int wg, wave;
    unsigned long long pc;
    char text[128];
} tl_line;

static int read_timeline(const char *path, const char *header, tl_line *out, int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int n = 0, headers = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            headers++;
            tc_expect_contains(line, header);
            continue;
        }
        assert_true(headers == 1 && n < max);
        int simd, used = 0;
        tl_line *l = &out[n++];
        assert_int_equal(sscanf(line, "%lf %d %d %d %llx %n", &l->cycle, &l->wg, &l->wave, &simd, &l->pc, &used), 5);
        assert_true(used > 0 && simd >= 0 && simd < 4);
        snprintf(l->text, sizeof l->text, "%s", line + used);
        l->text[strcspn(l->text, "\n")] = 0;
    }
    fclose(f);
    assert_int_equal(headers, 1);
    return n;
}

/* emu_options.timeline (`igemm conv|emu-run --timeline`, IGEMM_EMU_TIMELINE):
 * one straight-line wave's timeline is its instructions in program order,
 * each once, with its PC rising and its issue cycle never falling, the
 * last (s_endpgm) within the launch's modeled cycles; a dependent chain
 * of VALU ops issues no faster than the op's cycles apart (4 for wave64
 * on 16 lanes, timing_facts and docs/TIMING.md). Independent of the model's
 * figures: the body below is the expectation. */
static void timeline(const char *arch)
{
    static const char *const body[] = {
        "v_mov_b32 v1, 1.0", "v_mov_b32 v2, 2.0", "v_add_f32 v1, v1, v2", "v_add_f32 v1, v1, v2",
        "v_add_f32 v1, v1, v2", "s_mov_b32 s10, 7", "s_add_u32 s10, s10, 1", "v_mul_f32 v3, v1, v1",
    };
    const int nb = sizeof body / sizeof body[0];
    tc_sbuf b = {0};
    for (int i = 0; i < nb; i++)
        tc_put(&b, "    %s\n", body[i]);
    char path[] = "/tmp/igemm-timeline-XXXXXX";
    temp_path(path);
    tc_snippet sn = {.arch = arch, .body = b.s, .vgprs = 8, .timeline = path};
    emu_stats st = run_timed(&sn, 1, 64, NULL, NULL);
    free(b.s);
    char header[128];
    snprintf(header, sizeof header, "# kernel snippet on %s, sampled CU 0: 1 workgroups of 1 waves", arch);
    tl_line l[16];
    int n = read_timeline(path, header, l, 16);
    unlink(path);
    assert_int_equal(n, nb + 1); /* the body and the wrapper's s_endpgm */
    for (int i = 0; i < n; i++) {
        assert_int_equal(l[i].wg, 0);
        assert_int_equal(l[i].wave, 0);
        if (i) {
            assert_true(l[i].pc > l[i - 1].pc);
            assert_true(l[i].cycle >= l[i - 1].cycle);
        }
        const char *want = i < nb ? body[i] : "s_endpgm"; /* its mnemonic (the disassembler spells operands) */
        if (strncmp(l[i].text, want, strcspn(want, " ")))
            fail_msg("%s: timeline line %d is '%s', the program has '%s'", arch, i, l[i].text, want);
    }
    for (int i = 3; i <= 4; i++) /* each v_add_f32 reads the one before */
        assert_true(l[i].cycle - l[i - 1].cycle >= 4);
    assert_true(l[n - 1].cycle <= (double)st.model_cycles);
}

static void test_timeline(void **state)
{
    (void)state;
    each_target(timeline);
    /* through the CLI: a launch's section names its kernel and target */
    char path[] = "/tmp/igemm-timeline-XXXXXX";
    temp_path(path);
    const char *args[] = {"conv", "-n", "1", "-c", "16", "-H", "8", "-W", "8", "-k", "16", "-y", "1", "-x", "1",
                          "-F", "2", "--arch", "gfx908", "--solution", "igemm_bwd_v4r1_mfma_fp32_nchw_32x32x8_t64_wt32x32x2",
                          "-t", "1", "--timeline", path, NULL};
    tc_result r;
    tc_run_igemm(&r, args);
    assert_int_equal(r.status, 0);
    tc_result_free(&r);
    static tl_line l[20000];
    int n = read_timeline(path, "# kernel igemm_bwd_v4r1_mfma_fp32_nchw_32x32x8_t64_wt32x32x2 on gfx908, sampled CU 0: ",
                          l, 20000);
    unlink(path);
    assert_true(n > 100);
    int mfma = 0;
    for (int i = 0; i < n; i++)
        mfma += !strncmp(l[i].text, "v_mfma_", 7);
    assert_true(mfma > 0);
    const char *bad[] = {"conv", "-n", "1", "-c", "16", "-H", "8", "-W", "8", "-k", "16", "-y", "1", "-x", "1",
                         "-F", "2", "--timeline", "/nonexistent-dir/timeline.txt", NULL};
    tc_run_igemm(&r, bad);
    assert_int_equal(r.status, 2);
    assert_true(tc_one_line(r.err));
    tc_expect_contains(r.err, "/nonexistent-dir/timeline.txt");
    tc_result_free(&r);
}

static int open_table(void **state)
{
    (void)state;
    const char *p = getenv("IGEMM_TIMING_TABLE");
    if (p && *p) {
        table = fopen(p, "w");
        if (!table) {
            fprintf(stderr, "cannot write %s\n", p);
            return -1;
        }
        fprintf(table, "| target | microkernel | modeled | expected | unit | ratio |\n|---|---|---:|---:|---|---:|\n");
    }
    return 0;
}

static int close_table(void **state)
{
    (void)state;
    if (table)
        fclose(table);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fma_peak),   cmocka_unit_test(test_mfma_peak), cmocka_unit_test(test_lds_peak),
        cmocka_unit_test(test_stream_copy), cmocka_unit_test(test_latency),  cmocka_unit_test(test_occupancy),
        cmocka_unit_test(test_coalescing),  cmocka_unit_test(test_l1),       cmocka_unit_test(test_l2),
        cmocka_unit_test(test_lds_conflicts), cmocka_unit_test(test_launches), cmocka_unit_test(test_mixed_workgroups),
        cmocka_unit_test(test_l2_shared),   cmocka_unit_test(test_timing_only),
        cmocka_unit_test(test_roofline),    cmocka_unit_test(test_cli_reports_modeled_time),
        cmocka_unit_test(test_cli_memory_view), cmocka_unit_test(test_cli_launch_times),
        cmocka_unit_test(test_timeline),
    };
    return cmocka_run_group_tests(tests, open_table, close_table);
}
