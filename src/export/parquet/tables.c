/* The tables of one conversion into a directory (tables.h): files under
 * temporary names, renamed into place all together at the end. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/parquet/tables.h"

/* A file written, waiting to be renamed into place. */
typedef struct part {
    char *tmp, *path;
} part;

struct tk_pq_table {
    tk_pq_dir *dir;
    char *name;
    tk_pq_column *cols; /* the caller's, then trace_id when there is one */
    size_t ncols;       /* with trace_id */
    tk_pq_writer *w;    /* the file being written (NULL: none yet) */
    FILE *f;
    part *parts;        /* files written or being written, last = f's */
    size_t nparts;
    uint64_t rows, file_rows;
    int failed;
};

struct tk_pq_dir {
    char *path;
    char *trace_id;          /* NULL: the directory is trace_id=... */
    uint64_t rows_per_file;  /* 0: one file per table */
    tk_pq_options opt;
    tk_pq_table **tables;
    size_t ntables;
    int created;             /* we made `path`: removed again on failure */
};

static char *dup_printf(const char *fmt, const char *a, const char *b, const char *c)
{
    int n = snprintf(NULL, 0, fmt, a, b, c);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        snprintf(s, (size_t)n + 1, fmt, a, b, c);
    return s;
}

static tk_status oom(tk_error *err)
{
    return tk_error_set(err, TK_ENOMEM, TK_NO_OFFSET, TK_NO_RECORD, "out of memory");
}

static tk_status io_error(tk_error *err, const char *path, const char *what)
{
    tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD, "%s: %s", what, strerror(errno));
    tk_error_set_file(err, path);
    return TK_EIO;
}

/* The base name of `path` without a directory ("-": standard input). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* The options: codec, row group, rows per file, the trace id. */
static tk_status read_options(tk_pq_dir *d, const char *source, const tk_options *o,
                              tk_error *err)
{
    tk_pq_options_init(&d->opt);
    const char *codec = tk_options_get(o, "compression");
    if (codec && strcmp(codec, "snappy") == 0)
        d->opt.codec = TK_PQ_SNAPPY;
    else if (codec && strcmp(codec, "none") == 0)
        d->opt.codec = TK_PQ_UNCOMPRESSED;
    else if (codec && strcmp(codec, "zstd") != 0)
        return tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD,
                            "--compression: zstd, snappy or none, not '%s'", codec);
    if (tk_options_get_u64(o, "row-group-rows", 0, &d->opt.row_group_rows, err) != TK_OK ||
        tk_options_get_u64(o, "rows-per-file", 0, &d->rows_per_file, err) != TK_OK)
        return err->status;
    const char *dirname = base_name(d->path);
    if (strncmp(dirname, "trace_id=", 9) == 0) /* a Hive partition: the path says it */
        return TK_OK;
    const char *id = tk_options_get(o, "trace-id");
    d->trace_id = strdup(id ? id : base_name(source ? source : "-"));
    return d->trace_id ? TK_OK : oom(err);
}

/* mkdir -p: `path` and the directories above it (a dataset's
 * dataset/trace_id=X/ in one go). 0, or -1 with errno (EEXIST: `path`
 * exists, maybe not as a directory). */
static int make_dirs(char *path)
{
    for (char *c = path + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        int r = mkdir(path, 0777);
        int e = errno;
        *c = '/';
        if (r != 0 && e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    return mkdir(path, 0777);
}

tk_pq_dir *tk_pq_dir_open(const char *dir, const char *source, const tk_options *o,
                          tk_error *err)
{
    tk_pq_dir *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(dir))) {
        free(d);
        oom(err);
        return NULL;
    }
    size_t n = strlen(d->path);
    while (n > 1 && d->path[n - 1] == '/')
        d->path[--n] = '\0';
    if (read_options(d, source, o, err) != TK_OK) {
        tk_pq_dir_abort(d);
        return NULL;
    }
    struct stat st;
    d->created = make_dirs(d->path) == 0;
    if (!d->created &&
        (errno != EEXIST || stat(d->path, &st) != 0 || !S_ISDIR(st.st_mode))) {
        if (errno == EEXIST)
            errno = ENOTDIR;
        io_error(err, d->path, "cannot make the output directory");
        tk_pq_dir_abort(d);
        return NULL;
    }
    return d;
}

