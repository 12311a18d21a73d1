/* Kernel argument layouts: the single source of truth shared by the
 * generator (which loads arguments at these offsets and lists them in the
 * code object's metadata) and the runtime (which packs them).
 *
 * Each list is an X-macro of (TYPE, name, description). PTR is a 64-bit
 * global buffer address, U32 a 32-bit value. Pointers come first so the
 * struct has no padding. Names avoid "n" and "y", which YAML reads as
 * booleans. A magic-division pair for divisor d is (mdiv_d, shift_d), see
 * igemm_magic_for(). */
#ifndef IGEMM_KARGS_H
#define IGEMM_KARGS_H

#include <stddef.h>
#include <stdint.h>

/* Names and block sizes of the fixed kernels (identical in every target's code object). */
#define KERNEL_NAIVE "igemm_bwd_naive_nchw_fp32"
#define KERNEL_NAIVE_FP16 "igemm_bwd_naive_nchw_fp16"
#define KERNEL_NAIVE_BF16 "igemm_bwd_naive_nchw_bf16"
#define KERNEL_FILL "igemm_fill_zero_b32"
#define KERNEL_FILL16 "igemm_fill_zero_b16"
#define NAIVE_BLOCK 256
#define FILL_BLOCK 256

#define KARG_PTR uint64_t
#define KARG_U32 uint32_t
#define KARG_FIELD(type, name, desc) KARG_##type name;

/* The naive kernel: one work-item per dx element. */
#define IGEMM_NAIVE_ARGS(X)                                                    \
    X(PTR, p_dx, "dx, written")                                                \
    X(PTR, p_dy, "dy")                                                         \
    X(PTR, p_w, "w")                                                           \
    X(U32, total, "dx elements of this launch (< 2^31)")                       \
    X(U32, batch, "images of this launch")                                     \
    X(U32, hi, "dx height")                                                    \
    X(U32, wi, "dx width")                                                     \
    X(U32, c, "dx channels")                                                   \
    X(U32, k, "dy channels")                                                   \
    X(U32, ho, "dy height")                                                    \
    X(U32, wo, "dy width")                                                     \
    X(U32, fy, "filter height")                                                \
    X(U32, fx, "filter width")                                                 \
    X(U32, cg, "channels per group of dx")                                     \
    X(U32, kg, "channels per group of dy")                                     \
    X(U32, stride_h, "stride height")                                          \
    X(U32, stride_w, "stride width")                                           \
    X(U32, dil_h, "dilation height")                                           \
    X(U32, dil_w, "dilation width")                                            \
    X(U32, pad_h, "pad height")                                                \
    X(U32, pad_w, "pad width")                                                 \
    X(U32, mdiv_wi, "magic for / wi")                                          \
    X(U32, shift_wi, "shift for / wi")                                         \
    X(U32, mdiv_hi, "magic for / hi")                                          \
    X(U32, shift_hi, "shift for / hi")                                         \
    X(U32, mdiv_c, "magic for / c")                                            \
    X(U32, shift_c, "shift for / c")                                           \
    X(U32, mdiv_cg, "magic for / cg")                                          \
    X(U32, shift_cg, "shift for / cg")                                         \
    X(U32, mdiv_sh, "magic for / stride_h")                                    \
    X(U32, shift_sh, "shift for / stride_h")                                   \
    X(U32, mdiv_sw, "magic for / stride_w")                                    \
    X(U32, shift_sw, "shift for / stride_w")

typedef struct {
    IGEMM_NAIVE_ARGS(KARG_FIELD)
} igemm_naive_args;

/* The v4r1 kernels are "multihead": one launch computes up to
 * V4R1_MAX_PHASES non-empty phases (iy, ix), each with the same number of
 * workgroups (wgs); a workgroup finds its phase as block / wgs and reads
 * that phase's values from the table ph[][] at the end of the arguments.
 * Everything else the host can derive is passed precomputed; signed values
 * (hi_off, wi_off) travel as two's complement. */
