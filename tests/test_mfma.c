/* MFMA register layouts against AMD's matrix instruction calculator.
 *
 * At test time every ../shared/isa/mfma/<arch>/<instruction>.md (CDNA1 ->
 * gfx908, CDNA2 -> gfx90a, CDNA3 -> gfx942) is parsed: its dimensions,
 * cycle count, modifier support and the three tables "entry held by each
 * (register, lane)" for A, B and D (C shares D's layout: "C or D" in the
 * formulas). Each table must name every matrix element exactly once.
 *
 * Then one snippet kernel per instruction loads A, B and C from buffers
 * into the registers the tables name, runs the instruction in the emulator
 * in several cases, and stores D. The expected D of every (register, lane)
 * is computed here from the tables alone: D[b][i][j] = C[b][i][j] +
 * sum_k A[b][i][k] * B[b][k][j], with small integer inputs (exact in f16,
 * bf16 and in an f32 sum whatever the order), pseudo-random non-zero A and
 * B and pairwise distinct C, so a misplaced element changes the result.
 *
 * Cases: A/B from VGPRs or AGPRs; C/D in AGPRs (gfx908, where they must be)
 * or, on gfx90a/gfx942, in VGPRs or AGPRs (the acc_cd bit); C an inline
 * constant; D in place over C; and the modifiers where the .md says the
 * instruction supports them. Modifier semantics, from AMD's calculator
 * (github.com/ROCm/amd_matrix_instruction_calculator: README, "Example of
 * Using the CBSZ and ABID Modifiers to Change the A Matrix Layout" and the
 * --cbsz/--abid/--blgp options; matrix_calculator.py,
 * _get_cbsz_abid_transformed_block and _get_blgp_transformed_lane, AMD's
 * executable form of the CDNA1/2/3 ISA guides' VOP3P-MAI field text):
 *   CBSZ/ABID: block b reads A from block floor(b / 2^CBSZ) * 2^CBSZ + ABID
 *     (CBSZ <= min(4, log2 blocks), ABID < 2^CBSZ).
 *   BLGP (B lane group pattern): the B value lane l uses is taken from
 *     lane 1: l % 32; 2: 32 + l % 32; 3: (l + 16) % 64; 4..7: 16 * (BLGP-4)
 *     + l % 16. On CDNA3 the field has this meaning for the f32/f16/bf16
 *     MFMAs; only the f64 ones reuse it as negation bits (LLVM review
 *     D121745: "in gfx940 BLGP argument is replaced by NEG bitfield in the
 *     DGEMM MFMA"; MLIR's AMDGPU dialect, amdgpu.mfma: negation "only
 *     supported for double-precision operations on gfx94x").
 * The products pair the A and B elements of equal k, so the tables' k
 * labels are checked up to one renaming shared by A and B, which no D can
 * reveal; every other label (i, j, block, C/D placement) is checked exactly.
 * Where the .md says a modifier is not supported, the emulator must report
 * the instruction rather than compute something.
 *
 * The emulator's issue cycles for each instruction must equal the .md's
 * "Execution cycles".
 *
 * Denormals: gfx90a's f16/bf16 MFMAs flush subnormal inputs and results,
 * nothing else does (AMD's MIOpen and PyTorch MI200 notes; docs/EMULATOR.md
 * "Denormals"), checked with subnormal A, B and C on gfx908, gfx90a and
 * gfx942. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/mfma.h"
#include "../arch/target.h"
#include "../emu/isa.h"
#include "common.h"

#define MD_ROOT "../shared/isa/mfma"   /* beside the repository, as on the project's machines */
#define MD_LOCAL "tests/isa/mfma"      /* the vendored copy a clone without it uses */

enum { TY_F32, TY_F16, TY_BF16 };

/* One instruction as its .md file describes it. Element ids: A b*M*K +
 * i*K + k, B b*K*N + k*N + j, C/D b*M*N + i*N + j; -1 for an empty slot. */
typedef struct {
    char name[64];
    int m, n, k, blocks, cycles, type;
    int max_cbsz; /* the largest CBSZ the blocks allow: 2^cbsz <= blocks, at most 4 */
    int a_regs, b_regs, cd_regs;
    bool cd_vgpr, cbsz_abid, blgp;
    int a_elem[4][2][64]; /* [register][half][lane] */
    int b_elem[4][2][64];
    int d_elem[32][64];
} mdesc;

/* ---- parsing ---- */

static int field_int(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? atoi(p + strlen(key)) : -1;
}

static int field_bool(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ')
        p++;
    return !strncmp(p, "True", 4) ? 1 : !strncmp(p, "False", 5) ? 0 : -1;
}

/* Parse the table after `heading`: columns "vG" or "vG.[15:0]"/"vG.[31:16]",
 * cells "X[r][c]" or "X[r][c].Bb". Fills elem[g][h][lane] (f32 tables use
 * h = 0) with the element id from `id`. Returns the number of cells, -1 on
 * a malformed table. */
typedef int (*elem_id_fn)(const mdesc *d, int r, int c, int b);

