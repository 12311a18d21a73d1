/* The data-type, layout, direction and math descriptor tables. */
#include "types.h"

#include <string.h>

static const igemm_dtype_desc dtypes[] = {
    {IGEMM_FP32, "fp32", "conv", 4, 2, MFMA_F32},
    {IGEMM_FP16, "fp16", "convfp16", 2, 1, MFMA_F16},
    {IGEMM_BF16, "bf16", "convbfp16", 2, 1, MFMA_BF16},
};

static const igemm_layout_desc layouts[] = {
    {IGEMM_LAYOUT_NCHW, "nchw", "NCHW"},
    {IGEMM_LAYOUT_NHWC, "nhwc", "NHWC"},
};

static const igemm_direction_desc directions[] = {
    {IGEMM_DIR_BWD_DATA, "bwd-data", 2, "dx", "dy", "w"},
    {IGEMM_DIR_FWD, "fwd", 1, "y", "x", "w"},
    {IGEMM_DIR_BWD_WEIGHTS, "bwd-weights", 4, "dw", "x", "dy"},
};

static const igemm_math_desc maths[] = {
    {IGEMM_MATH_FMA, "fma"},
    {IGEMM_MATH_MFMA, "mfma"},
};

#define LOOKUP(table, key)                                                                                          \
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)                                                     \
        if (table[i].id == key)                                                                                     \
            return &table[i];                                                                                       \
    return NULL

const igemm_dtype_desc *igemm_dtype_get(igemm_dtype d) { LOOKUP(dtypes, d); }
const igemm_layout_desc *igemm_layout_get(igemm_layout l) { LOOKUP(layouts, l); }
const igemm_math_desc *igemm_math_get(igemm_math m) { LOOKUP(maths, m); }
const igemm_direction_desc *igemm_direction_get(igemm_direction d) { LOOKUP(directions, d); }

const char *igemm_fp16_mode_name(igemm_fp16_mode m)
{
    static const char *const names[] = {[IGEMM_FP16_ACCURATE] = "accurate", [IGEMM_FP16_FLUSH] = "flush",
                                        [IGEMM_FP16_ALT] = "alt"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : NULL;
}

#define FIND(table, field, value)                                                                                   \
    for (size_t i = 0; value && i < sizeof table / sizeof table[0]; i++)                                            \
        if (!strcmp(table[i].field, value))                                                                         \
            return &table[i];                                                                                       \
    return NULL

const igemm_dtype_desc *igemm_dtype_by_command(const char *cmd) { FIND(dtypes, command, cmd); }
const igemm_dtype_desc *igemm_dtype_by_name(const char *name) { FIND(dtypes, name, name); }
const igemm_layout_desc *igemm_layout_by_upper(const char *upper) { FIND(layouts, upper, upper); }
