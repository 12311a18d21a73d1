/* The installed library as another project uses it: `make install` into a
 * temporary PREFIX, then a small C program that includes only <igemm.h> is
 * compiled with `pkg-config --cflags --libs igemm` (shared library) and
 * once more linked statically, and run on the emulator backend. Its dx is
 * checked against values this test computes from the definition.
 *
 * Also: the header is self-contained (C99 -pedantic and C++), the .so
 * exports exactly the functions the header declares, and share/igemm holds
 * the code objects with their manifest.
 *
 * Runs from the repository root (as `make test` does); TEST_CC,
 * TEST_SANFLAGS and TEST_OPT are this build's compiler and flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../include/igemm.h"
#include "common.h"

#ifndef BUILD_DIR
#define BUILD_DIR "build"
#endif
#ifndef TEST_CC
#define TEST_CC "cc"
#endif
#ifndef TEST_SANFLAGS
#define TEST_SANFLAGS ""
#endif
#ifndef TEST_OPT
#define TEST_OPT "-O2"
#endif

static char dir[] = "/tmp/igemm-install-XXXXXX";
static char prefix[128];

/* Run a shell command; its stdout and stderr land in dir/log (returned,
 * malloc'd, in *log when log is not NULL; "" when the command removed it).
 * Returns the exit status. */
