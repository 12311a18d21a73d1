/* Problem validation, derived sizes, v4r1 phases and magic division. */
#include "problem.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_flags.h"
#include "types.h"


int igemm_gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

int igemm_out_size(int in, int filter, int stride, int dilation, int pad)
{
    /* in 64 bits: any int inputs (INT_MIN filter sizes included) */
    if (in < 1 || filter < 1 || stride < 1 || dilation < 1 || pad < 0)
        return 0;
    int64_t span = (int64_t)in + 2 * (int64_t)pad - (int64_t)dilation * ((int64_t)filter - 1) - 1;
    if (span < 0 || span / stride + 1 > INT_MAX)
        return 0;
    return (int)(span / stride + 1);
}

/* The public output sizes are 0 for every invalid problem. */
int igemm_problem_ho(const igemm_problem *p)
{
    return igemm_problem_check(p, NULL, 0) == IGEMM_OK
               ? igemm_out_size(p->hi, p->y, p->stride_h, p->dil_h, p->pad_h)
               : 0;
}

int igemm_problem_wo(const igemm_problem *p)
{
    return igemm_problem_check(p, NULL, 0) == IGEMM_OK
               ? igemm_out_size(p->wi, p->x, p->stride_w, p->dil_w, p->pad_w)
               : 0;
}

/* Tensors are indexed with 32-bit element counts inside a launch and with
 * 64-bit sizes on the host; one dimension stays below 2^24 so products of
 * two of them never overflow int64 and every kernel-side index fits. */
#define MAX_DIM (1 << 24)

/* Is the product of n factors (each >= 1) above limit? Checked factor by
 * factor: four sizes below 2^25 can already overflow int64. */
