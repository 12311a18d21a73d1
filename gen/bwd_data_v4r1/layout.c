/* The tensor layouts of the v4r1 writer (kw.h, v4r1_layout).
 *
 * NCHW keeps a channel's pixels contiguous: dy's and dx's GEMM N. The
 * lanes of a load run along the tile's columns (a thread's elements lie
 * cols/width columns apart), so that dy's loads take consecutive pixels,
 * and the epilogue stores dx a row (channel) at a time, the buffer
 * resource's base moving to each. Its w (K, C/G, Y, X) puts a row's
 * channels Y*X elements apart (the w_sc argument), its KYXC copy (w_kyxc,
 * the _kyxc solvers) one element apart: consecutive lanes, consecutive
 * channels.
 *
 * NHWC keeps a pixel's channels contiguous: dx's M and dy's K, and w's
 * (K, Y, X, C/G) rows. A thread's elements of a row are side by side (w:
 * one vector load along the channels; dy's pixel path: pixels K elements
 * apart, one LDS write), and the epilogue stores four rows (channels) of a
 * pixel as one vector, a row being the stores' immediate offset. */
#include "kw.h"

/* the comments' address formulas */
#define W_BASE_KYXC "w base: p_w + (g*kg*yx*cg + (iy*x + ix)*cg + m0) * 4; dy base: p_dy + g*kg*4"
#define W_BASE_KCYX "w base: p_w + (g*kg*cg*yx + m0*yx + iy*x + ix) * 4; dy base: p_dy + g*kg*ho*wo*4"

static int nchw_vec_stride(int cols, int width) { return cols / width; }

static void nchw_strides(v4r1_kw *w, sv esz)
{
    w->a_mstride = V4R1_ARG(w, w_sc);
    w->b_rowstride = V4R1_ARG(w, dy_sk);
    w->b_pix = esz;
}

static void nchw_dx_strides(v4r1_kw *w, sv hiwi_bytes)
{
    w->c_rowstride = sv_borrow(hiwi_bytes);
    w->c_pix = sv_const((uint32_t)w->dt->bytes);
}

static const char *nchw_w_base_note(const v4r1_kw *w) { return w->st && w->st->w_kyxc ? W_BASE_KYXC : W_BASE_KCYX; }

const v4r1_layout v4r1_layout_nchw = {
    .name = "NCHW",
    .dx_inner = V4R1_DIM_N,
    .dy_inner = V4R1_DIM_N,
    .vec_stride = nchw_vec_stride,
    .strides = nchw_strides,
    .dx_strides = nchw_dx_strides,
    .w_base_note = nchw_w_base_note,
    .a_offset_note = "kk*cg*y*x*esz + m*mstride (mstride: y*x*esz, or esz for w_kyxc)",
    .tap_note = "ydot*ytilda*x*4 + xdot*xtilda*4",
};

static int nhwc_vec_stride(int cols, int width)
{
    (void)cols, (void)width;
    return 1;
}

static void nhwc_strides(v4r1_kw *w, sv esz)
{
    w->a_mstride = esz;
    w->b_rowstride = esz;
    w->b_pix = V4R1_ARG(w, dy_sw);
}

static void nhwc_dx_strides(v4r1_kw *w, sv hiwi_bytes)
{
    (void)hiwi_bytes;
    w->c_rowstride = sv_const((uint32_t)w->dt->bytes);
    w->c_pix = sv_shl(w->e, "s_c_bytes", w->a_c, w->dt->log2_bytes);
}

static const char *nhwc_w_base_note(const v4r1_kw *w)
{
    (void)w;
    return W_BASE_KYXC;
}

const v4r1_layout v4r1_layout_nhwc = {
    .name = "NHWC",
    .dx_inner = V4R1_DIM_M,
    .dy_inner = V4R1_DIM_K,
    .vec_stride = nhwc_vec_stride,
    .strides = nhwc_strides,
    .dx_strides = nhwc_dx_strides,
    .w_base_note = nhwc_w_base_note,
    .a_offset_note = "(kk*y*x*cg + m) * esz",
    .tap_note = "(ydot*ytilda*x + xdot*xtilda)*cg*4",
};
