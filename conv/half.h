/* The 16-bit tensor formats: IEEE binary16 (fp16) and bfloat16 (bf16), to
 * and from fp32 and fp64, exact where the value fits and rounded to nearest
 * even otherwise (subnormals kept, overflow to inf, NaN to the format's
 * quiet NaN with the sign). Also the format facts the verify rule needs
 * (half an ulp at a value, the overflow threshold) and element access by
 * data type. Used by the reference, verification and the test-data fill;
 * the emulator has its own (emu/fp.h), which the tests hold these against. */
#ifndef IGEMM_HALF_H
#define IGEMM_HALF_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"

/* Widen (exact). */
double igemm_f16_to_f64(uint16_t h);
double igemm_bf16_to_f64(uint16_t h);
float igemm_f16_to_f32(uint16_t h);
float igemm_bf16_to_f32(uint16_t h);

/* Narrow with one rounding to nearest even (fp32 inputs are widened to
 * fp64 first, which is exact, so both round once). */
uint16_t igemm_f64_to_f16(double v);
uint16_t igemm_f64_to_bf16(double v);
uint16_t igemm_f32_to_f16(float v);
uint16_t igemm_f32_to_bf16(float v);

/* Half a unit in the last place of dtype's format at v: 2^(e - p) for
 * |v| in [2^e, 2^(e+1)) with p the format's significand bits (11 fp16,
 * 8 bf16, 24 fp32), e no lower than the format's smallest normal exponent
 * (so subnormals and 0 get the subnormal spacing). */
double igemm_half_ulp(igemm_dtype d, double v);

/* The smallest magnitude that rounds to inf in dtype's format: its largest
 * finite value plus half an ulp there (65520 for fp16). */
double igemm_overflow_threshold(igemm_dtype d);

/* Element i of a dtype array as fp64 (exact), and v stored there rounded
 * to nearest even. */
double igemm_elem_get(igemm_dtype d, const void *base, size_t i);
void igemm_elem_set(igemm_dtype d, void *base, size_t i, double v);

/* Subnormal elements of a dtype array set to zero (keeping the sign): the
 * random data of an fp16 problem whose fp16_mode allows flushing, so that
 * its result is the same whether the kernel flushes or not. */
void igemm_flush_subnormals(void *v, size_t n, igemm_dtype d);

#endif
