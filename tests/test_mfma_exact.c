/* MFMA results bit for bit as the emulator's first implementation gave them.
 *
 * The layouts and the arithmetic of each MFMA are checked against AMD's
 * tables by test_mfma.c with exactly representable sums. This test pins the
 * rest: the emulator's rounding (products and C summed in double, in k
 * order, rounded to f32 once per instruction), gfx90a's flushing of
 * subnormal 16-bit inputs and results, and what infinities and NaNs do, so
 * that a faster implementation computes the very same bits.
 *
 * One kernel per MFMA target runs every MFMA of the target table that the
 * target has, in up to seven cases each (C/D in AGPRs; in VGPRs where
 * allowed; C the inline constant 0 where allowed; the largest CBSZ with
 * ABID = 2^CBSZ - 1; BLGP 3 and 6 where supported; D over C), on fixed pseudo-random
 * inputs: f32 values with exponents of 2^-24..2^24 (sums round), 1 in 16
 * subnormal, 1 in 512 infinite, 1 in 512 NaN with a random payload, 1 in 4
 * one of 2^40, 1, 2^-40 (f16: 2^15, 1, 2^-14), whose products cancel and
 * absorb each other so that the result depends on the order of the sums,
 * random signs; f16/bf16 halves alike. The 64-bit FNV-1a hash of each case's D
 * registers must equal the value recorded in `expected` below, computed by
 * the emulator as of commit dd38603 (before its MFMA was rewritten for
 * speed) with IGEMM_MFMA_EXACT_PRINT=1, which prints the table instead of
 * checking it.
 *
 * The same for v_fmac_f32 (the FMA kernels' instruction, which has a fast
 * path of its own): on every target, d = fma(a, b, d) over every
 * combination of NaNs, infinities, zeros, one and a subnormal (fmac_special)
 * and random values, with all lanes active, with every other lane, and with
 * d the same register as a and as b. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/mfma.h"
#include "../arch/target.h"
#include "common.h"

#define VA 8   /* A: v[8:11] */
#define VB 12  /* B: v[12:15] */
#define VC 32  /* C in VGPRs: v[32:63] */
#define VD 64  /* D in VGPRs: v[64:95] */
#define VT 96  /* D copied out of AGPRs */
#define AC 0   /* C in AGPRs: a[0:31] */
#define AD 32  /* D in AGPRs: a[32:63] */
#define NREG_AB 4
#define NREG_C 32

typedef struct {
    const mfma_info *m;
    bool cd_vgpr, c_zero;
    int cbsz, abid, blgp;
    bool in_place; /* D = C (AGPRs, a copy of C) */
} xcase;

/* ---- inputs ---- */

static uint32_t rnd_f32(uint64_t *s)
{
    uint64_t r = tc_splitmix64(s);
    uint32_t sign = (uint32_t)(r >> 63) << 31, man = (uint32_t)r & 0x7fffff;
    unsigned sel = (unsigned)(r >> 32) & 511;
    if (sel < 32)
        return sign | (man ? man : 1); /* subnormal */
    if (sel == 32)
        return sign | 0x7f800000;      /* infinity */
    if (sel == 33)
        return sign | 0x7f800000 | (man | 1); /* NaN (quiet or signalling) */
    if (sel >= 384) /* 2^40, 1 or 2^-40: sums whose bits depend on their order */
        return sign | (uint32_t)(127 + 40 * (int)(sel % 3) - 40) << 23;
    unsigned e = 127 - 24 + (unsigned)((r >> 40) % 49);
    return sign | e << 23 | man;
}

