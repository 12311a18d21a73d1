/* The HIP backend: libamdhip64 is loaded with dlopen, so the library works
 * (with the emulator) where HIP is absent. Types and constants come from the
 * HIP headers (libamdhip64-dev); every function is resolved at run time.
 *
 * Stream order: launches go to the handle's stream and return at once;
 * copies are hipMemcpyAsync on that stream followed by
 * hipStreamSynchronize (so they come after the handle's earlier kernels and
 * have finished when they return); timing, when asked for, records an event
 * before and after a call's launches on the stream and waits for the second.
 *
 * The device's target comes from hipDeviceProp_t.gcnArchName. That
 * struct's layout changed between ROCm releases (hipGetDevicePropertiesR0600
 * in 6.x), so instead of trusting one layout the properties are read into a
 * generous buffer and the "gfxNNN" architecture string is located in it. */
#define __HIP_PLATFORM_AMD__ 1
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "../conv/util.h"

typedef struct {
    backend b;
    void *lib;
    char arch[32];
    char dev_name[128];
    int device;
    hipStream_t stream;
    hipError_t (*GetDeviceCount)(int *);
    hipError_t (*DeviceGetName)(char *, int, int);
    hipError_t (*SetDevice)(int);
    hipError_t (*GetDeviceProperties)(void *, int);
    const char *(*GetErrorName)(hipError_t);
    hipError_t (*ModuleLoadData)(hipModule_t *, const void *);
    hipError_t (*ModuleUnload)(hipModule_t);
    hipError_t (*ModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
    hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, hipStream_t, void **, void **);
    hipError_t (*Malloc)(void **, size_t);
    hipError_t (*Free)(void *);
    hipError_t (*MemcpyAsync)(void *, const void *, size_t, hipMemcpyKind, hipStream_t);
    hipError_t (*StreamSynchronize)(hipStream_t);
    hipError_t (*DeviceGetAttribute)(int *, hipDeviceAttribute_t, int);
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

const char *backend_hip_error_meaning(int code)
{
    switch (code) {
    case hipErrorNoDevice:
        return "the HIP runtime found no AMD GPU it can use";
    case hipErrorInvalidDevice:
        return "the device index is out of range (HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES may hide devices)";
    case hipErrorInsufficientDriver:
        return "the amdgpu kernel driver is older than this HIP runtime needs";
    case hipErrorNotInitialized:
        return "the HIP runtime failed to initialize (driver or ROCm installation problem)";
    case hipErrorOutOfMemory:
        return "device memory is exhausted";
    case hipErrorInvalidValue:
        return "HIP rejected an argument (size, grid, block or kernel argument buffer)";
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
    case hipErrorSharedObjectInitFailed:
        return "the code object is not valid for this device (wrong target or a corrupt file)";
    case hipErrorNotFound:
    case hipErrorInvalidDeviceFunction:
        return "the kernel is not in the loaded code object";
    case hipErrorLaunchOutOfResources:
        return "the kernel needs more registers or LDS than the device gives one launch";
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
        return "the kernel faulted (a memory access outside its buffers); run the problem on the emulator "
               "to locate it";
    case hipErrorInvalidDevicePointer:
        return "a pointer is not device memory of this device (use igemm_alloc or hipMalloc)";
    case hipErrorInvalidResourceHandle:
        return "a stream or event handle is invalid";
    default:
        return "see the HIP documentation of this error";
    }
}

static int hip_fail(backend *b, const char *what, hipError_t e)
{
    hip_backend *h = H(b);
    snprintf(b->err, sizeof b->err, "%s failed on %s (%s): %s (%d): %s", what, h->arch, h->dev_name,
             h->GetErrorName ? h->GetErrorName(e) : "hipError", (int)e, backend_hip_error_meaning((int)e));
    return -1;
}

/* HIP's current device belongs to the calling host thread, and another
 * handle (or the caller) may have switched it since this backend's last
 * call, or this may be another thread: make it this backend's device before
 * every call that allocates, frees, copies, loads or launches. */
static int use_device(backend *b)
{
    hipError_t e = H(b)->SetDevice(H(b)->device);
    return e == hipSuccess ? 0 : hip_fail(b, "hipSetDevice", e);
}

static void destroy(backend *b)
{
    hip_backend *h = H(b);
    if (h->ev0)
        h->EventDestroy(h->ev0);
    if (h->ev1)
        h->EventDestroy(h->ev1);
    free(h); /* the library stays loaded: see hip_dlopen */
}

static int load(backend *b, const void *image, size_t size, bk_module **out)
{
    (void)size;
    if (use_device(b))
        return -1;
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
    if (m && m->m) {
        use_device(b); /* release the module even if that fails */
        H(b)->ModuleUnload(m->m);
    }
    free(m);
}

static bk_kernel *kernel(backend *b, bk_module *m, const char *name)
{
    hipFunction_t f = NULL;
    if (use_device(b))
        return NULL;
    hipError_t e = H(b)->ModuleGetFunction(&f, m->m, name);
    if (e != hipSuccess) {
        char what[200];
        snprintf(what, sizeof what, "hipModuleGetFunction(%s)", name);
        hip_fail(b, what, e);
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
    if (st)
        memset(st, 0, sizeof *st);
    if (use_device(b))
        return -1;
    /* HIP copies the argument buffer at the launch: args may go when this returns */
    hipError_t e = h->ModuleLaunchKernel((hipFunction_t)k, grid, 1, 1, block, 1, 1, 0, h->stream, NULL, cfg);
    return e == hipSuccess ? 0 : hip_fail(b, "hipModuleLaunchKernel", e);
}

static int timer_start(backend *b)
{
    if (use_device(b))
        return -1;
    hipError_t e = H(b)->EventRecord(H(b)->ev0, H(b)->stream);
    return e == hipSuccess ? 0 : hip_fail(b, "hipEventRecord", e);
}

static int timer_stop(backend *b, double *ms)
{
    hip_backend *h = H(b);
    hipError_t e;
    float f = 0;
    *ms = 0;
    if (use_device(b))
        return -1;
    if ((e = h->EventRecord(h->ev1, h->stream)) != hipSuccess)
        return hip_fail(b, "hipEventRecord", e);
    if ((e = h->EventSynchronize(h->ev1)) != hipSuccess)
        return hip_fail(b, "hipEventSynchronize (waiting for the kernels)", e);
    if ((e = h->EventElapsedTime(&f, h->ev0, h->ev1)) != hipSuccess)
        return hip_fail(b, "hipEventElapsedTime", e);
    *ms = f;
    return 0;
}

static int synchronize(backend *b)
{
    if (use_device(b))
        return -1;
    hipError_t e = H(b)->StreamSynchronize(H(b)->stream);
    return e == hipSuccess ? 0 : hip_fail(b, "hipStreamSynchronize", e);
}

static int alloc(backend *b, void **p, size_t bytes)
{
    if (use_device(b))
        return -1;
    hipError_t e = H(b)->Malloc(p, bytes ? bytes : 1);
    return e == hipSuccess ? 0 : hip_fail(b, "hipMalloc", e);
}

static void bfree(backend *b, void *p)
{
    use_device(b); /* free the memory even if that fails */
    H(b)->Free(p);
}

/* A copy on the stream (after the kernels queued there), waited for. */
static int copy(backend *b, void *dst, const void *src, size_t bytes, hipMemcpyKind kind)
{
    if (use_device(b))
        return -1;
    hipError_t e = H(b)->MemcpyAsync(dst, src, bytes, kind, H(b)->stream);
    if (e != hipSuccess)
        return hip_fail(b, "hipMemcpyAsync", e);
    e = H(b)->StreamSynchronize(H(b)->stream);
    return e == hipSuccess ? 0 : hip_fail(b, "hipStreamSynchronize (after hipMemcpyAsync)", e);
}

static int to_device(backend *b, void *dst, const void *src, size_t bytes)
{
    return copy(b, dst, src, bytes, hipMemcpyHostToDevice);
}

static int to_host(backend *b, void *dst, const void *src, size_t bytes)
{
    return copy(b, dst, src, bytes, hipMemcpyDeviceToHost);
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

static int set_stream(backend *b, void *stream)
{
    H(b)->stream = (hipStream_t)stream;
    return 0;
}

/* dlopen once per path and never dlclose: the HIP runtime keeps state and
 * threads that do not survive unloading (dlclose leaks its start-up
 * allocations here, and on a GPU its worker threads would outlive the
 * code), and loading it again for every handle is slow. */
static void *hip_dlopen(const char *path)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        char path[256];
        void *lib;
    } open_libs[8];
    static int n_open;
    void *lib = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_open && !lib; i++)
        if (!strcmp(open_libs[i].path, path))
            lib = open_libs[i].lib;
    if (!lib && (lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) && n_open < 8 && strlen(path) < sizeof open_libs[0].path) {
        snprintf(open_libs[n_open].path, sizeof open_libs[n_open].path, "%s", path);
        open_libs[n_open++].lib = lib;
    }
    pthread_mutex_unlock(&lock);
    return lib;
}

