/* libigemm: dynamic implicit-GEMM backward-data convolution for AMD GCN/CDNA.
 *
 * One code object per GPU target serves every convolution shape: sizes,
 * strides, dilations, pads and groups are kernel arguments. The library picks
 * a kernel configuration for a problem, packs the arguments and launches it
 * on a backend: the HIP runtime on a machine with an AMD GPU, or the
 * project's own functional emulator of gfx906/gfx908/gfx90a/gfx942.
 *
 * Typical use (error checks shortened):
 *
 *     igemm_problem p = IGEMM_PROBLEM_INIT;
 *     p.n = 2; p.c = 64; p.hi = 56; p.wi = 56; p.k = 64; p.y = 3; p.x = 3;
 *     p.pad_h = p.pad_w = 1;
 *     igemm_options o = IGEMM_OPTIONS_INIT;        // auto: HIP if a GPU is usable
 *     igemm_handle *h;
 *     char why[256];
 *     if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) ...  // why says why
 *     if (igemm_conv_bwd_data(h, &p, dx, dy, w) != IGEMM_OK)      // device (HIP) or
 *         fprintf(stderr, "%s\n", igemm_last_error(h));           // host (emulator) buffers
 *     igemm_destroy(h);
 *
 * Errors: every function that can fail returns an igemm_status. Functions
 * taking a handle leave a one-line message with the context (target,
 * configuration, shape) in igemm_last_error(h); the others take a `why`
 * buffer (may be NULL). The status codes each function returns are listed
 * at the function. This header needs only <stddef.h> and <stdint.h>, and
 * compiles as C11 and as C++ (C++11 and later, without warnings).
 *
 * Synchronisation (HIP): igemm_conv_bwd_data and igemm_conv_bwd_data_ex
 * queue their kernels on the handle's stream (igemm_set_stream) and return
 * without waiting, like any kernel launch; work the caller queues on that
 * stream afterwards runs after them. To read dx on the host, use
 * igemm_copy_to_host (ordered on the stream: it waits for the kernels) or
 * synchronise the stream (igemm_synchronize, hipStreamSynchronize); on
 * another stream, make it wait (hipStreamWaitEvent). dx, dy and w must stay
 * allocated until the kernels finished. igemm_copy_to_device and
 * igemm_copy_to_host are ordered on the stream and return when the copy is
 * done; igemm_find and timed calls (igemm_options.timing) wait for their
 * kernels. On the emulator every call has finished when it returns.
 *
 * Determinism: every kernel of this library writes each dx element exactly
 * once, with no atomics and a fixed order of summation per element, so the
 * same configuration on the same target gives bitwise identical dx on
 * every run, whatever the number of workgroups in flight (or emulator
 * threads): frameworks' deterministic modes may use it as it is. The
 * splits along GEMM K (solutions ending _ks2, _ks4, _ks8) keep it: each
 * split writes its fp32 partial sums to a slice of a workspace of its own
 * and one reduction kernel adds the slices in split order (0, 1, ...) and
 * rounds once; they are deterministic and picked by the heuristic and find
 * mode like any configuration (IGEMM_DISABLE_KSPLIT=1 leaves them out). No
 * configuration uses atomics; one that did would be opt-in and say so in
 * its name and here. (tests/test_determinism.c and tests/test_ksplit.c
 * keep this true.)
 */
#ifndef IGEMM_H
#define IGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; igemm_version() gives the library's, and
 * igemm_version_number() as IGEMM_VERSION_NUMBER (a run-time check that the
 * library is at least what the header describes). */
#define IGEMM_VERSION "0.1.0"
#define IGEMM_VERSION_MAJOR 0
#define IGEMM_VERSION_MINOR 1
#define IGEMM_VERSION_PATCH 0
#define IGEMM_VERSION_NUMBER (IGEMM_VERSION_MAJOR * 10000 + IGEMM_VERSION_MINOR * 100 + IGEMM_VERSION_PATCH)

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

/* A short constant name for a status ("IGEMM_ERR_INVALID_ARG"; "IGEMM_ERR_UNKNOWN"
 * for a value that is not an igemm_status). */
