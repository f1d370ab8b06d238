/*
 * An executable over cfichain.c for comparing bpf4j's CFI walk with gdb's backtrace in the same
 * run: record() snapshots its registers and stack (up to the end of [stack]) into ARGV1.N.stack
 * and the process's maps into ARGV1.maps; gdb stops at record and prints its backtrace there.
 * Chains: main -> a -> b -> c -> record, then main -> sort_and_capture -> qsort -> cmp -> record.
 * Stack file: ip, sp, bp, byte count (little-endian u64s), then the bytes from sp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long a(void (*cap)(long *), long *buf);
long sort_and_capture(void (*cap)(long *), long *buf);

static const char *prefix;
static int count;

static unsigned long stack_end(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo, hi, end = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) end = hi;
    }
    if (f) fclose(f);
    return end;
}

__attribute__((noipa)) void record(long *buf) {
    unsigned long ip, sp, bp;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(ip), "=r"(sp), "=r"(bp));
    unsigned long end = stack_end(), n = end > sp ? end - sp : 0;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d.stack", prefix, ++count);
    FILE *f = fopen(path, "wb");
    if (!f) exit(3);
    unsigned long head[4] = {ip, sp, bp, n};
    fwrite(head, sizeof head, 1, f);
    fwrite((void *) sp, 1, n, f);
    fclose(f);
    buf[5] = 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    prefix = argv[1];
    char path[4096], cmd[4200];
    snprintf(path, sizeof path, "%s.maps", prefix);
    snprintf(cmd, sizeof cmd, "cat /proc/%d/maps > '%s'", (int) getpid(), path);
    if (system(cmd) != 0) return 4;
    long buf[16] = {0};
    long r1 = a(record, buf);
    long r2 = sort_and_capture(record, buf);
    return r1 == 6 && r2 == 6 ? 0 : 1;
}