static uint16_t rnd_half(uint64_t *s, bool bf16)
{
    uint64_t r = tc_splitmix64(s);
    int mbits = bf16 ? 7 : 10, ebias = bf16 ? 127 : 15, emax = bf16 ? 255 : 31;
    uint32_t sign = (uint32_t)(r >> 63) << 15, man = (uint32_t)r & ((1u << mbits) - 1);
    unsigned sel = (unsigned)(r >> 32) & 511;
    uint32_t e;
    if (sel < 32)
        return (uint16_t)(sign | (man ? man : 1));
    if (sel == 32)
        return (uint16_t)(sign | (uint32_t)emax << mbits);
    if (sel == 33)
        return (uint16_t)(sign | (uint32_t)emax << mbits | man | 1);
    if (sel >= 384) /* large, 1, small (f16: 2^15, 1, 2^-14; bf16: 2^40, 1, 2^-40) */
        return (uint16_t)(sign | (uint32_t)(ebias + (bf16 ? 40 : 15) * (int)(sel % 3) - (bf16 ? 40 : 15) +
                                            (!bf16 && sel % 3 == 0)) << mbits);
    e = (uint32_t)(ebias - 12 + (int)((r >> 40) % 25));
    if (!bf16 && e < 1)
        e = 1;
    return (uint16_t)(sign | e << mbits | man);
}

static uint64_t fnv1a(const uint32_t *v, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++)
            h = (h ^ (v[i] >> (8 * b) & 0xff)) * 1099511628211ull;
    return h;
}

/* ---- the kernel ---- */

static void regs(char *buf, size_t len, char file, int base, int n)
{
    if (n == 1)
        snprintf(buf, len, "%c%d", file, base);
    else
        snprintf(buf, len, "%c[%d:%d]", file, base, base + n - 1);
}

/* The cases of target t, in table order. Returns their number. */
static int cases_of(const target *t, xcase *cs, int cap)
{
    int n = 0;
    for (int i = 0; i < mfma_table_len; i++) {
        const mfma_info *m = &mfma_table[i];
        if (!(m->targets & target_isa_bit(t)))
            continue;
        bool vg = (m->cd_vgpr_targets & target_isa_bit(t)) != 0;
        assert_true(n + 7 <= cap);
        cs[n++] = (xcase){.m = m};
        if (vg) {
            cs[n++] = (xcase){.m = m, .cd_vgpr = true};
            cs[n++] = (xcase){.m = m, .c_zero = true};
        }
        if (m->cbsz_abid) {
            int cb = 0;
            while (cb < 4 && (2 << cb) <= m->blocks)
                cb++;
            if (cb)
                cs[n++] = (xcase){.m = m, .cbsz = cb, .abid = (1 << cb) - 1};
        }
        if (m->blgp) {
            cs[n++] = (xcase){.m = m, .blgp = 3};
            cs[n++] = (xcase){.m = m, .blgp = 6};
        }
        cs[n++] = (xcase){.m = m, .in_place = true};
    }
    return n;
}

/* Load A, B (lane-major, NREG_AB dwords a lane) and C (NREG_C), copy C to
 * AGPRs, then per case one MFMA, its D stored to out + offset. */
