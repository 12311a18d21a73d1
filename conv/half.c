/* fp16 and bf16 conversions and format facts (half.h). One rounding routine
 * serves both formats: a format is its significand bits p (hidden bit
 * included), its smallest normal exponent emin and its largest emax. */
#include "half.h"

#include <math.h>
#include <string.h>

typedef struct {
    int p, emin, emax;
} fmt;

static const fmt F16 = {11, -14, 15}, BF16 = {8, -126, 127}, F32 = {24, -126, 127};

static const fmt *fmt_of(igemm_dtype d) { return d == IGEMM_FP16 ? &F16 : d == IGEMM_BF16 ? &BF16 : &F32; }

/* Bits (sign, exponent field ebits wide, mantissa field p-1 wide) to fp64. */
static double decode(const fmt *f, unsigned bits)
{
    int mbits = f->p - 1, bias = f->emax;
    unsigned man = bits & ((1u << mbits) - 1), sign = bits >> (15), ex = (bits >> mbits) & ((1u << (15 - mbits)) - 1);
    double v;
    if (ex == (1u << (15 - mbits)) - 1)
        v = man ? NAN : INFINITY;
    else if (!ex)
        v = ldexp((double)man, f->emin - mbits);
    else
        v = ldexp((double)(man | 1u << mbits), (int)ex - bias - mbits);
    return sign ? -v : v;
}

/* fp64 to the format's bits, rounded to nearest even. */
static uint16_t encode(const fmt *f, double v)
{
    int mbits = f->p - 1, bias = f->emax;
    unsigned sign = signbit(v) ? 0x8000u : 0, inf = ((1u << (15 - mbits)) - 1) << mbits;
    if (isnan(v))
        return (uint16_t)(sign | inf | 1u << (mbits - 1));
    double a = fabs(v);
    if (a == 0)
        return (uint16_t)sign;
    int e = ilogb(a);
    if (e < f->emin)
        e = f->emin;
    if (e > f->emax)
        return (uint16_t)(sign | inf);
    /* a in units of the spacing at exponent e: exact (a power-of-two scale) */
    double r = ldexp(a, mbits - e), m = floor(r), frac = r - m;
    if (frac > 0.5 || (frac == 0.5 && fmod(m, 2.0) != 0))
        m += 1;
    unsigned q = (unsigned)m;
    if (q >> f->p) { /* rounded up to the next power of two */
        q >>= 1;
        e++;
    }
    if (e > f->emax)
        return (uint16_t)(sign | inf);
    if (!(q >> mbits)) /* subnormal (e == emin): exponent field 0 */
        return (uint16_t)(sign | q);
    return (uint16_t)(sign | (unsigned)(e + bias) << mbits | (q & ((1u << mbits) - 1)));
}

double igemm_f16_to_f64(uint16_t h) { return decode(&F16, h); }
double igemm_bf16_to_f64(uint16_t h) { return decode(&BF16, h); }
float igemm_f16_to_f32(uint16_t h) { return (float)decode(&F16, h); }
float igemm_bf16_to_f32(uint16_t h) { return (float)decode(&BF16, h); }
uint16_t igemm_f64_to_f16(double v) { return encode(&F16, v); }
uint16_t igemm_f64_to_bf16(double v) { return encode(&BF16, v); }
uint16_t igemm_f32_to_f16(float v) { return encode(&F16, (double)v); }
uint16_t igemm_f32_to_bf16(float v) { return encode(&BF16, (double)v); }

double igemm_half_ulp(igemm_dtype d, double v)
{
    const fmt *f = fmt_of(d);
    double a = fabs(v);
    int e = a > 0 && isfinite(a) ? ilogb(a) : f->emin;
    if (e < f->emin)
        e = f->emin;
    return ldexp(1.0, e - f->p);
}

double igemm_overflow_threshold(igemm_dtype d)
{
    const fmt *f = fmt_of(d);
    return ldexp(2.0 - ldexp(1.0, -f->p), f->emax);
}

double igemm_elem_get(igemm_dtype d, const void *base, size_t i)
{
    if (d == IGEMM_FP16 || d == IGEMM_BF16) {
        uint16_t h;
        memcpy(&h, (const char *)base + 2 * i, 2);
        return decode(fmt_of(d), h);
    }
    float x;
    memcpy(&x, (const char *)base + 4 * i, 4);
    return x;
}

void igemm_elem_set(igemm_dtype d, void *base, size_t i, double v)
{
    if (d == IGEMM_FP16 || d == IGEMM_BF16) {
        uint16_t h = encode(fmt_of(d), v);
        memcpy((char *)base + 2 * i, &h, 2);
        return;
    }
    float x = (float)v;
    memcpy((char *)base + 4 * i, &x, 4);
}

void igemm_flush_subnormals(void *v, size_t n, igemm_dtype d)
{
    double smallest_normal = ldexp(1.0, fmt_of(d)->emin);
    for (size_t i = 0; i < n; i++) {
        double x = igemm_elem_get(d, v, i);
        if (x != 0 && fabs(x) < smallest_normal)
            igemm_elem_set(d, v, i, copysign(0.0, x));
    }
}
