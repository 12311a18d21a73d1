/* The LLVM corpus (issue 24): ordinary GPU code as clang-19 compiles it for
 * gfx906/gfx908/gfx90a/gfx942 at -O0/-O2/-O3, run on the emulator in strict
 * mode by tests/test_llvm.c. The kernels above DEVICE_ONLY are also
 * compiled for the host (corpus.h) and are their own host computation; the
 * ones below it use what only the GPU has (LDS, barriers, lanes, atomics)
 * and test_llvm.c computes their results itself. */
#include "corpus.h"

/* 64-bit integer arithmetic, shifts and compares (signed and unsigned). */
KERNEL(k_i64)
{
    u32 g = GID();
    u64 a = ((u64)in[g] << 32) | in[g + 1];
    u64 b = ((u64)in[g + 2] << 29) ^ in[g + 3];
    i64 sa = (i64)a, sb = (i64)b;
    u64 r0 = a * b + (a >> 7) - (b << 3);
    i64 r1 = (i64)((u64)(sa >> 13) + (sb < sa ? (u64)sa - (u64)sb : (u64)sb - (u64)sa));
    u32 c = (a < b) | (a > b) << 1 | (sa < sb) << 2 | (sa >= sb) << 3 | (a == b) << 4 | (a != (b ^ 1)) << 5 |
            (sa <= 0) << 6 | (a >= 0x8000000000000000ul) << 7;
    out[g * OUT_PER_THREAD + 0] = (u32)r0;
    out[g * OUT_PER_THREAD + 1] = (u32)(r0 >> 32);
    out[g * OUT_PER_THREAD + 2] = (u32)r1;
    out[g * OUT_PER_THREAD + 3] = (u32)((u64)r1 >> 32);
    out[g * OUT_PER_THREAD + 4] = c;
    out[g * OUT_PER_THREAD + 5] = (u32)(a >> (in[g] & 63)) ^ (u32)(sa >> (in[g + 1] & 63));
    out[g * OUT_PER_THREAD + 6] = (u32)((a << (in[g + 2] & 63)) >> 32);
    out[g * OUT_PER_THREAD + 7] = (u32)(a % 0x1000000000ul) + (u32)(b / 1000);
}

/* Integer division and remainder by variables: 32 and 64 bits, signed and
 * unsigned (LLVM expands them into reciprocal and correction sequences). */
KERNEL(k_divrem)
{
    u32 g = GID();
    u32 a = in[g], d = (in[g + 1] >> (in[g + 2] & 31)) | 1;
    i32 sa = (i32)in[g + 3], sd = (i32)(in[g + 4] >> ((in[g + 5] & 15) | 1));
    if (in[g] & 2)
        sd = -sd;
    if (sd == 0)
        sd = -7;
    u64 a64 = ((u64)in[g + 6] << 32) | in[g + 7];
    u64 d64 = (((u64)in[g + 8] << 32) | in[g + 9]) >> (in[g + 10] & 63);
    if (d64 == 0)
        d64 = 3;
    i64 s64 = (i64)a64, t64 = (i64)(d64 | 1) * ((in[g] & 1) ? -1 : 1);
    out[g * OUT_PER_THREAD + 0] = a / d;
    out[g * OUT_PER_THREAD + 1] = a % d;
    out[g * OUT_PER_THREAD + 2] = (u32)(sa / sd);
    out[g * OUT_PER_THREAD + 3] = (u32)(sa % sd);
    out[g * OUT_PER_THREAD + 4] = (u32)(a64 / d64);
    out[g * OUT_PER_THREAD + 5] = (u32)((a64 % d64) >> 1);
    out[g * OUT_PER_THREAD + 6] = (u32)(s64 / t64);
    out[g * OUT_PER_THREAD + 7] = (u32)(s64 % t64) ^ (u32)(a / 10u) ^ (u32)(sa % 17);
}

/* Compares of every width (8, 16, 32, 64-bit integers; f16, f32, f64) and
 * chains of selects. */
