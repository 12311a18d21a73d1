/* igemm manifest: describe the code objects for libraries that load and
 * launch the kernels themselves.
 *
 *   igemm manifest [--codeobj-dir DIR] [-o FILE.json]
 *
 * The JSON lists, per target, the code object's kernels as its metadata
 * declares them (argument names, offsets, sizes, kinds; kernarg size,
 * registers, LDS), the argument layouts of arch/kargs.h with their
 * descriptions, every kernel configuration ("solution") with the targets
 * that have it, the kernels its launch plans use, and the applicability
 * rules. Without --codeobj-dir the code objects embedded in the library
 * are described. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/emu.h"
#include "../runtime/codeobj.h"
#include "../include/igemm.h"
#include "../arch/kargs.h"
#include "../conv/ofile.h"
#include "../conv/solver.h"
#include "../conv/util.h"
#include "cli.h"

typedef struct {
    FILE *f;
    int first; /* no comma before the next element */
} json;

static void jstr(json *j, const char *s)
{
    fputc('"', j->f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(j->f, "\\%c", c);
        else if (c < 32)
            fprintf(j->f, "\\u%04x", c);
        else
            fputc(c, j->f);
    }
    fputc('"', j->f);
}

static void jsep(json *j)
{
    if (!j->first)
        fputs(", ", j->f);
    j->first = 0;
}

static void jkey(json *j, const char *k)
{
    jsep(j);
    jstr(j, k);
    fputs(": ", j->f);
}

static void jkv_str(json *j, const char *k, const char *v)
{
    jkey(j, k);
    jstr(j, v);
}

static void jkv_int(json *j, const char *k, long long v)
{
    jkey(j, k);
    fprintf(j->f, "%lld", v);
}

static void jopen(json *j, char c)
{
    fputc(c, j->f);
    j->first = 1;
}

static void jclose(json *j, char c)
{
    fputc(c, j->f);
    j->first = 0;
}

/* ---- kargs.h layouts ---- */

#define LAYOUT_FIELD(type, name, desc)                                                                               \
    jsep(j);                                                                                                         \
    jopen(j, '{');                                                                                                   \
    jkv_str(j, "name", #name);                                                                                       \
    jkv_str(j, "type", #type);                                                                                       \
    jkv_int(j, "offset", (long long)offsetof(LAYOUT_STRUCT, name));                                                 \
    jkv_int(j, "size", (long long)sizeof(((LAYOUT_STRUCT *)0)->name));                                              \
    jkv_str(j, "desc", desc);                                                                                        \
    jclose(j, '}');

#define LAYOUT(list, strct)                                                                                          \
    jsep(j);                                                                                                         \
    jopen(j, '{');                                                                                                   \
    jkv_str(j, "struct", #strct);                                                                                    \
    jkv_int(j, "size", (long long)sizeof(strct));                                                                   \
    jkey(j, "fields");                                                                                               \
    jopen(j, '[');                                                                                                   \
    list(LAYOUT_FIELD) jclose(j, ']');                                                                               \
    jclose(j, '}');

static void layouts(json *j)
{
    jkey(j, "argument_layouts");
    jopen(j, '[');
#define LAYOUT_STRUCT igemm_naive_args
    LAYOUT(IGEMM_NAIVE_ARGS, igemm_naive_args)
#undef LAYOUT_STRUCT
#define LAYOUT_STRUCT igemm_fill_args
    LAYOUT(IGEMM_FILL_ARGS, igemm_fill_args)
#undef LAYOUT_STRUCT
#ifdef IGEMM_V4R1_ARGS
#define LAYOUT_STRUCT igemm_v4r1_args
    LAYOUT(IGEMM_V4R1_ARGS, igemm_v4r1_args)
#undef LAYOUT_STRUCT
#endif
#ifdef IGEMM_STATIC_ARGS
#define LAYOUT_STRUCT igemm_static_args
    LAYOUT(IGEMM_STATIC_ARGS, igemm_static_args)
#undef LAYOUT_STRUCT
#endif
    jclose(j, ']');
}

/* ---- configurations ---- */

/* Problems whose plans show which kernels a configuration launches: plain,
 * padded 3x3, strided (several phases), and one with uncovered dx pixels
 * (zero fill). */
static const igemm_problem probes[] = {
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 1, .x = 1, .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1,
     .groups = 1},
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 3, .x = 3, .pad_h = 1, .pad_w = 1, .stride_h = 1, .stride_w = 1,
     .dil_h = 1, .dil_w = 1, .groups = 1},
    {.n = 1, .c = 8, .hi = 9, .wi = 9, .k = 8, .y = 3, .x = 3, .pad_h = 1, .pad_w = 1, .stride_h = 2, .stride_w = 2,
     .dil_h = 1, .dil_w = 1, .groups = 1},
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 1, .x = 1, .stride_h = 2, .stride_w = 2, .dil_h = 1, .dil_w = 1,
     .groups = 1},
};

