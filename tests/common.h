/* Shared test helpers, linked into every suite: code objects and kernel
 * snippets (assembled with llvm-mc at test time) on the emulator, text
 * helpers, the library on the emulator against the reference, shape lists,
 * and the CLI in a child process. Helpers that say they fail the test do so
 * through cmocka; the others return an error.
 *
 * LLVM_BIN and BUILD_DIR are compile-time strings set by the Makefile. */
#ifndef IGEMM_TESTS_COMMON_H
#define IGEMM_TESTS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../emu/emu.h"

/* The targets the build makes code objects for, as a C initializer list
 * (the Makefile passes TC_ARCH_LIST from its TARGETS). */
#ifndef TC_ARCH_LIST
#error "TC_ARCH_LIST: build the tests through the Makefile"
#endif
#define TC_NARCH(list) ((int)(sizeof list / sizeof list[0]))
#include "../include/igemm.h"
#include "../conv/util.h" /* read_file */

/* ---- code objects and snippets on the emulator ---- */

/* Path of the project's code object for a target (BUILD_DIR/co/<arch>.hsaco). */
const char *tc_codeobj_path(const char *arch, char *buf, size_t len);

/* Run a shell command line that sends its messages to logfile; on failure
 * returns -1 with "cmd: <the log>" in err (cut to errlen). */
int tc_system(const char *cmd, const char *logfile, char *err, size_t errlen);

/* An emulator device with one code object loaded. */
typedef struct {
    emu_device *d;
    emu_module *m;
} tc_loaded;

/* Load a code object on a new emulator device for arch with host_threads
 * worker threads (as emu_options.threads). Returns 0, or -1 with the reason
 * in err and nothing to free. */
int tc_load_image(tc_loaded *l, const char *arch, int host_threads, const void *image, size_t size, char *err,
                  size_t errlen);

/* The same with every emulator option given (the timing model's too). */
int tc_load_image_opts(tc_loaded *l, const char *arch, const emu_options *o, const void *image, size_t size,
                       char *err, size_t errlen);

/* The build's code object for arch (tc_codeobj_path) on a new device with
 * one worker thread; fails the test when it cannot be read or loaded. */
tc_loaded tc_load_codeobj(const char *arch);

void tc_unload(tc_loaded *l);

/* A snippet kernel: `body` is assembly placed after the kernel label; the
 * wrapper adds the descriptor (kernarg pointer in s[0:1], workgroup id x in
 * s2, workitem id in v0), s_endpgm and metadata for one kernel named
 * "snippet" with `nptrs` 8-byte pointer arguments p0..p(n-1). */
typedef struct {
    const char *arch;     /* gfx906 ... gfx942 */
    const char *body;
    int vgprs, agprs, sgprs, lds_bytes;
    int nptrs;            /* at most 16 */
    int host_threads;     /* emulator worker threads for the run (0: 1) */
    emu_hazard_mode hazards; /* emu_options.hazards for the run */
    bool timing;          /* run with the timing model on (emu_options.timing) */
    int num_cu;           /* the timing model's CU count (0: the target's) */
    bool timing_only;     /* run only the traced workgroups (emu_options.timing_only) */
    const char *timeline; /* emu_options.timeline: the model's issue timeline file, or NULL */
} tc_snippet;

/* The usual start of a body with two pointers: s[4:5] = p0, s[6:7] = p1,
 * v1 = 4 * work-item id. */
#define TC_PRELUDE                                                                                                     \
    "    s_load_dwordx4 s[4:7], s[0:1], 0x0\n"                                                                         \
    "    s_waitcnt lgkmcnt(0)\n"                                                                                       \
    "    v_lshlrev_b32 v1, 2, v0\n"

/* Assemble and link a snippet into a code object (malloc'd). On failure
 * returns NULL and puts the assembler's message in err. */
void *tc_assemble(const tc_snippet *s, size_t *size, char *err, size_t errlen);

/* Assemble any complete .s source for arch into a code object. */
void *tc_assemble_source(const char *arch, const char *source, size_t *size, char *err, size_t errlen);

/* Load a snippet's code object (from tc_assemble) and launch it: `groups`
 * workgroups of `threads` work-items. ptrs[i] are host buffers of sizes[i]
 * bytes, registered for the run (a NULL one is passed as 0). Returns 0, or
 * -1 with the emulator's report (load or launch) in err. */
int tc_launch_image(const tc_snippet *s, const void *image, size_t size, unsigned groups, unsigned threads,
                    void **ptrs, const size_t *sizes, emu_stats *stats, char *err, size_t errlen);

/* tc_assemble, then tc_launch_image. Returns 0, or -1 with the assembler's
 * or the emulator's report in err. */
int tc_run(const tc_snippet *s, unsigned groups, unsigned threads, void **ptrs, const size_t *sizes,
           emu_stats *stats, char *err, size_t errlen);

/* Address and llvm-objdump text (whitespace normalized) of the instruction
 * at `label` in a code object's .text; fails the test when there is none. */
void tc_locate_label(const void *image, size_t size, const char *arch, const char *label, uint64_t *pc, char *text,
                     size_t tlen);

/* A cmocka teardown for tests that take the emulator's baseline host paths
 * (emu_host_simd(false)): the fast paths back on, also after a failed
 * assertion. */
int tc_host_simd_on(void **state);

/* ---- text ---- */

/* Collapse whitespace runs to one space and trim both ends, in place (to
 * compare disassembly text). */
