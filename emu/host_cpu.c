/* What the host CPU offers the emulator's lane loops (emu_int.h): asked
 * once, then one relaxed load per question. Threads that race to the first
 * question each ask and store the same answer. */
#include <stdatomic.h>

#include "emu_int.h"

enum { HOST_FMA = 1, HOST_AVX2 = 2, HOST_ASKED = 4 };
static _Atomic int host_bits;

static int host_features(void)
{
    int b = atomic_load_explicit(&host_bits, memory_order_relaxed);
    if (!b) {
        b = HOST_ASKED;
#if defined(__x86_64__) && defined(__GNUC__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("fma"))
            b |= HOST_FMA;
        if (__builtin_cpu_supports("avx2"))
            b |= HOST_AVX2;
#endif
        atomic_store_explicit(&host_bits, b, memory_order_relaxed);
    }
    return b;
}

void emu_host_simd(bool on) { atomic_store_explicit(&host_bits, on ? 0 : HOST_ASKED, memory_order_relaxed); }

bool emu_host_fma(void) { return (host_features() & HOST_FMA) != 0; }
bool emu_host_avx2(void) { return (host_features() & HOST_AVX2) != 0; }
