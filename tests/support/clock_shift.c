/* Shifts this process's wall clock, and nothing else, by CLOCK_SHIFT_SECONDS (a host whose clock
   is apart from the others'), or by the seconds that the file CLOCK_SHIFT_FILE holds, read again
   whenever it changes (a clock stepped while the process runs): CLOCK_REALTIME through
   clock_gettime, gettimeofday and time. The monotonic clocks, and so every sleep and timeout,
   are left as they are. Loaded with LD_PRELOAD; the tests build it with the machine's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The file's shift as last read, and the change time it had then. */
static long long file_ns;
static struct timespec file_changed;

static long long from_file(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return file_ns;
    if (st.st_mtim.tv_sec == file_changed.tv_sec && st.st_mtim.tv_nsec == file_changed.tv_nsec)
        return file_ns;
    char text[64] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) return file_ns;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got > 0) {
        file_ns = (long long)(atof(text) * 1e9);
        file_changed = st.st_mtim;
    }
    return file_ns;
}

static long long shift_ns(void) {
    const char *path = getenv("CLOCK_SHIFT_FILE");
    if (path) return from_file(path);
    const char *text = getenv("CLOCK_SHIFT_SECONDS");
    return text ? (long long)(atof(text) * 1e9) : 0;
}

static void shift(struct timespec *ts) {
    long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_ns();
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    int done = real(id, ts);
    if (done == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts);
    return done;
}

int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (tv) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }
    (void)tz;
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
