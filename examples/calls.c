/*
 * A call tree for `bpf4j trace` (README.md; the trace tests use this file). Build it with
 * patchable function entries:
 *   gcc -O1 -fno-omit-frame-pointer -pg -mfentry -mnop-mcount -fno-pic -shared -o libcalls.so calls.c
 *
 * drive(n) = sum over i < n of (left(i) + right(i)), + rec(1)       = 9n(n-1)/2 + 6n + 2
 * left(a)  = leaf(a) + rec(2)          rec(n)  = n <= 0 ? leaf(n) : rec(n - 1) + 1
 * right(a) = 2 leaf(a)                 leaf(a) = 3a + 1
 *
 * leaf is called from left, right and rec; rec from left, drive and itself. The empty asm after
 * the recursive call keeps gcc from turning the recursion into a loop. plain has no patchable entry.
 */
#define NI __attribute__((noinline))

NI long leaf(long a) { return a * 3 + 1; }

NI long rec(long n)
{
	long r = n <= 0 ? leaf(n) : rec(n - 1) + 1;
	__asm__ volatile("" ::: "memory");
	return r;
}

NI long left(long a) { return leaf(a) + rec(2); }

NI long right(long a) { return leaf(a) * 2; }

NI long drive(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += left(i) + right(i);
	return s + rec(1);
}

NI __attribute__((no_instrument_function)) long plain(long a) { return a + 1; }
