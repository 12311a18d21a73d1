/* igemmgen: writes the assembly of every igemm kernel for one GPU target.
 *
 *   igemmgen --arch gfx906 -o build/co/gfx906.s
 *   igemmgen --list-targets
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "kern.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: igemmgen --arch TARGET [-o FILE.s]\n"
            "       igemmgen --list-targets\n"
            "Writes the assembly of every kernel for TARGET (%s).\n",
            target_names());
}

static int write_file(const char *path, const char *text, size_t len)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "igemmgen: cannot write %s\n", path);
        return -1;
    }
    size_t w = fwrite(text, 1, len, f);
    int bad = w != len;
    if (path && fclose(f))
        bad = 1;
    if (bad) {
        fprintf(stderr, "igemmgen: error writing %s\n", path ? path : "stdout");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *arch = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            arch = argv[++i];
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--list-targets")) {
            for (int t = 0; t < igemm_target_count; t++)
                printf("%s\t%s\n", igemm_targets[t]->name, igemm_targets[t]->family);
            return 0;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "igemmgen: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!arch) {
        usage(stderr);
        return 2;
    }
    const target *t = target_by_name(arch);
    if (!t) {
        fprintf(stderr, "igemmgen: unknown target '%s' (known: %s)\n", arch, target_names());
        return 2;
    }
    emit e;
    emit_init(&e, t);
    emit_begin_file(&e);
    kern_naive(&e);
    kern_fill_zero(&e);
    for (int i = 0; i < v4r1_config_count; i++) {
        v4r1_config c = v4r1_configs[i];
        char why[256], name[128];
        if (v4r1_config_derive(&c, why, sizeof why)) {
            fprintf(stderr, "igemmgen: configuration %d: %s\n", i, why);
            emit_free(&e);
            return 1;
        }
        v4r1_config_name(&c, name, sizeof name);
        kern_v4r1(&e, &c, NULL, name);
    }
    if (emit_finish(&e)) {
        fprintf(stderr, "igemmgen: %s\n", e.err);
        emit_free(&e);
        return 1;
    }
    int rc = write_file(out, e.buf, e.len) ? 1 : 0;
    emit_free(&e);
    return rc;
}
