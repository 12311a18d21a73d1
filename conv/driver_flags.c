/* MIOpenDriver's conv flag table (see driver_flags.h). */
#include "driver_flags.h"

#include <stddef.h>
#include <string.h>

#include "../include/igemm.h"

#define F(member) (int)offsetof(igemm_problem, member)

static const driver_flag flags[] = {
    {"batchsize", 'n', DF_FIELD, F(n), NULL, "batch size"},
    {"in_channels", 'c', DF_FIELD, F(c), NULL, "input channels (dx)"},
    {"in_h", 'H', DF_FIELD, F(hi), NULL, "input height"},
    {"in_w", 'W', DF_FIELD, F(wi), NULL, "input width"},
    {"out_channels", 'k', DF_FIELD, F(k), NULL, "output channels (dy)"},
    {"fil_h", 'y', DF_FIELD, F(y), NULL, "filter height"},
    {"fil_w", 'x', DF_FIELD, F(x), NULL, "filter width"},
    {"pad_h", 'p', DF_FIELD, F(pad_h), NULL, "padding, height"},
    {"pad_w", 'q', DF_FIELD, F(pad_w), NULL, "padding, width"},
    {"conv_stride_h", 'u', DF_FIELD, F(stride_h), NULL, "stride, height"},
    {"conv_stride_w", 'v', DF_FIELD, F(stride_w), NULL, "stride, width"},
    {"conv_stride_0", 0, DF_FIELD, F(stride_h), NULL, "stride, height (older MIOpenDriver name)"},
    {"conv_stride_1", 0, DF_FIELD, F(stride_w), NULL, "stride, width (older MIOpenDriver name)"},
    {"dilation_h", 'l', DF_FIELD, F(dil_h), NULL, "dilation, height"},
    {"dilation_w", 'j', DF_FIELD, F(dil_w), NULL, "dilation, width"},
    {"group_count", 'g', DF_FIELD, F(groups), NULL, "groups"},
    {"in_layout", 'I', DF_LAYOUT, 0, NULL, "dx layout, NCHW or NHWC"},
    {"out_layout", 'O', DF_LAYOUT, 1, NULL, "dy layout, NCHW or NHWC"},
    {"fil_layout", 'f', DF_LAYOUT, 2, NULL, "filter layout, NCHW or NHWC"},
    {"forw", 'F', DF_FORW, 0, NULL, "direction: 2 (or 0, 3, 6: their backward-data part)"},
    {"mode", 'm', DF_MODE, 0, NULL, "conv (trans: transposed convolution, refused)"},
    {"spatial_dim", '_', DF_SPATIAL, 0, NULL, "2 (3: 3-D convolution, refused)"},
    {"verify", 'V', DF_RUN, 0, NULL, "verify against the float64 CPU reference"},
    {"time", 't', DF_RUN, 0, NULL, "report time"},
    {"iter", 'i', DF_RUN, 0, NULL, "iterations"},
    {"wall", 'w', DF_RUN, 0, NULL, "wall-clock time of the calls (with -t 1)"},
    {"search", 's', DF_RUN, 0, NULL, "find mode"},
    {"solution", 'S', DF_RUN, 0, NULL, "configuration: a name, a number of 'igemm solutions', -1/0 the selection"},
    {"printconv", 'P', DF_NO_EFFECT, 0, NULL, "print convolution dimensions (the report always does)"},
    {"dump_output", 'o', DF_NO_EFFECT, 0, NULL, "dump output buffers"},
    {"verification_cache", 'C', DF_NO_EFFECT, 0, NULL, "verification cache directory"},
    {"in_data", 'd', DF_NO_EFFECT, 0, NULL, "x data file (backward data does not read x)"},
    {"dout_data", 'D', DF_NO_EFFECT, 0, NULL, "dy data file for backward weights"},
    {"in_bias", 'a', DF_NO_EFFECT, 0, NULL, "bias data file"},
    {"in_d", '!', DF_NO_EFFECT, 0, NULL, "input depth (3-D only)"},
    {"fil_d", '@', DF_NO_EFFECT, 0, NULL, "filter depth (3-D only)"},
    {"conv_stride_d", '#', DF_NO_EFFECT, 0, NULL, "stride, depth (3-D only)"},
    {"pad_d", '$', DF_NO_EFFECT, 0, NULL, "padding, depth (3-D only)"},
    {"dilation_d", '^', DF_NO_EFFECT, 0, NULL, "dilation, depth (3-D only)"},
    {"trans_output_pad_d", '%', DF_NO_EFFECT, 0, NULL, "transposed output padding, depth (3-D only)"},
    {"weights", 'e', DF_DEFAULT, 0, "", "w data file (igemm fills w with random data)"},
    {"bias", 'b', DF_DEFAULT, 0, "0", "bias (not part of backward data)"},
    {"pad_val", 'r', DF_DEFAULT, 0, "0", "padding value"},
    {"pad_mode", 'z', DF_DEFAULT, 0, "default", "padding mode (same/valid: give -p/-q)"},
    {"tensor_vect", 'Z', DF_DEFAULT, 0, "0", "tensor vectorization"},
    {"vector_length", 'L', DF_DEFAULT, 0, "1", "tensor vectorization length"},
    {"trans_output_pad_h", 'Y', DF_DEFAULT, 0, "0", "transposed output padding, height"},
    {"trans_output_pad_w", 'X', DF_DEFAULT, 0, "0", "transposed output padding, width"},
    {"gpualloc", 'G', DF_DEFAULT, 0, "0", "buffers initialised on the GPU"},
    {"in_cast_type", 'U', DF_DEFAULT, 0, "-1", "cast type of x"},
    {"out_cast_type", 'T', DF_DEFAULT, 0, "-1", "cast type of y"},
    {"wei_cast_type", 'R', DF_DEFAULT, 0, "-1", "cast type of w"},
};

const driver_flag *driver_flag_get(int i)
{
    return i >= 0 && (size_t)i < sizeof flags / sizeof flags[0] ? &flags[i] : NULL;
}

const driver_flag *driver_flag_find(const char *a)
{
    if (!a || a[0] != '-' || !a[1])
        return NULL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (a[1] == '-' ? !strcmp(a + 2, flags[i].lng) : (!a[2] && flags[i].shrt == a[1]))
            return &flags[i];
    return NULL;
}

bool driver_forw_has_bwd(int forw) { return forw == 0 || (forw & FORW_BWD); }

const char *driver_forw_name(int forw)
{
    switch (forw) {
    case FORW_FWD: return "forward";
    case FORW_WRW: return "backward weights";
    case FORW_FWD | FORW_WRW: return "forward + backward weights";
    default: return "backward data";
    }
}

bool driver_is_program(const char *word)
{
    static const char name[] = "MIOpenDriver";
    size_t n = strlen(word), m = sizeof name - 1;
    return n >= m && !strcmp(word + n - m, name) && (n == m || word[n - m - 1] == '/');
}
