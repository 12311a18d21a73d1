/* The HIP backend: libamdhip64 is loaded with dlopen, so the library works
 * (with the emulator) where HIP is absent. Types and constants come from the
 * HIP headers (libamdhip64-dev); every function is resolved at run time.
 *
 * The device's target comes from hipDeviceProp_t.gcnArchName. That
 * struct's layout changed between ROCm releases (hipGetDevicePropertiesR0600
 * in 6.x), so instead of trusting one layout the properties are read into a
 * generous buffer and the "gfxNNN" architecture string is located in it. */
#define __HIP_PLATFORM_AMD__ 1
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct {
    backend b;
    void *lib;
    char arch[32];
    hipError_t (*Init)(unsigned);
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*SetDevice)(int);
    hipError_t (*GetDeviceProperties)(void *, int);
    const char *(*GetErrorString)(hipError_t);
    const char *(*GetErrorName)(hipError_t);
    hipError_t (*ModuleLoadData)(hipModule_t *, const void *);
    hipError_t (*ModuleUnload)(hipModule_t);
    hipError_t (*ModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
    hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, hipStream_t, void **, void **);
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*Memcpy)(void *, const void *, size_t, hipMemcpyKind);
    hipError_t (*DeviceSynchronize)(void);
    hipError_t (*EventCreate)(hipEvent_t *);
    hipError_t (*EventRecord)(hipEvent_t, hipStream_t);
    hipError_t (*EventSynchronize)(hipEvent_t);
    hipError_t (*EventElapsedTime)(float *, hipEvent_t, hipEvent_t);
    hipError_t (*EventDestroy)(hipEvent_t);
    hipEvent_t ev0, ev1;
} hip_backend;

struct bk_module {
    hipModule_t m;
};

static hip_backend *H(backend *b) { return (hip_backend *)b; }

static int hip_fail(backend *b, const char *what, hipError_t e)
{
    hip_backend *h = H(b);
    snprintf(b->err, sizeof b->err, "HIP %s failed: %s (%s, %d)", what,
             h->GetErrorString ? h->GetErrorString(e) : "?", h->GetErrorName ? h->GetErrorName(e) : "?", (int)e);
    return -1;
}

static void destroy(backend *b)
{
    hip_backend *h = H(b);
    if (h->ev0)
        h->EventDestroy(h->ev0);
    if (h->ev1)
        h->EventDestroy(h->ev1);
    if (h->lib)
        dlclose(h->lib);
    free(h);
}

static int load(backend *b, const void *image, size_t size, bk_module **out)
{
    (void)size;
    bk_module *m = calloc(1, sizeof *m);
    if (!m)
        return snprintf(b->err, sizeof b->err, "out of memory"), -1;
    hipError_t e = H(b)->ModuleLoadData(&m->m, image);
    if (e != hipSuccess) {
        free(m);
        return hip_fail(b, "hipModuleLoadData", e);
    }
    *out = m;
    return 0;
}

static void unload(backend *b, bk_module *m)
{
    if (m && m->m)
        H(b)->ModuleUnload(m->m);
    free(m);
}

static bk_kernel *kernel(backend *b, bk_module *m, const char *name)
{
    hipFunction_t f = NULL;
    hipError_t e = H(b)->ModuleGetFunction(&f, m->m, name);
    if (e != hipSuccess) {
        hip_fail(b, "hipModuleGetFunction", e);
        return NULL;
    }
    return (bk_kernel *)f;
}

static int launch(backend *b, bk_kernel *k, unsigned grid, unsigned block, const void *args, size_t size, bk_stats *st)
{
    hip_backend *h = H(b);
    size_t sz = size;
    void *cfg[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, (void *)args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &sz,
                   HIP_LAUNCH_PARAM_END};
    hipError_t e;
    if ((e = h->EventRecord(h->ev0, NULL)) != hipSuccess)
        return hip_fail(b, "hipEventRecord", e);
    e = h->ModuleLaunchKernel((hipFunction_t)k, grid, 1, 1, block, 1, 1, 0, NULL, NULL, cfg);
    if (e != hipSuccess)
        return hip_fail(b, "hipModuleLaunchKernel", e);
    if ((e = h->EventRecord(h->ev1, NULL)) != hipSuccess || (e = h->EventSynchronize(h->ev1)) != hipSuccess)
        return hip_fail(b, "hipEventSynchronize", e);
    float ms = 0;
    if ((e = h->EventElapsedTime(&ms, h->ev0, h->ev1)) != hipSuccess)
        return hip_fail(b, "hipEventElapsedTime", e);
    if (st) {
        memset(st, 0, sizeof *st);
        st->ms = ms;
    }
    return 0;
}

static int alloc(backend *b, void **p, size_t bytes)
{
    hipError_t e = H(b)->Malloc(p, bytes ? bytes : 1);
    return e == hipSuccess ? 0 : hip_fail(b, "hipMalloc", e);
}

static void bfree(backend *b, void *p) { H(b)->Free(p); }

