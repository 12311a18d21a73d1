/* igemm emu-run: run any kernel of any code object on the emulator, with
 * arguments named as the code object's metadata names them.
 *
 *   igemm emu-run --co FILE.hsaco --kernel NAME --grid GX,GY,GZ --block BX,BY,BZ
 *                 [--arg NAME=INT | NAME=FLOATf | NAME=@input.bin | NAME=zeros:BYTES] ...
 *                 [--dump NAME=output.bin] ... [--stats] [--threads N] [--hazards error|warn]
 *                 [--max-wave-insts N] [--cus N] [--clock-mhz N] [--timeline FILE]
 *
 * --stats also runs the timing model (docs/TIMING.md) and prints the
 * kernel's modeled time; --cus and --clock-mhz replace the target's
 * reference product (MI210: --cus 104, MI300A: --cus 228); --timeline
 * (which turns the model on too) writes its issue timeline of sampled CU 0
 * to FILE (emu_options.timeline).
 *
 * Grid counts workgroups. A buffer argument gets a fresh allocation filled
 * from the file or with zeros; --dump writes it back after the run. By-value
 * arguments not given are 0 (with a warning); hidden arguments the runtime
 * would fill (block counts, group sizes, grid dimensions) are filled. Every
 * buffer lies between unregistered guard zones (emu_buffer_alloc).
 * --hazards warn: hazard shortfalls are counted and the run goes on; one
 * line per rule goes to stderr at the end.
 * Exit status: 0 clean run (warn: hazard findings alone), 1 fault or
 * strictness report, 2 bad usage. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/emu.h"
#include "../conv/ofile.h"
#include "../conv/util.h"
#include "cli.h"

#define MAX_ARGS 64

typedef struct {
    const char *name;
    const char *value;
} named;

typedef struct {
    void *p;
    size_t size;
} buffer;

/* "2.50": line bytes per useful byte, "-" with no useful bytes (buf: 16 bytes). */
static const char *per_useful(char *buf, uint64_t line, uint64_t useful)
{
    if (!useful)
        return "-";
    snprintf(buf, 16, "%.2f", (double)line / (double)useful);
    return buf;
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }

/* The timing model's memory lines of --stats (docs/TIMING.md "What --stats
 * prints"): coalescing per direction and per buffer, cache hit rates, HBM
 * traffic, LDS bank-conflict cycles. */
static void print_model_memory(const emu_stats *st, const emu_kernel_info *ki, const buffer *bufs, int line)
{
    char x[16], y[16];
    printf("  modeled memory (%d B lines, the whole grid extrapolated from the sampled workgroups):\n", line);
    printf("    loads:  %llu line bytes for %llu useful bytes: %s per useful byte\n",
           (unsigned long long)st->model_line_loaded, (unsigned long long)st->model_useful_loaded,
           per_useful(x, st->model_line_loaded, st->model_useful_loaded));
    printf("    stores: %llu line bytes for %llu useful bytes: %s per useful byte\n",
           (unsigned long long)st->model_line_stored, (unsigned long long)st->model_useful_stored,
           per_useful(x, st->model_line_stored, st->model_useful_stored));
    for (int i = 0; i < EMU_MODEL_BUFFERS && st->model_buf[i].base; i++) {
        const emu_model_buffer *b = &st->model_buf[i];
        const char *name = "(unnamed buffer)";
        for (int j = 0; j < ki->nargs; j++)
            if (bufs[j].p && (uintptr_t)bufs[j].p == b->base)
                name = ki->args[j].name;
        printf("    %-16s loads %s, stores %s line bytes per useful byte\n", name,
               per_useful(x, b->line_loaded, b->useful_loaded), per_useful(y, b->line_stored, b->useful_stored));
    }
    printf("    L1 hits %.1f%% of %llu load lines; L2 hits %.1f%% of %llu lines read; HBM %llu bytes\n",
           pct(st->model_l1_hits, st->model_l1_lookups), (unsigned long long)st->model_l1_lookups,
           pct(st->model_l2_hits, st->model_l2_reads), (unsigned long long)st->model_l2_reads,
           (unsigned long long)st->model_hbm_bytes);
    printf("    LDS: %llu pipe cycles, %llu of them bank conflicts (%.2fx conflict-free)\n",
           (unsigned long long)st->model_lds_cycles, (unsigned long long)(st->model_lds_cycles - st->model_lds_ideal),
           st->model_lds_ideal ? (double)st->model_lds_cycles / (double)st->model_lds_ideal : 1.0);
}