KERNEL(k_cmp_select)
{
    u32 g = GID();
    u32 x = in[g], y = in[g + 1];
    u8 b0 = (u8)x, b1 = (u8)y;
    u16 h0 = (u16)(x >> 8), h1 = (u16)(y >> 8);
    short sh0 = (short)h0, sh1 = (short)h1;
    float f0 = (float)(i32)x * 0x1p-20f, f1 = (float)(i32)y * 0x1p-20f;
    double d0 = (double)(i32)x * 0x1p-30, d1 = (double)(i32)(y ^ x) * 0x1p-30;
    f16 e0 = (f16)(float)(x & 0xfff), e1 = (f16)(float)(y & 0xfff);
    u32 m = (b0 < b1) | (h0 > h1) << 1 | (sh0 < sh1) << 2 | ((i32)x < (i32)y) << 3 | (x <= y) << 4 |
            (f0 < f1) << 5 | (f0 >= f1) << 6 | (d0 < d1) << 7 | (d0 != d1) << 8 | (e0 < e1) << 9 |
            (e0 == e1) << 10 | (f0 == f0) << 11 | (d0 >= d1) << 12 | (e0 >= e1) << 13;
    u32 s = x < 0x40000000u ? y : x < 0x80000000u ? y ^ 0x55u : x < 0xc0000000u ? y + 7 : (y >> 3);
    float fs = f0 > 0.0f ? f0 : f1 < 0.0f ? -f1 : f0 + f1;
    i32 mx = (i32)x > (i32)y ? (i32)x : (i32)y, mn = x < y ? x : y;
    out[g * OUT_PER_THREAD + 0] = m;
    out[g * OUT_PER_THREAD + 1] = s;
    out[g * OUT_PER_THREAD + 2] = BITS32(fs);
    out[g * OUT_PER_THREAD + 3] = (u32)mx;
    out[g * OUT_PER_THREAD + 4] = mn;
    out[g * OUT_PER_THREAD + 5] = (u32)(sh0 > sh1 ? sh0 : sh1) & 0xffff;
    out[g * OUT_PER_THREAD + 6] = b0 > b1 ? (u32)b0 * 3u : (u32)b1 + 7u;
    out[g * OUT_PER_THREAD + 7] = (d0 > d1) ? 1u : (d0 < d1) ? 2u : 3u;
}

/* Conversions between integer and floating-point types of every width. */
KERNEL(k_convert)
{
    u32 g = GID();
    u32 x = in[g], y = in[g + 1];
    float f = (float)(i32)x * 0x1p-12f;
    double d = (double)(i32)y * 0x1p-7;
    u64 q = ((u64)x << 20) ^ y;
    f16 h = (f16)((float)(x & 0xffff) * 0x1p-6f);
    out[g * OUT_PER_THREAD + 0] = (u32)(i32)f;
    out[g * OUT_PER_THREAD + 1] = (u32)(i32)d ^ (u32)(i32)(float)d;
    float fq = (float)q;
    out[g * OUT_PER_THREAD + 2] = BITS32(fq);
    double dq = (double)(i64)q;
    out[g * OUT_PER_THREAD + 3] = (u32)(BITS64(dq) >> 20);
    float fu = (float)x;
    out[g * OUT_PER_THREAD + 4] = BITS32(fu);
    out[g * OUT_PER_THREAD + 5] = (u32)(u64)(f < 0 ? -f : f) + (u32)(i64)d;
    f16 hh = h;
    out[g * OUT_PER_THREAD + 6] = (u32)BITS16(hh) | (u32)(i32)(float)h << 16;
    out[g * OUT_PER_THREAD + 7] = (u32)(u8)x + (u32)(short)y + (u32)(u16)(float)(x & 0x7fff);
}