static int name_ok(const char *name)
{
    if (!*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

tk_pq_table *tk_pq_dir_table(tk_pq_dir *d, const char *name, const tk_pq_column *cols,
                             size_t ncols, tk_error *err)
{
    if (!name_ok(name)) {
        tk_error_set(err, TK_EUSAGE, TK_NO_OFFSET, TK_NO_RECORD, "bad table name '%s'", name);
        return NULL;
    }
    tk_pq_table *t = calloc(1, sizeof *t);
    tk_pq_table **v = realloc(d->tables, (d->ntables + 1) * sizeof *v);
    if (v)
        d->tables = v;
    if (!t || !v || !(t->name = strdup(name)) ||
        !(t->cols = calloc(ncols + 1, sizeof *t->cols))) {
        if (t)
            free(t->name);
        free(t);
        oom(err);
        return NULL;
    }
    memcpy(t->cols, cols, ncols * sizeof *cols);
    t->ncols = ncols;
    if (d->trace_id)
        t->cols[t->ncols++] = (tk_pq_column){"trace_id", TK_PQ_STRING, 0, TK_PQ_ENC_DICT};
    t->dir = d;
    d->tables[d->ntables++] = t;
    return t;
}

/* The next file of `t`: DIR/NAME.parquet, or DIR/NAME/part-NNNNN.parquet. */
static tk_status open_file(tk_pq_table *t, tk_error *err)
{
    tk_pq_dir *d = t->dir;
    char num[32];
    snprintf(num, sizeof num, "%05zu", t->nparts);
    part p = {0};
    if (d->rows_per_file) {
        char *sub = dup_printf("%s/%s%s", d->path, t->name, "");
        if (!sub)
            return oom(err);
        if (mkdir(sub, 0777) != 0 && errno != EEXIST) {
            io_error(err, sub, "cannot make the table's directory");
            free(sub);
            return TK_EIO;
        }
        p.path = dup_printf("%s/part-%s.parquet", sub, num, "");
        p.tmp = dup_printf("%s/.part-%s.parquet.tmp", sub, num, "");
        free(sub);
    } else {
        p.path = dup_printf("%s/%s.parquet%s", d->path, t->name, "");
        p.tmp = dup_printf("%s/.%s.parquet.tmp%s", d->path, t->name, "");
    }
    part *v = p.path && p.tmp ? realloc(t->parts, (t->nparts + 1) * sizeof *v) : NULL;
    if (!v) {
        free(p.path);
        free(p.tmp);
        return oom(err);
    }
    t->parts = v;
    t->parts[t->nparts++] = p;
    int fd = open(p.tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || !(t->f = fdopen(fd, "wb"))) {
        if (fd >= 0)
            close(fd);
        return io_error(err, p.path, "cannot create");
    }
    t->w = tk_pq_writer_new(t->f, t->cols, t->ncols, &d->opt, err);
    t->file_rows = 0;
    if (!t->w)
        return err->status;
    /* the trace_id column: the same in every row, no cost per row */
    return d->trace_id ? tk_pq_set_constant(t->w, t->ncols - 1, d->trace_id,
                                            strlen(d->trace_id), err)
                       : TK_OK;
}

/* Finish the file being written: footer, then close (a write error names
 * the file it was for). */
static tk_status close_file(tk_pq_table *t, tk_error *err)
{
    const char *path = t->parts[t->nparts - 1].path;
    tk_status st = tk_pq_finish(t->w, err);
    t->w = NULL;
    int saved = errno;
    int closed = fclose(t->f);
    t->f = NULL;
    if (st != TK_OK) {
        tk_error_set_file(err, path);
        return st;
    }
    errno = closed != 0 ? errno : saved;
    return closed != 0 ? io_error(err, path, "write failed") : TK_OK;
}

tk_pq_writer *tk_pq_table_writer(tk_pq_table *t)
{
    if (!t->w && !t->failed) {
        tk_error err;
        if (open_file(t, &err) != TK_OK)
            t->failed = 1; /* row_end reports it again */
    }
    return t->failed ? NULL : t->w;
}

tk_status tk_pq_table_row_end(tk_pq_table *t, tk_error *err)
{
    if (t->failed || (!t->w && open_file(t, err) != TK_OK)) {
        t->failed = 1;
        return err->status != TK_OK ? err->status
                                    : tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                                                   "%s: cannot write the table", t->name);
    }
    if (tk_pq_row_end(t->w, err) != TK_OK) {
        tk_error_set_file(err, t->parts[t->nparts - 1].path);
        t->failed = 1;
        return err->status;
    }
    t->rows++;
    if (t->dir->rows_per_file && ++t->file_rows == t->dir->rows_per_file &&
        close_file(t, err) != TK_OK) {
        t->failed = 1;
        return err->status;
    }
    return TK_OK;
}

uint64_t tk_pq_table_rows(const tk_pq_table *t) { return t->rows; }

static void table_free(tk_pq_table *t, int remove_tmp)
{
    if (remove_tmp && t->dir->rows_per_file && t->nparts) { /* the table's directory, if empty */
        char *sub = dup_printf("%s/%s%s", t->dir->path, t->name, "");
        for (size_t i = 0; i < t->nparts; i++)
            unlink(t->parts[i].tmp);
        if (sub)
            rmdir(sub); /* fails, as it should, when an earlier run's parts are there */
        free(sub);
    }
    if (t->w)
        tk_pq_free(t->w);
    if (t->f)
        fclose(t->f);
    for (size_t i = 0; i < t->nparts; i++) {
        if (remove_tmp)
            unlink(t->parts[i].tmp);
        free(t->parts[i].tmp);
        free(t->parts[i].path);
    }
    free(t->parts);
    free(t->cols);
    free(t->name);
    free(t);
}

static void dir_free(tk_pq_dir *d, int remove_tmp)
{
    for (size_t i = 0; i < d->ntables; i++)
        table_free(d->tables[i], remove_tmp);
    if (remove_tmp && d->created)
        rmdir(d->path); /* a failed conversion leaves no directory it made */
    free(d->tables);
    free(d->trace_id);
    free(d->path);
    free(d);
}

void tk_pq_dir_abort(tk_pq_dir *d)
{
    if (d)
        dir_free(d, 1);
}

/* Every table finished: the open file closed, an empty table written. */
static tk_status finish_tables(tk_pq_dir *d, tk_error *err)
{
    for (size_t i = 0; i < d->ntables; i++) {
        tk_pq_table *t = d->tables[i];
        if (t->failed)
            return err->status != TK_OK
                       ? err->status
                       : tk_error_set(err, TK_EIO, TK_NO_OFFSET, TK_NO_RECORD,
                                      "%s: cannot write the table", t->name);
        if (!t->w && (t->nparts == 0) && open_file(t, err) != TK_OK)
            return err->status; /* no rows: a file with the schema */
        if (t->w && close_file(t, err) != TK_OK)
            return err->status;
    }
    return TK_OK;
}

/* A table written in parts replaces all of an earlier run's: the parts
 * past this run's last one are removed (a dataset must not mix runs). */
static void remove_stale_parts(const tk_pq_table *t)
{
    char *sub = dup_printf("%s/%s%s", t->dir->path, t->name, "");
    DIR *dir = sub ? opendir(sub) : NULL;
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        unsigned long k;
        char tail[16];
        if (sscanf(e->d_name, "part-%lu.%15s", &k, tail) == 2 && strcmp(tail, "parquet") == 0 &&
            k >= t->nparts) {
            char *path = dup_printf("%s/%s%s", sub, e->d_name, "");
            if (path)
                unlink(path);
            free(path);
        }
    }
    if (dir)
        closedir(dir);
    free(sub);
}

