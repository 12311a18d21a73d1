/* Portability layer of tests/llvm/corpus.cl: the per-thread kernels of the
 * corpus are compiled twice, by clang-19 as OpenCL C for the GPU targets and
 * by the host compiler inside tests/test_llvm.c as the host computation that
 * checks them. Every kernel takes (out, in, n): in holds N_IN dwords, out
 * OUT_PER_THREAD dwords per thread; the grid is N_GROUPS workgroups of
 * BLOCK threads (two waves). */
#ifndef IGEMM_TESTS_LLVM_CORPUS_H
#define IGEMM_TESTS_LLVM_CORPUS_H

#define BLOCK 128
#define N_GROUPS 2
#define N_THREADS (BLOCK * N_GROUPS)
#define N_IN 1024
#define OUT_PER_THREAD 8

#ifdef __OPENCL_C_VERSION__
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long u64;
typedef long i64;
typedef half f16;
typedef __bf16 bf16;
#define GLOBAL global
#define KERNEL(name) \
    __attribute__((reqd_work_group_size(BLOCK, 1, 1))) kernel void name(global u32 *out, global const u32 *in, u32 n)
#define LID() (__builtin_amdgcn_workitem_id_x())
#define GID() (__builtin_amdgcn_workgroup_id_x() * BLOCK + LID())
#define BITS16(h) as_ushort(h)
#define BITS32(f) as_uint(f)
#define BITS64(d) as_ulong(d)
#else
#include <stdint.h>
#include <string.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t i32;
typedef uint64_t u64;
typedef int64_t i64;
typedef _Float16 f16;
#define GLOBAL
#define KERNEL(name) static void host_##name(u32 *out, const u32 *in, __attribute__((unused)) u32 n, u32 gid_)
#define GID() (gid_)
static inline u16 bits16_(f16 h) { u16 u; memcpy(&u, &h, 2); return u; }
static inline u32 bits32_(float f) { u32 u; memcpy(&u, &f, 4); return u; }
static inline u64 bits64_(double d) { u64 u; memcpy(&u, &d, 8); return u; }
#define BITS16(h) bits16_(h)
#define BITS32(f) bits32_(f)
#define BITS64(d) bits64_(d)
#endif

#endif