/* 64-bit address arithmetic: gathers with computed, wrapped indices. */
KERNEL(k_address)
{
    u32 g = GID();
    u64 i = ((u64)g * 2654435761u) % N_IN;
    u32 s = 0;
    for (u32 k = 0; k < 4; k++) {
        s += in[(i + (u64)k * 97) % N_IN];
        s ^= in[(g * 7 + k * 131) & (N_IN - 1)];
    }
    const GLOBAL u32 *p = in + (g & 255);
    out[g * OUT_PER_THREAD + 0] = s;
    out[g * OUT_PER_THREAD + 1] = p[3] + p[n & 7];
    for (int j = 2; j < OUT_PER_THREAD; j++)
        out[g * OUT_PER_THREAD + j] = in[(g + (u32)j * 33u) % (N_IN - 64)];
}

/* Loops with trip counts that differ per lane, and divergent branches that
 * leave some lanes idle (exec masks, s_cbranch_execz). */
KERNEL(k_loops)
{
    u32 g = GID();
    u32 x = in[g];
    u32 trips = x & 31, acc = 0, h = 2166136261u;
    for (u32 k = 0; k < trips; k++) {
        acc += (x >> (k & 7)) * (k + 1);
        h = (h ^ (acc & 0xff)) * 16777619u;
    }
    u32 r = 0;
    if (x & 1) {
        if (x & 2)
            r = acc ^ h;
        else
            r = acc + 3;
    } else if ((x & 6) == 4) {
        r = h >> 5;
    }
    u32 w = 0;
    while (x > 16 && w < 40) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        w++;
    }
    out[g * OUT_PER_THREAD + 0] = acc;
    out[g * OUT_PER_THREAD + 1] = h;
    out[g * OUT_PER_THREAD + 2] = r;
    out[g * OUT_PER_THREAD + 3] = w;
    out[g * OUT_PER_THREAD + 4] = x;
    /* a branch every lane takes the same way (kernel argument: scalar) */
    u32 u = 0;
    if (n > 100)
        for (u32 k = 0; k < n % 13; k++)
            u += k * n;
    out[g * OUT_PER_THREAD + 5] = u;
    out[g * OUT_PER_THREAD + 6] = (g & 64) ? trips * 3 : trips + 1000;
    out[g * OUT_PER_THREAD + 7] = 0;
}

/* fp16 arithmetic, scalar and packed (half2); separate statements so no
 * expression contracts into an FMA (the host computation rounds each). */
KERNEL(k_fp16)
{
    u32 g = GID();
    u32 x = in[g], y = in[g + 1];
    f16 a0 = (f16)((float)(x & 0x3ff) * 0x1p-4f), a1 = (f16)((float)((x >> 10) & 0x3ff) * 0x1p-5f);
    f16 b0 = (f16)((float)(y & 0x3ff) * 0x1p-6f), b1 = (f16)(-(float)(((y >> 10) & 0x3ff) + 1) * 0x1p-3f);
    f16 p0 = a0 * b0, p1 = a1 * b1;
    f16 s0 = p0 + a1, s1 = p1 - b0;
    f16 m0 = a0 > b0 ? a0 : b0, m1 = a1 < b1 ? a1 : b1;
    f16 q0 = s0 * s1;
    f16 q1 = q0 + m0;
    f16 r[8] = {p0, p1, s0, s1, m0, m1, q0, q1};
    for (int j = 0; j < 4; j++) {
        f16 lo = r[2 * j], hi = r[2 * j + 1];
        out[g * OUT_PER_THREAD + j] = (u32)BITS16(lo) | (u32)BITS16(hi) << 16;
    }
    float fs = (float)q1 + (float)p0;
    out[g * OUT_PER_THREAD + 4] = BITS32(fs);
    out[g * OUT_PER_THREAD + 5] = (u32)(i32)(float)s1;
    f16 dd = a1 - b1, tw = a0 + a0;
    out[g * OUT_PER_THREAD + 6] = (u32)(short)dd;
    out[g * OUT_PER_THREAD + 7] = (u32)(u16)(float)tw;
}

/* fp32 and fp64 arithmetic LLVM expands: division, square root, min/max,
 * fabs, floor (a tolerance covers the approximate division). */
