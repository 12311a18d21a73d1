/* igemm-fuzz: regenerate a corpus of bad inputs and run each through the
 * igemm CLI (built with AddressSanitizer + UBSan by `make fuzz`), with a
 * timeout each, and count what must never happen: crashes (a signal),
 * hangs (the timeout), sanitizer reports, and messages that are not one
 * line. docs/HARDENING.md has the last run's figures.
 *
 *   igemm-fuzz --igemm build-asan/bin/igemm --co build-asan/co/gfx906.hsaco
 *              [--dir DIR] [--seed N] [--cli N] [--co-mutants N] [--nonfinite SHAPES]
 *              [--timeout S]
 *
 * The corpus: `conv` argument vectors (a valid problem with one to three
 * flags set to edge values: 0, negatives, INT_MIN/INT_MAX, 2^24, 2^32, text,
 * control bytes, missing values, unknown flags, special files as --input,
 * --perfdb, --codeobj-dir), and code-object mutants of --co run by `emu-run`
 * (truncations, bit flips in the ELF header, the section headers, the
 * metadata note and the kernel descriptors). Valid problems that the
 * library accepts and that are large (more than 2e8 FLOPs or 2e7 dx
 * elements), and more than 10 iterations (-i, -w), are left out: they are
 * legitimately long runs, not hangs. Then, in this process through the
 * library, --nonfinite random shapes (default 2) per target with masked
 * taps, run by every configuration, data type and layout with Inf, -Inf,
 * NaN, the largest finite values and subnormals in dy and/or w, each dx
 * compared with the float64 reference by igemm_verify_ex (NaN and Inf
 * exactly where the reference has them). Exit status 0 when every count is
 * zero. */
#include <fcntl.h>
#include <limits.h>
#include <elf.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../arch/target.h"
#include "../conv/half.h"
#include "../conv/problem.h"
#include "../conv/types.h"
#include "../conv/util.h"
#include "../include/igemm.h"

typedef struct {
    int runs, skipped, crashes, hangs, sanitizer, multiline;
    int exit0, exit1, exit2;
} tally;

static uint64_t rng;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int pick(int n) { return (int)(next() % (uint64_t)n); }

static const char *igemm, *dir;
static unsigned timeout_s = 30;
static FILE *findings;

/* Run igemm with argv (argv[0] is igemm); classify the outcome. */
static void run(char **argv, tally *t, const char *what)
{
    char errp[512];
    snprintf(errp, sizeof errp, "%s/stderr", dir);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (!pid) {
        int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600), fn = open("/dev/null", O_RDWR);
        if (fe < 0 || fn < 0 || dup2(fn, 0) < 0 || dup2(fn, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        setenv("ASAN_OPTIONS", "exitcode=77:detect_leaks=1", 1);
        setenv("UBSAN_OPTIONS", "halt_on_error=1:exitcode=77:print_stacktrace=1", 1);
        alarm(timeout_s);
        execv(igemm, argv);
        _exit(127);
    }
    int ws;
    waitpid(pid, &ws, 0);
    size_t n = 0;
    char *err = read_file(errp, &n);
    t->runs++;
    const char *verdict = NULL;
    if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM)
        verdict = "HANG", t->hangs++;
    else if (WIFSIGNALED(ws))
        verdict = "CRASH", t->crashes++;
    else if (err && (strstr(err, "Sanitizer") || strstr(err, "runtime error:") || WEXITSTATUS(ws) == 77))
        verdict = "SANITIZER", t->sanitizer++;
    else {
        int st = WEXITSTATUS(ws);
        t->exit0 += st == 0;
        t->exit1 += st == 1;
        t->exit2 += st == 2;
        /* a failure says why in one line (a warning may precede it) */
        const char *last = err ? err : "";
        size_t len = strlen(last);
        int lines = 0;
        for (size_t i = 0; i < len; i++)
            lines += last[i] == '\n';
        if (st && (!len || last[len - 1] != '\n' || lines > 3))
            verdict = "MULTILINE", t->multiline++;
    }
    if (verdict) {
        fprintf(findings, "%s: %s:", verdict, what);
        for (int i = 1; argv[i]; i++)
            fprintf(findings, " '%s'", argv[i]);
        fprintf(findings, "\n%s\n", err ? err : "");
    }
    free(err);
}

/* ---- conv vectors ---- */