static const char *kind_name(int kind)
{
    switch (kind) {
    case SOLVER_NAIVE: return "naive";
    case SOLVER_V4R1: return "v4r1";
    }
    return "other";
}

/* The rules a kind of configuration applies on top of igemm_problem_check. */
static const char *kind_rules(int kind)
{
    switch (kind) {
    case SOLVER_NAIVE:
        return "every valid problem whose single image (dx or dy of one n) stays below launch_max_bytes; one "
               "work-item per dx element";
    default:
        return "configuration-specific: ask igemm_applicable(), which returns the reason when it refuses";
    }
}

static void solutions(json *j, igemm_handle *const *h, const char *const *arch, int nt)
{
    jkey(j, "solutions");
    jopen(j, '[');
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        jsep(j);
        jopen(j, '{');
        jkv_str(j, "name", s->name);
        jkv_str(j, "kind", kind_name(s->kind));
        jkv_str(j, "layout", igemm_layout_get(s->layout)->upper);
        jkv_str(j, "dtype", igemm_dtype_get(s->dtype)->name);
        jkv_str(j, "rules", kind_rules(s->kind));
        jkey(j, "targets");
        jopen(j, '[');
        for (int t = 0; t < nt; t++)
            if (s->available(s, target_by_name(arch[t]))) {
                jsep(j);
                jstr(j, arch[t]);
            }
        jclose(j, ']');
        /* kernels of the plans of the probe problems, on every target */
        char seen[64][128];
        int nseen = 0;
        for (int t = 0; t < nt; t++)
            for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
                igemm_launch l[64];
                int n;
                igemm_problem pr = probes[p];
                pr.layout = s->layout, pr.dtype = s->dtype;
                if (igemm_get_launches(h[t], &pr, s->name, l, 64, &n) != IGEMM_OK)
                    continue;
                for (int k = 0; k < n; k++) {
                    int dup = 0;
                    for (int q = 0; q < nseen && !dup; q++)
                        dup = !strcmp(seen[q], l[k].kernel);
                    if (!dup && nseen < 64) {
                        size_t len = strnlen(l[k].kernel, sizeof seen[0] - 1);
                        memcpy(seen[nseen], l[k].kernel, len);
                        seen[nseen++][len] = 0;
                    }
                }
            }
        jkey(j, "kernels");
        jopen(j, '[');
        for (int q = 0; q < nseen; q++) {
            jsep(j);
            jstr(j, seen[q]);
        }
        jclose(j, ']');
        jclose(j, '}');
    }
    jclose(j, ']');
}

/* ---- code objects ---- */

static int code_object(json *j, const char *arch, const void *image, size_t size, const char *file, char *err,
                       size_t errlen)
{
    emu_device *d = emu_create(target_by_name(arch), &(emu_options){.threads = 1});
    emu_module *m = NULL;
    if (!d || emu_load(d, image, size, &m, err, errlen)) {
        if (!d)
            snprintf(err, errlen, "cannot create an emulator for %s", arch);
        emu_destroy(d);
        return -1;
    }
    jsep(j);
    jopen(j, '{');
    jkv_str(j, "arch", arch);
    if (file)
        jkv_str(j, "file", file);
    jkv_int(j, "size", (long long)size);
    jkey(j, "kernels");
    jopen(j, '[');
    for (int i = 0; i < emu_module_kernel_count(m); i++) {
        const emu_kernel_info *k = emu_kernel_get_info(emu_module_kernel(m, i));
        jsep(j);
        jopen(j, '{');
        jkv_str(j, "name", k->name);
        jkv_int(j, "kernarg_size", k->kernarg_size);
        jkv_int(j, "group_segment_size", k->lds_bytes);
        jkv_int(j, "vgprs", k->vgprs);
        jkv_int(j, "agprs", k->agprs);
        jkv_int(j, "sgprs", k->sgprs);
        jkv_int(j, "max_workgroup_size", k->max_block);
        jkey(j, "args");
        jopen(j, '[');
        for (int a = 0; a < k->nargs; a++) {
            jsep(j);
            jopen(j, '{');
            jkv_str(j, "name", k->args[a].name);
            jkv_int(j, "offset", k->args[a].offset);
            jkv_int(j, "size", k->args[a].size);
            jkv_str(j, "kind", k->args[a].value_kind);
            jclose(j, '}');
        }
        jclose(j, ']');
        jclose(j, '}');
    }
    jclose(j, ']');
    jclose(j, '}');
    emu_module_free(m);
    emu_destroy(d);
    return 0;
}

