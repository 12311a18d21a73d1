/* The HIP test double: memory, copies, modules and launches on the
 * emulator. Device memory is host memory that every module's emulator
 * device registers, so a kernel that touches anything else (a host buffer
 * passed as a device pointer, an access past an allocation) faults; the
 * fault is sticky and the next synchronising call returns
 * hipErrorIllegalAddress (hipemu_fault gives the emulator's report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipemu.h"

static pthread_mutex_t exec_lk = PTHREAD_MUTEX_INITIALIZER; /* one kernel at a time: one GPU */

static int emu_threads(void)
{
    const char *e = getenv("IGEMM_HIPEMU_THREADS");
    return e && *e ? atoi(e) : 0;
}

int hx_is_device(const void *p, size_t n)
{
    for (struct hx_alloc *a = hx.allocs; a; a = a->next)
        if ((const char *)p >= (char *)a->p && (const char *)p + n <= (char *)a->p + a->n)
            return 1;
    return 0;
}

hipError_t hipMalloc(void **p, size_t n)
{
    INJECT();
    if (!p)
        return hipErrorInvalidValue;
    *p = NULL;
    if (!n)
        return hipSuccess;
    struct hx_alloc *a = malloc(sizeof *a);
    void *mem = aligned_alloc(256, (n + 255) / 256 * 256);
    if (!a || !mem) {
        free(a);
        free(mem);
        return hipErrorOutOfMemory;
    }
    a->p = mem;
    a->n = n;
    pthread_mutex_lock(&hx.lk);
    for (struct ihipModule_t *m = hx.modules; m; m = m->next)
        if (emu_register(m->dev, mem, n)) {
            for (struct ihipModule_t *u = hx.modules; u != m; u = u->next)
                emu_unregister(u->dev, mem);
            pthread_mutex_unlock(&hx.lk);
            free(a);
            free(mem);
            return hipErrorOutOfMemory;
        }
    a->next = hx.allocs;
    hx.allocs = a;
    hx.cnt.live_allocs++;
    pthread_mutex_unlock(&hx.lk);
    *p = mem;
    return hipSuccess;
}

/* hipFree synchronises the device first, as HIP's does. */
hipError_t hipFree(void *p)
{
    INJECT();
    if (!p)
        return hipSuccess;
    pthread_mutex_lock(&hx.lk);
    hx_wait_all();
    struct hx_alloc **pa = &hx.allocs;
    while (*pa && (*pa)->p != p)
        pa = &(*pa)->next;
    if (!*pa) {
        pthread_mutex_unlock(&hx.lk);
        return hipErrorInvalidDevicePointer;
    }
    struct hx_alloc *a = *pa;
    *pa = a->next;
    for (struct ihipModule_t *m = hx.modules; m; m = m->next)
        emu_unregister(m->dev, p);
    hx.cnt.live_allocs--;
    pthread_mutex_unlock(&hx.lk);
    free(a->p);
    free(a);
    return hipSuccess;
}

/* The device sides of a copy must lie inside allocations. */
static int copy_ok(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    int dd = kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice;
    int sd = kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice;
    if (kind == hipMemcpyDefault || kind == hipMemcpyHostToHost)
        return 1;
    if (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToHost && kind != hipMemcpyDeviceToDevice)
        return 0;
    return (!dd || hx_is_device(dst, n)) && (!sd || hx_is_device(src, n));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind, hipStream_t stream)
{
    INJECT();
    if (!n)
        return hipSuccess;
    if (!dst || !src)
        return hipErrorInvalidValue;
    hx_op *op = calloc(1, sizeof *op);
    if (!op)
        return hipErrorOutOfMemory;
    op->kind = OP_COPY;
    op->dst = dst;
    op->src = src;
    op->bytes = n;
    pthread_mutex_lock(&hx.lk);
    struct ihipStream_t *s = hx_stream(stream);
    hipError_t e = !s ? hipErrorInvalidResourceHandle : !copy_ok(dst, src, n, kind) ? hipErrorInvalidValue : hx.fault;
    if (e == hipSuccess && !hx_enqueue(s, op))
        e = hipErrorOutOfMemory;
    pthread_mutex_unlock(&hx.lk);
    if (e != hipSuccess)
        free(op);
    return e;
}