static const char *const flags[] = {"-n", "-c", "-H", "-W", "-k", "-y", "-x", "-p", "-q", "-u", "-v", "-l", "-j",
                                    "-g", "-F", "-V", "-i", "-w", "-s", "-t", "--warmup", "-S", "-m", "--batch", "--seed", "--threads",
                                    "--max-wave-insts", "--device", "--arch", "--backend", "--solution",
                                    "--input", "--perfdb", "--codeobj-dir", "--json", "--timeline", "-Z", "--bogus"};
static const char *const values[] = {"0", "-1", "1", "2", "3", "5", "-2147483648", "2147483647", "16777215",
                                     "16777216", "4294967296", "99999999999999999999", "abc", "", "1e3", "0x10",
                                     " 5", "5 ", "gfx\n906", "\x01\x7f", "-", "/dev/zero", "/", "/nonexistent",
                                     "/dev/full", "naive", "gfx942", "emu", "hip", "32768", "65535", "1024"};

static int cli_vector(char **argv, char *store, size_t cap)
{
    static const char *const base[][2] = {{"-n", "1"}, {"-c", "4"}, {"-H", "6"}, {"-W", "6"}, {"-k", "4"},
                                          {"-y", "3"}, {"-x", "3"}, {"-p", "1"}, {"-q", "1"}, {"-F", "2"}};
    int argc = 0;
    argv[argc++] = (char *)igemm;
    argv[argc++] = "conv";
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        argv[argc++] = (char *)base[i][0];
        argv[argc++] = (char *)base[i][1];
    }
    int edits = 1 + pick(3);
    size_t used = 0;
    for (int e = 0; e < edits; e++) {
        const char *f = flags[pick((int)(sizeof flags / sizeof flags[0]))];
        const char *v = values[pick((int)(sizeof values / sizeof values[0]))];
        if (pick(8) == 0) { /* a value of random bytes */
            int len = 1 + pick(12);
            if (used + (size_t)len + 1 > cap)
                break;
            for (int i = 0; i < len; i++)
                store[used + (size_t)i] = (char)(1 + pick(255));
            store[used + (size_t)len] = 0;
            v = store + used;
            used += (size_t)len + 1;
        }
        argv[argc++] = (char *)f;
        if (pick(10))
            argv[argc++] = (char *)v; /* else: the flag without its value */
    }
    argv[argc] = NULL;
    return argc;
}

/* A valid problem the library would run that is long is left out, and so
 * are many iterations (-i, -w): legitimately long runs, not hangs. */
static int long_valid_run(igemm_handle *h, int argc, char **argv)
{
    char *pv[64];
    int pc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long x;
        if (!strcmp(a, "--json"))
            continue;
        if ((!strcmp(a, "-i") || !strcmp(a, "--warmup")) && v && !parse_long(v, 11, LONG_MAX, &x))
            return 1;
        if (!strncmp(a, "--", 2) || (a[0] == '-' && a[1] && !a[2] && strchr("Vtiws", a[1]))) {
            i++; /* a driver flag and its value */
            continue;
        }
        pv[pc++] = argv[i];
    }
    igemm_problem p;
    char why[256];
    if (igemm_problem_parse_args(&p, pc, pv, why, sizeof why))
        return 0;
    igemm_shape sh;
    if (igemm_shape_init(&sh, &p, why, sizeof why) != IGEMM_OK || igemm_applicable(h, &p, NULL, why, sizeof why))
        return 0;
    return sh.flops > 200000000 || sh.dx_elems > 20000000;
}

/* ---- code-object mutants ---- */

/* Byte ranges worth flipping bits in: the ELF header, the section headers,
 * SHT_NOTE sections (the metadata) and .rodata (kernel descriptors). */
typedef struct {
    size_t off, len;
} span;

static int spans_of(const uint8_t *img, size_t size, span *s, int max)
{
    int n = 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    s[n++] = (span){0, sizeof *eh};
    if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        return n;
    s[n++] = (span){eh->e_shoff, (size_t)eh->e_shnum * sizeof(Elf64_Shdr)};
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    const Elf64_Shdr *names = eh->e_shstrndx < eh->e_shnum ? &sh[eh->e_shstrndx] : NULL;
    for (int i = 0; i < eh->e_shnum && n < max; i++) {
        if (sh[i].sh_offset + sh[i].sh_size > size || !sh[i].sh_size)
            continue;
        const char *nm = names && sh[i].sh_name < names->sh_size ? (const char *)img + names->sh_offset + sh[i].sh_name
                                                                  : "";
        if (sh[i].sh_type == SHT_NOTE || !strcmp(nm, ".rodata"))
            s[n++] = (span){sh[i].sh_offset, sh[i].sh_size};
    }
    return n;
}