const char *igemm_status_name(igemm_status s);

typedef enum { IGEMM_LAYOUT_NCHW = 0, IGEMM_LAYOUT_NHWC = 1 } igemm_layout;
/* The element type of dx, dy and w alike; kernels accumulate in fp32
 * whatever it is. fp16 is IEEE binary16, bf16 bfloat16 (the top half of an
 * fp32), both 2 bytes an element. */
typedef enum { IGEMM_FP32 = 0, IGEMM_FP16 = 1, IGEMM_BF16 = 2 } igemm_dtype;

/* fp16 on targets whose fp16 matrix instructions flush denormals (gfx90a,
 * MI200: its f16 MFMAs read fp16 subnormal inputs and write fp32 subnormal
 * results as zero; docs/EMULATOR.md "Denormals"):
 *   IGEMM_FP16_ACCURATE  (default) keep fp16's subnormals: kernels take a
 *                        path that does not flush, held to the verify rule
 *                        (gfx90a's fp16 MFMA kernels multiply every matrix
 *                        step that holds a subnormal on the f32 MFMAs;
 *                        MIOpen's one-bf16 "alternate implementation" keeps
 *                        the range but not fp16's precision)
 *   IGEMM_FP16_FLUSH     also allow kernels on the target's flushing fp16
 *                        instructions (gfx90a's v_dot2_f32_f16 kernels):
 *                        dx may lose the contributions of subnormal dy and w
 *                        values (results are then not held to the verify rule)
 *   IGEMM_FP16_ALT       MIOpen's "alternate implementation": kernels may
 *                        round the fp16 dy and w values to bf16 (to nearest
 *                        even) as they stage them and multiply them with
 *                        the bf16 matrix instructions, which keep fp16's
 *                        range (no flushed subnormal) but 8 of its 11
 *                        significant bits; the reference of such a problem
 *                        rounds its inputs the same way (the verify rule
 *                        then holds the kernels to the products of the
 *                        bf16-rounded inputs: docs/KERNELS.md "Data types")
 * On other targets, and for fp32 and bf16 problems, ACCURATE and FLUSH are
 * the same computation; FLUSH and ALT are accepted only for fp16 problems. */
typedef enum { IGEMM_FP16_ACCURATE = 0, IGEMM_FP16_FLUSH = 1, IGEMM_FP16_ALT = 2 } igemm_fp16_mode;

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
    igemm_fp16_mode fp16_mode;
} igemm_problem;

/* Defaults for a problem: every size, stride, dilation and groups 1, pads
 * 0, NCHW fp32. igemm_problem_init() returns them (any language);
 * IGEMM_PROBLEM_INIT is an initializer with them (C: designated
 * initializers; C++: the function's value). */
igemm_problem igemm_problem_init(void);
#ifdef __cplusplus
#define IGEMM_PROBLEM_INIT igemm_problem_init()
#else
#define IGEMM_PROBLEM_INIT                                                     \
    {                                                                          \
        .n = 1, .c = 1, .hi = 1, .wi = 1, .k = 1, .y = 1, .x = 1,              \
        .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1,     \
        .layout = IGEMM_LAYOUT_NCHW, .dtype = IGEMM_FP32,                      \
        .fp16_mode = IGEMM_FP16_ACCURATE                                       \
    }
#endif

/* Check a problem on its own (no target): sizes >= 1, pads >= 0, output size
 * >= 1, groups dividing c and k, a known layout and data type (fp32, fp16,
 * bf16), fp16_mode FLUSH or ALT only with fp16. Whether a kernel configuration
 * computes it on a target is igemm_applicable's question.
 * Returns IGEMM_OK, or an error with a one-line reason in why (may be NULL). */
igemm_status igemm_problem_check(const igemm_problem *p, char *why, size_t why_len);

/* Output height and width of a problem (0 when igemm_problem_check refuses
 * it, or p is NULL). */
int igemm_problem_ho(const igemm_problem *p);
int igemm_problem_wo(const igemm_problem *p);

