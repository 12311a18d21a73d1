/* Selection on grouped and depthwise problems (tests/shapes/grouped.txt):
 * the heuristic's pick, run on the emulator, costs at most 1.05x the best
 * configuration find mode (-s 1) finds, in modeled time (the timing model,
 * docs/TIMING.md), and at most 1.05x the naive kernel's, which is timed
 * here on its own whether find times it or not.
 *
 * Expected values come from the emulator's timing model, not from the
 * heuristic's own estimates: the heuristic is pure arithmetic, the costs
 * here are modeled runs of the kernels. IGEMM_SELECT_ARCHS (comma-separated,
 * default gfx906) picks the targets; MFMA targets take minutes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../conv/solver.h"

#define MAX_RATIO 1.05

static tc_shape_list grouped;

static int setup(void **state)
{
    (void)state;
    return tc_load_shapes(&grouped, "grouped.txt");
}

/* Modeled cycles of one run of solution on h. */
static double modeled(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx, void *dy, void *w)
{
    igemm_run_info ri;
    igemm_status st = igemm_conv_bwd_data_ex(h, p, solution, dx, dy, w, &ri);
    if (st != IGEMM_OK)
        fail_msg("%s: %s", solution, igemm_last_error(h));
    assert_true(ri.modeled_cycles > 0);
    return (double)ri.modeled_cycles;
}

static void check_arch(const char *arch)
{
    int bad = 0, naive_picks = 0;
    for (int i = 0; i < grouped.n; i++) {
        const igemm_problem *p = &grouped.s[i].p;
        igemm_handle *h = tc_emu_handle(arch, NULL, 0);
        char pick[128];
        assert_int_equal(igemm_select(h, p, pick, sizeof pick), IGEMM_OK);
        size_t nx = (size_t)p->n * p->c * p->hi * p->wi;
        size_t ny = (size_t)p->n * p->k * igemm_problem_ho(p) * igemm_problem_wo(p);
        size_t nw = (size_t)p->k * (p->c / p->groups) * p->y * p->x;
        void *dx, *dy, *w;
        assert_int_equal(igemm_alloc(h, &dx, nx * 4), IGEMM_OK);
        assert_int_equal(igemm_alloc(h, &dy, ny * 4), IGEMM_OK);
        assert_int_equal(igemm_alloc(h, &w, nw * 4), IGEMM_OK);
        float *data = malloc((ny > nw ? ny : nw) * 4);
        assert_non_null(data);
        tc_fill_uniform(data, ny, 1);
        igemm_copy_to_device(h, dy, data, ny * 4);
        tc_fill_uniform(data, nw, 2);
        igemm_copy_to_device(h, w, data, nw * 4);
        free(data);
        double pick_cost = modeled(h, p, pick, dx, dy, w);
        double naive = igemm_applicable(h, p, "naive", NULL, 0) == IGEMM_OK ? modeled(h, p, "naive", dx, dy, w) : 0;
        igemm_perf perf[64];
        int count = 0;
        assert_int_equal(igemm_find(h, p, dx, dy, w, perf, 64, &count), IGEMM_OK);
        assert_true(count > 0 && perf[0].status == IGEMM_OK && !strcmp(perf[0].unit, "cycles"));
        double best = perf[0].cost;
        const char *best_name = perf[0].solution;
        if (naive > 0 && naive < best) {
            best = naive;
            best_name = "naive (timed apart)";
        }
        naive_picks += !strcmp(pick, "naive");
        print_message("%s %-70s %-52s %.3fx of %s\n", arch, grouped.s[i].text, pick, pick_cost / best, best_name);
        if (pick_cost > MAX_RATIO * best) {
            print_error("%s %s: the heuristic's %s costs %.0f modeled cycles, %.3fx the best (%s, %.0f)\n", arch,
                        grouped.s[i].text, pick, pick_cost, pick_cost / best, best_name, best);
            bad++;
        }
        igemm_free(h, dx);
        igemm_free(h, dy);
        igemm_free(h, w);
        igemm_destroy(h);
    }
    if (bad)
        fail_msg("%s: %d of %d grouped/depthwise problems over %.2fx the best", arch, bad, grouped.n, MAX_RATIO);
    /* the list holds depthwise problems the naive kernel wins and grouped
       ones it loses: both kinds of pick occur */
    assert_true(naive_picks > 0 && naive_picks < grouped.n);
}

static void heuristic_within_5_percent_of_find(void **state)
{
    (void)state;
    assert_true(grouped.n >= 10);
    const char *env = getenv("IGEMM_SELECT_ARCHS");
    char archs[128];
    snprintf(archs, sizeof archs, "%s", env && *env ? env : "gfx906");
    for (char *a = strtok(archs, ","); a; a = strtok(NULL, ","))
        check_arch(a);
}

/* The directions (conv/types.h): every solver registered so far computes
 * backward data; the other two directions are refused by the registry with
 * a message naming the direction, its -F value and what igemm computes. */
static void directions_have_their_place(void **state)
{
    (void)state;
    char why[256] = "";
    assert_int_equal(solver_direction_check(IGEMM_DIR_BWD_DATA, why, sizeof why), IGEMM_OK);
    for (int i = 0; i < solver_count(); i++)
        assert_int_equal(solver_get(i)->dir, IGEMM_DIR_BWD_DATA);
    assert_int_equal(solver_direction_check(IGEMM_DIR_FWD, why, sizeof why), IGEMM_ERR_UNSUPPORTED);
    assert_string_equal(why, "fwd (-F 1: y from x and w) has no solver: igemm computes bwd-data (-F 2) only");
    assert_int_equal(solver_direction_check(IGEMM_DIR_BWD_WEIGHTS, why, sizeof why), IGEMM_ERR_UNSUPPORTED);
    assert_string_equal(why, "bwd-weights (-F 4: dw from x and dy) has no solver: igemm computes bwd-data (-F 2) only");
    assert_int_equal(solver_direction_check((igemm_direction)7, why, sizeof why), IGEMM_ERR_INVALID_ARG);
    igemm_problem p = igemm_problem_init();
    igemm_shape sh;
    assert_int_equal(igemm_shape_init(&sh, &p, why, sizeof why), IGEMM_OK);
    assert_int_equal(sh.dir, IGEMM_DIR_BWD_DATA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(directions_have_their_place),
        cmocka_unit_test(heuristic_within_5_percent_of_find),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
