/* MIOpen's tunable configuration lists, read at run time from the user's own
 * MIOpen checkout (miopen_xdlops.h): nothing of them is kept in this
 * repository. A small reader of the C++ initializer syntax the solver files
 * use: comments, string and character literals, integers with suffixes,
 * nested braces, trailing commas, entries written as braced lists or as
 * calls (std::make_tuple(...), a type's constructor). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "miopen_xdlops.h"

/* ---- tokens ---- */

enum { TK_END, TK_INT, TK_NAME, TK_STR, TK_PUNCT, TK_HASH };

typedef struct {
    int kind, line;
    long long v;
    char text[64]; /* a name, a string's contents (cut), or the punctuator */
} token;

typedef struct {
    const char *path, *s;
    size_t pos;
    int line, failed;
    char *err;
    size_t errlen;
} reader;

static int rfail(reader *r, int line, const char *fmt, ...)
{
    if (r->failed)
        return -1;
    int o = line > 0 ? snprintf(r->err, r->errlen, "%s:%d: ", r->path, line)
                     : snprintf(r->err, r->errlen, "%s: ", r->path);
    if (o >= 0 && (size_t)o < r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + o, r->errlen - (size_t)o, fmt, ap);
        va_end(ap);
    }
    r->failed = 1;
    return -1;
}

/* skip blanks and comments; 0, or -1 on an unterminated comment */
static int skip_space(reader *r)
{
    const char *s = r->s;
    for (;;) {
        if (s[r->pos] == '\n')
            r->line++, r->pos++;
        else if (isspace((unsigned char)s[r->pos]))
            r->pos++;
        else if (s[r->pos] == '/' && s[r->pos + 1] == '/')
            while (s[r->pos] && s[r->pos] != '\n')
                r->pos++;
        else if (s[r->pos] == '/' && s[r->pos + 1] == '*') {
            int at = r->line;
            r->pos += 2;
            while (s[r->pos] && !(s[r->pos] == '*' && s[r->pos + 1] == '/'))
                r->line += s[r->pos++] == '\n';
            if (!s[r->pos])
                return rfail(r, at, "unterminated comment");
            r->pos += 2;
        } else
            return 0;
    }
}

/* a string or character literal's contents, its quotes consumed */
static int quoted(reader *r, token *t)
{
    const char *s = r->s;
    char q = s[r->pos++];
    size_t n = 0;
    while (s[r->pos] && s[r->pos] != q && s[r->pos] != '\n') {
        if (s[r->pos] == '\\' && s[r->pos + 1])
            r->pos++;
        if (n + 1 < sizeof t->text)
            t->text[n++] = s[r->pos];
        r->pos++;
    }
    t->text[n] = 0;
    if (s[r->pos] != q)
        return rfail(r, t->line, "unterminated %s literal", q == '"' ? "string" : "character");
    r->pos++;
    t->kind = q == '"' ? TK_STR : TK_PUNCT;
    return 0;
}

static int next(reader *r, token *t)
{
    memset(t, 0, sizeof *t);
    if (skip_space(r))
        return -1;
    const char *s = r->s, *p = s + r->pos;
    t->line = r->line;
    if (!*p)
        return 0;
    if (isdigit((unsigned char)*p)) {
        char *end;
        errno = 0;
        t->v = strtoll(p, &end, 0);
        if (errno)
            return rfail(r, t->line, "integer out of range");
        while (isalnum((unsigned char)*end) || *end == '\'')
            if (!strchr("uUlL", *end++))
                return rfail(r, t->line, "cannot read the number '%.*s'", (int)(end - p), p);
        t->kind = TK_INT;
        r->pos += (size_t)(end - p);
        return 0;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            n++;
        snprintf(t->text, sizeof t->text, "%.*s", (int)n, p);
        t->kind = TK_NAME;
        r->pos += n;
        return 0;
    }
    if (*p == '"' || *p == '\'')
        return quoted(r, t);
    /* a '#' first on its line starts a preprocessor directive */
    size_t i = r->pos;
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
        i--;
    t->kind = *p == '#' && (i == 0 || s[i - 1] == '\n') ? TK_HASH : TK_PUNCT;
    size_t n = p[0] == ':' && p[1] == ':' ? 2 : 1;
    snprintf(t->text, sizeof t->text, "%.*s", (int)n, p);
    r->pos += n;
    return 0;
}

