/* The HIP test double's streams and events. Every stream runs its work in
 * order on its own worker thread, so work is asynchronous to the host as on
 * a GPU: a caller that reads results without synchronising sees them
 * unfinished. The null stream is the legacy default stream: its work waits
 * for the blocking streams' earlier work and theirs waits for its (streams
 * created hipStreamNonBlocking do neither). Events carry the modeled device
 * clock (kernels' makespans on the emulator), so elapsed times are modeled
 * times, the same on every run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hipemu.h"

hx_state hx = {.lk = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

__attribute__((constructor)) static void delay_from_env(void)
{
    const char *e = getenv("IGEMM_HIPEMU_DELAY_US");
    if (e && *e)
        hx.delay_us = (unsigned)strtoul(e, NULL, 10);
}

struct ihipStream_t *hx_stream(hipStream_t s)
{
    if (!s)
        return &hx.null_stream;
    for (int i = 0; i < HX_MAX_STREAMS; i++)
        if (hx.streams[i] == s)
            return s;
    return NULL;
}

static int deps_ready(const hx_op *op)
{
    for (int i = 0; i < op->ndeps; i++)
        if (op->dep[i]->done < op->dep_seq[i])
            return 0;
    return op->kind != OP_WAIT_EVENT || op->ev->gen_done >= op->gen;
}

static void execute(hx_op *op, unsigned delay_us)
{
    switch (op->kind) {
    case OP_LAUNCH:
        if (delay_us)
            usleep(delay_us);
        hx_run_kernel(op);
        break;
    case OP_COPY:
        memmove(op->dst, op->src, op->bytes);
        break;
    case OP_RECORD:
    case OP_WAIT_EVENT:
        break;
    }
}

static void *worker(void *arg)
{
    struct ihipStream_t *s = arg;
    pthread_mutex_lock(&hx.lk);
    for (;;) {
        while (!s->stop && (!s->head || !deps_ready(s->head)))
            pthread_cond_wait(&hx.cv, &hx.lk);
        if (!s->head)
            break;
        hx_op *op = s->head;
        unsigned delay_us = hx.delay_us;
        pthread_mutex_unlock(&hx.lk);
        execute(op, delay_us);
        pthread_mutex_lock(&hx.lk);
        if (op->kind == OP_RECORD) {
            op->ev->t_ms = hx.clock_ms;
            if (op->gen > op->ev->gen_done)
                op->ev->gen_done = op->gen;
        }
        if (op->kind == OP_LAUNCH)
            hx.cnt.launches_done++;
        if (op->kind == OP_COPY)
            hx.cnt.copies_done++;
        hx.cnt.pending--;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        s->done = op->seq;
        free(op->args);
        free(op);
        pthread_cond_broadcast(&hx.cv);
    }
    pthread_mutex_unlock(&hx.lk);
    return NULL;
}

uint64_t hx_enqueue(struct ihipStream_t *s, hx_op *op)
{
    if (!s->started) {
        if (pthread_create(&s->thr, NULL, worker, s))
            return 0;
        s->started = 1;
    }
    /* the legacy null stream against the blocking streams */
    op->ndeps = 0;
    if (s == &hx.null_stream) {
        for (int i = 0; i < HX_MAX_STREAMS; i++)
            if (hx.streams[i] && !(hx.streams[i]->flags & hipStreamNonBlocking) && hx.streams[i]->enq) {
                op->dep[op->ndeps] = hx.streams[i];
                op->dep_seq[op->ndeps++] = hx.streams[i]->enq;
            }
    } else if (!(s->flags & hipStreamNonBlocking) && hx.null_stream.enq) {
        op->dep[0] = &hx.null_stream;
        op->dep_seq[0] = hx.null_stream.enq;
        op->ndeps = 1;
    }
    op->seq = ++s->enq;
    op->next = NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    hx.cnt.pending++;
    if (op->kind == OP_LAUNCH)
        hx.cnt.launches_enqueued++;
    pthread_cond_broadcast(&hx.cv);
    return op->seq;
}

