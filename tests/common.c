/* Shared test helpers (see common.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#include "../arch/target.h"
#include "../conv/half.h"
#include "../conv/problem.h"
#include "../emu/fp.h"

#ifndef LLVM_BIN
#define LLVM_BIN "/usr/lib/llvm-19/bin"
#endif
#ifndef BUILD_DIR
#define BUILD_DIR "build"
#endif

const char *tc_codeobj_path(const char *arch, char *buf, size_t len)
{
    snprintf(buf, len, "%s/co/%s.hsaco", BUILD_DIR, arch);
    return buf;
}

int tc_system(const char *cmd, const char *logfile, char *err, size_t errlen)
{
    int rc = system(cmd);
    if (rc != 0 && err && errlen) {
        size_t n = 0;
        char *msg = read_file(logfile, &n);
        snprintf(err, errlen, "%s: %s", cmd, msg ? msg : "");
        free(msg);
    }
    return rc == 0 ? 0 : -1;
}

void *tc_assemble_source(const char *arch, const char *source, size_t *size, char *err, size_t errlen)
{
    char dir[] = "/tmp/igemm-test-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "mkdtemp failed");
        return NULL;
    }
    char s[300], o[300], co[300], log[300], cmd[2048];
    snprintf(s, sizeof s, "%s/k.s", dir);
    snprintf(o, sizeof o, "%s/k.o", dir);
    snprintf(co, sizeof co, "%s/k.hsaco", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    void *image = NULL;
    FILE *f = fopen(s, "w");
    if (!f || fputs(source, f) < 0 || fclose(f)) {
        snprintf(err, errlen, "cannot write %s", s);
        goto out;
    }
    snprintf(cmd, sizeof cmd,
             "%s/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj %s -o %s 2>%s && "
             "%s/ld.lld -shared %s -o %s 2>>%s",
             LLVM_BIN, arch, s, o, log, LLVM_BIN, o, co, log);
    if (tc_system(cmd, log, err, errlen))
        goto out;
    image = read_file(co, size);
    if (!image)
        snprintf(err, errlen, "cannot read %s", co);
out:
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
        /* a leftover temporary directory is harmless */
    }
    return image;
}

void *tc_assemble(const tc_snippet *sn, size_t *size, char *err, size_t errlen)
{
    const target *t = target_by_name(sn->arch);
    bool unified = t && t->unified_acc_vgprs;
    int vgprs = sn->vgprs ? sn->vgprs : 32, sgprs = sn->sgprs ? sn->sgprs : 32;
    int accum = (vgprs + 3) / 4 * 4;
    char accline[64] = "";
    if (unified)
        snprintf(accline, sizeof accline, "    .amdhsa_accum_offset %d\n", accum);
    size_t cap = strlen(sn->body) + 4096;
    char *src = malloc(cap);
    if (!src) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int n = snprintf(src, cap,
                     ".amdgcn_target \"amdgcn-amd-amdhsa--%s\"\n"
                     ".amdhsa_code_object_version 4\n"
                     ".text\n.globl snippet\n.p2align 8\n.type snippet,@function\nsnippet:\n"
                     "%s\n"
                     "    s_endpgm\n.Lend:\n.size snippet, .Lend - snippet\n"
                     ".rodata\n.p2align 6\n.amdhsa_kernel snippet\n"
                     "    .amdhsa_group_segment_fixed_size %d\n"
                     "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                     "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
                     "    .amdhsa_next_free_vgpr %d\n"
                     "    .amdhsa_next_free_sgpr %d\n"
                     "%s"
                     "    .amdhsa_reserve_vcc 1\n"
                     "    .amdhsa_float_denorm_mode_32 3\n"
                     ".end_amdhsa_kernel\n"
                     ".amdgpu_metadata\n---\namdhsa.version: [ 1, 1 ]\namdhsa.kernels:\n"
                     "  - .name: snippet\n    .symbol: snippet.kd\n    .kernarg_segment_size: %d\n"
                     "    .kernarg_segment_align: 8\n    .group_segment_fixed_size: %d\n"
                     "    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n    .sgpr_count: %d\n"
                     "    .vgpr_count: %d\n    .agpr_count: %d\n    .max_flat_workgroup_size: 1024\n",
                     sn->arch, sn->body, sn->lds_bytes, unified ? accum + sn->agprs : vgprs, sgprs,
                     accline, 8 * (sn->nptrs ? sn->nptrs : 1), sn->lds_bytes, sgprs + 2, vgprs, sn->agprs);
    if (sn->nptrs) {
        n += snprintf(src + n, cap - (size_t)n, "    .args:\n");
        for (int i = 0; i < sn->nptrs; i++)
            n += snprintf(src + n, cap - (size_t)n,
                          "      - { .name: p%d, .size: 8, .offset: %d, .value_kind: global_buffer, "
                          ".address_space: global }\n",
                          i, 8 * i);
    }
    snprintf(src + n, cap - (size_t)n, "...\n.end_amdgpu_metadata\n");
    void *image = tc_assemble_source(sn->arch, src, size, err, errlen);
    free(src);
    return image;
}

