/* Per-instruction-class tests of the emulator: small snippets assembled
 * with llvm-mc at test time, run on every target that has the
 * instructions, results compared with values written here (worked out by
 * hand or with plain C arithmetic from the ISA's definition of the
 * operation, never by calling emulator code).
 *
 * Every snippet starts with TC_PRELUDE (common.h): s[4:5] = p0 (the output
 * buffer), s[6:7] = p1 (the input buffer), v1 = 4 * work-item id. Results
 * are stored with global stores, one row of 64 dwords per value
 * ("global_store_dword v1, vN, s[4:5] offset:256*row"); scalar results are
 * gathered into the lanes of one VGPR with v_writelane_b32 first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};

#define ROW(r) (out + 64 * (r))

static int nbad;
static int run_agprs; /* AGPRs the snippets of the current test allocate */

static void expect_u32(const char *arch, const char *what, int lane, uint32_t got, uint32_t want)
{
    if (got != want && nbad++ < 40)
        print_message("%s: %s lane %d: got 0x%08x, want 0x%08x\n", arch, what, lane, got, want);
}

static void expect_f32(const char *arch, const char *what, int lane, uint32_t got, float want)
{
    uint32_t w;
    memcpy(&w, &want, 4);
    expect_u32(arch, what, lane, got, w);
}

static float f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t u32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Assemble TC_PRELUDE + body for arch, run it with `groups` workgroups of
 * `threads` work-items on `host_threads` emulator threads, p0 = out (nout
 * dwords), p1 = in (nin dwords; NULL: p1 = 0, for snippets that read no
 * input). A fault fails the test with the report. */
static void run(const char *arch, const char *body, unsigned groups, unsigned threads, int lds, int host_threads,
                uint32_t *out, size_t nout, uint32_t *in, size_t nin)
{
    char err[2048] = "";
    tc_sbuf src = {0};
    tc_put(&src, "%s%s", TC_PRELUDE, body);
    tc_snippet s = {.arch = arch, .body = src.s, .vgprs = 64, .agprs = run_agprs, .sgprs = 80, .lds_bytes = lds,
                    .nptrs = 2, .host_threads = host_threads};
    void *ptrs[2] = {out, in};
    size_t sizes[2] = {nout * 4, nin * 4};
    int rc = tc_run(&s, groups, threads, ptrs, sizes, NULL, err, sizeof err);
    free(src.s);
    if (rc)
        fail_msg("%s: %s", arch, err);
}

static uint32_t *buf(size_t n, uint32_t fill)
{
    uint32_t *p = malloc(n * 4);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Append "v_writelane_b32 vDST, sREG, lane" for each register of regs. */
static void gather(tc_sbuf *body, int vdst, const int *regs, int n)
{
    for (int i = 0; i < n; i++)
        tc_put(body, "    v_writelane_b32 v%d, s%d, %d\n", vdst, regs[i], i);
}

/* The gathered scalar registers: row[i] holds s<regs[i]>, expected want[i]. */
static void expect_sregs(const char *arch, const uint32_t *row, const int *regs, const uint32_t *want, int n)
{
    for (int i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "s%d", regs[i]);
        expect_u32(arch, what, i, row[i], want[i]);
    }
}

/* ---- scalar ALU ---- */

static void salu_scc_and_results(void **state)
{
    (void)state;
    static const char *const code =
        "    s_mov_b32 s10, -1\n"
        "    s_add_u32 s11, s10, 2\n"          /* 1, carry: scc 1 */
        "    s_cselect_b32 s12, 7, 9\n"        /* 7 */
        "    s_addc_u32 s13, 5, 0\n"           /* 5 + 0 + 1 = 6, scc 0 */
        "    s_cselect_b32 s14, 7, 9\n"        /* 9 */
        "    s_sub_u32 s15, 3, 5\n"            /* 0xfffffffe, borrow: scc 1 */
        "    s_subb_u32 s16, 10, 2\n"          /* 10 - 2 - 1 = 7, scc 0 */
        "    s_cselect_b32 s17, 1, 0\n"        /* 0 */
        "    s_brev_b32 s18, 1\n"              /* 0x80000000 */
        "    s_add_i32 s19, s18, s18\n"        /* 0, signed overflow: scc 1 */
        "    s_cselect_b32 s20, 1, 0\n"        /* 1 */
        "    s_cmp_lt_i32 s10, 0\n"            /* -1 < 0 */
        "    s_cselect_b32 s21, 1, 0\n"        /* 1 */
        "    s_cmp_lt_u32 s10, 0\n"            /* 0xffffffff < 0: no */
        "    s_cselect_b32 s22, 1, 0\n"        /* 0 */
        "    s_min_i32 s23, s10, 5\n"          /* -1 */
        "    s_max_u32 s24, s10, 5\n"          /* 0xffffffff */
        "    s_mov_b32 s26, 0x12345678\n"
        "    s_bfe_u32 s25, s26, 0x80008\n"    /* 8 bits at 8: 0x56 */
        "    s_mov_b32 s28, 0xf0\n"
        "    s_bfe_i32 s27, s28, 0x40004\n"    /* 4 bits at 4 = 0xf, signed: -1 */
        "    s_mov_b64 s[30:31], -1\n"
        "    s_lshr_b64 s[32:33], s[30:31], 4\n"
        "    s_ashr_i32 s29, s18, 4\n"         /* 0xf8000000 */
        "    s_mul_i32 s34, s26, 16\n"         /* 0x23456780 */
        "    s_mul_hi_u32 s35, s26, 16\n"      /* 1 */
        "    s_lshl2_add_u32 s36, s10, 8\n"    /* 0x3fffffffc + 8 -> 4, carry: scc 1 */
        "    s_cselect_b32 s37, 1, 0\n"        /* 1 */
        "    s_bcnt1_i32_b64 s38, s[32:33]\n"  /* 32 + 28 */
        "    s_ff1_i32_b32 s39, 0x100\n"       /* 8 */
        "    s_flbit_i32_b32 s40, s26\n"       /* 3 */
        "    s_sext_i32_i8 s41, 0x80\n"        /* 0xffffff80 */
        "    s_movk_i32 s42, 0x8000\n"         /* sign-extended: 0xffff8000 */
        "    s_cmpk_lg_u32 s42, 0x8000\n"      /* zero-extended 0x8000: differs, scc 1 */
        "    s_cselect_b32 s43, 1, 0\n"        /* 1 */
        "    s_cmpk_eq_i32 s42, 0x8000\n"      /* sign-extended: equal, scc 1 */
        "    s_cselect_b32 s44, 1, 0\n"        /* 1 */
        "    s_addk_i32 s42, 0x10\n"           /* 0xffff8010 */
        "    s_absdiff_i32 s45, 3, s10\n"      /* |3 - -1| = 4 */
        "    s_pack_hh_b32_b16 s46, s26, s42\n" /* 0xffff1234 */
        "    s_and_b32 s47, s26, 0\n"          /* 0, scc 0 */
        "    s_cselect_b32 s48, 1, 2\n"        /* 2 */
        "    s_andn2_b64 s[50:51], s[30:31], s[32:33]\n" /* 0xf0000000_00000000 */
        "    s_not_b32 s49, s26\n"             /* 0xedcba987 */
        "    s_cmp_eq_u64 s[30:31], -1\n"      /* scc 1 */
        "    s_cselect_b64 s[52:53], s[32:33], 0\n"
        "    s_mov_b32 s54, 0\n"
        "    s_bitset1_b32 s54, 5\n"           /* 0x20 */
        "    s_lshl_b32 s55, s26, 36\n"        /* shift by 36 & 31 = 4: 0x23456780 */
        "    s_mov_b32 s58, 0\n"
        "    s_xor_b32 s56, s26, s26\n"        /* 0, scc 0 */
        "    s_bfm_b32 s57, 5, 3\n"            /* 0xf8, scc unchanged */
        "    s_cmov_b32 s58, 9\n"              /* scc 0: not moved */
        "    s_cmp_gt_u32 s26, 1\n"            /* scc 1 */
        "    s_mov_b32 s59, 0\n"
        "    s_cmovk_i32 s59, 0x44\n"          /* moved */
        "    s_mul_hi_i32 s60, s10, s26\n"     /* (-0x12345678) >> 32 = -1 */
        "    s_abs_i32 s61, s18\n"             /* |INT_MIN| = 0x80000000, scc 1 */
        "    s_addc_u32 s62, s10, s10\n"       /* 0xffffffff + 0xffffffff + 1: 0xffffffff, scc 1 */
        "    s_cselect_b32 s63, 1, 0\n"       /* 1 */
        "    s_bfe_i32 s64, s18, 0x8001c\n"    /* 8 bits at 28 of 0x80000000: past bit 31, 0xfffffff8 */
        "    s_bfe_i32 s65, s26, 0x8001c\n";   /* of 0x12345678: 1 */
    static const int regs[] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                               28, 29, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46,
                               47, 48, 50, 51, 49, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65};
    static const uint32_t want[] = {
        1, 7, 6, 9, 0xfffffffe, 7, 0, 0x80000000, 0, 1, 1, 0, 0xffffffff, 0xffffffff, 0x56, 0x12345678,
        0xffffffff, 0xf0, 0xf8000000, 0xffffffff, 0x0fffffff, 0x23456780, 1, 4, 1, 60, 8, 3, 0xffffff80,
        0xffff8010, 1, 1, 4, 0xffff1234, 0, 2, 0, 0xf0000000, 0xedcba987, 0xffffffff, 0x0fffffff, 0x20,
        0x23456780, 0, 0xf8, 0, 0x44, 0xffffffff, 0x80000000, 0xffffffff, 1, 0xfffffff8, 1,
    };
    int n = (int)(sizeof regs / sizeof regs[0]);
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    tc_sbuf body = {0};
    tc_put(&body, "%s", code);
    gather(&body, 10, regs, n);
    tc_put(&body, "    global_store_dword v1, v10, s[4:5]\n");
    nbad = 0;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        uint32_t *out = buf(64, 0xdeadbeef);
        run(archs[a], body.s, 1, 64, 0, 1, out, 64, NULL, 0);
        expect_sregs(archs[a], out, regs, want, n);
        free(out);
    }
    free(body.s);
    assert_int_equal(nbad, 0);
}

/* Loops, conditional branches on SCC/VCC/EXEC, saveexec, v_cmpx, setpc. */
static void salu_branches_and_exec(void **state)
{
    (void)state;
    static const char *const code =
        "    s_mov_b32 s10, 0\n"
        "    s_mov_b32 s11, 5\n"
        "    s_mov_b32 s15, 0\n"
        "    s_mov_b32 s17, 0\n"
        ".Lloop:\n"
        "    s_add_u32 s10, s10, s11\n"
        "    s_sub_u32 s11, s11, 1\n"
        "    s_cmp_lg_u32 s11, 0\n"
        "    s_cbranch_scc1 .Lloop\n"          /* s10 = 5+4+3+2+1 */
        "    s_mov_b32 s12, 1\n"
        "    s_cmp_eq_u32 s10, 15\n"
        "    s_cbranch_scc0 .Lne\n"            /* not taken */
        "    s_mov_b32 s12, 2\n"
        ".Lne:\n"
        "    v_mov_b32 v12, 0\n"
        "    v_cmp_gt_u32 vcc, 10, v0\n"       /* lanes 0..9 */
        "    s_mov_b32 s13, 0\n"
        "    s_cbranch_vccz .Lz\n"             /* not taken */
        "    s_mov_b32 s13, 3\n"
        ".Lz:\n"
        "    s_and_saveexec_b64 s[20:21], vcc\n" /* s[20:21] = old exec, exec = lanes 0..9 */
        "    s_cselect_b32 s14, 1, 0\n"        /* exec != 0: 1 */
        "    v_mov_b32 v11, 1\n"
        "    s_xor_b64 exec, exec, s[20:21]\n" /* lanes 10..63 */
        "    v_mov_b32 v11, 2\n"
        "    s_mov_b64 exec, 0\n"
        "    s_cbranch_execz .Le\n"            /* taken */
        "    s_mov_b32 s15, 99\n"
        ".Le:\n"
        "    s_mov_b64 exec, s[20:21]\n"
        "    v_cmpx_lt_u32 vcc, 31, v0\n"      /* exec = vcc = lanes 32..63 */
        "    v_mov_b32 v12, 5\n"
        "    s_mov_b64 s[22:23], exec\n"
        "    s_mov_b64 s[26:27], vcc\n"
        "    s_mov_b64 exec, s[20:21]\n"
        "    s_andn2_saveexec_b64 s[24:25], s[22:23]\n" /* exec = s[22:23] & ~exec = 0, scc 0 */
        "    s_cselect_b32 s16, 1, 0\n"
        "    s_mov_b64 exec, s[20:21]\n"
        "    s_getpc_b64 s[30:31]\n"
        ".Lpc:\n"
        "    s_add_u32 s30, s30, .Ltgt-.Lpc\n"
        "    s_addc_u32 s31, s31, 0\n"
        "    s_setpc_b64 s[30:31]\n"
        "    s_mov_b32 s17, 111\n"             /* jumped over */
        ".Ltgt:\n"
        "    s_mov_b32 s18, 222\n"
        "    v_cmp_eq_u32 vcc, -1, v0\n"       /* no lane: vcc = 0 */
        "    s_mov_b32 s19, 7\n"
        "    s_cbranch_vccnz .Lbad\n"
        "    s_cbranch_scc1 .Lbad\n"           /* scc still 0 from s_andn2_saveexec */
        "    s_branch .Lgood\n"
        ".Lbad:\n"
        "    s_mov_b32 s19, 8\n"
        ".Lgood:\n";
    static const int regs[] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27};
    static const uint32_t want[] = {15, 0, 2, 3, 1, 0, 0, 0, 222, 7, 0xffffffff, 0xffffffff, 0, 0xffffffff,
                                    0xffffffff, 0xffffffff, 0, 0xffffffff};
    int n = (int)(sizeof regs / sizeof regs[0]);
    tc_sbuf body = {0};
    tc_put(&body, "%s", code);
    gather(&body, 10, regs, n);
    tc_put(&body, "    global_store_dword v1, v10, s[4:5]\n"
                  "    global_store_dword v1, v11, s[4:5] offset:256\n"
                  "    global_store_dword v1, v12, s[4:5] offset:512\n");
    nbad = 0;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        uint32_t *out = buf(3 * 64, 0xdeadbeef);
        run(archs[a], body.s, 1, 64, 0, 1, out, 3 * 64, NULL, 0);
        expect_sregs(archs[a], out, regs, want, n);
        for (int l = 0; l < 64; l++) {
            expect_u32(archs[a], "v11 under saveexec/xor exec", l, ROW(1)[l], l < 10 ? 1 : 2);
            expect_u32(archs[a], "v12 under v_cmpx", l, ROW(2)[l], l > 31 ? 5 : 0);
        }
        free(out);
    }
    free(body.s);
    assert_int_equal(nbad, 0);
}

