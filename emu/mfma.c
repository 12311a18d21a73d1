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

/* Register and lane of C/D element (b, i, j). */
static void cd_slot(const mfma_desc *d, int b, int i, int j, int *gpr, int *lane)
{
    if (d->m == 32) {
        *gpr = 16 * b + 4 * (i / 8) + i % 4;
        *lane = (32 * (i / 4)) % 64 + j;
    } else if (d->m == 16) {
        *gpr = 4 * b + i % 4;
        *lane = 16 * (i / 4) + j;
    } else {
        *gpr = i;
        *lane = 4 * b + j;
    }
}

/* Element e of a lane's A or B slice as float. A and B are registers (the
 * decoder accepts nothing else): one f32, or two f16/bf16, per register.
 * ftz: a subnormal f16/bf16 element reads as a zero of its sign. */
static double elem(const mfma_desc *d, wave *w, const emu_opnd *o, int lane, int e, bool ftz)
{
    int r = d->type == MFMA_F32 ? e : e / 2;
    uint32_t x = (o->kind == K_AGPR ? w->a[o->code - R_A0 + r] : w->v[o->code - R_V0 + r])[lane];
    if (d->type == MFMA_F32)
        return f32_of(x);
    uint16_t h = (uint16_t)(e & 1 ? x >> 16 : x);
    uint16_t exp_mask = d->type == MFMA_F16 ? 0x7c00 : 0x7f80;
    if (ftz && !(h & exp_mask))
        h &= 0x8000;
    return d->type == MFMA_F16 ? f16_to_f32(h) : bf16_to_f32(h);
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

int emu_mfma(wg_ctx *c, wave *w, const emu_inst *in)
{
    const mfma_desc *d = find((isa_op)in->op);
    if (!d)
        return emu_fault(c, w, "matrix operation not implemented by the emulator");
    int groups = 64 / d->m;
    int blocks = d->blocks;
    int kpl = blocks > 1 ? d->k : d->k / groups; /* elements per lane */
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

    bool ftz = d->type != MFMA_F32 && c->dev->t->mfma_16bit_ftz;
    /* Gather A[b][i][k] and B[b][k][j] as doubles. */
    static _Thread_local double A[16][32][16], Bm[16][16][32];
    for (int l = 0; l < 64; l++) {
        int g = l / d->m, idx = l % d->m;
        int lb = blocks > 1 ? g : 0;
        for (int e = 0; e < kpl; e++) {
            int k = blocks > 1 ? e : g * kpl + e;
            A[lb][idx][k] = elem(d, w, &in->src[0], l, e, ftz);
            Bm[lb][k][idx] = elem(d, w, &in->src[1], blgp_lane(in->blgp, l), e, ftz);
        }
    }
    uint32_t out[32][64], ctmp[64];
    int nregs = in->dst.width;
    for (int b = 0; b < blocks; b++) {
        int ab = in->cbsz ? (b >> in->cbsz << in->cbsz) + in->abid : b;
        for (int i = 0; i < d->m; i++)
            for (int j = 0; j < d->n; j++) {
                int gpr, lane;
                cd_slot(d, b, i, j, &gpr, &lane);
                float cv = in->src[2].kind == K_CONST ? f32_of(in->src[2].value)
                                                      : f32_of(vsrc(w, &in->src[2], gpr, ctmp)[lane]);
                double acc = ftz ? flush_denorm(cv) : cv;
                for (int k = 0; k < d->k; k++)
                    acc += A[ab][i][k] * Bm[b][k][j];
                out[gpr][lane] = bits_of(ftz ? flush_denorm((float)acc) : (float)acc);
            }
    }
    /* Kernels run MFMA with all lanes active; what a partial EXEC does to
       the result registers is not modelled, so it is reported. */
    if (exec_mask(w) != ~0ull)
        return emu_fault(c, w, "MFMA with a partial EXEC mask is not modelled by the emulator");
    for (int r = 0; r < nregs; r++)
        memcpy(vdst(w, in->dst.code, r), out[r], sizeof out[r]);
    c->stats.mfma_flops += 2ull * (uint64_t)d->m * (uint64_t)d->n * (uint64_t)d->k * (uint64_t)blocks;
    return 0;
}