static void emu_run_help(void)
{
    puts("usage: igemm emu-run --co FILE.hsaco --kernel NAME --grid GX,GY,GZ --block BX,BY,BZ\n"
         "                     [--arg NAME=INT|NAME=FLOATf|NAME=@FILE|NAME=zeros:BYTES]...\n"
         "                     [--dump NAME=FILE]... [--stats] [--threads N] [--hazards error|warn]\n"
         "                     [--max-wave-insts N] [--cus N] [--clock-mhz N] [--timeline FILE]\n"
         "Runs one kernel of any gfx906/gfx908/gfx90a/gfx940/gfx941/gfx942 code object on the emulator.\n"
         "--hazards warn: hazard shortfalls are reported per rule at the end, the run goes on\n"
         "(default error: the first stops the run).\n"
         "--max-wave-insts N stops the run with a fault once a wave has executed N instructions\n"
         "(default 2^30): a kernel that never reaches s_endpgm cannot hang.\n"
         "--stats prints instruction counts, issue cycles and the timing model's modeled time\n"
         "(docs/TIMING.md; a model, not a measurement) on the target's reference product, or on\n"
         "--cus N compute units at --clock-mhz N, and its memory view: line bytes per useful byte\n"
         "(loads, stores, per buffer), L1 and L2 hit rates, HBM bytes, LDS bank-conflict cycles.\n"
         "--timeline FILE writes the timing model's issue timeline of sampled CU 0 to FILE: one line\n"
         "per instruction its waves issue (cycle, workgroup, wave, SIMD, PC, instruction;\n"
         "docs/TIMING.md \"Timeline\"); it runs the model as --stats does.\n"
         "--arg: a buffer takes zeros:BYTES or @FILE (its contents); a by-value argument an integer,\n"
         "FLOATf (4 bytes) or @FILE of exactly its size (a struct: `igemm plan` prints our kernels').\n"
         "Exit status: 0 clean run, 1 fault or strictness report, 2 bad usage.");
}

static int parse_dims(const char *flag, const char *s, unsigned d[3])
{
    char *end;
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v < 1 || v > 0x7fffffff || (i < 2 && *end != ',') || (i == 2 && *end))
            return usage_error("%s needs X,Y,Z with positive integers, got '%s'", flag, s);
        d[i] = (unsigned)v;
        p = end + 1;
    }
    return 0;
}

static bool isdigit_ascii(char c) { return c >= '0' && c <= '9'; }

/* An integer for a by-value argument of `size` bytes: decimal, or hex with
 * 0x; it must fit the size as a signed or an unsigned number. */
static bool parse_int_arg(const char *s, int size, uint64_t *out)
{
    const char *digits = s + (*s == '-' || *s == '+');
    int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
    char *end;
    errno = 0;
    if (*s == '-') {
        long long v = strtoll(s, &end, base);
        if (end == s || *end || errno)
            return false;
        if (size < 8 && v < -(1ll << (8 * size - 1)))
            return false;
        *out = (uint64_t)v;
    } else {
        if (!isdigit_ascii(*digits))
            return false;
        unsigned long long v = strtoull(s, &end, base);
        if (end == s || *end || errno)
            return false;
        if (size < 8 && v >> (8 * size))
            return false;
        *out = (uint64_t)v;
    }
    return size >= 1 && size <= 8;
}

static const named *find_named(const named *list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i].name, name))
            return &list[i];
    return NULL;
}

/* Value of a hidden argument the HIP runtime fills, or 0. */
static uint64_t hidden_value(const char *kind, const unsigned grid[3], const unsigned block[3])
{
    static const char *const axes = "xyz";
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "hidden_block_count_%c", axes[i]);
        if (!strcmp(kind, name))
            return grid[i];
        snprintf(name, sizeof name, "hidden_group_size_%c", axes[i]);
        if (!strcmp(kind, name))
            return block[i];
    }
    if (!strcmp(kind, "hidden_grid_dims"))
        return grid[2] > 1 || block[2] > 1 ? 3 : grid[1] > 1 || block[1] > 1 ? 2 : 1;
    return 0;
}