/* ---- vector integer ---- */

static uint32_t lane_a(int l) { return ((uint32_t)l * 0x01000193u) ^ 0x5bd1e995u; }

static void valu_integer(void **state)
{
    (void)state;
    static const char *const body =
        "    s_mov_b32 s20, 0x01000193\n"
        "    s_mov_b32 s21, -7\n"
        "    s_mov_b32 s22, 0x00ff00ff\n"
        "    s_mov_b32 s23, 0x0c070004\n"
        "    v_mul_lo_u32 v2, v0, s20\n"
        "    v_xor_b32 v2, 0x5bd1e995, v2\n"      /* a */
        "    v_add_u32 v3, v2, v0\n"
        "    global_store_dword v1, v3, s[4:5]\n"
        "    v_subrev_u32 v3, v2, v0\n"           /* l - a */
        "    global_store_dword v1, v3, s[4:5] offset:256\n"
        "    v_mul_hi_u32 v3, v2, s20\n"
        "    global_store_dword v1, v3, s[4:5] offset:512\n"
        "    v_mul_hi_i32 v3, v2, s21\n"
        "    global_store_dword v1, v3, s[4:5] offset:768\n"
        "    v_mad_u32_u24 v3, v2, v0, 5\n"
        "    global_store_dword v1, v3, s[4:5] offset:1024\n"
        "    v_mul_i32_i24 v3, -3, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:1280\n"
        "    v_bfe_u32 v3, v2, 5, 7\n"
        "    global_store_dword v1, v3, s[4:5] offset:1536\n"
        "    v_bfe_i32 v3, v2, 20, 9\n"
        "    global_store_dword v1, v3, s[4:5] offset:1792\n"
        "    v_bfi_b32 v3, s22, v2, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:2048\n"
        "    v_lshl_add_u32 v3, v2, 3, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:2304\n"
        "    v_add3_u32 v3, v2, v0, s20\n"
        "    global_store_dword v1, v3, s[4:5] offset:2560\n"
        "    v_lshl_or_b32 v3, v0, 16, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:2816\n"
        "    v_alignbit_b32 v3, v2, v0, 7\n"
        "    global_store_dword v1, v3, s[4:5] offset:3072\n"
        "    v_perm_b32 v3, v2, v0, s23\n"
        "    global_store_dword v1, v3, s[4:5] offset:3328\n"
        "    v_med3_i32 v3, v2, v0, s21\n"
        "    global_store_dword v1, v3, s[4:5] offset:3584\n"
        "    v_mbcnt_lo_u32_b32 v3, -1, 0\n"
        "    v_mbcnt_hi_u32_b32 v3, -1, v3\n"
        "    global_store_dword v1, v3, s[4:5] offset:3840\n"
        "    s_add_u32 s4, s4, 0x1000\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    v_bcnt_u32_b32 v3, v2, 1\n"
        "    global_store_dword v1, v3, s[4:5]\n"
        "    v_ffbh_u32 v3, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:256\n"
        "    v_ffbl_b32 v3, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:512\n"
        "    v_bfrev_b32 v3, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:768\n"
        "    v_ashrrev_i32 v3, v0, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:1024\n"
        "    v_mov_b32 v6, v2\n"
        "    v_mov_b32 v7, v0\n"
        "    v_lshlrev_b64 v[8:9], v0, v[6:7]\n"
        "    global_store_dword v1, v8, s[4:5] offset:1280\n"
        "    global_store_dword v1, v9, s[4:5] offset:1536\n"
        "    v_mad_u64_u32 v[8:9], s[24:25], v2, s20, v[6:7]\n"
        "    global_store_dword v1, v8, s[4:5] offset:1792\n"
        "    global_store_dword v1, v9, s[4:5] offset:2048\n"
        "    v_cvt_pk_u16_u32 v3, v2, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:2304\n"
        "    v_sub_u16 v3, v0, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:2560\n"
        "    v_lshlrev_b16 v3, 3, v2\n"
        "    global_store_dword v1, v3, s[4:5] offset:2816\n"
        "    v_xad_u32 v3, v2, v0, s20\n"
        "    global_store_dword v1, v3, s[4:5] offset:3072\n"
        "    v_max_i32 v3, v2, s21\n"
        "    global_store_dword v1, v3, s[4:5] offset:3328\n"
        "    v_min_u32 v3, v2, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:3584\n"
        "    v_mad_i32_i24 v3, v2, -2, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:3840\n"
        "    s_add_u32 s4, s4, 0x1000\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    v_ffbh_i32 v3, v2\n"
        "    global_store_dword v1, v3, s[4:5]\n"
        "    v_bfe_i32 v3, v2, 28, 8\n"                /* field past bit 31 */
        "    global_store_dword v1, v3, s[4:5] offset:256\n"
        "    v_ffbh_i32 v3, v0\n"
        "    global_store_dword v1, v3, s[4:5] offset:512\n"
        "    v_not_b32 v4, v0\n"
        "    v_ffbh_i32 v3, v4\n"
        "    global_store_dword v1, v3, s[4:5] offset:768\n"
        "    v_add_u32_e64 v3, v2, v2 clamp\n"         /* saturating forms */
        "    global_store_dword v1, v3, s[4:5] offset:1024\n"
        "    v_sub_u32_e64 v3, v0, v2 clamp\n"
        "    global_store_dword v1, v3, s[4:5] offset:1280\n"
        "    v_add_i32 v3, v2, v2 clamp\n"
        "    global_store_dword v1, v3, s[4:5] offset:1536\n"
        "    v_add_co_u32_e64 v3, s[26:27], v2, v2 clamp\n"
        "    global_store_dword v1, v3, s[4:5] offset:1792\n"
        "    v_sub_u16_e64 v3, v0, v2 clamp\n"
        "    global_store_dword v1, v3, s[4:5] offset:2048\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(41 * 64, 0xdeadbeef);
        run(arch, body, 1, 64, 0, 1, out, 41 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            uint32_t a = lane_a(l), L = (uint32_t)l;
            /* v_ffbh_i32: bits from the MSB up to the first that differs from the sign (-1: none) */
            uint32_t na = (int32_t)a < 0 ? ~a : a;
            expect_u32(arch, "v_ffbh_i32", l, ROW(32)[l], na ? (uint32_t)__builtin_clz(na) : 0xffffffffu);
            expect_u32(arch, "v_bfe_i32 past bit 31", l, ROW(33)[l], (uint32_t)((int32_t)a >> 28));
            expect_u32(arch, "v_ffbh_i32 of l", l, ROW(34)[l], l ? (uint32_t)__builtin_clz(L) : 0xffffffffu);
            expect_u32(arch, "v_ffbh_i32 of ~l", l, ROW(35)[l], l ? (uint32_t)__builtin_clz(L) : 0xffffffffu);
            expect_u32(arch, "v_add_u32 clamp", l, ROW(36)[l], a >> 31 ? 0xffffffffu : 2 * a);
            expect_u32(arch, "v_sub_u32 clamp", l, ROW(37)[l], a > L ? 0 : L - a);
            int64_t s2 = 2 * (int64_t)(int32_t)a;
            expect_u32(arch, "v_add_i32 clamp", l, ROW(38)[l],
                       (uint32_t)(s2 > INT32_MAX ? INT32_MAX : s2 < INT32_MIN ? INT32_MIN : s2));
            expect_u32(arch, "v_add_co_u32 clamp", l, ROW(39)[l], a >> 31 ? 0xffffffffu : 2 * a);
            expect_u32(arch, "v_sub_u16 clamp", l, ROW(40)[l], (a & 0xffff) > L ? 0 : L - (a & 0xffff));
            int32_t sa24 = (int32_t)(a << 8) >> 8;
            uint64_t wide = (uint64_t)L << 32 | a;
            expect_u32(arch, "v_add_u32", l, ROW(0)[l], a + L);
            expect_u32(arch, "v_subrev_u32", l, ROW(1)[l], L - a);
            expect_u32(arch, "v_mul_hi_u32", l, ROW(2)[l], (uint32_t)(((uint64_t)a * 0x01000193u) >> 32));
            expect_u32(arch, "v_mul_hi_i32", l, ROW(3)[l], (uint32_t)(((int64_t)(int32_t)a * -7) >> 32));
            expect_u32(arch, "v_mad_u32_u24", l, ROW(4)[l], (a & 0xffffff) * L + 5);
            expect_u32(arch, "v_mul_i32_i24", l, ROW(5)[l], (uint32_t)(sa24 * -3));
            expect_u32(arch, "v_bfe_u32", l, ROW(6)[l], (a >> 5) & 0x7f);
            expect_u32(arch, "v_bfe_i32", l, ROW(7)[l], (uint32_t)((int32_t)((a >> 20) << 23) >> 23));
            expect_u32(arch, "v_bfi_b32", l, ROW(8)[l], (0x00ff00ffu & a) | (~0x00ff00ffu & L));
            expect_u32(arch, "v_lshl_add_u32", l, ROW(9)[l], (a << 3) + L);
            expect_u32(arch, "v_add3_u32", l, ROW(10)[l], a + L + 0x01000193u);
            expect_u32(arch, "v_lshl_or_b32", l, ROW(11)[l], (L << 16) | a);
            expect_u32(arch, "v_alignbit_b32", l, ROW(12)[l], (uint32_t)(((uint64_t)a << 32 | L) >> 7));
            /* selector bytes 0x04 (a byte 0), 0x00 (l byte 0), 0x07 (a byte 3), 0x0c (0) */
            expect_u32(arch, "v_perm_b32", l, ROW(13)[l], (a & 0xff) | (L & 0xff) << 8 | (a >> 24) << 16);
            int32_t m3[3] = {(int32_t)a, l, -7};
            for (int i = 0; i < 2; i++) /* sort three */
                for (int j = 0; j < 2 - i; j++)
                    if (m3[j] > m3[j + 1]) {
                        int32_t t = m3[j];
                        m3[j] = m3[j + 1];
                        m3[j + 1] = t;
                    }
            expect_u32(arch, "v_med3_i32", l, ROW(14)[l], (uint32_t)m3[1]);
            expect_u32(arch, "v_mbcnt lane id", l, ROW(15)[l], L);
            expect_u32(arch, "v_bcnt_u32_b32", l, ROW(16)[l], (uint32_t)__builtin_popcount(a) + 1);
            expect_u32(arch, "v_ffbh_u32", l, ROW(17)[l], a ? (uint32_t)__builtin_clz(a) : 0xffffffffu);
            expect_u32(arch, "v_ffbl_b32", l, ROW(18)[l], a ? (uint32_t)__builtin_ctz(a) : 0xffffffffu);
            uint32_t rev = 0;
            for (int b = 0; b < 32; b++)
                rev |= ((a >> b) & 1) << (31 - b);
            expect_u32(arch, "v_bfrev_b32", l, ROW(19)[l], rev);
            expect_u32(arch, "v_ashrrev_i32", l, ROW(20)[l], (uint32_t)((int32_t)a >> (l & 31)));
            uint64_t sh = wide << (l & 63);
            expect_u32(arch, "v_lshlrev_b64 lo", l, ROW(21)[l], (uint32_t)sh);
            expect_u32(arch, "v_lshlrev_b64 hi", l, ROW(22)[l], (uint32_t)(sh >> 32));
            uint64_t mad = (uint64_t)a * 0x01000193u + wide;
            expect_u32(arch, "v_mad_u64_u32 lo", l, ROW(23)[l], (uint32_t)mad);
            expect_u32(arch, "v_mad_u64_u32 hi", l, ROW(24)[l], (uint32_t)(mad >> 32));
            expect_u32(arch, "v_cvt_pk_u16_u32", l, ROW(25)[l], 0xffffu | L << 16);
            expect_u32(arch, "v_sub_u16", l, ROW(26)[l], (uint16_t)(L - a));
            expect_u32(arch, "v_lshlrev_b16", l, ROW(27)[l], (uint16_t)(a << 3));
            expect_u32(arch, "v_xad_u32", l, ROW(28)[l], (a ^ L) + 0x01000193u);
            expect_u32(arch, "v_max_i32", l, ROW(29)[l], (int32_t)a > -7 ? a : (uint32_t)-7);
            expect_u32(arch, "v_min_u32", l, ROW(30)[l], a < L ? a : L);
            expect_u32(arch, "v_mad_i32_i24", l, ROW(31)[l], (uint32_t)(sa24 * -2 + l));
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* ---- vector fp32 ---- */

static void valu_fp32(void **state)
{
    (void)state;
    /* x = (l - 20) / 2, y = l + 1 */
    static const char *const body =
        "    v_subrev_u32 v2, 20, v0\n"
        "    v_cvt_f32_i32 v2, v2\n"
        "    v_mul_f32 v2, 0.5, v2\n"
        "    v_cvt_f32_u32 v3, v0\n"
        "    v_add_f32 v3, 1.0, v3\n"
        "    v_add_f32_e64 v4, -v2, |v3|\n"
        "    global_store_dword v1, v4, s[4:5]\n"
        "    v_mul_f32_e64 v4, v2, v3 mul:2\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_add_f32_e64 v4, v2, 0.5 clamp\n"
        "    global_store_dword v1, v4, s[4:5] offset:512\n"
        "    v_fma_f32 v4, v2, v3, -v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:768\n"
        "    v_mov_b32 v4, v2\n"
        "    v_fmac_f32 v4, v3, v3\n"
        "    global_store_dword v1, v4, s[4:5] offset:1024\n"
        "    v_max_f32 v4, v2, -v3\n"
        "    global_store_dword v1, v4, s[4:5] offset:1280\n"
        "    v_rcp_f32 v4, v3\n"
        "    global_store_dword v1, v4, s[4:5] offset:1536\n"
        "    v_sqrt_f32 v4, v3\n"
        "    global_store_dword v1, v4, s[4:5] offset:1792\n"
        "    v_floor_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:2048\n"
        "    v_ceil_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:2304\n"
        "    v_trunc_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:2560\n"
        "    v_rndne_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:2816\n"
        "    v_fract_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:3072\n"
        "    v_cvt_i32_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:3328\n"
        "    v_cvt_u32_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:3584\n"
        "    v_cvt_rpi_i32_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:3840\n"
        "    s_add_u32 s4, s4, 0x1000\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    v_cvt_flr_i32_f32 v4, v2\n"
        "    global_store_dword v1, v4, s[4:5]\n"
        "    v_ldexp_f32 v4, v2, 3\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_med3_f32 v4, v2, v3, 1.0\n"
        "    global_store_dword v1, v4, s[4:5] offset:512\n"
        "    v_max3_f32 v4, v2, -v3, -4.0\n"
        "    global_store_dword v1, v4, s[4:5] offset:768\n"
        "    v_add_f32_sdwa v4, v2, v3 div:2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD\n"
        "    global_store_dword v1, v4, s[4:5] offset:1024\n"
        "    v_cvt_f64_f32 v[6:7], v2\n"
        "    v_add_f64 v[6:7], v[6:7], 1.0\n"
        "    v_mul_f64 v[6:7], v[6:7], v[6:7]\n"
        "    v_cvt_f32_f64 v4, v[6:7]\n"
        "    global_store_dword v1, v4, s[4:5] offset:1280\n"
        "    v_cvt_f64_i32 v[6:7], v0\n"
        "    global_store_dword v1, v6, s[4:5] offset:1536\n"
        "    global_store_dword v1, v7, s[4:5] offset:1792\n"
        "    v_mov_b32 v5, 0x00800000\n"         /* 2^-126 */
        "    v_mul_f32 v4, 0.5, v5\n"            /* denormal 2^-127, kept (denorm mode 3) */
        "    global_store_dword v1, v4, s[4:5] offset:2048\n"
        "    v_exp_f32 v4, 2.0\n"
        "    v_log_f32 v5, 4.0\n"
        "    v_add_f32 v4, v4, v5\n"             /* 4 + 2 */
        "    global_store_dword v1, v4, s[4:5] offset:2304\n"
        "    v_cvt_f32_ubyte2 v4, s22\n"         /* s22 = 0x00ab0000 */
        "    global_store_dword v1, v4, s[4:5] offset:2560\n"
        "    v_sub_f32 v4, v3, v2\n"
        "    global_store_dword v1, v4, s[4:5] offset:2816\n"
        "    v_mul_f32 v4, 0x3eaaaaab, v3\n"     /* y * (float)(1/3) */
        "    global_store_dword v1, v4, s[4:5] offset:3072\n"
        "    v_cvt_f32_i32_e64 v4, v0 div:2\n"
        "    global_store_dword v1, v4, s[4:5] offset:3328\n"
        "    v_min_f32_e64 v4, -|v2|, v3\n"
        "    global_store_dword v1, v4, s[4:5] offset:3584\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(32 * 64, 0xdeadbeef);
        tc_sbuf full = {0};
        tc_put(&full, "    s_mov_b32 s22, 0x00ab0000\n%s", body);
        run(arch, full.s, 1, 64, 0, 1, out, 32 * 64, NULL, 0);
        free(full.s);
        for (int l = 0; l < 64; l++) {
            float x = (float)(l - 20) * 0.5f, y = (float)(l + 1);
            expect_f32(arch, "-x + |y|", l, ROW(0)[l], -x + y);
            expect_f32(arch, "x*y mul:2", l, ROW(1)[l], x * y * 2.0f);
            float cl = x + 0.5f;
            expect_f32(arch, "clamp(x + 0.5)", l, ROW(2)[l], cl < 0.0f ? 0.0f : cl > 1.0f ? 1.0f : cl);
            expect_f32(arch, "fma(x, y, -x)", l, ROW(3)[l], fmaf(x, y, -x));
            expect_f32(arch, "fmac x + y*y", l, ROW(4)[l], fmaf(y, y, x));
            expect_f32(arch, "max(x, -y)", l, ROW(5)[l], x > -y ? x : -y);
            /* reciprocal and square root: the hardware is accurate to 1 ulp */
            float r = 1.0f / y, q = sqrtf(y);
            uint32_t ur = u32(r), uq = u32(q);
            if (ROW(6)[l] + 1 < ur || ROW(6)[l] > ur + 1)
                expect_u32(arch, "v_rcp_f32 (1 ulp)", l, ROW(6)[l], ur);
            if (ROW(7)[l] + 1 < uq || ROW(7)[l] > uq + 1)
                expect_u32(arch, "v_sqrt_f32 (1 ulp)", l, ROW(7)[l], uq);
            expect_f32(arch, "floor", l, ROW(8)[l], floorf(x));
            expect_f32(arch, "ceil", l, ROW(9)[l], ceilf(x));
            expect_f32(arch, "trunc", l, ROW(10)[l], truncf(x));
            expect_f32(arch, "rndne", l, ROW(11)[l], rintf(x)); /* ties to even: 2.5 -> 2, -1.5 -> -2 */
            expect_f32(arch, "fract", l, ROW(12)[l], x - floorf(x));
            expect_u32(arch, "cvt_i32 (toward 0)", l, ROW(13)[l], (uint32_t)(int32_t)truncf(x));
            expect_u32(arch, "cvt_u32 (negative -> 0)", l, ROW(14)[l], x < 0 ? 0 : (uint32_t)x);
            expect_u32(arch, "cvt_rpi", l, ROW(15)[l], (uint32_t)(int32_t)floorf(x + 0.5f));
            expect_u32(arch, "cvt_flr", l, ROW(16)[l], (uint32_t)(int32_t)floorf(x));
            expect_f32(arch, "ldexp(x, 3)", l, ROW(17)[l], x * 8.0f);
            float lo = x < y ? x : y, hi = x < y ? y : x;
            expect_f32(arch, "med3(x, y, 1)", l, ROW(18)[l], 1.0f < lo ? lo : 1.0f > hi ? hi : 1.0f);
            float m3 = x > -y ? x : -y;
            expect_f32(arch, "max3(x, -y, -4)", l, ROW(19)[l], m3 > -4.0f ? m3 : -4.0f);
            expect_f32(arch, "sdwa (x + y) div:2", l, ROW(20)[l], (x + y) * 0.5f);
            expect_f32(arch, "f64 (x + 1)^2", l, ROW(21)[l], (float)(((double)x + 1.0) * ((double)x + 1.0)));
            double dl = (double)l;
            uint64_t bits;
            memcpy(&bits, &dl, 8);
            expect_u32(arch, "cvt_f64_i32 lo", l, ROW(22)[l], (uint32_t)bits);
            expect_u32(arch, "cvt_f64_i32 hi", l, ROW(23)[l], (uint32_t)(bits >> 32));
            expect_u32(arch, "denormal kept", l, ROW(24)[l], 0x00400000);
            expect_f32(arch, "exp2(2) + log2(4)", l, ROW(25)[l], 6.0f);
            expect_f32(arch, "cvt_f32_ubyte2", l, ROW(26)[l], 171.0f);
            expect_f32(arch, "y - x", l, ROW(27)[l], y - x);
            expect_f32(arch, "literal * y", l, ROW(28)[l], f32(0x3eaaaaab) * y);
            expect_f32(arch, "cvt_f32_i32 div:2", l, ROW(29)[l], (float)l * 0.5f);
            expect_f32(arch, "min(-|x|, y)", l, ROW(30)[l], -fabsf(x));
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* Legacy multiply-adds of gfx906/gfx908 (v_mac_f32, v_madmk_f32,
 * v_madak_f32, v_mad_f32): not fused, denormals flushed. */
static void valu_legacy_mad(void **state)
{
    (void)state;
    static const char *const body =
        "    v_cvt_f32_u32 v2, v0\n"
        "    v_add_f32 v3, 0.5, v2\n"                  /* y = l + 0.5 */
        "    v_mov_b32 v4, 1.0\n"
        "    v_mac_f32 v4, v2, v3\n"                   /* 1 + l*(l+0.5) */
        "    global_store_dword v1, v4, s[4:5]\n"
        "    v_madmk_f32 v4, v2, 0x40400000, v3\n"     /* l*3 + y */
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_madak_f32 v4, v2, v3, 0x41200000\n"     /* l*y + 10 */
        "    global_store_dword v1, v4, s[4:5] offset:512\n"
        "    v_mad_f32 v4, v2, -v3, 2.0\n"
        "    global_store_dword v1, v4, s[4:5] offset:768\n"
        "    v_mov_b32 v5, 0x00800000\n"
        "    v_mad_f32 v4, v5, 0.5, 0\n"              /* denormal result flushed to 0 */
        "    global_store_dword v1, v4, s[4:5] offset:1024\n";
    nbad = 0;
    for (int ai = 0; ai < 2; ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(5 * 64, 0xdeadbeef);
        run(arch, body, 1, 64, 0, 1, out, 5 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            float x = (float)l, y = (float)l + 0.5f;
            expect_f32(arch, "v_mac_f32", l, ROW(0)[l], x * y + 1.0f);
            expect_f32(arch, "v_madmk_f32", l, ROW(1)[l], x * 3.0f + y);
            expect_f32(arch, "v_madak_f32", l, ROW(2)[l], x * y + 10.0f);
            expect_f32(arch, "v_mad_f32", l, ROW(3)[l], x * -y + 2.0f);
            expect_u32(arch, "v_mad_f32 flushes denormals", l, ROW(4)[l], 0);
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* ---- fp16, bf16 and packed ---- */

/* f32 -> f16 bits, round to nearest even, for the normal range used here */
static uint16_t h(float f)
{
    uint32_t u = u32(f), sign = (u >> 16) & 0x8000;
    if (!(u & 0x7fffffff))
        return (uint16_t)sign;
    uint32_t e = ((u >> 23) & 255) - 127 + 15, m = u & 0x7fffff;
    uint32_t r = e << 10 | m >> 13, rest = m & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (r & 1)))
        r++;
    return (uint16_t)(sign | r);
}

/* f16 bits -> f32, normal numbers and zero */
static float hf(uint16_t v)
{
    uint32_t sign = (uint32_t)(v & 0x8000) << 16, e = (v >> 10) & 31, m = v & 1023;
    return f32(e ? sign | (e - 15 + 127) << 23 | m << 13 : sign);
}

static void valu_fp16_bf16_packed(void **state)
{
    (void)state;
    /* x = (l - 20) / 2, y = l + 1 as f32; hx, hy as f16 */
    static const char *const body =
        "    v_subrev_u32 v2, 20, v0\n"
        "    v_cvt_f32_i32 v2, v2\n"
        "    v_mul_f32 v2, 0.5, v2\n"
        "    v_cvt_f32_u32 v3, v0\n"
        "    v_add_f32 v3, 1.0, v3\n"
        "    v_cvt_f16_f32 v5, v2\n"
        "    v_cvt_f16_f32 v6, v3\n"
        "    global_store_dword v1, v5, s[4:5]\n"
        "    v_add_f16 v7, v5, v6\n"
        "    global_store_dword v1, v7, s[4:5] offset:256\n"
        "    v_mul_f16 v7, v5, v6\n"
        "    global_store_dword v1, v7, s[4:5] offset:512\n"
        "    v_fma_f16 v7, v5, v6, -v5\n"
        "    global_store_dword v1, v7, s[4:5] offset:768\n"
        "    v_cvt_f32_f16 v8, v7\n"
        "    global_store_dword v1, v8, s[4:5] offset:1024\n"
        "    v_pack_b32_f16 v9, v5, v6\n"
        "    global_store_dword v1, v9, s[4:5] offset:1280\n"
        "    v_pk_add_f16 v10, v9, v9\n"
        "    global_store_dword v1, v10, s[4:5] offset:1536\n"
        "    v_pk_mul_f16 v10, v9, v9 op_sel:[1,0] op_sel_hi:[0,1]\n" /* lo: hy*hx, hi: hx*hy */
        "    global_store_dword v1, v10, s[4:5] offset:1792\n"
        "    v_pk_fma_f16 v10, v9, v9, v9 neg_lo:[1,0,0] neg_hi:[0,0,1]\n" /* lo: -hx*hx + hx, hi: hy*hy - hy */
        "    global_store_dword v1, v10, s[4:5] offset:2048\n"
        "    v_fma_mix_f32 v11, v9, v3, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]\n" /* hy * y + x */
        "    global_store_dword v1, v11, s[4:5] offset:2304\n"
        "    v_dot2_f32_f16 v11, v9, v9, v2\n"                   /* hx*hx + hy*hy + x */
        "    s_nop 2\n"                                          /* gfx90a+: dot result read by another op */
        "    global_store_dword v1, v11, s[4:5] offset:2560\n"
        "    s_mov_b32 s20, 0x3f801800\n"                        /* 1 + 0.75 ulp(f16) */
        "    s_mov_b32 s21, 0x3f801000\n"                        /* 1 + 0.5 ulp: tie to even */
        "    s_mov_b32 s22, 0x3f803000\n"                        /* 1 + 1.5 ulp: tie to even */
        "    v_cvt_f16_f32 v12, s20\n"
        "    v_cvt_f16_f32 v13, s21\n"
        "    v_cvt_f16_f32 v14, s22\n"
        "    v_cvt_pkrtz_f16_f32 v15, s20, v3\n"                 /* rounds toward zero */
        "    global_store_dword v1, v12, s[4:5] offset:2816\n"
        "    global_store_dword v1, v13, s[4:5] offset:3072\n"
        "    global_store_dword v1, v14, s[4:5] offset:3328\n"
        "    global_store_dword v1, v15, s[4:5] offset:3584\n"
        "    v_max_f16_e64 v7, v5, -v6 clamp\n"
        "    global_store_dword v1, v7, s[4:5] offset:3840\n"
        "    s_add_u32 s4, s4, 0x1000\n"
        "    s_addc_u32 s5, s5, 0\n"
        /* bf16: f32 -> bf16 rounding to nearest even with integer ops, and back */
        "    s_mov_b32 s23, 0x7fff\n"
        "    v_mov_b32 v16, 0x3f808000\n"                        /* tie: stays 0x3f80 */
        "    v_mov_b32 v17, 0x3f818000\n"                        /* tie: to 0x3f82 */
        "    v_mov_b32 v18, 0x3f80c000\n"                        /* above half: 0x3f81 */
        "    v_bfe_u32 v19, v16, 16, 1\n"
        "    v_add3_u32 v19, v16, v19, s23\n"
        "    v_lshrrev_b32 v19, 16, v19\n"
        "    v_bfe_u32 v20, v17, 16, 1\n"
        "    v_add3_u32 v20, v17, v20, s23\n"
        "    v_lshrrev_b32 v20, 16, v20\n"
        "    v_bfe_u32 v21, v18, 16, 1\n"
        "    v_add3_u32 v21, v18, v21, s23\n"
        "    v_and_b32 v21, 0xffff0000, v21\n"                   /* keep as f32 bits */
        "    v_lshl_or_b32 v22, v20, 16, v19\n"                  /* packed bf16 pair */
        "    global_store_dword v1, v22, s[4:5]\n"
        "    global_store_dword v1, v21, s[4:5] offset:256\n"
        "    v_mov_b32_sdwa v23, v22 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_0\n" /* bf16 lo -> f32 */
        "    v_and_b32 v24, 0xffff0000, v22\n"                   /* bf16 hi -> f32 */
        "    v_mul_f32 v25, v23, v24\n"
        "    global_store_dword v1, v25, s[4:5] offset:512\n"
        "    v_cvt_f32_f16_sdwa v26, v9 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1\n" /* y */
        "    global_store_dword v1, v26, s[4:5] offset:768\n"
        "    v_fma_mixlo_f16 v27, v2, v3, 0 op_sel_hi:[0,0,0]\n" /* f16(x*y) into the low half */
        "    global_store_dword v1, v27, s[4:5] offset:1024\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(32 * 64, 0xdeadbeef);
        tc_sbuf full = {0};
        tc_put(&full, "    v_mov_b32 v27, 0xabcd0000\n%s", body); /* preset for the mixlo */
        run(arch, full.s, 1, 64, 0, 1, out, 32 * 64, NULL, 0);
        free(full.s);
        for (int l = 0; l < 64; l++) {
            float x = (float)(l - 20) * 0.5f, y = (float)(l + 1);
            uint16_t hx = h(x), hy = h(y);
            expect_u32(arch, "v_cvt_f16_f32", l, ROW(0)[l], hx);
            expect_u32(arch, "v_add_f16", l, ROW(1)[l], h(x + y));
            /* x*y and x*y - x stay exact in f16 below 2048 in steps of 0.5 */
            expect_u32(arch, "v_mul_f16", l, ROW(2)[l], h(x * y));
            expect_u32(arch, "v_fma_f16", l, ROW(3)[l], h(x * y - x));
            expect_f32(arch, "v_cvt_f32_f16", l, ROW(4)[l], hf(h(x * y - x)));
            expect_u32(arch, "v_pack_b32_f16", l, ROW(5)[l], hx | (uint32_t)hy << 16);
            expect_u32(arch, "v_pk_add_f16", l, ROW(6)[l], h(2 * x) | (uint32_t)h(2 * y) << 16);
            expect_u32(arch, "v_pk_mul_f16 op_sel", l, ROW(7)[l], h(x * y) | (uint32_t)h(x * y) << 16);
            expect_u32(arch, "v_pk_fma_f16 neg", l, ROW(8)[l], h(-x * x + x) | (uint32_t)h(y * y - y) << 16);
            expect_f32(arch, "v_fma_mix_f32", l, ROW(9)[l], y * y + x);
            expect_f32(arch, "v_dot2_f32_f16", l, ROW(10)[l], x * x + y * y + x);
            expect_u32(arch, "cvt_f16 0.75 ulp up", l, ROW(11)[l], 0x3c01);
            expect_u32(arch, "cvt_f16 tie to even (down)", l, ROW(12)[l], 0x3c00);
            expect_u32(arch, "cvt_f16 tie to even (up)", l, ROW(13)[l], 0x3c02);
            expect_u32(arch, "cvt_pkrtz", l, ROW(14)[l], 0x3c00u | (uint32_t)hy << 16);
            float mx = x > -y ? x : -y;
            expect_u32(arch, "v_max_f16 clamp", l, ROW(15)[l], h(mx < 0.0f ? 0.0f : mx > 1.0f ? 1.0f : mx));
            expect_u32(arch, "bf16 pair (RNE)", l, ROW(16)[l], 0x3f80u | 0x3f82u << 16);
            expect_u32(arch, "bf16 RNE above half", l, ROW(17)[l], 0x3f810000u);
            expect_f32(arch, "bf16 lo * hi", l, ROW(18)[l], 1.0f * f32(0x3f820000));
            expect_f32(arch, "cvt_f32_f16 sdwa WORD_1", l, ROW(19)[l], y);
            expect_u32(arch, "v_fma_mixlo_f16", l, ROW(20)[l], 0xabcd0000u | h(x * y));
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* Packed 16-bit integer mad and min, with op_sel/op_sel_hi choosing halves
 * (the generator's subnormal test: 2h - 2 per half, the least of them). */
static void valu_packed_u16(void **state)
{
    (void)state;
    static const char *const body =
        "    v_mul_u32_u24 v2, 0x9e37, v0\n"                 /* lo: 0x9e37 * l, hi: 0x3c5 * l + 0x400 */
        "    v_mul_u32_u24 v3, 0x3c5, v0\n"
        "    v_add_u32 v3, 0x400, v3\n"
        "    v_and_b32 v2, 0xffff, v2\n"
        "    v_lshl_or_b32 v2, v3, 16, v2\n"               /* v3's low half over v2's */
        "    global_store_dword v1, v2, s[4:5]\n"
        "    v_pk_mad_u16 v4, v2, 2, -2 op_sel_hi:[1,0,0]\n" /* 2h - 2 per half, mod 2^16 */
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_pk_min_u16 v5, v4, v2\n"
        "    global_store_dword v1, v5, s[4:5] offset:512\n"
        "    v_pk_min_u16 v6, v4, v4 op_sel:[0,1] op_sel_hi:[1,0]\n" /* lo: min(lo, hi), hi: min(hi, lo) */
        "    global_store_dword v1, v6, s[4:5] offset:768\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(4 * 64, 0xdeadbeef);
        run(arch, body, 1, 64, 0, 1, out, 4 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            uint32_t lo = (0x9e37u * (uint32_t)l) & 0xffff, hi = (0x3c5u * (uint32_t)l + 0x400) & 0xffff;
            uint32_t mlo = (2 * lo - 2) & 0xffff, mhi = (2 * hi - 2) & 0xffff;
            uint32_t both = mlo < mhi ? mlo : mhi;
            expect_u32(arch, "packed halves", l, ROW(0)[l], lo | hi << 16);
            expect_u32(arch, "v_pk_mad_u16", l, ROW(1)[l], mlo | mhi << 16);
            expect_u32(arch, "v_pk_min_u16", l, ROW(2)[l], (mlo < lo ? mlo : lo) | (mhi < hi ? mhi : hi) << 16);
            expect_u32(arch, "v_pk_min_u16 op_sel", l, ROW(3)[l], both | both << 16);
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* Packed fp32 of gfx90a/gfx942. */
static void valu_packed_f32(void **state)
{
    (void)state;
    static const char *const body =
        "    v_cvt_f32_u32 v2, v0\n"                     /* x = l */
        "    v_add_f32 v3, 0.5, v2\n"                    /* y = l + 0.5 */
        "    v_pk_fma_f32 v[4:5], v[2:3], v[2:3], v[2:3]\n"           /* x*x + x, y*y + y */
        "    global_store_dword v1, v4, s[4:5]\n"
        "    global_store_dword v1, v5, s[4:5] offset:256\n"
        "    v_pk_mul_f32 v[4:5], v[2:3], v[2:3] op_sel:[0,1] op_sel_hi:[1,0]\n" /* x*y, y*x */
        "    global_store_dword v1, v4, s[4:5] offset:512\n"
        "    global_store_dword v1, v5, s[4:5] offset:768\n"
        "    v_pk_add_f32 v[4:5], v[2:3], v[2:3] neg_lo:[1,0] neg_hi:[0,1]\n" /* -x + x, y - y */
        "    global_store_dword v1, v4, s[4:5] offset:1024\n"
        "    global_store_dword v1, v5, s[4:5] offset:1280\n"
        "    v_pk_mov_b32 v[4:5], v[2:3], v[2:3] op_sel:[1,0]\n"       /* lo: src0 dword 1 = y, hi: src1 dword 0 = x */
        "    global_store_dword v1, v4, s[4:5] offset:1536\n"
        "    global_store_dword v1, v5, s[4:5] offset:1792\n";
    nbad = 0;
    for (int ai = 2; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(8 * 64, 0xdeadbeef);
        run(arch, body, 1, 64, 0, 1, out, 8 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            float x = (float)l, y = (float)l + 0.5f;
            expect_f32(arch, "pk_fma lo", l, ROW(0)[l], fmaf(x, x, x));
            expect_f32(arch, "pk_fma hi", l, ROW(1)[l], fmaf(y, y, y));
            expect_f32(arch, "pk_mul op_sel lo", l, ROW(2)[l], x * y);
            expect_f32(arch, "pk_mul op_sel hi", l, ROW(3)[l], y * x);
            expect_f32(arch, "pk_add neg lo", l, ROW(4)[l], 0.0f);
            expect_f32(arch, "pk_add neg hi", l, ROW(5)[l], 0.0f);
            expect_f32(arch, "pk_mov lo", l, ROW(6)[l], y);
            expect_f32(arch, "pk_mov hi", l, ROW(7)[l], x);
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* ---- comparisons, v_cndmask, carry chains ---- */

static void valu_compare_cndmask_carry(void **state)
{
    (void)state;
    static const char *const code =
        "    v_subrev_u32 v2, 20, v0\n"
        "    v_cvt_f32_i32 v2, v2\n"
        "    v_mul_f32 v2, 0.5, v2\n"                 /* x = (l - 20) / 2 */
        "    v_cvt_f32_u32 v3, v0\n"
        "    v_add_f32 v3, 1.0, v3\n"                 /* y = l + 1 */
        "    v_cmp_gt_i32 vcc, 40, v0\n"              /* lanes 0..39 */
        "    s_mov_b64 s[20:21], vcc\n"
        "    s_nop 1\n" /* gfx942: VALU-written SGPR read by VALU */
        "    v_cndmask_b32 v4, v0, v2, vcc\n"         /* vcc ? x : l */
        "    global_store_dword v1, v4, s[4:5]\n"
        "    v_cmp_lt_f32_e64 s[22:23], v2, 0\n"      /* x < 0: lanes 0..19 */
        "    s_nop 1\n"
        "    v_cndmask_b32_e64 v4, 0, 1.0, s[22:23]\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_cndmask_b32_e64 v4, -v2, |v3|, s[22:23]\n" /* x < 0 ? |y| : -x */
        "    global_store_dword v1, v4, s[4:5] offset:512\n"
        "    v_cmp_eq_u32_e64 s[24:25], v0, 0\n"
        "    s_mov_b32 s60, 0x60\n"
        "    v_cmp_class_f32_e64 s[26:27], v2, s60\n" /* +-0: lane 20 */
        "    v_mov_b32 v6, -1\n"
        "    v_add_co_u32 v8, vcc, v6, v0\n"          /* 64-bit (l << 32 | 0xffffffff) + l */
        "    s_nop 1\n"
        "    v_addc_co_u32 v9, vcc, v0, 0, vcc\n"
        "    s_mov_b64 s[28:29], vcc\n"               /* no carry out of the high half */
        "    global_store_dword v1, v8, s[4:5] offset:768\n"
        "    global_store_dword v1, v9, s[4:5] offset:1024\n"
        "    v_sub_co_u32_e64 v8, s[30:31], v0, 5\n"  /* borrow for l < 5 */
        "    s_nop 1\n"
        "    v_subb_co_u32_e64 v9, s[32:33], 0, 0, s[30:31]\n"
        "    global_store_dword v1, v8, s[4:5] offset:1280\n"
        "    global_store_dword v1, v9, s[4:5] offset:1536\n"
        "    v_addc_co_u32_e64 v8, s[34:35], v0, -1, s[30:31]\n"
        "    global_store_dword v1, v8, s[4:5] offset:1792\n"
        "    v_mov_b32 v12, -1\n"
        "    v_mov_b32 v13, v0\n"
        "    v_mad_u64_u32 v[10:11], s[44:45], v6, v6, v[12:13]\n" /* (2^32-1)^2 + (l << 32 | 2^32-1) */
        "    global_store_dword v1, v10, s[4:5] offset:2048\n"
        "    global_store_dword v1, v11, s[4:5] offset:2304\n"
        "    v_mov_b32 v14, 0x7fc00000\n"             /* NaN */
        "    v_cmp_lg_f32_e64 s[46:47], v14, v2\n"    /* ordered and not equal: never */
        "    v_cmp_neq_f32_e64 s[48:49], v14, v2\n"   /* unordered or not equal: always */
        "    v_cmp_nlt_f32_e64 s[50:51], v2, 0.5\n"   /* !(x < 0.5): lanes 21.. */
        "    v_cmp_u_f32 vcc, v14, v2\n"
        "    s_mov_b64 s[52:53], vcc\n"
        "    v_cmpx_gt_u32_e64 s[36:37], 8, v0\n"     /* exec = lanes 0..7 */
        "    s_mov_b64 s[38:39], exec\n"
        "    s_mov_b32 exec_lo, 0x55555555\n"
        "    s_mov_b32 exec_hi, 0x55555555\n"
        "    v_cmp_le_u32 vcc, 0, v0\n"               /* true everywhere, inactive lanes 0 */
        "    s_mov_b64 s[40:41], vcc\n"
        "    v_cmp_lt_u32_e64 s[42:43], v0, 40\n"
        "    v_cmp_ne_u64_e64 s[54:55], s[20:21], v[8:9]\n" /* v8 < 64, never 0xffffffff: true in every active lane */
        "    s_mov_b64 exec, -1\n";
    static const int regs[] = {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
                               38, 39, 40, 41, 42, 43, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 44, 45};
    uint32_t want[] = {0xffffffff, 0xff, 0xfffff, 0, 1, 0, 1u << 20, 0, 0, 0, 0x1f, 0, 0x1f, 0,
                       0xffffffff, 0xffffffff, 0xff, 0, 0xff, 0, 0x55555555, 0x55555555, 0x55555555, 0x55,
                       0, 0, 0xffffffff, 0xffffffff, 0xffe00000, 0xffffffff, 0xffffffff, 0xffffffff,
                       0x55555555, 0x55555555, 0xfffffffe, 0xffffffff}; /* carry out of the mad: lanes 1..63 */
    int n = (int)(sizeof regs / sizeof regs[0]);
    assert_int_equal(n, (int)(sizeof want / sizeof want[0]));
    tc_sbuf body = {0};
    tc_put(&body, "%s    s_nop 1\n", code);
    gather(&body, 16, regs, n);
    tc_put(&body, "    global_store_dword v1, v16, s[4:5] offset:2560\n");
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(11 * 64, 0xdeadbeef);
        run(arch, body.s, 1, 64, 0, 1, out, 11 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            float x = (float)(l - 20) * 0.5f, y = (float)(l + 1);
            uint32_t L = (uint32_t)l;
            expect_u32(arch, "v_cndmask vcc", l, ROW(0)[l], l < 40 ? u32(x) : L);
            expect_f32(arch, "v_cndmask_e64 consts", l, ROW(1)[l], l < 20 ? 1.0f : 0.0f);
            expect_f32(arch, "v_cndmask_e64 neg/abs", l, ROW(2)[l], l < 20 ? y : -x);
            uint64_t s64 = ((uint64_t)L << 32 | 0xffffffffu) + L;
            expect_u32(arch, "64-bit add lo", l, ROW(3)[l], (uint32_t)s64);
            expect_u32(arch, "64-bit add hi", l, ROW(4)[l], (uint32_t)(s64 >> 32));
            expect_u32(arch, "v_sub_co_u32_e64", l, ROW(5)[l], L - 5);
            expect_u32(arch, "v_subb_co_u32_e64", l, ROW(6)[l], l < 5 ? 0xffffffffu : 0);
            expect_u32(arch, "v_addc_co_u32_e64", l, ROW(7)[l], l < 5 ? L : L - 1);
            /* 2^64 - 2^33 + 1 + l * 2^32 + 2^32 - 1 = 2^64 + (l - 1) * 2^32 */
            expect_u32(arch, "v_mad_u64_u32 lo", l, ROW(8)[l], 0);
            expect_u32(arch, "v_mad_u64_u32 hi", l, ROW(9)[l], L - 1);
        }
        expect_sregs(arch, ROW(10), regs, want, n);
        free(out);
    }
    free(body.s);
    assert_int_equal(nbad, 0);
}

/* ---- lane operations, DPP, SDWA ---- */

static void valu_lanes_dpp_sdwa(void **state)
{
    (void)state;
    static const char *const code =
        "    v_mul_u32_u24 v2, 3, v0\n"               /* 3l */
        "    v_mov_b32 v5, 0x3e8\n"
        "    v_mov_b32 v6, 0x3e8\n"
        "    v_mov_b32 v7, 0x3e8\n"
        "    v_mov_b32 v8, 0x3e8\n"
        "    v_mov_b32 v9, 0x3e8\n"
        "    v_mov_b32 v11, 0x3e8\n"
        "    v_mov_b32 v13, 0x3e8\n"
        "    v_readlane_b32 s20, v2, 17\n"
        "    s_mov_b32 s21, 40\n"
        "    v_readlane_b32 s22, v2, s21\n"
        "    s_nop 1\n"
        "    v_mov_b32 v3, v2\n"
        "    v_writelane_b32 v3, s22, 5\n"
        "    global_store_dword v1, v3, s[4:5]\n"
        "    s_mov_b32 exec_lo, 0xffff0000\n"
        "    s_mov_b32 exec_hi, 0\n"
        "    v_readfirstlane_b32 s23, v2\n"           /* first active lane: 16 */
        "    s_mov_b64 exec, -1\n"
        "    v_mov_b32_dpp v4, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    v_mov_b32_dpp v5, v2 row_shr:1 row_mask:0xf bank_mask:0xf\n"
        "    global_store_dword v1, v5, s[4:5] offset:512\n"
        "    v_mov_b32_dpp v6, v2 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0\n"
        "    global_store_dword v1, v6, s[4:5] offset:768\n"
        "    v_mov_b32_dpp v7, v2 row_ror:2 row_mask:0x5 bank_mask:0xf\n"
        "    global_store_dword v1, v7, s[4:5] offset:1024\n"
        "    v_add_u32_dpp v8, v2, v0 row_shl:1 row_mask:0xf bank_mask:0x3\n"
        "    global_store_dword v1, v8, s[4:5] offset:1280\n"
        "    v_mov_b32_dpp v9, v2 wave_shr:1 row_mask:0xf bank_mask:0xf\n"
        "    global_store_dword v1, v9, s[4:5] offset:1536\n"
        "    v_mov_b32_dpp v10, v2 row_mirror row_mask:0xf bank_mask:0xf\n"
        "    global_store_dword v1, v10, s[4:5] offset:1792\n"
        "    v_mov_b32_dpp v11, v2 row_bcast:15 row_mask:0xa bank_mask:0xf\n"
        "    global_store_dword v1, v11, s[4:5] offset:2048\n"
        "    v_mov_b32_dpp v12, v2 wave_rol:1 row_mask:0xf bank_mask:0xf\n"
        "    global_store_dword v1, v12, s[4:5] offset:2304\n"
        "    s_mov_b32 exec_lo, -2\n"                 /* lane 0 off */
        "    v_mov_b32_dpp v13, v2 quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf\n"
        "    s_mov_b64 exec, -1\n"
        "    global_store_dword v1, v13, s[4:5] offset:2560\n"
        "    s_mov_b32 s24, 0x11223344\n"
        "    v_mov_b32 v14, s24\n"
        "    v_mov_b32_sdwa v14, v2 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0\n"
        "    global_store_dword v1, v14, s[4:5] offset:2816\n"
        "    v_mov_b32 v15, 0xff80ff7f\n"
        "    v_add_u32_sdwa v16, v15, v0 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD\n"
        "    global_store_dword v1, v16, s[4:5] offset:3072\n"
        "    v_add_u32_sdwa v17, sext(v15), v0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:DWORD\n"
        "    global_store_dword v1, v17, s[4:5] offset:3328\n"
        "    v_mov_b32_sdwa v18, v15 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_2\n"
        "    global_store_dword v1, v18, s[4:5] offset:3584\n"
        "    v_mov_b32 v19, 0xdead0000\n"
        "    v_mul_u32_u24_sdwa v19, v15, v0 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_0\n"
        "    global_store_dword v1, v19, s[4:5] offset:3840\n"
        "    v_cmp_gt_u32_sdwa vcc, v2, v0 src0_sel:BYTE_0 src1_sel:DWORD\n" /* (3l & 255) > l */
        "    s_mov_b64 s[26:27], vcc\n";
    static const int regs[] = {20, 22, 23, 26, 27};
    static const uint32_t want[] = {51, 120, 48, 0xfffffffe, 0xffffffff};
    int n = (int)(sizeof regs / sizeof regs[0]);
    tc_sbuf body = {0};
    tc_put(&body, "%s    s_nop 1\n", code);
    gather(&body, 20, regs, n);
    tc_put(&body, "    s_add_u32 s4, s4, 0x1000\n    s_addc_u32 s5, s5, 0\n"
                  "    global_store_dword v1, v20, s[4:5]\n");
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(17 * 64, 0xdeadbeef);
        run(arch, body.s, 1, 64, 0, 1, out, 17 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            uint32_t v2 = 3u * (uint32_t)l;
            int row = l / 16, li = l % 16;
            expect_u32(arch, "v_writelane", l, ROW(0)[l], l == 5 ? 120 : v2);
            expect_u32(arch, "dpp quad_perm", l, ROW(1)[l], 3u * (uint32_t)((l & ~3) + 3 - (l & 3)));
            expect_u32(arch, "dpp row_shr:1", l, ROW(2)[l], li == 0 ? 1000 : v2 - 3);
            expect_u32(arch, "dpp row_shr:3 bound_ctrl", l, ROW(3)[l], li < 3 ? 0 : v2 - 9);
            expect_u32(arch, "dpp row_ror:2 row_mask", l, ROW(4)[l],
                       row == 1 || row == 3 ? 1000 : 3u * (uint32_t)(row * 16 + (li + 14) % 16));
            expect_u32(arch, "dpp row_shl:1 bank_mask", l, ROW(5)[l], li >= 8 ? 1000 : 3u * (uint32_t)(l + 1) + (uint32_t)l);
            expect_u32(arch, "dpp wave_shr:1", l, ROW(6)[l], l == 0 ? 1000 : v2 - 3);
            expect_u32(arch, "dpp row_mirror", l, ROW(7)[l], 3u * (uint32_t)(row * 16 + 15 - li));
            expect_u32(arch, "dpp row_bcast:15", l, ROW(8)[l], row == 1 || row == 3 ? 3u * (uint32_t)(row * 16 - 1) : 1000);
            expect_u32(arch, "dpp wave_rol:1", l, ROW(9)[l], 3u * (uint32_t)((l + 1) % 64));
            expect_u32(arch, "dpp source lane off", l, ROW(10)[l], l < 4 ? 1000 : 3u * (uint32_t)(l & ~3));
            expect_u32(arch, "sdwa BYTE_1 preserve", l, ROW(11)[l], (0x11223344u & 0xffff00ffu) | (v2 & 0xff) << 8);
            expect_u32(arch, "sdwa WORD_1 pad", l, ROW(12)[l], ((0x7fu + (uint32_t)l) & 0xffff) << 16);
            expect_u32(arch, "sdwa sext BYTE_1", l, ROW(13)[l], (uint32_t)l - 1);
            expect_u32(arch, "sdwa UNUSED_SEXT", l, ROW(14)[l], 0xffffff80u);
            expect_u32(arch, "sdwa WORD_0 preserve", l, ROW(15)[l], 0xdead0000u | ((0xff80u * (uint32_t)l) & 0xffff));
        }
        expect_sregs(arch, ROW(16), regs, want, n);
        free(out);
    }
    free(body.s);
    assert_int_equal(nbad, 0);
}

/* ---- LDS ---- */

static void ds_single_wave(void **state)
{
    (void)state;
    static const char *const body =
        "    v_mul_u32_u24 v2, 3, v0\n"                       /* 3l */
        "    v_add_u32 v3, 0x3e8, v0\n"                       /* l + 1000 */
        "    ds_write_b32 v1, v2\n"                           /* [0, 256): 3l */
        "    ds_write2_b32 v1, v2, v3 offset0:64 offset1:128\n" /* [256, 512): 3l, [512, 768): l + 1000 */
        "    v_lshlrev_b32 v6, 3, v0\n"
        "    v_mov_b32 v4, v0\n"
        "    v_not_b32 v5, v0\n"
        "    ds_write_b64 v6, v[4:5] offset:1024\n"           /* [1024, 1536): l, ~l */
        "    v_lshlrev_b32 v7, 4, v0\n"
        "    v_mov_b32 v8, v0\n"
        "    v_lshlrev_b32 v9, 1, v0\n"
        "    v_mov_b32 v10, v2\n"
        "    v_lshlrev_b32 v11, 2, v0\n"
        "    ds_write_b128 v7, v[8:11] offset:1536\n"         /* [1536, 2560): l, 2l, 3l, 4l */
        "    v_lshlrev_b32 v12, 1, v0\n"
        "    v_or_b32 v13, 0x8000, v0\n"
        "    ds_write_b16 v12, v13 offset:2560\n"             /* [2560, 2688): 0x8000 | l */
        "    v_or_b32 v14, 0x80, v0\n"
        "    ds_write_b8 v0, v14 offset:2688\n"               /* [2688, 2752): 0x80 | l */
        "    v_mov_b32 v15, 0\n"
        "    ds_write_b32 v15, v15 offset:2816\n"
        "    ds_write_b32 v15, v15 offset:2820\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    v_add_u32 v17, 1, v0\n"
        "    ds_add_u32 v15, v17 offset:2816\n"               /* 1 + 2 + ... + 64 */
        "    v_mov_b32 v18, 0.5\n"
        "    ds_add_f32 v15, v18 offset:2820\n"               /* 64 * 0.5 */
        "    s_waitcnt lgkmcnt(0)\n"
        "    v_mov_b32 v36, 0xabcd1234\n"
        "    v_mov_b32 v37, 0xabcd1234\n"
        "    ds_read_b32 v20, v1\n"
        "    ds_read2_b32 v[22:23], v1 offset0:64 offset1:128\n"
        "    ds_read2st64_b32 v[24:25], v1 offset1:1\n"        /* dwords l and l + 64 */
        "    ds_read_b64 v[26:27], v6 offset:1024\n"
        "    ds_read_b128 v[28:31], v7 offset:1536\n"
        "    ds_read_u16 v32, v12 offset:2560\n"
        "    ds_read_i16 v33, v12 offset:2560\n"
        "    ds_read_u8 v34, v0 offset:2688\n"
        "    ds_read_i8 v35, v0 offset:2688\n"
        "    ds_read_u16_d16_hi v36, v12 offset:2560\n"
        "    ds_read_u16_d16 v37, v12 offset:2560\n"
        "    ds_read_b32 v38, v15 offset:2816\n"
        "    ds_read_b32 v39, v15 offset:2820\n"
        "    ds_read2_b64 v[40:43], v6 offset0:128 offset1:129\n" /* 8-byte units: 1024 + 8l and 1032 + 8l */
        "    ds_swizzle_b32 v44, v2 offset:swizzle(SWAP,1)\n"
        "    ds_swizzle_b32 v45, v2 offset:swizzle(QUAD_PERM,3,2,1,0)\n"
        "    ds_swizzle_b32 v46, v2 offset:swizzle(BROADCAST,8,3)\n"
        "    v_add_u32 v47, 20, v0\n"
        "    v_and_b32 v47, 63, v47\n"
        "    v_lshlrev_b32 v47, 2, v47\n"
        "    ds_bpermute_b32 v48, v47, v2\n"                  /* reads lane (l + 20) % 64 */
        "    ds_permute_b32 v49, v47, v2\n"                   /* writes lane (l + 20) % 64 */
        /* into the address register itself: every element at the address
           the instruction began with */
        "    v_mov_b32 v50, v1\n"
        "    ds_read2_b32 v[50:51], v50 offset0:64 offset1:128\n"
        "    v_mov_b32 v52, v7\n"
        "    ds_read_b128 v[52:55], v52 offset:1536\n"
        "    s_waitcnt lgkmcnt(0)\n";
    static const int regs[] = {20, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                               39, 40, 41, 42, 43, 44, 45, 46, 48, 49, 50, 51, 52, 53, 54, 55};
    int n = (int)(sizeof regs / sizeof regs[0]);
    tc_sbuf full = {0};
    tc_put(&full, "%s", body);
    for (int i = 0; i < n; i++) {
        if (i == 15 || i == 30)
            tc_put(&full, "    s_add_u32 s4, s4, 0x1000\n    s_addc_u32 s5, s5, 0\n");
        tc_put(&full, "    global_store_dword v1, v%d, s[4:5] offset:%d\n", regs[i], 256 * (i % 15));
    }
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(64 * 64, 0xdeadbeef);
        run(arch, full.s, 1, 64, 4096, 1, out, 64 * 64, NULL, 0);
        for (int l = 0; l < 64; l++) {
            uint32_t L = (uint32_t)l, v2 = 3 * L;
            uint32_t got[34];
            for (int i = 0; i < n; i++)
                got[i] = out[1024 * (i / 15) + 64 * (i % 15) + l];
            expect_u32(arch, "ds_read_b32", l, got[0], v2);
            expect_u32(arch, "ds_read2_b32 [0]", l, got[1], v2);
            expect_u32(arch, "ds_read2_b32 [1]", l, got[2], L + 1000);
            expect_u32(arch, "ds_read2st64_b32 [0]", l, got[3], v2);
            expect_u32(arch, "ds_read2st64_b32 [1]", l, got[4], v2);
            expect_u32(arch, "ds_read_b64 [0]", l, got[5], L);
            expect_u32(arch, "ds_read_b64 [1]", l, got[6], ~L);
            expect_u32(arch, "ds_read_b128 [0]", l, got[7], L);
            expect_u32(arch, "ds_read_b128 [1]", l, got[8], 2 * L);
            expect_u32(arch, "ds_read_b128 [2]", l, got[9], 3 * L);
            expect_u32(arch, "ds_read_b128 [3]", l, got[10], 4 * L);
            expect_u32(arch, "ds_read_u16", l, got[11], 0x8000 | L);
            expect_u32(arch, "ds_read_i16", l, got[12], 0xffff8000u | L);
            expect_u32(arch, "ds_read_u8", l, got[13], 0x80 | L);
            expect_u32(arch, "ds_read_i8", l, got[14], 0xffffff80u | L);
            expect_u32(arch, "ds_read_u16_d16_hi", l, got[15], (0x8000 | L) << 16 | 0x1234);
            expect_u32(arch, "ds_read_u16_d16", l, got[16], 0xabcd0000u | 0x8000 | L);
            expect_u32(arch, "ds_add_u32 (64 lanes)", l, got[17], 64 * 65 / 2);
            expect_f32(arch, "ds_add_f32 (64 lanes)", l, got[18], 32.0f);
            expect_u32(arch, "ds_read2_b64 [0]", l, got[19], L);
            expect_u32(arch, "ds_read2_b64 [1]", l, got[20], ~L);
            /* the element after lane 63's is the first dword pair of the b128 area: lane 0's 0, 0 */
            expect_u32(arch, "ds_read2_b64 [2]", l, got[21], l < 63 ? L + 1 : 0);
            expect_u32(arch, "ds_read2_b64 [3]", l, got[22], l < 63 ? ~(L + 1) : 0);
            expect_u32(arch, "ds_swizzle SWAP,1", l, got[23], 3 * (L ^ 1));
            expect_u32(arch, "ds_swizzle QUAD_PERM", l, got[24], 3 * ((L & ~3u) + 3 - (L & 3)));
            expect_u32(arch, "ds_swizzle BROADCAST,8,3", l, got[25], 3 * ((L & ~7u) | 3));
            expect_u32(arch, "ds_bpermute_b32", l, got[26], 3 * ((L + 20) & 63));
            expect_u32(arch, "ds_permute_b32", l, got[27], 3 * ((L + 44) & 63));
            expect_u32(arch, "ds_read2_b32 into its address [0]", l, got[28], v2);
            expect_u32(arch, "ds_read2_b32 into its address [1]", l, got[29], L + 1000);
            for (int j = 0; j < 4; j++)
                expect_u32(arch, "ds_read_b128 into its address", l, got[30 + j], (uint32_t)(j + 1) * L);
        }
        free(out);
    }
    free(full.s);
    assert_int_equal(nbad, 0);
}

/* Waves of a workgroup share LDS across s_barrier: each wave reads what the
 * other wrote, writes again after the barrier, and four waves add to one
 * dword with ds_add_u32. */
static void ds_across_waves(void **state)
{
    (void)state;
    static const char *const body =
        "    ds_write_b32 v1, v0\n"                     /* slot t = t */
        "    v_mov_b32 v9, 0\n"
        "    v_cmp_eq_u32 vcc, 0, v0\n"
        "    s_and_saveexec_b64 s[20:21], vcc\n"
        "    ds_write_b32 v9, v9 offset:1024\n"         /* thread 0: counter = 0 */
        "    s_mov_b64 exec, s[20:21]\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    s_barrier\n"
        "    v_xor_b32 v2, 64, v0\n"                    /* the partner, in the neighbouring wave */
        "    v_lshlrev_b32 v2, 2, v2\n"
        "    ds_read_b32 v6, v2\n"
        "    v_mov_b32 v7, 1\n"
        "    ds_add_u32 v9, v7 offset:1024\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    global_store_dword v1, v6, s[4:5]\n"
        "    s_barrier\n"
        "    v_add_u32 v8, 0x3e8, v0\n"
        "    ds_write_b32 v2, v8\n"                     /* into the partner's slot, read before the barrier */
        "    s_waitcnt lgkmcnt(0)\n"
        "    s_barrier\n"
        "    ds_read_b32 v10, v1\n"
        "    ds_read_b32 v11, v9 offset:1024\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    global_store_dword v1, v10, s[4:5] offset:1024\n"
        "    global_store_dword v1, v11, s[4:5] offset:2048\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(3 * 256, 0xdeadbeef);
        run(arch, body, 3, 256, 2048, 1, out, 3 * 256, NULL, 0); /* 3 workgroups on one context: LDS and race tables reused */
        for (int t = 0; t < 256; t++) {
            expect_u32(arch, "read of the other wave's write", t, out[t], (uint32_t)(t ^ 64));
            expect_u32(arch, "write after barrier", t, out[256 + t], (uint32_t)(t ^ 64) + 1000);
            expect_u32(arch, "ds_add_u32 from 4 waves", t, out[512 + t], 256);
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* ---- buffer (MUBUF) ---- */

static uint32_t in_word(int i) { return (uint32_t)i * 0x00030007u ^ 0x80808080u; }
static uint32_t in_half(int i) { return (in_word(i / 2) >> (16 * (i & 1))) & 0xffff; }
static uint32_t in_byte(int i) { return (in_word(i / 4) >> (8 * (i & 3))) & 0xff; }

static void mubuf_loads_stores_range(void **state)
{
    (void)state;
    static const char *const body =
        /* s[8:11]: input, NUM_RECORDS 256 bytes; s[12:15]: input, stride 8, 20 records;
           s[16:19]: output, 0x2000 bytes; s[20:23]: output + 0x2000, NUM_RECORDS 128 */
        "    s_mov_b32 s8, s6\n"
        "    s_and_b32 s9, s7, 0xffff\n"
        "    s_movk_i32 s10, 0x100\n"
        "    s_mov_b32 s11, 0x27000\n"
        "    s_mov_b32 s12, s6\n"
        "    s_and_b32 s13, s7, 0xffff\n"
        "    s_or_b32 s13, s13, 0x80000\n"
        "    s_mov_b32 s14, 20\n"
        "    s_mov_b32 s15, 0x27000\n"
        "    s_mov_b32 s16, s4\n"
        "    s_and_b32 s17, s5, 0xffff\n"
        "    s_movk_i32 s18, 0x2000\n"
        "    s_mov_b32 s19, 0x27000\n"
        "    s_add_u32 s20, s4, 0x2000\n"
        "    s_addc_u32 s21, s5, 0\n"
        "    s_and_b32 s21, s21, 0xffff\n"
        "    s_movk_i32 s22, 0x80\n"
        "    s_mov_b32 s23, 0x27000\n"
        "    s_add_u32 s28, s4, 0x2100\n"
        "    s_addc_u32 s29, s5, 0\n"
        "    s_and_b32 s29, s29, 0xffff\n"
        "    s_movk_i32 s30, 0x80\n"
        "    s_mov_b32 s31, 0x27000\n"
        "    s_movk_i32 s24, 0x4\n"
        "    s_movk_i32 s25, 0x1000\n"
        "    v_mov_b32 v14, 0xabcd1234\n"
        "    v_mov_b32 v15, 0xabcd1234\n"
        "    v_mov_b32 v20, 0\n"
        "    v_lshlrev_b32 v6, 3, v0\n"
        "    v_lshlrev_b32 v7, 4, v0\n"
        "    v_lshlrev_b32 v12, 1, v0\n"
        "    v_mov_b32 v18, v0\n"
        "    v_and_b32 v19, 1, v0\n"
        "    v_lshlrev_b32 v19, 2, v19\n"
        "    buffer_load_dword v2, v1, s[8:11], 0 offen\n"
        "    buffer_load_dword v3, v1, s[8:11], 0 offen offset:128\n"  /* lanes 32.. out of range: 0 */
        "    buffer_load_dwordx2 v[4:5], v6, s[8:11], 0 offen\n"       /* lanes 32.. out of range */
        "    buffer_load_dwordx4 v[8:11], v7, s[8:11], 0 offen\n"      /* lanes 16.. out of range */
        "    buffer_load_ushort v13, v12, s[8:11], 0 offen\n"
        "    buffer_load_short_d16 v14, v12, s[8:11], 0 offen\n"
        "    buffer_load_short_d16_hi v15, v12, s[8:11], 0 offen\n"
        "    buffer_load_dword v16, v0, s[12:15], 0 idxen offset:4\n"  /* records 20.. out of range */
        "    buffer_load_dword v17, v[18:19], s[12:15], 0 idxen offen\n"
        "    s_mov_b32 exec_hi, 0\n"
        "    buffer_load_dword v20, v1, s[8:11], s24 offen\n"          /* soffset 4, all in range either way */
        "    s_mov_b32 exec_hi, -1\n"
        "    s_waitcnt vmcnt(0)\n"
        "    buffer_store_dword v2, v1, s[16:19], 0 offen\n"
        "    buffer_store_dword v3, v1, s[16:19], 0 offen offset:256\n"
        "    buffer_store_dword v4, v1, s[16:19], 0 offen offset:512\n"
        "    buffer_store_dword v5, v1, s[16:19], 0 offen offset:768\n"
        "    buffer_store_dword v8, v1, s[16:19], 0 offen offset:1024\n"
        "    buffer_store_dword v9, v1, s[16:19], 0 offen offset:1280\n"
        "    buffer_store_dword v10, v1, s[16:19], 0 offen offset:1536\n"
        "    buffer_store_dword v11, v1, s[16:19], 0 offen offset:1792\n"
        "    buffer_store_dword v13, v1, s[16:19], 0 offen offset:2048\n"
        "    buffer_store_dword v14, v1, s[16:19], 0 offen offset:2304\n"
        "    buffer_store_dword v15, v1, s[16:19], 0 offen offset:2560\n"
        "    buffer_store_dword v16, v1, s[16:19], 0 offen offset:2816\n"
        "    buffer_store_dword v17, v1, s[16:19], 0 offen offset:3072\n"
        "    buffer_store_dword v20, v1, s[16:19], 0 offen offset:3328\n"
        "    buffer_store_dwordx2 v[4:5], v6, s[16:19], 0 offen offset:3584\n" /* rows 14, 15 interleaved */
        "    buffer_store_dwordx4 v[8:11], v7, s[16:19], s25 offen\n"          /* rows 16..19 */
        "    buffer_store_short v2, v12, s[16:19], s25 offen offset:1280\n"    /* dwords 1344.. */
        "    buffer_store_short_d16_hi v15, v12, s[16:19], s25 offen offset:1024\n" /* dwords 1280.. */
        "    buffer_store_dword v2, v1, s[20:23], 0 offen\n"                   /* lanes 32.. dropped */
        "    buffer_store_dwordx2 v[4:5], v6, s[28:31], 0 offen\n"             /* NUM_RECORDS 128: lanes 16.. dropped */
        "    s_waitcnt vmcnt(0)\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(40 * 64, 0xdeadbeef), *in = buf(256, 0);
        for (int i = 0; i < 256; i++)
            in[i] = in_word(i);
        run(arch, body, 1, 64, 0, 1, out, 40 * 64, in, 256);
        for (int l = 0; l < 64; l++) {
            expect_u32(arch, "buffer_load_dword", l, ROW(0)[l], in_word(l));
            expect_u32(arch, "range check: dword", l, ROW(1)[l], l < 32 ? in_word(l + 32) : 0);
            expect_u32(arch, "range check: x2 [0]", l, ROW(2)[l], l < 32 ? in_word(2 * l) : 0);
            expect_u32(arch, "range check: x2 [1]", l, ROW(3)[l], l < 32 ? in_word(2 * l + 1) : 0);
            for (int j = 0; j < 4; j++)
                expect_u32(arch, "range check: x4", l, ROW(4 + j)[l], l < 16 ? in_word(4 * l + j) : 0);
            expect_u32(arch, "buffer_load_ushort", l, ROW(8)[l], in_half(l));
            expect_u32(arch, "buffer_load_short_d16", l, ROW(9)[l], 0xabcd0000u | in_half(l));
            expect_u32(arch, "buffer_load_short_d16_hi", l, ROW(10)[l], in_half(l) << 16 | 0x1234);
            expect_u32(arch, "idxen stride 8", l, ROW(11)[l], l < 20 ? in_word(2 * l + 1) : 0);
            expect_u32(arch, "idxen offen", l, ROW(12)[l], l < 20 ? in_word(2 * l + (l & 1)) : 0);
            expect_u32(arch, "soffset 4", l, ROW(13)[l], l < 32 ? in_word(l + 1) : 0);
            uint32_t x2[2] = {l < 32 ? in_word(2 * l) : 0, l < 32 ? in_word(2 * l + 1) : 0};
            expect_u32(arch, "buffer_store_dwordx2 [0]", l, out[896 + 2 * l], x2[0]);
            expect_u32(arch, "buffer_store_dwordx2 [1]", l, out[896 + 2 * l + 1], x2[1]);
            for (int j = 0; j < 4; j++)
                expect_u32(arch, "buffer_store_dwordx4 (soffset)", l, out[1024 + 4 * l + j], l < 16 ? in_word(4 * l + j) : 0);
            if (l < 32) {
                expect_u32(arch, "buffer_store_short", l, out[1344 + l],
                           (in_word(2 * l) & 0xffff) | (in_word(2 * l + 1) & 0xffff) << 16);
                expect_u32(arch, "buffer_store_short_d16_hi", l, out[1280 + l],
                           in_half(2 * l) | in_half(2 * l + 1) << 16);
            }
            expect_u32(arch, "store range check", l, out[2048 + l], l < 32 ? in_word(l) : 0xdeadbeef);
            bool st = l < 16;
            expect_u32(arch, "store x2 range check [0]", l, out[2112 + 2 * l], st ? x2[0] : 0xdeadbeef);
            expect_u32(arch, "store x2 range check [1]", l, out[2112 + 2 * l + 1], st ? x2[1] : 0xdeadbeef);
        }
        free(out);
        free(in);
    }
    assert_int_equal(nbad, 0);
}

/* ---- global and flat ---- */

static void global_flat_loads_stores(void **state)
{
    (void)state;
    static const char *const body =
        "    v_lshlrev_b32 v16, 4, v0\n"
        "    v_lshlrev_b32 v18, 1, v0\n"
        "    v_mov_b32 v21, 0xabcd\n"
        "    global_load_dword v2, v1, s[6:7]\n"
        "    v_add_u32 v3, 8, v1\n"
        "    global_load_dword v4, v3, s[6:7] offset:-8\n"
        "    v_add_co_u32 v6, vcc, s6, v1\n"
        "    v_mov_b32 v7, s7\n"
        "    s_nop 1\n"
        "    v_addc_co_u32 v7, vcc, v7, 0, vcc\n"
        "    global_load_dwordx2 v[8:9], v[6:7], off\n"
        "    flat_load_dword v10, v[6:7] offset:4\n"
        "    global_load_dwordx4 v[12:15], v16, s[6:7]\n"
        "    global_load_ushort v17, v18, s[6:7]\n"
        "    global_load_sshort v19, v18, s[6:7]\n"
        "    global_load_ubyte v20, v0, s[6:7]\n"
        "    global_load_short_d16_hi v21, v18, s[6:7]\n"
        "    global_load_dwordx3 v[22:24], v16, s[6:7] offset:4\n"
        "    s_waitcnt vmcnt(0) lgkmcnt(0)\n"
        "    global_store_dword v1, v2, s[4:5]\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n"
        "    global_store_dword v1, v8, s[4:5] offset:512\n"
        "    global_store_dword v1, v9, s[4:5] offset:768\n"
        "    global_store_dword v1, v10, s[4:5] offset:1024\n"
        "    global_store_dword v1, v12, s[4:5] offset:1280\n"
        "    global_store_dword v1, v13, s[4:5] offset:1536\n"
        "    global_store_dword v1, v14, s[4:5] offset:1792\n"
        "    global_store_dword v1, v15, s[4:5] offset:2048\n"
        "    global_store_dword v1, v17, s[4:5] offset:2304\n"
        "    global_store_dword v1, v19, s[4:5] offset:2560\n"
        "    global_store_dword v1, v20, s[4:5] offset:2816\n"
        "    global_store_dword v1, v21, s[4:5] offset:3072\n"
        "    global_store_dword v1, v22, s[4:5] offset:3328\n"
        "    global_store_dword v1, v23, s[4:5] offset:3584\n"
        "    global_store_dword v1, v24, s[4:5] offset:3840\n"
        "    s_add_u32 s4, s4, 0x1000\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    v_add_co_u32 v26, vcc, s4, v16\n"
        "    v_mov_b32 v27, s5\n"
        "    s_nop 1\n"
        "    v_addc_co_u32 v27, vcc, v27, 0, vcc\n"
        "    global_store_dwordx4 v[26:27], v[12:15], off\n"     /* dwords 1024 + 4l.. */
        "    flat_store_dword v[26:27], v2 offset:1024\n"        /* dwords 1280 + 4l */
        "    global_store_short v18, v2, s[4:5] offset:2048\n"   /* dwords 1536.. */
        "    global_store_byte v0, v2, s[4:5] offset:2304\n"     /* dwords 1600.. */
        "    global_store_short_d16_hi v18, v2, s[4:5] offset:2560\n" /* dwords 1664.. */
        "    s_add_u32 s4, s4, 0x2000\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    global_store_dwordx2 v16, v[8:9], s[4:5] offset:-4096\n" /* dwords 2048 + 4l, 2049 + 4l */
        "    s_waitcnt vmcnt(0) lgkmcnt(0)\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        uint32_t *out = buf(36 * 64, 0xdeadbeef), *in = buf(260, 0);
        for (int i = 0; i < 260; i++)
            in[i] = in_word(i);
        run(arch, body, 1, 64, 0, 1, out, 36 * 64, in, 260);
        for (int l = 0; l < 64; l++) {
            expect_u32(arch, "global_load_dword saddr", l, ROW(0)[l], in_word(l));
            expect_u32(arch, "global_load_dword saddr negative offset", l, ROW(1)[l], in_word(l));
            expect_u32(arch, "global_load_dwordx2 vaddr64 [0]", l, ROW(2)[l], in_word(l));
            expect_u32(arch, "global_load_dwordx2 vaddr64 [1]", l, ROW(3)[l], in_word(l + 1));
            expect_u32(arch, "flat_load_dword offset", l, ROW(4)[l], in_word(l + 1));
            for (int j = 0; j < 4; j++)
                expect_u32(arch, "global_load_dwordx4", l, ROW(5 + j)[l], in_word(4 * l + j));
            expect_u32(arch, "global_load_ushort", l, ROW(9)[l], in_half(l));
            expect_u32(arch, "global_load_sshort", l, ROW(10)[l], (uint32_t)(int32_t)(int16_t)in_half(l));
            expect_u32(arch, "global_load_ubyte", l, ROW(11)[l], in_byte(l));
            expect_u32(arch, "global_load_short_d16_hi", l, ROW(12)[l], in_half(l) << 16 | 0xabcd);
            for (int j = 0; j < 3; j++)
                expect_u32(arch, "global_load_dwordx3 offset", l, ROW(13 + j)[l], in_word(4 * l + 1 + j));
            for (int j = 0; j < 4; j++)
                expect_u32(arch, "global_store_dwordx4 vaddr64", l, out[1024 + 4 * l + j], in_word(4 * l + j));
            expect_u32(arch, "flat_store_dword", l, out[1280 + 4 * l], in_word(l));
            if (l < 32)
                expect_u32(arch, "global_store_short", l, out[1536 + l],
                           (in_word(2 * l) & 0xffff) | (in_word(2 * l + 1) & 0xffff) << 16);
            if (l < 16)
                expect_u32(arch, "global_store_byte", l, out[1600 + l],
                           (in_word(4 * l) & 0xff) | (in_word(4 * l + 1) & 0xff) << 8 |
                               (in_word(4 * l + 2) & 0xff) << 16 | (in_word(4 * l + 3) & 0xff) << 24);
            if (l < 32)
                expect_u32(arch, "global_store_short_d16_hi", l, out[1664 + l],
                           in_word(2 * l) >> 16 | (in_word(2 * l + 1) >> 16) << 16);
            /* v[8:9] = in[l], in[l + 1]; the two dwords after them untouched */
            expect_u32(arch, "global_store_dwordx2 saddr negative offset [0]", l, out[2048 + 4 * l], in_word(l));
            expect_u32(arch, "global_store_dwordx2 saddr negative offset [1]", l, out[2048 + 4 * l + 1],
                       in_word(l + 1));
            expect_u32(arch, "global_store_dwordx2 writes two dwords", l, out[2048 + 4 * l + 2], 0xdeadbeef);
            expect_u32(arch, "global_store_dwordx2 writes two dwords", l, out[2048 + 4 * l + 3], 0xdeadbeef);
        }
        free(out);
        free(in);
    }
    assert_int_equal(nbad, 0);
}

/* ---- atomics, from 8 workgroups on 2 emulator threads ---- */

static void atomics_concurrent(void **state)
{
    (void)state;
    static const char *const int_part =
        "    s_lshl_b32 s10, s2, 6\n"
        "    v_add_u32 v2, s10, v0\n"                       /* global id g */
        "    v_lshlrev_b32 v5, 2, v2\n"
        "    v_mov_b32 v20, 0\n"
        "    v_mov_b32 v3, 1\n"
        "    s_mov_b32 s12, s4\n"
        "    s_and_b32 s13, s5, 0xffff\n"
        "    s_movk_i32 s14, 0x100\n"
        "    s_mov_b32 s15, 0x27000\n"
        "    global_atomic_add v4, v20, v3, s[4:5] %s\n"   /* out[0]: returns the old value */
        "    v_add_u32 v10, 1, v2\n"
        "    v_mov_b32 v11, 0\n"
        "    global_atomic_cmpswap v12, v20, v[10:11], s[4:5] offset:20 %s\n" /* out[5]: 0 -> g + 1 */
        "    buffer_atomic_add v3, v20, s[12:15], 0 offen offset:24\n"         /* out[6] */
        "    v_mov_b32 v14, v10\n"
        "    v_mov_b32 v15, 0\n"
        "    buffer_atomic_cmpswap v[14:15], v20, s[12:15], 0 offen offset:28 %s\n" /* out[7] */
        "    s_waitcnt vmcnt(0)\n"
        "    global_store_dword v5, v4, s[4:5] offset:256\n"                  /* out[64 + g] */
        "    global_store_dword v5, v12, s[4:5] offset:2304\n"                /* out[576 + g] */
        "    v_add_u32 v5, 0x1000, v5\n"
        "    global_store_dword v5, v14, s[4:5] offset:512\n";                /* out[1152 + g] */
    static const char *const float_part =
        "    v_mov_b32 v6, 1.0\n"
        "    global_atomic_add_f32 v20, v6, s[4:5] offset:4\n"                /* out[1] */
        "    v_mov_b32 v7, 0.25\n"
        "    buffer_atomic_add_f32 v7, v20, s[12:15], 0 offen offset:8\n"     /* out[2] */
        "    v_mov_b32 v8, 0x38003c00\n"                                      /* (1.0, 0.5) as f16 */
        "    global_atomic_pk_add_f16 v20, v8, s[4:5] offset:12\n"            /* out[3] */
        "    buffer_atomic_pk_add_f16 v8, v20, s[12:15], 0 offen offset:16\n" /* out[4] */
        "    s_waitcnt vmcnt(0)\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        const char *g = ai == 3 ? "sc0" : "glc";
        tc_sbuf body = {0};
        tc_put(&body, int_part, g, g, g);
        if (ai > 0)
            tc_put(&body, "%s", float_part);
        uint32_t *out = buf(1664, 0);
        run(arch, body.s, 8, 64, 0, 2, out, 1664, NULL, 0);
        free(body.s);
        expect_u32(arch, "global_atomic_add total", 0, out[0], 512);
        unsigned char seen[512] = {0};
        for (int i = 0; i < 512; i++)
            if (out[64 + i] < 512)
                seen[out[64 + i]]++;
        for (int i = 0; i < 512; i++)
            expect_u32(arch, "global_atomic_add returns each old value once", i, seen[i], 1);
        uint32_t w = out[5];
        if (w < 1 || w > 512)
            expect_u32(arch, "global_atomic_cmpswap winner in 1..512", 0, w, 1);
        else
            for (int i = 0; i < 512; i++)
                expect_u32(arch, "global_atomic_cmpswap returns", i, out[576 + i], (uint32_t)i == w - 1 ? 0 : w);
        expect_u32(arch, "buffer_atomic_add total", 0, out[6], 512);
        w = out[7];
        if (w < 1 || w > 512)
            expect_u32(arch, "buffer_atomic_cmpswap winner in 1..512", 0, w, 1);
        else
            for (int i = 0; i < 512; i++)
                expect_u32(arch, "buffer_atomic_cmpswap returns", i, out[1152 + i], (uint32_t)i == w - 1 ? 0 : w);
        if (ai > 0) {
            expect_f32(arch, "global_atomic_add_f32", 0, out[1], 512.0f);
            expect_f32(arch, "buffer_atomic_add_f32", 0, out[2], 128.0f);
            expect_u32(arch, "global_atomic_pk_add_f16", 0, out[3], 0x5c006000); /* (512.0, 256.0) */
            expect_u32(arch, "buffer_atomic_pk_add_f16", 0, out[4], 0x5c006000);
        }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* The wait counters saturate: an operation issued with vmcnt at 63 (lgkmcnt
 * at 15) stalls until the oldest returns, so more operations than that may be
 * outstanding in the code, and the oldest is then ready without s_waitcnt. */
static void wait_counters_saturate(void **state)
{
    (void)state;
    tc_sbuf body = {0};
    tc_put(&body, "    v_mov_b32 v2, 7\n    ds_write_b32 v1, v0\n"
                  "    s_waitcnt lgkmcnt(0)\n");
    for (int i = 0; i < 62; i++) /* 62 stores outstanding */
        tc_put(&body, "    global_store_dword v1, v2, s[4:5] offset:%d\n", 4 * (i % 8));
    tc_put(&body, "    global_load_dword v3, v1, s[6:7]\n"           /* 63rd */
                  "    global_load_dword v4, v1, s[6:7] offset:4\n"  /* stalls: the first store retires */
                  "    global_load_dword v5, v1, s[6:7] offset:8\n"
                  "    global_load_dword v6, v1, s[6:7] offset:12\n"
                  "    s_waitcnt vmcnt(2)\n"                          /* v3, v4 ready */
                  "    v_add_u32 v7, v3, v4\n");
    for (int i = 0; i < 16; i++)
        tc_put(&body, "    ds_read_b32 v%d, v1\n", 10 + i);
    tc_put(&body, "    v_mov_b32 v8, v10\n"                           /* the 16th read retired the first */
                  "    s_waitcnt vmcnt(0) lgkmcnt(0)\n"
                  "    v_add_u32 v7, v7, v8\n"
                  "    global_store_dword v1, v7, s[4:5] offset:256\n");
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        uint32_t *out = buf(2 * 64, 0), *in = buf(80, 0);
        for (int i = 0; i < 80; i++)
            in[i] = (uint32_t)i * 1000u;
        run(archs[ai], body.s, 1, 64, 256, 1, out, 2 * 64, in, 80);
        for (int l = 0; l < 64; l++)
            expect_u32(archs[ai], "loads after saturation", l, ROW(1)[l], (uint32_t)(2 * l + 1) * 1000u + (uint32_t)l);
        free(out);
        free(in);
    }
    free(body.s);
    assert_int_equal(nbad, 0);
}

/* Accumulation registers outside MFMA: v_accvgpr_write/read (gfx908+),
 * v_accvgpr_mov and AGPRs as memory data (gfx90a, gfx942). The s_nops cover
 * the accumulation-register hazards. */
static void agpr_moves_and_memory(void **state)
{
    (void)state;
    static const char *const moves =
        "    v_mul_u32_u24 v2, 3, v0\n"
        "    s_nop 4\n"
        "    v_accvgpr_write_b32 a0, v2\n"
        "    v_accvgpr_write_b32 a1, 7\n"
        "    s_nop 4\n"
        "    v_accvgpr_read_b32 v3, a0\n"
        "    v_accvgpr_read_b32 v4, a1\n"
        "    s_nop 4\n"
        "    global_store_dword v1, v3, s[4:5]\n"
        "    global_store_dword v1, v4, s[4:5] offset:256\n";
    static const char *const unified =
        "    v_accvgpr_mov_b32 a2, a0\n"
        "    s_nop 4\n"
        "    v_accvgpr_read_b32 v5, a2\n"
        "    s_nop 4\n"
        "    global_store_dword v1, v5, s[4:5] offset:512\n"
        "    ds_write_b32 v1, a0\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    ds_read_b32 a5, v1\n"
        "    global_load_dword a4, v1, s[6:7]\n"
        "    v_lshlrev_b32 v6, 3, v0\n"
        "    global_load_dwordx2 a[6:7], v6, s[6:7]\n"
        "    s_waitcnt vmcnt(0) lgkmcnt(0)\n"
        "    s_nop 4\n"
        "    global_store_dword v1, a5, s[4:5] offset:768\n"
        "    global_store_dword v1, a4, s[4:5] offset:1024\n"
        "    global_store_dword v1, a7, s[4:5] offset:1280\n"
        "    s_mov_b32 s8, s4\n"
        "    s_and_b32 s9, s5, 0xffff\n"
        "    s_movk_i32 s10, 0x1000\n"
        "    s_mov_b32 s11, 0x27000\n"
        "    buffer_store_dword a6, v1, s[8:11], 0 offen offset:1536\n"
        "    buffer_load_dword a8, v1, s[8:11], 0 offen\n"  /* row 0: 3l */
        "    s_waitcnt vmcnt(0)\n"
        "    s_nop 4\n"
        "    v_accvgpr_read_b32 v7, a8\n"
        "    s_nop 4\n"
        "    global_store_dword v1, v7, s[4:5] offset:1792\n";
    nbad = 0;
    run_agprs = 16;
    for (int ai = 1; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        tc_sbuf body = {0};
        tc_put(&body, "%s%s", moves, ai >= 2 ? unified : "");
        uint32_t *out = buf(8 * 64, 0xdeadbeef), *in = buf(128, 0);
        for (int i = 0; i < 128; i++)
            in[i] = in_word(i);
        run(arch, body.s, 1, 64, 256, 1, out, 8 * 64, in, 128);
        free(body.s);
        for (int l = 0; l < 64; l++) {
            uint32_t v2 = 3u * (uint32_t)l;
            expect_u32(arch, "v_accvgpr_write/read", l, ROW(0)[l], v2);
            expect_u32(arch, "v_accvgpr_write constant", l, ROW(1)[l], 7);
            if (ai < 2)
                continue;
            expect_u32(arch, "v_accvgpr_mov", l, ROW(2)[l], v2);
            expect_u32(arch, "ds_write/ds_read with AGPRs", l, ROW(3)[l], v2);
            expect_u32(arch, "global_load to an AGPR", l, ROW(4)[l], in_word(l));
            expect_u32(arch, "global_load_dwordx2 to AGPRs", l, ROW(5)[l], in_word(2 * l + 1));
            expect_u32(arch, "buffer_store from an AGPR", l, ROW(6)[l], in_word(2 * l));
            expect_u32(arch, "buffer_load to an AGPR", l, ROW(7)[l], v2);
        }
        free(out);
        free(in);
    }
    run_agprs = 0;
    assert_int_equal(nbad, 0);
}

/* Initial state as the descriptor asks: dispatch and kernarg pointers,
 * workgroup ids x, y, z in SGPRs, work-item ids in v0..v2 (gfx906/gfx908) or
 * packed into v0 (gfx90a/gfx942), partial waves; grid (2,3,2) of blocks
 * (4,2,2). Each work-item stores its ids and the dispatch packet's
 * workgroup_size_x at its flat index. */
static void launch_ids_and_dispatch(void **state)
{
    (void)state;
    static const char *const src =
        ".amdgcn_target \"amdgcn-amd-amdhsa--%s\"\n"
        ".amdhsa_code_object_version 4\n"
        ".text\n.globl ids\n.p2align 8\n.type ids,@function\n"
        "ids:\n"
        "    s_load_dwordx2 s[8:9], s[2:3], 0x0\n"
        "    s_load_dword s10, s[0:1], 0x4\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "%s"
        "    v_lshlrev_b32 v3, 2, v1\n"
        "    v_lshl_add_u32 v3, v2, 3, v3\n"
        "    v_add_u32 v3, v3, v0\n"             /* t = x + 4y + 8z */
        "    s_mul_i32 s11, s5, 2\n"
        "    s_add_u32 s11, s11, s4\n"
        "    s_mul_i32 s12, s6, 6\n"
        "    s_add_u32 s11, s11, s12\n"          /* g = gx + 2gy + 6gz */
        "    s_lshl_b32 s11, s11, 4\n"
        "    v_add_u32 v3, s11, v3\n"
        "    v_lshlrev_b32 v3, 2, v3\n"
        "    s_lshl_b32 s13, s5, 4\n"
        "    s_or_b32 s13, s13, s4\n"
        "    s_lshl_b32 s14, s6, 8\n"
        "    s_or_b32 s13, s13, s14\n"
        "    s_and_b32 s14, s10, 0xffff\n"
        "    s_lshl_b32 s14, s14, 24\n"
        "    s_or_b32 s13, s13, s14\n"
        "    v_lshlrev_b32 v4, 12, v0\n"
        "    v_lshl_or_b32 v4, v1, 16, v4\n"
        "    v_lshl_or_b32 v4, v2, 20, v4\n"
        "    v_or_b32 v4, s13, v4\n"
        "    global_store_dword v3, v4, s[8:9]\n"
        "    s_endpgm\n"
        ".Lids_end:\n.size ids, .Lids_end - ids\n"
        ".rodata\n.p2align 6\n"
        ".amdhsa_kernel ids\n"
        "    .amdhsa_user_sgpr_dispatch_ptr 1\n"
        "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
        "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
        "    .amdhsa_system_sgpr_workgroup_id_y 1\n"
        "    .amdhsa_system_sgpr_workgroup_id_z 1\n"
        "    .amdhsa_system_vgpr_workitem_id 2\n"
        "    .amdhsa_next_free_vgpr 8\n"
        "    .amdhsa_next_free_sgpr 16\n"
        "%s"
        ".end_amdhsa_kernel\n"
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 1 ]\namdhsa.kernels:\n"
        "  - .name: ids\n    .symbol: ids.kd\n    .kernarg_segment_size: 8\n    .kernarg_segment_align: 8\n"
        "    .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n"
        "    .sgpr_count: 18\n    .vgpr_count: 8\n    .max_flat_workgroup_size: 64\n"
        "    .args:\n"
        "      - { .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n"
        "...\n.end_amdgpu_metadata\n";
    static const char *const unpack = "    v_bfe_u32 v2, v0, 20, 10\n"
                                      "    v_bfe_u32 v1, v0, 10, 10\n"
                                      "    v_and_b32 v0, 0x3ff, v0\n";
    nbad = 0;
    for (int ai = 0; ai < TC_NARCH(archs); ai++) {
        const char *arch = archs[ai];
        bool packed = ai >= 2;
        char text[8192], err[1024];
        snprintf(text, sizeof text, src, arch, packed ? unpack : "", packed ? "    .amdhsa_accum_offset 8\n" : "");
        size_t size = 0;
        void *image = tc_assemble_source(arch, text, &size, err, sizeof err);
        if (!image)
            fail_msg("%s: %s", arch, err);
        tc_loaded l;
        int rc = tc_load_image(&l, arch, 2, image, size, err, sizeof err);
        free(image);
        if (rc)
            fail_msg("%s: %s", arch, err);
        uint32_t *out = buf(192, 0xdeadbeef);
        emu_register(l.d, out, 192 * 4);
        uint64_t arg = (uint64_t)(uintptr_t)out;
        unsigned grid[3] = {2, 3, 2}, block[3] = {4, 2, 2};
        emu_stats st = {0};
        if (emu_launch(l.d, emu_find_kernel(l.m, "ids"), grid, block, &arg, 8, &st, err, sizeof err))
            fail_msg("%s: %s", arch, err);
        tc_unload(&l);
        expect_u32(arch, "workgroups run", 0, (uint32_t)st.workgroups, 12);
        expect_u32(arch, "waves run", 0, (uint32_t)st.waves, 12);
        for (uint32_t gz = 0; gz < 2; gz++)
            for (uint32_t gy = 0; gy < 3; gy++)
                for (uint32_t gx = 0; gx < 2; gx++)
                    for (uint32_t z = 0; z < 2; z++)
                        for (uint32_t y = 0; y < 2; y++)
                            for (uint32_t x = 0; x < 4; x++) {
                                uint32_t g = gx + 2 * gy + 6 * gz, t = x + 4 * y + 8 * z;
                                uint32_t want = gx | gy << 4 | gz << 8 | x << 12 | y << 16 | z << 20 | 4u << 24;
                                expect_u32(arch, "ids", (int)(16 * g + t), out[16 * g + t], want);
                            }
        free(out);
    }
    assert_int_equal(nbad, 0);
}

/* ---- the schedule model (emu.h: emu_stats.makespan, emu_schedule_*) ----
 * A kernel whose workgroup 0 loops `first` times and every other workgroup
 * once; every wave of a workgroup does the same work. Expected makespans
 * follow from the rule (workgroups in dispatch order on the least-loaded CU,
 * each wave on that CU's least-loaded SIMD) and the per-wave costs measured
 * from single-workgroup launches. */
static tc_loaded sched_load(const char *arch, int first)
{
    char body[512], err[2048] = "";
    snprintf(body, sizeof body,
             "    v_mov_b32 v1, 1.0\n"
             "    v_mov_b32 v3, 0\n"
             "    s_cmp_eq_u32 s2, 0\n"
             "    s_cselect_b32 s10, %d, 1\n"
             ".Lsched_loop:\n"
             "    v_fmac_f32 v3, v1, v1\n"
             "    s_sub_u32 s10, s10, 1\n"
             "    s_cmp_lg_u32 s10, 0\n"
             "    s_cbranch_scc1 .Lsched_loop\n",
             first);
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 8, .sgprs = 16, .nptrs = 0};
    size_t size = 0;
    void *image = tc_assemble(&sn, &size, err, sizeof err);
    if (!image)
        fail_msg("%s: %s", arch, err);
    tc_loaded k;
    int rc = tc_load_image(&k, arch, 2, image, size, err, sizeof err);
    free(image);
    if (rc)
        fail_msg("%s: load: %s", arch, err);
    return k;
}

/* Launch `groups` workgroups of `threads` work-items; returns the stats. */
static emu_stats sched_launch(tc_loaded *k, unsigned groups, unsigned threads)
{
    char err[2048] = "";
    uint64_t arg = 0;
    unsigned grid[3] = {groups, 1, 1}, block[3] = {threads, 1, 1};
    emu_stats st = {0};
    if (emu_launch(k->d, emu_find_kernel(k->m, "snippet"), grid, block, &arg, 8, &st, err, sizeof err))
        fail_msg("%s", err);
    return st;
}

static void schedule_model_makespans(void **state)
{
    (void)state;
    const char *arch = "gfx906";
    const uint64_t ncu = (uint64_t)target_by_name(arch)->num_cu;
    tc_loaded flat = sched_load(arch, 1), skew = sched_load(arch, 100);

    /* per-wave costs: c for a one-iteration wave, l for workgroup 0 of skew */
    emu_stats one = sched_launch(&flat, 1, 64);
    const uint64_t c = emu_stats_cycles(&one);
    assert_true(c > 0);
    assert_int_equal(one.makespan, c);
    emu_stats lone = sched_launch(&skew, 1, 256);
    const uint64_t l = emu_stats_cycles(&lone) / 4;
    assert_int_equal(emu_stats_cycles(&lone), 4 * l);
    assert_int_equal(lone.makespan, l);
    assert_true(l > 2 * c);

    /* one wave per workgroup: 4 * ncu SIMDs take one wave each */
    assert_int_equal(sched_launch(&flat, (unsigned)(4 * ncu), 64).makespan, c);
    assert_int_equal(sched_launch(&flat, (unsigned)(4 * ncu + 1), 64).makespan, 2 * c);
    /* four waves per workgroup: a CU per workgroup */
    assert_int_equal(sched_launch(&flat, (unsigned)ncu, 256).makespan, c);
    assert_int_equal(sched_launch(&flat, (unsigned)ncu + 1, 256).makespan, 2 * c);
    /* two waves per workgroup: two workgroups share a CU on different SIMDs */
    assert_int_equal(sched_launch(&flat, (unsigned)(2 * ncu), 128).makespan, c);

    /* the long workgroup 0 keeps its CU to itself: the 2 * ncu - 2 short
     * ones pair up on the other CUs (round-robin placement would put
     * workgroup ncu after workgroup 0 and take l + c) */
    assert_int_equal(sched_launch(&skew, (unsigned)(2 * ncu - 1), 256).makespan, l);

    /* the device schedule spans launches. Two launches of ncu workgroups
     * (one long, the rest short: every CU busy) take l each; merged, the
     * second one's long workgroup lands on a CU the first loaded with a
     * short one, so l + c, not 2l */
    tc_unload(&flat);
    emu_schedule_reset(skew.d);
    assert_int_equal(emu_schedule_makespan(skew.d), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(sched_launch(&skew, (unsigned)ncu, 256).makespan, l);
    assert_int_equal(emu_schedule_makespan(skew.d), l + c);
    /* one-workgroup launches: ncu of them fill the CUs, one more doubles up */
    emu_schedule_reset(skew.d);
    for (uint64_t i = 0; i < ncu; i++)
        sched_launch(&skew, 1, 256);
    assert_int_equal(emu_schedule_makespan(skew.d), l);
    sched_launch(&skew, 1, 256);
    assert_int_equal(emu_schedule_makespan(skew.d), 2 * l);
    tc_unload(&skew);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(salu_scc_and_results),
        cmocka_unit_test(salu_branches_and_exec),
        cmocka_unit_test(valu_integer),
        cmocka_unit_test(valu_fp32),
        cmocka_unit_test(valu_legacy_mad),
        cmocka_unit_test(valu_fp16_bf16_packed),
        cmocka_unit_test(valu_packed_u16),
        cmocka_unit_test(valu_packed_f32),
        cmocka_unit_test(valu_compare_cndmask_carry),
        cmocka_unit_test(valu_lanes_dpp_sdwa),
        cmocka_unit_test(ds_single_wave),
        cmocka_unit_test(ds_across_waves),
        cmocka_unit_test(mubuf_loads_stores_range),
        cmocka_unit_test(global_flat_loads_stores),
        cmocka_unit_test(atomics_concurrent),
        cmocka_unit_test(wait_counters_saturate),
        cmocka_unit_test(agpr_moves_and_memory),
        cmocka_unit_test(launch_ids_and_dispatch),
        cmocka_unit_test(schedule_model_makespans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
