/* Matrix FMA (VOP3P-MAI) for CDNA1/2/3, from the register layouts of AMD's
 * matrix instruction calculator (../shared/isa/mfma/ARCH/NAME.md; the
 * layouts below are checked against every table there by tests/test_mfma.c;
 * the table of shapes and cycles is arch/mfma.def, generated from them).
 *
 * Every float MFMA computes, per block b, D[b] = C[b] + A[b] x B[b] with
 * A MxK, B KxN. The lanes of a wave form 64/M groups of M lanes; lane
 * g*M + i holds row i of A (column j of B) for group g. A group is either
 * its own block (multi-block variants: blocks == 64/M, K = elements per
 * lane) or a slice of K (single block: K = groups * elements per lane).
 * Elements per lane: 1 for f32, 2 per register for f16/bf16, k = 2*GPR +
 * half within the lane's slice. The C/D layout depends on M only (see
 * cd_slot).
 *
 * Modifiers (semantics from the calculator's source, matrix_calculator.py
 * _get_cbsz_abid_transformed_block / _get_blgp_transformed_lane, and the
 * CDNA1/2/3 ISA guides' VOP3P-MAI field descriptions):
 *   CBSZ/ABID: block b takes its A from block (b & ~(2^CBSZ - 1)) + ABID;
 *     only multi-block variants have them, CBSZ <= min(4, log2 blocks),
 *     ABID < 2^CBSZ.
 *   BLGP: the B value of lane l is read from another lane: 1 l%32,
 *     2 32+l%32, 3 (l+16)%64, 4..7 16*(BLGP-4)+l%16. On CDNA3 the field
 *     keeps this meaning for f32/f16/bf16 (it is reused as negation bits only
 *     by the f64 MFMAs: LLVM D121745, "in gfx940 BLGP argument is replaced by
 *     NEG bitfield in the DGEMM MFMA"); the CDNA3 single-block f16/bf16
 *     variants do not support it (calculator: "BLGP bits supported: False"),
 *     so the emulator reports it there rather than guess.
 *
 * Numerics: the products and C are summed in double and rounded to f32 once
 * per instruction. Hardware rounds inside its adder tree, so results may
 * differ from hardware in the last bits; the tests use exactly representable
 * sums.
 *
 * Denormals: on targets with mfma_16bit_ftz (gfx90a) the f16/bf16 MFMAs
 * (bf16_1k included) take subnormal A/B elements and a subnormal C as zero
 * and write a subnormal D as zero, signs kept (AMD's MIOpen document "MI200
 * MFMA behavior specifics": "MFMA_F16, MFMA_BF16 and MFMA_BF16_1K flush
 * subnormal input/output data to zero"; PyTorch's numerical-accuracy note:
 * "FP32 and FP64 MFMA matrix instructions do not flush"). An fp16 value
 * moved into bf16 is normal there (fp16's smallest subnormal 2^-24 is far
 * above bf16's smallest normal 2^-126): MIOpen's "fp16 alternate
 * implementation" on the bf16_1k instructions keeps fp16 subnormals that
 * way. Every f32 MFMA, and every MFMA of the other targets, keeps them. */
#include <pthread.h>
#include <stdio.h>

#include "../arch/mfma.h"
#include "exec.h"

/* The MFMA table is arch/mfma.def (tools/isa/gen_mfma.py, from the same
 * calculator files): shape, cycles, A/B type and BLGP support per op. */
typedef mfma_info mfma_desc;

static const mfma_desc *find(isa_op op) { return mfma_by_op(op); }

int emu_mfma_passes(isa_op op)
{
    const mfma_desc *d = find(op);
    return d ? mfma_passes(d) : 0;
}

/* CDNA3 runs the f16/bf16 MFMAs on its XDL units and the f32 ones as
 * "SMFMA" (LLVM's is_gfx940_xdl flag); the hazard rules of gfx940+ differ
 * between the two. */
int emu_mfma_is_xdl(isa_op op)
{
    const mfma_desc *d = find(op);
    return d && mfma_is_xdl(d);
}

/* Register and first lane of row i of block b of C/D: the row's N
 * elements j are in lanes lane0 + j of that register. */
static void cd_row(const mfma_desc *d, int b, int i, int *gpr, int *lane0)
{
    if (d->m == 32) {
        *gpr = 16 * b + 4 * (i / 8) + i % 4;
        *lane0 = (32 * (i / 4)) % 64;
    } else if (d->m == 16) {
        *gpr = 4 * b + i % 4;
        *lane0 = 16 * (i / 4);
    } else {
        *gpr = i;
        *lane0 = 4 * b;
    }
}