/* Float64 CPU reference: dx = bwd_data(dy, w) for an fp32 problem (NCHW or
 * NHWC as p->layout says), in double precision. When abs_sum is not NULL it
 * receives, per dx element, the sum of |w * dy| over all terms, and when
 * covered is not NULL it receives 1 for elements that get at least one term
 * (0: the element must be exactly 0). dy and w are read as fp32 whatever
 * p->dtype says (16-bit data widened by the caller). With fp16_mode
 * IGEMM_FP16_ALT every dy and w value is first rounded to bf16 (to nearest
 * even), as that mode's kernels round them: the terms are the products of
 * the rounded values (this function and the _ex one). It allocates nothing
 * (every layout is read in place through strides), so buffers allocated
 * before a run are all a verification needs.
 * Returns IGEMM_OK or IGEMM_ERR_INVALID_ARG. */
igemm_status igemm_reference_bwd_data(const igemm_problem *p, const float *dy, const float *w,
                                      double *dx, double *abs_sum, unsigned char *covered);

/* The same for tensors of p->dtype: dy and w hold fp32, fp16 or bf16
 * elements (2 bytes each for the 16-bit types), widened exactly to double.
 * Allocates nothing. Returns IGEMM_OK or IGEMM_ERR_INVALID_ARG. */
igemm_status igemm_reference_bwd_data_ex(const igemm_problem *p, const void *dy, const void *w, double *dx,
                                         double *abs_sum, unsigned char *covered);

/* Result of comparing a kernel's dx with the reference. */
typedef struct {
    double max_abs_err;     /* max |dx - ref| */
    double max_rel_err;     /* max |dx - ref| / sum |terms| over covered elements */
    int64_t worst_index;    /* element with max_rel_err */
    int64_t nan_count;      /* NaN or Inf in dx that the reference does not have (below) */
    int64_t uncovered_nonzero; /* elements with no terms that are not exactly 0 */
    int64_t zero_terms_nonzero; /* elements whose terms are all 0 but dx != 0 */
    double max_err_ratio;   /* max over covered elements of |dx - ref| / allowed error
                               (the rule below; <= 1 passes) */
    int64_t over_tolerance; /* covered elements past their allowed error */
} igemm_verify_result;

/* The verify rule, per dx element with reference ref and sum of |terms| S:
 *   covered:   |dx - ref| <= half_ulp(ref) + rel_tol * S, where half_ulp is
 *              half a unit in the last place of the problem's 16-bit format
 *              at ref (fp16: 2^(e-11), bf16: 2^(e-8) for |ref| in
 *              [2^e, 2^(e+1)), subnormal spacing below the normal range) and
 *              0 for fp32; rel_tol * S is the fp32 accumulation allowance
 *              (1e-5 in the tools and tests). dx = +-inf passes where
 *              |ref| + rel_tol * S reaches the format's overflow threshold
 *              (65520 for fp16) with ref's sign: IEEE overflow.
 *   uncovered: exactly 0.
 *   NaN/Inf:   none, unless ref itself is NaN or +-inf (a NaN or Inf input
 *              reaches the element): then dx must be NaN, or that same inf;
 *              or S * (1 + rel_tol) >= FLT_MAX, where the fp32 sum of the
 *              terms may overflow on the way (+-inf, or NaN from inf - inf).
 *              A term that does not exist contributes nothing: 0 x inf in
 *              a masked tap is no NaN.
 * igemm_verify reads dx as fp32 (16-bit results widened by the caller) and
 * applies the rule of p->dtype; igemm_verify_ex reads dx as p->dtype.
 * Both return 1 when every element passes, else 0; out (may be NULL)
 * receives the details. Also 0 (nothing passes) when p, dx, ref, abs_sum or
 * covered is NULL, the problem is invalid or rel_tol is not a number >= 0;
 * *out is then all zeros with worst_index -1. */
int igemm_verify(const igemm_problem *p, const float *dx, const double *ref, const double *abs_sum,
                 const unsigned char *covered, double rel_tol, igemm_verify_result *out);