int tc_load_image_opts(tc_loaded *l, const char *arch, const emu_options *o, const void *image, size_t size,
                       char *err, size_t errlen)
{
    l->m = NULL;
    l->d = emu_create(target_by_name(arch), o);
    if (!l->d) {
        snprintf(err, errlen, "cannot create an emulator device for %s", arch);
        return -1;
    }
    if (emu_load(l->d, image, size, &l->m, err, errlen)) {
        tc_unload(l);
        return -1;
    }
    return 0;
}

int tc_load_image(tc_loaded *l, const char *arch, int host_threads, const void *image, size_t size, char *err,
                  size_t errlen)
{
    return tc_load_image_opts(l, arch, &(emu_options){.threads = host_threads}, image, size, err, errlen);
}

tc_loaded tc_load_codeobj(const char *arch)
{
    char path[300], err[1024] = "";
    size_t size = 0;
    void *image = read_file(tc_codeobj_path(arch, path, sizeof path), &size);
    if (!image)
        fail_msg("cannot read %s (build the code objects first)", path);
    tc_loaded l;
    int rc = tc_load_image(&l, arch, 1, image, size, err, sizeof err);
    free(image);
    if (rc)
        fail_msg("%s: %s", path, err);
    return l;
}

void tc_unload(tc_loaded *l)
{
    emu_module_free(l->m);
    emu_destroy(l->d);
    l->m = NULL;
    l->d = NULL;
}

int tc_launch_image(const tc_snippet *s, const void *image, size_t size, unsigned groups, unsigned threads,
                    void **ptrs, const size_t *sizes, emu_stats *stats, char *err, size_t errlen)
{
    tc_loaded l;
    if (s->nptrs > 16) {
        snprintf(err, errlen, "a snippet takes at most 16 pointers");
        return -1;
    }
    emu_options o = {.threads = s->host_threads ? s->host_threads : 1, .hazards = s->hazards, .timing = s->timing,
                     .num_cu = s->num_cu, .timing_only = s->timing_only, .timeline = s->timeline};
    if (tc_load_image_opts(&l, s->arch, &o, image, size, err, errlen))
        return -1;
    uint64_t args[16] = {0};
    for (int i = 0; i < s->nptrs; i++) {
        args[i] = (uint64_t)(uintptr_t)ptrs[i];
        if (ptrs[i])
            emu_register(l.d, ptrs[i], sizes[i]);
    }
    unsigned grid[3] = {groups, 1, 1}, block[3] = {threads, 1, 1};
    int rc = emu_launch(l.d, emu_find_kernel(l.m, "snippet"), grid, block, args, 8 * (size_t)(s->nptrs ? s->nptrs : 1),
                        stats, err, errlen);
    tc_unload(&l);
    return rc;
}

int tc_run(const tc_snippet *s, unsigned groups, unsigned threads, void **ptrs, const size_t *sizes, emu_stats *stats,
           char *err, size_t errlen)
{
    size_t size;
    void *image = tc_assemble(s, &size, err, errlen);
    if (!image)
        return -1;
    int rc = tc_launch_image(s, image, size, groups, threads, ptrs, sizes, stats, err, errlen);
    free(image);
    return rc;
}

int tc_host_simd_on(void **state)
{
    (void)state;
    emu_host_simd(true);
    return 0;
}

