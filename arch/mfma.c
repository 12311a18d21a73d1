/* The MFMA table and its lookups. */
#include "mfma.h"

#include <stddef.h>

const mfma_info mfma_table[] = {
#define MFMA(id, m, n, k, blocks, cycles, type, a, b, cd, tg, cdv, abagpr, cbsz, blgp) \
    {OP_##id, m, n, k, blocks, cycles, type, a, b, cd, tg, cdv, abagpr, cbsz, blgp},
#include "mfma.def"
#undef MFMA
};
const int mfma_table_len = sizeof mfma_table / sizeof mfma_table[0];

const mfma_info *mfma_by_op(isa_op op)
{
    for (int i = 0; i < mfma_table_len; i++)
        if (mfma_table[i].op == op)
            return &mfma_table[i];
    return NULL;
}

const mfma_info *mfma_pick(const target *t, int m, int n, int k, int blocks, mfma_type type)
{
    for (int i = 0; i < mfma_table_len; i++) {
        const mfma_info *r = &mfma_table[i];
        if ((r->targets & t->bit) && r->m == m && r->n == n && r->k == k && r->blocks == blocks && r->type == type)
            return r;
    }
    return NULL;
}

double mfma_peak_flops_per_clk(const target *t, mfma_type type, const mfma_info **best)
{
    const mfma_info *b = NULL;
    double peak = 0;
    for (int i = 0; i < mfma_table_len; i++) {
        const mfma_info *r = &mfma_table[i];
        if (!(r->targets & target_isa_bit(t)) || r->type != type)
            continue;
        double f = 2.0 * r->m * r->n * r->k * r->blocks / r->cycles;
        if (f > peak || (f == peak && r->blocks < b->blocks)) { /* ties: the single-block GEMM form */
            peak = f;
            b = r;
        }
    }
    if (best)
        *best = b;
    return peak;
}

double mfma_peak_tflops(const target *t, mfma_type type)
{
    return mfma_peak_flops_per_clk(t, type, NULL) * t->simds_per_cu * t->num_cu * t->clock_ghz / 1e3;
}

const char *mfma_name(const mfma_info *m)
{
    for (int i = 0; m && i < isa_optable_len; i++)
        if (isa_optable[i].op == m->op)
            return isa_optable[i].name;
    return NULL;
}