/* --hazards warn: one line per rule that fell short. */
static void print_hazard_findings(const emu_stats *st, const char *arch, const char *kname)
{
    for (int r = 0; r < EMU_HZ_RULES; r++) {
        const emu_hazard_finding *f = &st->hazards[r];
        if (f->count)
            fprintf(stderr, "igemm: warning: %s kernel %s: hazard %s: %llu instruction%s short, first at pc 0x%llx `%s` "
                    "(%s)\n", arch, kname, emu_hazard_rule_names[r], (unsigned long long)f->count,
                    f->count == 1 ? "" : "s", f->pc, f->text, f->msg);
    }
}

/* The command line of emu-run, as parsed. */
typedef struct {
    const char *co, *kname, *timeline;
    unsigned grid[3], block[3];
    bool have_grid, have_block, stats;
    int threads, cus, mhz;
    emu_hazard_mode hazards;
    unsigned long long max_insts;
    named args[MAX_ARGS], dumps[MAX_ARGS];
    int nargs, ndumps;
    uint64_t threads_per_block;
} run_opts;

/* What a run holds: the emulator, the kernel, its argument buffers and
 * kernarg segment, the --dump outputs. run_release frees it all. */
typedef struct {
    const target *t;
    emu_device *d;
    emu_module *m;
    const emu_kernel *k;
    const emu_kernel_info *ki;
    buffer bufs[MAX_ARGS];
    ofile dumpf[MAX_ARGS];
    int dump_arg[MAX_ARGS]; /* the kernel argument (and bufs index) each --dump writes */
    const char *missing[64];
    int nmissing;
    uint8_t *ka;
} run_state;

/* --arg or --dump NAME=VALUE into its list (the '=' of v becomes a NUL). */
static int add_named(run_opts *o, const char *a, char *v)
{
    char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return usage_error("%s needs NAME=VALUE, got '%s'", a, v);
    named *list = a[2] == 'a' ? o->args : o->dumps;
    int *n = a[2] == 'a' ? &o->nargs : &o->ndumps;
    if (*n == MAX_ARGS)
        return usage_error("too many %s flags", a);
    *eq = 0;
    for (int j = 0; j < *n; j++)
        if (!strcmp(list[j].name, v))
            return usage_error("%s %s given twice", a, v);
    list[(*n)++] = (named){v, eq + 1};
    return 0;
}

/* One flag a with its value v: 0, or the usage error's 2. */
static int parse_value_flag(run_opts *o, const char *a, char *v)
{
    long x;
    if (!strcmp(a, "--co"))
        o->co = v;
    else if (!strcmp(a, "--kernel"))
        o->kname = v;
    else if (!strcmp(a, "--grid")) {
        if (parse_dims(a, v, o->grid))
            return 2;
        o->have_grid = true;
    } else if (!strcmp(a, "--block")) {
        if (parse_dims(a, v, o->block))
            return 2;
        o->have_block = true;
    } else if (!strcmp(a, "--threads")) {
        if (parse_num(a, v, 0, 1024, &x))
            return 2;
        o->threads = (int)x;
    } else if (!strcmp(a, "--hazards")) {
        if (strcmp(v, "error") && strcmp(v, "warn"))
            return usage_error("--hazards needs error or warn, got '%s'", v);
        o->hazards = v[0] == 'w' ? EMU_HAZARDS_WARN : EMU_HAZARDS_ERROR;
    } else if (!strcmp(a, "--max-wave-insts")) {
        if (parse_num(a, v, 1, LONG_MAX, &x))
            return 2;
        o->max_insts = (unsigned long long)x;
    } else if (!strcmp(a, "--cus") || !strcmp(a, "--clock-mhz")) {
        if (parse_num(a, v, 1, a[2] == 'c' && a[3] == 'u' ? 4096 : 10000, &x))
            return 2;
        *(a[3] == 'u' ? &o->cus : &o->mhz) = (int)x;
    } else if (!strcmp(a, "--timeline")) {
        if (cli_timeline_file(v))
            return 2;
        o->timeline = v;
    } else if (!strcmp(a, "--arg") || !strcmp(a, "--dump"))
        return add_named(o, a, v);
    else
        return usage_error("unknown flag '%s'", a);
    return 0;
}

/* The command line into *o: -1 to go on and run, else the exit status
 * (0 after --help, 2 bad usage). */
