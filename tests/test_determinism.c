/* Determinism (igemm.h, "Determinism"): every configuration that applies,
 * on every target, gives bitwise identical dx on repeated runs, with one
 * emulator thread and with several (workgroups then run in a different
 * order every time). A kernel family that sums with atomics would fail
 * here: such a family must be opt-in and left out of this list by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/igemm.h"
#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};

/* dx of solution on h, from dy/w of seed; dx prefilled with NaN. */
static void run_once(igemm_handle *h, const igemm_problem *p, const char *solution, float *dx, size_t nx,
                     const float *dy, const float *w)
{
    for (size_t i = 0; i < nx; i++)
        dx[i] = NAN;
    igemm_status st = igemm_conv_bwd_data_ex(h, p, solution, dx, dy, w, NULL);
    if (st != IGEMM_OK)
        fail_msg("%s on %s: %s", solution, igemm_handle_arch(h), igemm_last_error(h));
}

static void target_repeatable(const char *arch)
{
    /* "nothing divides a tile" and "stride 2 and dilation 2" of edge.txt:
       partial tiles, several phases, holes */
    igemm_problem ps[2] = {igemm_problem_init(), igemm_problem_init()};
    ps[0].n = 2, ps[0].c = 3, ps[0].hi = 5, ps[0].wi = 7, ps[0].k = 5, ps[0].y = 3, ps[0].x = 3, ps[0].pad_h = 1,
    ps[0].pad_w = 1;
    ps[1].c = 4, ps[1].hi = 13, ps[1].wi = 11, ps[1].k = 6, ps[1].y = 3, ps[1].x = 3, ps[1].pad_h = 2, ps[1].pad_w = 2,
    ps[1].stride_h = 2, ps[1].stride_w = 2, ps[1].dil_h = 2, ps[1].dil_w = 2;
    igemm_handle *one = tc_emu_handle(arch, NULL, 1), *many = tc_emu_handle(arch, NULL, 4);
    int checked = 0;
    for (int s = 0; s < 2; s++) {
        const igemm_problem *p = &ps[s];
        size_t nx = (size_t)p->n * p->c * p->hi * p->wi;
        size_t ny = (size_t)p->n * p->k * igemm_problem_ho(p) * igemm_problem_wo(p);
        size_t nw = (size_t)p->k * p->c * p->y * p->x;
        float *dy = malloc(ny * 4), *w = malloc(nw * 4), *a = malloc(nx * 4), *b = malloc(nx * 4);
        assert_true(dy && w && a && b);
        tc_fill_uniform(dy, ny, 91 + (uint64_t)s);
        tc_fill_uniform(w, nw, 92 + (uint64_t)s);
        for (int i = 0; i < igemm_solution_count(); i++) {
            const char *name = igemm_solution_name(i);
            if (igemm_applicable(one, p, name, NULL, 0) != IGEMM_OK)
                continue;
            run_once(one, p, name, a, nx, dy, w);
            for (int rep = 0; rep < 2; rep++) {
                run_once(many, p, name, b, nx, dy, w);
                if (memcmp(a, b, nx * 4))
                    fail_msg("%s on %s: dx differs between runs (1 vs 4 emulator threads, run %d)", name, arch,
                             rep + 1);
            }
            checked++;
        }
        free(dy);
        free(w);
        free(a);
        free(b);
    }
    assert_true(checked >= 4); /* naive and the v4r1 configurations */
    igemm_destroy(one);
    igemm_destroy(many);
}

static void gfx906(void **state)
{
    (void)state;
    target_repeatable(archs[0]);
}
static void gfx908(void **state)
{
    (void)state;
    target_repeatable(archs[1]);
}
static void gfx90a(void **state)
{
    (void)state;
    target_repeatable(archs[2]);
}
static void gfx942(void **state)
{
    (void)state;
    target_repeatable(archs[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gfx906),
        cmocka_unit_test(gfx908),
        cmocka_unit_test(gfx90a),
        cmocka_unit_test(gfx942),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
