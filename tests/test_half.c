/* conv/half.c: fp16 and bf16 conversions against hand-written bit patterns
 * (exact values, every rounding case: ties to even, subnormals, the carry
 * into the next binade and into inf, NaN), the format facts the verify rule
 * uses, and every fp16 / bf16 value and a sweep of fp32 patterns against the
 * emulator's independent helpers (emu/fp.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "../conv/half.h"
#include "../emu/fp.h"
#include "common.h"

typedef struct {
    uint16_t bits;
    double value;
} pattern;

/* Exact values of fp16 bit patterns (IEEE 754 binary16). */
static const pattern f16_exact[] = {
    {0x0000, 0.0},
    {0x3c00, 1.0},
    {0xc000, -2.0},
    {0x3555, 0x1.554p-2},            /* 0.333251953125 */
    {0x7bff, 65504.0},               /* largest finite */
    {0x0400, 0x1p-14},               /* smallest normal */
    {0x03ff, 1023 * 0x1p-24},        /* largest subnormal */
    {0x0001, 0x1p-24},               /* smallest subnormal */
    {0x8001, -0x1p-24},
    {0x7c00, INFINITY},
    {0xfc00, -INFINITY},
};

/* bfloat16: the top half of an fp32. */
static const pattern bf16_exact[] = {
    {0x0000, 0.0},
    {0x3f80, 1.0},
    {0xc000, -2.0},
    {0x3eab, 0x1.56p-2},             /* 0.333984375 */
    {0x7f7f, 0x1.fep127},            /* largest finite */
    {0x0080, 0x1p-126},              /* smallest normal */
    {0x007f, 127 * 0x1p-133},        /* largest subnormal */
    {0x0001, 0x1p-133},              /* smallest subnormal */
    {0x7f80, INFINITY},
    {0xff80, -INFINITY},
};

static void f16_exact_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof f16_exact / sizeof f16_exact[0]; i++) {
        const pattern *t = &f16_exact[i];
        if (igemm_f16_to_f64(t->bits) != t->value || (double)igemm_f16_to_f32(t->bits) != t->value)
            fail_msg("fp16 0x%04x widens to %a, expected %a", t->bits, igemm_f16_to_f64(t->bits), t->value);
        if (igemm_f64_to_f16(t->value) != t->bits || igemm_f32_to_f16((float)t->value) != t->bits)
            fail_msg("%a narrows to fp16 0x%04x, expected 0x%04x", t->value, igemm_f64_to_f16(t->value), t->bits);
    }
    assert_int_equal(igemm_f64_to_f16(-0.0), 0x8000);
    assert_true(signbit(igemm_f16_to_f64(0x8000)));
}

static void bf16_exact_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bf16_exact / sizeof bf16_exact[0]; i++) {
        const pattern *t = &bf16_exact[i];
        if (igemm_bf16_to_f64(t->bits) != t->value || (double)igemm_bf16_to_f32(t->bits) != t->value)
            fail_msg("bf16 0x%04x widens to %a, expected %a", t->bits, igemm_bf16_to_f64(t->bits), t->value);
        if (igemm_f64_to_bf16(t->value) != t->bits || igemm_f32_to_bf16((float)t->value) != t->bits)
            fail_msg("%a narrows to bf16 0x%04x, expected 0x%04x", t->value, igemm_f64_to_bf16(t->value), t->bits);
    }
}