static int is_punct(const token *t, const char *p) { return t->kind == TK_PUNCT && !strcmp(t->text, p); }

/* ---- entries: a flat sequence of items ---- */

enum { IT_INT, IT_NAME, IT_STR, IT_LIST };
#define MAX_ITEMS 32

typedef struct {
    int kind, n;
    long long v[8]; /* IT_INT: v[0]; IT_LIST: n values */
    char text[64];
} item;

typedef struct {
    int line, n;
    item it[MAX_ITEMS];
} entry;

/* one value: [-]integer, a name (qualified names keep their last part),
 * a string; nested: a braced list of integers */
static int value(reader *r, token *t, item *it, int nested)
{
    memset(it, 0, sizeof *it);
    int neg = 0;
    if (is_punct(t, "-") || is_punct(t, "+")) {
        neg = is_punct(t, "-");
        if (next(r, t))
            return -1;
        if (t->kind != TK_INT)
            return rfail(r, t->line, "a sign before something not a number");
    }
    if (t->kind == TK_INT) {
        it->kind = IT_INT;
        it->v[0] = neg ? -t->v : t->v;
    } else if (t->kind == TK_NAME || t->kind == TK_STR) {
        it->kind = t->kind == TK_STR ? IT_STR : IT_NAME;
        snprintf(it->text, sizeof it->text, "%s", t->text);
        token u;
        size_t pos = r->pos;
        int line = r->line;
        while (t->kind == TK_NAME && !next(r, &u) && is_punct(&u, "::") && !next(r, t) && t->kind == TK_NAME) {
            snprintf(it->text, sizeof it->text, "%s", t->text);
            pos = r->pos, line = r->line;
        }
        r->pos = pos, r->line = line; /* back to just after the name */
        if (r->failed)
            return -1;
    } else if (is_punct(t, "{") && !nested) {
        it->kind = IT_LIST;
        for (;;) {
            if (next(r, t))
                return -1;
            if (is_punct(t, "}"))
                return 0;
            item v;
            if (value(r, t, &v, 1))
                return -1;
            if (v.kind != IT_INT || it->n == (int)(sizeof it->v / sizeof it->v[0]))
                return rfail(r, t->line, "a nested list holds something other than up to 8 integers (a '}' missing?)");
            it->v[it->n++] = v.v[0];
            if (next(r, t))
                return -1;
            if (is_punct(t, "}"))
                return 0;
            if (!is_punct(t, ","))
                return rfail(r, t->line, "expected ',' or '}' in a nested list, got '%s'", t->text);
        }
    } else if (t->kind == TK_END)
        return rfail(r, t->line, "the file ends inside an entry");
    else
        return rfail(r, t->line, "unexpected '%s' in an entry", t->text);
    return 0;
}

/* an entry: "{ v, v, ... }" or "Name(v, ...)" / "std::make_tuple(v, ...)",
 * t holding its first token; a trailing comma is allowed */
static int parse_entry(reader *r, token *t, entry *e)
{
    e->line = t->line;
    e->n = 0;
    while (t->kind == TK_NAME || is_punct(t, "::"))
        if (next(r, t))
            return -1;
    const char *close = is_punct(t, "{") ? "}" : is_punct(t, "(") ? ")" : NULL;
    if (!close)
        return rfail(r, t->line, "expected an entry ('{' or a call), got '%s'", t->text);
    for (;;) {
        if (next(r, t))
            return -1;
        if (is_punct(t, close))
            return 0;
        if (t->kind == TK_HASH)
            return rfail(r, t->line, "a preprocessor directive inside an entry");
        if (e->n == MAX_ITEMS)
            return rfail(r, e->line, "an entry of more than %d values", MAX_ITEMS);
        if (value(r, t, &e->it[e->n++], 0) || next(r, t))
            return -1;
        if (is_punct(t, close))
            return 0;
        if (!is_punct(t, ","))
            return rfail(r, t->line, "expected ',' or '%s' in an entry, got '%s'", close, t->text);
    }
}

/* the list whose '{' was just read: each entry to take(), in order */
typedef int (*take_fn)(reader *r, const entry *e, void *ctx);