int igemm_verify_ex(const igemm_problem *p, const void *dx, const double *ref, const double *abs_sum,
                    const unsigned char *covered, double rel_tol, igemm_verify_result *out);

/* ---- handles and backends ---------------------------------------------- */

typedef enum {
    IGEMM_BACKEND_AUTO = 0, /* HIP when an AMD GPU is usable, else the emulator */
    IGEMM_BACKEND_HIP = 1,  /* the HIP runtime (libamdhip64, loaded with dlopen) */
    IGEMM_BACKEND_EMU = 2,  /* the project's functional emulator (host memory) */
} igemm_backend;

typedef struct {
    igemm_backend backend;
    const char *arch;        /* emulator target ("gfx906", the default); HIP takes the device's */
    const char *codeobj_dir; /* load <arch>.hsaco from here, or the device's entry of the clang
                                offload bundle igemm.hipfb, instead of the embedded code objects */
    const char *perfdb;      /* performance database file (NULL: none): read by igemm_create,
                                consulted by igemm_select, updated by igemm_find */
    int emu_threads;         /* emulator worker threads (0: one per CPU; more than the
                                CPUs run time-shared, and igemm_handle_warning says so) */
    uint64_t emu_max_wave_insts; /* emulator: instructions one wave may execute before the
                                    run stops with a fault (0: the emulator's default,
                                    2^30; a kernel that never ends cannot hang the caller) */
    int device;              /* HIP device index (default 0); the handle makes it the calling
                                thread's current HIP device (hipSetDevice) in every call that
                                uses the GPU */
    int emu_no_timing;       /* emulator: 1 leaves the timing model off (docs/TIMING.md): no
                                modeled time, find mode ranks by issue cycles */
    int timing;              /* 1: time each igemm_conv_bwd_data(_ex) with events on the handle's
                                stream (igemm_run_info.ms; the call then waits for its kernels);
                                0 (default): launches return without waiting */
    /* Progress of long calls (igemm_find: one call before each configuration
       it times, done of total so far, what = its name; NULL: none). The CLI
       prints it with --progress or on a terminal. */
    void (*progress)(void *ctx, const char *what, int done, int total);
    void *progress_ctx;
} igemm_options;

/* Environment, read by igemm_create (as MIOpen reads MIOPEN_ENABLE_LOGGING_CMD
 * and MIOPEN_USER_DB_PATH):
 *   IGEMM_ENABLE_LOGGING_CMD=1  every igemm_conv_bwd_data(_ex) and igemm_find
 *       call prints the igemm command line of its problem on stderr:
 *       "igemm(emu): Command [igemm_conv_bwd_data] igemm conv -n ... -F 2 --arch gfx906"
 *   IGEMM_USER_DB_PATH=DIR  the perf-db file DIR/igemm.udb when
 *       igemm_options.perfdb is NULL (created by the first igemm_find).
 *   IGEMM_EMU_TIMELINE=FILE  the emulator backend with its timing model on
 *       appends to FILE the model's issue timeline of sampled CU 0 of every
 *       timed launch: a "# kernel ..." line, then one line per instruction
 *       its waves issue, "cycle workgroup wave simd pc instruction"
 *       (docs/TIMING.md "Timeline"; a model, not a measurement). */
#define IGEMM_ENV_LOGGING_CMD "IGEMM_ENABLE_LOGGING_CMD"
#define IGEMM_ENV_USER_DB_PATH "IGEMM_USER_DB_PATH"
#define IGEMM_ENV_EMU_TIMELINE "IGEMM_EMU_TIMELINE"
#define IGEMM_USER_DB_FILE "igemm.udb"

/* The words the library's messages use for the caller's knobs: each
 * interface puts its own in their place (the CLI "--backend emu", Python
 * "backend='emu'"). */
#define IGEMM_KNOB_EMU "igemm_options.backend = IGEMM_BACKEND_EMU"
#define IGEMM_KNOB_ARCH "igemm_options.arch"

/* Defaults for options (all zero: AUTO backend, embedded code objects, no
 * perfdb, untimed): igemm_options_init(), or IGEMM_OPTIONS_INIT. */