/* hipMemcpy: on the null stream, returning when the copy is done. */
hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
    INJECT();
    hipError_t e = hipMemcpyAsync(dst, src, n, kind, NULL);
    if (e != hipSuccess)
        return e;
    pthread_mutex_lock(&hx.lk);
    hx_wait(&hx.null_stream, hx.null_stream.enq);
    hx.cnt.syncs++;
    e = hx.fault;
    pthread_mutex_unlock(&hx.lk);
    return e;
}

/* The size of an ELF64 image from its headers (hipModuleLoadData gets no size). */
static size_t elf_size(const unsigned char *p)
{
    if (memcmp(p, "\177ELF", 4) || p[4] != 2)
        return 0;
    uint64_t shoff, phoff;
    uint16_t shentsize, shnum, phentsize, phnum;
    memcpy(&phoff, p + 32, 8);
    memcpy(&shoff, p + 40, 8);
    memcpy(&phentsize, p + 54, 2);
    memcpy(&phnum, p + 56, 2);
    memcpy(&shentsize, p + 58, 2);
    memcpy(&shnum, p + 60, 2);
    size_t end = (size_t)(shoff + (uint64_t)shentsize * shnum);
    if (phoff + (uint64_t)phentsize * phnum > end)
        end = (size_t)(phoff + (uint64_t)phentsize * phnum);
    for (unsigned i = 0; i < shnum && shentsize >= 64; i++) {
        const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
        uint32_t type;
        uint64_t off, size;
        memcpy(&type, sh + 4, 4);
        memcpy(&off, sh + 24, 8);
        memcpy(&size, sh + 32, 8);
        if (type != 8 /* SHT_NOBITS */ && off + size > end)
            end = (size_t)(off + size);
    }
    return end;
}

hipError_t hipModuleLoadData(hipModule_t *out, const void *image)
{
    INJECT();
    if (!out || !image)
        return hipErrorInvalidValue;
    hx_device devs[HX_MAX_DEVICES];
    int dev = hx_current_device();
    if (dev >= hx_devices(devs, HX_MAX_DEVICES))
        return hipErrorInvalidDevice;
    size_t size = elf_size(image);
    const char *elf_target = size ? emu_elf_target(image, size) : NULL;
    if (!elf_target)
        return hipErrorInvalidImage;
    if (!devs[dev].t || strcmp(elf_target, devs[dev].t->name))
        return hipErrorNoBinaryForGpu;
    struct ihipModule_t *m = calloc(1, sizeof *m);
    emu_options o = {.threads = emu_threads()};
    char err[512];
    if (!m || !(m->dev = emu_create(devs[dev].t, &o))) {
        free(m);
        return hipErrorOutOfMemory;
    }
    if (emu_load(m->dev, image, size, &m->m, err, sizeof err)) {
        fprintf(stderr, "igemm_hipemu: hipModuleLoadData: %s\n", err);
        emu_destroy(m->dev);
        free(m);
        return hipErrorInvalidImage;
    }
    m->device = dev;
    pthread_mutex_lock(&hx.lk);
    for (struct hx_alloc *a = hx.allocs; a; a = a->next)
        emu_register(m->dev, a->p, a->n);
    m->next = hx.modules;
    hx.modules = m;
    pthread_mutex_unlock(&hx.lk);
    *out = m;
    return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t m)
{
    INJECT();
    if (!m)
        return hipErrorInvalidResourceHandle;
    pthread_mutex_lock(&hx.lk);
    hx_wait_all(); /* no queued launch may still use it */
    struct ihipModule_t **pm = &hx.modules;
    while (*pm && *pm != m)
        pm = &(*pm)->next;
    if (!*pm) {
        pthread_mutex_unlock(&hx.lk);
        return hipErrorInvalidResourceHandle;
    }
    *pm = m->next;
    pthread_mutex_unlock(&hx.lk);
    emu_module_free(m->m);
    emu_destroy(m->dev);
    free(m);
    return hipSuccess;
}