static int id_a(const mdesc *d, int i, int k, int b)
{
    return i < d->m && k < d->k && b < d->blocks ? (b * d->m + i) * d->k + k : -1;
}
static int id_b(const mdesc *d, int k, int j, int b)
{
    return k < d->k && j < d->n && b < d->blocks ? (b * d->k + k) * d->n + j : -1;
}
static int id_d(const mdesc *d, int i, int j, int b)
{
    return i < d->m && j < d->n && b < d->blocks ? (b * d->m + i) * d->n + j : -1;
}

static int parse_table(const char *text, const char *heading, char letter, const mdesc *d, elem_id_fn id,
                       int *elem, int nregs, bool halves, int slots_per_reg, char *err, size_t errlen)
{
    const char *p = strstr(text, heading);
    if (!p) {
        snprintf(err, errlen, "no table \"%s\"", heading);
        return -1;
    }
    p = strchr(p, '\n') + 1; /* header row */
    int colg[80], colh[80], ncol = 0;
    const char *eol = strchr(p, '\n');
    for (const char *q = strchr(p, '|') + 1; q && q < eol; q = strchr(q, '|')) {
        q++;
        while (*q == ' ')
            q++;
        if (*q == 'v') {
            int g = atoi(q + 1), h = 0;
            const char *dot = strchr(q, '.');
            const char *bar = strchr(q, '|');
            if (dot && dot < bar)
                h = !strncmp(dot, ".[31:16]", 8) ? 1 : !strncmp(dot, ".[15:0]", 7) ? 0 : -1;
            if (g < 0 || g >= nregs || h < 0 || (h && !halves) || ncol >= 80) {
                snprintf(err, errlen, "%s: bad column header", heading);
                return -1;
            }
            colg[ncol] = g;
            colh[ncol++] = h;
        } else if (strncmp(q, "lane", 4) != 0 && *q != '\n' && *q) {
            snprintf(err, errlen, "%s: bad column header", heading);
            return -1;
        }
    }
    p = strchr(eol + 1, '\n') + 1; /* skip the |---| row */
    int cells = 0;
    for (int row = 0; row < 64; row++) {
        const char *q = strchr(p, '|');
        eol = strchr(p, '\n');
        if (!q || !eol) {
            snprintf(err, errlen, "%s: table ends at row %d", heading, row);
            return -1;
        }
        int lane = atoi(q + 1);
        if (lane != row) {
            snprintf(err, errlen, "%s: row %d names lane %d", heading, row, lane);
            return -1;
        }
        q = strchr(q + 1, '|');
        for (int c = 0; c < ncol; c++) {
            q++;
            while (*q == ' ')
                q++;
            int r, s, b = 0;
            char x;
            if (sscanf(q, "%c[%d][%d]", &x, &r, &s) != 3 || x != letter) {
                snprintf(err, errlen, "%s: lane %d column %d: bad cell", heading, lane, c);
                return -1;
            }
            const char *bb = strstr(q, "].B");
            const char *bar = strchr(q, '|');
            if (bb && bb < bar)
                b = atoi(bb + 3);
            int e = id(d, r, s, b);
            if (e < 0) {
                snprintf(err, errlen, "%s: lane %d: element outside the matrix", heading, lane);
                return -1;
            }
            elem[(colg[c] * slots_per_reg + colh[c]) * 64 + lane] = e;
            cells++;
            q = bar;
        }
        p = eol + 1;
    }
    return cells;
}

/* Each element id in [0, count) must occur exactly once among the slots. */
static bool bijective(const int *elem, int slots, int count, char *err, size_t errlen, const char *what)
{
    int *seen = calloc((size_t)count, sizeof *seen);
    bool ok = seen != NULL;
    for (int s = 0; ok && s < slots; s++)
        if (elem[s] >= 0 && seen[elem[s]]++)
            ok = false;
    for (int e = 0; ok && e < count; e++)
        if (seen[e] != 1)
            ok = false;
    if (!ok)
        snprintf(err, errlen, "%s table does not name every element exactly once", what);
    free(seen);
    return ok;
}