static int parse_list(reader *r, take_fn take, void *ctx)
{
    token t;
    for (;;) {
        if (next(r, &t))
            return -1;
        if (is_punct(&t, "}"))
            return 0;
        if (t.kind == TK_HASH)
            return rfail(r, t.line, "a preprocessor directive inside the list (not handled)");
        if (t.kind == TK_END)
            return rfail(r, t.line, "the file ends inside the list");
        entry e;
        if (parse_entry(r, &t, &e) || take(r, &e, ctx) || next(r, &t))
            return -1;
        if (is_punct(&t, "}"))
            return 0;
        if (!is_punct(&t, ","))
            return rfail(r, t.line, "expected ',' or '}' after an entry, got '%s'", t.text);
    }
}

/* ---- finding things ---- */

/* skip a balanced (...) or {...} whose opening t holds */
static int skip_group(reader *r, token *t)
{
    const char *open = t->text[0] == '(' ? "(" : "{", *close = t->text[0] == '(' ? ")" : "}";
    int depth = 1, line = t->line;
    while (depth > 0) {
        if (next(r, t))
            return -1;
        if (t->kind == TK_END)
            return rfail(r, line, "unbalanced '%s'", open);
        depth += is_punct(t, open) - is_punct(t, close);
    }
    return 0;
}

/* to just inside the body of function NAME's definition (NAME ( ... ) {) */
static int find_function(reader *r, const char *name)
{
    token t;
    r->pos = 0, r->line = 1;
    for (;;) {
        if (next(r, &t))
            return -1;
        if (t.kind == TK_END)
            return rfail(r, 0, "no definition of %s found", name);
        if (t.kind != TK_NAME || strcmp(t.text, name))
            continue;
        size_t pos = r->pos;
        int line = r->line;
        if (next(r, &t))
            return -1;
        if (is_punct(&t, "(") && !skip_group(r, &t) && !next(r, &t)) {
            while (t.kind == TK_NAME && !next(r, &t)) /* const, noexcept */
                ;
            if (is_punct(&t, "{"))
                return 0;
        }
        if (r->failed)
            return -1;
        r->pos = pos, r->line = line;
    }
}

/* Every list in the body just entered (a '{' at its top level followed by
 * an entry or '}'), in order, up to the body's end; other blocks skipped.
 * With NAME, only the list initializing variable NAME. Returns the number
 * of lists read, or -1. */
static int body_lists(reader *r, const char *name, take_fn take, void *ctx)
{
    token t, prev = {0}, before = {0};
    int lists = 0;
    for (;;) {
        if (next(r, &t))
            return -1;
        if (t.kind == TK_END)
            return rfail(r, t.line, "the file ends inside a function");
        if (is_punct(&t, "}"))
            return lists;
        if (is_punct(&t, "{")) {
            size_t pos = r->pos;
            int line = r->line;
            token u;
            if (next(r, &u))
                return -1;
            r->pos = pos, r->line = line;
            const token *var = is_punct(&prev, "=") ? &before : &prev;
            int named = !name || (var->kind == TK_NAME && !strcmp(var->text, name));
            int list = name ? is_punct(&u, "{") || is_punct(&u, "}") || u.kind == TK_NAME : is_punct(&u, "{");
            if (list && named) {
                if (parse_list(r, take, ctx))
                    return -1;
                lists++;
            } else if (skip_group(r, &t))
                return -1;
        }
        before = prev;
        prev = t;
    }
}

/* ---- converting entries ---- */