void hx_wait(struct ihipStream_t *s, uint64_t seq)
{
    while (s->done < seq)
        pthread_cond_wait(&hx.cv, &hx.lk);
}

void hx_wait_all(void)
{
    hx_wait(&hx.null_stream, hx.null_stream.enq);
    for (int i = 0; i < HX_MAX_STREAMS; i++)
        if (hx.streams[i])
            hx_wait(hx.streams[i], hx.streams[i]->enq);
}

/* ---- streams ---- */

hipError_t hipStreamCreateWithFlags(hipStream_t *out, unsigned flags)
{
    INJECT();
    if (!out || (flags & ~(unsigned)hipStreamNonBlocking))
        return hipErrorInvalidValue;
    struct ihipStream_t *s = calloc(1, sizeof *s);
    if (!s)
        return hipErrorOutOfMemory;
    s->flags = flags;
    pthread_mutex_lock(&hx.lk);
    int i = 0;
    while (i < HX_MAX_STREAMS && hx.streams[i])
        i++;
    if (i < HX_MAX_STREAMS)
        hx.streams[i] = s;
    pthread_mutex_unlock(&hx.lk);
    if (i == HX_MAX_STREAMS) {
        free(s);
        return hipErrorOutOfMemory;
    }
    *out = s;
    return hipSuccess;
}

hipError_t hipStreamCreate(hipStream_t *out) { return hipStreamCreateWithFlags(out, 0); }

static void stop_worker(struct ihipStream_t *s)
{
    hx_wait(s, s->enq);
    s->stop = 1;
    pthread_cond_broadcast(&hx.cv);
    if (s->started) {
        pthread_mutex_unlock(&hx.lk);
        pthread_join(s->thr, NULL);
        pthread_mutex_lock(&hx.lk);
    }
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
    INJECT();
    pthread_mutex_lock(&hx.lk);
    struct ihipStream_t *s = stream ? hx_stream(stream) : NULL;
    if (!s) {
        pthread_mutex_unlock(&hx.lk);
        return hipErrorInvalidResourceHandle;
    }
    stop_worker(s);
    for (int i = 0; i < HX_MAX_STREAMS; i++)
        if (hx.streams[i] == s)
            hx.streams[i] = NULL;
    pthread_mutex_unlock(&hx.lk);
    free(s);
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
    INJECT();
    pthread_mutex_lock(&hx.lk);
    struct ihipStream_t *s = hx_stream(stream);
    if (!s) {
        pthread_mutex_unlock(&hx.lk);
        return hipErrorInvalidResourceHandle;
    }
    hx_wait(s, s->enq);
    hx.cnt.syncs++;
    hipError_t e = hx.fault;
    pthread_mutex_unlock(&hx.lk);
    return e;
}

hipError_t hipDeviceSynchronize(void)
{
    INJECT();
    pthread_mutex_lock(&hx.lk);
    hx_wait_all();
    hx.cnt.syncs++;
    hipError_t e = hx.fault;
    pthread_mutex_unlock(&hx.lk);
    return e;
}

/* ---- events ---- */

