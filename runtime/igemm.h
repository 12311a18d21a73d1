/* libigemm: dynamic implicit-GEMM backward-data convolution for AMD GCN/CDNA.
 *
 * One code object per GPU target serves every convolution shape: sizes,
 * strides, dilations, pads and groups are kernel arguments. The library picks
 * a kernel configuration for a problem, packs the arguments and launches it
 * on a backend: the HIP runtime on a machine with an AMD GPU, or the
 * project's own functional emulator of gfx906/gfx908/gfx90a/gfx942.
 *
 * Typical use:
 *
 *     igemm_problem p = IGEMM_PROBLEM_INIT;
 *     p.n = 2; p.c = 64; p.hi = 56; p.wi = 56; p.k = 64; p.y = 3; p.x = 3;
 *     p.pad_h = p.pad_w = 1;
 *     igemm_options o = IGEMM_OPTIONS_INIT;        (auto backend)
 *     igemm_handle *h;
 *     if (igemm_create(&h, &o) != IGEMM_OK) ...    (igemm_create_error says why)
 *     igemm_conv_bwd_data(h, &p, dx, dy, w);       (device or host buffers)
 *     igemm_destroy(h);
 *
 * Every function returns an igemm_status; on failure igemm_last_error(h)
 * holds a one-line message with the context (target, kernel, shape).
 */
#ifndef IGEMM_H
#define IGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Every error path of the library returns one of these. */
typedef enum {
    IGEMM_OK = 0,
    IGEMM_ERR_INVALID_ARG = 1,   /* null pointer, size < 1, inconsistent shape */
    IGEMM_ERR_UNSUPPORTED = 2,   /* valid problem this version does not do (layout, type) */
    IGEMM_ERR_NOT_APPLICABLE = 3,/* the requested kernel refuses this problem */
    IGEMM_ERR_NO_DEVICE = 4,     /* no usable GPU / HIP runtime for the backend */
    IGEMM_ERR_NO_CODE_OBJECT = 5,/* no code object for the device's target */
    IGEMM_ERR_BACKEND = 6,       /* the backend (HIP call) failed */
    IGEMM_ERR_EMU_FAULT = 7,     /* the emulator stopped on a fault or strictness report */
    IGEMM_ERR_NO_MEMORY = 8,
    IGEMM_ERR_IO = 9,            /* a file could not be read or written */
} igemm_status;

/* A short constant name for a status ("IGEMM_ERR_INVALID_ARG"). */
const char *igemm_status_name(igemm_status s);

typedef enum { IGEMM_LAYOUT_NCHW = 0, IGEMM_LAYOUT_NHWC = 1 } igemm_layout;
typedef enum { IGEMM_FP32 = 0, IGEMM_FP16 = 1, IGEMM_BF16 = 2 } igemm_dtype;

/* A backward-data convolution: dx (n, c, hi, wi) from dy (n, k, ho, wo) and
 * w (k, c/groups, y, x). ho and wo follow from the other sizes. */
typedef struct igemm_problem {
    int n, c, hi, wi, k, y, x;
    int pad_h, pad_w;
    int stride_h, stride_w;
    int dil_h, dil_w;
    int groups;
    igemm_layout layout;
    igemm_dtype dtype;
} igemm_problem;

#define IGEMM_PROBLEM_INIT                                                     \
    {                                                                          \
        .n = 1, .c = 1, .hi = 1, .wi = 1, .k = 1, .y = 1, .x = 1,              \
        .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1,     \
        .layout = IGEMM_LAYOUT_NCHW, .dtype = IGEMM_FP32                       \
    }

/* Check a problem on its own (no target): sizes >= 1, pads >= 0, output size
 * >= 1, groups dividing c and k, supported layout and type.
 * Returns IGEMM_OK, or an error with a one-line reason in why (may be NULL). */
igemm_status igemm_problem_check(const igemm_problem *p, char *why, size_t why_len);

/* Output height and width of a problem (0 when invalid). */
int igemm_problem_ho(const igemm_problem *p);
int igemm_problem_wo(const igemm_problem *p);

/* Float64 CPU reference: dx = bwd_data(dy, w) for an NCHW fp32 problem, in
 * double precision. When abs_sum is not NULL it receives, per dx element, the
 * sum of |w * dy| over all terms, and when covered is not NULL it receives 1
 * for elements that get at least one term (0: the element must be exactly 0).
 * Returns IGEMM_OK or IGEMM_ERR_INVALID_ARG. */
igemm_status igemm_reference_bwd_data(const igemm_problem *p, const float *dy, const float *w,
                                      double *dx, double *abs_sum, unsigned char *covered);