/* The first "gfx..." string in the property block: gcnArchName, e.g.
 * "gfx90a:sramecc+:xnack-" (the feature suffix is dropped later). */
static int find_arch(const unsigned char *props, size_t len, char *arch, size_t alen)
{
    for (size_t i = 0; i + 6 < len; i++) {
        if (memcmp(props + i, "gfx", 3) || (i && props[i - 1] >= 32))
            continue;
        size_t n = 0;
        while (i + n < len && n + 1 < alen && props[i + n] > 32 && props[i + n] < 127) {
            arch[n] = (char)props[i + n];
            n++;
        }
        arch[n] = 0;
        if (n >= 5)
            return 0;
    }
    return -1;
}

/* Is name one of the comma-separated words of list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t w = strcspn(p, ", ");
        if (w == n && !strncmp(p, name, n))
            return 1;
        p += w;
    }
    return 0;
}

igemm_status backend_hip_match_arch(const char *gcn_arch_name, const char *available, char *arch, size_t alen,
                                    char *why, size_t len)
{
    size_t n = strcspn(gcn_arch_name, ":");
    if (n + 1 > alen)
        n = alen - 1;
    memcpy(arch, gcn_arch_name, n);
    arch[n] = 0;
    if (!target_by_name(arch) || !in_list(available, arch)) {
        why_printf(why, len,
                   "the GPU is a %s (%s), and igemm has code objects only for %s: run on one of those GPUs, or "
                   "use the emulator (" IGEMM_KNOB_EMU " with " IGEMM_KNOB_ARCH ")",
                   arch, gcn_arch_name, available && *available ? available : "no target");
        return IGEMM_ERR_NO_CODE_OBJECT;
    }
    return IGEMM_OK;
}

/* hipErrorNoDevice with what to check on this machine. */
static void explain_no_device(char *why, size_t len, const char *call, int code, const char *name)
{
    char hint[400];
    const char *vis = getenv("HIP_VISIBLE_DEVICES"), *rvis = getenv("ROCR_VISIBLE_DEVICES");
    if (access("/dev/kfd", F_OK))
        snprintf(hint, sizeof hint,
                 "/dev/kfd does not exist, so the amdgpu kernel driver is not loaded or this machine (or "
                 "container: pass --device=/dev/kfd --device=/dev/dri) has no AMD GPU");
    else if (access("/dev/kfd", R_OK | W_OK))
        snprintf(hint, sizeof hint,
                 "/dev/kfd exists but this user cannot open it: add the user to the 'render' and 'video' groups");
    else
        snprintf(hint, sizeof hint,
                 "/dev/kfd is accessible: check HIP_VISIBLE_DEVICES (%s) and ROCR_VISIBLE_DEVICES (%s), and that "
                 "this ROCm release supports the GPU",
                 vis ? vis : "unset", rvis ? rvis : "unset");
    why_printf(why, len, "no AMD GPU: %s returned %s (%d), meaning %s; %s. Use the emulator instead (" IGEMM_KNOB_EMU ")",
               call, name, code, backend_hip_error_meaning(code), hint);
}

