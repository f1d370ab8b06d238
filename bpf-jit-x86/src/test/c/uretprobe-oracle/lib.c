/* The top/mid/leaf of RetLib (ReturnProbeTest), for the kernel's uretprobe to be compared with. */
#define NI __attribute__((noinline))
NI long leaf(long a) { return a * 3 + 1; }
NI long mid(long a) { return leaf(a) + 1; }
NI long top(long a) { return mid(a) + mid(a + 1); }