static void co_mutant(const uint8_t *img, size_t size, uint8_t *out, size_t *out_size, char *what, size_t wl)
{
    memcpy(out, img, size);
    *out_size = size;
    span s[16];
    int ns = spans_of(img, size, s, 16);
    int kind = pick(4);
    if (kind == 0) {
        *out_size = (size_t)(next() % size);
        snprintf(what, wl, "truncated to %zu bytes", *out_size);
        return;
    }
    /* kind 1: header, 2: section headers, 3: notes and descriptors */
    int si = kind == 1 ? 0 : kind == 2 ? (ns > 1 ? 1 : 0) : (ns > 2 ? 2 + pick(ns - 2) : 0);
    int flips = 1 + pick(4);
    snprintf(what, wl, "%d bit flip(s) in bytes %zu+%zu", flips, s[si].off, s[si].len);
    for (int i = 0; i < flips; i++) {
        size_t at = s[si].off + (size_t)(next() % s[si].len);
        out[at] ^= (uint8_t)(1u << pick(8));
    }
}

/* ---- non-finite data through every configuration ---- */

typedef struct {
    int runs, wrong, errors;
} nf_tally;

static double type_max(igemm_dtype d) { return d == IGEMM_FP32 ? 0x1.fffffep127 : d == IGEMM_FP16 ? 65504.0 : 0x1.fep127; }
static double type_subnormal(igemm_dtype d) { return d == IGEMM_FP32 ? 0x1p-149 : d == IGEMM_FP16 ? 0x1p-24 : 0x1p-133; }

/* Special values at random positions of an n-element tensor, one of each
 * per 512 elements (at least one): family 0 Inf, -Inf, NaN and the smallest
 * subnormal; family 1 the largest finite values of both signs and the
 * subnormal (not mixed with infinities: an fp32 sum of the largest values
 * may overflow on the way, and +Inf plus an input's -Inf is NaN by summation
 * order). */
static void put_specials(void *v, size_t n, igemm_dtype d, int family)
{
    const double inf[] = {INFINITY, -INFINITY, NAN, type_subnormal(d)};
    const double fin[] = {type_max(d), -type_max(d), type_subnormal(d)};
    int nv = family ? 3 : 4;
    for (size_t r = 0; r < 1 + n / 512; r++)
        for (int j = 0; j < nv; j++)
            igemm_elem_set(d, v, (size_t)(next() % n), family ? fin[j] : inf[j]);
}

/* A random valid shape of a few hundred dx elements with masked taps in
 * most of them (padding, strides, dilation, groups). */
static igemm_problem nf_shape(void)
{
    for (;;) {
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.groups = 1 + pick(2);
        p.n = 1 + pick(2), p.c = p.groups * (1 + pick(7)), p.k = p.groups * (1 + pick(9));
        p.hi = 1 + pick(9), p.wi = 1 + pick(9), p.y = 1 + pick(4), p.x = 1 + pick(4);
        p.pad_h = pick(p.y + 1), p.pad_w = pick(p.x + 1);
        p.stride_h = 1 + pick(3), p.stride_w = 1 + pick(3), p.dil_h = 1 + pick(2), p.dil_w = 1 + pick(2);
        if (igemm_problem_check(&p, NULL, 0) == IGEMM_OK)
            return p;
    }
}

/* One run: data with specials (mode bit 0: dy, bit 1: w, bit 2: the
 * largest-finite family), the configuration's dx against the float64
 * reference by igemm_verify_ex (NaN and Inf exactly where it has them). */