static int parse_md(const char *path, mdesc *d, char *err, size_t errlen)
{
    size_t size;
    char *text = read_file(path, &size);
    if (!text) {
        snprintf(err, errlen, "cannot read %.300s", path);
        return -1;
    }
    int rc = -1;
    memset(d->a_elem, 0xff, sizeof d->a_elem);
    memset(d->b_elem, 0xff, sizeof d->b_elem);
    memset(d->d_elem, 0xff, sizeof d->d_elem);
    d->m = field_int(text, "M: ");
    d->n = field_int(text, "N: ");
    d->k = field_int(text, "K: ");
    d->blocks = field_int(text, "blocks: ");
    d->max_cbsz = 0;
    while ((2 << d->max_cbsz) <= d->blocks && d->max_cbsz < 4)
        d->max_cbsz++;
    d->cycles = field_int(text, "Execution cycles: ");
    d->a_regs = field_int(text, "GPRs required for A: ");
    d->b_regs = field_int(text, "GPRs required for B: ");
    d->cd_regs = field_int(text, "GPRs required for D: ");
    int cd_v = field_bool(text, "C and D matrix can use ArchVGPRs:");
    int cb = field_bool(text, "CBSZ and ABID bits supported:");
    int bl = field_bool(text, "BLGP bits supported:");
    const char *src0 = strstr(text, "Src0: ");
    d->type = !src0 ? -1 : !strncmp(src0 + 6, "FP32", 4) ? TY_F32 : !strncmp(src0 + 6, "FP16", 4) ? TY_F16
                         : !strncmp(src0 + 6, "BF16", 4) ? TY_BF16 : -1;
    if (d->m <= 0 || d->n <= 0 || d->k <= 0 || d->blocks <= 0 || d->cycles <= 0 || d->a_regs < 1 ||
        d->a_regs > 4 || d->b_regs != d->a_regs || d->cd_regs < 1 || d->cd_regs > 32 || cd_v < 0 || cb < 0 ||
        bl < 0 || d->type < 0 || d->m * d->n * d->blocks != 64 * d->cd_regs) {
        snprintf(err, errlen, "%.300s: missing or inconsistent header fields", path);
        goto out;
    }
    d->cd_vgpr = cd_v;
    d->cbsz_abid = cb;
    d->blgp = bl;
    bool halves = d->type != TY_F32;
    int na = parse_table(text, "## A matrix", 'A', d, id_a, &d->a_elem[0][0][0], d->a_regs, halves, 2, err, errlen);
    int nb = parse_table(text, "## B matrix", 'B', d, id_b, &d->b_elem[0][0][0], d->b_regs, halves, 2, err, errlen);
    int nd = parse_table(text, "## D matrix", 'D', d, id_d, &d->d_elem[0][0], d->cd_regs, false, 1, err, errlen);
    if (na < 0 || nb < 0 || nd < 0)
        goto out;
    int ka = d->blocks * d->m * d->k, kb = d->blocks * d->k * d->n, kd = d->blocks * d->m * d->n;
    if (na != ka || nb != kb || nd != kd) {
        snprintf(err, errlen, "%.300s: tables hold %d/%d/%d cells, the matrices %d/%d/%d elements", path, na, nb, nd, ka,
                 kb, kd);
        goto out;
    }
    if (!bijective(&d->a_elem[0][0][0], 4 * 2 * 64, ka, err, errlen, "A") ||
        !bijective(&d->b_elem[0][0][0], 4 * 2 * 64, kb, err, errlen, "B") ||
        !bijective(&d->d_elem[0][0], 32 * 64, kd, err, errlen, "D"))
        goto out;
    rc = 0;
out:
    free(text);
    return rc;
}

