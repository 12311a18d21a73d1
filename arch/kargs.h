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

/* Names and block sizes of the fixed kernels (identical in every target's code object).
 * The naive kernel exists per data type; the fp32 one keeps the name it had
 * before it took strides (the naive solver's NCHW fp32 kernel). */
#define KERNEL_NAIVE "igemm_bwd_naive_nchw_fp32"
#define KERNEL_NAIVE_FP16 "igemm_bwd_naive_fp16"
#define KERNEL_NAIVE_BF16 "igemm_bwd_naive_bf16"
#define KERNEL_FILL "igemm_fill_zero_b32"
#define KERNEL_FILL16 "igemm_fill_zero_b16"
#define KERNEL_KSUM "igemm_ksplit_sum_fp32"
#define KERNEL_KSUM_FP16 "igemm_ksplit_sum_fp16"
#define KERNEL_KSUM_BF16 "igemm_ksplit_sum_bf16"
#define KERNEL_W_KYXC "igemm_w_kyxc_b32"
#define KERNEL_W_KYXC16 "igemm_w_kyxc_b16"
#define NAIVE_BLOCK 256
#define FILL_BLOCK 256
#define KSUM_BLOCK 256
#define W_KYXC_BLOCK 256
/* The slices a lane of the reduction loads at once, at most (gen/kern_ksum.c:
 * batches of KSUM_BATCH while that many are left, then the binary digits of
 * the rest; conv/heuristic.c prices its latencies by them). */
#define KSUM_BATCH 8

#define KARG_PTR uint64_t
#define KARG_U32 uint32_t
#define KARG_FIELD(type, name, desc) KARG_##type name;

/* The naive kernel: one work-item per dx element of a band of pixels (every
 * pixel for the naive solver; the border pixels, where a v4r1 kernel's
 * masked dy taps meet the filter, for the non-finite fixup after a v4r1
 * launch), any layout through byte strides. A band is the first `top` and
 * the last hi - top - rows_skip rows, then of the rows between them the
 * first `left` and the last lr - left columns. */
#define IGEMM_NAIVE_ARGS(X)                                                    \
    X(PTR, p_dx, "dx, written")                                                \
    X(PTR, p_dy, "dy")                                                         \
    X(PTR, p_w, "w")                                                           \
    X(U32, total, "work-items of this launch: batch * c * band_px (< 2^31)")   \
    X(U32, batch, "images of this launch")                                     \
    X(U32, band_px, "pixels of an image's channel in the band")                \
    X(U32, only_nan, "1: compute only the elements that hold NaN (fixup)")     \
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
    X(U32, top, "band: first rows")                                            \
    X(U32, rows_skip, "band: rows between the top and the bottom rows")        \
    X(U32, rows_px, "band: pixels of its top and bottom rows")                 \
    X(U32, left, "band: first columns of the rows between")                    \
    X(U32, lr, "band: columns of the rows between (>= 1)")                     \
    X(U32, cols_skip, "band: columns between the left and right ones")         \
    X(U32, dx_sn, "dx bytes per image")                                        \
    X(U32, dx_sc, "dx bytes per channel")                                      \
    X(U32, dx_sh, "dx bytes per row")                                          \
    X(U32, dx_sw, "dx bytes per column")                                       \
    X(U32, dy_sn, "dy bytes per image")                                        \
    X(U32, dy_sk, "dy bytes per channel")                                      \
    X(U32, dy_sh, "dy bytes per row")                                          \
    X(U32, dy_sw, "dy bytes per column")                                       \
    X(U32, w_sk, "w bytes per output channel k")                               \
    X(U32, w_sc, "w bytes per channel of a group")                             \
    X(U32, w_sy, "w bytes per filter row")                                     \
    X(U32, w_sx, "w bytes per filter column")                                  \
    X(U32, mdiv_wi, "magic for / wi")                                          \
    X(U32, shift_wi, "shift for / wi")                                         \
    X(U32, mdiv_band, "magic for / band_px")                                   \
    X(U32, shift_band, "shift for / band_px")                                  \
    X(U32, mdiv_lr, "magic for / lr")                                          \
    X(U32, shift_lr, "shift for / lr")                                         \
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
 * V4R1_MAX_PHASES phases (iy, ix), each with the same number of
 * workgroups (wgs); a workgroup finds its phase as block / wgs and reads
 * that phase's values from the table ph[][] at the end of the arguments.
 * A phase with no filter tap (ydot or xdot 0) stores its tile of zeros.
 * Everything else the host can derive is passed precomputed; signed values
 * (hi_off, wi_off) travel as two's complement. */