static int parse_emu_run(int argc, char **argv, run_opts *o)
{
    *o = (run_opts){.hazards = EMU_HAZARDS_ERROR};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            emu_run_help();
            return 0;
        }
        if (!strcmp(a, "--stats")) {
            o->stats = true;
            continue;
        }
        if (!v)
            return usage_error("flag '%s' needs a value", a);
        i++;
        if (parse_value_flag(o, a, v))
            return 2;
    }
    if (!o->co || !o->kname || !o->have_grid || !o->have_block)
        return usage_error("emu-run needs --co, --kernel, --grid and --block (see igemm emu-run --help)");
    for (int i = 0; i < 3; i++)
        if ((uint64_t)o->grid[i] * o->block[i] > UINT32_MAX)
            return usage_error("--grid times --block is %llu work-items in dimension %c, more than 2^32 - 1",
                               (unsigned long long)o->grid[i] * o->block[i], "xyz"[i]);
    o->threads_per_block = (uint64_t)o->block[0] * o->block[1] * o->block[2];
    if (o->threads_per_block > 1024)
        return usage_error("--block %u,%u,%u has %llu work-items, more than 1024", o->block[0], o->block[1],
                           o->block[2], (unsigned long long)o->threads_per_block);
    return -1;
}

/* The kernel's own limits against the command line: its argument names,
 * its largest and its required block. 0, or the usage error's 2. */
static int check_kernel_fits(const run_opts *o, const emu_kernel_info *ki)
{
    for (int i = 0; i < o->nargs; i++) {
        int j = 0;
        while (j < ki->nargs &&
               (strcmp(ki->args[j].name, o->args[i].name) || !strncmp(ki->args[j].value_kind, "hidden_", 7)))
            j++;
        if (j == ki->nargs)
            return usage_error("kernel %s has no argument '%s'", o->kname, o->args[i].name);
    }
    if (o->threads_per_block > (uint64_t)ki->max_block)
        return usage_error("--block has %llu work-items, kernel %s allows at most %d",
                           (unsigned long long)o->threads_per_block, o->kname, ki->max_block);
    const unsigned *b = o->block;
    if (ki->reqd_block[0] &&
        (ki->reqd_block[0] != (int)b[0] || ki->reqd_block[1] != (int)b[1] || ki->reqd_block[2] != (int)b[2]))
        return usage_error("kernel %s requires --block %d,%d,%d", o->kname, ki->reqd_block[0], ki->reqd_block[1],
                           ki->reqd_block[2]);
    return 0;
}

/* Read and load the code object, find the kernel, check it fits the
 * command line. 0, or the exit status (what was made is in *s for
 * run_release). */
static int load_kernel(const run_opts *o, run_state *s)
{
    size_t size = 0;
    void *image = read_file(o->co, &size);
    if (!image)
        return usage_error("cannot read code object '%s'", o->co);
    s->t = target_by_name(emu_elf_target(image, size));
    if (!s->t) {
        free(image);
        return usage_error("'%s' is not a code object for %s", o->co, target_names());
    }
    emu_options eo = {.threads = o->threads, .hazards = o->hazards, .max_wave_insts = o->max_insts,
                      .timing = o->stats || o->timeline, .num_cu = o->cus, .clock_ghz = o->mhz / 1e3,
                      .timeline = o->timeline};
    s->d = emu_create(s->t, &eo);
    char err[1024];
    int bad = !s->d || emu_load(s->d, image, size, &s->m, err, sizeof err);
    free(image);
    if (bad)
        return cli_error(2, "%s: %s", o->co, s->d ? err : "cannot create the emulator");
    if (!(s->k = emu_find_kernel(s->m, o->kname)))
        return usage_error("kernel '%s' is not in %s", o->kname, o->co);
    s->ki = emu_kernel_get_info(s->k);
    return check_kernel_fits(o, s->ki);
}

/* A buffer argument (bufs[i]) from "zeros:BYTES" or "@FILE", registered
 * with the emulator, its address stored at the argument's offset. */
static int fill_buffer_arg(run_state *s, int i, const char *value)
{
    const emu_arg *g = &s->ki->args[i];
    buffer *b = &s->bufs[i];
    if (!strncmp(value, "zeros:", 6)) {
        char *end;
        unsigned long long n = strtoull(value + 6, &end, 10);
        if (*end || !n || n > (1ull << 34))
            return usage_error("argument %s: zeros:BYTES needs a positive size, got '%s'", g->name, value);
        b->p = emu_buffer_alloc((size_t)n);
        b->size = (size_t)n;
    } else if (value[0] == '@') {
        void *data = read_file(value + 1, &b->size);
        if (!data)
            return usage_error("argument %s: cannot read '%s'", g->name, value + 1);
        if ((b->p = emu_buffer_alloc(b->size)))
            memcpy(b->p, data, b->size);
        free(data);
    } else
        return usage_error("argument %s is a buffer: give @FILE or zeros:BYTES, not '%s'", g->name, value);
    if (!b->p || emu_register(s->d, b->p, b->size ? b->size : 1))
        return usage_error("out of memory for argument %s", g->name);
    uint64_t addr = (uint64_t)(uintptr_t)b->p;
    memcpy(s->ka + g->offset, &addr, 8);
    return 0;
}