static int to_device(backend *b, void *dst, const void *src, size_t bytes)
{
    hipError_t e = H(b)->Memcpy(dst, src, bytes, hipMemcpyHostToDevice);
    return e == hipSuccess ? 0 : hip_fail(b, "hipMemcpy", e);
}

static int to_host(backend *b, void *dst, const void *src, size_t bytes)
{
    hipError_t e = H(b)->Memcpy(dst, src, bytes, hipMemcpyDeviceToHost);
    return e == hipSuccess ? 0 : hip_fail(b, "hipMemcpy", e);
}

static int map(backend *b, const void *p, size_t bytes)
{
    (void)b;
    (void)p;
    (void)bytes;
    return 0;
}

static void unmap(backend *b, const void *p)
{
    (void)b;
    (void)p;
}

/* The first "gfx..." string in the property block: gcnArchName, e.g.
 * "gfx90a:sramecc+:xnack-"; the feature suffix is dropped. */
static int find_arch(const unsigned char *props, size_t len, char *arch, size_t alen)
{
    for (size_t i = 0; i + 6 < len; i++) {
        if (memcmp(props + i, "gfx", 3) || (i && props[i - 1] >= 32))
            continue;
        size_t n = 0;
        while (i + n < len && n + 1 < alen && props[i + n] > 32 && props[i + n] < 127 && props[i + n] != ':') {
            arch[n] = (char)props[i + n];
            n++;
        }
        arch[n] = 0;
        if (n >= 5)
            return 0;
    }
    return -1;
}

#define SYM(name)                                                                                                    \
    do {                                                                                                             \
        *(void **)&h->name = dlsym(h->lib, "hip" #name);                                                            \
        if (!h->name) {                                                                                              \
            snprintf(why, len, "libamdhip64 lacks hip" #name);                                                      \
            goto fail;                                                                                               \
        }                                                                                                            \
    } while (0)

backend *backend_hip_create(char *why, size_t len, igemm_status *st)
{
    *st = IGEMM_ERR_NO_DEVICE;
    hip_backend *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(why, len, "out of memory");
        *st = IGEMM_ERR_NO_MEMORY;
        return NULL;
    }
    static const char *const libs[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !h->lib; i++)
        h->lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h->lib) {
        snprintf(why, len, "HIP runtime not found (libamdhip64.so could not be loaded: install libamdhip64-5 or ROCm)");
        free(h);
        return NULL;
    }
    SYM(Init);
    SYM(GetDeviceCount);
    SYM(SetDevice);
    SYM(GetErrorString);
    SYM(GetErrorName);
    SYM(ModuleLoadData);
    SYM(ModuleUnload);
    SYM(ModuleGetFunction);
    SYM(ModuleLaunchKernel);
    SYM(Malloc);
    SYM(Free);
    SYM(Memcpy);
    SYM(DeviceSynchronize);
    SYM(EventCreate);
    SYM(EventRecord);
    SYM(EventSynchronize);
    SYM(EventElapsedTime);
    SYM(EventDestroy);
    *(void **)&h->GetDeviceProperties = dlsym(h->lib, "hipGetDevicePropertiesR0600");
    if (!h->GetDeviceProperties)
        SYM(GetDeviceProperties);

    int n = 0;
    hipError_t e = h->GetDeviceCount(&n);
    if (e != hipSuccess || n < 1) {
        if (e == hipErrorNoDevice || (e == hipSuccess && n < 1))
            snprintf(why, len,
                     "HIP reports no AMD GPU (hipErrorNoDevice: no device with HIP support is present or visible)");
        else
            snprintf(why, len, "HIP device query failed: %s (%s)", h->GetErrorString(e), h->GetErrorName(e));
        goto fail;
    }
    if ((e = h->SetDevice(0)) != hipSuccess) {
        snprintf(why, len, "hipSetDevice(0) failed: %s", h->GetErrorString(e));
        goto fail;
    }
    unsigned char props[16384];
    memset(props, 0, sizeof props);
    if ((e = h->GetDeviceProperties(props, 0)) != hipSuccess || find_arch(props, sizeof props, h->arch, sizeof h->arch)) {
        snprintf(why, len, "cannot read the device's gfx architecture");
        goto fail;
    }
    h->b.t = target_by_name(h->arch);
    if (!h->b.t) {
        snprintf(why, len, "the GPU is a %s; igemm has code objects for %s", h->arch, target_names());
        *st = IGEMM_ERR_NO_CODE_OBJECT;
        goto fail;
    }
    if (h->EventCreate(&h->ev0) != hipSuccess || h->EventCreate(&h->ev1) != hipSuccess) {
        snprintf(why, len, "hipEventCreate failed");
        *st = IGEMM_ERR_BACKEND;
        goto fail;
    }
    backend *b = &h->b;
    b->name = "hip";
    b->destroy = destroy;
    b->load = load;
    b->unload = unload;
    b->kernel = kernel;
    b->launch = launch;
    b->alloc = alloc;
    b->free = bfree;
    b->to_device = to_device;
    b->to_host = to_host;
    b->map = map;
    b->unmap = unmap;
    *st = IGEMM_OK;
    return b;
fail:
    destroy(&h->b);
    return NULL;
}
