/* The emulated device: target, options and the registry of host memory
 * kernels may touch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu_int.h"

emu_device *emu_create(const target *t, const emu_options *opt)
{
    if (!t)
        return NULL;
    const emu_decoder *dec = emu_decoder_get(t);
    if (!dec)
        return NULL;
    emu_device *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->t = t;
    d->dec = dec;
    if (opt)
        d->opt = *opt;
    if (!d->opt.max_wave_insts)
        d->opt.max_wave_insts = EMU_DEFAULT_WAVE_INSTS;
    pthread_rwlock_init(&d->lock, NULL);
    emu_sched_create(&d->sched, t->num_cu); /* without it only the device-wide schedule is missing */
    return d;
}

bool emu_set_timing_only(emu_device *d, bool on)
{
    if (!d)
        return false;
    d->opt.timing_only = on;
    return on && d->opt.timing;
}

void emu_destroy(emu_device *d)
{
    if (!d)
        return;
    pthread_rwlock_destroy(&d->lock);
    free(d->sched.simd);
    free(d->regions);
    free(d);
}

const target *emu_target(const emu_device *d) { return d ? d->t : NULL; }

int emu_register(emu_device *d, const void *p, size_t bytes)
{
    if (!d || !p || !bytes)
        return -1;
    pthread_rwlock_wrlock(&d->lock);
    if (d->nregions == d->cap) {
        int cap = d->cap ? d->cap * 2 : 16;
        emu_region *r = realloc(d->regions, sizeof *r * (size_t)cap);
        if (!r) {
            pthread_rwlock_unlock(&d->lock);
            return -1;
        }
        d->regions = r;
        d->cap = cap;
    }
    /* keep sorted by base for binary search */
    uintptr_t base = (uintptr_t)p;
    int i = d->nregions;
    while (i > 0 && d->regions[i - 1].base > base) {
        d->regions[i] = d->regions[i - 1];
        i--;
    }
    d->regions[i] = (emu_region){base, bytes};
    d->nregions++;
    pthread_rwlock_unlock(&d->lock);
    return 0;
}

void emu_unregister(emu_device *d, const void *p)
{
    if (!d)
        return;
    pthread_rwlock_wrlock(&d->lock);
    for (int i = 0; i < d->nregions; i++)
        if (d->regions[i].base == (uintptr_t)p) {
            memmove(&d->regions[i], &d->regions[i + 1], sizeof *d->regions * (size_t)(d->nregions - i - 1));
            d->nregions--;
            break;
        }
    pthread_rwlock_unlock(&d->lock);
}

/* Called with the lock held for reading by the launcher for the whole launch. */
bool emu_mem_region(const emu_device *d, uintptr_t addr, size_t len, uintptr_t *lo, uintptr_t *hi)
{
    int a = 0, b = d->nregions - 1;
    while (a <= b) {
        int mid = (a + b) / 2;
        const emu_region *r = &d->regions[mid];
        if (addr < r->base)
            b = mid - 1;
        else if (addr >= r->base + r->size)
            a = mid + 1;
        else {
            *lo = r->base;
            *hi = r->base + r->size;
            return len <= r->size - (addr - r->base);
        }
    }
    return false;
}

void *emu_buffer_alloc(size_t bytes)
{
    size_t body = (bytes + EMU_GUARD_BYTES - 1) / EMU_GUARD_BYTES * EMU_GUARD_BYTES;
    if (!body)
        body = EMU_GUARD_BYTES;
    if (body < bytes || body > SIZE_MAX - 2 * EMU_GUARD_BYTES)
        return NULL;
    uint8_t *p = aligned_alloc(EMU_GUARD_BYTES, body + 2 * EMU_GUARD_BYTES);
    if (!p)
        return NULL;
    memset(p + EMU_GUARD_BYTES, 0, body);
    return p + EMU_GUARD_BYTES;
}

void emu_buffer_free(void *p)
{
    if (p)
        free((uint8_t *)p - EMU_GUARD_BYTES);
}
