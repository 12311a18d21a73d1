/* libigemm as an embedding application links it: only the functions
 * include/igemm.h declares are global in libigemm.a and exported from
 * libigemm.so; an application may define functions with the names the
 * library uses inside (tests/embed/own_symbols.c) and link statically; the
 * header compiles in a C++17 translation unit without warnings
 * (tests/embed/cxx17.cpp). The list of declared functions is read from the
 * header here, by this file's own parser. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifndef TEST_CC
#define TEST_CC "cc"
#endif
#ifndef TEST_SANFLAGS
#define TEST_SANFLAGS ""
#endif

/* Run a shell command; its stdout (malloc'd) and exit status. */
static char *sh(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *sh(int *status, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    tc_sbuf b = {0};
    tc_put(&b, "%s", "");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        tc_put(&b, "%.*s", (int)n, buf);
    int rc = pclose(f);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return b.s;
}

/* Is name one of the newline-separated words of list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
            return 1;
    return 0;
}

/* The functions the header declares: "type igemm_name(" on a line that
 * starts with a letter (declarations, not comments or macros). */
static char *declared(int *count)
{
    size_t len;
    char *h = read_file("include/igemm.h", &len);
    assert_non_null(h);
    tc_sbuf b = {0};
    tc_put(&b, "%s", "");
    *count = 0;
    for (char *line = h; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        char *paren = strchr(line, '(');
        if (isalpha((unsigned char)line[0]) && strncmp(line, "typedef", 7) && paren) {
            char *s = paren;
            while (s > line && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
                s--;
            if (!strncmp(s, "igemm_", 6) && s > line) {
                tc_put(&b, "%.*s\n", (int)(paren - s), s);
                ++*count;
            }
        }
        line = end ? end + 1 : NULL;
    }
    free(h);
    return b.s;
}

/* Every defined global symbol of the nm output is a declared function, and
 * every declared function is there. */
static void check_globals(const char *what, const char *nm_out, const char *decl)
{
    int n = 0;
    for (const char *line = nm_out; *line;) {
        size_t w = strcspn(line, "\n");
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)w, line);
        char *at = strchr(name, '@');
        if (at)
            *at = 0;
        if (name[0] && !in_list(decl, name))
            fail_msg("%s defines the global symbol '%s', which include/igemm.h does not declare", what, name);
        n += name[0] != 0;
        line += w + (line[w] == '\n');
    }
    for (const char *d = decl; *d;) {
        size_t w = strcspn(d, "\n");
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)w, d);
        if (!in_list(nm_out, name) && !strstr(nm_out, strcat(name, "@")))
            fail_msg("%s lacks %s, which include/igemm.h declares", what, name);
        d += w + (d[w] == '\n');
    }
    assert_true(n > 20);
}

static void archive_and_shared_library_globals(void **state)
{
    (void)state;
    int n, st;
    char *decl = declared(&n);
    assert_true(n > 30);
    assert_true(in_list(decl, "igemm_create") && in_list(decl, "igemm_synchronize") &&
                in_list(decl, "igemm_problem_init"));
    /* globals defined in the archive: nm prints "ADDR T name" */
    char *a = sh(&st, "nm -g --defined-only %s/lib/libigemm.a | awk 'NF == 3 { print $3 }'", BUILD_DIR);
    assert_int_equal(st, 0);
    check_globals("libigemm.a", a, decl);
    char *so = sh(&st, "nm -D --defined-only %s/lib/libigemm.so | awk 'NF == 3 && $2 != \"A\" { print $3 }'",
                  BUILD_DIR);
    assert_int_equal(st, 0);
    check_globals("libigemm.so", so, decl);
    /* the internal archive the CLI and tests link is the one with them all */
    char *in = sh(&st, "nm -g --defined-only %s/lib/libigemm_internal.a | awk 'NF == 3 { print $3 }'", BUILD_DIR);
    assert_true(in_list(in, "read_file") && in_list(in, "emu_create"));
    assert_false(in_list(a, "read_file"));
    free(decl);
    free(a);
    free(so);
    free(in);
}

/* Compile src with `compiler` against the public libigemm.a into
 * BUILD_DIR/tests/embed/NAME, run it with arg; its stdout (malloc'd).
 * Fails the test when it does not build or exits non-zero. */
static char *build_and_run(const char *compiler, const char *src, const char *name, const char *arg)
{
    int st;
    char *log = sh(&st,
                   "mkdir -p %s/tests/embed && %s -Wall -Wextra -Werror %s -Iinclude %s %s/lib/libigemm.a "
                   "-o %s/tests/embed/%s -lm -lpthread -ldl 2>&1",
                   BUILD_DIR, compiler, TEST_SANFLAGS, src, BUILD_DIR, BUILD_DIR, name);
    if (st)
        fail_msg("building %s against libigemm.a: %s", src, log);
    free(log);
    char *out = sh(&st, "%s/tests/embed/%s %s 2>&1", BUILD_DIR, name, arg);
    if (st)
        fail_msg("%s: exit %d: %s", name, st, out);
    return out;
}

static void application_with_own_read_file(void **state)
{
    (void)state;
    char *out = build_and_run(TEST_CC " -std=c11", "tests/embed/own_symbols.c", "own_symbols", BUILD_DIR "/co");
    /* dx[c][i] = w[c] * dy[i] */
    assert_string_equal(out, "0.5\n1\n1.5\n-2\n-4\n-6\n");
    free(out);
}

static void cxx17_translation_unit(void **state)
{
    (void)state;
    char *out = build_and_run("c++ -std=c++17 -Wpedantic", "tests/embed/cxx17.cpp", "cxx17", "");
    tc_expect_contains(out, IGEMM_VERSION " ");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(archive_and_shared_library_globals),
        cmocka_unit_test(application_with_own_read_file),
        cmocka_unit_test(cxx17_translation_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