hipError_t hipEventCreateWithFlags(hipEvent_t *ev, unsigned flags)
{
    INJECT();
    (void)flags;
    if (!ev)
        return hipErrorInvalidValue;
    *ev = calloc(1, sizeof **ev);
    return *ev ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipEventCreate(hipEvent_t *ev) { return hipEventCreateWithFlags(ev, 0); }

hipError_t hipEventDestroy(hipEvent_t ev)
{
    INJECT();
    if (!ev)
        return hipErrorInvalidResourceHandle;
    pthread_mutex_lock(&hx.lk);
    while (ev->gen_done < ev->gen_recorded) /* a queued record still points at it */
        pthread_cond_wait(&hx.cv, &hx.lk);
    pthread_mutex_unlock(&hx.lk);
    free(ev);
    return hipSuccess;
}

/* Enqueue a record or wait op for ev on stream. */
static hipError_t event_op(hx_op_kind kind, hipEvent_t ev, hipStream_t stream)
{
    if (!ev)
        return hipErrorInvalidResourceHandle;
    hx_op *op = calloc(1, sizeof *op);
    if (!op)
        return hipErrorOutOfMemory;
    op->kind = kind;
    op->ev = ev;
    pthread_mutex_lock(&hx.lk);
    struct ihipStream_t *s = hx_stream(stream);
    if (!s) {
        pthread_mutex_unlock(&hx.lk);
        free(op);
        return hipErrorInvalidResourceHandle;
    }
    op->gen = kind == OP_RECORD ? ++ev->gen_recorded : ev->gen_recorded;
    if (!hx_enqueue(s, op)) {
        if (kind == OP_RECORD)
            ev->gen_recorded--;
        pthread_mutex_unlock(&hx.lk);
        free(op);
        return hipErrorOutOfMemory;
    }
    pthread_mutex_unlock(&hx.lk);
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t ev, hipStream_t stream)
{
    INJECT();
    return event_op(OP_RECORD, ev, stream);
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t ev, unsigned flags)
{
    INJECT();
    if (flags)
        return hipErrorInvalidValue;
    return event_op(OP_WAIT_EVENT, ev, stream);
}

hipError_t hipEventSynchronize(hipEvent_t ev)
{
    INJECT();
    if (!ev)
        return hipErrorInvalidResourceHandle;
    pthread_mutex_lock(&hx.lk);
    while (ev->gen_done < ev->gen_recorded)
        pthread_cond_wait(&hx.cv, &hx.lk);
    hx.cnt.syncs++;
    hipError_t e = hx.fault;
    pthread_mutex_unlock(&hx.lk);
    return e;
}

hipError_t hipEventQuery(hipEvent_t ev)
{
    INJECT();
    if (!ev)
        return hipErrorInvalidResourceHandle;
    pthread_mutex_lock(&hx.lk);
    hipError_t e = ev->gen_done < ev->gen_recorded ? hipErrorNotReady : hipSuccess;
    pthread_mutex_unlock(&hx.lk);
    return e;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b)
{
    INJECT();
    if (!ms)
        return hipErrorInvalidValue;
    if (!a || !b)
        return hipErrorInvalidResourceHandle;
    pthread_mutex_lock(&hx.lk);
    hipError_t e = hipSuccess;
    if (!a->gen_recorded || !b->gen_recorded)
        e = hipErrorInvalidResourceHandle; /* never recorded */
    else if (a->gen_done < a->gen_recorded || b->gen_done < b->gen_recorded)
        e = hipErrorNotReady;
    else
        *ms = (float)(b->t_ms - a->t_ms);
    pthread_mutex_unlock(&hx.lk);
    return e;
}

/* ---- hooks ---- */

void hipemu_set_delay_us(unsigned us)
{
    pthread_mutex_lock(&hx.lk);
    hx.delay_us = us;
    pthread_mutex_unlock(&hx.lk);
}

void hipemu_get_counters(hipemu_counters *c)
{
    pthread_mutex_lock(&hx.lk);
    *c = hx.cnt;
    pthread_mutex_unlock(&hx.lk);
}

int hipemu_fault(char *msg, unsigned len)
{
    pthread_mutex_lock(&hx.lk);
    int e = (int)hx.fault;
    if (msg && len)
        snprintf(msg, len, "%s", hx.fault_msg);
    pthread_mutex_unlock(&hx.lk);
    return e;
}

void hipemu_clear_fault(void)
{
    pthread_mutex_lock(&hx.lk);
    hx.fault = hipSuccess;
    hx.fault_msg[0] = 0;
    pthread_mutex_unlock(&hx.lk);
}
