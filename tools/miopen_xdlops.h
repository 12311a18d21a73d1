/* The host side of MIOpen's xdlops backward-data solvers for igemm-miopen
 * (tools/miopen_cmp.c): ConvAsmImplicitGemmGTCDynamicBwdXdlops (gfx908, NCHW
 * fp32, kernels igemm_bwd_gtcx_nchw_fp32_*) and
 * ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC (gfx908/gfx90a/gfx942 NHWC
 * fp32/fp16/bf16, kernels igemm_bwd_gtcx{,2,3}_nhwc_*). Written from MIOpen's
 * published host code, none of it copied; its configuration lists are read
 * from the user's own MIOpen checkout at run time: docs/MIOPEN.md. */
#ifndef IGEMM_MIOPEN_XDLOPS_H
#define IGEMM_MIOPEN_XDLOPS_H

#include <stdio.h>

#include "../include/igemm.h"

/* One tunable configuration, the fields of MIOpen's kernel names. */
typedef struct {
    char prec[8];           /* fp32, fp16, bf16 */
    int nxb, nxe;
    int m, n, k;            /* gemm_{m,n,k}_per_block */
    int wt[3], ws[2], wr[2]; /* wave tile m,n,k; wave step m,n; wave repeat m,n */
    int mh, vs, gks, me, pta; /* multihead, vector_store, gemm_k_global_split (log2), merge_e, pass-through */
    int ta_t[4], ta_c[4], tb_t[4], tb_c[4];
} xdlops_cfg;

typedef struct {
    int m, n, k; /* a block tile of HeuristicInit's lists */
} xdlops_tile;

/* MIOpen's lists, read at run time from the user's MIOpen checkout ROOT
 * (tools/miopen_lists.c); nothing of them is kept in this repository. */
#define XDLOPS_NHWC_FILE "src/solver/conv/conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp"
#define XDLOPS_NCHW_FILE "src/solver/conv/conv_asm_implicit_gemm_gtc_bwd.cpp"
#define XDLOPS_MAX_TILES 64
typedef struct {
    xdlops_cfg *cfg; /* NHWC: GetBwdXdlopsNHWCConfigList; NCHW: the lists of
                        GetImplicitGemmGtcDynamicBwdTunablesList; in order */
    int count;
    /* NHWC only, by igemm_dtype: HeuristicInit's tile_list_fp32, _fp16,
       _bfp16 and GetBwdXdlopsNHWCConfigLargestTile{Fp32,Fp16,Bf16} */
    xdlops_tile tiles[3][XDLOPS_MAX_TILES];
    int tile_count[3];
    xdlops_cfg largest[3];
} xdlops_lists;

/* Read the NHWC (nchw = 0) or NCHW (nchw = 1) solver's lists from ROOT's
 * solver file; 0, or -1 with a one-line message naming the file (and the
 * line) in err. */
int xdlops_lists_load(xdlops_lists *l, const char *root, int nchw, char *err, size_t len);
void xdlops_lists_free(xdlops_lists *l);
/* MIOpen's kernel name of c: "igemm_bwd_" gtc "_" layout "_" prec "_bx..." */
void xdlops_cfg_name(const xdlops_cfg *c, const char *gtc, const char *layout, char *buf, size_t len);

/* Print the plan of problem p on arch (gfx908, gfx90a, gfx942) to out, in
 * igemm-miopen plan's line format (tools/miopen_cmp.c), the configuration
 * lists read from the MIOpen checkout root. fp16_alt: gfx90a fp16's
 * igemm_bwd_fp16_alt_impl (MIOpen's backward default is 1). Returns 0, or
 * 2 with a message on stderr. */
int xdlops_plan(const igemm_problem *p, const char *arch, int fp16_alt, const char *root, FILE *out);

#endif
