/* MIOpen's backward-data solver ids and their families here (see
 * miopen_solvers.h). The ids and names are MIOpen's registry's. */
#include "miopen_solvers.h"

#include <stdio.h>
#include <string.h>

#include "../arch/target.h"
#include "../conv/problem.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../runtime/kalloc.h"

static const miopen_solver table[] = {
    {1, "ConvAsm3x3U", MS_NONE, "direct 3x3 assembly"},
    {2, "ConvAsm1x1U", MS_NONE, "direct 1x1 assembly"},
    {3, "ConvAsm1x1UV2", MS_NONE, "direct 1x1 assembly"},
    {6, "ConvAsm5x10u2v2b1", MS_NONE, "direct 5x10 assembly"},
    {11, "ConvOclDirectFwd", MS_NONE, "direct OpenCL"},
    {14, "ConvBinWinograd3x3U", MS_NONE, "Winograd"},
    {15, "ConvBinWinogradRxS", MS_NONE, "Winograd"},
    {34, "fft", MS_NONE, "FFT"},
    {37, "ConvBinWinoRxS<3,2>", MS_NONE, "Winograd"},
    {53, "ConvBinWinoRxS<2,3>", MS_NONE, "Winograd"},
    {55, "ConvHipImplicitGemmBwdDataV1R1", MS_NONE, "implicit GEMM v1r1 (one GEMM, no phase split)"},
    {56, "ConvHipImplicitGemmBwdDataV4R1", MS_V4R1_FMA, "implicit GEMM v4r1"},
    {57, "ConvHipImplicitGemmBwdDataV1R1Xdlops", MS_NONE, "implicit GEMM v1r1 on matrix cores"},
    {60, "ConvHipImplicitGemmBwdDataV4R1Xdlops", MS_V4R1_MFMA, "implicit GEMM v4r1 on matrix cores"},
    {65, "ConvAsmImplicitGemmV4R1DynamicBwd", MS_V4R1_FMA, "dynamic implicit GEMM v4r1"},
    {82, "ConvAsmImplicitGemmGTCDynamicBwdXdlops", MS_V4R1_MFMA,
     "dynamic implicit GEMM on matrix cores, NCHW"},
    {84, "ConvBinWinogradRxSf2x3g1", MS_NONE, "Winograd"},
    {86, "ConvDirectNaiveConvBwd", MS_NAIVE, "naive direct"},
    {95, "GemmBwd1x1_stride2", MS_NONE, "explicit GEMM (rocBLAS)"},
    {96, "GemmBwd1x1_stride1", MS_NONE, "explicit GEMM (rocBLAS)"},
    {97, "GemmBwdRest", MS_NONE, "explicit GEMM (im2col and rocBLAS)"},
    {99, "ConvMlirIgemmBwd", MS_NONE, "MLIR implicit GEMM"},
    {104, "ConvMlirIgemmBwdXdlops", MS_NONE, "MLIR implicit GEMM on matrix cores"},
    {108, "ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC", MS_V4R1_MFMA,
     "dynamic implicit GEMM on matrix cores, NHWC"},
    {129, "ConvHipImplicitGemmBwdXdlops", MS_NONE, "composable_kernel implicit GEMM"},
    {139, "ConvWinoFuryRxS<2,3>", MS_NONE, "Winograd"},
    {141, "ConvHipImplicitGemm3DGroupBwdXdlops", MS_NONE, "composable_kernel 3-D grouped implicit GEMM"},
    {150, "ConvHipImplicitGemmF16F8F16BwdXdlops", MS_NONE, "composable_kernel fp8-compute implicit GEMM"},
    {155, "ConvHipImplicitGemmGroupBwdXdlops", MS_NONE, "composable_kernel grouped implicit GEMM"},
};

const miopen_solver *miopen_solver_by_id(long id)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].id == id)
            return &table[i];
    return NULL;
}

const miopen_solver *miopen_solver_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

typedef struct {
    igemm_handle *h;
    const igemm_problem *p;
    const miopen_solver *ms;
} pick_ctx;

static int in_family(void *vctx, const solver *s)
{
    const pick_ctx *c = vctx;
    bool fam = c->ms->family == MS_NAIVE ? s->kind == SOLVER_NAIVE
                                         : s->kind == SOLVER_V4R1 &&
                                               s->math == (c->ms->family == MS_V4R1_MFMA ? IGEMM_MATH_MFMA : IGEMM_MATH_FMA);
    return fam && igemm_applicable(c->h, c->p, s->name, NULL, 0) == IGEMM_OK;
}

static int kernel_alloc_of(void *vctx, const solver *s, kernel_alloc *a)
{
    return handle_kernel_alloc(((const pick_ctx *)vctx)->h, s, a);
}

int miopen_solver_pick(igemm_handle *h, const igemm_problem *p, const miopen_solver *s, char *out, size_t len)
{
    igemm_shape sh;
    const target *t = target_by_name(igemm_handle_arch(h));
    if (!s || s->family == MS_NONE || !t || igemm_shape_init(&sh, p, NULL, 0) != IGEMM_OK)
        return -1;
    pick_ctx c = {h, p, s};
    heuristic_view v = {in_family, kernel_alloc_of, &c};
    const solver *best = select_heuristic(&sh, t, &v);
    if (!best)
        return -1;
    snprintf(out, len, "%s", best->name);
    return 0;
}

int miopen_solver_id_of(const char *name)
{
    const solver *s = solver_find(name);
    if (!s)
        return 0;
    if (s->kind == SOLVER_NAIVE)
        return 86;
    if (s->math == IGEMM_MATH_FMA)
        return 65;
    return s->layout == IGEMM_LAYOUT_NHWC ? 108 : 82;
}