/* ---- values ---- */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float f32_from(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* 16-bit encodings of a small integer (exact by construction; checked). */
static uint16_t half_bits(int v, int type)
{
    if (type == TY_BF16) {
        uint32_t u = f32_bits((float)v);
        assert_int_equal(u & 0xffff, 0);
        return (uint16_t)(u >> 16);
    }
    if (v == 0)
        return 0;
    unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
    while ((a >> e) > 1)
        e++;
    assert_true(e <= 10); /* |v| < 2048: an exact f16 */
    uint16_t frac = (uint16_t)((a << (10 - e)) & 0x3ff);
    return (uint16_t)((v < 0 ? 0x8000 : 0) | (e + 15) << 10 | frac);
}

/* The value of element `half` of a register word (the integers we encode). */
static double value_of(uint32_t word, int half, int type)
{
    if (type == TY_F32)
        return f32_from(word);
    uint16_t x = (uint16_t)(half ? word >> 16 : word);
    if (type == TY_BF16)
        return f32_from((uint32_t)x << 16);
    if (!(x & 0x7fff))
        return 0.0;
    double v = ldexp(1024 + (x & 0x3ff), (x >> 10 & 31) - 15 - 10);
    return x & 0x8000 ? -v : v;
}

static uint32_t rng_state;
static int rnd_nonzero(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    int v = (int)((rng_state >> 16) % 200) - 100;
    return v >= 0 ? v + 1 : v; /* -100..-1, 1..100 */
}

/* ---- cases ---- */

typedef struct {
    bool a_agpr, b_agpr, cd_agpr; /* register files */
    bool c_zero;                  /* C is the inline constant 0 */
    bool in_place;                /* D = C */
    int cbsz, abid, blgp;
} mcase;

/* The lane whose B value lane l uses under BLGP (see the header). */
static int blgp_source(int blgp, int l)
{
    switch (blgp) {
    case 0: return l;
    case 1: return l % 32;
    case 2: return 32 + l % 32;
    case 3: return (l + 16) % 64;
    default: return 16 * (blgp - 4) + l % 16;
    }
}

#define VA 8
#define VB 12
#define VC 32
#define VD 64
#define VT 96
#define AA 0
#define AB 4
#define AC 32
#define AD 64

static void regs(char *buf, size_t len, char file, int base, int n)
{
    if (n == 1)
        snprintf(buf, len, "%c%d", file, base);
    else
        snprintf(buf, len, "%c[%d:%d]", file, base, base + n - 1);
}

/* The kernel: load A, B, C (lane-major buffers), copy them to AGPRs, then
 * per case one MFMA, its D stored to out + case * 64 * cd_regs dwords. */
static char *kernel_text(const mdesc *d, const mcase *cs, int ncases)
{
    tc_sbuf b = {0};
    int ra = d->a_regs, rc = d->cd_regs;
    tc_put(&b,
           "    s_load_dwordx8 s[4:11], s[0:1], 0\n"
           "    v_mul_u32_u24 v2, %d, v0\n    v_mul_u32_u24 v3, %d, v0\n    v_mul_u32_u24 v4, %d, v0\n"
           "    s_waitcnt lgkmcnt(0)\n",
           4 * ra, 4 * ra, 4 * rc);
    for (int r = 0; r < ra; r++)
        tc_put(&b, "    global_load_dword v%d, v2, s[4:5] offset:%d\n    global_load_dword v%d, v3, s[6:7] offset:%d\n",
               VA + r, 4 * r, VB + r, 4 * r);
    for (int r = 0; r < rc; r++)
        tc_put(&b, "    global_load_dword v%d, v4, s[8:9] offset:%d\n", VC + r, 4 * r);
    tc_put(&b, "    s_waitcnt vmcnt(0)\n");
    for (int r = 0; r < ra; r++)
        tc_put(&b, "    v_accvgpr_write_b32 a%d, v%d\n    v_accvgpr_write_b32 a%d, v%d\n", AA + r, VA + r, AB + r,
               VB + r);
    for (int r = 0; r < rc; r++)
        tc_put(&b, "    v_accvgpr_write_b32 a%d, v%d\n", AC + r, VC + r);
    tc_put(&b, "    s_nop 7\n    s_nop 7\n    s_nop 7\n");
    for (int n = 0; n < ncases; n++) {
        const mcase *c = &cs[n];
        char ad[24], aa[24], ab[24], ac[24];
        char cdf = c->cd_agpr ? 'a' : 'v';
        int cbase = c->cd_agpr ? AC : VC, dbase = c->in_place ? cbase : c->cd_agpr ? AD : VD;
        regs(ad, sizeof ad, cdf, dbase, rc);
        regs(aa, sizeof aa, c->a_agpr ? 'a' : 'v', c->a_agpr ? AA : VA, ra);
        regs(ab, sizeof ab, c->b_agpr ? 'a' : 'v', c->b_agpr ? AB : VB, ra);
        if (c->c_zero)
            snprintf(ac, sizeof ac, "0");
        else
            regs(ac, sizeof ac, cdf, cbase, rc);
        tc_put(&b, "    %s %s, %s, %s, %s", d->name, ad, aa, ab, ac);
        if (c->cbsz)
            tc_put(&b, " cbsz:%d", c->cbsz);
        if (c->abid)
            tc_put(&b, " abid:%d", c->abid);
        if (c->blgp)
            tc_put(&b, " blgp:%d", c->blgp);
        tc_put(&b, "\n    s_nop 7\n    s_nop 7\n    s_nop 7\n");
        int src = dbase;
        if (c->cd_agpr) {
            for (int r = 0; r < rc; r++)
                tc_put(&b, "    v_accvgpr_read_b32 v%d, a%d\n", VT + r, dbase + r);
            tc_put(&b, "    s_nop 1\n");
            src = VT;
        }
        for (int r = 0; r < rc; r++)
            tc_put(&b, "    global_store_dword v4, v%d, s[10:11] offset:%d\n", src + r, 4 * r);
        tc_put(&b, "    s_add_u32 s10, s10, %d\n    s_addc_u32 s11, s11, 0\n    s_waitcnt vmcnt(0)\n", 64 * rc * 4);
    }
    return b.s;
}

/* Compare the emulator's D of every case with the one computed from the
 * tables. Returns the number of wrong (register, lane) slots. */
static int check_cases(const mdesc *d, const mcase *cs, int ncases, const uint32_t *a_buf, const uint32_t *b_buf,
                       const uint32_t *c_buf, const uint32_t *out, const char *arch)
{
    int ra = d->a_regs, rc = d->cd_regs, wrong = 0;
    /* element values from the tables: aval[id], and per B element its slot */
    int na = d->blocks * d->m * d->k, nb = d->blocks * d->k * d->n;
    double *aval = calloc((size_t)na, sizeof *aval);
    int *bslot = calloc((size_t)nb, sizeof *bslot);
    assert_true(aval && bslot);
    int per = d->type == TY_F32 ? 1 : 2;
    for (int g = 0; g < ra; g++)
        for (int h = 0; h < per; h++)
            for (int l = 0; l < 64; l++) {
                aval[d->a_elem[g][h][l]] = value_of(a_buf[l * ra + g], h, d->type);
                bslot[d->b_elem[g][h][l]] = (g * 2 + h) * 64 + l;
            }
    for (int n = 0; n < ncases; n++) {
        const mcase *c = &cs[n];
        for (int g = 0; g < rc; g++)
            for (int l = 0; l < 64; l++) {
                int e = d->d_elem[g][l];
                int b = e / (d->m * d->n), i = e / d->n % d->m, j = e % d->n;
                int ab = c->cbsz ? b / (1 << c->cbsz) * (1 << c->cbsz) + c->abid : b;
                double acc = c->c_zero ? 0.0 : f32_from(c_buf[l * rc + g]);
                for (int k = 0; k < d->k; k++) {
                    double av = aval[(ab * d->m + i) * d->k + k];
                    int slot = bslot[(b * d->k + k) * d->n + j];
                    int sg = slot / 128, sh = slot / 64 % 2, sl = blgp_source(c->blgp, slot % 64);
                    double bv = value_of(b_buf[sl * ra + sg], sh, d->type);
                    acc += av * bv;
                }
                uint32_t want = f32_bits((float)acc), got = out[(size_t)n * 64 * rc + (size_t)l * rc + (size_t)g];
                if (want != got && wrong++ < 8)
                    print_error("%s %s case %d (A %s, B %s, C/D %s%s%s, cbsz %d abid %d blgp %d): v%d lane %d = "
                                "D[%d][%d] block %d: expected %g, emulator %g\n",
                                arch, d->name, n, c->a_agpr ? "agpr" : "vgpr", c->b_agpr ? "agpr" : "vgpr",
                                c->cd_agpr ? "agpr" : "vgpr", c->c_zero ? ", C=0" : "", c->in_place ? ", D=C" : "",
                                c->cbsz, c->abid, c->blgp, g, l, i, j, b, (double)f32_from(want), (double)f32_from(got));
            }
    }
    free(aval);
    free(bslot);
    return wrong;
}

/* Run all cases of one instruction; returns the number of failures. */
static int run_instruction(const mdesc *d, const char *arch)
{
    mcase cs[32];
    int nc = 0;
    bool agpr_only = !d->cd_vgpr;
    /* placements */
    cs[nc++] = (mcase){.cd_agpr = true};
    cs[nc++] = (mcase){.a_agpr = true, .b_agpr = true, .cd_agpr = true};
    cs[nc++] = (mcase){.a_agpr = true, .cd_agpr = agpr_only};
    /* C as an inline constant (gfx908's assembler rejects it: LLVM's
       FeatureMFMAInlineLiteralBug) */
    cs[nc++] = (mcase){.b_agpr = true, .cd_agpr = agpr_only, .c_zero = !agpr_only};
    if (!agpr_only)
        cs[nc++] = (mcase){.cd_agpr = false};
    /* modifiers */
    if (d->cbsz_abid)
        for (int cb = 1; cb <= d->max_cbsz; cb++)
            cs[nc++] = (mcase){.cd_agpr = true, .cbsz = cb, .abid = cb % 2 ? (1 << cb) - 1 : 1};
    if (d->blgp)
        for (int bg = 1; bg <= 7; bg++)
            cs[nc++] = (mcase){.cd_agpr = agpr_only || bg % 2, .blgp = bg};
    if (d->blgp && d->cbsz_abid)
        cs[nc++] = (mcase){.a_agpr = true, .cd_agpr = true, .cbsz = 1, .abid = 1, .blgp = 3};
    /* last: D over C, in both files where allowed (overwrites C) */
    cs[nc++] = (mcase){.cd_agpr = true, .in_place = true};
    if (!agpr_only)
        cs[nc++] = (mcase){.cd_agpr = false, .in_place = true};
    assert_true(nc <= 32);

    int ra = d->a_regs, rc = d->cd_regs;
    size_t an = 64 * (size_t)ra, cn = 64 * (size_t)rc, on = (size_t)nc * cn;
    uint32_t *a_buf = calloc(an, 4), *b_buf = calloc(an, 4), *c_buf = calloc(cn, 4), *out = calloc(on, 4);
    assert_true(a_buf && b_buf && c_buf && out);
    rng_state = 12345u + (uint32_t)d->m * 7u + (uint32_t)d->k * 131u + (uint32_t)d->blocks;
    for (size_t s = 0; s < an; s++) {
        if (d->type == TY_F32) {
            a_buf[s] = f32_bits((float)rnd_nonzero());
            b_buf[s] = f32_bits((float)rnd_nonzero());
        } else {
            a_buf[s] = half_bits(rnd_nonzero(), d->type) | (uint32_t)half_bits(rnd_nonzero(), d->type) << 16;
            b_buf[s] = half_bits(rnd_nonzero(), d->type) | (uint32_t)half_bits(rnd_nonzero(), d->type) << 16;
        }
    }
    for (size_t s = 0; s < cn; s++) /* pairwise distinct: 37 is odd, slots < 2048 */
        c_buf[s] = f32_bits((float)((int)(s * 37 % 2048) - 1024));
    for (size_t s = 0; s < on; s++)
        out[s] = 0x7fc0dead;

    char *body = kernel_text(d, cs, nc);
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 128, .agprs = 96, .sgprs = 16, .nptrs = 4};
    void *ptrs[4] = {a_buf, b_buf, c_buf, out};
    size_t sizes[4] = {an * 4, an * 4, cn * 4, on * 4};
    emu_stats st;
    memset(&st, 0, sizeof st);
    char err[1024] = "";
    int fails = 0;
    if (tc_run(&sn, 1, 64, ptrs, sizes, &st, err, sizeof err)) {
        print_error("%s %s: %s\n", arch, d->name, err);
        fails = 1;
    } else {
        fails = check_cases(d, cs, nc, a_buf, b_buf, c_buf, out, arch) ? 1 : 0;
        if (st.insts[EC_MFMA] != (uint64_t)nc || st.cycles[EC_MFMA] != (uint64_t)nc * (uint64_t)d->cycles) {
            print_error("%s %s: %llu MFMA issued in %llu cycles, expected %d in %d (.md: %d cycles each)\n", arch,
                        d->name, (unsigned long long)st.insts[EC_MFMA], (unsigned long long)st.cycles[EC_MFMA], nc,
                        nc * d->cycles, d->cycles);
            fails = 1;
        }
    }
    free(body);
    free(a_buf);
    free(b_buf);
    free(c_buf);
    free(out);
    return fails;
}