static const char *precision(const item *it)
{
    static const char *const names[][2] = {{"miopenFloat", "fp32"}, {"miopenHalf", "fp16"}, {"miopenBFloat16", "bf16"},
                                           {"fp32", "fp32"},        {"fp16", "fp16"},       {"bf16", "bf16"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((it->kind == IT_NAME || it->kind == IT_STR) && !strcmp(it->text, names[i][0]))
            return names[i][1];
    return it->kind == IT_NAME || it->kind == IT_STR ? "other" : NULL;
}

/* items [at, at+n) are integers; items [at+n, at+n+4) lists of 4 */
static int ints_then_lists(reader *r, const entry *e, int at, int n, int *dst[], int *const lists[4])
{
    for (int i = 0; i < n; i++) {
        if (e->it[at + i].kind != IT_INT)
            return rfail(r, e->line, "value %d of the entry is not an integer", at + i + 1);
        *dst[i] = (int)e->it[at + i].v[0];
    }
    for (int i = 0; i < 4; i++) {
        const item *it = &e->it[at + n + i];
        if (it->kind != IT_LIST || it->n != 4)
            return rfail(r, e->line, "value %d of the entry is not a list of 4 integers", at + n + i + 1);
        for (int j = 0; j < 4; j++)
            lists[i][j] = (int)it->v[j];
    }
    return 0;
}

/* NHWC: "bwd", "nhwc", precision, nxb, nxe, m, n, k, wave tile m n k,
 * wave step m n, wave repeat m n, multihead, vector store, k split, merge
 * e, pass-through, then the thread and cluster lengths of a and b
 * (PerformanceConfigAsmImplicitGemmGTC's constructor); a spare flag may follow */
static int nhwc_entry(reader *r, const entry *e, xdlops_cfg *c)
{
    memset(c, 0, sizeof *c);
    if (e->n != 24 && e->n != 25)
        return rfail(r, e->line, "an NHWC entry of %d values (want 24)", e->n);
    const char *p = precision(&e->it[2]);
    if (e->it[0].kind != IT_STR || e->it[1].kind != IT_STR || !p)
        return rfail(r, e->line, "an NHWC entry not starting with direction, layout and precision");
    snprintf(c->prec, sizeof c->prec, "%s", p);
    int *f[] = {&c->nxb,   &c->nxe,   &c->m,     &c->n,     &c->k,  &c->wt[0], &c->wt[1], &c->wt[2], &c->ws[0],
                &c->ws[1], &c->wr[0], &c->wr[1], &c->mh,    &c->vs, &c->gks,   &c->me,    &c->pta};
    int *const l[4] = {c->ta_t, c->ta_c, c->tb_t, c->tb_c};
    if (ints_then_lists(r, e, 3, 17, f, l))
        return -1;
    if (c->m <= 0 || c->n <= 0 || c->k <= 0 || c->nxb < 0)
        return rfail(r, e->line, "an NHWC entry with a block tile %dx%dx%d", c->m, c->n, c->k);
    return 0;
}

/* NCHW: "bwd", precision, nxb, nxe, m, n, k, wave tile m n k, wave step m
 * n, wave repeat m n, the four length lists, k split
 * (TunableImplicitGemmGTCDynamic_t's members in order) */
static int nchw_entry(reader *r, const entry *e, xdlops_cfg *c)
{
    memset(c, 0, sizeof *c);
    if (e->n != 19)
        return rfail(r, e->line, "an NCHW entry of %d values (want 19)", e->n);
    const char *p = precision(&e->it[1]);
    if (e->it[0].kind != IT_STR || !p || e->it[18].kind != IT_INT)
        return rfail(r, e->line, "an NCHW entry not starting with direction and precision");
    snprintf(c->prec, sizeof c->prec, "%s", p);
    int *f[] = {&c->nxb, &c->nxe, &c->m, &c->n, &c->k, &c->wt[0], &c->wt[1], &c->wt[2], &c->ws[0], &c->ws[1],
                &c->wr[0], &c->wr[1]};
    int *const l[4] = {c->ta_t, c->ta_c, c->tb_t, c->tb_c};
    if (ints_then_lists(r, e, 2, 12, f, l))
        return -1;
    c->gks = (int)e->it[18].v[0];
    if (c->m <= 0 || c->n <= 0 || c->k <= 0 || c->nxb <= 0)
        return rfail(r, e->line, "an NCHW entry with nxb %d, block tile %dx%dx%d", c->nxb, c->m, c->n, c->k);
    return 0;
}

typedef struct {
    xdlops_cfg *v;
    int n, cap, nchw;
} cfg_vec;

static int take_cfg(reader *r, const entry *e, void *ctx)
{
    cfg_vec *l = ctx;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        xdlops_cfg *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return rfail(r, e->line, "out of memory");
        l->v = v, l->cap = cap;
    }
    if (l->nchw ? nchw_entry(r, e, &l->v[l->n]) : nhwc_entry(r, e, &l->v[l->n]))
        return -1;
    l->n++;
    return 0;
}

typedef struct {
    xdlops_tile *v;
    int n;
} tile_vec;

static int take_tile(reader *r, const entry *e, void *ctx)
{
    tile_vec *l = ctx;
    if (e->n != 3 || e->it[0].kind != IT_INT || e->it[1].kind != IT_INT || e->it[2].kind != IT_INT ||
        e->it[0].v[0] <= 0 || e->it[1].v[0] <= 0 || e->it[2].v[0] <= 0)
        return rfail(r, e->line, "a tile entry that is not 3 positive integers");
    if (l->n == XDLOPS_MAX_TILES)
        return rfail(r, e->line, "a tile list of more than %d entries", XDLOPS_MAX_TILES);
    l->v[l->n++] = (xdlops_tile){(int)e->it[0].v[0], (int)e->it[1].v[0], (int)e->it[2].v[0]};
    return 0;
}

/* ---- the files ---- */

static char *slurp(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "%s: cannot read: %s (MIOPEN_ROOT must be a MIOpen checkout)", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    while (s) {
        n += fread(s + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *t = realloc(s, cap *= 2);
        if (!t)
            free(s);
        s = t;
    }
    int bad = ferror(f);
    fclose(f);
    if (!s || bad) {
        snprintf(err, len, "%s: cannot read", path);
        free(s);
        return NULL;
    }
    s[n] = 0;
    return s;
}

static int open_reader(reader *r, char *path, size_t plen, const char *root, const char *file, char *err,
                       size_t len)
{
    snprintf(path, plen, "%s/%s", root, file);
    memset(r, 0, sizeof *r);
    r->path = path, r->err = err, r->errlen = len, r->line = 1;
    r->s = slurp(path, err, len);
    return r->s ? 0 : -1;
}

/* the configuration lists of function FN's body, in order, or -1 */
static int read_cfgs(reader *r, const char *fn, cfg_vec *v)
{
    if (find_function(r, fn) || body_lists(r, NULL, take_cfg, v) < 0)
        return -1;
    if (v->n == 0)
        return rfail(r, 0, "no configuration list found in %s", fn);
    return 0;
}

/* the single configuration FN returns ("return {...};" or a call) */
static int read_one(reader *r, const char *fn, xdlops_cfg *c)
{
    token t;
    entry e;
    if (find_function(r, fn) || next(r, &t))
        return -1;
    if (t.kind != TK_NAME || strcmp(t.text, "return"))
        return rfail(r, t.line, "%s does not start with a return", fn);
    if (next(r, &t) || parse_entry(r, &t, &e))
        return -1;
    return nhwc_entry(r, &e, c);
}

int xdlops_lists_load(xdlops_lists *l, const char *root, int nchw, char *err, size_t len)
{
    memset(l, 0, sizeof *l);
    reader r;
    char path[4096];
    if (!root || !*root) {
        snprintf(err, len, "no MIOpen checkout given (--miopen-root DIR, MIOPEN_ROOT=DIR)");
        return -1;
    }
    if (open_reader(&r, path, sizeof path, root, nchw ? XDLOPS_NCHW_FILE : XDLOPS_NHWC_FILE, err, len))
        return -1;
    cfg_vec v = {0};
    v.nchw = nchw;
    int rc = read_cfgs(&r, nchw ? "GetImplicitGemmGtcDynamicBwdTunablesList" : "GetBwdXdlopsNHWCConfigList", &v);
    l->cfg = v.v, l->count = v.n;
    static const char *const tiles[3] = {"tile_list_fp32", "tile_list_fp16", "tile_list_bfp16"};
    static const char *const largest[3] = {"GetBwdXdlopsNHWCConfigLargestTileFp32",
                                           "GetBwdXdlopsNHWCConfigLargestTileFp16",
                                           "GetBwdXdlopsNHWCConfigLargestTileBf16"};
    for (int d = 0; d < 3 && !nchw && !rc; d++) {
        tile_vec tv = {l->tiles[d], 0};
        if (find_function(&r, "HeuristicInit") || body_lists(&r, tiles[d], take_tile, &tv) < 0)
            rc = -1;
        else if (tv.n == 0)
            rc = rfail(&r, 0, "no %s found in HeuristicInit", tiles[d]);
        l->tile_count[d] = tv.n;
        if (!rc)
            rc = read_one(&r, largest[d], &l->largest[d]);
    }
    free((void *)r.s);
    if (rc)
        xdlops_lists_free(l);
    return rc;
}

void xdlops_lists_free(xdlops_lists *l)
{
    free(l->cfg);
    l->cfg = NULL;
    l->count = 0;
}