#define V4R1_MAX_PHASES 16
enum { PH_WOFF, PH_STEPS, PH_YDOT, PH_XDOT, PH_HI_OFF, PH_WI_OFF, PH_SPLIT, PH_GUARD, PH_WORDS };
/* The bits of PH_GUARD (the same in every row): the border band of dx is
 * not empty (the non-finite guard checks), and the problem allows flushed
 * subnormals (fp16_mode flush: gfx90a's 16-bit MFMA kernels skip their
 * per-step small-value test). */
enum { PH_GUARD_BAND = 1 << 0, PH_GUARD_FLUSH = 1 << 1 };
_Static_assert(PH_WORDS == 8, "a phase row is one s_load_dwordx8, 32 bytes (gen/bwd_data_v4r1/setup.c)");

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
    X(U32, w_sk, "w bytes per output channel k (of the copy for w_kyxc)")      \
    X(U32, w_sc, "w bytes per channel of a group")                             \
    X(U32, w_sx, "w bytes per filter column")                                  \
    X(U32, w_ystep, "w bytes from a tap of a phase to the next along h: ytilda * w bytes per filter row") \
    X(U32, w_xstep, "w bytes from a tap of a phase to the next along w: xtilda * w_sx") \
    X(U32, dy_sn, "dy bytes per image")                                        \
    X(U32, dy_sk, "dy bytes per channel")                                      \
    X(U32, dy_sw, "dy bytes per column")                                       \
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
    X(U32, shift_mtiles, "shift for / m_tiles")                               \
    X(U32, ks_chunk, "split kernels: K channels of a split's range")           \
    X(U32, ks_slice, "split kernels: workspace bytes from one split to the next") \
    X(U32, w_kyxc, "1: w is K, Y, X, C/G (an NCHW problem's w copied so, _kyxc solvers); 0: the layout's")

/* The non-finite guard's block (docs/KERNELS.md, "Non-finite data"): what
 * a kernel needs to recompute a dx element of the border band from its
 * valid taps only, the way the naive kernel does (gen/kern_naive.c,
 * naive_taps): the band (pixels with hi < top, hi >= bot, wi < left or
 * wi >= rgt), the tap geometry, dy's and w's byte strides and sizes.
 * Filled by plan_nonfinite_args (conv/solver.c); at the end of the v4r1
 * argument block, read only where a NaN turns up. The order is the
 * guard's (gen/bwd_data_v4r1/fixup.c): the 18 it keeps in SGPRs (pad_h ..
 * bot), the 2 it moves to VGPRs (left, rgt), the 2 byte counts of its
 * buffer resources, then copies of header values (a static twin has no
 * header: they are its constants). */
#define IGEMM_NONFINITE_ARGS(X)                                                \
    X(U32, pad_h, "pad height")                                                \
    X(U32, pad_w, "pad width")                                                 \
    X(U32, dil_h, "dilation height")                                           \
    X(U32, dil_w, "dilation width")                                            \
    X(U32, mdiv_sh, "magic for / stride_h")                                    \
    X(U32, shift_sh, "shift for / stride_h")                                   \
    X(U32, mdiv_sw, "magic for / stride_w")                                    \
    X(U32, shift_sw, "shift for / stride_w")                                   \
    X(U32, w_sy, "w bytes per filter row")                                     \
    X(U32, w_sx, "w bytes per filter column")                                  \
    X(U32, w_sc, "w bytes per channel of a group")                             \
    X(U32, w_sk, "w bytes per output channel k")                               \
    X(U32, dy_sn, "dy bytes per image")                                        \
    X(U32, dy_sk, "dy bytes per channel")                                      \
    X(U32, dy_sh, "dy bytes per row")                                          \
    X(U32, dy_sw, "dy bytes per column")                                       \
    X(U32, top, "band: rows above top")                                        \
    X(U32, bot, "band: rows from bot on")                                      \
    X(U32, left, "band: columns left of left")                                 \
    X(U32, rgt, "band: columns from rgt on")                                   \
    X(U32, w_bytes, "w bytes")                                                 \
    X(U32, dy_bytes, "dy bytes of the launch's images")                        \
    X(U32, stride_h, "stride height")                                          \
    X(U32, stride_w, "stride width")                                           \
    X(U32, ho, "dy height")                                                    \
    X(U32, wo, "dy width")                                                     \
    X(U32, fy, "filter height")                                                \
    X(U32, fx, "filter width")                                                 \
    X(U32, kg, "dy channels per group")

typedef struct {
    IGEMM_NONFINITE_ARGS(KARG_FIELD)
} igemm_nonfinite_args;