igemm_options igemm_options_init(void);
#ifdef __cplusplus
#define IGEMM_OPTIONS_INIT igemm_options_init()
#else
#define IGEMM_OPTIONS_INIT {.backend = IGEMM_BACKEND_AUTO}
#endif

/* A handle: one backend, one target, its loaded code object, the
 * performance database and the last error. A handle is not thread-safe:
 * use one per thread (or serialize calls). */
typedef struct igemm_handle igemm_handle;

/* Create a handle. opt may be NULL (IGEMM_OPTIONS_INIT). On failure *h is
 * NULL and, when why is not NULL, a one-line reason is written there.
 * Returns IGEMM_OK or
 *   IGEMM_ERR_INVALID_ARG     h is NULL, unknown backend value, device < 0
 *   IGEMM_ERR_UNSUPPORTED     opt->arch is not a known target
 *   IGEMM_ERR_NO_DEVICE       backend HIP: the HIP runtime is missing or sees
 *                             no GPU (the reason spells out hipErrorNoDevice)
 *   IGEMM_ERR_NO_CODE_OBJECT  no code object for the target (the reason lists
 *                             the available ones), or it does not load
 *   IGEMM_ERR_BACKEND         another HIP or emulator start-up failure
 *   IGEMM_ERR_IO              the perfdb file cannot be read or is not a regular
 *                             file; a missing file is empty, malformed lines are
 *                             skipped (igemm_handle_warning says which)
 *   IGEMM_ERR_INVALID_ARG     also: the perfdb file is not a performance
 *                             database (lines, none of them a record, and no
 *                             "# igemm performance database" header)
 *   IGEMM_ERR_NO_MEMORY
 * With IGEMM_BACKEND_AUTO a HIP failure is not an error: the handle uses
 * the emulator and igemm_handle_fallback() says why HIP was not used.
 * The HIP runtime is libamdhip64.so, loaded at run time (once per process),
 * or the library the environment variable IGEMM_HIP_LIBRARY names. */
igemm_status igemm_create(igemm_handle **h, const igemm_options *opt, char *why, size_t why_len);

/* Release a handle and everything it holds (NULL is ignored). Buffers from
 * igemm_alloc must be freed before. */
void igemm_destroy(igemm_handle *h);

/* The message of the handle's last failed call ("" when the last call
 * succeeded; "handle is NULL" for NULL). Valid until the next call. */
const char *igemm_last_error(const igemm_handle *h);

/* The target kernels run on ("gfx906") and the backend ("emu", "hip");
 * NULL for a NULL handle. */
const char *igemm_handle_arch(const igemm_handle *h);
const char *igemm_handle_backend(const igemm_handle *h);

/* Why an IGEMM_BACKEND_AUTO handle runs on the emulator rather than HIP
 * ("" when it does not, or the backend was chosen explicitly). */
const char *igemm_handle_fallback(const igemm_handle *h);

/* What igemm_create tolerated rather than failed on: a malformed line of
 * the perfdb file, skipped ("FILE:LINE: reason; the line is skipped", the
 * first one and how many in all); emu_threads above the online CPU count
 * (the threads run, time-shared: not clamped); "" when nothing. NULL for a
 * NULL handle. */
const char *igemm_handle_warning(const igemm_handle *h);
/* The device's target ID as HIP reports it, with its features
 * ("gfx90a:sramecc+:xnack-"; the emulator: the bare target), and its
 * compute-unit count (HIP: the device's multiProcessorCount; the emulator:
 * the target's reference product). The heuristic and the performance
 * database's keys use that count. NULL / 0 for a NULL handle. */
const char *igemm_handle_target_id(const igemm_handle *h);
int igemm_handle_cu_count(const igemm_handle *h);

/* HIP: launch on this hipStream_t (NULL: the null stream). The emulator
 * accepts only NULL. IGEMM_OK, IGEMM_ERR_INVALID_ARG or IGEMM_ERR_UNSUPPORTED. */
igemm_status igemm_set_stream(igemm_handle *h, void *stream);

