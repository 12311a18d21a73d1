/* igemm solutions (and conv --solution list): every kernel configuration
 * the library knows, with what tells them apart, and the targets whose
 * code objects carry it. The number is what -S / --solution N takes, and
 * MIOpenDriver's "Solution: N/NAME" line prints. */
#include <stdio.h>
#include <string.h>

#include "../arch/target.h"
#include "../conv/solver.h"
#include "../conv/types.h"
#include "cli.h"

void print_solutions(void)
{
    printf("%3s  %-56s %-5s %-4s %-5s %-5s %-10s %-7s %s\n", "#", "name", "kind", "math", "type", "lay",
           "tile MxNxK", "threads", "targets");
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        char tile[32] = "-", threads[16] = "256", targets[128] = "";
        const char *math = "fma";
        if (s->kind == SOLVER_V4R1) {
            const v4r1_config *c = s->cfg;
            snprintf(tile, sizeof tile, "%dx%dx%d", c->mpb, c->npb, c->kpb);
            snprintf(threads, sizeof threads, "%d", c->block);
            math = igemm_math_get(c->math)->name;
        }
        size_t n = 0;
        for (int t = 0; t < igemm_target_count; t++)
            if (!igemm_targets[t]->emulate_only && s->available(s, igemm_targets[t]) && n < sizeof targets)
                n += (size_t)snprintf(targets + n, sizeof targets - n, "%s%s", n ? "," : "", igemm_targets[t]->name);
        printf("%3d  %-56s %-5s %-4s %-5s %-5s %-10s %-7s %s\n", i + 1, s->name,
               s->kind == SOLVER_NAIVE ? "naive" : "v4r1", math, igemm_dtype_get(s->dtype)->name,
               igemm_layout_get(s->layout)->name, tile, threads, targets);
    }
}

int cmd_solutions(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: igemm solutions\n"
               "Every kernel configuration: its number (for --solution N / -S N), name, kind (naive or\n"
               "v4r1), math (fma or mfma), data type, layout, tile (M x N x K per workgroup), threads\n"
               "per workgroup and the targets whose code objects carry it.\n");
        return 0;
    }
    if (argc > 1)
        return usage_error("solutions takes no arguments (got '%s')", argv[1]);
    print_solutions();
    return 0;
}