KERNEL(k_float)
{
    u32 g = GID();
    float a = (float)(i32)in[g] * 0x1p-24f, b = (float)(in[g + 1] & 0xffffff) * 0x1p-16f + 1.0f;
    double da = (double)(i32)in[g + 2] * 0x1p-20, db = (double)(in[g + 3] & 0xfffff) + 0.5;
    float q = a / b;
    double dq = da / db;
    float m = a < b ? a : b;
    float ab = a < 0 ? -a : a;
    double dm = da * db - db;
    float fl = (float)(i32)(a * 16.0f);
    out[g * OUT_PER_THREAD + 0] = BITS32(q);
    out[g * OUT_PER_THREAD + 1] = (u32)(BITS64(dq) >> 32);
    out[g * OUT_PER_THREAD + 2] = BITS32(m);
    out[g * OUT_PER_THREAD + 3] = BITS32(ab);
    out[g * OUT_PER_THREAD + 4] = (u32)(BITS64(dm) >> 32);
    out[g * OUT_PER_THREAD + 5] = (u32)BITS64(dm);
    out[g * OUT_PER_THREAD + 6] = BITS32(fl);
    float sum = a + b;
    float prod = a * b;
    float fsum = sum - prod;
    out[g * OUT_PER_THREAD + 7] = BITS32(fsum);
}

#ifdef __OPENCL_C_VERSION__ /* DEVICE_ONLY */

/* LDS with barriers: every thread writes its value, the workgroup waits,
 * each reads its mirror and a neighbour; then a tree reduction in LDS. */
KERNEL(k_lds)
{
    local u32 buf[BLOCK];
    local u32 red[BLOCK];
    u32 l = LID(), g = GID();
    buf[l] = in[g] ^ l;
    red[l] = in[g] & 0xffff;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    u32 mirror = buf[BLOCK - 1 - l], next = buf[(l + 1) % BLOCK];
    for (u32 s = BLOCK / 2; s > 0; s >>= 1) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        u32 v = l < s ? red[l] + red[l + s] : 0;
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        __builtin_amdgcn_s_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
        if (l < s)
            red[l] = v;
    }
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    out[g * OUT_PER_THREAD + 0] = mirror;
    out[g * OUT_PER_THREAD + 1] = next;
    out[g * OUT_PER_THREAD + 2] = red[0];
    for (int j = 3; j < OUT_PER_THREAD; j++)
        out[g * OUT_PER_THREAD + j] = 0;
}

/* Atomics on global and local memory: add, max, min, exchange,
 * compare-exchange, and/or/xor. out[0..63] of the last group collects the
 * global ones (the test gives it zeros). */
