/* The FMA math strategy: each thread owns a TM x TN tile of v_fmac_f32
 * accumulators, RM groups of 4 rows spaced TX*4 apart and RN groups of 4
 * columns spaced TY*4 apart (v4r1_config.h), row-major in v_c (NCHW) or,
 * in NHWC, column by column within each group of 4 rows, so that a
 * group's 4 rows of a column are 4 consecutive registers the epilogue
 * stores as one vector (dx's channels are contiguous). Per K row it reads its rows
 * of A and columns of B out of LDS as ds_read_b128 fragments, double
 * buffered in registers: the reads of row kk+1 are in flight while the
 * FMAs of row kk issue. */
#include "kw.h"

/* accumulator (i, j)'s register in v_c */
static int acc_index(const v4r1_kw *w, int i, int j)
{
    return w->nhwc ? ((i / 4) * w->tn + j) * 4 + i % 4 : i * w->tn + j;
}

static void fma_setup(v4r1_kw *w)
{
    emit *e = w->e;
    w->v_ard = vreg(e, "v_ard", 1, 1), w->v_brd = vreg(e, "v_brd", 1, 1), w->v_tm4 = vreg(e, "v_tm4", 1, 1);
    e_vop2(e, "v_and_b32", w->v_tm4, imm(w->tx - 1), w->v_tid);
    e_vop2(e, "v_lshlrev_b32", w->v_tm4, imm(2), w->v_tm4); /* tm*4: first row of the thread */
    e_vop2(e, "v_lshlrev_b32", w->v_ard, imm(V4R1_LDS_LOG2), w->v_tm4);
    if (w->a_lds)
        h_vadd(e, w->v_ard, imm(w->a_lds), w->v_ard);
    e_vop2(e, "v_lshrrev_b32", w->v_brd, imm(log2u((uint32_t)w->tx)), w->v_tid);
    e_vop2(e, "v_lshlrev_b32", w->v_brd, imm(2 + V4R1_LDS_LOG2), w->v_brd); /* tn*4 elements */
    if (w->b_lds)
        h_vadd(e, w->v_brd, imm(w->b_lds), w->v_brd);
    w->v_c = vreg(e, "v_c", w->tm * w->tn, w->nhwc ? 2 : 1); /* NHWC: 64-bit aligned vectors */
    for (int i = 0; i < w->tm * w->tn; i++)
        h_vmov(e, at(w->v_c, i), imm(0));
}

static void fma_loop_alloc(v4r1_kw *w)
{
    w->v_la = vreg(w->e, "v_la", 2 * w->tm, 4);
    w->v_lb = vreg(w->e, "v_lb", 2 * w->tn, 4);
}

/* The fragments of K row kk into register set `set`. */
static void lds_reads(v4r1_kw *w, int kk, int set)
{
    emit *e = w->e;
    int esz = V4R1_LDS_BYTES;
    for (int r = 0; r < w->rm; r++)
        e_ds(e, "ds_read_b128", sub(w->v_la, set * w->tm + 4 * r, 4), w->v_ard, NOOP, NOOP,
             (kk * w->mpb + r * w->tx * 4) * esz, 0);
    for (int r = 0; r < w->rn; r++)
        e_ds(e, "ds_read_b128", sub(w->v_lb, set * w->tn + 4 * r, 4), w->v_brd, NOOP, NOOP,
             (kk * w->npb + r * w->ty * 4) * esz, 0);
}

static void fma_slice(v4r1_kw *w)
{
    emit *e = w->e;
    int nreads = w->rm + w->rn;
    lds_reads(w, 0, 0);
    for (int kk = 0; kk < w->kpb; kk++) {
        int set = kk & 1;
        if (kk + 1 < w->kpb) {
            lds_reads(w, kk + 1, set ^ 1);
            e_waitcnt(e, -1, nreads);
        } else {
            e_waitcnt(e, -1, 0);
        }
        for (int i = 0; i < w->tm; i++)
            for (int j = 0; j < w->tn; j++)
                e_vop2(e, "v_fmac_f32", at(w->v_c, acc_index(w, i, j)), at(w->v_la, set * w->tm + i),
                       at(w->v_lb, set * w->tn + j));
    }
}

static void fma_loop_free(v4r1_kw *w)
{
    rfree(w->e, w->v_la);
    rfree(w->e, w->v_lb);
    rfree(w->e, w->v_ard);
}

static int fma_rows(const v4r1_kw *w) { return w->tm; }
static int fma_cols(const v4r1_kw *w) { return w->tn; }
static opnd fma_row_base(v4r1_kw *w) { return w->v_tm4; }

/* v_brd (an LDS address until now) becomes the thread's first column tn*4 */
static opnd fma_col_base(v4r1_kw *w)
{
    e_vop2(w->e, "v_lshrrev_b32", w->v_brd, imm(log2u((uint32_t)w->tx)), w->v_tid);
    e_vop2(w->e, "v_lshlrev_b32", w->v_brd, imm(2), w->v_brd);
    return w->v_brd;
}

static int fma_row_off(const v4r1_kw *w, int i) { return (i / 4) * w->tx * 4 + i % 4; }
static int fma_col_off(const v4r1_kw *w, int j) { return (j / 4) * w->ty * 4 + j % 4; }
static void fma_read_row(v4r1_kw *w, int i, opnd *vals)
{
    for (int j = 0; j < w->tn; j++)
        vals[j] = at(w->v_c, acc_index(w, i, j));
}

static opnd fma_acc(const v4r1_kw *w, int i, int j, int n)
{
    return w->nhwc || n == 1 ? sub(w->v_c, acc_index(w, i, j), n) : NOOP;
}

static void fma_release(v4r1_kw *w)
{
    rfree(w->e, w->v_brd);
    rfree(w->e, w->v_c);
    rfree(w->e, w->v_tm4);
}

const v4r1_math v4r1_math_fma = {
    .name = "fma",
    .setup = fma_setup,
    .loop_alloc = fma_loop_alloc,
    .slice = fma_slice,
    .toggle_reads = v4r1_toggle_reads,
    .loop_free = fma_loop_free,
    .rows = fma_rows,
    .cols = fma_cols,
    .row_base = fma_row_base,
    .col_base = fma_col_base,
    .row_off = fma_row_off,
    .col_off = fma_col_off,
    .read_row = fma_read_row,
    .acc = fma_acc,
    .release = fma_release,
};