static void nf_run(igemm_handle *h, const igemm_problem *p, const char *sol, int mode, nf_tally *t)
{
    igemm_shape sh;
    if (igemm_shape_init(&sh, p, NULL, 0) != IGEMM_OK)
        return;
    size_t eb = (size_t)igemm_dtype_get(p->dtype)->bytes;
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
    void *hy = malloc(ny * eb), *hw = malloc(nw * eb), *hx = malloc(nx * eb);
    double *ref = malloc(nx * sizeof *ref), *as = malloc(nx * sizeof *as);
    unsigned char *cov = malloc(nx);
    void *dx = NULL, *dy = NULL, *dw = NULL;
    const char *what = NULL;
    igemm_verify_result vr = {0};
    t->runs++;
    if (!hy || !hw || !hx || !ref || !as || !cov) {
        what = "out of host memory";
        goto out;
    }
    igemm_fill_random_dtype(hy, ny, p->dtype, next());
    igemm_fill_random_dtype(hw, nw, p->dtype, next());
    if (mode & 1)
        put_specials(hy, ny, p->dtype, mode >> 2);
    if (mode & 2)
        put_specials(hw, nw, p->dtype, mode >> 2);
    if (igemm_alloc(h, &dx, nx * eb) || igemm_alloc(h, &dy, ny * eb) || igemm_alloc(h, &dw, nw * eb) ||
        igemm_copy_to_device(h, dy, hy, ny * eb) || igemm_copy_to_device(h, dw, hw, nw * eb) ||
        igemm_conv_bwd_data_ex(h, p, sol, dx, dy, dw, NULL) || igemm_copy_to_host(h, hx, dx, nx * eb)) {
        what = igemm_last_error(h);
        goto out;
    }
    if (igemm_reference_bwd_data_ex(p, hy, hw, ref, as, cov) != IGEMM_OK) {
        what = "the reference failed";
        goto out;
    }
    if (!igemm_verify_ex(p, hx, ref, as, cov, 1e-5, &vr))
        what = "differs from the reference";
out:
    if (what) {
        char text[512];
        igemm_problem_format(p, text, sizeof text);
        fprintf(findings, "non-finite %s: %s %s %s, specials in %s (%s): %s (NaN/Inf %lld, over %lld, uncovered %lld)\n",
                strcmp(what, "differs from the reference") ? "error" : "wrong", igemm_handle_arch(h), sol, text,
                (mode & 3) == 1 ? "dy" : (mode & 3) == 2 ? "w" : "dy and w", mode & 4 ? "largest finite" : "inf/nan",
                what, (long long)vr.nan_count, (long long)vr.over_tolerance, (long long)vr.uncovered_nonzero);
        if (strcmp(what, "differs from the reference"))
            t->errors++;
        else
            t->wrong++;
    }
    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, dw);
    free(hy), free(hw), free(hx), free(ref), free(as), free(cov);
}

/* Every target, type, layout and configuration, on nshapes random shapes
 * each, with the six kinds of special data. */
static void nf_corpus(int nshapes, nf_tally *t)
{
    static const igemm_dtype types[] = {IGEMM_FP32, IGEMM_FP16, IGEMM_BF16};
    for (int ti = 0; ti < igemm_codeobj_count(); ti++) {
        const char *arch = NULL;
        igemm_codeobj_get(ti, &arch, NULL, NULL);
        const target *tg = target_by_name(arch);
        igemm_options o = IGEMM_OPTIONS_INIT;
        o.backend = IGEMM_BACKEND_EMU;
        o.arch = arch;
        o.emu_threads = 1;
        igemm_handle *h;
        if (!tg || igemm_create(&h, &o, NULL, 0) != IGEMM_OK) {
            t->errors++;
            continue;
        }
        for (int si = 0; si < nshapes; si++) {
            igemm_problem base = nf_shape();
            for (size_t d = 0; d < sizeof types / sizeof types[0]; d++)
                for (int l = 0; l < 2; l++) {
                    igemm_problem p = base;
                    p.dtype = types[d];
                    p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
                    for (int i = 0; i < igemm_solution_count(); i++) {
                        const char *sol = igemm_solution_name(i);
                        if (igemm_applicable(h, &p, sol, NULL, 0) != IGEMM_OK)
                            continue;
                        for (int mode = 1; mode < 8; mode++)
                            if (mode & 3)
                                nf_run(h, &p, sol, mode, t);
                    }
                }
        }
        igemm_destroy(h);
    }
}