/* Instructions a modifier does not apply to must be reported, not run. */
static int run_unsupported(const mdesc *d, const char *arch, const char *mods, const char *expect)
{
    char body[512], ad[24], aa[24];
    regs(ad, sizeof ad, 'a', AD, d->cd_regs);
    regs(aa, sizeof aa, 'v', VA, d->a_regs);
    snprintf(body, sizeof body, "    %s %s, %s, %s, %s %s\n", d->name, ad, aa, aa, ad, mods);
    tc_snippet sn = {.arch = arch, .body = body, .vgprs = 128, .agprs = 96, .sgprs = 16};
    char err[1024] = "";
    if (tc_run(&sn, 1, 64, NULL, NULL, NULL, err, sizeof err) == 0) {
        print_error("%s %s %s: ran, but the .md says this modifier is not supported\n", arch, d->name, mods);
        return 1;
    }
    if (!strstr(err, expect) || !strstr(err, d->name)) {
        print_error("%s %s %s: unexpected report: %s\n", arch, d->name, mods, err);
        return 1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The vendored copy (tests/isa/mfma) must not drift from the shared one. */
static bool same_as_vendored(const char *path, const char *local_dir, const char *name)
{
    char local[400];
    snprintf(local, sizeof local, "%s/%s", local_dir, name);
    size_t na = 0, nb = 0;
    char *a = read_file(path, &na), *b = read_file(local, &nb);
    bool same = a && b && na == nb && !memcmp(a, b, na);
    if (!same)
        print_error("%s %s %s: copy the shared file into the repository\n", local,
                    b ? "differs from" : "is missing, vendor", path);
    free(a);
    free(b);
    return same;
}

/* Every instruction of one architecture directory. */
static void run_arch(const char *dir_name, const char *arch, int expect_files)
{
    char dir[256], local[256];
    snprintf(dir, sizeof dir, "%s/%s", MD_ROOT, dir_name);
    snprintf(local, sizeof local, "%s/%s", MD_LOCAL, dir_name);
    DIR *dp = opendir(dir);
    bool shared = dp != NULL;
    if (!dp && (dp = opendir(local)))
        snprintf(dir, sizeof dir, "%s", local);
    if (!dp)
        fail_msg("cannot open %s or %s (run the tests from the repository root)", dir, local);
    char *names[64];
    int nf = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && nf < 64) {
        size_t len = strlen(de->d_name);
        if (len > 3 && !strcmp(de->d_name + len - 3, ".md"))
            names[nf++] = strdup(de->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)nf, sizeof names[0], cmp_str);
    assert_int_equal(nf, expect_files);
    bool unified = strcmp(arch, "gfx908") != 0;
    int fails = 0, positive = 0, negative = 0;
    bool done_cbsz = false, done_cbsz_max = false, done_abid = false;
    mdesc *d = malloc(sizeof *d);
    assert_non_null(d);
    for (int f = 0; f < nf; f++) {
        char path[400], err[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        if (shared && !same_as_vendored(path, local, names[f])) {
            fails++;
            continue;
        }
        if (parse_md(path, d, err, sizeof err)) {
            print_error("%s\n", err);
            fails++;
            continue;
        }
        snprintf(d->name, sizeof d->name, "%.*s", (int)strlen(names[f]) - 3, names[f]);
        if (d->cd_vgpr != unified) {
            print_error("%s: C/D VGPR capability %d on %s\n", d->name, d->cd_vgpr, arch);
            fails++;
        }
        fails += run_instruction(d, arch);
        positive++;
        /* Unsupported modifiers: each kind once per architecture (a run
           stops at the report), BLGP on every instruction without it. */
        if (!d->cbsz_abid && !done_cbsz) {
            fails += run_unsupported(d, arch, "cbsz:1", "cbsz");
            done_cbsz = true;
            negative++;
        }
        if (d->cbsz_abid && d->max_cbsz < 4 && !done_cbsz_max) {
            char m[32];
            snprintf(m, sizeof m, "cbsz:%d abid:1", d->max_cbsz + 1);
            fails += run_unsupported(d, arch, m, "cbsz");
            done_cbsz_max = true;
            negative++;
        }
        if (d->cbsz_abid && !done_abid) {
            fails += run_unsupported(d, arch, "cbsz:1 abid:2", "abid");
            done_abid = true;
            negative++;
        }
        if (!d->blgp) {
            fails += run_unsupported(d, arch, "blgp:1", "blgp");
            negative++;
        }
    }
    assert_true(done_cbsz && done_cbsz_max && done_abid);
    free(d);
    /* every MFMA the emulator decodes for this target has a .md */
    unsigned bit = target_by_name(arch)->bit;
    int implemented = 0;
    for (int i = 0; i < isa_optable_len; i++) {
        const isa_opinfo *o = &isa_optable[i];
        if (o->fmt != F_MAI || !(o->targets & bit) || strncmp(o->name, "v_mfma_", 7))
            continue;
        implemented++;
        bool found = false;
        for (int f = 0; f < nf && !found; f++)
            found = strlen(names[f]) == strlen(o->name) + 3 && !strncmp(names[f], o->name, strlen(o->name));
        if (!found) {
            print_error("%s: the emulator has %s, %s has no layout for it\n", arch, o->name, dir);
            fails++;
        }
    }
    assert_int_equal(implemented, expect_files);
    for (int f = 0; f < nf; f++)
        free(names[f]);
    print_message("%s: %d instructions checked, %d unsupported modifiers reported\n", arch, positive, negative);
    assert_int_equal(fails, 0);
}

static void cdna1_gfx908(void **state)
{
    (void)state;
    run_arch("CDNA1", "gfx908", 15);
}

static void cdna2_gfx90a(void **state)
{
    (void)state;
    run_arch("CDNA2", "gfx90a", 20);
}

static void cdna3_gfx942(void **state)
{
    (void)state;
    run_arch("CDNA3", "gfx942", 15);
}

/* ---- denormals ---- */

/* One MFMA of shape 16x16xK (one block) with every A element a, every B
 * element b (16-bit halves, or f32 words) and every C element the f32 bits
 * c: every D element is c + K * a * b, whatever the register layout.
 * Returns the f32 bits of D after checking all 64 lanes x registers agree;
 * fails the test when the kernel does not run. */
static uint32_t const_mfma(const char *arch, const mfma_info *m, uint32_t a, uint32_t b, uint32_t c)
{
    assert_non_null(m);
    uint32_t aw = m->type == MFMA_F32 ? a : a | a << 16, bw = m->type == MFMA_F32 ? b : b | b << 16;
    tc_sbuf k = {0};
    tc_put(&k, "    s_load_dwordx2 s[4:5], s[0:1], 0\n    v_lshlrev_b32 v1, 2, v0\n"
               "    v_mov_b32 v2, 0x%x\n    v_mov_b32 v3, 0x%x\n    v_mov_b32 v4, 0x%x\n",
           aw, bw, c);
    for (int r = 0; r < m->a_gprs; r++)
        tc_put(&k, "    v_mov_b32 v%d, v2\n    v_mov_b32 v%d, v3\n", 8 + r, 12 + r);
    for (int r = 0; r < m->cd_gprs; r++)
        tc_put(&k, "    v_accvgpr_write_b32 a%d, v4\n", r);
    char ra[24], rb[24], rc[24];
    regs(ra, sizeof ra, 'v', 8, m->a_gprs);
    regs(rb, sizeof rb, 'v', 12, m->b_gprs);
    regs(rc, sizeof rc, 'a', 0, m->cd_gprs);
    tc_put(&k, "    s_nop 7\n    s_nop 7\n    %s %s, %s, %s, %s\n    s_nop 7\n    s_nop 7\n    s_nop 7\n",
           mfma_name(m), rc, ra, rb, rc);
    for (int r = 0; r < m->cd_gprs; r++)
        tc_put(&k, "    v_accvgpr_read_b32 v%d, a%d\n", 20 + r, r);
    tc_put(&k, "    s_nop 1\n    s_waitcnt lgkmcnt(0)\n");
    for (int r = 0; r < m->cd_gprs; r++)
        tc_put(&k, "    global_store_dword v1, v%d, s[4:5] offset:%d\n", 20 + r, 256 * r);
    tc_put(&k, "    s_waitcnt vmcnt(0)\n");
    uint32_t out[64 * 16];
    memset(out, 0xff, sizeof out);
    void *ptrs[1] = {out};
    size_t sizes[1] = {sizeof out};
    tc_snippet sn = {.arch = arch, .body = k.s, .vgprs = 32, .agprs = 16, .sgprs = 16, .nptrs = 1};
    char err[1024] = "";
    if (tc_run(&sn, 1, 64, ptrs, sizes, NULL, err, sizeof err))
        fail_msg("%s %s: %s", arch, mfma_name(m), err);
    free(k.s);
    for (int i = 1; i < 64 * m->cd_gprs; i++)
        if (out[i] != out[0])
            fail_msg("%s %s: D differs between elements (0x%08x, 0x%08x)", arch, mfma_name(m), out[0], out[i]);
    return out[0];
}

/* D of const_mfma for the 16x16 single-block MFMA of that type (K = 16,
 * or 8 where the target has no 16x16x16 of it), checked against want.
 * Values: fp16 0x0200 = 2^-15 (subnormal), 0x3c00 = 1; bf16 0x0040 =
 * 2^-127 (subnormal), 0x3800 = 2^-15 (normal), 0x3f80 = 1, 0x7180 = 2^100;
 * f32 0x01000000 = 2^-125 ... */
static void expect_d(const char *arch, const mfma_info *m, uint32_t a, uint32_t b, uint32_t c, float want)
{
    uint32_t got = const_mfma(arch, m, a, b, c);
    if (got != f32_bits(want))
        fail_msg("%s %s (A 0x%x, B 0x%x, C 0x%08x): D = %a, expected %a", arch, mfma_name(m), a, b, c,
                 (double)f32_from(got), (double)want);
}

static const mfma_info *mfma16(const char *arch, mfma_type type, int k)
{
    const target *t = target_by_name(arch);
    const mfma_info *m = mfma_pick(t, 16, 16, k, 1, type);
    return m ? m : mfma_pick(t, 16, 16, k / 2, 1, type);
}

/* gfx90a's f16 and bf16 MFMAs flush subnormal inputs (A/B and C) and
 * results to zero; its f32 MFMAs and every MFMA of gfx908 and gfx942 keep
 * them; an fp16 subnormal carried as a (normal) bf16 survives gfx90a's
 * bf16_1k MFMA: the "fp16 alternate implementation". Expected values are
 * exact sums: K products of powers of two. */
static void denormals_per_target(void **state)
{
    (void)state;
    const char *arches[] = {"gfx908", "gfx90a", "gfx942"};
    const uint32_t c_sub = 0x00080000; /* 2^-130, an f32 subnormal */
    for (int t = 0; t < 3; t++) {
        const char *arch = arches[t];
        bool ftz = !strcmp(arch, "gfx90a"); /* the documented behaviour, not the table's */
        const mfma_info *f16 = mfma16(arch, MFMA_F16, 16), *bf16 = mfma16(arch, MFMA_BF16, 16);
        const mfma_info *f32 = mfma16(arch, MFMA_F32, 4);
        /* f16: A = 2^-15 subnormal, B = 1: D = 16 * 2^-15 = 2^-11, or 0 */
        expect_d(arch, f16, 0x0200, 0x3c00, 0, ftz ? 0.0f : 0x1p-11f);
        /* B = -2^-15, C = -0: -0 + 16 * -0 keeps the sign */
        expect_d(arch, f16, 0x3c00, 0x8200, 0x80000000, ftz ? -0.0f : -0x1p-11f);
        /* a normal f16 product is unaffected: A = B = 2^-14: 16 * 2^-28 */
        expect_d(arch, f16, 0x0400, 0x0400, 0, 0x1p-24f);
        /* C subnormal, no products: D = C, or 0 */
        expect_d(arch, f16, 0, 0, c_sub, ftz ? 0.0f : 0x1p-130f);
        /* bf16: A = 2^-127 subnormal, B = 2^100: D = K * 2^-27, or 0 */
        float kb = (float)bf16->k;
        expect_d(arch, bf16, 0x0040, 0x7180, 0, ftz ? 0.0f : kb * 0x1p-27f);
        expect_d(arch, bf16, 0, 0, c_sub, ftz ? 0.0f : 0x1p-130f);
        /* fp16's subnormal 2^-15 as a normal bf16 (0x3800) times 1: kept everywhere */
        expect_d(arch, bf16, 0x3800, 0x3f80, 0, kb * 0x1p-15f);
        /* f32: A = 2^-140 (subnormal), B = 2^100, K = 4: 2^-38, and C subnormal, kept everywhere */
        expect_d(arch, f32, 0x00000200, 0x71800000, 0, 0x1p-38f);
        expect_d(arch, f32, 0, 0, c_sub, 0x1p-130f);
    }
    /* gfx90a's older bf16 MFMA (non-_1k) flushes as well */
    const mfma_info *old = mfma_pick(target_by_name("gfx90a"), 16, 16, 8, 1, MFMA_BF16);
    assert_non_null(old);
    expect_d("gfx90a", old, 0x0040, 0x7180, 0, 0.0f);
    /* the target table says which target flushes */
    for (int i = 0; i < igemm_target_count; i++)
        assert_int_equal(igemm_targets[i]->mfma_16bit_ftz, !strcmp(igemm_targets[i]->name, "gfx90a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cdna1_gfx908),
        cmocka_unit_test(cdna2_gfx90a),
        cmocka_unit_test(cdna3_gfx942),
        cmocka_unit_test(denormals_per_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