/* Wait until the kernels and copies queued on the handle's stream have
 * finished (hipStreamSynchronize; the emulator: at once). A kernel fault
 * shows here at the latest. IGEMM_OK, IGEMM_ERR_INVALID_ARG or
 * IGEMM_ERR_BACKEND. */
igemm_status igemm_synchronize(igemm_handle *h);

/* The library's version, "MAJOR.MINOR.PATCH", and as IGEMM_VERSION_NUMBER. */
const char *igemm_version(void);
int igemm_version_number(void);

/* ---- device memory ------------------------------------------------------ */
/* On HIP these are device allocations and copies; on the emulator, host
 * memory. Kernels take pointers from igemm_alloc or the user's own device
 * (HIP) / host (emulator) buffers. The handle remembers the size of every
 * igemm_alloc buffer: a copy, or a tensor of a run, that starts inside one
 * must end inside it (else IGEMM_ERR_INVALID_ARG, naming the tensor and both
 * sizes); a buffer of the user's own must hold the whole tensor, which the
 * library cannot check. Errors: IGEMM_ERR_INVALID_ARG (NULL handle or
 * pointer, a copy past an allocation's end), IGEMM_ERR_NO_MEMORY (alloc),
 * IGEMM_ERR_BACKEND (copy). igemm_free frees only what this handle's
 * igemm_alloc returned, once: NULL is IGEMM_OK (nothing to do); another
 * handle's or the user's own pointer, a pointer inside an allocation, or
 * one already freed is IGEMM_ERR_INVALID_ARG with the reason in
 * igemm_last_error, and nothing is freed. */
igemm_status igemm_alloc(igemm_handle *h, void **p, size_t bytes);
igemm_status igemm_free(igemm_handle *h, void *p);
igemm_status igemm_copy_to_device(igemm_handle *h, void *dst, const void *src, size_t bytes);
igemm_status igemm_copy_to_host(igemm_handle *h, void *dst, const void *src, size_t bytes);

/* ---- solutions ---------------------------------------------------------- */

/* The number of kernel configurations this library knows and the name of
 * the i-th ("naive", "igemm_bwd_v4r1_fma_fp32_nchw_128x128x8_t256", ...; `igemm
 * solutions` prints them with tile, math, type and layout); NULL when i is
 * out of range. */
int igemm_solution_count(void);
const char *igemm_solution_name(int i);

/* Can configuration `solution` (NULL: any) compute p on this handle's
 * target? IGEMM_OK, or with the reason in why:
 *   IGEMM_ERR_INVALID_ARG     NULL handle or problem, invalid sizes, unknown solution
 *   IGEMM_ERR_UNSUPPORTED     layout or data type this version does not do
 *   IGEMM_ERR_NOT_APPLICABLE  the configuration (every one, for NULL) refuses p */
igemm_status igemm_applicable(igemm_handle *h, const igemm_problem *p, const char *solution, char *why,
                              size_t why_len);

/* The configuration igemm_conv_bwd_data would run: the performance
 * database's record for (target, p) when it names an applicable
 * configuration, else the heuristic's pick. Writes its name to solution
 * (len bytes). Errors as igemm_applicable (message in igemm_last_error), and
 * IGEMM_ERR_INVALID_ARG when the name does not fit len bytes (nothing is
 * written; the message says how many it needs). */
igemm_status igemm_select(igemm_handle *h, const igemm_problem *p, char *solution, size_t len);

/* The timing model's memory view of a run's launches, summed (emulator;
 * docs/TIMING.md "What --stats prints"; all 0 when a launch was not timed):
 * the cache lines the vector memory instructions touch, in bytes, and the
 * bytes their lanes ask for, for loads and stores (line / useful: 1.00 when
 * every line touched is wholly used); L1 lookups and hits (load lines); L2
 * lines read and hits; HBM bytes (L2 misses and write-backs); LDS pipe
 * cycles and their count without bank conflicts. */
