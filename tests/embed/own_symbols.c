/* An application with its own functions of the names libigemm uses
 * internally (read_file, parse_long, plan_add, target_by_name, emu_create):
 * it must link statically with libigemm.a, and the library must keep
 * calling its own (each of these aborts when called). It runs one 1x1
 * problem on the emulator from a code object directory (read_file's path
 * inside the library) and prints dx. */
#include <igemm.h>
#include <stdio.h>
#include <stdlib.h>

void *read_file(const char *path, size_t *size);
int parse_long(const char *s, long lo, long hi, long *out);
int plan_add(void *plan);
const void *target_by_name(const char *name);
void *emu_create(const void *t, const void *opt);

void *read_file(const char *path, size_t *size) { (void)path; (void)size; abort(); }
int parse_long(const char *s, long lo, long hi, long *out) { (void)s; (void)lo; (void)hi; (void)out; abort(); }
int plan_add(void *plan) { (void)plan; abort(); }
const void *target_by_name(const char *name) { (void)name; abort(); }
void *emu_create(const void *t, const void *opt) { (void)t; (void)opt; abort(); }

int main(int argc, char **argv)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = "gfx908";
    o.emu_threads = 1;
    o.codeobj_dir = argc > 1 ? argv[1] : NULL;
    igemm_handle *h;
    char why[512];
    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.c = 2;
    p.hi = 1;
    p.wi = 3;
    float dy[3] = {1, 2, 3}, w[2] = {0.5f, -2}, dx[6];
    if (igemm_conv_bwd_data(h, &p, dx, dy, w) != IGEMM_OK) {
        fprintf(stderr, "%s\n", igemm_last_error(h));
        return 1;
    }
    for (int i = 0; i < 6; i++)
        printf("%g\n", dx[i]);
    igemm_destroy(h);
    return 0;
}