void tc_locate_label(const void *image, size_t size, const char *arch, const char *label, uint64_t *pc, char *text,
                     size_t tlen)
{
    char path[] = "/tmp/igemm-strict-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, image, size), (ssize_t)size);
    close(fd);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s/llvm-objdump -t -d --mcpu=%s %s", LLVM_BIN, arch, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[1024];
    bool found = false;
    char sym[96];
    snprintf(sym, sizeof sym, " %s", label);
    text[0] = 0;
    while (fgets(line, sizeof line, p)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            line[n - 1] = 0;
        size_t sl = strlen(sym);
        if (!found && n > sl && !strcmp(line + strlen(line) - sl, sym) && strstr(line, ".text")) {
            *pc = strtoull(line, NULL, 16);
            found = true;
            continue;
        }
        char *cm = strstr(line, "//");
        if (found && line[0] == '\t' && cm && strtoull(cm + 2, NULL, 16) == *pc && !text[0]) {
            *cm = 0;
            size_t tl = strlen(line) < tlen ? strlen(line) : tlen - 1;
            memcpy(text, line, tl);
            text[tl] = 0;
            tc_normalize(text);
        }
    }
    pclose(p);
    unlink(path);
    if (!found || !text[0])
        fail_msg("%s: no instruction labelled %s", arch, label);
}

void tc_normalize(char *s)
{
    char *o = s;
    bool space = false;
    for (char *p = s; *p; p++) {
        if (isspace((unsigned char)*p)) {
            space = o != s;
            continue;
        }
        if (space)
            *o++ = ' ';
        space = false;
        *o++ = *p;
    }
    *o = 0;
}

void tc_put(tc_sbuf *b, const char *fmt, ...)
{
    if (!b->s) {
        b->cap = 4096;
        b->len = 0;
        b->s = malloc(b->cap);
        assert_non_null(b->s);
    }
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

void tc_expect_contains(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("'%s' does not contain '%s'", text ? text : "(null)", needle);
}

/* ---- the library on the emulator ---- */

igemm_handle *tc_emu_handle(const char *arch, const char *perfdb, int threads)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = arch;
    o.perfdb = perfdb;
    o.emu_threads = threads;
    igemm_handle *h = NULL;
    char why[1024];
    igemm_status st = igemm_create(&h, &o, why, sizeof why);
    if (st != IGEMM_OK)
        fail_msg("igemm_create(%s): %s: %s", arch, igemm_status_name(st), why);
    assert_string_equal(igemm_handle_arch(h), arch);
    assert_string_equal(igemm_handle_backend(h), "emu");
    return h;
}

uint64_t tc_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void tc_fill_uniform(float *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)((double)(tc_splitmix64(&seed) >> 40) / 16777216.0 * 2.0 - 1.0);
}

/* The tests' own 16-bit facts (emu/fp.h converts; conv/half.c is the
 * library's): element size, the NaN pattern, and half an ulp at v (0 for
 * fp32, whose rule is the accumulation allowance alone). */
static size_t elem_bytes(igemm_dtype d) { return d == IGEMM_FP32 ? 4 : 2; }

static double half_ulp16(igemm_dtype d, double v)
{
    if (d == IGEMM_FP32)
        return 0.0;
    int bits = d == IGEMM_FP16 ? 11 : 8, emin = d == IGEMM_FP16 ? -14 : -126, e;
    frexp(v, &e); /* |v| in [2^(e-1), 2^e) */
    e = v == 0.0 || e - 1 < emin ? emin : e - 1;
    return ldexp(1.0, e - bits);
}

/* Store float v (rounded to nearest even for 16-bit) as element i of a
 * dtype buffer and return the value stored. */
static float store_elem(igemm_dtype d, void *buf, size_t i, float v)
{
    if (d == IGEMM_FP32) {
        ((float *)buf)[i] = v;
        return v;
    }
    uint16_t h = d == IGEMM_FP16 ? f32_to_f16(v) : f32_to_bf16(v);
    ((uint16_t *)buf)[i] = h;
    return d == IGEMM_FP16 ? f16_to_f32(h) : bf16_to_f32(h);
}

