/* The HIP test double: devices (from IGEMM_HIPEMU_ARCH and IGEMM_HIPEMU_CUS),
 * their properties, error names, and fault injection (hipemu_inject,
 * IGEMM_HIPEMU_FAIL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipemu.h"

int hx_devices(hx_device *out, int max)
{
    const char *arch = getenv("IGEMM_HIPEMU_ARCH"), *cus = getenv("IGEMM_HIPEMU_CUS");
    if (!arch)
        arch = TARGET_DEFAULT->name; /* the first of arch/targets.def */
    int n = 0;
    for (const char *p = arch; *p && n < max;) {
        size_t w = strcspn(p, ",");
        hx_device *d = &out[n++];
        memset(d, 0, sizeof *d);
        snprintf(d->gcn, sizeof d->gcn, "%.*s", (int)(w < sizeof d->gcn ? w : sizeof d->gcn - 1), p);
        char bare[64];
        snprintf(bare, sizeof bare, "%.*s", (int)strcspn(d->gcn, ":"), d->gcn);
        d->t = target_by_name(bare);
        d->cus = d->t ? d->t->num_cu : 64;
        p += w + (p[w] == ',');
    }
    /* IGEMM_HIPEMU_CUS: one count for every device, or one per device */
    for (int i = 0; cus && *cus && i < n; i++) {
        char *end;
        long v = strtol(cus, &end, 10);
        if (end != cus && v > 0 && v < 100000)
            out[i].cus = (int)v;
        if (*end == ',')
            cus = end + 1;
        else if (i + 1 < n)
            out[i + 1].cus = out[i].cus, cus = end; /* a single value applies to the rest */
    }
    return n;
}

static _Thread_local int current;

int hx_current_device(void) { return current; }

/* ---- fault injection ---- */

static struct {
    char api[64];
    int nth, error;
} inj[8];
static pthread_mutex_t inj_lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t inj_once = PTHREAD_ONCE_INIT;

int hipemu_inject(const char *api, int nth, int error)
{
    pthread_mutex_lock(&inj_lk);
    for (int i = 0; i < 8; i++)
        if (!inj[i].nth) {
            snprintf(inj[i].api, sizeof inj[i].api, "%s", api);
            inj[i].nth = nth < 1 ? 1 : nth;
            inj[i].error = error;
            pthread_mutex_unlock(&inj_lk);
            return 0;
        }
    pthread_mutex_unlock(&inj_lk);
    return -1;
}

/* IGEMM_HIPEMU_FAIL=api:nth:code[,api:nth:code...] */
static void inj_from_env(void)
{
    const char *e = getenv("IGEMM_HIPEMU_FAIL");
    for (const char *p = e; p && *p;) {
        char api[64];
        int nth, code, used = 0;
        if (sscanf(p, "%63[^:]:%d:%d%n", api, &nth, &code, &used) != 3 || !used) {
            fprintf(stderr, "igemm_hipemu: IGEMM_HIPEMU_FAIL: '%s' is not api:nth:code\n", p);
            return;
        }
        hipemu_inject(api, nth, code);
        p += used;
        p += *p == ',';
    }
}

hipError_t hx_injected(const char *api)
{
    pthread_once(&inj_once, inj_from_env);
    hipError_t e = hipSuccess;
    pthread_mutex_lock(&inj_lk);
    for (int i = 0; i < 8 && e == hipSuccess; i++)
        if (inj[i].nth && !strcmp(inj[i].api, api) && !--inj[i].nth)
            e = (hipError_t)inj[i].error;
    pthread_mutex_unlock(&inj_lk);
    return e;
}

/* ---- devices ---- */

hipError_t hipGetDeviceCount(int *count)
{
    INJECT();
    if (!count)
        return hipErrorInvalidValue;
    hx_device d[HX_MAX_DEVICES];
    *count = hx_devices(d, HX_MAX_DEVICES);
    return *count ? hipSuccess : hipErrorNoDevice;
}

static int device_ok(int dev, hx_device *out)
{
    hx_device d[HX_MAX_DEVICES];
    int n = hx_devices(d, HX_MAX_DEVICES);
    if (dev < 0 || dev >= n)
        return 0;
    if (out)
        *out = d[dev];
    return 1;
}

hipError_t hipSetDevice(int dev)
{
    INJECT();
    if (!device_ok(dev, NULL))
        return hipErrorInvalidDevice;
    current = dev;
    return hipSuccess;
}

hipError_t hipGetDevice(int *dev)
{
    INJECT();
    if (!dev)
        return hipErrorInvalidValue;
    *dev = current;
    return hipSuccess;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t dev)
{
    INJECT();
    hx_device d;
    if (!name || len < 1)
        return hipErrorInvalidValue;
    if (!device_ok(dev, &d))
        return hipErrorInvalidDevice;
    snprintf(name, (size_t)len, "igemm HIP test double (emulator)");
    return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int dev)
{
    INJECT();
    hx_device d;
    if (!prop)
        return hipErrorInvalidValue;
    if (!device_ok(dev, &d))
        return hipErrorInvalidDevice;
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "igemm HIP test double (emulator)");
    snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "%s", d.gcn);
    prop->multiProcessorCount = d.cus;
    prop->totalGlobalMem = (size_t)64 << 30;
    prop->maxThreadsPerBlock = 1024;
    prop->warpSize = 64;
    prop->clockRate = d.t ? (int)(d.t->clock_ghz * 1e6) : 1000000;
    prop->sharedMemPerBlock = d.t ? (size_t)d.t->lds_bytes : 65536;
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t attr, int dev)
{
    INJECT();
    hipDeviceProp_t p;
    if (!v)
        return hipErrorInvalidValue;
    hipError_t e = hipGetDeviceProperties(&p, dev);
    if (e != hipSuccess)
        return e;
    switch (attr) {
    case hipDeviceAttributeMultiprocessorCount:
        *v = p.multiProcessorCount;
        return hipSuccess;
    case hipDeviceAttributeWarpSize:
        *v = p.warpSize;
        return hipSuccess;
    case hipDeviceAttributeMaxThreadsPerBlock:
        *v = p.maxThreadsPerBlock;
        return hipSuccess;
    case hipDeviceAttributeClockRate:
        *v = p.clockRate;
        return hipSuccess;
    default:
        return hipErrorInvalidValue;
    }
}

/* ---- errors ---- */

static const struct {
    hipError_t e;
    const char *name, *text;
} errors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {hipErrorInvalidResourceHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
};

const char *hipGetErrorName(hipError_t e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].e == e)
            return errors[i].name;
    return "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].e == e)
            return errors[i].text;
    return "unknown error";
}