/* Result of comparing a kernel's dx with the reference. */
typedef struct {
    double max_abs_err;     /* max |dx - ref| */
    double max_rel_err;     /* max |dx - ref| / sum |terms| over covered elements */
    int64_t worst_index;    /* element with max_rel_err */
    int64_t nan_count;      /* NaN or Inf in dx */
    int64_t uncovered_nonzero; /* elements with no terms that are not exactly 0 */
    int64_t zero_terms_nonzero; /* elements whose terms are all 0 but dx != 0 */
} igemm_verify_result;

/* Compare dx with the reference; returns 1 when every element is within
 * rel_tol (error / sum of |terms|), nothing is NaN and uncovered elements are
 * exactly zero, else 0. */
int igemm_verify(const igemm_problem *p, const float *dx, const double *ref, const double *abs_sum,
                 const unsigned char *covered, double rel_tol, igemm_verify_result *out);

/* ---- handles and backends ---------------------------------------------- */

typedef enum {
    IGEMM_BACKEND_AUTO = 0, /* HIP when an AMD GPU is usable, else the emulator */
    IGEMM_BACKEND_HIP = 1,
    IGEMM_BACKEND_EMU = 2,
} igemm_backend;

typedef struct {
    igemm_backend backend;
    const char *arch;        /* emulator target ("gfx906", the default); HIP takes the device's */
    const char *codeobj_dir; /* load <arch>.hsaco from here instead of the embedded code objects */
    const char *perfdb;      /* find-mode database file (NULL: none) */
    int emu_threads;         /* emulator worker threads (0: one per CPU) */
} igemm_options;

#define IGEMM_OPTIONS_INIT {.backend = IGEMM_BACKEND_AUTO}

typedef struct igemm_handle igemm_handle;

/* Create a handle. On failure *h is NULL and, when why is not NULL, a
 * one-line reason is written there. */
igemm_status igemm_create(igemm_handle **h, const igemm_options *opt, char *why, size_t why_len);
void igemm_destroy(igemm_handle *h);
/* The message of the handle's last failure ("" when none). */
const char *igemm_last_error(const igemm_handle *h);
/* The target kernels run on ("gfx906") and the backend ("emu", "hip"). */
const char *igemm_handle_arch(const igemm_handle *h);
const char *igemm_handle_backend(const igemm_handle *h);

/* ---- device memory ------------------------------------------------------ */
/* On HIP these are device allocations and copies; on the emulator, host
 * memory. Kernels take pointers from igemm_alloc or the user's own device
 * (HIP) / host (emulator) buffers. */
igemm_status igemm_alloc(igemm_handle *h, void **p, size_t bytes);
void igemm_free(igemm_handle *h, void *p);
igemm_status igemm_copy_to_device(igemm_handle *h, void *dst, const void *src, size_t bytes);
igemm_status igemm_copy_to_host(igemm_handle *h, void *dst, const void *src, size_t bytes);

/* ---- solutions ---------------------------------------------------------- */

/* The number of kernel configurations this library knows and the name of
 * the i-th ("naive", "v4r1_fma_128x128x8_..."). */
int igemm_solution_count(void);
const char *igemm_solution_name(int i);

/* Can configuration `solution` (NULL: any) compute p on this handle's
 * target? IGEMM_OK, or IGEMM_ERR_NOT_APPLICABLE / IGEMM_ERR_INVALID_ARG /
 * IGEMM_ERR_UNSUPPORTED with the reason in why. */
igemm_status igemm_applicable(igemm_handle *h, const igemm_problem *p, const char *solution, char *why,
                              size_t why_len);

/* The configuration the heuristic (or the performance database) picks. */
igemm_status igemm_select(igemm_handle *h, const igemm_problem *p, char *solution, size_t len);

/* What a run did. */
typedef struct {
    char solution[96];
    int launches;
    double ms;            /* HIP: sum of event-timed launch durations */
    uint64_t cycles;      /* emulator: modeled issue cycles (docs/EMULATOR.md) */
    uint64_t insts;       /* emulator: wave instructions */
    uint64_t valu_cycles, fma_cycles, loop_valu_cycles, loop_fma_cycles;
    uint64_t global_bytes, lds_bytes;
} igemm_run_info;

/* dx = backward data of (dy, w) with the selected configuration.
 * Buffers: device memory (HIP) or host memory (emulator), NCHW fp32. */
igemm_status igemm_conv_bwd_data(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w);

/* The same with an explicit configuration (NULL: select) and a report. */
igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info);

#ifdef __cplusplus
}
#endif
#endif