KERNEL(k_atomics)
{
    local u32 cnt[4];
    u32 l = LID(), g = GID();
    if (l < 4)
        cnt[l] = 0;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    u32 v = in[g];
    global u32 *acc = out + N_THREADS * OUT_PER_THREAD;
    __atomic_fetch_add(&acc[0], v & 0xff, __ATOMIC_RELAXED);
    __atomic_fetch_max(&acc[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&acc[2], v | 0x80000000u, __ATOMIC_RELAXED);
    __atomic_fetch_or(&acc[3], 1u << (g & 31), __ATOMIC_RELAXED);
    __atomic_fetch_xor(&acc[4], v, __ATOMIC_RELAXED);
    __atomic_fetch_and(&acc[5], ~(1u << (g & 31)) | (v & 1u), __ATOMIC_RELAXED);
    u32 exp = 0;
    __atomic_compare_exchange_n(&acc[6 + (g & 1)], &exp, g + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    u32 mine = __atomic_fetch_add(&cnt[0], 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cnt[1], v & 0xf, __ATOMIC_RELAXED);
    __atomic_fetch_max(&cnt[2], v, __ATOMIC_RELAXED);
    u64 w = __atomic_fetch_add((global u64 *)&acc[8], (u64)v << 4, __ATOMIC_RELAXED);
    (void)w;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    out[g * OUT_PER_THREAD + 0] = mine < BLOCK;
    out[g * OUT_PER_THREAD + 1] = cnt[0];
    out[g * OUT_PER_THREAD + 2] = cnt[1];
    out[g * OUT_PER_THREAD + 3] = cnt[2];
    out[g * OUT_PER_THREAD + 4] = exp == 0 ? 1 : exp;
    out[g * OUT_PER_THREAD + 5] = 0;
    out[g * OUT_PER_THREAD + 6] = 0;
    out[g * OUT_PER_THREAD + 7] = 0;
}

/* Lane operations: readfirstlane, readlane, ds_bpermute, DPP row shifts and
 * a wave sum through DPP and readlane. */
KERNEL(k_lanes)
{
    u32 l = LID(), g = GID();
    u32 v = in[g];
    u32 first = __builtin_amdgcn_readfirstlane(v);
    u32 lane5 = __builtin_amdgcn_readlane(v, 5);
    u32 lane_n = __builtin_amdgcn_readlane(v, (i32)(n & 63));
    u32 perm = (u32)__builtin_amdgcn_ds_bpermute((i32)(((l + 3) & 63) * 4), (i32)v);
    /* row_shr:1 (0x111), bound_ctrl: lanes with no source read 0 */
    u32 shr = (u32)__builtin_amdgcn_update_dpp(0, (i32)v, 0x111, 0xf, 0xf, true);
    /* quad_perm [1,0,3,2] (0xb1) */
    u32 qp = (u32)__builtin_amdgcn_mov_dpp((i32)v, 0xb1, 0xf, 0xf, false);
    u32 s = v & 0xffff;
    s += (u32)__builtin_amdgcn_update_dpp(0, (i32)s, 0x111, 0xf, 0xf, true);   /* row_shr:1 */
    s += (u32)__builtin_amdgcn_update_dpp(0, (i32)s, 0x112, 0xf, 0xf, true);   /* row_shr:2 */
    s += (u32)__builtin_amdgcn_update_dpp(0, (i32)s, 0x114, 0xf, 0xf, true);   /* row_shr:4 */
    s += (u32)__builtin_amdgcn_update_dpp(0, (i32)s, 0x118, 0xf, 0xf, true);   /* row_shr:8 */
    u32 wave_sum = __builtin_amdgcn_readlane(s, 15) + __builtin_amdgcn_readlane(s, 31) +
                   __builtin_amdgcn_readlane(s, 47) + __builtin_amdgcn_readlane(s, 63);
    u32 odd = 0;
    if (v & 1)
        odd = __builtin_amdgcn_readfirstlane(l);
    out[g * OUT_PER_THREAD + 0] = first;
    out[g * OUT_PER_THREAD + 1] = lane5;
    out[g * OUT_PER_THREAD + 2] = lane_n;
    out[g * OUT_PER_THREAD + 3] = perm;
    out[g * OUT_PER_THREAD + 4] = shr;
    out[g * OUT_PER_THREAD + 5] = qp;
    out[g * OUT_PER_THREAD + 6] = wave_sum;
    out[g * OUT_PER_THREAD + 7] = odd;
}

/* bf16: float to bf16 (round to nearest even) and back, bf16 products
 * computed in float. */
KERNEL(k_bf16)
{
    u32 g = GID();
    u32 x = in[g], y = in[g + 1];
    float a = (float)(i32)x * 0x1p-16f, b = (float)(i32)y * 0x1p-20f;
    bf16 ha = (bf16)a, hb = (bf16)b;
    float p = (float)ha * (float)hb;
    bf16 hp = (bf16)p;
    bf16 hs = (bf16)((float)ha + (float)hb);
    out[g * OUT_PER_THREAD + 0] = (u32)BITS16(ha) | (u32)BITS16(hb) << 16;
    out[g * OUT_PER_THREAD + 1] = (u32)BITS16(hp) | (u32)BITS16(hs) << 16;
    float back = (float)hp;
    out[g * OUT_PER_THREAD + 2] = BITS32(back);
    for (int j = 3; j < OUT_PER_THREAD; j++)
        out[g * OUT_PER_THREAD + j] = 0;
}

#endif