#define SYM(name)                                                                                                    \
    do {                                                                                                             \
        *(void **)&h->name = dlsym(h->lib, "hip" #name);                                                            \
        if (!h->name) {                                                                                              \
            why_printf(why, len, "the HIP runtime %s lacks hip" #name " (too old? igemm needs ROCm 5 or later)",     \
                       path);                                                                                        \
            *st = IGEMM_ERR_NO_DEVICE;                                                                               \
            goto fail;                                                                                               \
        }                                                                                                            \
    } while (0)

static const backend_ops hip_ops = {
    .name = "hip",
    .cost_unit = "ms",
    .launch_error = IGEMM_ERR_BACKEND,
    .find_timed_runs = 3, /* after a warm-up run: the least of three */
    .arch_from_options = 0,
    BACKEND_OPS_FUNCTIONS,
    .to_device = to_device,
    .to_host = to_host,
    .model_limit = NULL, /* HIP times runs; it models nothing */
    .cost_only = NULL,   /* a timed run is a whole run */
};

backend *backend_hip_create(int device, const char *available, char *why, size_t len, igemm_status *st)
{
    *st = IGEMM_ERR_NO_DEVICE;
    hip_backend *h = calloc(1, sizeof *h);
    if (!h) {
        why_printf(why, len, "out of memory");
        *st = IGEMM_ERR_NO_MEMORY;
        return NULL;
    }
    snprintf(h->arch, sizeof h->arch, "?");
    snprintf(h->dev_name, sizeof h->dev_name, "device %d", device);
    h->device = device;
    const char *env = getenv("IGEMM_HIP_LIBRARY");
    static const char *const libs[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    const char *path = env && *env ? env : libs[0];
    const char *dlerr = NULL;
    if (env && *env) {
        h->lib = hip_dlopen(env);
        dlerr = h->lib ? NULL : dlerror();
    } else
        for (size_t i = 0; i < sizeof libs / sizeof libs[0] && !h->lib; i++) {
            h->lib = hip_dlopen(path = libs[i]);
            if (!h->lib && !dlerr)
                dlerr = dlerror();
        }
    if (!h->lib) {
        why_printf(why, len,
                   "HIP runtime not found: %s (install Debian's libamdhip64-5 or ROCm, or name the library in "
                   "IGEMM_HIP_LIBRARY; without HIP use the emulator, " IGEMM_KNOB_EMU ")",
                   dlerr ? dlerr : "dlopen failed");
        free(h);
        return NULL;
    }
    SYM(GetDeviceCount);
    SYM(SetDevice);
    SYM(GetErrorName);
    SYM(ModuleLoadData);
    SYM(ModuleUnload);
    SYM(ModuleGetFunction);
    SYM(ModuleLaunchKernel);
    SYM(Malloc);
    SYM(Free);
    SYM(MemcpyAsync);
    SYM(StreamSynchronize);
    SYM(EventCreate);
    SYM(EventRecord);
    SYM(EventSynchronize);
    SYM(EventElapsedTime);
    SYM(EventDestroy);
    *(void **)&h->DeviceGetName = dlsym(h->lib, "hipDeviceGetName"); /* optional: messages only */
    *(void **)&h->DeviceGetAttribute = dlsym(h->lib, "hipDeviceGetAttribute"); /* optional: the CU count */
    *(void **)&h->GetDeviceProperties = dlsym(h->lib, "hipGetDevicePropertiesR0600");
    if (!h->GetDeviceProperties)
        SYM(GetDeviceProperties);

    int n = 0;
    hipError_t e = h->GetDeviceCount(&n);
    if (e == hipErrorNoDevice || (e == hipSuccess && n < 1)) {
        explain_no_device(why, len, "hipGetDeviceCount", hipErrorNoDevice, "hipErrorNoDevice");
        goto fail;
    }
    if (e != hipSuccess) {
        why_printf(why, len, "HIP device query failed: hipGetDeviceCount returned %s (%d): %s", h->GetErrorName(e),
                   (int)e, backend_hip_error_meaning((int)e));
        goto fail;
    }
    if (device >= n) {
        why_printf(why, len, "HIP device %d does not exist: HIP sees %d device%s (0..%d)", device, n, n == 1 ? "" : "s",
                   n - 1);
        goto fail;
    }
    if ((e = h->SetDevice(device)) != hipSuccess) {
        why_printf(why, len, "hipSetDevice(%d) returned %s (%d): %s", device, h->GetErrorName(e), (int)e,
                   backend_hip_error_meaning((int)e));
        *st = IGEMM_ERR_BACKEND;
        goto fail;
    }
    if (h->DeviceGetName) {
        char name[96] = ""; /* fits dev_name after "device %d, " */
        if (h->DeviceGetName(name, (int)sizeof name, device) == hipSuccess && name[0])
            snprintf(h->dev_name, sizeof h->dev_name, "device %d, %s", device, name);
    }
    unsigned char props[16384];
    memset(props, 0, sizeof props);
    char gcn[64];
    if ((e = h->GetDeviceProperties(props, device)) != hipSuccess || find_arch(props, sizeof props, gcn, sizeof gcn)) {
        why_printf(why, len, "cannot read the gfx architecture of HIP %s (hipGetDeviceProperties: %s)", h->dev_name,
                   e == hipSuccess ? "no gcnArchName" : h->GetErrorName(e));
        *st = IGEMM_ERR_BACKEND;
        goto fail;
    }
    char reason[512];
    if ((*st = backend_hip_match_arch(gcn, available, h->arch, sizeof h->arch, reason, sizeof reason)) != IGEMM_OK) {
        why_printf(why, len, "HIP %s: %s", h->dev_name, reason);
        goto fail;
    }
    h->b.t = target_by_name(h->arch);
    snprintf(h->b.target_id, sizeof h->b.target_id, "%s", gcn);
    /* the CU count from the attribute (its enum is stable across ROCm
       releases, unlike hipDeviceProp_t's layout); the target's reference
       count when the runtime cannot say */
    int cus = 0;
    h->b.num_cu = h->DeviceGetAttribute &&
                          h->DeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess &&
                          cus > 0
                      ? cus
                      : h->b.t->num_cu;
    if ((e = h->EventCreate(&h->ev0)) != hipSuccess || (e = h->EventCreate(&h->ev1)) != hipSuccess) {
        why_printf(why, len, "hipEventCreate returned %s (%d): %s", h->GetErrorName(e), (int)e,
                   backend_hip_error_meaning((int)e));
        *st = IGEMM_ERR_BACKEND;
        goto fail;
    }
    backend *b = &h->b;
    b->ops = &hip_ops;
    *st = IGEMM_OK;
    return b;
fail:
    destroy(&h->b);
    return NULL;
}