int cmd_manifest(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: igemm manifest [--codeobj-dir DIR] [-o FILE.json]\n"
                 "Describes the code objects (DIR/<arch>.hsaco, or the embedded ones), their kernels and\n"
                 "argument layouts, and the kernel configurations with their applicability rules.");
            return 0;
        }
        if (strcmp(argv[i], "--codeobj-dir") && strcmp(argv[i], "-o"))
            return usage_error(argv[i][0] == '-' ? "unknown flag '%s'" : "unexpected argument '%s'", argv[i]);
        if (i + 1 >= argc)
            return usage_error("flag '%s' needs a value", argv[i]);
        if (!strcmp(argv[i], "--codeobj-dir"))
            dir = argv[++i];
        else
            out = argv[++i];
    }
    /* the targets, in table order */
    const char *arch[16];
    igemm_handle *h[16];
    void *img[16];
    size_t size[16];
    int nt = 0, rc = 1;
    char why[1024];
    for (int t = 0; t < igemm_target_count && nt < 16; t++) {
        const char *a = igemm_targets[t]->name;
        img[nt] = NULL;
        if (dir) {
            char path[1024], bad[1200];
            snprintf(path, sizeof path, "%s/%s.hsaco", dir, a);
            int state = codeobj_file_check(path, bad, sizeof bad);
            if (state > 0)
                continue; /* the directory need not hold every target */
            if (state < 0 || !(img[nt] = read_file(path, &size[nt]))) {
                rc = state < 0 ? usage_error("%s", bad) : cli_error(1, "cannot read code object %s", path);
                goto out;
            }
        } else if (!igemm_codeobj_find(a))
            continue;
        igemm_options o = IGEMM_OPTIONS_INIT;
        o.backend = IGEMM_BACKEND_EMU;
        o.arch = a;
        o.codeobj_dir = dir;
        o.emu_threads = 1;
        if (igemm_create(&h[nt], &o, why, sizeof why) != IGEMM_OK) {
            free(img[nt]);
            rc = cli_error(dir ? 2 : 1, "%s", why);
            goto out;
        }
        arch[nt++] = a;
    }
    if (!nt) {
        rc = usage_error("no code objects %s%s", dir ? "in " : "embedded", dir ? dir : "");
        goto out;
    }
    /* through a temporary file: a failed write leaves an older manifest */
    ofile of;
    if (ofile_open(&of, out, why, sizeof why)) {
        rc = cli_error(1, "%s", why);
        goto out;
    }
    FILE *f = of.f;
    json j = {.f = f, .first = 1};
    jopen(&j, '{');
    jkv_str(&j, "format", "igemm-manifest-1");
    jkv_str(&j, "igemm_version", igemm_version());
    jkey(&j, "problem");
    jopen(&j, '{');
    jkv_str(&j, "layouts", "NCHW, NHWC (dx, dy and the filter alike)");
    jkv_str(&j, "dtypes", "fp32, fp16, bf16 (dx, dy and w alike; fp32 accumulation; each configuration below "
                          "has one, its \"dtype\")");
    jkv_str(&j, "fp16_modes", "accurate (default), flush (fp16 on targets whose fp16 matrix instructions flush "
                              "denormals: gfx90a)");
    jkv_str(&j, "rules", "as igemm_problem_check(): every size, stride, dilation and group count >= 1, pads >= 0, "
                         "output size >= 1, groups divide c and k, tensors within the documented limits");
    jclose(&j, '}');
    jkv_int(&j, "launch_max_bytes", (long long)LAUNCH_MAX_BYTES);
    jkv_str(&j, "launch_rules",
            "32-bit buffer offsets: every tensor slice one launch touches stays below launch_max_bytes; larger "
            "batches are split across launches (igemm_get_launches gives the exact launches of a problem)");
    layouts(&j);
    solutions(&j, h, arch, nt);
    jkey(&j, "code_objects");
    jopen(&j, '[');
    int bad = 0;
    for (int t = 0; t < nt && !bad; t++) {
        const void *image = img[t];
        size_t sz = size[t];
        char file[64];
        snprintf(file, sizeof file, "%s.hsaco", arch[t]);
        if (!dir) {
            const igemm_codeobj *co = igemm_codeobj_find(arch[t]);
            image = co->data;
            sz = co->size;
        }
        if (code_object(&j, arch[t], image, sz, dir ? file : NULL, why, sizeof why)) {
            cli_error(1, "%s: %s", arch[t], why);
            bad = 1;
        }
    }
    jclose(&j, ']');
    jclose(&j, '}');
    fputc('\n', f);
    if (bad) {
        ofile_abort(&of);
        goto out;
    }
    if (ofile_commit(&of, why, sizeof why)) {
        rc = cli_error(1, "%s", why);
        goto out;
    }
    rc = 0;
out:
    for (int t = 0; t < nt; t++) {
        igemm_destroy(h[t]);
        free(img[t]);
    }
    return rc;
}
