/* The LDS tile formats of the v4r1 writer (kw.h, v4r1_lds_format): how
 * the staging turns the registers a tile loaded into LDS entries and
 * writes them.
 *
 * fp32 entries (kpack 1): a thread's V vectors of W columns load into
 * registers i*W + j, one value each; 16-bit values are widened in place;
 * a vector is written with one ds_write of W dwords where its columns
 * are consecutive, else one ds_write_b32 per element.
 *
 * k quads (kpack 4, 16-bit values): a thread's 4 vectors are the 4
 * consecutive rows of its quads. Rows 2h and 2h+1 of column j load into
 * the low halves of registers 2j + h and 2W + 2j + h (or, w's rows as
 * vectors, row by row into the upper half, registers 2W on), and packing
 * the second into the high half of the first (or transposing the row
 * vectors with v_perm_b32) leaves column j's quad in registers 2j, 2j+1:
 * 8 bytes, written as they are (the staging conversion, w->cvt, first). */
#include "kw.h"

static const char *ds_write_op(int dwords)
{
    return dwords == 4 ? "ds_write_b128" : dwords == 2 ? "ds_write_b64" : "ds_write_b32";
}

/* A 16-bit element (low half of v) widened to fp32 in place (h_widen16). */
static void widen(v4r1_kw *w, opnd v) { h_widen16(w->e, w->dt->id, v); }

/* ---- fp32 entries ---- */

static int fp32_slot(int i, int j, int width) { return i * width + j; }

static int fp32_row_vectors_at(int width) { return (void)width, 0; }

static void fp32_no_regs(v4r1_kw *w) { (void)w; }

static void fp32_entries(v4r1_kw *w, opnd g, int nv, int width)
{
    if (w->dt->bytes == 2)
        for (int x = 0; x < nv * width; x++)
            widen(w, at(g, x));
}

/* vector i of nv vectors of W (rows dk apart, in rows of len entries,
 * elements `step` columns apart): one ds_write of W dwords, or W of one. */
static void fp32_write(v4r1_kw *w, opnd g, opnd addr, int buf, int nv, int width, int dk, int len, int step)
{
    const int esz = V4R1_LDS_BYTES;
    for (int i = 0; i < nv; i++) {
        if (step == 1) {
            e_ds(w->e, ds_write_op(width), NOOP, addr, sub(g, i * width, width), NOOP, buf + i * dk * len * esz, 0);
            continue;
        }
        for (int j = 0; j < width; j++)
            e_ds(w->e, "ds_write_b32", NOOP, addr, at(g, i * width + j), NOOP, buf + (i * dk * len + j * step) * esz,
                 0);
    }
}

static void fp32_write_tile(v4r1_kw *w)
{
    fp32_entries(w, w->v_ga, w->va, w->wa);
    w->bp->prepare(w);
    fp32_write(w, w->v_ga, w->v_awr, v4r1_lds_buf(w, 0, w->wr_buf), w->va, w->wa, w->dka, w->mpb, w->sa);
    w->bp->write(w);
}

const v4r1_lds_format v4r1_lds_fp32 = {
    .name = "fp32 entries",
    .kpack = 1,
    .entry_bytes = V4R1_LDS_BYTES,
    .entry_regs = V4R1_LDS_BYTES / 4,
    .widens = true,
    .slot = fp32_slot,
    .row_vectors_at = fp32_row_vectors_at,
    .setup = fp32_no_regs,
    .release = fp32_no_regs,
    .entries = fp32_entries,
    .write = fp32_write,
    .write_tile = fp32_write_tile,
};

/* ---- k quads ---- */

static int quads_slot(int i, int j, int width) { return (i % 2) * 2 * width + 2 * j + i / 2; }

static int quads_row_vectors_at(int width) { return 2 * width; }

/* k quads from w's row vectors need the v_perm_b32 selectors: set once (no
 * literal in VOP3 on gfx9), the low halves of two rows' dwords, then their
 * high halves */
static void quads_setup(v4r1_kw *w)
{
    if (!v4r1_a_row_vectors(w))
        return;
    w->s_sel = sreg(w->e, "s_sel", 2, 2);
    h_smov(w->e, at(w->s_sel, 0), imm(0x05040100));
    h_smov(w->e, at(w->s_sel, 1), imm(0x07060302));
}

static void quads_release(v4r1_kw *w)
{
    if (v4r1_a_row_vectors(w))
        rfree(w->e, w->s_sel);
}