typedef struct {
    uint64_t line_loaded, useful_loaded, line_stored, useful_stored;
    uint64_t l1_lookups, l1_hits, l2_reads, l2_hits, hbm_bytes;
    uint64_t lds_cycles, lds_ideal;
} igemm_memory_view;

/* One launch of a run as the timing model saw it (emulator; all 0 when the
 * launch was not timed): its kernel, workgroups and workgroup size, modeled
 * time (its dispatch included) and the resource the model found busiest,
 * as igemm_run_info.limit names them. */
typedef struct {
    char kernel[96];
    unsigned grid, block;
    double modeled_us;
    char limit[12];
} igemm_launch_time;

/* Launches whose igemm_launch_time a run keeps (the first ones, in launch
 * order; igemm_run_info.launches counts them all). */
#define IGEMM_RUN_LAUNCHES 8

/* What a run did. */
typedef struct {
    char solution[96];
    int launches;
    double ms;            /* HIP with igemm_options.timing: event-timed duration of the
                             call's launches on the stream; else 0 */
    uint64_t cycles;      /* emulator: modeled issue cycles (docs/EMULATOR.md) */
    uint64_t insts;       /* emulator: wave instructions */
    uint64_t valu_cycles, fma_cycles, loop_valu_cycles, loop_fma_cycles;
    uint64_t global_bytes, lds_bytes;
    char source[16];      /* who chose the solution: "user", "perfdb" or "heuristic" */
    char kernels[512];    /* the distinct kernels launched, comma-separated */
    /* emulator: the timing model (docs/TIMING.md), all launches one after
       another; modeled_us is 0 when a launch could not be timed */
    double modeled_us;
    uint64_t modeled_cycles;
    uint64_t modeled_busy[4]; /* busy cycles: vector ALU, matrix, LDS, memory */
    char limit[12];       /* "compute", "matrix", "LDS", "memory" or "latency" */
    igemm_memory_view memory; /* emulator: the model's memory view (above) */
    /* emulator: each launch on its own (the first IGEMM_RUN_LAUNCHES): where
       a multi-launch plan's time goes (a split's GEMM and reduction, a zero
       fill, a copy of w); their modeled_us add up to modeled_us above */
    igemm_launch_time launch[IGEMM_RUN_LAUNCHES];
} igemm_run_info;

/* dx = backward data of (dy, w) with the selected configuration.
 * Buffers: device memory (HIP) or host memory (emulator), in p's layout
 * and data type (2 bytes an element for fp16 and bf16). On
 * HIP the kernels are queued on the handle's stream and the call returns
 * without waiting for them (see "Synchronisation" at the top; a kernel
 * fault shows in a later synchronising call). dx is written completely,
 * pixels no filter tap reaches included (they become 0), bitwise the same
 * on every run ("Determinism").
 * Errors: IGEMM_ERR_INVALID_ARG (NULL argument, invalid problem, a tensor
 * running past the end of its igemm_alloc buffer),
 * IGEMM_ERR_UNSUPPORTED, IGEMM_ERR_NOT_APPLICABLE (no configuration applies;
 * the message gives each one's reason), IGEMM_ERR_BACKEND (a HIP call
 * failed), IGEMM_ERR_EMU_FAULT (the emulator stopped: fault, strictness
 * report), IGEMM_ERR_NO_CODE_OBJECT (a kernel is missing), IGEMM_ERR_NO_MEMORY. */
igemm_status igemm_conv_bwd_data(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w);

/* The same with an explicit configuration (NULL: select) and a report
 * (info may be NULL). */
igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info);

/* ---- find mode ---------------------------------------------------------- */

/* One configuration as find mode measured it. */
typedef struct {
    char solution[96];
    igemm_status status;  /* IGEMM_OK, or why this configuration failed to run */
    double cost;          /* HIP: milliseconds (best of 3 timed runs after a warm-up);
                             emulator: modeled time in cycles (docs/TIMING.md), or the
                             issue cycles when the timing model could not time it */
    const char *unit;     /* "ms" or "cycles" */
    int launches;
} igemm_perf;