#define V4R1_MAX_PHASES 16
enum { PH_IY, PH_IX, PH_YDOT, PH_XDOT, PH_HI_OFF, PH_WI_OFF, PH_WORDS = 8 };

#define IGEMM_V4R1_ARGS(X)                                                     \
    X(PTR, p_dx, "dx, written")                                                \
    X(PTR, p_dy, "dy")                                                         \
    X(PTR, p_w, "w")                                                           \
    X(U32, c, "dx channels")                                                   \
    X(U32, hi, "dx height")                                                    \
    X(U32, wi, "dx width")                                                     \
    X(U32, k, "dy channels")                                                   \
    X(U32, ho, "dy height")                                                    \
    X(U32, wo, "dy width")                                                     \
    X(U32, cg, "dx channels per group (GEMM M)")                               \
    X(U32, kg, "dy channels per group")                                        \
    X(U32, fy, "filter height")                                                \
    X(U32, fx, "filter width")                                                 \
    X(U32, stride_h, "stride height")                                          \
    X(U32, stride_w, "stride width")                                           \
    X(U32, ytilda, "phases along h (S/gcd)")                                   \
    X(U32, xtilda, "phases along w")                                           \
    X(U32, dh_step, "dilation_h / gcd: ho step per tap")                       \
    X(U32, dw_step, "dilation_w / gcd")                                        \
    X(U32, htl, "HTildaLeft")                                                  \
    X(U32, wtl, "WTildaLeft")                                                  \
    X(U32, hts, "HTildaSlice")                                                 \
    X(U32, wts, "WTildaSlice")                                                 \
    X(U32, gemm_n, "GEMM N: images * hts * wts")                               \
    X(U32, n_tiles, "ceil(gemm_n / NPB)")                                      \
    X(U32, m_tiles, "ceil(cg / MPB)")                                          \
    X(U32, nkb, "ceil(kg / KPB): K steps per filter tap")                      \
    X(U32, wgs, "workgroups per phase: n_tiles * m_tiles * groups")            \
    X(U32, mdiv_wgs, "magic for / wgs")                                        \
    X(U32, shift_wgs, "shift for / wgs")                                       \
    X(U32, mdiv_hwts, "magic for / (hts*wts)")                                 \
    X(U32, shift_hwts, "shift for / (hts*wts)")                                \
    X(U32, mdiv_wts, "magic for / wts")                                        \
    X(U32, shift_wts, "shift for / wts")                                       \
    X(U32, mdiv_ntiles, "magic for / n_tiles")                                 \
    X(U32, shift_ntiles, "shift for / n_tiles")                                \
    X(U32, mdiv_mtiles, "magic for / m_tiles")                                 \
    X(U32, shift_mtiles, "shift for / m_tiles")

typedef struct {
    IGEMM_V4R1_ARGS(KARG_FIELD)
    /* per phase of the launch: iy, ix, ydot_slice, xdot_slice, hi_off
       (iy*dil_h - pad_h), wi_off, 2 unused words (32-byte rows) */
    uint32_t ph[V4R1_MAX_PHASES][PH_WORDS];
} igemm_v4r1_args;

/* Static twins take only the tensors. */
#define IGEMM_STATIC_ARGS(X)                                                   \
    X(PTR, p_dx, "dx, written")                                                \
    X(PTR, p_dy, "dy")                                                         \
    X(PTR, p_w, "w")

typedef struct {
    IGEMM_STATIC_ARGS(KARG_FIELD)
} igemm_static_args;

/* Zero fill of a buffer of 32-bit words (igemm_fill_zero_b32) or of 16-bit
 * halves (igemm_fill_zero_b16: `dwords` counts halves there). */
#define IGEMM_FILL_ARGS(X)                                                     \
    X(PTR, p_out, "buffer to zero")                                            \
    X(U32, dwords, "number of elements (32-bit words; _b16: 16-bit halves)")   \
    X(U32, pad0, "unused, keeps the size a multiple of 8")

typedef struct {
    IGEMM_FILL_ARGS(KARG_FIELD)
} igemm_fill_args;

#endif