static double load_elem(igemm_dtype d, const void *buf, size_t i)
{
    if (d == IGEMM_FP32)
        return ((const float *)buf)[i];
    uint16_t h = ((const uint16_t *)buf)[i];
    return d == IGEMM_FP16 ? f16_to_f32(h) : bf16_to_f32(h);
}

/* The largest finite value and the smallest subnormal of d, as floats. */
static float type_max(igemm_dtype d) { return d == IGEMM_FP32 ? 0x1.fffffep127f : d == IGEMM_FP16 ? 65504.0f : 0x1.fep127f; }
static float type_subnormal(igemm_dtype d) { return d == IGEMM_FP32 ? 0x1p-149f : d == IGEMM_FP16 ? 0x1p-24f : 0x1p-133f; }

/* Put special values at positions of v drawn from seed, `each` times
 * every one: Inf, -Inf, NaN and a subnormal (none when the problem
 * flushes), or with big the largest finite values of both signs and a
 * subnormal. Not both families at once: an fp32 sum of the largest values
 * may overflow on the way, and +Inf from that plus an input's -Inf is NaN
 * where the float64 reference has -Inf (summation order, not a missing
 * term). */
static void put_specials(float *v, size_t n, igemm_dtype d, bool flush, bool big, int each, uint64_t seed)
{
    const float sub = flush ? 0.5f : type_subnormal(d);
    const float inf[] = {INFINITY, -INFINITY, NAN, sub}, fin[] = {type_max(d), -type_max(d), sub};
    for (int r = 0; r < each; r++)
        for (size_t j = 0; j < (big ? 3 : 4); j++)
            v[tc_splitmix64(&seed) % n] = big ? fin[j] : inf[j];
}

/* An element v against the reference ref (sum of |terms| abs_sum) when
 * either is not finite: a NaN or an infinity of the reference exactly; a
 * finite reference gives an infinity only where the result may round past
 * the format (same sign), or an infinity or NaN where the fp32 sum of the
 * terms may overflow on the way (abs_sum beyond FLT_MAX). 1 when it passes. */
static int nonfinite_ok(igemm_dtype d, double v, double ref, double abs_sum, double allow)
{
    if (isnan(ref))
        return isnan(v);
    if (isinf(ref))
        return v == ref;
    if (abs_sum * (1 + TC_REL_TOL) >= 0x1.fffffep127)
        return 1;
    return isinf(v) && signbit(v) == signbit(ref) && fabs(ref) + allow >= igemm_overflow_threshold(d);
}

int tc_run_case(igemm_handle *h, const igemm_problem *p, const char *solution, uint64_t data_seed,
                tc_case_result *res, char *msg, size_t len)
{
    return tc_run_case_ex(h, p, solution, data_seed, 0, res, msg, len);
}

