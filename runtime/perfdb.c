/* The plain-text performance database (format in perfdb.h). */
#include "perfdb.h"

#include "../conv/ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line of every file perfdb_store creates: it also marks an
 * empty database as one. */
#define PERFDB_HEADER "# igemm performance database"

void perfdb_key(const igemm_problem *p, int num_cu, char *buf, size_t len)
{
    snprintf(buf, len, "n%d,c%d,H%d,W%d,k%d,y%d,x%d,p%d,q%d,u%d,v%d,l%d,j%d,g%d,%s,%s,cu%d", p->n, p->c, p->hi, p->wi,
             p->k, p->y, p->x, p->pad_h, p->pad_w, p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->groups,
             p->layout == IGEMM_LAYOUT_NCHW ? "NCHW" : p->layout == IGEMM_LAYOUT_NHWC ? "NHWC" : "LAYOUT?",
             p->dtype == IGEMM_FP32   ? "FP32"
             : p->dtype == IGEMM_FP16 ? (p->fp16_mode == IGEMM_FP16_FLUSH ? "FP16-FLUSH"
                                        : p->fp16_mode == IGEMM_FP16_ALT ? "FP16-ALT"
                                                                         : "FP16")
             : p->dtype == IGEMM_BF16 ? "BF16"
                                      : "DTYPE?",
             num_cu);
}

void perfdb_free(perfdb *db)
{
    free(db->r);
    free(db->hash);
    free(db->slot);
    memset(db, 0, sizeof *db);
}

/* FNV-1a over the identity of a record: target, key and unit. */
static uint32_t rec_hash(const char *arch, const char *key, const char *unit)
{
    uint32_t h = 2166136261u;
    const char *parts[3] = {arch, key, unit};
    for (int i = 0; i < 3; i++) {
        for (const unsigned char *c = (const unsigned char *)parts[i]; *c; c++)
            h = (h ^ *c) * 16777619u;
        h = (h ^ 0xff) * 16777619u; /* separator */
    }
    h ^= h >> 16; /* spread the high bits into the low ones the index uses */
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

/* The slot of (arch, key, unit), whose hash is h, in the open-addressing
 * index: the one that holds it, or the empty one where it would go. nslot
 * is a power of two. */
static int *find_slot(const perfdb *db, uint32_t h, const char *arch, const char *key, const char *unit)
{
    uint32_t mask = (uint32_t)db->nslot - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        int *s = &db->slot[i];
        if (*s < 0)
            return s;
        const perfdb_rec *r = &db->r[*s];
        if (db->hash[*s] == h && !strcmp(r->key, key) && !strcmp(r->arch, arch) && !strcmp(r->unit, unit))
            return s;
    }
}

/* Grow the index to at least twice the records' capacity (load <= 1/2). */
static int reindex(perfdb *db)
{
    int nslot = 32;
    while (nslot < 2 * db->cap)
        nslot *= 2;
    int *slot = malloc(sizeof *slot * (size_t)nslot);
    if (!slot)
        return -1;
    free(db->slot);
    db->slot = slot;
    db->nslot = nslot;
    for (int i = 0; i < nslot; i++)
        slot[i] = -1;
    for (int i = 0; i < db->n; i++) {
        uint32_t j = db->hash[i] & (uint32_t)(nslot - 1);
        while (slot[j] >= 0)
            j = (j + 1) & (uint32_t)(nslot - 1);
        slot[j] = i; /* the records are distinct: no comparison needed */
    }
    return 0;
}

/* Room for cap records (and the index for them) at once. */
static int reserve(perfdb *db, int cap)
{
    if (cap <= db->cap)
        return 0;
    perfdb_rec *nr = realloc(db->r, sizeof *nr * (size_t)cap);
    if (!nr)
        return -1;
    db->r = nr;
    uint32_t *nh = realloc(db->hash, sizeof *nh * (size_t)cap);
    if (!nh)
        return -1;
    db->hash = nh;
    db->cap = cap;
    return db->nslot < 2 * db->cap ? reindex(db) : 0;
}

int perfdb_put(perfdb *db, const perfdb_rec *r)
{
    uint32_t h = rec_hash(r->arch, r->key, r->unit);
    if (db->nslot) {
        int *s = find_slot(db, h, r->arch, r->key, r->unit);
        if (*s >= 0) {
            db->r[*s] = *r;
            return 0;
        }
    }
    if (db->n == db->cap && reserve(db, db->cap ? 2 * db->cap : 16))
        return -1;
    db->r[db->n] = *r;
    db->hash[db->n] = h;
    *find_slot(db, h, r->arch, r->key, r->unit) = db->n++;
    return 0;
}

