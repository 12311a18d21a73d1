/* Test hooks of the HIP test double (build/lib/libigemm_hipemu.so): fault
 * injection, a per-launch delay that makes a missing synchronisation show,
 * and counters. Tests reach them with dlsym on the library the HIP backend
 * loaded (IGEMM_HIP_LIBRARY); every hook also has an environment variable
 * (docs/HIPEMU.md). Not part of the HIP API. */
#ifndef IGEMM_HIPEMU_HOOKS_H
#define IGEMM_HIPEMU_HOOKS_H

#include <stdint.h>

/* The nth next call (1: the next) of the HIP function `api`
 * ("hipModuleLaunchKernel") returns `error` instead of doing its work.
 * Returns 0, or -1 when the table of pending injections (8) is full. */
int hipemu_inject(const char *api, int nth, int error);

/* Every kernel waits `us` microseconds on its stream's worker thread before
 * it runs (0: none; IGEMM_HIPEMU_DELAY_US). */
void hipemu_set_delay_us(unsigned us);

typedef struct {
    uint64_t launches_enqueued, launches_done; /* kernels */
    uint64_t copies_done;                      /* hipMemcpy* operations executed */
    uint64_t syncs;                            /* stream/event/device synchronisations */
    uint64_t pending;                          /* operations queued on any stream, not yet done */
    uint64_t live_allocs;                      /* hipMalloc'd blocks not yet freed */
} hipemu_counters;

void hipemu_get_counters(hipemu_counters *c);

/* The sticky error a kernel fault left (0: none) and its report; clearing
 * lets a test go on with the same process. */
int hipemu_fault(char *msg, unsigned len);
void hipemu_clear_fault(void);

#endif