/* rows 2h+1 of each column into the high halves of rows 2h (slot),
 * leaving the thread's quads in registers 0 .. 2W-1 */
static void quads_entries(v4r1_kw *w, opnd g, int nv, int width)
{
    (void)nv; /* a thread's vectors are its quads' 4 rows */
    for (int x = 0; x < 2 * width; x++)
        e_vop3(w->e, "v_lshl_or_b32", at(g, x), at(g, 2 * width + x), imm(16), at(g, x));
}

/* The row vectors' path: row i's dword d (columns 2d, 2d+1) is register
 * 2W + i*W/2 + d; quad register 2j + h (rows 2h, 2h+1 of column j) takes
 * the halves of column j from rows 2h and 2h+1. */
static void a_transpose(v4r1_kw *w)
{
    const int W = w->wa, half = W / 2;
    opnd sel_lo = at(w->s_sel, 0), sel_hi = at(w->s_sel, 1);
    for (int h = 0; h < 2; h++)
        for (int d = 0; d < half; d++) {
            opnd lo = at(w->v_ga, 2 * W + 2 * h * half + d), hi = at(w->v_ga, 2 * W + (2 * h + 1) * half + d);
            e_vop3(w->e, "v_perm_b32", at(w->v_ga, 2 * (2 * d) + h), hi, lo, sel_lo);
            e_vop3(w->e, "v_perm_b32", at(w->v_ga, 2 * (2 * d + 1) + h), hi, lo, sel_hi);
        }
}

/* w's rows into quads by the path load_tile took: vector rows transposed,
 * elements packed */
static void a_quads(v4r1_kw *w)
{
    emit *e = w->e;
    if (!v4r1_a_row_vectors(w)) {
        quads_entries(w, w->v_ga, w->va, w->wa);
        return;
    }
    label l_apack = e_label_new(e, "a_pack"), l_apacked = e_label_new(e, "a_packed");
    v4r1_vec_branch_off(w, V4R1_VEC_A, l_apack);
    a_transpose(w);
    e_branch(e, "s_branch", l_apacked);
    e_label(e, l_apack);
    quads_entries(w, w->v_ga, w->va, w->wa);
    e_label(e, l_apacked);
}

/* the thread's W quads (converted first: w->cvt), columns `step` apart:
 * 8*W contiguous bytes (step 1), or one ds_write_b64 per column */
static void quads_write(v4r1_kw *w, opnd g, opnd addr, int buf, int nv, int width, int dk, int len, int step)
{
    (void)nv, (void)dk, (void)len; /* one entry row: the quads' */
    w->cvt->convert(w, g, 2 * width);
    if (step > 1) {
        for (int j = 0; j < width; j++)
            e_ds(w->e, "ds_write_b64", NOOP, addr, sub(g, 2 * j, 2), NOOP, buf + j * step * V4R1_QUAD_BYTES, 0);
        return;
    }
    for (int x = 0, n; x < 2 * width; x += n) {
        n = 2 * width - x >= 4 ? 4 : 2 * width - x;
        e_ds(w->e, ds_write_op(n), NOOP, addr, sub(g, x, n), NOOP, buf + x * 4, 0);
    }
}

static void quads_write_tile(v4r1_kw *w)
{
    a_quads(w);
    quads_write(w, w->v_ga, w->v_awr, v4r1_lds_buf(w, 0, w->wr_buf), w->va, w->wa, w->dka, w->mpb, w->sa);
    w->bp->prepare(w);
    w->bp->write(w);
}

const v4r1_lds_format v4r1_lds_quads = {
    .name = "k quads",
    .kpack = 4,
    .entry_bytes = V4R1_QUAD_BYTES,
    .entry_regs = V4R1_QUAD_BYTES / 4,
    .widens = false,
    .slot = quads_slot,
    .row_vectors_at = quads_row_vectors_at,
    .setup = quads_setup,
    .release = quads_release,
    .entries = quads_entries,
    .write = quads_write,
    .write_tile = quads_write_tile,
};

/* ---- both ---- */

void v4r1_write_column(v4r1_kw *w, opnd g, int rows, opnd addr, int buf, int len)
{
    const int R = w->fmt->entry_regs, n = rows / w->fmt->kpack;
    w->cvt->convert(w, sub(g, 0, n * R), n * R);
    for (int h = 0; h < n; h++)
        e_ds(w->e, ds_write_op(R), NOOP, addr, R == 1 ? at(g, h) : sub(g, h * R, R), NOOP,
             buf + h * len * w->fmt->entry_bytes, 0);
}
