/* The FMA math strategy: each thread owns a TM x TN tile of fp32
 * accumulators, RM groups of 4 rows spaced TX*4 apart and RN groups of 4
 * columns spaced TY*4 apart (v4r1_config.h; consecutive lanes along N in
 * NCHW, along M in NHWC: grid_index), row-major in v_c (NCHW: a group's 4
 * columns of a row are 4 consecutive registers, one dx vector) or,
 * in NHWC, column by column within each group of 4 rows, so that a
 * group's 4 rows of a column are 4 consecutive registers the epilogue
 * stores as one vector (dx's channels are contiguous). Fragments are
 * double buffered in registers: the reads of the next K row (or quad) are
 * in flight while the math of the current one issues.
 *
 * fp32 LDS tiles: per K row, its rows of A and columns of B as ds_read_b128
 * (4 consecutive rows or columns) and TM x TN v_fmac_f32.
 *
 * fp16 k-quad tiles (v4r1_lds_quads, kw.h): per k quad, entry (q, m) holds rows
 * 4q..4q+3 of column m as 4 halves in 2 registers (k pair 0 and k pair 1),
 * so a group of 4 consecutive rows or columns is 32 contiguous bytes, two
 * ds_read_b128; each accumulator takes two v_dot2_f32_f16 per quad
 * (c += a.lo*b.lo + a.hi*b.hi on k pair 0, then on k pair 1): half the
 * VALU instructions and the LDS bytes of the fp32 tiles per K row. */
#include "kw.h"

/* accumulator (i, j)'s register in v_c: where dx runs along M (a pixel's
   channels) the 4 rows of a group of each column in consecutive registers,
   the epilogue's vectors; else row by row */
static int acc_index(const v4r1_kw *w, int i, int j)
{
    return w->lay->dx_inner == V4R1_DIM_M ? ((i / 4) * w->tn + j) * 4 + i % 4 : i * w->tn + j;
}

/* the log2 of an LDS entry's bytes (a fragment row or column is an entry:
   one fp32, or a k quad's two k pairs of halves: w->fmt->entry_regs) */
static int entry_log2(const v4r1_kw *w) { return log2u((uint32_t)w->fmt->entry_bytes); }

/* The thread's position in the TX x TY grid, d = its row index tx (m) or
 * column index ty (n). Consecutive lanes run along the dimension dx
 * stores contiguously: NHWC along M (lanes store 4 consecutive channels of
 * one pixel each, side by side), NCHW along N (4 consecutive pixels of one
 * channel each, side by side: the epilogue's column vectors). */
static void grid_index(v4r1_kw *w, opnd d, bool m)
{
    emit *e = w->e;
    bool along_m = w->lay->dx_inner == V4R1_DIM_M;
    int fast = along_m ? w->tx : w->ty; /* threads along the fast dimension */
    if (m == along_m)
        e_vop2(e, "v_and_b32", d, imm(fast - 1), w->v_tid);
    else
        e_vop2(e, "v_lshrrev_b32", d, imm(log2u((uint32_t)fast)), w->v_tid);
}

static void fma_setup(v4r1_kw *w)
{
    emit *e = w->e;
    w->v_ard = vreg(e, "v_ard", 1, 1), w->v_brd = vreg(e, "v_brd", 1, 1), w->v_tm4 = vreg(e, "v_tm4", 1, 1);
    grid_index(w, w->v_tm4, true);
    e_vop2(e, "v_lshlrev_b32", w->v_tm4, imm(2), w->v_tm4); /* tm*4: first row of the thread */
    e_vop2(e, "v_lshlrev_b32", w->v_ard, imm(entry_log2(w)), w->v_tm4);
    if (w->a_lds)
        h_vadd(e, w->v_ard, imm(w->a_lds), w->v_ard);
    grid_index(w, w->v_brd, false);
    e_vop2(e, "v_lshlrev_b32", w->v_brd, imm(2 + entry_log2(w)), w->v_brd); /* tn*4 entries */
    if (w->b_lds)
        h_vadd(e, w->v_brd, imm(w->b_lds), w->v_brd);
    w->c_regs = vreg(e, "v_c", w->tm * w->tn, 2); /* 64-bit aligned vectors: NHWC's rows, NCHW's columns */
    for (int i = 0; i < w->tm * w->tn; i++)
        h_vmov(e, at(w->c_regs, i), imm(0));
}

static void fma_loop_alloc(v4r1_kw *w)
{
    w->v_la = vreg(w->e, "v_la", 2 * w->tm * w->fmt->entry_regs, 4);
    w->v_lb = vreg(w->e, "v_lb", 2 * w->tn * w->fmt->entry_regs, 4);
}