/* Rounding to nearest even: values between two patterns. */
static const pattern f16_round[] = {
    {0x3c00, 1 + 0x1p-11},               /* tie between 0x3c00 and 0x3c01: even */
    {0x3c02, 1 + 3 * 0x1p-11},           /* tie between 0x3c01 and 0x3c02: even */
    {0x3c01, 1 + 0x1p-11 + 0x1p-40},     /* just above the tie */
    {0x3c00, 1 + 0x1p-11 - 0x1p-40},     /* just below */
    {0x4000, 2 - 0x1p-12},               /* rounds up into the next binade */
    {0x7bff, 65519.99},                  /* below the overflow threshold */
    {0x7c00, 65520.0},                   /* tie with 2^16: even is inf */
    {0xfc00, -1e6},
    {0x0000, 0x1p-25},                   /* tie between 0 and the smallest subnormal */
    {0x0001, 0x1p-25 + 0x1p-50},
    {0x0002, 3 * 0x1p-25},               /* subnormal tie: even */
    {0x0400, 1023.5 * 0x1p-24},          /* largest subnormal + half: carries to the smallest normal */
    {0x8000, -0x1p-26},                  /* underflows to -0 */
};

static const pattern bf16_round[] = {
    {0x3f80, 1 + 0x1p-8},                /* tie: even */
    {0x3f82, 1 + 3 * 0x1p-8},
    {0x3f81, 1 + 0x1p-8 + 0x1p-30},
    {0x7f7f, 0x1.fep127 + 0x1p118},      /* below the threshold 0x1.ffp127 */
    {0x7f80, 0x1.ffp127},                /* the threshold: tie, even is inf */
    {0x0000, 0x1p-134},                  /* tie between 0 and the smallest subnormal */
    {0x0002, 3 * 0x1p-134},
    {0x0080, 127.5 * 0x1p-133},          /* into the normal range */
};

static void rounding_to_nearest_even(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof f16_round / sizeof f16_round[0]; i++)
        if (igemm_f64_to_f16(f16_round[i].value) != f16_round[i].bits)
            fail_msg("%a narrows to fp16 0x%04x, expected 0x%04x", f16_round[i].value,
                     igemm_f64_to_f16(f16_round[i].value), f16_round[i].bits);
    for (size_t i = 0; i < sizeof bf16_round / sizeof bf16_round[0]; i++)
        if (igemm_f64_to_bf16(bf16_round[i].value) != bf16_round[i].bits)
            fail_msg("%a narrows to bf16 0x%04x, expected 0x%04x", bf16_round[i].value,
                     igemm_f64_to_bf16(bf16_round[i].value), bf16_round[i].bits);
    /* one rounding from fp64: 1 + 2^-11 + 2^-40 is not an fp32 (it rounds
       to the tie 1 + 2^-11 there), so fp64 -> fp32 -> fp16 would give 0x3c00 */
    assert_int_equal(igemm_f32_to_f16((float)(1 + 0x1p-11 + 0x1p-40)), 0x3c00);
    assert_int_equal(igemm_f64_to_f16(1 + 0x1p-11 + 0x1p-40), 0x3c01);
}

static void nan_stays_nan(void **state)
{
    (void)state;
    uint16_t h = igemm_f64_to_f16(NAN), nh = igemm_f64_to_f16(-NAN), b = igemm_f64_to_bf16(NAN);
    assert_int_equal(h & 0x7c00, 0x7c00);
    assert_true(h & 0x03ff);
    assert_int_equal(nh & 0x8000, 0x8000);
    assert_int_equal(b & 0x7f80, 0x7f80);
    assert_true(b & 0x007f);
    assert_true(isnan(igemm_f16_to_f64(0x7e00)) && isnan(igemm_f16_to_f64(0xfd01)));
    assert_true(isnan(igemm_bf16_to_f64(0x7fc0)) && isnan(igemm_bf16_to_f64(0xff81)));
}