static char *kernel_text(const xcase *cs, int n)
{
    tc_sbuf b = {0};
    tc_put(&b,
           "    s_load_dwordx8 s[4:11], s[0:1], 0\n"
           "    v_mul_u32_u24 v2, %d, v0\n    v_mul_u32_u24 v4, %d, v0\n"
           "    s_waitcnt lgkmcnt(0)\n",
           4 * NREG_AB, 4 * NREG_C);
    for (int r = 0; r < NREG_AB; r++)
        tc_put(&b, "    global_load_dword v%d, v2, s[4:5] offset:%d\n    global_load_dword v%d, v2, s[6:7] offset:%d\n",
               VA + r, 4 * r, VB + r, 4 * r);
    for (int r = 0; r < NREG_C; r++)
        tc_put(&b, "    global_load_dword v%d, v4, s[8:9] offset:%d\n", VC + r, 4 * r);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n");
    for (int r = 0; r < NREG_C; r++)
        tc_put(&b, "    v_accvgpr_write_b32 a%d, v%d\n", AC + r, VC + r);
    tc_put(&b, "    s_nop 7\n    s_nop 7\n    s_nop 7\n");
    for (int i = 0; i < n; i++) {
        const xcase *c = &cs[i];
        int rc = c->m->cd_gprs;
        char d[24], a[24], bb[24], cc[24];
        regs(d, sizeof d, c->cd_vgpr ? 'v' : 'a', c->cd_vgpr ? VD : AD, rc);
        regs(a, sizeof a, 'v', VA, c->m->a_gprs);
        regs(bb, sizeof bb, 'v', VB, c->m->b_gprs);
        if (c->c_zero)
            snprintf(cc, sizeof cc, "0");
        else if (c->in_place) {
            for (int r = 0; r < rc; r++)
                tc_put(&b, "    v_accvgpr_write_b32 a%d, v%d\n", AD + r, VC + r);
            tc_put(&b, "    s_nop 7\n    s_nop 7\n    s_nop 7\n");
            regs(cc, sizeof cc, 'a', AD, rc);
        } else
            regs(cc, sizeof cc, c->cd_vgpr ? 'v' : 'a', c->cd_vgpr ? VC : AC, rc);
        tc_put(&b, "    %s %s, %s, %s, %s", mfma_name(c->m), d, a, bb, cc);
        if (c->cbsz)
            tc_put(&b, " cbsz:%d abid:%d", c->cbsz, c->abid);
        if (c->blgp)
            tc_put(&b, " blgp:%d", c->blgp);
        tc_put(&b, "\n    s_nop 7\n    s_nop 7\n    s_nop 7\n");
        int src = VD;
        if (!c->cd_vgpr) {
            for (int r = 0; r < rc; r++)
                tc_put(&b, "    v_accvgpr_read_b32 v%d, a%d\n", VT + r, AD + r);
            tc_put(&b, "    s_nop 1\n");
            src = VT;
        }
        for (int r = 0; r < rc; r++)
            tc_put(&b, "    global_store_dword v4, v%d, s[10:11] offset:%d\n", src + r, 4 * r);
        tc_put(&b, "    s_add_u32 s10, s10, %d\n    s_addc_u32 s11, s11, 0\n    s_waitcnt vmcnt(0)\n", 64 * NREG_C * 4);
    }
    return b.s;
}

/* ---- expected hashes (see the header) ---- */

typedef struct {
    const char *arch, *name;
    int cd_vgpr, c_zero, cbsz, abid, blgp;
    uint64_t hash;
    int in_place;
} expect_row;

static const expect_row expected[] = {
#include "mfma_exact.inc"
    {NULL, NULL, 0, 0, 0, 0, 0, 0, 0},
};

static const expect_row *find_expected(const char *arch, const xcase *c)
{
    for (const expect_row *e = expected; e->arch; e++) {
        if (!strcmp(e->arch, arch) && !strcmp(e->name, mfma_name(c->m)) && e->cd_vgpr == c->cd_vgpr &&
            e->c_zero == c->c_zero && e->cbsz == c->cbsz && e->abid == c->abid && e->blgp == c->blgp &&
            e->in_place == c->in_place)
            return e;
    }
    return NULL;
}