static int sh(char **log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(char **log, const char *fmt, ...)
{
    char cmd[4096], full[4400], path[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/log", dir);
    snprintf(full, sizeof full, "( %s ) >%s 2>&1", cmd, path);
    int rc = system(full);
    size_t n = 0;
    char *text = read_file(path, &n);
    if (log)
        *log = text ? text : strdup("");
    else
        free(text);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

static void must(int rc, char *log, const char *what)
{
    if (rc)
        fail_msg("%s failed (exit %d): %s", what, rc, log ? log : "");
    free(log);
}

static int exists(const char *rel)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", prefix, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

static int setup(void **state)
{
    (void)state;
    if (access("Makefile", R_OK) || access("include/igemm.h", R_OK)) {
        fprintf(stderr, "test_install must run from the repository root\n");
        return -1;
    }
    if (!mkdtemp(dir))
        return -1;
    snprintf(prefix, sizeof prefix, "%s/prefix", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return sh(NULL, "rm -rf %s", dir);
}

static void install_files(void **state)
{
    (void)state;
    char *log;
    int rc = sh(&log,
                "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s B=%s PREFIX=%s CC='%s' OPT='%s' SANFLAGS='%s' install",
                BUILD_DIR, prefix, TEST_CC, TEST_OPT, TEST_SANFLAGS);
    must(rc, log, "make install");
    static const char *const files[] = {
        "include/igemm.h", "lib/libigemm.a", "lib/libigemm.so", "lib/libigemm.so.0", "lib/libigemm.so." IGEMM_VERSION,
        "lib/pkgconfig/igemm.pc", "lib/cmake/igemm/igemmConfig.cmake", "lib/cmake/igemm/igemmConfigVersion.cmake",
        "bin/igemm", "bin/igemmgen", "share/igemm/manifest.json",
        "share/igemm/gfx906.hsaco", "share/igemm/gfx908.hsaco", "share/igemm/gfx90a.hsaco",
        "share/igemm/gfx942.hsaco", "share/igemm/igemm.hipfb",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (!exists(files[i]))
            fail_msg("%s/%s was not installed", prefix, files[i]);
    /* the installed header is the public one, byte for byte */
    size_t a = 0, b = 0;
    char path[300];
    snprintf(path, sizeof path, "%s/include/igemm.h", prefix);
    void *inst = read_file(path, &a), *src = read_file("include/igemm.h", &b);
    assert_non_null(inst);
    assert_non_null(src);
    assert_int_equal(a, b);
    assert_memory_equal(inst, src, a);
    free(inst);
    free(src);
}

static void pkg_config_answers(void **state)
{
    (void)state;
    char *log;
    must(sh(&log, "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --exists igemm", prefix), NULL, "pkg-config --exists");
    free(log);
    assert_int_equal(sh(&log, "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --modversion igemm", prefix), 0);
    assert_string_equal(log, IGEMM_VERSION "\n");
    free(log);
    assert_int_equal(sh(&log, "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --cflags --libs igemm", prefix), 0);
    char want[400];
    snprintf(want, sizeof want, "-I%s/include -L%s/lib -ligemm \n", prefix, prefix);
    assert_string_equal(log, want);
    free(log);
    assert_int_equal(sh(&log, "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --static --libs igemm", prefix), 0);
    snprintf(want, sizeof want, "-L%s/lib -ligemm -lm -lpthread -ldl \n", prefix);
    assert_string_equal(log, want);
    free(log);
}

/* The header compiles on its own as C99 with -pedantic and as C++. */
static void header_self_contained(void **state)
{
    (void)state;
    char *log;
    int rc = sh(&log,
                "printf '#include <igemm.h>\\nint main(void) { return igemm_solution_count() < 0; }\\n' > %s/h.c && "
                "%s -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I%s/include %s/h.c",
                dir, TEST_CC, prefix, dir);
    must(rc, log, "compiling <igemm.h> alone as C99");
    rc = sh(&log,
            "printf '#include <igemm.h>\\nint main() { igemm_problem p = {}; return igemm_problem_ho(&p); }\\n' "
            "> %s/h.cc && c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I%s/include %s/h.cc",
            dir, prefix, dir);
    must(rc, log, "compiling <igemm.h> as C++11");
}

/* Every function igemm.h declares is exported by the .so, and nothing else
 * (names read from the header's declarations: lines starting with a type). */
static void exports_match_header(void **state)
{
    (void)state;
    char *declared, *exported;
    assert_int_equal(sh(&declared,
                        "sed -n 's/^[a-z].*[ *]\\(igemm_[a-z0-9_]*\\)(.*/\\1/p' %s/include/igemm.h | sort", prefix),
                     0);
    assert_int_equal(sh(&exported,
                        "nm -D --defined-only %s/lib/libigemm.so | awk '$2 == \"T\" { sub(/@.*/, \"\", $3); print $3 }' "
                        "| sort",
                        prefix),
                     0);
    assert_non_null(strstr(declared, "igemm_create\n"));
    assert_non_null(strstr(declared, "igemm_find\n"));
    assert_string_equal(declared, exported);
    free(declared);
    free(exported);
}

/* The user's program: emulator backend, gfx908, one problem; it prints
 * the backend, the target and every dx value. */
static const char *const program =
    "#include <igemm.h>\n"
    "#include <stdio.h>\n"
    "int main(void)\n"
    "{\n"
    "    igemm_problem p = IGEMM_PROBLEM_INIT;\n"
    "    p.n = 2; p.c = 3; p.hi = 4; p.wi = 5; p.k = 2; p.y = 3; p.x = 2;\n"
    "    p.pad_h = 1; p.stride_w = 2;\n"
    "    float dy[2 * 2 * 4 * 2], w[2 * 3 * 3 * 2], dx[2 * 3 * 4 * 5];\n"
    "    for (int i = 0; i < (int)(sizeof dy / sizeof *dy); i++) dy[i] = (float)(i % 7 - 3);\n"
    "    for (int i = 0; i < (int)(sizeof w / sizeof *w); i++) w[i] = (float)(i % 5 - 2);\n"
    "    igemm_options o = IGEMM_OPTIONS_INIT;\n"
    "    o.backend = IGEMM_BACKEND_EMU; o.arch = \"gfx908\"; o.emu_threads = 1;\n"
    "    igemm_handle *h; char why[512];\n"
    "    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) { fprintf(stderr, \"%s\\n\", why); return 1; }\n"
    "    if (igemm_conv_bwd_data(h, &p, dx, dy, w) != IGEMM_OK) {\n"
    "        fprintf(stderr, \"%s\\n\", igemm_last_error(h)); igemm_destroy(h); return 1;\n"
    "    }\n"
    "    printf(\"%s %s %s\\n\", igemm_version(), igemm_handle_backend(h), igemm_handle_arch(h));\n"
    "    for (int i = 0; i < (int)(sizeof dx / sizeof *dx); i++) printf(\"%.9g\\n\", dx[i]);\n"
    "    igemm_destroy(h);\n"
    "    return 0;\n"
    "}\n";

/* The same problem from the definition: Ho = (4 + 2 - 2 - 1)/1 + 1 = 4,
 * Wo = (5 - 1 - 1)/2 + 1 = 2. */
static void expected_dx(double *dx)
{
    enum { N = 2, C = 3, H = 4, W = 5, K = 2, Y = 3, X = 2, P = 1, SW = 2, HO = 4, WO = 2 };
    float dy[N * K * HO * WO], w[K * C * Y * X];
    for (int i = 0; i < N * K * HO * WO; i++)
        dy[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * C * Y * X; i++)
        w[i] = (float)(i % 5 - 2);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int hi = 0; hi < H; hi++)
                for (int wi = 0; wi < W; wi++) {
                    double s = 0;
                    for (int k = 0; k < K; k++)
                        for (int y = 0; y < Y; y++)
                            for (int x = 0; x < X; x++) {
                                int ho = hi + P - y, tw = wi - x;
                                if (ho < 0 || ho >= HO || tw < 0 || tw % SW || tw / SW >= WO)
                                    continue;
                                s += (double)w[((k * C + c) * Y + y) * X + x] * dy[((n * K + k) * HO + ho) * WO + tw / SW];
                            }
                    dx[((n * C + c) * H + hi) * W + wi] = s;
                }
}

static void check_output(const char *out)
{
    double want[2 * 3 * 4 * 5];
    expected_dx(want);
    const char *line = strchr(out, '\n');
    assert_non_null(line);
    char head[100];
    snprintf(head, sizeof head, "%s emu gfx908\n", IGEMM_VERSION);
    assert_int_equal(strncmp(out, head, strlen(head)), 0);
    const char *p = line + 1;
    for (int i = 0; i < 2 * 3 * 4 * 5; i++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || *end != '\n')
            fail_msg("dx[%d]: cannot read a number in '%.40s'", i, p);
        if (v != want[i])
            fail_msg("dx[%d] = %g, expected %g", i, v, want[i]);
        p = end + 1;
    }
    assert_int_equal(*p, 0);
}

static void program_via_pkg_config(void **state)
{
    (void)state;
    char path[300], *log;
    snprintf(path, sizeof path, "%s/prog.c", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(program, f) >= 0);
    assert_int_equal(fclose(f), 0);

    /* shared: pkg-config --cflags --libs */
    int rc = sh(&log,
                "%s -std=c11 -Wall -Wextra -Werror %s %s/prog.c -o %s/prog "
                "$(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --cflags --libs igemm)",
                TEST_CC, TEST_SANFLAGS, dir, dir, prefix);
    must(rc, log, "compiling the program against the installed libigemm.so");
    rc = sh(&log, "LD_LIBRARY_PATH=%s/lib %s/prog", prefix, dir);
    if (rc)
        fail_msg("the program failed (exit %d): %s", rc, log);
    check_output(log);
    free(log);
    /* it really uses the shared library: without its directory it cannot start */
    assert_true(sh(NULL, "env -u LD_LIBRARY_PATH %s/prog", dir) != 0);

    /* static: libigemm.a with pkg-config --static's private libraries */
    rc = sh(&log,
            "%s -std=c11 -Wall -Wextra -Werror %s %s/prog.c -o %s/prog-static "
            "$(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --cflags igemm) -L%s/lib -Wl,-Bstatic -ligemm "
            "-Wl,-Bdynamic $(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --static --libs-only-l igemm | sed "
            "'s/-ligemm//')",
            TEST_CC, TEST_SANFLAGS, dir, dir, prefix, prefix, prefix);
    must(rc, log, "linking the program with the installed libigemm.a");
    rc = sh(&log, "env -u LD_LIBRARY_PATH %s/prog-static", dir);
    if (rc)
        fail_msg("the static program failed (exit %d): %s", rc, log);
    check_output(log);
    free(log);
}

/* The CMake package: a consumer project configured with Debian's cmake
 * (find_package(igemm 0.1 CONFIG REQUIRED), igemm::igemm and
 * igemm::igemm_static) builds the same program twice; both run with no
 * LD_LIBRARY_PATH (CMake's rpath to the imported library) and print the dx
 * this test computes. A request for another major version is refused. */
static void program_via_cmake(void **state)
{
    (void)state;
    char *log;
    int rc = sh(&log, "command -v cmake");
    if (rc) {
        free(log);
        fail_msg("cmake is not installed (sh tools/deps.sh installs Debian's cmake)");
    }
    free(log);
    char path[300];
    snprintf(path, sizeof path, "%s/consumer", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/consumer/prog.c", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(program, f) >= 0);
    assert_int_equal(fclose(f), 0);
    snprintf(path, sizeof path, "%s/consumer/CMakeLists.txt", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs("cmake_minimum_required(VERSION 3.13)\n"
                      "project(consumer C)\n"
                      "find_package(igemm 0.1 CONFIG REQUIRED)\n"
                      "add_executable(prog prog.c)\n"
                      "target_link_libraries(prog PRIVATE igemm::igemm)\n"
                      "add_executable(prog_static prog.c)\n"
                      "target_link_libraries(prog_static PRIVATE igemm::igemm_static)\n",
                      f) >= 0);
    assert_int_equal(fclose(f), 0);
    rc = sh(&log,
            "cmake -S %s/consumer -B %s/consumer/build -DCMAKE_PREFIX_PATH=%s -DCMAKE_C_COMPILER='%s' "
            "-DCMAKE_C_FLAGS='-std=c11 -Wall -Wextra -Werror %s' && cmake --build %s/consumer/build",
            dir, dir, prefix, TEST_CC, TEST_SANFLAGS, dir);
    must(rc, log, "configuring and building the CMake consumer");
    static const char *const progs[] = {"prog", "prog_static"};
    for (int i = 0; i < 2; i++) {
        rc = sh(&log, "env -u LD_LIBRARY_PATH %s/consumer/build/%s", dir, progs[i]);
        if (rc)
            fail_msg("the CMake-built %s failed (exit %d): %s", progs[i], rc, log);
        check_output(log);
        free(log);
    }
    /* version 1.0 of igemm is not this one */
    snprintf(path, sizeof path, "%s/consumer/CMakeLists.txt", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs("cmake_minimum_required(VERSION 3.13)\nproject(consumer C)\n"
                      "find_package(igemm 1.0 CONFIG REQUIRED)\n", f) >= 0);
    assert_int_equal(fclose(f), 0);
    rc = sh(&log, "cmake -S %s/consumer -B %s/consumer/build2 -DCMAKE_PREFIX_PATH=%s", dir, dir, prefix);
    assert_true(rc != 0);
    tc_expect_contains(log, "igemm");
    free(log);
}

/* share/igemm: the manifest describes the installed code objects. */
static void manifest_installed(void **state)
{
    (void)state;
    char path[300];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/share/igemm/manifest.json", prefix);
    char *m = read_file(path, &n);
    assert_non_null(m);
    assert_non_null(strstr(m, "\"format\": \"igemm-manifest-1\""));
    assert_non_null(strstr(m, "\"igemm_version\": \"" IGEMM_VERSION "\""));
    assert_non_null(strstr(m, "\"file\": \"gfx942.hsaco\""));
    assert_non_null(strstr(m, "\"name\": \"igemm_bwd_naive_nchw_fp32\""));
    /* the naive kernel's first argument as the metadata declares it */
    assert_non_null(strstr(m, "{\"name\": \"p_dx\", \"offset\": 0, \"size\": 8, \"kind\": \"global_buffer\"}"));
    free(m);
    /* the installed code object is the build's */
    size_t a = 0, b = 0;
    char built[300];
    snprintf(path, sizeof path, "%s/share/igemm/gfx90a.hsaco", prefix);
    void *x = read_file(path, &a), *y = read_file(tc_codeobj_path("gfx90a", built, sizeof built), &b);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a);
    free(x);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_files),          cmocka_unit_test(pkg_config_answers),
        cmocka_unit_test(header_self_contained),  cmocka_unit_test(exports_match_header),
        cmocka_unit_test(program_via_pkg_config), cmocka_unit_test(manifest_installed),
        cmocka_unit_test(program_via_cmake),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
