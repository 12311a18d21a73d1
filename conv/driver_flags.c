/* MIOpenDriver's conv flag table (see driver_flags.h). */
#include "driver_flags.h"

#include <stddef.h>
#include <string.h>

#include "../include/igemm.h"
#include "util.h"

#define F(member) (int)offsetof(igemm_problem, member)

static const driver_flag flags[] = {
    {"batchsize", 'n', DF_FIELD, F(n), NULL, "batch size", 0, 0},
    {"in_channels", 'c', DF_FIELD, F(c), NULL, "input channels (dx)", 0, 0},
    {"in_h", 'H', DF_FIELD, F(hi), NULL, "input height", 0, 0},
    {"in_w", 'W', DF_FIELD, F(wi), NULL, "input width", 0, 0},
    {"out_channels", 'k', DF_FIELD, F(k), NULL, "output channels (dy)", 0, 0},
    {"fil_h", 'y', DF_FIELD, F(y), NULL, "filter height", 0, 0},
    {"fil_w", 'x', DF_FIELD, F(x), NULL, "filter width", 0, 0},
    {"pad_h", 'p', DF_FIELD, F(pad_h), NULL, "padding, height", 0, 0},
    {"pad_w", 'q', DF_FIELD, F(pad_w), NULL, "padding, width", 0, 0},
    {"conv_stride_h", 'u', DF_FIELD, F(stride_h), NULL, "stride, height", 0, 0},
    {"conv_stride_w", 'v', DF_FIELD, F(stride_w), NULL, "stride, width", 0, 0},
    {"conv_stride_0", 0, DF_FIELD, F(stride_h), NULL, "stride, height (older MIOpenDriver name)", 0, 0},
    {"conv_stride_1", 0, DF_FIELD, F(stride_w), NULL, "stride, width (older MIOpenDriver name)", 0, 0},
    {"dilation_h", 'l', DF_FIELD, F(dil_h), NULL, "dilation, height", 0, 0},
    {"dilation_w", 'j', DF_FIELD, F(dil_w), NULL, "dilation, width", 0, 0},
    {"group_count", 'g', DF_FIELD, F(groups), NULL, "groups", 0, 0},
    {"in_layout", 'I', DF_LAYOUT, 0, NULL, "dx layout, NCHW or NHWC", 0, 0},
    {"out_layout", 'O', DF_LAYOUT, 1, NULL, "dy layout, NCHW or NHWC", 0, 0},
    {"fil_layout", 'f', DF_LAYOUT, 2, NULL, "filter layout, NCHW or NHWC", 0, 0},
    {"forw", 'F', DF_FORW, 0, NULL, "direction: 2 (or 0, 3, 6: their backward-data part)", 0, 0},
    {"mode", 'm', DF_MODE, 0, NULL, "conv (trans: transposed convolution, refused)", 0, 0},
    {"spatial_dim", '_', DF_SPATIAL, 0, NULL, "2 (3: 3-D convolution, refused)", 0, 0},
    {"verify", 'V', DF_RUN, 0, NULL, "verify against the float64 CPU reference", 0, 0},
    {"time", 't', DF_RUN, 0, NULL, "report time", 0, 0},
    {"iter", 'i', DF_RUN, 0, NULL, "iterations", 0, 0},
    {"wall", 'w', DF_RUN, 0, NULL, "wall-clock time of the calls (with -t 1)", 0, 0},
    {"search", 's', DF_RUN, 0, NULL, "find mode", 0, 0},
    {"solution", 'S', DF_RUN, 0, NULL, "a MIOpen solver id or name (its family here), our configuration's name, -1/0 the selection", 0, 0},
    {"printconv", 'P', DF_NO_EFFECT, 0, NULL, "print convolution dimensions (the report always does)", 0, 0},
    {"dump_output", 'o', DF_NO_EFFECT, 0, NULL, "dump output buffers", 0, 0},
    {"verification_cache", 'C', DF_NO_EFFECT, 0, NULL, "verification cache directory", 0, 0},
    {"in_data", 'd', DF_NO_EFFECT, 0, NULL, "x data file (backward data does not read x)", 0, 0},
    {"dout_data", 'D', DF_NO_EFFECT, 0, NULL, "dy data file for backward weights", 0, 0},
    {"in_bias", 'a', DF_NO_EFFECT, 0, NULL, "bias data file", 0, 0},
    {"in_d", '!', DF_NO_EFFECT, 0, NULL, "input depth (3-D only)", 0, 0},
    {"fil_d", '@', DF_NO_EFFECT, 0, NULL, "filter depth (3-D only)", 0, 0},
    {"conv_stride_d", '#', DF_NO_EFFECT, 0, NULL, "stride, depth (3-D only)", 0, 0},
    {"pad_d", '$', DF_NO_EFFECT, 0, NULL, "padding, depth (3-D only)", 0, 0},
    {"dilation_d", '^', DF_NO_EFFECT, 0, NULL, "dilation, depth (3-D only)", 0, 0},
    {"trans_output_pad_d", '%', DF_NO_EFFECT, 0, NULL, "transposed output padding, depth (3-D only)", 0, 0},
    {"weights", 'e', DF_DEFAULT, 0, "", "w data file (igemm fills w with random data)", 0, 0},
    {"bias", 'b', DF_NOTED, 0, "0", "bias: backward bias is not part of backward data, ignored", 0, 1},
    {"pad_val", 'r', DF_DEFAULT, 0, "0", "padding value", 0, 0},
    {"pad_mode", 'z', DF_DEFAULT, 0, "default", "padding mode (same/valid: give -p/-q)", 0, 0},
    {"tensor_vect", 'Z', DF_DEFAULT, 0, "0", "tensor vectorization", 0, 0},
    {"vector_length", 'L', DF_DEFAULT, 0, "1", "tensor vectorization length", 0, 0},
    {"trans_output_pad_h", 'Y', DF_DEFAULT, 0, "0", "transposed output padding, height", 0, 0},
    {"trans_output_pad_w", 'X', DF_DEFAULT, 0, "0", "transposed output padding, width", 0, 0},
    {"gpualloc", 'G', DF_DEFAULT, 0, "0", "buffers initialised on the GPU", 0, 0},
    {"in_cast_type", 'U', DF_DEFAULT, 0, "-1", "cast type of x", 0, 0},
    {"out_cast_type", 'T', DF_DEFAULT, 0, "-1", "cast type of y", 0, 0},
    {"wei_cast_type", 'R', DF_DEFAULT, 0, "-1", "cast type of w", 0, 0},
    /* the flags of MIOpen 3.5's driver */
    {"init_output_nan", 'N', DF_NO_EFFECT, 0, NULL, "dx filled with NaN before the run (igemm always does)", 0, 0},
    {"math_type", 'M', DF_NOTED, 0, "1",
     "math type: 1 (pedantic) is what igemm computes; 0 (default, TF32 allowed) runs fp32 as 1", 0, 1},
    {"gpubuffer_check", '~', DF_NOTED, 0, "0",
     "GPU buffer guard pages: ignored (the emulator's strict checks catch every out-of-bounds access)", 0, 2},
    {"tuning_policy", '&', DF_NOTED, 0, "0", "MIOpen tuning policy: ignored (-s 1 is igemm's find mode)", 0, 1 << 30},
    {"use_hip_graph", 0, DF_NOTED, 0, "0", "HIP graph replay of the iterations: ignored (each call is timed alone)", 0, 1},
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

bool driver_flag_noted(const driver_flag *f, const char *v)
{
    long x;
    return f->kind == DF_NOTED && v && !parse_long(v, f->lo, f->hi, &x) && (!f->dflt || strcmp(v, f->dflt));
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
    if (n > 4 && !strcmp(word + n - 4, ".exe")) /* MIOpenDriver.exe, on Windows */
        n -= 4;
    return n >= m && !strncmp(word + n - m, name, m) && (n == m || word[n - m - 1] == '/' || word[n - m - 1] == '\\');
}

bool driver_is_env_assignment(const char *word)
{
    if (!((*word >= 'A' && *word <= 'Z') || (*word >= 'a' && *word <= 'z') || *word == '_'))
        return false;
    size_t n = strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    return word[n] == '=';
}