/* Functions live as long as their module; the double keeps one per lookup
 * in a small table freed with the process (HIP's are owned by the module). */
hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name)
{
    INJECT();
    if (!f || !m || !name)
        return hipErrorInvalidValue;
    const emu_kernel *k = emu_find_kernel(m->m, name);
    if (!k)
        return hipErrorNotFound;
    static struct ihipModuleSymbol_t syms[1024];
    static int nsyms;
    pthread_mutex_lock(&hx.lk);
    struct ihipModuleSymbol_t *s = NULL;
    for (int i = 0; i < nsyms && !s; i++)
        if (syms[i].mod == m && syms[i].k == k)
            s = &syms[i];
    if (!s && nsyms < 1024) {
        s = &syms[nsyms++];
        s->mod = m;
        s->k = k;
    }
    pthread_mutex_unlock(&hx.lk);
    if (!s)
        return hipErrorOutOfMemory;
    *f = s;
    return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, hipStream_t stream, void **params, void **extra)
{
    INJECT();
    if (!f)
        return hipErrorInvalidResourceHandle;
    const emu_kernel_info *ki = emu_kernel_get_info(f->k);
    /* only the argument-buffer form: extra = {BUFFER_POINTER, p, BUFFER_SIZE, &size, END} */
    if (params || !extra || extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER || extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != HIP_LAUNCH_PARAM_END || !extra[1] || !extra[3])
        return hipErrorInvalidValue;
    size_t size = *(size_t *)extra[3];
    if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > (uint64_t)ki->max_block ||
        size < (size_t)ki->kernarg_size || shared)
        return hipErrorInvalidValue;
    if (f->mod->device != hx_current_device())
        return hipErrorInvalidDevice;
    hx_op *op = calloc(1, sizeof *op);
    unsigned char *args = malloc(size ? size : 1);
    if (!op || !args) {
        free(op);
        free(args);
        return hipErrorOutOfMemory;
    }
    memcpy(args, extra[1], size); /* the buffer is the caller's again when this returns */
    op->kind = OP_LAUNCH;
    op->f = f;
    op->args = args;
    op->args_size = size;
    op->grid[0] = gx, op->grid[1] = gy, op->grid[2] = gz;
    op->block[0] = bx, op->block[1] = by, op->block[2] = bz;
    pthread_mutex_lock(&hx.lk);
    struct ihipStream_t *s = hx_stream(stream);
    hipError_t e = !s ? hipErrorInvalidResourceHandle : hx.fault;
    if (e == hipSuccess && !hx_enqueue(s, op))
        e = hipErrorOutOfMemory;
    pthread_mutex_unlock(&hx.lk);
    if (e != hipSuccess) {
        free(args);
        free(op);
    }
    return e;
}

void hx_run_kernel(hx_op *op)
{
    pthread_mutex_lock(&hx.lk);
    int skip = hx.fault != hipSuccess; /* after a fault the device runs nothing */
    pthread_mutex_unlock(&hx.lk);
    if (skip)
        return;
    emu_stats st;
    memset(&st, 0, sizeof st);
    char err[1024];
    pthread_mutex_lock(&exec_lk);
    int rc = emu_launch(op->f->mod->dev, op->f->k, op->grid, op->block, op->args, op->args_size, &st, err, sizeof err);
    pthread_mutex_unlock(&exec_lk);
    const target *t = emu_target(op->f->mod->dev);
    pthread_mutex_lock(&hx.lk);
    if (rc) {
        hx.fault = hipErrorIllegalAddress;
        snprintf(hx.fault_msg, sizeof hx.fault_msg, "%s", err);
    } else
        hx.clock_ms += (double)st.makespan / (t->clock_ghz * 1e6);
    pthread_mutex_unlock(&hx.lk);
}
