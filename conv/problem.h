/* Convolution problem: validation, derived sizes and the v4r1 decomposition.
 *
 * Shared by the runtime (kernel arguments, selection), the generator (static
 * twins bake these values in) and the tools. Pure functions of the problem,
 * no device state. */
#ifndef IGEMM_PROBLEM_H
#define IGEMM_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"
#include "types.h"
#include "util.h"

/* One spatial dimension of the v4r1 backward-data formulation
 * (docs: ../shared/docs/DESIGN.md section 2). */
typedef struct {
    int in;          /* Hi */
    int out;         /* Ho */
    int filter;      /* Y */
    int stride;      /* S */
    int dilation;    /* D */
    int pad;         /* P */
    int gcd;         /* gcd(S, D) */
    int tilda;       /* YTilda = S / gcd: number of phases */
    int dot;         /* YDot = ceil(Y / YTilda) */
    int dil_step;    /* D / gcd: ho moves back by this per ydot */
    int tilda_len;   /* HTilda = Ho + ceil(D*(Y-1) / S) */
    int tilda_left;  /* HTildaLeft */
    int tilda_right; /* HTildaRight */
    int slice;       /* HTildaSlice = right - left (may be <= 0: nothing to do) */
} igemm_dim;

/* Everything a kernel or the selection needs to know about a problem. */
typedef struct {
    igemm_problem p;
    igemm_direction dir; /* what it computes (conv/types.h): igemm_shape_init's are backward data */
    int ho, wo;
    int cg, kg;          /* channels per group of dx (C/G) and dy (K/G) */
    igemm_dim h, w;
    int64_t dx_image, dy_image; /* elements per image: C*Hi*Wi and K*Ho*Wo */
    int64_t dx_elems, dy_elems, w_elems;
    int64_t flops;       /* useful FLOPs: 2 * N * Cg * K * Ho * Wo * Y * X */
    int full_coverage;   /* 1 when the non-empty phase GEMMs write every dx pixel */
    int tilda_coverage;  /* 1 when all YTilda x XTilda phases do, the empty ones
                            (no filter tap: stride / gcd > filter) storing zeros */
} igemm_shape;

/* Per-phase GEMM sizes. */
typedef struct {
    int iy, ix;          /* phase (iYTilda, iXTilda) */
    int ydot_slice;      /* ceil((Y - iy) / YTilda), <= 0 means empty */
    int xdot_slice;
    int64_t gemm_m;      /* C / G */
    int64_t gemm_n;      /* N * HTildaSlice * WTildaSlice */
    int64_t gemm_k;      /* K / G * YDotSlice * XDotSlice */
} igemm_phase;

/* Validate a problem. Returns IGEMM_OK or IGEMM_ERR_INVALID_ARG /
 * IGEMM_ERR_UNSUPPORTED with a one-line reason in why. */
igemm_status igemm_shape_init(igemm_shape *s, const igemm_problem *p, char *why, size_t why_len);

/* Number of phases (YTilda * XTilda) and phase i's GEMM (i in row-major order). */
int igemm_phase_count(const igemm_shape *s);
igemm_phase igemm_phase_get(const igemm_shape *s, int i);

/* Greatest common divisor of a, b >= 1. */
int igemm_gcd(int a, int b);

/* Output size of a convolution dimension; < 1 means the problem is invalid. */
int igemm_out_size(int in, int filter, int stride, int dilation, int pad);

/* Magic numbers for unsigned division by a runtime divisor d (1 <= d < 2^31):
 * q = (mulhi(magic, n) + n) >> shift, exact for every n < 2^31. */
typedef struct {
    uint32_t magic;
    uint32_t shift;
} igemm_magic;

igemm_magic igemm_magic_for(uint32_t d);
uint32_t igemm_magic_div(igemm_magic m, uint32_t n);

/* Parse a MIOpenDriver-style argument list, the command word first or
 * left out: "conv" (fp32, also the default), "convfp16" or "convbfp16" set
 * p->dtype. Besides MIOpenDriver's flags: --fp16_mode accurate|flush|alt
 * (igemm_fp16_mode). Fills p; returns 0, or -1 with a one-line reason. */
int igemm_problem_parse_args(igemm_problem *p, int argc, char **argv, char *why, size_t why_len);
/* The same for any direction: every MIOpenDriver conv flag
 * (conv/driver_flags.h; a leading MIOpenDriver word is skipped, driver
 * options and flags with no effect are accepted and ignored), -F's value in
 * *forw (2 when not given). igemm_problem_parse_args refuses a direction
 * without backward data. */
int igemm_problem_parse_args_forw(igemm_problem *p, int argc, char **argv, int *forw, char *why, size_t why_len);
/* Parse one line of a shape list ("conv -n 1 -c 3 ... -F 2  # comment"; a
 * logged line's words up to a MIOpenDriver word (MIOpenDriver.exe too) are
 * left out, and so are quote characters and leading environment
 * assignments). Returns 1 for a problem, 0 for a blank/comment line, 2 for a
 * problem of another direction (-F 1, 4, 5; why says so), 3 for a line that
 * is no convolution command (log text, another MIOpenDriver command; why
 * says so), -1 on error. */
int igemm_problem_parse_line(igemm_problem *p, const char *line, char *why, size_t why_len);
/* Format as MIOpenDriver arguments: "-n 1 -c 3 -H 5 ..." (the data type is
 * the command word's: igemm_problem_command). */
void igemm_problem_format(const igemm_problem *p, char *buf, size_t len);
/* MIOpenDriver's command word for p's data type: "conv", "convfp16", "convbfp16". */
const char *igemm_problem_command(const igemm_problem *p);

/* Read a shape list or a raw MIOpen log: every problem line
 * (igemm_problem_parse_line), its -n
 * replaced by batch unless batch is 0, checked by igemm_problem_check. On
 * IGEMM_OK *probs (malloc'd) holds the *n >= 1 problems in file order and,
 * when comments is not NULL, *comments (malloc'd, *n malloc'd strings) the
 * text after the "#" of each problem's line ("" when none). Otherwise
 * nothing is allocated and why says "PATH:LINE: reason", "PATH holds no
 * problems" (IGEMM_ERR_INVALID_ARG), that the file cannot be read
 * (IGEMM_ERR_IO) or IGEMM_ERR_NO_MEMORY. Lines of other directions are
 * left out; skip (may be NULL) is called for each with its line number and
 * the reason. A file with "MIOpen" on any line is a log: there lines that
 * are no convolution command are left out silently (counted in
 * *not_commands when not NULL) and command lines igemm cannot run are
 * skipped like other directions, with the reason. */
typedef void (*igemm_list_skip)(void *ctx, const char *path, int line, const char *why);
igemm_status igemm_problem_read_list(const char *path, int batch, igemm_problem **probs, int *n, char ***comments,
                                     igemm_list_skip skip, void *skip_ctx, char *why, size_t why_len);
igemm_status igemm_problem_read_log(const char *path, int batch, igemm_problem **probs, int *n, char ***comments,
                                    igemm_list_skip skip, void *skip_ctx, int *not_commands, char *why,
                                    size_t why_len);

/* Test data: n floats uniform in [-1, 1) from the splitmix64 sequence after
 * state seed; returns the state to continue the sequence from
 * (conv/reference.c). */
uint64_t igemm_fill_random(float *v, size_t n, uint64_t seed);
/* The same sequence into n elements of data type d, each value rounded to
 * nearest even in d's format (fp32: igemm_fill_random). */
uint64_t igemm_fill_random_dtype(void *v, size_t n, igemm_dtype d, uint64_t seed);

#endif