typedef struct {
    IGEMM_V4R1_ARGS(KARG_FIELD)
    /* per phase of the launch: w's byte offset of the phase's first tap
       (iy, ix): iy * w bytes per filter row + ix * w_sx; its K steps
       (ydot_slice * xdot_slice * the K blocks of the row's split: 0 for a
       phase without taps, which stores its zeros); ydot_slice, xdot_slice,
       hi_off (iy*dil_h - pad_h), wi_off, the split (a split kernel's row:
       K channels [split * ks_chunk, + ks_chunk) of each group, partial
       sums to p_dx + split * ks_slice; 0 elsewhere), the guard (1: the
       border band of dx is not empty, so an unsplit kernel runs the
       non-finite guard's check; 0: no tap of any pixel falls outside dy,
       nothing to guard); 8 words, 32-byte rows */
    uint32_t ph[V4R1_MAX_PHASES][PH_WORDS];
    /* the non-finite guard's block (unsplit kernels) */
    igemm_nonfinite_args nf;
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

/* The copy of an NCHW problem's filter into K, Y, X, C/G order (the _kyxc
 * solvers' first launch, igemm_w_kyxc_b32 / _b16): work-item i writes
 * element i of the copy, (gk, t, c) with t = y*X + x, from element
 * (gk*cg + c)*yx + t of w (K, C/G, Y, X), so that the v4r1 kernel's w
 * loads run along channels, one cache line serving consecutive lanes. */
#define IGEMM_W_KYXC_ARGS(X)                                                   \
    X(PTR, p_out, "the copy, written (K, Y, X, C/G)")                         \
    X(PTR, p_in, "w (K, C/G, Y, X)")                                          \
    X(U32, elems, "elements (K * C/G * Y * X)")                               \
    X(U32, cg, "channels per group")                                          \
    X(U32, yx, "filter taps Y * X")                                           \
    X(U32, mdiv_cg, "magic for / cg")                                         \
    X(U32, shift_cg, "shift for / cg")                                        \
    X(U32, mdiv_yx, "magic for / yx")                                         \
    X(U32, shift_yx, "shift for / yx")                                        \
    X(U32, pad0, "unused, keeps the size a multiple of 8")

typedef struct {
    IGEMM_W_KYXC_ARGS(KARG_FIELD)
} igemm_w_kyxc_args;

/* The reduction after a split along GEMM K (the _ks solvers): work-item i
 * sums element i of the `splits` fp32 partial slices of the workspace
 * (slice_bytes apart) in split order 0, 1, ... (a fixed order: the result
 * is the same bit for bit on every run) and stores the sum to dx in the
 * kernel's type, rounded once to nearest even. */
#define IGEMM_KSUM_ARGS(X)                                                     \
    X(PTR, p_out, "dx, written (its type: the kernel's)")                     \
    X(PTR, p_ws, "the workspace: splits slices of elems fp32 partial sums")   \
    X(U32, elems, "elements to sum")                                           \
    X(U32, splits, "partial slices (>= 1)")                                    \
    X(U32, slice_bytes, "bytes from one slice to the next (splits * it < 2^31)") \
    X(U32, pad0, "unused, keeps the size a multiple of 8")                    \
    X(PTR, p_dy, "dy (the non-finite guard's)")                               \
    X(PTR, p_w, "w (the non-finite guard's)")                                 \
    X(U32, nhwc, "1: dx is NHWC, else NCHW")                                   \
    X(U32, d0, "dx's innermost dimension: wi (NCHW), c (NHWC)")                \
    X(U32, d1, "the next: hi (NCHW), wi (NHWC)")                               \
    X(U32, d2, "the next: c (NCHW), hi (NHWC)")                                \
    X(U32, mdiv_d0, "magic for / d0")                                          \
    X(U32, shift_d0, "shift for / d0")                                         \
    X(U32, mdiv_d1, "magic for / d1")                                          \
    X(U32, shift_d1, "shift for / d1")                                         \
    X(U32, mdiv_d2, "magic for / d2")                                          \
    X(U32, shift_d2, "shift for / d2")                                         \
    X(U32, cg, "dx channels per group")                                        \
    X(U32, mdiv_cg, "magic for / cg")                                          \
    X(U32, shift_cg, "shift for / cg")

/* The reduction also guards against non-finite data (docs/KERNELS.md): a
 * sum that is NaN in the border band is recomputed from the valid taps
 * (the header's decode of an element index, then the block nf). */
typedef struct {
    IGEMM_KSUM_ARGS(KARG_FIELD)
    igemm_nonfinite_args nf;
} igemm_ksum_args;

#endif