static void run_target(const char *arch)
{
    const target *t = target_by_name(arch);
    assert_non_null(t);
    xcase cs[400];
    int n = cases_of(t, cs, 400);
    assert_true(n > 0);
    uint64_t seed = 0x6d666d61ull;
    size_t abn = 64 * NREG_AB, cn = 64 * NREG_C, on = (size_t)n * cn;
    uint32_t *a = calloc(abn, 4), *bm = calloc(abn, 4), *c = calloc(cn, 4), *out = calloc(on, 4);
    assert_true(a && bm && c && out);
    /* one input set for every type: f32 bits, or two halves of the type of
       the instruction reading them; f16 and bf16 rows read the same bits */
    for (size_t i = 0; i < abn; i++) {
        bool f32 = i % 2 == 0;
        a[i] = f32 ? rnd_f32(&seed) : rnd_half(&seed, i % 4 == 1) | (uint32_t)rnd_half(&seed, i % 4 == 3) << 16;
        bm[i] = f32 ? rnd_f32(&seed) : rnd_half(&seed, i % 4 == 3) | (uint32_t)rnd_half(&seed, i % 4 == 1) << 16;
    }
    for (size_t i = 0; i < cn; i++)
        c[i] = rnd_f32(&seed);
    char *body = kernel_text(cs, n);
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 128, .agprs = 64, .sgprs = 16, .nptrs = 4};
    void *ptrs[4] = {a, bm, c, out};
    size_t sizes[4] = {abn * 4, abn * 4, cn * 4, on * 4};
    char err[1024] = "";
    if (tc_run(&sn, 1, 64, ptrs, sizes, NULL, err, sizeof err)) {
        print_error("%s: %s\n", arch, err);
        fail();
    }
    bool print = getenv("IGEMM_MFMA_EXACT_PRINT") != NULL;
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        const xcase *x = &cs[i];
        uint32_t *d = out + (size_t)i * cn;
        /* out is lane-major with NREG_C dwords a lane; hash the D registers */
        uint32_t v[64 * NREG_C];
        int rc = x->m->cd_gprs;
        for (int l = 0; l < 64; l++)
            for (int r = 0; r < rc; r++)
                v[l * rc + r] = d[l * NREG_C + r];
        uint64_t h = fnv1a(v, 64 * (size_t)rc);
        int nan = 0, sub = 0;
        for (int s = 0; s < 64 * rc; s++) {
            nan += (v[s] & 0x7f800000) == 0x7f800000;
            sub += (v[s] & 0x7f800000) == 0 && (v[s] & 0x7fffff);
        }
        if (print) {
            fprintf(stderr, "%s %s: %d of %d D values infinite or NaN, %d subnormal\n", arch, mfma_name(x->m), nan,
                    64 * rc, sub);
            printf("{\"%s\", \"%s\", %d, %d, %d, %d, %d, 0x%016llxull, %d},\n", arch, mfma_name(x->m), x->cd_vgpr,
                   x->c_zero, x->cbsz, x->abid, x->blgp, (unsigned long long)h, x->in_place);
            continue;
        }
        const expect_row *e = find_expected(arch, x);
        if (!e || e->hash != h) {
            print_error("%s %s (C/D %s%s, cbsz %d abid %d blgp %d): D hash %016llx, %s %016llx\n", arch,
                        mfma_name(x->m), x->cd_vgpr ? "VGPRs" : "AGPRs",
                        x->c_zero ? ", C = 0" : x->in_place ? ", D = C" : "", x->cbsz,
                        x->abid, x->blgp, (unsigned long long)h, e ? "expected" : "no expected value, not",
                        (unsigned long long)(e ? e->hash : 0));
            wrong++;
        }
    }
    free(body);
    free(a);
    free(bm);
    free(c);
    free(out);
    assert_int_equal(wrong, 0);
}

/* ---- v_fmac_f32 ---- */

#define FMAC_CASES 4

/* Operand values of the fmac case: NaNs with distinct payloads (quiet and
 * signalling, both signs), infinities, zeros, one, a subnormal; lane i of
 * the 16 workgroups takes a, b, d = special[i % 10], special[i / 10 % 10],
 * special[i / 100 % 10] (every combination), the last 24 random. */
static const uint32_t fmac_special[10] = {0x7fc00001, 0xffc00002, 0x7f800003, 0xff900004, 0x7f800000,
                                          0xff800000, 0x00000000, 0x80000000, 0x3f800000, 0x00000005};
#define FMAC_GROUPS 16