/* Row i of a fragment set of n rows (or columns): an entry's registers. */
static opnd frag(const v4r1_kw *w, opnd regs, int n, int set, int i)
{
    return sub(regs, (set * n + i) * w->fmt->entry_regs, w->fmt->entry_regs);
}

/* One group of 4 consecutive rows (or columns) of LDS entry row kk: 16
   bytes per fp32 row, 32 per k quad (two reads), from side A's (0) or
   B's (1) read buffer. */
static void read_group(v4r1_kw *w, opnd regs, int n, int set, int first, int side, int entry)
{
    opnd addr = side ? w->v_brd : w->v_ard;
    for (int h = 0; h < w->fmt->entry_regs; h++)
        e_ds(w->e, "ds_read_b128", sub(regs, (set * n + first) * w->fmt->entry_regs + 4 * h, 4), addr, NOOP, NOOP,
             v4r1_lds_buf(w, side, w->rd_buf) + (entry << entry_log2(w)) + 16 * h, 0);
}

/* The fragments of LDS entry row kk (a K row, or a k quad) into register
   set `set`; returns the number of reads. */
static int lds_reads(v4r1_kw *w, int kk, int set)
{
    for (int r = 0; r < w->rm; r++)
        read_group(w, w->v_la, w->tm, set, 4 * r, 0, kk * w->mpb + r * w->tx * 4);
    for (int r = 0; r < w->rn; r++)
        read_group(w, w->v_lb, w->tn, set, 4 * r, 1, kk * w->b_len + r * w->ty * 4);
    return (w->rm + w->rn) * w->fmt->entry_regs;
}

/* The math of one entry row out of register set `set`: per accumulator a
   v_fmac_f32, or on k quads a v_dot2_f32_f16 per k pair (every
   accumulator's first pair, then every accumulator's second). */
static void entry_math(v4r1_kw *w, int set)
{
    emit *e = w->e;
    for (int p = 0; p < w->fmt->entry_regs; p++)
        for (int i = 0; i < w->tm; i++)
            for (int j = 0; j < w->tn; j++) {
                opnd c = at(w->c_regs, acc_index(w, i, j));
                opnd a = at(frag(w, w->v_la, w->tm, set, i), p), b = at(frag(w, w->v_lb, w->tn, set, j), p);
                if (!w->fmt->widens) /* a register holds a k pair of halves */
                    e_vop3p(e, "v_dot2_f32_f16", c, a, b, c, NULL);
                else
                    e_vop2(e, "v_fmac_f32", c, a, b);
            }
}

static void fma_slice(v4r1_kw *w)
{
    emit *e = w->e;
    int rows = w->kpb / w->fmt->kpack;
    /* LDS returns in order: waiting until at most the next row's reads are
       outstanding (or fewer, where the counter cannot say that many) has
       this row's in registers */
    int nreads = lds_reads(w, 0, 0);
    if (w->slice_fill) /* while the first fragments are on their way */
        w->slice_fill(w);
    if (nreads > e->t->lgkmcnt_max)
        nreads = e->t->lgkmcnt_max;
    for (int kk = 0; kk < rows; kk++) {
        int set = kk & 1;
        if (kk + 1 < rows) {
            lds_reads(w, kk + 1, set ^ 1);
            e_waitcnt(e, -1, nreads);
        } else {
            e_waitcnt(e, -1, 0);
        }
        entry_math(w, set);
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
    grid_index(w, w->v_brd, false);
    e_vop2(w->e, "v_lshlrev_b32", w->v_brd, imm(2), w->v_brd);
    return w->v_brd;
}

static int fma_row_off(const v4r1_kw *w, int i) { return (i / 4) * w->tx * 4 + i % 4; }
static int fma_col_off(const v4r1_kw *w, int j) { return (j / 4) * w->ty * 4 + j % 4; }
static void fma_read_row(v4r1_kw *w, int i, opnd *vals)
{
    for (int j = 0; j < w->tn; j++)
        vals[j] = at(w->c_regs, acc_index(w, i, j));
}

static opnd fma_acc(const v4r1_kw *w, int i, int j, int n)
{
    return w->lay->dx_inner == V4R1_DIM_M || n == 1 ? sub(w->c_regs, acc_index(w, i, j), n) : NOOP;
}

static void fma_release(v4r1_kw *w)
{
    rfree(w->e, w->v_brd);
    rfree(w->e, w->c_regs);
    rfree(w->e, w->v_tm4);
}

const v4r1_math v4r1_math_fma = {
    .name = "fma",
    .setup = fma_setup,
    .loop_alloc = fma_loop_alloc,
    .slice = fma_slice,
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