/* Source lane of B under BLGP (CDNA1/2). */
static int blgp_lane(int blgp, int l)
{
    switch (blgp) {
    case 1: return l % 32;
    case 2: return 32 + l % 32;
    case 3: return (l + 16) % 64;
    case 4: case 5: case 6: case 7: return 16 * (blgp - 4) + l % 16;
    default: return l;
    }
}

/* f16 -> f32 without branches (the same bits as fp.h's f16_to_f32, every
 * input included: a subnormal is m * 2^-24, exact in f32). */
static inline uint32_t f16_bits_f32(uint32_t h)
{
    uint32_t sign = (h & 0x8000) << 16, e = h & 0x7c00, m = h & 0x3ff;
    uint32_t normal = (((h & 0x7fff) << 13) + ((127 - 15) << 23)) | sign;
    uint32_t special = sign | 0x7f800000 | m << 13;
    uint32_t sub = bits_of((float)m * 0x1p-24f) | sign;
    return e == 0x7c00 ? special : e ? normal : sub;
}

/* Every f16 value as f32 (256 KB, built once): one load per element. */
static float f16_tab[65536];
static pthread_once_t f16_once = PTHREAD_ONCE_INIT;
static void f16_build(void)
{
    for (uint32_t h = 0; h < 65536; h++)
        f16_tab[h] = f32_of(f16_bits_f32(h));
}
static const float *f16_table(void)
{
    pthread_once(&f16_once, f16_build);
    return f16_tab;
}

/* The A or B operand as doubles, el[e][lane]: element e of each lane's
 * slice (one f32, or two f16/bf16, per register; the decoder accepts
 * registers only), B's lanes permuted by BLGP (blgp 0 for A).
 * ftz: a subnormal f16/bf16 element reads as a zero of its sign. */
static void gather(const mfma_desc *d, wave *w, const emu_opnd *o, int kpl, int blgp, bool ftz, double el[][64])
{
    uint32_t x[64];
    for (int e = 0; e < kpl; e++) {
        int r = d->type == MFMA_F32 ? e : e / 2;
        const uint32_t *reg = o->kind == K_AGPR ? w->a[o->code - R_A0 + r] : w->v[o->code - R_V0 + r];
        if (blgp)
            for (int l = 0; l < 64; l++)
                x[l] = reg[blgp_lane(blgp, l)];
        else
            memcpy(x, reg, sizeof x);
        double *out = el[e];
        if (d->type == MFMA_F32) {
            for (int l = 0; l < 64; l++)
                out[l] = f32_of(x[l]);
            continue;
        }
        int shift = e & 1 ? 16 : 0;
        uint32_t exp_mask = d->type == MFMA_F16 ? 0x7c00 : 0x7f80, keep = ftz ? 0x8000 : 0xffff;
        for (int l = 0; l < 64; l++) {
            uint32_t h = x[l] >> shift & 0xffff;
            x[l] = h & exp_mask ? h : h & keep;
        }
        if (d->type == MFMA_F16) {
            const float *t = f16_table();
            for (int l = 0; l < 64; l++)
                out[l] = t[x[l]];
        }
        else
            for (int l = 0; l < 64; l++)
                out[l] = f32_of(x[l] << 16);
    }
}

/* NaN results, with the rules the first implementation's scalar x86 code
 * gave them (SSE2 mulsd/addsd with the first operand the destination) made
 * explicit so that no compiler's choice of operand order changes them: a
 * NaN operand propagates quieted, the first one (A before B in a product,
 * the sum so far before the product) when both are; an invalid operation
 * (inf * 0, inf - inf) gives x86's default NaN, negative and quiet. */
static double nan_op(double x, double y, bool mul)
{
    uint64_t q = 1ull << 51;
    if (x != x)
        return f64_of(bits64_of(x) | q);
    if (y != y)
        return f64_of(bits64_of(y) | q);
    double r = mul ? x * y : x + y;
    return r != r ? f64_of(0xfff8000000000000ull) : r;
}

/* Element j of a row whose vector sum gave a NaN, again with nan_op. */
static float row_nan(float c, const double *a, const double *const *b, int kk, int j)
{
    double acc = c;
    for (int k = 0; k < kk; k++)
        acc = nan_op(acc, nan_op(a[k], b[k][j], true), false);
    return (float)acc;
}

