/* Bit-level float helpers: f32/f16/bf16 conversions with round-to-nearest-
 * even, as the hardware does in its default mode. */
#ifndef IGEMM_EMU_FP_H
#define IGEMM_EMU_FP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline double f64_of(uint64_t u)
{
    double f;
    memcpy(&f, &u, 8);
    return f;
}

static inline uint64_t bits64_of(double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* IEEE half -> float (exact). */
static inline float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 31, man = h & 1023;
    uint32_t u;
    if (exp == 0) {
        if (!man) {
            u = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 1024));
            u = sign | (uint32_t)(127 - 15 - e) << 23 | (man & 1023) << 13;
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000 | man << 13;
    } else {
        u = sign | (exp + 127 - 15) << 23 | man << 13;
    }
    return f32_of(u);
}

/* float -> IEEE half, round to nearest even, overflow to inf. */
static inline uint16_t f32_to_f16(float f)
{
    uint32_t u = bits_of(f);
    uint32_t sign = (u >> 16) & 0x8000;
    int32_t exp = (int32_t)((u >> 23) & 255);
    uint32_t man = u & 0x7fffff;
    if (exp == 255)
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = 1u << (shift - 1), rest = man & ((1u << shift) - 1);
        uint32_t r = man >> shift;
        if (rest > half || (rest == half && (r & 1)))
            r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = (uint32_t)e << 10 | man >> 13, rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (r & 1)))
        r++; /* may carry into the exponent, up to inf: correct */
    return (uint16_t)(sign | r);
}

static inline float bf16_to_f32(uint16_t h) { return f32_of((uint32_t)h << 16); }

static inline uint16_t f32_to_bf16(float f)
{
    uint32_t u = bits_of(f);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* Flush a denormal to a signed zero (FLOAT_DENORM_MODE 0). */
static inline float flush_denorm(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

#endif
