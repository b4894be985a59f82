/* Shifts this process's wall clock, and nothing else, by CLOCK_SHIFT_SECONDS (a host whose clock
   is apart from the others'): CLOCK_REALTIME through clock_gettime, gettimeofday and time. The
   monotonic clocks, and so every sleep and timeout, are left as they are. Loaded with
   LD_PRELOAD; the tests build it with the machine's cc. CLOCK_SHIFT_FILE, when set, names a
   file holding the seconds instead, read again at most every 100 ms: a clock stepped live. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static int (*real_gettime)(clockid_t, struct timespec *);

static long long file_shift_ns(const char *path) {
    static long long cached, checked;
    struct timespec now;
    real_gettime(CLOCK_MONOTONIC, &now);
    long long at = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (checked && at - checked < 100000000LL) return cached;
    checked = at;
    FILE *file = fopen(path, "r");
    double seconds;
    /* A file being rewritten may read empty for a moment: the last shift holds then. */
    if (file && fscanf(file, "%lf", &seconds) == 1) cached = (long long)(seconds * 1e9);
    if (file) fclose(file);
    return cached;
}

static long long shift_ns(void) {
    const char *path = getenv("CLOCK_SHIFT_FILE");
    if (path) return file_shift_ns(path);
    const char *text = getenv("CLOCK_SHIFT_SECONDS");
    return text ? (long long)(atof(text) * 1e9) : 0;
}

static void shift(struct timespec *ts) {
    long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_ns();
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (!real_gettime) real_gettime = dlsym(RTLD_NEXT, "clock_gettime");
    int done = real_gettime(id, ts);
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