/* The rows of one block: for row i, acc[j] = C[j], then acc[j] += a[i][k] *
 * b[k][j] for k = 0..K-1 in order (the products of f32 values are exact in
 * double, so only this order of the sums decides the bits), rounded to f32
 * once. N is a constant in each instance so that the j loops vectorise;
 * the AVX2 clones are used where the host has AVX2 (the same IEEE
 * operations, four lanes at a time). A NaN result is computed again by
 * row_nan. c[i] and out[i] may be the same registers (D over C): a row reads
 * its C before it writes. */
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef int64_t v4l __attribute__((vector_size(32)));

#define MFMA_ROWS(NAME, N, ATTR)                                                                                       \
    ATTR static void NAME(int rows, const uint32_t *const *cbits, const double (*a)[16], const double *const *b,     \
                          int kk, bool ftz, uint32_t *const *out)                                                     \
    {                                                                                                                  \
        for (int i = 0; i < rows; i++) {                                                                               \
            float c[N]; /* C as read (flushed under ftz): only the NaN and ftz paths keep it */                      \
            const float *cs = (const float *)(const void *)cbits[i];                                                  \
            if (ftz) {                                                                                                 \
                memcpy(c, cbits[i], sizeof c);                                                                         \
                for (int j = 0; j < N; j++)                                                                            \
                    c[j] = flush_denorm(c[j]);                                                                         \
                cs = c;                                                                                                \
            }                                                                                                          \
            v4d acc[N / 4];                                                                                            \
            _Pragma("GCC unroll 8") for (int q = 0; q < N / 4; q++) {                                                 \
                v4f c4;                                                                                                \
                memcpy(&c4, cs + 4 * q, sizeof c4);                                                                    \
                acc[q] = __builtin_convertvector(c4, v4d);                                                             \
            }                                                                                                          \
            for (int k = 0; k < kk; k++) {                                                                             \
                const double ak = a[i][k], *bk = b[k];                                                                 \
                _Pragma("GCC unroll 8") for (int q = 0; q < N / 4; q++) {                                             \
                    v4d bv;                                                                                            \
                    memcpy(&bv, bk + 4 * q, sizeof bv);                                                                \
                    acc[q] += ak * bv;                                                                                 \
                }                                                                                                      \
            }                                                                                                          \
            v4l nan = {0, 0, 0, 0};                                                                                    \
            _Pragma("GCC unroll 8") for (int q = 0; q < N / 4; q++)                                                   \
                nan |= acc[q] != acc[q];                                                                               \
            bool any_nan = nan[0] | nan[1] | nan[2] | nan[3];                                                          \
            if (any_nan && !ftz) /* keep C: D may overwrite it */                                                      \
                memcpy(c, cbits[i], sizeof c);                                                                         \
            uint32_t *o = out[i];                                                                                      \
            _Pragma("GCC unroll 8") for (int q = 0; q < N / 4; q++) {                                                 \
                v4f f4 = __builtin_convertvector(acc[q], v4f);                                                         \
                memcpy(o + 4 * q, &f4, sizeof f4);                                                                     \
            }                                                                                                          \
            if (any_nan)                                                                                               \
                for (int j = 0; j < N; j++)                                                                            \
                    if ((o[j] & 0x7fffffff) > 0x7f800000)                                                              \
                        o[j] = bits_of(row_nan(c[j], a[i], b, kk, j));                                                 \
            if (ftz)                                                                                                   \
                for (int j = 0; j < N; j++)                                                                            \
                    o[j] = bits_of(flush_denorm(f32_of(o[j])));                                                        \
        }                                                                                                              \
    }

typedef void (*mfma_rows_fn)(int rows, const uint32_t *const *cbits, const double (*a)[16], const double *const *b,
                             int kk, bool ftz, uint32_t *const *out);

MFMA_ROWS(rows4, 4, )
MFMA_ROWS(rows16, 16, )
MFMA_ROWS(rows32, 32, )
static const mfma_rows_fn rows_plain[3] = {rows4, rows16, rows32};

#if defined(__x86_64__) && defined(__GNUC__)
#define AVX2 __attribute__((target("avx2")))
MFMA_ROWS(rows4_avx2, 4, AVX2)
MFMA_ROWS(rows16_avx2, 16, AVX2)
MFMA_ROWS(rows32_avx2, 32, AVX2)
static const mfma_rows_fn rows_avx2[3] = {rows4_avx2, rows16_avx2, rows32_avx2};
static const mfma_rows_fn *rows_best = rows_plain;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;
static void probe_avx2(void)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        rows_best = rows_avx2;
}
#endif

static const mfma_rows_fn *rows_fns(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    pthread_once(&rows_once, probe_avx2);
    return rows_best;
#else
    return rows_plain;
#endif
}

