/* An LD_PRELOAD shim: the Nth fsync/fdatasync of a file whose name ends in
 * $FAIL_FSYNC_SUFFIX (default "-wal") fails with EIO, as a dying disk does.
 * $FAIL_FSYNC_AT=N (1-based; 0 or unset: never). Used by tests/test_exactly_once.py. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int calls;

static int should_fail(int fd) {
    const char *at = getenv("FAIL_FSYNC_AT");
    const char *suffix = getenv("FAIL_FSYNC_SUFFIX");
    char link[64], name[4096];
    ssize_t n;
    size_t len, slen;
    if (!at || atoi(at) <= 0) return 0;
    if (!suffix) suffix = "-wal";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, name, sizeof name - 1);
    if (n <= 0) return 0;
    name[n] = 0;
    len = (size_t)n;
    slen = strlen(suffix);
    if (len < slen || strcmp(name + len - slen, suffix) != 0) return 0;
    return ++calls == atoi(at);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}
