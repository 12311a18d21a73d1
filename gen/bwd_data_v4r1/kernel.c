/* The v4r1 kernel: its stages in order over one writer state (kw.h). */
#include <string.h>

#include "../kern.h"
#include "kw.h"

static const v4r1_layout *layout_of(igemm_layout l)
{
    switch (l) {
    case IGEMM_LAYOUT_NCHW: return &v4r1_layout_nchw;
    case IGEMM_LAYOUT_NHWC: return &v4r1_layout_nhwc;
    default: return NULL;
    }
}

static const v4r1_math *math_of(igemm_math m)
{
    switch (m) {
    case IGEMM_MATH_FMA: return &v4r1_math_fma;
    case IGEMM_MATH_MFMA: return &v4r1_math_mfma;
    default: return NULL;
    }
}

void kern_v4r1(emit *e, const v4r1_config *cfg, const igemm_v4r1_args *st, int nph, const char *name)
{
    v4r1_kw W = {
        .e = e, .cfg = cfg, .st = st, .nph = nph, .name = name,
        .math = math_of(cfg->math), .dt = igemm_dtype_get(cfg->dtype), .lay = layout_of(cfg->layout),
        .mpb = cfg->mpb, .npb = cfg->npb, .kpb = cfg->kpb, .block = cfg->block,
        .tx = cfg->tx, .ty = cfg->ty, .rm = cfg->rm, .rn = cfg->rn,
        .wa = cfg->wa, .va = cfg->va, .wb = cfg->wb, .vb = cfg->vb,
        .cvt = cfg->stage ? &v4r1_stage_fp16_bf16 : &v4r1_stage_as_is,
    };
    v4r1_kw *w = &W;
    if (!w->math || !w->dt || !w->lay) {
        emit_fail(e, "kernel %s: no math strategy, data type or layout for configuration %d/%d/%d", name,
                  (int)cfg->math, (int)cfg->dtype, (int)cfg->layout);
        return;
    }
    w->tm = 4 * w->rm, w->tn = 4 * w->rn;
    if (w->math->cols(w) > V4R1_MAX_COLS) {
        emit_fail(e, "kernel %s: %d accumulator columns per thread exceed %d", name, w->math->cols(w), V4R1_MAX_COLS);
        return;
    }
    /* fp32 entries: the threads of one row cover it, rows DKA apart; k
       quads: a thread's 4 vectors are the 4 consecutive rows of its quads */
    w->fmt = cfg->kpack == 4 ? &v4r1_lds_quads : &v4r1_lds_fp32;
    if ((cfg->kpack != 0 && cfg->kpack != 4) || (!w->fmt->widens && w->dt->bytes != 2)) {
        emit_fail(e, "kernel %s: no LDS tile format for kpack %d of %s", name, cfg->kpack, w->dt->name);
        return;
    }
    if (w->fmt->kpack > 1) {
        w->dka = w->dkb = 1;
    } else {
        w->dka = w->block * w->wa / w->mpb, w->dkb = w->block * w->wb / w->npb;
    }
    w->sa = w->lay->vec_stride(w->mpb, w->wa);
    w->b_len = w->npb + cfg->bpad;
    if (cfg->bpath == V4R1_B_CHANNELS) {
        /* a thread's VB pixels, KPB/WB lanes each: block*WB/KPB columns apart */
        w->bp = &v4r1_dy_channels;
        w->b_cols = w->vb, w->b_vecs = 1;
        w->sb = w->block * w->wb / w->kpb, w->dkb = 1;
    } else {
        w->bp = &v4r1_dy_pixels;
        w->b_cols = w->wb, w->b_vecs = w->vb;
        w->sb = w->lay->vec_stride(w->npb, w->wb);
    }
    int lds_esz = w->fmt->entry_bytes / w->fmt->kpack;
    w->a_size = w->kpb * w->mpb * lds_esz;
    w->b_size = w->kpb * w->b_len * lds_esz;
    if (w->b_len != w->npb || w->a_size >= w->b_size) { /* a padded B after A's two buffers */
        w->a_lds = 0;
        w->b_lds = 2 * w->a_size;
    } else {
        w->b_lds = 0;
        w->a_lds = 2 * w->b_size;
    }

    v4r1_setup(w);
    v4r1_staging_setup(w);
    w->math->setup(w);
    v4r1_walk(w);
    if (!cfg->ksplit) /* the non-finite guard (fixup.c); a split's partial sums have none */
        v4r1_nonfinite(w);
    /* the output strategy of a split along GEMM K (cfg->ksplit): the
       epilogue stores the fp32 accumulators, unrounded, as partial sums to
       the workspace (the reduction rounds once); else dx in its type */
    if (cfg->ksplit)
        w->dt = igemm_dtype_get(IGEMM_FP32);
    v4r1_epilogue(w);
    e_kernel_end(e);
}