int main(int argc, char **argv)
{
    const char *co = NULL;
    int ncli = 1000, nco = 800, nnf = 2;
    rng = 13;
    dir = "build-asan/fuzz";
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = 0;
        if (!strcmp(argv[i], "--igemm"))
            igemm = argv[i + 1];
        else if (!strcmp(argv[i], "--co"))
            co = argv[i + 1];
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!parse_long(argv[i + 1], 0, 1L << 30, &v) && !strcmp(argv[i], "--seed"))
            rng = (uint64_t)v;
        else if (!parse_long(argv[i + 1], 0, 1L << 30, &v) && !strcmp(argv[i], "--cli"))
            ncli = (int)v;
        else if (!parse_long(argv[i + 1], 0, 1L << 30, &v) && !strcmp(argv[i], "--co-mutants"))
            nco = (int)v;
        else if (!parse_long(argv[i + 1], 0, 1000, &v) && !strcmp(argv[i], "--nonfinite"))
            nnf = (int)v;
        else if (!parse_long(argv[i + 1], 1, 3600, &v) && !strcmp(argv[i], "--timeout"))
            timeout_s = (unsigned)v;
        else {
            fprintf(stderr, "igemm-fuzz: bad flag or value '%s %s'\n", argv[i], argv[i + 1]);
            return 2;
        }
    }
    size_t size = 0;
    uint8_t *img = co ? read_file(co, &size) : NULL;
    if (!igemm || !img || size < sizeof(Elf64_Ehdr)) {
        fprintf(stderr, "usage: igemm-fuzz --igemm IGEMM --co FILE.hsaco [--dir DIR] [--seed N] [--cli N] "
                        "[--co-mutants N] [--nonfinite SHAPES] [--timeout S]\n");
        return 2;
    }
    mkdir(dir, 0700);
    char logp[512];
    snprintf(logp, sizeof logp, "%s/findings.log", dir);
    if (!(findings = fopen(logp, "w"))) {
        fprintf(stderr, "igemm-fuzz: cannot write %s\n", logp);
        return 2;
    }
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.emu_threads = 1;
    igemm_handle *h;
    char why[512];
    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-fuzz: %s\n", why);
        return 2;
    }
    tally cli = {0}, cos = {0};
    for (int i = 0; i < ncli; i++) {
        char *av[64], store[256];
        int ac = cli_vector(av, store, sizeof store);
        if (long_valid_run(h, ac, av)) {
            cli.skipped++;
            continue;
        }
        run(av, &cli, "conv vector");
    }
    uint8_t *mut = malloc(size);
    char path[600];
    snprintf(path, sizeof path, "%s/mutant.hsaco", dir);
    for (int i = 0; mut && i < nco; i++) {
        size_t ms;
        char what[128];
        co_mutant(img, size, mut, &ms, what, sizeof what);
        FILE *f = fopen(path, "wb");
        if (!f || (ms && fwrite(mut, 1, ms, f) != ms) || fclose(f)) {
            fprintf(stderr, "igemm-fuzz: cannot write %s\n", path);
            return 2;
        }
        char *av[] = {(char *)igemm, "emu-run", "--co", path, "--kernel", "igemm_fill_zero_b32", "--grid", "1,1,1",
                      "--block", "256,1,1", "--arg", "p_out=zeros:4096", "--arg", "dwords=64",
                      "--max-wave-insts", "1000000", NULL};
        run(av, &cos, what);
    }
    free(mut);
    igemm_destroy(h);
    nf_tally nf = {0};
    nf_corpus(nnf, &nf);
    free(img);
    const tally *ts[2] = {&cli, &cos};
    const char *names[2] = {"conv argument vectors", "code-object mutants (emu-run)"};
    int bad = 0;
    for (int i = 0; i < 2; i++) {
        const tally *t = ts[i];
        printf("%-30s %5d runs (%d long valid problems left out): exit 0 %d, 1 %d, 2 %d; crashes %d, hangs %d, "
               "sanitizer reports %d, not one line %d\n",
               names[i], t->runs, t->skipped, t->exit0, t->exit1, t->exit2, t->crashes, t->hangs, t->sanitizer,
               t->multiline);
        bad += t->crashes + t->hangs + t->sanitizer + t->multiline;
    }
    printf("%-30s %5d runs: wrong %d, errors %d\n", "non-finite data (every config)", nf.runs, nf.wrong, nf.errors);
    bad += nf.wrong + nf.errors;
    fclose(findings);
    printf("findings: %s\n", bad ? logp : "none");
    return bad ? 1 : 0;
}