static void format_facts(void **state)
{
    (void)state;
    assert_true(igemm_half_ulp(IGEMM_FP16, 1.0) == 0x1p-11);
    assert_true(igemm_half_ulp(IGEMM_FP16, 1.999) == 0x1p-11);
    assert_true(igemm_half_ulp(IGEMM_FP16, -2.0) == 0x1p-10);
    assert_true(igemm_half_ulp(IGEMM_FP16, 60000.0) == 16.0);
    assert_true(igemm_half_ulp(IGEMM_FP16, 0x1p-14) == 0x1p-25);
    assert_true(igemm_half_ulp(IGEMM_FP16, 0x1p-20) == 0x1p-25); /* subnormal spacing */
    assert_true(igemm_half_ulp(IGEMM_FP16, 0.0) == 0x1p-25);
    assert_true(igemm_half_ulp(IGEMM_BF16, 1.0) == 0x1p-8);
    assert_true(igemm_half_ulp(IGEMM_BF16, 3.0) == 0x1p-7);
    assert_true(igemm_half_ulp(IGEMM_BF16, 0.0) == 0x1p-134);
    assert_true(igemm_half_ulp(IGEMM_FP32, 1.0) == 0x1p-24);
    assert_true(igemm_overflow_threshold(IGEMM_FP16) == 65520.0);
    assert_true(igemm_overflow_threshold(IGEMM_BF16) == 0x1.ffp127);
    assert_true(igemm_overflow_threshold(IGEMM_FP32) == 0x1.ffffffp127);
}

static void elements_by_dtype(void **state)
{
    (void)state;
    uint16_t h[3];
    float f[2];
    igemm_elem_set(IGEMM_FP16, h, 1, 1 + 3 * 0x1p-11);
    igemm_elem_set(IGEMM_BF16, h, 2, -2.0);
    igemm_elem_set(IGEMM_FP32, f, 1, 0.1);
    assert_int_equal(h[1], 0x3c02);
    assert_int_equal(h[2], 0xc000);
    assert_true(f[1] == 0.1f);
    assert_true(igemm_elem_get(IGEMM_FP16, h, 1) == 1 + 2 * 0x1p-10);
    assert_true(igemm_elem_get(IGEMM_BF16, h, 2) == -2.0);
    assert_true(igemm_elem_get(IGEMM_FP32, f, 1) == (double)0.1f);
}

/* Every 16-bit pattern against emu/fp.h, and fp32 patterns stepping through
 * every exponent with assorted mantissas (ties included). */
static void agrees_with_the_emulator(void **state)
{
    (void)state;
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b;
        float a = igemm_f16_to_f32(h), e = f16_to_f32(h);
        if (!(isnan(a) && isnan(e)) && bits_of(a) != bits_of(e))
            fail_msg("fp16 0x%04x: %a here, %a in emu/fp.h", h, (double)a, (double)e);
        a = igemm_bf16_to_f32(h), e = bf16_to_f32(h);
        if (!(isnan(a) && isnan(e)) && bits_of(a) != bits_of(e))
            fail_msg("bf16 0x%04x: %a here, %a in emu/fp.h", h, (double)a, (double)e);
    }
    uint64_t seed = 11;
    for (uint32_t ex = 0; ex < 256; ex++)
        for (int k = 0; k < 512; k++) {
            uint32_t man = k < 8 ? (uint32_t[]){0, 1, 0x1000, 0x2000, 0x3000, 0x8000, 0x18000, 0x7fffff}[k]
                                 : (uint32_t)tc_splitmix64(&seed) & 0x7fffff;
            uint32_t u = (uint32_t)(k & 1) << 31 | ex << 23 | man;
            float f = f32_of(u);
            if (isnan(f))
                continue;
            if (igemm_f32_to_f16(f) != f32_to_f16(f))
                fail_msg("fp32 0x%08x: fp16 0x%04x here, 0x%04x in emu/fp.h", u, igemm_f32_to_f16(f), f32_to_f16(f));
            if (igemm_f32_to_bf16(f) != f32_to_bf16(f))
                fail_msg("fp32 0x%08x: bf16 0x%04x here, 0x%04x in emu/fp.h", u, igemm_f32_to_bf16(f),
                         f32_to_bf16(f));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f16_exact_values),         cmocka_unit_test(bf16_exact_values),
        cmocka_unit_test(rounding_to_nearest_even), cmocka_unit_test(nan_stays_nan),
        cmocka_unit_test(format_facts),             cmocka_unit_test(elements_by_dtype),
        cmocka_unit_test(agrees_with_the_emulator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
