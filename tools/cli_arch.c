/* igemm arch: the targets' facts that performance figures are measured
 * against, the dense matrix peak per data type above all.
 *
 *   igemm arch [--arch TARGET]            a table: CUs, SIMDs, clock, per type
 *                                         the fastest MFMA, FLOP/clk/SIMD, TFLOP/s
 *   igemm arch --arch TARGET --peak TYPE  that TFLOP/s alone (for scripts)
 *
 * The peak is computed, never typed in: the MFMA table's fastest
 * instruction of the type on the target (arch/mfma.c,
 * mfma_peak_flops_per_clk) times the reference product's SIMDs, CUs and
 * clock (arch/target.c). */
#include <stdio.h>
#include <string.h>

#include "../arch/mfma.h"
#include "../arch/target.h"
#include "../conv/types.h"
#include "cli.h"

static void arch_help(void)
{
    printf("usage: igemm arch [--arch TARGET] [--peak fp32|fp16|bf16]\n"
           "Per target (%s; all when --arch is left out) the reference product's CUs,\n"
           "SIMDs per CU and clock, and per data type the dense matrix peak: the fastest MFMA of\n"
           "that A/B type in the MFMA table (arch/mfma.def), its FLOPs per clock per SIMD\n"
           "(2*M*N*K*blocks / cycles) and TFLOP/s (x SIMDs x CUs x clock). With --peak (and --arch)\n"
           "only that type's TFLOP/s is printed; a target without an MFMA of the type is an error.\n",
           target_names());
}

static void print_target(const target *t)
{
    /* each type's MFMA operand type (igemm_dtype_desc.mfma): the peak of a 16-bit
       type is the 16-bit MFMAs' rate, whatever the kernels use now */
    const igemm_dtype_desc *d;
    for (int i = 0; (d = igemm_dtype_get((igemm_dtype)i)); i++) {
        const mfma_info *best;
        double per_clk = mfma_peak_flops_per_clk(t, d->mfma, &best);
        printf("%-7s %4d %7d %6.3f  %-5s %-30s %13.0f %8.1f\n", t->name, t->num_cu, t->simds_per_cu, t->clock_ghz,
               d->name, best ? mfma_name(best) : "-", per_clk, mfma_peak_tflops(t, d->mfma));
    }
}

int cmd_arch(int argc, char **argv)
{
    const char *arch = NULL, *peak = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            arch_help();
            return 0;
        }
        if (strcmp(a, "--arch") && strcmp(a, "--peak"))
            return usage_error("arch: unknown flag '%s' (flags: --arch, --peak)", a);
        if (i + 1 >= argc)
            return usage_error("arch: flag '%s' needs a value", a);
        *(strcmp(a, "--arch") ? &peak : &arch) = argv[++i];
    }
    const target *t = arch ? target_by_name(arch) : NULL;
    if (arch && !t)
        return usage_error("arch: unknown target '%s' (targets: %s)", arch, target_names());
    if (peak) {
        const igemm_dtype_desc *d = igemm_dtype_by_name(peak);
        if (!d)
            return usage_error("arch: --peak: unknown data type '%s' (fp32, fp16, bf16)", peak);
        if (!t)
            return usage_error("arch: --peak needs --arch TARGET");
        double tf = mfma_peak_tflops(t, d->mfma);
        if (tf <= 0)
            return cli_error(1, "arch: %s has no %s matrix instruction (MFMA), so no matrix peak", t->name, peak);
        printf("%.3f\n", tf);
        return 0;
    }
    printf("%-7s %4s %7s %6s  %-5s %-30s %13s %8s\n", "target", "CUs", "SIMD/CU", "GHz", "type", "fastest MFMA",
           "FLOP/clk/SIMD", "TFLOP/s");
    for (int i = 0; i < igemm_target_count; i++)
        if (!t || igemm_targets[i] == t)
            print_target(igemm_targets[i]);
    return 0;
}