const perfdb_rec *perfdb_find(const perfdb *db, const char *arch, const char *key, const char *unit)
{
    if (!db->nslot)
        return NULL;
    int *s = find_slot(db, rec_hash(arch, key, unit), arch, key, unit);
    return *s >= 0 ? &db->r[*s] : NULL;
}

int perfdb_cost_ok(double cost) { return isfinite(cost) && cost >= 0; }

/* Copy a field into dst (size cap); -1 when it does not fit. */
static int field(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Parse one line: 1 record, 0 blank/comment, -1 error (reason in why), -2
 * an error in a line shaped like a record (five fields, the last a unit:
 * a perf-db line with a bad value, which still marks the file as one). */
static int parse_line(char *line, perfdb_rec *r, char *why, size_t len)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *f[6];
    int nf = 0;
    for (char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (nf == 6)
            break;
        f[nf++] = tok;
    }
    if (!nf)
        return 0;
    if (nf != 5) {
        why_printf(why, len, "expected 5 fields (target problem configuration cost unit), got %s", nf > 5 ? "more" : "fewer");
        return -1;
    }
    memset(r, 0, sizeof *r);
    if (strcmp(f[4], "cycles") && strcmp(f[4], "ms")) {
        why_printf(why, len, "unit '%s' is neither 'cycles' nor 'ms'", f[4]);
        return -1;
    }
    if (field(r->arch, sizeof r->arch, f[0]) || field(r->key, sizeof r->key, f[1]) ||
        field(r->solution, sizeof r->solution, f[2])) {
        why_printf(why, len, "a field is too long");
        return -2;
    }
    char *end;
    errno = 0;
    r->cost = strtod(f[3], &end);
    if (*end || errno || !perfdb_cost_ok(r->cost)) {
        why_printf(why, len, "cost '%s' is not a number >= 0", f[3]);
        return -2;
    }
    snprintf(r->unit, sizeof r->unit, "%s", f[4]);
    return 1;
}

igemm_status perfdb_load(perfdb *db, const char *path, char *warning, size_t wlen, char *why, size_t len)
{
    memset(db, 0, sizeof *db);
    why_printf(warning, wlen, "%s", "");
    int missing;
    char reason[256];
    FILE *f = text_open(path, &missing, reason, sizeof reason);
    if (!f) {
        if (missing)
            return IGEMM_OK;
        why_printf(why, len, "performance database: %s", reason);
        return IGEMM_ERR_IO;
    }
    /* records are about 130 bytes a line: room for the file's at once */
    struct stat sb;
    if (!fstat(fileno(f), &sb) && sb.st_size / 128 < (1 << 24) && reserve(db, (int)(sb.st_size / 128) + 16)) {
        fclose(f);
        perfdb_free(db);
        why_printf(why, len, "out of memory reading %s", path);
        return IGEMM_ERR_NO_MEMORY;
    }
    char line[1024];
    int lineno = 0, skipped = 0, first_bad = 0, got, header = 0;
    char first_reason[256] = "";
    igemm_status st = IGEMM_OK;
    while ((got = text_line(f, line, sizeof line)) != 0) {
        lineno++;
        if (got > 0 && !strncmp(line, PERFDB_HEADER, strlen(PERFDB_HEADER)))
            header = 1;
        if (got == TEXT_ERROR) {
            why_printf(why, len, "%s:%d: %s", path, lineno, text_line_error(got, sizeof line, reason, sizeof reason));
            st = IGEMM_ERR_IO;
            break;
        }
        perfdb_rec r;
        int k = got < 0 ? -1 : parse_line(line, &r, reason, sizeof reason);
        if (got < 0)
            text_line_error(got, sizeof line, reason, sizeof reason);
        header |= k == -2; /* a record with a bad value: still a perf-db line */
        if (k < 0) {
            if (!skipped++) {
                first_bad = lineno;
                snprintf(first_reason, sizeof first_reason, "%s", reason);
            }
            continue;
        }
        if (k && perfdb_put(db, &r)) {
            why_printf(why, len, "out of memory reading %s", path);
            st = IGEMM_ERR_NO_MEMORY;
            break;
        }
    }
    fclose(f);
    if (st == IGEMM_OK && skipped && !db->n && !header) {
        why_printf(why, len, "%s is not a performance database (none of its lines is a record; %s:%d: %s)", path,
                   path, first_bad, first_reason);
        st = IGEMM_ERR_INVALID_ARG;
    }
    if (st != IGEMM_OK) {
        perfdb_free(db);
        return st;
    }
    if (skipped == 1)
        why_printf(warning, wlen, "%s:%d: %s; the line is skipped", path, first_bad, first_reason);
    else if (skipped)
        why_printf(warning, wlen, "%s:%d: %s; the line is skipped (%d malformed lines skipped in all)", path,
                   first_bad, first_reason, skipped);
    return IGEMM_OK;
}