/* A by-value argument: "@FILE" holding exactly its bytes (a struct such as
 * our kernels' phase table: `igemm plan` prints them), "FLOATf" for a
 * 4-byte one, else an integer that fits its size, stored little endian at
 * its offset. */
static int fill_value_arg(uint8_t *ka, const emu_arg *g, const char *s)
{
    size_t len = strlen(s);
    char *end;
    if (s[0] == '@') {
        size_t n = 0;
        void *data = read_file(s + 1, &n);
        if (!data)
            return usage_error("argument %s: cannot read '%s'", g->name, s + 1);
        if (n != (size_t)g->size) {
            free(data);
            return usage_error("argument %s: '%s' has %zu bytes, the argument %d", g->name, s + 1, n, g->size);
        }
        memcpy(ka + g->offset, data, n);
        free(data);
        return 0;
    }
    if (len > 1 && (s[len - 1] == 'f' || s[len - 1] == 'F') && !strpbrk(s, "xX")) { /* 0x1F is hex */
        float f = strtof(s, &end);
        if (end != s + len - 1 || g->size != 4)
            return usage_error("argument %s: '%s' is not a float for a %d-byte argument", g->name, s, g->size);
        memcpy(ka + g->offset, &f, 4);
        return 0;
    }
    uint64_t v;
    if (!parse_int_arg(s, g->size, &v))
        return usage_error("argument %s: '%s' is not an integer that fits its %d bytes", g->name, s, g->size);
    memcpy(ka + g->offset, &v, (size_t)g->size); /* little endian: the low bytes */
    return 0;
}

/* The kernarg segment: hidden arguments as the runtime fills them, the
 * --arg values, the arguments not given noted in s->missing. */
static int build_kernargs(const run_opts *o, run_state *s)
{
    const emu_kernel_info *ki = s->ki;
    if (!(s->ka = calloc(1, (size_t)ki->kernarg_size + 8)))
        return usage_error("out of memory");
    for (int i = 0; i < ki->nargs; i++) {
        const emu_arg *g = &ki->args[i];
        if ((int64_t)g->offset + g->size > ki->kernarg_size)
            return usage_error("argument %s lies outside the kernarg segment", g->name);
        if (!strncmp(g->value_kind, "hidden_", 7)) {
            uint64_t hv = hidden_value(g->value_kind, o->grid, o->block);
            memcpy(s->ka + g->offset, &hv, (size_t)(g->size < 8 ? g->size : 8));
            continue;
        }
        const named *nv = find_named(o->args, o->nargs, g->name);
        if (!nv) {
            s->missing[s->nmissing++] = g->name; /* warned about once the command line is known to be good */
            continue;
        }
        bool is_buf = !strcmp(g->value_kind, "global_buffer") || !strcmp(g->value_kind, "dynamic_shared_pointer");
        if (is_buf ? fill_buffer_arg(s, i, nv->value) : fill_value_arg(s->ka, g, nv->value))
            return 2;
    }
    return 0;
}

/* Each --dump names a buffer given with --arg; its output is opened now:
 * an unwritable path is bad usage, found before the run; the file itself
 * is replaced only after a clean run. */
static int open_dumps(const run_opts *o, run_state *s)
{
    for (int i = 0; i < o->ndumps; i++) {
        int j;
        for (j = 0; j < s->ki->nargs && (strcmp(s->ki->args[j].name, o->dumps[i].name) || !s->bufs[j].p); j++)
            ;
        if (j == s->ki->nargs)
            return usage_error("--dump %s: not a buffer argument given with --arg", o->dumps[i].name);
        s->dump_arg[i] = j;
        char why[1200];
        if (ofile_open(&s->dumpf[i], o->dumps[i].value, why, sizeof why))
            return usage_error("--dump %s: %s", o->dumps[i].name, why);
    }
    return 0;
}