void tc_normalize(char *s);

/* A growing string: `tc_sbuf b = {0};`, tc_put(&b, ...) appends (b.s stays
 * NUL-terminated), free(b.s) when done. Fails the test when out of memory. */
typedef struct {
    char *s;
    size_t len, cap;
} tc_sbuf;

void tc_put(tc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fails the test unless text (may be NULL) contains needle. */
void tc_expect_contains(const char *text, const char *needle);

/* ---- the library on the emulator ---- */

/* An emulator handle for arch (perfdb as igemm_options.perfdb, threads as
 * emu_threads); fails the test unless it is created and reports that arch
 * and the emulator backend. */
igemm_handle *tc_emu_handle(const char *arch, const char *perfdb, int threads);

/* splitmix64: the next value of the sequence seeded by *s. */
uint64_t tc_splitmix64(uint64_t *s);

/* n uniform floats in [-1, 1) from splitmix64 seeded by seed (the tests' own
 * data, independent of the data the library or the CLI generate). */
void tc_fill_uniform(float *v, size_t n, uint64_t seed);

/* The relative error limit of tc_run_case: error / sum of |terms|. */
#define TC_REL_TOL 1e-5

/* What tc_run_case ran and found. */
typedef struct {
    igemm_run_info ri;
    double max_rel;
    int64_t holes; /* dx pixels with no term (all came out exactly 0) */
} tc_case_result;

/* Run p with `solution` (NULL: the library's choice) on h, dy and w filled
 * from data_seed (in p's data type: fp32 values rounded to nearest even for
 * fp16/bf16) and dx prefilled with NaN, and compare with the float64
 * reference: every covered pixel within TC_REL_TOL of sum |terms| (plus half
 * an ulp of the 16-bit format at the reference for fp16/bf16), no NaN/Inf,
 * every uncovered pixel exactly 0, by the rule spelled out here and by
 * igemm_verify_ex (both must pass). Also checks igemm_applicable accepts the
 * pair and that the run info names what ran. On a HIP handle dx comes back
 * with igemm_copy_to_host right after the call (no other synchronisation). Returns 0, or -1 with the
 * reason in msg. */
int tc_run_case(igemm_handle *h, const igemm_problem *p, const char *solution, uint64_t data_seed,
                tc_case_result *res, char *msg, size_t len);

/* tc_run_case with special values in dy and/or w (TC_SPECIALS_DY,
 * TC_SPECIALS_W): +-Inf, NaN and the type's smallest subnormal (none when
 * the problem flushes or with TC_SPECIALS_NORMAL), or with TC_SPECIALS_BIG the largest finite values
 * of both signs and the subnormal, at positions drawn from data_seed, once
 * per 512 elements. The reference's NaN and Inf
 * must come out exactly where it has them; a finite reference may give an
 * infinity only where the result may round past the format, or where the
 * fp32 sum of its terms may overflow on the way (sum |terms| > FLT_MAX:
 * then Inf or NaN). */
enum { TC_SPECIALS_DY = 1, TC_SPECIALS_W = 2, TC_SPECIALS_BIG = 4, TC_SPECIALS_NORMAL = 8 };
int tc_run_case_ex(igemm_handle *h, const igemm_problem *p, const char *solution, uint64_t data_seed,
                   unsigned specials, tc_case_result *res, char *msg, size_t len);

/* ---- shape lists ---- */

#define TC_MAX_SHAPES 64

typedef struct {
    igemm_problem p;
    char text[256]; /* "-n 1 -c 1 ...", for messages */
} tc_shape;

typedef struct {
    tc_shape s[TC_MAX_SHAPES];
    int n;
    char path[256]; /* the file it was read from */
} tc_shape_list;

/* Read a shape list with the library's line parser: ../shared/shapes/<file>
 * (beside the repository, as on the project's machines and CI), else the
 * vendored tests/shapes/<file>. Returns 0, or -1 with the reason on stderr
 * (for a group setup). */
int tc_load_shapes(tc_shape_list *l, const char *file);

/* The vendored tests/shapes/<file> must exist and, when ../shared/shapes/
 * has the file, be identical to it. Fails the test otherwise. */
void tc_expect_same_as_shared(const char *file);

/* ---- the CLI (BUILD_DIR/bin/igemm) as a user runs it ---- */

typedef struct {
    int status;      /* exit status, or -N when killed by signal N */
    char *out, *err; /* all it wrote to stdout and to stderr (malloc'd) */
    char cmd[1024];  /* the command line, for messages */
} tc_result;

/* Run igemm with the NULL-terminated argument list (argv[0] left out) in a
 * child process, stdin /dev/null, stdout and stderr captured apart. Fails
 * the test when igemm cannot be run. */
void tc_run_igemm(tc_result *r, const char *const *args);

/* Conditions for tc_run_igemm_ex (0 / NULL: none). */
typedef struct {
    const char *stdout_path;  /* stdout goes to this file (/dev/full) instead */
    unsigned timeout_s;       /* killed by SIGALRM after this (status -14) */
    unsigned long fsize;      /* RLIMIT_FSIZE: writes past it fail with EFBIG */
    unsigned long as_bytes;   /* RLIMIT_AS: allocations past it fail */
} tc_limits;

void tc_run_igemm_ex(tc_result *r, const char *const *args, const tc_limits *lim);
void tc_result_free(tc_result *r);

/* s is exactly one non-empty line, ending in a newline. */
bool tc_one_line(const char *s);

#endif
