/*
 * Call chains for the CFI unwinder's tests (built by build.sh, or by the tests with gcc):
 *   a -> b -> c -> cap(buf)                 every frame without a frame pointer at -O2 -fomit-frame-pointer;
 *                                           b keeps six values live across its call, so rbp holds data there
 *   sort_and_capture -> qsort (libc) -> cmp -> cap(buf)   a chain through libc's own frames
 *   a -> b -> c -> spin(buf)                spin is a leaf that runs buf[14] rounds: a target for perf samples
 *   run_on_thread: a -> b -> c -> cap on a new pthread, whose stack ends in libc's start_thread
 *                  and clone3 (the outermost frame: its CFI leaves the return address undefined)
 * cap is a routine passed in (the tests' capture routine). Each entry returns buf[5] + 6, so the
 * caller can check the chain ran.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

typedef void (*capture_fn)(long *buf);

__attribute__((noipa)) long c(capture_fn cap, long *buf) { cap(buf); return buf[5] + 1; }

__attribute__((noipa)) long b(capture_fn cap, long *buf) {
    long x0 = buf[8], x1 = buf[9], x2 = buf[10], x3 = buf[11], x4 = buf[12], x5 = buf[13];
    long r = c(cap, buf) + 2;
    /* Keeps x0..x5 in callee-saved registers (rbx, rbp, r12-r15) across the call. */
    __asm__ volatile("" :: "r"(x0), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5));
    return r;
}

__attribute__((noipa)) long a(capture_fn cap, long *buf) { return b(cap, buf) + 3; }

/* A leaf without a frame: a sample in it unwinds by CFI only. buf[5] = 0 keeps a()'s result buf[5] + 6. */
__attribute__((noipa)) void spin(long *buf) {
    unsigned long x = (unsigned long) buf[15];
    for (long i = 0; i < buf[14]; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    buf[15] = (long) x;
    buf[5] = 0;
}

static capture_fn sort_cap;
static long *sort_buf;

__attribute__((noipa)) static int cmp(const void *x, const void *y) {
    if (sort_cap) {
        capture_fn cap = sort_cap;
        sort_cap = 0;
        cap(sort_buf);
    }
    int l = *(const int *) x, r = *(const int *) y;
    return (l > r) - (l < r);
}

__attribute__((noipa)) long sort_and_capture(capture_fn cap, long *buf) {
    int v[32];
    for (int i = 0; i < 32; i++) v[i] = (i * 7919) % 32;
    sort_cap = cap;
    sort_buf = buf;
    qsort(v, 32, sizeof v[0], cmp);
    return buf[5] + 6;
}

struct job { capture_fn cap; long *buf; long result; };

static void *thread_main(void *p) {
    struct job *j = p;
    /* The capture routine copies the stack up to buf[3] (at most buf[4] bytes): this thread's stack. */
    pthread_attr_t attr;
    void *low;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0 || pthread_attr_getstack(&attr, &low, &size) != 0) return 0;
    pthread_attr_destroy(&attr);
    j->buf[3] = (long) low + (long) size;
    if ((size_t) j->buf[4] > size) j->buf[4] = (long) size;
    j->result = a(j->cap, j->buf);
    return 0;
}

__attribute__((noipa)) long run_on_thread(capture_fn cap, long *buf) {
    struct job j = {cap, buf, -1};
    pthread_t t;
    if (pthread_create(&t, 0, thread_main, &j) != 0) return -1;
    pthread_join(t, 0);
    return j.result;
}