static int mfma_check(wg_ctx *c, wave *w, const emu_inst *in, const mfma_desc *d, int kpl)
{
    int blocks = d->blocks;
    if (in->cbsz && ((1 << in->cbsz) > blocks || in->cbsz > 4))
        return emu_fault(c, w, "cbsz:%d broadcasts beyond the %d block%s of this MFMA", in->cbsz, blocks,
                         blocks == 1 ? "" : "s");
    if (in->abid >= (1 << in->cbsz))
        return emu_fault(c, w, "abid:%d outside the broadcast group of 2^cbsz = %d block%s", in->abid,
                         1 << in->cbsz, in->cbsz ? "s" : "");
    if (in->blgp && !d->blgp)
        return emu_fault(c, w, "blgp:%d on an MFMA without BLGP support", in->blgp);
    int aregs = d->type == MFMA_F32 ? 1 : kpl / 2;
    if (in->src[0].width != aregs || in->src[1].width != aregs || in->dst.width != d->m * d->n * blocks / 64 ||
        (in->src[2].kind != K_CONST && in->src[2].width != in->dst.width))
        return emu_fault(c, w, "MFMA operand widths disagree with the operation");
    /* Kernels run MFMA with all lanes active; what a partial EXEC does to
       the result registers is not modelled, so it is reported. */
    if (exec_mask(w) != ~0ull)
        return emu_fault(c, w, "MFMA with a partial EXEC mask is not modelled by the emulator");
    return 0;
}

int emu_mfma(wg_ctx *c, wave *w, const emu_inst *in)
{
    const mfma_desc *d = find((isa_op)in->op);
    if (!d)
        return emu_fault(c, w, "matrix operation not implemented by the emulator");
    int groups = 64 / d->m;
    int blocks = d->blocks, m = d->m;
    int kpl = blocks > 1 ? d->k : d->k / groups; /* elements per lane */
    if (mfma_check(c, w, in, d, kpl))
        return -1;
    bool ftz = d->type != MFMA_F32 && c->dev->t->mfma_16bit_ftz;
    /* A[e][lane], B[e][lane] as doubles: lane g*M + i holds row i of A and
       column i of B for group g, a block (multi-block) or a K slice */
    double A[16][64], B[16][64];
    gather(d, w, &in->src[0], kpl, 0, ftz, A);
    gather(d, w, &in->src[1], kpl, in->blgp, ftz, B);
    mfma_rows_fn rows = rows_fns()[m == 4 ? 0 : m == 16 ? 1 : 2];
    /* each row reads its C slots before writing the same D slots, so D goes
       straight to the registers unless it overlaps C other than exactly */
    uint32_t buf[32][64];
    const emu_opnd *co = &in->src[2];
    bool direct = co->kind == K_CONST || co->code == in->dst.code || co->code >= in->dst.code + in->dst.width ||
                  in->dst.code >= co->code + co->width;
    uint32_t cconst[32];
    for (int j = 0; j < 32; j++)
        cconst[j] = in->src[2].value;
    double a[32][16];
    const double *brow[16];
    const uint32_t *cr[32];
    uint32_t *orow[32];
    for (int b = 0; b < blocks; b++) {
        int ab = in->cbsz ? (b >> in->cbsz << in->cbsz) + in->abid : b;
        /* row k of B[b]: lanes of group (multi-block: b, else k / kpl), element e */
        for (int k = 0; k < d->k; k++) {
            int g = blocks > 1 ? b : k / kpl, e = blocks > 1 ? k : k % kpl;
            brow[k] = &B[e][g * m];
            int ga = blocks > 1 ? ab : k / kpl;
            for (int i = 0; i < m; i++)
                a[i][k] = A[e][ga * m + i];
        }
        for (int i = 0; i < m; i++) {
            int gpr, lane0;
            cd_row(d, b, i, &gpr, &lane0);
            cr[i] = co->kind == K_CONST ? cconst : vdst(w, co->code, gpr) + lane0;
            orow[i] = (direct ? vdst(w, in->dst.code, gpr) : buf[gpr]) + lane0;
        }
        rows(m, cr, (const double(*)[16])a, brow, d->k, ftz, orow);
    }
    if (!direct)
        for (int r = 0; r < in->dst.width; r++)
            memcpy(vdst(w, in->dst.code, r), buf[r], sizeof buf[r]);
    c->stats.mfma_flops += 2ull * (uint64_t)d->m * (uint64_t)d->n * (uint64_t)d->k * (uint64_t)blocks;
    return 0;
}
