/* Subcommands of the igemm CLI. Each returns the process exit status:
 * 0 success, 1 a failed run or verification, 2 bad usage. */
#ifndef IGEMM_CLI_H
#define IGEMM_CLI_H

int cmd_conv(int argc, char **argv);
int cmd_emu_run(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_solutions(int argc, char **argv);
int cmd_arch(int argc, char **argv);

/* Every configuration: number, name, kind, math, type, layout, tile and
 * threads, the targets whose code objects carry it (cli_solutions.c). */
void print_solutions(void);

/* The targets whose code objects the library carries, "gfx906, gfx908, ...",
 * from the public igemm_codeobj_get (the targets a handle can be created
 * for; emulate-only targets have none). */
const char *cli_library_targets(void);

/* Print "igemm: <message>" on stderr, one line whatever the message holds
 * (control bytes of echoed values are written as \n, \t, \xNN), and return
 * status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_error(2, ...): bad usage. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "igemm: warning: <message>", one line as cli_error's. */
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "igemm note: <message>": information, not a problem (errors and warnings
 * start with "igemm: "), one line as cli_error's. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --timeline FILE (conv, emu-run): FILE made empty, the timing model then
 * appends a section per launch to it; returns 0, else the usage error's 2
 * naming it. */
int cli_timeline_file(const char *path);

/* The decimal integer s, the value of flag, into *out when it lies in
 * [lo, hi]: returns 0, else the usage error's 2 (s NULL or empty included). */
int parse_num(const char *flag, const char *s, long lo, long hi, long *out);

#endif