/* Hold an exclusive lock on PATH.lock (created beside the database and
 * left there: removing it would race with a process about to lock it).
 * Returns the descriptor, or -1 with the reason in why. */
static int lock_db(const char *path, char *why, size_t len)
{
    size_t n = strlen(path) + 6;
    char *lp = malloc(n);
    if (!lp) {
        why_printf(why, len, "out of memory");
        return -1;
    }
    snprintf(lp, n, "%s.lock", path);
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    int r = fd < 0 ? -1 : 0;
    while (!r && (r = flock(fd, LOCK_EX)) && errno == EINTR)
        r = 0;
    if (r) {
        why_printf(why, len, "performance database: cannot lock %s: %s", lp, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    free(lp);
    return fd;
}

/* A growing output buffer. */
typedef struct {
    char *b;
    size_t n, cap;
    int oom;
} obuf;

static void put_bytes(obuf *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->n + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->n + n + 1)
            cap *= 2;
        char *nb = realloc(o->b, cap);
        if (!nb) {
            o->oom = 1;
            return;
        }
        o->b = nb;
        o->cap = cap;
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
}

static void put_record(obuf *o, const perfdb_rec *r)
{
    char line[400];
    int n = snprintf(line, sizeof line, "%s %s %s %.17g %s\n", r->arch, r->key, r->solution, r->cost, r->unit);
    put_bytes(o, line, (size_t)n);
}

/* The file text with r merged in: every line kept byte for byte (comments,
 * lines this version does not understand) except records of r's target,
 * key and unit, the first of which becomes r (the others go); r is appended
 * when there is none. Refuses (IGEMM_ERR_INVALID_ARG) text with lines none
 * of which is a record or the header: not a performance database. */
static igemm_status merge(const char *path, const char *text, size_t size, const perfdb_rec *r, obuf *o, char *why,
                          size_t len)
{
    int placed = 0, records = 0, others = 0, header = 0;
    if (!size) {
        static const char head[] = PERFDB_HEADER ": target problem configuration cost unit\n"
                                   "# written by igemm_find (igemm conv -s 1); one record per target, problem and unit\n";
        put_bytes(o, head, sizeof head - 1);
        header = 1;
    }
    for (size_t at = 0; at < size;) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : size - at;
        char line[1024];
        perfdb_rec x;
        int k = -1;
        if (n < sizeof line && !memchr(text + at, 0, n)) {
            memcpy(line, text + at, n);
            line[n] = 0;
            if (!strncmp(line, PERFDB_HEADER, strlen(PERFDB_HEADER)))
                header = 1;
            char reason[256];
            k = parse_line(line, &x, reason, sizeof reason);
        }
        records += k > 0 || k == -2;
        others += k == -1;
        if (k > 0 && !strcmp(x.arch, r->arch) && !strcmp(x.key, r->key) && !strcmp(x.unit, r->unit)) {
            if (!placed++)
                put_record(o, r);
        } else {
            put_bytes(o, text + at, n);
            put_bytes(o, "\n", 1);
        }
        at += n + 1;
    }
    if (others && !records && !header) {
        why_printf(why, len, "%s is not a performance database (none of its lines is a record): left as it is", path);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (!placed)
        put_record(o, r);
    if (o->oom) {
        why_printf(why, len, "out of memory");
        return IGEMM_ERR_NO_MEMORY;
    }
    return IGEMM_OK;
}

igemm_status perfdb_store(const char *path, const perfdb_rec *r, char *why, size_t len)
{
    if (!perfdb_cost_ok(r->cost)) {
        why_printf(why, len, "cost %g of %s is not a number >= 0: not stored in %s", r->cost, r->solution, path);
        return IGEMM_ERR_INVALID_ARG;
    }
    struct stat sb;
    if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
        why_printf(why, len, "performance database: %s is %s", path,
                   S_ISDIR(sb.st_mode) ? "a directory" : "not a regular file");
        return IGEMM_ERR_IO;
    }
    int lock = lock_db(path, why, len);
    if (lock < 0)
        return IGEMM_ERR_IO;
    /* under the lock: what other processes stored meanwhile is in the file */
    size_t size = 0;
    char *text = read_file(path, &size);
    igemm_status st = IGEMM_OK;
    if (!text && !stat(path, &sb)) {
        why_printf(why, len, "performance database: cannot read %s: %s", path, strerror(errno));
        st = IGEMM_ERR_IO;
    }
    obuf o = {0};
    if (st == IGEMM_OK)
        st = merge(path, text ? text : "", size, r, &o, why, len);
    char reason[1200];
    if (st == IGEMM_OK && ofile_write_all(path, o.b, o.n, reason, sizeof reason)) {
        why_printf(why, len, "performance database: %s", reason);
        st = IGEMM_ERR_IO;
    }
    free(o.b);
    free(text);
    close(lock);
    return st;
}