static int product_exceeds(int64_t limit, int n, const int *f)
{
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        if (prod > limit / f[i])
            return 1;
        prod *= f[i];
    }
    return 0;
}
#define PRODUCT_EXCEEDS(limit, ...) \
    product_exceeds(limit, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

igemm_status igemm_problem_check(const igemm_problem *p, char *why, size_t why_len)
{
    if (!p) {
        why_printf(why, why_len, "problem is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    struct {
        const char *name;
        int v;
    } pos[] = {
        {"n (batch)", p->n},       {"c (input channels)", p->c}, {"H (input height)", p->hi},
        {"W (input width)", p->wi}, {"k (output channels)", p->k}, {"y (filter height)", p->y},
        {"x (filter width)", p->x}, {"u (stride height)", p->stride_h}, {"v (stride width)", p->stride_w},
        {"l (dilation height)", p->dil_h}, {"j (dilation width)", p->dil_w}, {"g (groups)", p->groups},
    };
    for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
        if (pos[i].v < 1) {
            why_printf(why, why_len, "%s must be >= 1, got %d", pos[i].name, pos[i].v);
            return IGEMM_ERR_INVALID_ARG;
        }
        if (pos[i].v >= MAX_DIM) {
            why_printf(why, why_len, "%s = %d is too large (limit %d)", pos[i].name, pos[i].v, MAX_DIM - 1);
            return IGEMM_ERR_INVALID_ARG;
        }
    }
    if (p->pad_h < 0 || p->pad_w < 0) {
        why_printf(why, why_len, "padding must be >= 0, got p=%d q=%d", p->pad_h, p->pad_w);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (p->pad_h >= MAX_DIM || p->pad_w >= MAX_DIM) {
        why_printf(why, why_len, "padding p=%d q=%d is too large", p->pad_h, p->pad_w);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (p->c % p->groups || p->k % p->groups) {
        why_printf(why, why_len, "groups g=%d must divide c=%d and k=%d", p->groups, p->c, p->k);
        return IGEMM_ERR_INVALID_ARG;
    }
    int ho = igemm_out_size(p->hi, p->y, p->stride_h, p->dil_h, p->pad_h);
    int wo = igemm_out_size(p->wi, p->x, p->stride_w, p->dil_w, p->pad_w);
    if (ho < 1 || wo < 1) {
        why_printf(why, why_len,
            "output size %dx%d < 1: H=%d W=%d with filter %dx%d, pad %d,%d, dilation %d,%d",
            ho, wo, p->hi, p->wi, p->y, p->x, p->pad_h, p->pad_w, p->dil_h, p->dil_w);
        return IGEMM_ERR_INVALID_ARG;
    }
    /* dx, dy and w element counts; the last bounds the FLOP count (2 * this). */
    const char *big = NULL;
    int lim = 0;
    if (PRODUCT_EXCEEDS(INT64_C(1) << 40, p->n, p->c, p->hi, p->wi))
        big = "dx (n*c*H*W elements)", lim = 40;
    else if (PRODUCT_EXCEEDS(INT64_C(1) << 40, p->n, p->k, ho, wo))
        big = "dy (n*k*Ho*Wo elements)", lim = 40;
    else if (PRODUCT_EXCEEDS(INT64_C(1) << 31, p->k, p->c / p->groups, p->y, p->x))
        big = "w (k*c/g*y*x elements)", lim = 31;
    else if (PRODUCT_EXCEEDS(INT64_C(1) << 61, p->n, p->k, ho, wo, p->c / p->groups, p->y, p->x))
        big = "the work (n*k*Ho*Wo*c/g*y*x multiply-adds)", lim = 61;
    if (big) {
        why_printf(why, why_len, "tensors too large: %s exceeds the limit of 2^%d (n=%d c=%d H=%d W=%d k=%d y=%d x=%d "
                                 "g=%d, Ho=%d Wo=%d)",
                   big, lim, p->n, p->c, p->hi, p->wi, p->k, p->y, p->x, p->groups, ho, wo);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (p->layout != IGEMM_LAYOUT_NCHW && p->layout != IGEMM_LAYOUT_NHWC) {
        why_printf(why, why_len, "layout %d is not NCHW or NHWC", (int)p->layout);
        return IGEMM_ERR_UNSUPPORTED;
    }
    if (!igemm_dtype_get(p->dtype)) {
        why_printf(why, why_len, "data type %d is not fp32, fp16 or bf16", (int)p->dtype);
        return IGEMM_ERR_UNSUPPORTED;
    }
    if (!igemm_fp16_mode_name(p->fp16_mode)) {
        why_printf(why, why_len,
                   "fp16_mode %d is not IGEMM_FP16_ACCURATE (0), IGEMM_FP16_FLUSH (1) or IGEMM_FP16_ALT (2)",
                   (int)p->fp16_mode);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (p->fp16_mode != IGEMM_FP16_ACCURATE && p->dtype != IGEMM_FP16) {
        why_printf(why, why_len, "fp16_mode %s applies to fp16 problems, this one is %s",
                   igemm_fp16_mode_name(p->fp16_mode), igemm_dtype_get(p->dtype)->name);
        return IGEMM_ERR_INVALID_ARG;
    }
    return IGEMM_OK;
}

static igemm_dim dim_init(int in, int out, int filter, int stride, int dilation, int pad)
{
    igemm_dim d = {.in = in, .out = out, .filter = filter, .stride = stride, .dilation = dilation, .pad = pad};
    d.gcd = igemm_gcd(stride, dilation);
    d.tilda = stride / d.gcd;
    d.dot = ceil_div(filter, d.tilda);
    d.dil_step = dilation / d.gcd;
    d.tilda_len = out + ceil_div(dilation * (filter - 1), stride);
    int left_num = pad - dilation * (d.tilda - 1);
    d.tilda_left = left_num > 0 ? left_num / stride : 0;
    int right = ceil_div(pad + in - 1, stride) + 1;
    d.tilda_right = right < d.tilda_len ? right : d.tilda_len;
    d.slice = d.tilda_right - d.tilda_left;
    return d;
}

/* Does every input position of one dimension lie in some phase's tilda
 * slice? Counting only the non-empty phases (empty = false: iy < filter):
 * then the phase GEMMs write it; counting every phase (empty = true: the
 * kernel's empty phases store zeros): then the kernel writes all of dx
 * itself. Otherwise dx must be zeroed first. */
static int dim_covered(const igemm_dim *d, bool empty)
{
    if (d->slice <= 0)
        return 0;
    for (int i = 0; i < d->in; i++) {
        int hit = 0;
        /* phases past the filter are empty: at most min(tilda, filter) steps */
        for (int ph = 0; ph < d->tilda && (empty || ph < d->filter) && !hit; ph++) {
            int num = i + d->pad - ph * d->dilation;
            if (num < 0 || num % d->stride)
                continue;
            int t = num / d->stride;
            hit = t >= d->tilda_left && t < d->tilda_right;
        }
        if (!hit)
            return 0;
    }
    return 1;
}

igemm_status igemm_shape_init(igemm_shape *s, const igemm_problem *p, char *why, size_t why_len)
{
    igemm_status st = igemm_problem_check(p, why, why_len);
    if (st != IGEMM_OK)
        return st;
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->dir = IGEMM_DIR_BWD_DATA; /* the sizes below are the v4r1 backward-data decomposition's */
    s->ho = igemm_out_size(p->hi, p->y, p->stride_h, p->dil_h, p->pad_h);
    s->wo = igemm_out_size(p->wi, p->x, p->stride_w, p->dil_w, p->pad_w);
    s->cg = p->c / p->groups;
    s->kg = p->k / p->groups;
    s->h = dim_init(p->hi, s->ho, p->y, p->stride_h, p->dil_h, p->pad_h);
    s->w = dim_init(p->wi, s->wo, p->x, p->stride_w, p->dil_w, p->pad_w);
    s->dx_image = (int64_t)p->c * p->hi * p->wi;
    s->dy_image = (int64_t)p->k * s->ho * s->wo;
    s->dx_elems = p->n * s->dx_image;
    s->dy_elems = p->n * s->dy_image;
    s->w_elems = (int64_t)p->k * s->cg * p->y * p->x;
    s->flops = 2 * (int64_t)p->n * s->cg * p->k * s->ho * s->wo * p->y * p->x;
    s->full_coverage = dim_covered(&s->h, false) && dim_covered(&s->w, false);
    s->tilda_coverage = dim_covered(&s->h, true) && dim_covered(&s->w, true);
    return IGEMM_OK;
}

int igemm_phase_count(const igemm_shape *s) { return s->h.tilda * s->w.tilda; }

igemm_phase igemm_phase_get(const igemm_shape *s, int i)
{
    igemm_phase ph = {0};
    ph.iy = i / s->w.tilda;
    ph.ix = i % s->w.tilda;
    int yrem = s->p.y - ph.iy, xrem = s->p.x - ph.ix;
    ph.ydot_slice = yrem > 0 ? ceil_div(yrem, s->h.tilda) : 0;
    ph.xdot_slice = xrem > 0 ? ceil_div(xrem, s->w.tilda) : 0;
    ph.gemm_m = s->cg;
    ph.gemm_n = (int64_t)s->p.n * (s->h.slice > 0 ? s->h.slice : 0) * (s->w.slice > 0 ? s->w.slice : 0);
    ph.gemm_k = (int64_t)s->kg * ph.ydot_slice * ph.xdot_slice;
    return ph;
}

igemm_magic igemm_magic_for(uint32_t d)
{
    igemm_magic m = {1, 0};
    if (d <= 1)
        return m;
    uint32_t shift = 0;
    while ((UINT64_C(1) << shift) < d)
        shift++;
    uint64_t magic = ((UINT64_C(1) << 32) * ((UINT64_C(1) << shift) - d)) / d + 1;
    m.magic = (uint32_t)magic;
    m.shift = shift;
    return m;
}

uint32_t igemm_magic_div(igemm_magic m, uint32_t n)
{
    uint32_t hi = (uint32_t)(((uint64_t)m.magic * n) >> 32);
    return (hi + n) >> m.shift;
}

/* ---- MIOpenDriver argument parsing ---- */

static int parse_int(const char *s, int *out)
{
    long v;
    if (parse_long(s, INT_MIN, INT_MAX, &v))
        return -1;
    *out = (int)v;
    return 0;
}

/* The layout flags' tensors, for messages (driver_flags.c: field 0..2). */
static const char *const layout_what[3] = {"input (dx)", "output (dy)", "filter"};

static int parse_layout(const char *s, igemm_layout *out)
{
    for (int l = IGEMM_LAYOUT_NCHW; l <= IGEMM_LAYOUT_NHWC; l++)
        if (s && !strcmp(s, igemm_layout_get((igemm_layout)l)->upper)) {
            *out = (igemm_layout)l;
            return 0;
        }
    return -1;
}

/* One MIOpenDriver flag f with value v into p (lay: the three layouts). */
static int parse_flag(igemm_problem *p, const driver_flag *f, const char *a, const char *v, igemm_layout *lay,
                      int *forw, char *why, size_t why_len)
{
    switch (f->kind) {
    case DF_FIELD:
        if (parse_int(v, (int *)((char *)p + f->field))) {
            why_printf(why, why_len, "flag '%s' needs an integer, got '%s'", a, v);
            return -1;
        }
        return 0;
    case DF_LAYOUT:
        if (parse_layout(v, &lay[f->field])) {
            why_printf(why, why_len, "flag '%s': layout must be NCHW or NHWC, got '%.32s'", a, v);
            return -1;
        }
        return 0;
    case DF_FORW:
        if (parse_int(v, forw) || *forw < 0 || *forw > 6) {
            why_printf(why, why_len, "flag '%s' needs a direction 0..6 (2: backward data), got '%.32s'", a, v);
            return -1;
        }
        return 0;
    case DF_MODE:
        if (strcmp(v, "conv")) {
            why_printf(why, why_len, "flag '%s %.32s': only convolution (-m conv) is supported%s", a, v,
                       strcmp(v, "trans") ? "" : ", not transposed convolution");
            return -1;
        }
        return 0;
    case DF_SPATIAL:
        if (strcmp(v, "2")) {
            why_printf(why, why_len, "flag '%s %.32s': only 2-D convolution (--spatial_dim 2) is supported", a, v);
            return -1;
        }
        return 0;
    case DF_DEFAULT:
        if (strcmp(v, f->dflt)) {
            why_printf(why, why_len, "flag '%s %.32s' is not supported (%s): only '%s' is", a, v, f->what, f->dflt);
            return -1;
        }
        return 0;
    case DF_NOTED: {
        int x;
        if (parse_int(v, &x) || x < f->lo || x > f->hi) {
            why_printf(why, why_len, "flag '%s' needs an integer in [%d, %d], got '%.32s'", a, f->lo, f->hi, v);
            return -1;
        }
        return 0;
    }
    case DF_RUN:        /* the CLI's; a shape list's line may carry them */
    case DF_NO_EFFECT:
        return 0;
    }
    return 0;
}

int igemm_problem_parse_args_forw(igemm_problem *p, int argc, char **argv, int *forw, char *why, size_t why_len)
{
    igemm_problem d = IGEMM_PROBLEM_INIT;
    *p = d;
    *forw = 2;
    igemm_layout lay[3] = {IGEMM_LAYOUT_NCHW, IGEMM_LAYOUT_NCHW, IGEMM_LAYOUT_NCHW};
    int i = argc > 0 && driver_is_program(argv[0]) ? 1 : 0; /* a pasted "./bin/MIOpenDriver conv ..." */
    const igemm_dtype_desc *cmd = i < argc ? igemm_dtype_by_command(argv[i]) : NULL;
    if (cmd) {
        p->dtype = cmd->id;
        i++;
    }
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fp16_mode")) {
            int m = IGEMM_FP16_ACCURATE;
            while (v && igemm_fp16_mode_name((igemm_fp16_mode)m) && strcmp(v, igemm_fp16_mode_name((igemm_fp16_mode)m)))
                m++;
            if (!v || !igemm_fp16_mode_name((igemm_fp16_mode)m)) {
                why_printf(why, why_len, "flag '--fp16_mode' needs accurate, flush or alt, got '%.32s'",
                           v ? v : "(nothing)");
                return -1;
            }
            p->fp16_mode = (igemm_fp16_mode)m;
            i++;
            continue;
        }
        const driver_flag *f = driver_flag_find(a);
        if (!f) {
            why_printf(why, why_len, a[0] == '-' ? "unknown flag '%s'" : "unexpected argument '%s'", a);
            return -1;
        }
        if (!v) {
            why_printf(why, why_len, "flag '%s' needs a value", a);
            return -1;
        }
        if (parse_flag(p, f, a, v, lay, forw, why, why_len))
            return -1;
        i++;
    }
    for (int f = 1; f < 3; f++)
        if (lay[f] != lay[0]) {
            why_printf(why, why_len, "mixed layouts (%s %s, %s %s) are not supported: give all three the same",
                       layout_what[0], igemm_layout_get(lay[0])->upper, layout_what[f],
                       igemm_layout_get(lay[f])->upper);
            return -1;
        }
    p->layout = lay[0];
    return 0;
}

/* The reason a problem of direction forw is not run here. */
static void not_bwd(int forw, char *why, size_t why_len)
{
    why_printf(why, why_len, "-F %d is %s only: igemm computes backward data (-F 2; 0, 3 and 6 include it)", forw,
               driver_forw_name(forw));
}

int igemm_problem_parse_args(igemm_problem *p, int argc, char **argv, char *why, size_t why_len)
{
    int forw;
    if (igemm_problem_parse_args_forw(p, argc, argv, &forw, why, why_len))
        return -1;
    if (!driver_forw_has_bwd(forw)) {
        not_bwd(forw, why, why_len);
        return -1;
    }
    return 0;
}

int igemm_problem_parse_line(igemm_problem *p, const char *line, char *why, size_t why_len)
{
    char buf[1024];
    size_t n = strlen(line);
    if (n >= sizeof buf) {
        why_printf(why, why_len, "line too long");
        return -1;
    }
    memcpy(buf, line, n + 1);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
    for (char *q = buf; *q; q++) /* a quoted line: "./bin/MIOpenDriver conv ..." */
        if (*q == '"' || *q == '\'' || *q == '`')
            *q = ' ';
    char *argv[64];
    int argc = 0;
    bool program = false;
    for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        if (argc == 64) {
            why_printf(why, why_len, "too many words");
            return -1;
        }
        if (!argc && driver_is_env_assignment(tok)) /* "MIOPEN_FIND_MODE=1 ./bin/MIOpenDriver ..." */
            continue;
        argv[argc++] = tok;
        if (driver_is_program(tok)) { /* a logged "MIOpen(HIP): Command [...] ./bin/MIOpenDriver conv ...": from there */
            argc = 0;
            program = true;
        }
    }
    if (!argc)
        return program ? 3 : 0;
    if (!igemm_dtype_by_command(argv[0])) {
        if (program)
            why_printf(why, why_len, "MIOpenDriver %.32s is not a convolution", argv[0]);
        else
            why_printf(why, why_len, "expected a line starting with 'conv', 'convfp16' or 'convbfp16', got '%.32s'",
                       argv[0]);
        return 3;
    }
    int forw;
    if (igemm_problem_parse_args_forw(p, argc, argv, &forw, why, why_len))
        return -1;
    if (!driver_forw_has_bwd(forw)) {
        not_bwd(forw, why, why_len);
        return 2;
    }
    return 1;
}

void igemm_problem_format(const igemm_problem *p, char *buf, size_t len)
{
    int n = snprintf(buf, len, "-n %d -c %d -H %d -W %d -k %d -y %d -x %d -p %d -q %d -u %d -v %d -l %d -j %d -g %d",
                     p->n, p->c, p->hi, p->wi, p->k, p->y, p->x, p->pad_h, p->pad_w, p->stride_h, p->stride_w,
                     p->dil_h, p->dil_w, p->groups);
    const igemm_layout_desc *l = igemm_layout_get(p->layout);
    if (p->layout != IGEMM_LAYOUT_NCHW && l && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " --in_layout %s --out_layout %s --fil_layout %s", l->upper,
                      l->upper, l->upper);
    if (p->fp16_mode != IGEMM_FP16_ACCURATE && igemm_fp16_mode_name(p->fp16_mode) && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " --fp16_mode %s", igemm_fp16_mode_name(p->fp16_mode));
}

const char *igemm_problem_command(const igemm_problem *p)
{
    const igemm_dtype_desc *d = igemm_dtype_get(p->dtype);
    return d ? d->command : "conv";
}

/* Whether the open file f holds "MIOpen" anywhere (a raw log); rewinds f. */
static bool file_is_log(FILE *f)
{
    char line[1024];
    bool log = false;
    int got;
    long at = ftell(f);
    if (at < 0)
        return false; /* a pipe: read as a shape list */
    while (!log && (got = text_line(f, line, sizeof line)) != 0)
        log = got > 0 && strstr(line, "MIOpen");
    clearerr(f);
    fseek(f, at, SEEK_SET);
    return log;
}

igemm_status igemm_problem_read_list(const char *path, int batch, igemm_problem **probs, int *n, char ***comments,
                                     igemm_list_skip skip, void *skip_ctx, char *why, size_t why_len)
{
    return igemm_problem_read_log(path, batch, probs, n, comments, skip, skip_ctx, NULL, why, why_len);
}

igemm_status igemm_problem_read_log(const char *path, int batch, igemm_problem **probs, int *n, char ***comments,
                                    igemm_list_skip skip, void *skip_ctx, int *not_commands, char *why,
                                    size_t why_len)
{
    *probs = NULL;
    *n = 0;
    int skipped = 0;
    if (comments)
        *comments = NULL;
    int missing;
    char reason[256];
    FILE *f = text_open(path, &missing, reason, sizeof reason);
    if (!f) {
        why_printf(why, why_len, "shape list: %s", reason);
        return missing || errno == EACCES ? IGEMM_ERR_IO : IGEMM_ERR_INVALID_ARG;
    }
    bool log = file_is_log(f);
    if (not_commands)
        *not_commands = 0;
    igemm_problem *ps = NULL;
    char **cs = NULL, line[1024];
    int count = 0, cap = 0, lineno = 0, got;
    igemm_status st = IGEMM_OK;
    while ((got = text_line(f, line, sizeof line)) != 0) {
        lineno++;
        if (got < 0) {
            why_printf(why, why_len, "%s:%d: %s", path, lineno, text_line_error(got, sizeof line, reason, sizeof reason));
            st = got == TEXT_ERROR ? IGEMM_ERR_IO : IGEMM_ERR_INVALID_ARG;
            break;
        }
        igemm_problem p;
        int r = igemm_problem_parse_line(&p, line, reason, sizeof reason);
        if (!r)
            continue;
        if (r == 3 && log) { /* a log's other lines */
            if (not_commands)
                ++*not_commands;
            continue;
        }
        if (r == 1 && batch)
            p.n = batch;
        if (r == 1 && igemm_problem_check(&p, reason, sizeof reason) != IGEMM_OK)
            r = -1;
        if (r == 2 || (r < 0 && log)) { /* another direction; in a log, a command igemm cannot run */
            skipped++;
            if (skip)
                skip(skip_ctx, path, lineno, reason);
            continue;
        }
        if (r != 1) {
            why_printf(why, why_len, "%s:%d: %s", path, lineno, reason);
            st = IGEMM_ERR_INVALID_ARG;
            break;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            igemm_problem *np = realloc(ps, sizeof *np * (size_t)cap);
            char **nc = np && comments ? realloc(cs, sizeof *nc * (size_t)cap) : NULL;
            ps = np ? np : ps;
            cs = nc ? nc : cs;
            if (!np || (comments && !nc)) {
                st = IGEMM_ERR_NO_MEMORY;
                break;
            }
        }
        if (comments) {
            char *text = strchr(line, '#');
            if (text) {
                text += strspn(text, "# ");
                text[strcspn(text, "\n")] = 0;
            }
            if (!(cs[count] = strdup(text ? text : ""))) {
                st = IGEMM_ERR_NO_MEMORY;
                break;
            }
        }
        ps[count++] = p;
    }
    fclose(f);
    if (st == IGEMM_ERR_NO_MEMORY)
        why_printf(why, why_len, "out of memory");
    else if (st == IGEMM_OK && !count) {
        why_printf(why, why_len, skipped ? "%s holds no backward-data problems igemm can run (%d lines skipped)"
                                         : "%s holds no problems", path, skipped);
        st = IGEMM_ERR_INVALID_ARG;
    }
    if (st != IGEMM_OK) {
        for (int i = 0; cs && i < count; i++)
            free(cs[i]);
        free(cs);
        free(ps);
        return st;
    }
    *probs = ps;
    *n = count;
    if (comments)
        *comments = cs;
    return IGEMM_OK;
}