int tc_run_case_ex(igemm_handle *h, const igemm_problem *p, const char *solution, uint64_t data_seed,
                   unsigned specials, tc_case_result *res, char *msg, size_t len)
{
    igemm_shape sh;
    char why[512];
    memset(res, 0, sizeof *res);
    if (igemm_shape_init(&sh, p, why, sizeof why) != IGEMM_OK) {
        snprintf(msg, len, "invalid shape: %s", why);
        return -1;
    }
    igemm_dtype dt = p->dtype;
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems, eb = elem_bytes(dt);
    /* hy, hw: the data as fp32 (16-bit values widened); ty, tw, tx: in dt */
    float *hy = malloc(ny * 4), *hw = malloc(nw * 4);
    void *ty = malloc(ny * eb), *tw = malloc(nw * eb), *tx = malloc(nx * eb);
    double *ref = malloc(nx * sizeof *ref), *abs_sum = malloc(nx * sizeof *abs_sum);
    unsigned char *cov = malloc(nx);
    void *dx = NULL, *dy = NULL, *dw = NULL;
    int rc = -1;
    if (!hy || !hw || !ty || !tw || !tx || !ref || !abs_sum || !cov) {
        snprintf(msg, len, "out of host memory");
        goto out;
    }
    tc_fill_uniform(hy, ny, data_seed * 3 + 1);
    tc_fill_uniform(hw, nw, data_seed * 3 + 2);
    bool flush = p->fp16_mode == IGEMM_FP16_FLUSH, sp_flush = flush || (specials & TC_SPECIALS_NORMAL);
    if (specials & TC_SPECIALS_DY)
        put_specials(hy, ny, dt, sp_flush, specials & TC_SPECIALS_BIG, 1 + (int)(ny / 512), data_seed * 5 + 3);
    if (specials & TC_SPECIALS_W)
        put_specials(hw, nw, dt, sp_flush, specials & TC_SPECIALS_BIG, 1 + (int)(nw / 512), data_seed * 5 + 4);
    /* a problem that allows flushing gets no subnormal inputs: its answer
       is then the same whether the target flushes (gfx90a's fp16 dot
       instructions) or not */
    for (size_t i = 0; i < ny; i++)
        hy[i] = store_elem(dt, ty, i, flush && fabsf(hy[i]) < 0x1p-14f ? 0.0f : hy[i]);
    for (size_t i = 0; i < nw; i++)
        hw[i] = store_elem(dt, tw, i, flush && fabsf(hw[i]) < 0x1p-14f ? 0.0f : hw[i]);
    for (size_t i = 0; i < nx; i++)
        store_elem(dt, tx, i, NAN);
    if (igemm_alloc(h, &dx, nx * eb) || igemm_alloc(h, &dy, ny * eb) || igemm_alloc(h, &dw, nw * eb) ||
        igemm_copy_to_device(h, dy, ty, ny * eb) || igemm_copy_to_device(h, dw, tw, nw * eb) ||
        igemm_copy_to_device(h, dx, tx, nx * eb)) {
        snprintf(msg, len, "buffers: %s", igemm_last_error(h));
        goto out;
    }
    igemm_status st = igemm_applicable(h, p, solution, why, sizeof why);
    if (st != IGEMM_OK) {
        snprintf(msg, len, "igemm_applicable refuses: %s: %s", igemm_status_name(st), why);
        goto out;
    }
    st = igemm_conv_bwd_data_ex(h, p, solution, dx, dy, dw, &res->ri);
    if (st != IGEMM_OK) {
        snprintf(msg, len, "%s: %s", igemm_status_name(st), igemm_last_error(h));
        goto out;
    }
    if (solution && strcmp(res->ri.solution, solution)) {
        snprintf(msg, len, "ran %s instead", res->ri.solution);
        goto out;
    }
    /* instruction counts come from the emulator backend only (HIP reports none) */
    bool emu = !strcmp(igemm_handle_backend(h), "emu");
    /* a v4r1 configuration's kernel has its name; naive: igemm_bwd_naive_nchw_fp32 (the name it kept from
       before it took strides), naive_fp16 / naive_bf16: igemm_bwd_naive_<type> */
    char kern[128];
    snprintf(kern, sizeof kern, "%s", res->ri.solution);
    if (!strcmp(res->ri.solution, "naive"))
        snprintf(kern, sizeof kern, "igemm_bwd_naive_nchw_fp32");
    else if (!strncmp(res->ri.solution, "naive_", 6))
        snprintf(kern, sizeof kern, "igemm_bwd_naive_%s", res->ri.solution + 6);
    /* a split along GEMM K (_ks<N>) launches its tile's split kernel, <config>_ksplit */
    /* a _kyxc solution copies w, a _zf one fills dx, then each launches its configuration's own kernel */
    static const char *const own_kernel[] = {"_kyxc", "_zf"};
    for (size_t i = 0; i < sizeof own_kernel / sizeof own_kernel[0]; i++) {
        char *at = strstr(kern, own_kernel[i]);
        if (at && !at[strlen(own_kernel[i])])
            *at = 0;
    }
    char *ks = strstr(kern, "_ks");
    if (ks && ks[3] >= '0' && ks[3] <= '9' && ks + 3 + strspn(ks + 3, "0123456789") == kern + strlen(kern))
        snprintf(ks, sizeof kern - (size_t)(ks - kern), "_ksplit");
    if (!strstr(res->ri.kernels, kern) || res->ri.launches < 1 || (emu && !res->ri.insts)) {
        snprintf(msg, len, "run info: kernels '%s', %d launches, %llu instructions", res->ri.kernels,
                 res->ri.launches, (unsigned long long)res->ri.insts);
        goto out;
    }
    if (igemm_copy_to_host(h, tx, dx, nx * eb)) {
        snprintf(msg, len, "copy back: %s", igemm_last_error(h));
        goto out;
    }
    /* the fp32 reference of the (rounded) data */
    if (igemm_reference_bwd_data(p, hy, hw, ref, abs_sum, cov) != IGEMM_OK) {
        snprintf(msg, len, "the reference refuses the shape");
        goto out;
    }
    /* The rule spelled out here, and igemm_verify's reading of it: both
     * must pass. 16-bit results may be off by half an ulp of their format
     * besides the fp32 accumulation allowance. */
    int64_t nan = 0, bad_zero = 0, bad = 0, first_bad = -1;
    double max_rel = 0;
    for (size_t i = 0; i < nx; i++) {
        double v = load_elem(dt, tx, i);
        if (!isfinite(ref[i]) || !isfinite(v)) {
            if (nonfinite_ok(dt, v, ref[i], abs_sum[i], TC_REL_TOL * abs_sum[i] + half_ulp16(dt, ref[i])))
                continue;
            nan++;
            if (first_bad < 0)
                first_bad = (int64_t)i;
            continue;
        }
        if (!cov[i]) {
            res->holes++;
            if (v != 0.0) {
                bad_zero++;
                if (first_bad < 0)
                    first_bad = (int64_t)i;
            }
            continue;
        }
        double err = fabs(v - ref[i]), allow = TC_REL_TOL * abs_sum[i] + half_ulp16(dt, ref[i]);
        double rel = abs_sum[i] > 0 ? err / abs_sum[i] : (err > 0 ? INFINITY : 0);
        if (rel > max_rel)
            max_rel = rel;
        if (!(err <= allow) || (abs_sum[i] == 0 && v != 0)) {
            bad++;
            if (first_bad < 0)
                first_bad = (int64_t)i;
        }
    }
    res->max_rel = max_rel;
    igemm_verify_result vr;
    int ok = igemm_verify_ex(p, tx, ref, abs_sum, cov, TC_REL_TOL, &vr);
    if (nan || bad_zero || bad || !ok) {
        char at[128] = "";
        if (first_bad >= 0) {
            int64_t e = first_bad, wi = e % p->wi, hi = (e /= p->wi) % p->hi, c = (e /= p->hi) % p->c, n = e / p->c;
            snprintf(at, sizeof at, "; first bad dx[n=%lld][c=%lld][h=%lld][w=%lld] = %g, reference %.9g",
                     (long long)n, (long long)c, (long long)hi, (long long)wi, load_elem(dt, tx, (size_t)first_bad),
                     ref[first_bad]);
        }
        snprintf(msg, len,
                 "max rel err %.3g (limit %g%s), %lld elements over it, %lld NaN/Inf not the reference's, %lld uncovered pixels not 0%s "
                 "(igemm_verify: %s, max rel %.3g)",
                 max_rel, TC_REL_TOL, dt == IGEMM_FP32 ? "" : " plus half an ulp", (long long)bad, (long long)nan,
                 (long long)bad_zero, at, ok ? "pass" : "fail", vr.max_rel_err);
        goto out;
    }
    rc = 0;
out:
    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, dw);
    free(hy);
    free(hw);
    free(ty);
    free(tw);
    free(tx);
    free(ref);
    free(abs_sum);
    free(cov);
    return rc;
}