/* Launch: 0, or the fault's exit status 1 (hazard findings printed either way). */
static int launch_kernel(const run_opts *o, run_state *s, emu_stats *st)
{
    char err[1024];
    int lrc = emu_launch(s->d, s->k, o->grid, o->block, s->ka, (size_t)s->ki->kernarg_size, st, err, sizeof err);
    print_hazard_findings(st, s->t->name, o->kname);
    return lrc ? cli_error(1, "%s", err) : 0;
}

/* After a clean run: the --dump files written and committed (1 when one
 * cannot be). */
static int write_dumps(const run_opts *o, run_state *s)
{
    int rc = 0;
    for (int i = 0; i < o->ndumps; i++) {
        const buffer *b = &s->bufs[s->dump_arg[i]];
        char why[1200];
        if (b->size)
            fwrite(b->p, 1, b->size, s->dumpf[i].f);
        if (ofile_commit(&s->dumpf[i], why, sizeof why))
            rc = cli_error(1, "--dump %s: %s", o->dumps[i].name, why);
    }
    return rc;
}

/* --stats: instruction counts, issue cycles and the timing model's view. */
static void report_stats(const run_opts *o, const run_state *s, const emu_stats *st)
{
    emu_device *d = s->d;
    printf("kernel %s on %s: %llu workgroups, %llu waves\n", o->kname, s->t->name, (unsigned long long)st->workgroups,
           (unsigned long long)st->waves);
    for (int c = 0; c < EC_COUNT; c++)
        if (st->insts[c])
            printf("  %-13s %12llu instructions %14llu cycles\n", emu_class_names[c],
                   (unsigned long long)st->insts[c], (unsigned long long)st->cycles[c]);
    printf("  global memory: %llu bytes read, %llu written; LDS: %llu read, %llu written\n",
           (unsigned long long)st->global_read, (unsigned long long)st->global_written,
           (unsigned long long)st->lds_read, (unsigned long long)st->lds_written);
    printf("  modeled issue cycles: %llu\n", (unsigned long long)emu_stats_cycles(st));
    if (!st->model_launches || st->model_failed) {
        printf("  modeled time: not available (the timing model could not time this launch)\n");
        return;
    }
    double us = (double)st->model_cycles / (emu_clock_ghz(d) * 1e3);
    printf("  modeled time: %.3f us (%llu cycles at %.3f GHz on %d CUs), limit: %s\n", us,
           (unsigned long long)st->model_cycles, emu_clock_ghz(d), emu_num_cu(d),
           emu_limit_names[emu_model_limit(st->model_cycles, st->model_busy)]);
    printf("  modeled busy cycles: vector ALU %llu, matrix %llu, LDS %llu, memory %llu\n",
           (unsigned long long)st->model_busy[EL_COMPUTE], (unsigned long long)st->model_busy[EL_MATRIX],
           (unsigned long long)st->model_busy[EL_LDS], (unsigned long long)st->model_busy[EL_MEMORY]);
    print_model_memory(st, s->ki, s->bufs, s->t->tm.line_bytes);
}

static void run_release(const run_opts *o, run_state *s)
{
    for (int i = 0; i < o->ndumps; i++)
        if (s->dumpf[i].f)
            ofile_abort(&s->dumpf[i]); /* removes only its temporary file */
    for (int i = 0; i < MAX_ARGS; i++)
        if (s->bufs[i].p) {
            emu_unregister(s->d, s->bufs[i].p);
            emu_buffer_free(s->bufs[i].p);
        }
    free(s->ka);
    emu_module_free(s->m);
    emu_destroy(s->d);
}

int cmd_emu_run(int argc, char **argv)
{
    run_opts o;
    int rc = parse_emu_run(argc, argv, &o);
    if (rc >= 0)
        return rc;
    run_state s = {0};
    if (!(rc = load_kernel(&o, &s)) && !(rc = build_kernargs(&o, &s)) && !(rc = open_dumps(&o, &s))) {
        for (int i = 0; i < s.nmissing; i++)
            cli_warning("argument %s not given, passing 0", s.missing[i]);
        emu_stats st = {0};
        if (!(rc = launch_kernel(&o, &s, &st))) {
            rc = write_dumps(&o, &s);
            if (o.stats)
                report_stats(&o, &s, &st);
        }
    }
    run_release(&o, &s);
    return rc;
}
