/* The plain-text performance database (format in perfdb.h). */
#include "perfdb.h"

#include "../conv/ofile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void perfdb_key(const igemm_problem *p, int num_cu, char *buf, size_t len)
{
    snprintf(buf, len, "n%d,c%d,H%d,W%d,k%d,y%d,x%d,p%d,q%d,u%d,v%d,l%d,j%d,g%d,%s,%s,cu%d", p->n, p->c, p->hi, p->wi,
             p->k, p->y, p->x, p->pad_h, p->pad_w, p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->groups,
             p->layout == IGEMM_LAYOUT_NCHW ? "NCHW" : p->layout == IGEMM_LAYOUT_NHWC ? "NHWC" : "LAYOUT?",
             p->dtype == IGEMM_FP32   ? "FP32"
             : p->dtype == IGEMM_FP16 ? (p->fp16_mode == IGEMM_FP16_FLUSH ? "FP16-FLUSH" : "FP16")
             : p->dtype == IGEMM_BF16 ? "BF16"
                                      : "DTYPE?",
             num_cu);
}

void perfdb_free(perfdb *db)
{
    free(db->r);
    memset(db, 0, sizeof *db);
}

static int same(const perfdb_rec *a, const perfdb_rec *b)
{
    return !strcmp(a->arch, b->arch) && !strcmp(a->key, b->key) && !strcmp(a->unit, b->unit);
}

int perfdb_put(perfdb *db, const perfdb_rec *r)
{
    for (int i = 0; i < db->n; i++)
        if (same(&db->r[i], r)) {
            db->r[i] = *r;
            return 0;
        }
    if (db->n == db->cap) {
        int cap = db->cap ? 2 * db->cap : 16;
        perfdb_rec *nr = realloc(db->r, sizeof *nr * (size_t)cap);
        if (!nr)
            return -1;
        db->r = nr;
        db->cap = cap;
    }
    db->r[db->n++] = *r;
    return 0;
}

const perfdb_rec *perfdb_find(const perfdb *db, const char *arch, const char *key, const char *unit)
{
    for (int i = 0; i < db->n; i++) {
        const perfdb_rec *r = &db->r[i];
        if (!strcmp(r->arch, arch) && !strcmp(r->key, key) && !strcmp(r->unit, unit))
            return r;
    }
    return NULL;
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

/* Parse one line: 1 record, 0 blank/comment, -1 error (reason in why). */
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
    if (field(r->arch, sizeof r->arch, f[0]) || field(r->key, sizeof r->key, f[1]) ||
        field(r->solution, sizeof r->solution, f[2])) {
        why_printf(why, len, "a field is too long");
        return -1;
    }
    char *end;
    errno = 0;
    r->cost = strtod(f[3], &end);
    if (*end || errno || !perfdb_cost_ok(r->cost)) {
        why_printf(why, len, "cost '%s' is not a number >= 0", f[3]);
        return -1;
    }
    if (strcmp(f[4], "cycles") && strcmp(f[4], "ms")) {
        why_printf(why, len, "unit '%s' is neither 'cycles' nor 'ms'", f[4]);
        return -1;
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
    char line[1024];
    int lineno = 0, skipped = 0, first_bad = 0, got;
    char first_reason[256] = "";
    igemm_status st = IGEMM_OK;
    while ((got = text_line(f, line, sizeof line)) != 0) {
        lineno++;
        if (got == TEXT_ERROR) {
            why_printf(why, len, "%s:%d: %s", path, lineno, text_line_error(got, sizeof line, reason, sizeof reason));
            st = IGEMM_ERR_IO;
            break;
        }
        perfdb_rec r;
        int k = got < 0 ? -1 : parse_line(line, &r, reason, sizeof reason);
        if (got < 0)
            text_line_error(got, sizeof line, reason, sizeof reason);
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

igemm_status perfdb_store(const char *path, const perfdb_rec *r, char *why, size_t len)
{
    if (!perfdb_cost_ok(r->cost)) {
        why_printf(why, len, "cost %g of %s is not a number >= 0: not stored in %s", r->cost, r->solution, path);
        return IGEMM_ERR_INVALID_ARG;
    }
    perfdb db;
    igemm_status st = perfdb_load(&db, path, NULL, 0, why, len);
    if (st != IGEMM_OK)
        return st;
    if (perfdb_put(&db, r)) {
        perfdb_free(&db);
        why_printf(why, len, "out of memory");
        return IGEMM_ERR_NO_MEMORY;
    }
    ofile o;
    char reason[1200];
    if (ofile_open(&o, path, reason, sizeof reason)) {
        why_printf(why, len, "performance database: %s", reason);
        perfdb_free(&db);
        return IGEMM_ERR_IO;
    }
    fprintf(o.f, "# igemm performance database: target problem configuration cost unit\n"
                 "# written by igemm_find (igemm conv -s 1); one record per target, problem and unit\n");
    for (int i = 0; i < db.n; i++)
        fprintf(o.f, "%s %s %s %.17g %s\n", db.r[i].arch, db.r[i].key, db.r[i].solution, db.r[i].cost, db.r[i].unit);
    perfdb_free(&db);
    if (ofile_commit(&o, reason, sizeof reason)) {
        why_printf(why, len, "performance database: %s", reason);
        return IGEMM_ERR_IO;
    }
    return IGEMM_OK;
}