/* ---- shape lists ---- */

#define SHARED_SHAPES "../shared/shapes/"
#define LOCAL_SHAPES "tests/shapes/"

int tc_load_shapes(tc_shape_list *l, const char *file)
{
    char shared[256], local[256];
    snprintf(shared, sizeof shared, "%s%s", SHARED_SHAPES, file);
    snprintf(local, sizeof local, "%s%s", LOCAL_SHAPES, file);
    FILE *f = fopen(shared, "r");
    const char *path = f ? shared : local;
    if (!f && !(f = fopen(local, "r"))) {
        fprintf(stderr, "cannot read %s or %s (run from the repository root)\n", shared, local);
        return -1;
    }
    snprintf(l->path, sizeof l->path, "%s", path);
    char line[1024], why[256];
    int lineno = 0;
    l->n = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        igemm_problem p;
        int r = igemm_problem_parse_line(&p, line, why, sizeof why);
        if (r < 0 || r == 3 || (r == 1 && l->n == TC_MAX_SHAPES)) {
            fprintf(stderr, "%s:%d: %s\n", path, lineno, r != 1 ? why : "too many shapes");
            fclose(f);
            return -1;
        }
        if (r != 1) /* blank, or another direction */
            continue;
        l->s[l->n].p = p;
        igemm_problem_format(&p, l->s[l->n].text, sizeof l->s[l->n].text);
        l->n++;
    }
    fclose(f);
    return 0;
}