/* Find mode: run every configuration that applies to p on this handle
 * (the naive kernel only where the heuristic's model gives it a chance:
 * grouped and depthwise problems of a few channels a group, or when nothing
 * else applies), measure each (see igemm_perf.cost), and remember the best: in the handle
 * (igemm_select then returns it) and, when the handle has a perfdb file, as
 * a record of that file (written atomically; records of other targets and
 * problems are kept). dx, dy and w are buffers as for igemm_conv_bwd_data;
 * on return dx holds the result (every configuration computes the same dx).
 * On the emulator with the timing model on, each measurement runs only the
 * workgroups the model traces (its cost is exactly a whole run's; faults
 * of the other workgroups go unseen), and the best runs whole at the end:
 * find there takes a few whole runs' time, not one per configuration.
 *
 * results (may be NULL when max_results is 0) receives up to max_results
 * entries, fastest first, configurations that failed last; *count (may be
 * NULL) the number of configurations tried. Returns IGEMM_OK when at least
 * one configuration ran; IGEMM_ERR_INVALID_ARG / _UNSUPPORTED /
 * _NOT_APPLICABLE as igemm_conv_bwd_data; the first failure's status when
 * none ran; IGEMM_ERR_IO when the measurements succeeded but the database
 * file could not be written (results and the in-handle record are valid). */
igemm_status igemm_find(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w,
                        igemm_perf *results, int max_results, int *count);

/* ---- embedding: code objects and launch plans ---------------------------- */

/* The code objects compiled into the library: count, and the i-th target
 * name, ELF image and size (the same bytes as <arch>.hsaco of the build).
 * igemm_codeobj_get returns IGEMM_ERR_INVALID_ARG for i out of range. */
int igemm_codeobj_count(void);
igemm_status igemm_codeobj_get(int i, const char **arch, const void **image, size_t *size);

/* One kernel launch of a plan. To launch it yourself (hipModuleLaunchKernel
 * on the code object of the handle's target): for each buffer t (0 dx, 1 dy,
 * 2 w, 3 the workspace: IGEMM_LAUNCH_WORKSPACE) with ptr_offset[t] >= 0,
 * store the 64-bit address base_t + ptr_add[t] at args + ptr_offset[t];
 * pass args_size bytes of args as the kernel argument buffer
 * (HIP_LAUNCH_PARAM_BUFFER_POINTER); grid counts workgroups, block
 * work-items. Launches must run in order.
 *
 * The workspace: a solution that splits GEMM K (names ending _ks2, _ks4,
 * _ks8) writes fp32 partial sums to a device buffer of its own and sums
 * them into dx in a fixed order (deterministic: the same bits on every
 * run). igemm_conv_bwd_data* allocate it themselves through the handle's
 * backend, keep it on the handle for later calls (grown when a call needs
 * more) and free it in igemm_destroy; an embedder running the launches of
 * igemm_get_launches provides it (igemm_get_workspace_size bytes, no
 * initial contents needed, not shared by launches in flight at once). */
#define IGEMM_LAUNCH_WORKSPACE 3
typedef struct {
    char kernel[128];
    unsigned grid[3];
    unsigned block[3];
    unsigned char args[1024];
    size_t args_size;
    int ptr_offset[4];
    uint64_t ptr_add[4];
} igemm_launch;

/* The workspace bytes the launches of igemm_conv_bwd_data_ex(h, p,
 * solution, ...) need (0: none) into *bytes; errors as igemm_get_launches. */
igemm_status igemm_get_workspace_size(igemm_handle *h, const igemm_problem *p, const char *solution, size_t *bytes);

/* The launches igemm_conv_bwd_data_ex(h, p, solution, ...) would make (no
 * kernel runs; an emulator handle plans for its --arch target offline).
 * With launches == NULL only *count is set. Errors as igemm_select, and
 * IGEMM_ERR_INVALID_ARG when max is smaller than the plan (*count says how
 * many are needed). */
igemm_status igemm_get_launches(igemm_handle *h, const igemm_problem *p, const char *solution,
                                igemm_launch *launches, int max, int *count);

#ifdef __cplusplus
}
#endif
#endif
