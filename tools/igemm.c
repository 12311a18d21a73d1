/* igemm: the command-line tool.
 *
 *   igemm conv -n N -c C -H H -W W -k K -y Y -x X ... -F 2 [-V 1] [--arch gfx908]
 *   igemm convfp16 ... / igemm convbfp16 ...  (fp16 / bf16 tensors, same flags)
 *   igemm emu-run --co FILE.hsaco --kernel NAME --grid GX,GY,GZ --block BX,BY,BZ ...
 *   igemm manifest [--codeobj-dir DIR] [-o FILE.json]
 *   igemm plan conv -n N ... -F 2 --arch gfxNNN [--solution NAME] [--json]
 *   igemm solutions, igemm --version; a leading MIOpenDriver word is skipped
 *   igemm arch [--arch gfxNNN] [--peak fp32|fp16|bf16]  (targets' facts, matrix peaks)
 *
 * See README.md for every flag. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conv/driver_flags.h"
#include "../conv/util.h"
#include "../include/igemm.h"
#include "cli.h"

/* The library names the C caller's knobs (IGEMM_KNOB_*); the CLI's user
 * has flags: msg with each phrase replaced, in place. */
static void cli_knobs(char *msg, size_t cap)
{
    static const char *const knob[][2] = {
        {IGEMM_KNOB_EMU " with " IGEMM_KNOB_ARCH, "--backend emu --arch TARGET"},
        {IGEMM_KNOB_EMU, "--backend emu"},
        {IGEMM_KNOB_ARCH, "--arch"},
    };
    for (size_t k = 0; k < sizeof knob / sizeof knob[0]; k++)
        for (char *at; (at = strstr(msg, knob[k][0]));) {
            size_t old = strlen(knob[k][0]), rep = strlen(knob[k][1]), tail = strlen(at + old) + 1;
            if (rep > old && strlen(msg) + rep - old >= cap)
                break;
            memmove(at + rep, at + old, tail);
            memcpy(at, knob[k][1], rep);
        }
}

/* prefix + the message on one line of stderr. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    cli_knobs(msg, sizeof msg);
    fputs(prefix, stderr);
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
        if (*c == '\n')
            fputs("\\n", stderr);
        else if (*c == '\t')
            fputs("\\t", stderr);
        else if (*c < 32 || *c == 127)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
    }
    fputc('\n', stderr);
}

const char *cli_library_targets(void)
{
    static char names[256];
    size_t n = 0;
    for (int i = 0; i < igemm_codeobj_count() && n < sizeof names; i++) {
        const char *arch;
        const void *image;
        size_t size;
        if (igemm_codeobj_get(i, &arch, &image, &size) == IGEMM_OK)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", arch);
    }
    return names;
}

int cli_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("igemm: ", fmt, ap);
    va_end(ap);
    return status;
}

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("igemm: ", fmt, ap);
    va_end(ap);
    return 2;
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("igemm: warning: ", fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("igemm note: ", fmt, ap);
    va_end(ap);
}

int cli_timeline_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return usage_error("cannot write the timeline file '%s'", path);
    fclose(f);
    return 0;
}

int parse_num(const char *flag, const char *s, long lo, long hi, long *out)
{
    if (parse_long(s, lo, hi, out))
        return usage_error("flag '%s' needs an integer in [%ld, %ld], got '%s'", flag, lo, hi, s ? s : "(nothing)");
    return 0;
}

static void help(FILE *f)
{
    fputs("usage: igemm conv [MIOpenDriver flags] [-V 1] [-t 1] [--arch gfxNNN] [--backend emu|hip] ...\n"
          "       igemm convfp16 ... | igemm convbfp16 ...  (the same, fp16 / bf16 tensors)\n"
          "       igemm conv --input SHAPES.txt [--batch N] ...\n"
          "       igemm emu-run --co FILE.hsaco --kernel NAME --grid X,Y,Z --block X,Y,Z [--arg NAME=VALUE]...\n"
          "       igemm manifest [--codeobj-dir DIR] [-o FILE.json]\n"
          "       igemm plan conv [MIOpenDriver flags] --arch gfxNNN [--solution NAME] [--json]\n"
          "       igemm solutions    (every kernel configuration: tile, math, type, layout)\n"
          "       igemm arch [--arch gfxNNN] [--peak fp32|fp16|bf16]  (CUs, clock, matrix peak per type)\n"
          "       igemm --version\n"
          "A pasted MIOpenDriver command line works as it is: igemm ./bin/MIOpenDriver conv ...\n"
          "Run 'igemm SUBCOMMAND --help' for the flags of a subcommand.\n",
          f);
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        help(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        help(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("igemm %s (library %s)\n", IGEMM_VERSION, igemm_version());
        return 0;
    }
    while (argc > 2 && driver_is_env_assignment(argv[1])) { /* "igemm MIOPEN_FIND_MODE=1 ./bin/MIOpenDriver ..." */
        argc--;
        argv++;
    }
    if (driver_is_program(argv[1])) { /* "igemm ./bin/MIOpenDriver conv ...": a pasted command line */
        argc--;
        argv++;
        if (argc < 2)
            return usage_error("'%s' needs a command (conv, convfp16, convbfp16)", argv[0]);
    }
    if (!strcmp(argv[1], "conv") || !strcmp(argv[1], "convfp16") || !strcmp(argv[1], "convbfp16"))
        return cmd_conv(argc - 1, argv + 1); /* the command word gives the data type */
    if (!strcmp(argv[1], "emu-run"))
        return cmd_emu_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "manifest"))
        return cmd_manifest(argc - 1, argv + 1);
    if (!strcmp(argv[1], "plan"))
        return cmd_plan(argc - 1, argv + 1);
    if (!strcmp(argv[1], "solutions"))
        return cmd_solutions(argc - 1, argv + 1);
    if (!strcmp(argv[1], "arch"))
        return cmd_arch(argc - 1, argv + 1);
    return usage_error("unknown command '%s' (commands: conv, convfp16, convbfp16, emu-run, manifest, plan, "
                       "solutions, arch)", argv[1]);
}

/* A report that did not reach standard output (> /dev/full, a closed pipe
 * reader) is a failed run, not a success. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    int err = ferror(stdout) ? errno : 0;
    if ((fflush(stdout) || ferror(stdout)) && !rc) /* a failed command has said why already */
        return cli_error(1, "error writing standard output: %s", strerror(err ? err : errno));
    return rc;
}