void tc_expect_same_as_shared(const char *file)
{
    char shared[256], local[256];
    snprintf(shared, sizeof shared, "%s%s", SHARED_SHAPES, file);
    snprintf(local, sizeof local, "%s%s", LOCAL_SHAPES, file);
    size_t na = 0, nb = 0;
    char *a = read_file(shared, &na), *b = read_file(local, &nb);
    if (!b)
        fail_msg("%s is missing: vendor a copy of %s", local, shared);
    if (a && (na != nb || memcmp(a, b, na)))
        fail_msg("%s differs from %s: copy the shared list into the repository", local, shared);
    free(a);
    free(b);
}

/* ---- the CLI ---- */

#define IGEMM BUILD_DIR "/bin/igemm"
#define MAX_ARGV 64

/* Everything from the start of fd (malloc'd, NUL-terminated), NULL on error. */
static char *slurp_fd(int fd)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf || lseek(fd, 0, SEEK_SET) < 0) {
        free(buf);
        return NULL;
    }
    for (;;) {
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (!r)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    return buf;
}

void tc_run_igemm_ex(tc_result *r, const char *const *args, const tc_limits *lim)
{
    memset(r, 0, sizeof *r);
    const char *argv[MAX_ARGV + 2] = {IGEMM};
    int argc = 1, len = snprintf(r->cmd, sizeof r->cmd, "igemm");
    for (; args[argc - 1]; argc++) {
        assert_true(argc <= MAX_ARGV);
        argv[argc] = args[argc - 1];
        if (len < (int)sizeof r->cmd)
            len += snprintf(r->cmd + len, sizeof r->cmd - (size_t)len, " '%s'", args[argc - 1]);
    }
    argv[argc] = NULL;
    char out_path[] = "/tmp/igemm-cli-out-XXXXXX", err_path[] = "/tmp/igemm-cli-err-XXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    assert_true(fo >= 0 && fe >= 0);
    unlink(out_path);
    unlink(err_path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fin = open("/dev/null", O_RDONLY);
        if (fin < 0 || dup2(fin, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        if (lim && lim->stdout_path) {
            int fs = open(lim->stdout_path, O_WRONLY);
            if (fs < 0 || dup2(fs, 1) < 0)
                _exit(127);
        }
        if (lim && lim->fsize) {
            /* writes past the limit fail with EFBIG instead of killing */
            struct rlimit rl = {lim->fsize, lim->fsize};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl))
                _exit(127);
        }
        if (lim && lim->as_bytes) {
            struct rlimit rl = {lim->as_bytes, lim->as_bytes};
            if (setrlimit(RLIMIT_AS, &rl))
                _exit(127);
        }
        if (lim && lim->timeout_s)
            alarm(lim->timeout_s); /* survives exec: SIGALRM ends a hang */
        execv(IGEMM, (char *const *)argv);
        _exit(127);
    }
    int ws;
    assert_true(waitpid(pid, &ws, 0) == pid);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
    r->out = slurp_fd(fo);
    r->err = slurp_fd(fe);
    close(fo);
    close(fe);
    assert_non_null(r->out);
    assert_non_null(r->err);
    if (r->status == 127 && !*r->err)
        fail_msg("cannot run %s (build it first: make)", IGEMM);
}

void tc_run_igemm(tc_result *r, const char *const *args) { tc_run_igemm_ex(r, args, NULL); }

void tc_result_free(tc_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

bool tc_one_line(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > 1 && s[n - 1] == '\n' && strchr(s, '\n') == s + n - 1;
}