/* Rename every file into place; on a failure, take back those renamed. */
static tk_status rename_all(tk_pq_dir *d, tk_error *err)
{
    size_t i, k = 0;
    tk_status st = TK_OK;
    for (i = 0; st == TK_OK && i < d->ntables; i++)
        for (k = 0; st == TK_OK && k < d->tables[i]->nparts; k++)
            if (rename(d->tables[i]->parts[k].tmp, d->tables[i]->parts[k].path) != 0)
                st = io_error(err, d->tables[i]->parts[k].path, "cannot rename into place");
    if (st == TK_OK) {
        for (i = 0; i < d->ntables; i++)
            if (d->rows_per_file)
                remove_stale_parts(d->tables[i]);
        return TK_OK;
    }
    for (size_t a = 0; a < d->ntables; a++) /* every part before the failed one */
        for (size_t b = 0; b < d->tables[a]->nparts; b++) {
            if (a == i - 1 && b == k - 1)
                return st;
            unlink(d->tables[a]->parts[b].path);
        }
    return st;
}

tk_status tk_pq_dir_commit(tk_pq_dir *d, tk_error *err)
{
    tk_status st = finish_tables(d, err);
    if (st == TK_OK)
        st = rename_all(d, err);
    dir_free(d, st != TK_OK);
    return st;
}