static void run_fmac(const char *arch)
{
    uint64_t seed = 0x666d6163ull;
    size_t nin = 64 * 3 * FMAC_GROUPS, nout = 64 * FMAC_CASES * FMAC_GROUPS;
    uint32_t *a = calloc(nin, 4), *out = calloc(nout, 4);
    assert_true(a && out);
    for (int g = 0; g < FMAC_GROUPS; g++)
        for (int l = 0; l < 64; l++) {
            int i = g * 64 + l;
            for (int o = 0; o < 3; o++) {
                int sel = o == 0 ? i % 10 : o == 1 ? i / 10 % 10 : i / 100 % 10;
                a[g * 192 + o * 64 + l] = i < 1000 ? fmac_special[sel] : rnd_f32(&seed);
            }
        }
    /* per workgroup (s2): v2, v3, v4 = a, b, d; case 0 all lanes, 1 odd
       lanes, 2 d = a, 3 d = b (the case number goes in the table's blgp
       column) */
    const char *body =
        "    s_load_dwordx4 s[4:7], s[0:1], 0\n"
        "    s_mul_i32 s8, s2, 768\n"
        "    s_mul_i32 s9, s2, 1024\n"
        "    v_lshlrev_b32 v1, 2, v0\n"
        "    s_waitcnt lgkmcnt(0)\n"
        "    s_add_u32 s4, s4, s8\n"
        "    s_addc_u32 s5, s5, 0\n"
        "    s_add_u32 s6, s6, s9\n"
        "    s_addc_u32 s7, s7, 0\n"
        "    global_load_dword v2, v1, s[4:5]\n"
        "    global_load_dword v3, v1, s[4:5] offset:256\n"
        "    global_load_dword v4, v1, s[4:5] offset:512\n"
        "    s_waitcnt vmcnt(0)\n"
        "    v_mov_b32 v5, v4\n"
        "    v_fmac_f32 v5, v2, v3\n"
        "    global_store_dword v1, v5, s[6:7]\n"
        "    v_mov_b32 v5, v4\n"
        "    s_mov_b32 exec_lo, 0xaaaaaaaa\n"
        "    s_mov_b32 exec_hi, 0xaaaaaaaa\n"
        "    v_fmac_f32 v5, v2, v3\n"
        "    s_mov_b32 exec_lo, -1\n"
        "    s_mov_b32 exec_hi, -1\n"
        "    global_store_dword v1, v5, s[6:7] offset:256\n"
        "    v_mov_b32 v5, v2\n"
        "    v_fmac_f32 v5, v5, v3\n"
        "    global_store_dword v1, v5, s[6:7] offset:512\n"
        "    v_mov_b32 v5, v3\n"
        "    v_fmac_f32 v5, v2, v5\n"
        "    global_store_dword v1, v5, s[6:7] offset:768\n"
        "    s_waitcnt vmcnt(0)\n";
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 8, .sgprs = 16, .nptrs = 2};
    void *ptrs[2] = {a, out};
    size_t sizes[2] = {nin * 4, nout * 4};
    char err[1024] = "";
    if (tc_run(&sn, FMAC_GROUPS, 64, ptrs, sizes, NULL, err, sizeof err)) {
        print_error("%s: %s\n", arch, err);
        fail();
    }
    bool print = getenv("IGEMM_MFMA_EXACT_PRINT") != NULL;
    int wrong = 0;
    for (int n = 0; n < FMAC_CASES; n++) {
        uint32_t v[64 * FMAC_GROUPS];
        for (int g = 0; g < FMAC_GROUPS; g++)
            memcpy(v + 64 * g, out + 64 * (FMAC_CASES * g + n), 64 * 4);
        uint64_t h = fnv1a(v, 64 * FMAC_GROUPS);
        if (print) {
            printf("{\"%s\", \"v_fmac_f32\", 0, 0, 0, 0, %d, 0x%016llxull, 0},\n", arch, n, (unsigned long long)h);
            continue;
        }
        const expect_row *e = NULL;
        for (const expect_row *r = expected; r->arch; r++)
            if (!strcmp(r->arch, arch) && !strcmp(r->name, "v_fmac_f32") && r->blgp == n)
                e = r;
        if (!e || e->hash != h) {
            print_error("%s v_fmac_f32 case %d: hash %016llx, expected %016llx\n", arch, n, (unsigned long long)h,
                        (unsigned long long)(e ? e->hash : 0));
            wrong++;
        }
    }
    free(a);
    free(out);
    assert_int_equal(wrong, 0);
}

static void test_fmac(void **st)
{
    (void)st;
    static const char *const archs[] = {TC_ARCH_LIST};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        run_fmac(archs[i]);
}

/* The same hashes through the baseline path (libm's fmaf lane by lane), as
 * on a host without FMA instructions. */
static void test_fmac_baseline(void **st)
{
    emu_host_simd(false);
    test_fmac(st);
}

static void test_gfx908(void **st) { (void)st; run_target("gfx908"); }
static void test_gfx90a(void **st) { (void)st; run_target("gfx90a"); }
static void test_gfx942(void **st) { (void)st; run_target("gfx942"); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gfx908),
        cmocka_unit_test(test_gfx90a),
        cmocka_unit_test(test_gfx942),
        cmocka_unit_test(test_fmac),
        cmocka_unit_test_teardown(test_fmac_baseline, tc_host_simd_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
