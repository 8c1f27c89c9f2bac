/* An LD_PRELOAD shim that records, in order, every write, truncate, unlink and
 * fsync of the journal's files ($RECORD_JOURNAL, its "-wal" and "-mark"), with
 * the bytes written, into $RECORD_LOG (appended). One record per call:
 *   "W <file> <offset> <length>\n" followed by the <length> bytes written
 *   "S <file>\n" (fsync/fdatasync)   "T <file> <length>\n"   "U <file>\n"
 * where <file> is db, wal or mark. Used by benchmarks/torn_write.py. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int log_fd = -1;

static ssize_t real_write(int fd, const void *buf, size_t n) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    return real(fd, buf, n);
}

static const char *kind_of_path(const char *name) {
    const char *journal = getenv("RECORD_JOURNAL");
    size_t len;
    if (!journal) return NULL;
    len = strlen(journal);
    if (strncmp(name, journal, len) != 0) return NULL;
    if (name[len] == 0) return "db";
    if (strcmp(name + len, "-wal") == 0) return "wal";
    if (strcmp(name + len, "-mark") == 0) return "mark";
    return NULL;
}

static const char *kind_of_fd(int fd) {
    char link[64];
    static char name[4096];
    ssize_t n;
    if (fd < 0 || fd == log_fd) return NULL;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, name, sizeof name - 1);
    if (n <= 0) return NULL;
    name[n] = 0;
    return kind_of_path(name);
}

static void emit(const char *head, const void *data, size_t n) {
    size_t h = strlen(head);
    char *buf;
    if (log_fd < 0) {
        const char *path = getenv("RECORD_LOG");
        if (!path) return;
        log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (log_fd < 0) return;
    }
    buf = malloc(h + n);
    if (!buf) abort();
    memcpy(buf, head, h);
    if (n) memcpy(buf + h, data, n);
    if (real_write(log_fd, buf, h + n) != (ssize_t)(h + n)) abort(); /* one append: in order */
    free(buf);
}

static void log_write(const char *kind, off_t offset, const void *data, ssize_t done) {
    char head[128];
    if (!kind || done <= 0) return;
    snprintf(head, sizeof head, "W %s %lld %lld\n", kind, (long long)offset, (long long)done);
    emit(head, data, (size_t)done);
}

ssize_t write(int fd, const void *buf, size_t n) {
    const char *kind = kind_of_fd(fd);
    off_t at = kind ? lseek(fd, 0, SEEK_CUR) : 0;
    ssize_t done = real_write(fd, buf, n);
    log_write(kind, at, buf, done);
    return done;
}

#define PWRITE(name, off_type)                                                        \
    ssize_t name(int fd, const void *buf, size_t n, off_type offset) {                \
        static ssize_t (*real)(int, const void *, size_t, off_type);                  \
        ssize_t done;                                                                 \
        if (!real) real = (ssize_t (*)(int, const void *, size_t, off_type))dlsym(RTLD_NEXT, #name); \
        done = real(fd, buf, n, offset);                                              \
        log_write(kind_of_fd(fd), (off_t)offset, buf, done);                          \
        return done;                                                                  \
    }
PWRITE(pwrite, off_t)
PWRITE(pwrite64, off64_t)

#define SYNC(name)                                                                    \
    int name(int fd) {                                                                \
        static int (*real)(int);                                                      \
        const char *kind = kind_of_fd(fd);                                            \
        int rc;                                                                       \
        char head[64];                                                                \
        if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, #name);                      \
        rc = real(fd);                                                                \
        if (kind && rc == 0) { snprintf(head, sizeof head, "S %s\n", kind); emit(head, NULL, 0); } \
        return rc;                                                                    \
    }
SYNC(fsync)
SYNC(fdatasync)

#define TRUNCATE(name, off_type)                                                      \
    int name(int fd, off_type length) {                                               \
        static int (*real)(int, off_type);                                            \
        const char *kind = kind_of_fd(fd);                                            \
        int rc;                                                                       \
        char head[128];                                                               \
        if (!real) real = (int (*)(int, off_type))dlsym(RTLD_NEXT, #name);            \
        rc = real(fd, length);                                                        \
        if (kind && rc == 0) {                                                        \
            snprintf(head, sizeof head, "T %s %lld\n", kind, (long long)length);      \
            emit(head, NULL, 0);                                                      \
        }                                                                             \
        return rc;                                                                    \
    }
TRUNCATE(ftruncate, off_t)
TRUNCATE(ftruncate64, off64_t)

int unlink(const char *path) {
    static int (*real)(const char *);
    const char *kind = kind_of_path(path);
    int rc;
    char head[64];
    if (!real) real = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
    rc = real(path);
    if (kind && rc == 0) { snprintf(head, sizeof head, "U %s\n", kind); emit(head, NULL, 0); }
    return rc;
}
