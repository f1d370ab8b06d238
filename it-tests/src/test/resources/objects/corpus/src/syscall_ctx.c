/* syscall: a user context in and out (ctx_out), and .rodata / .data / .bss globals. */
#include "common.h"

struct req { __u32 op; __u32 a; __u32 b; __u32 result; __u64 calls; };

const volatile __u32 scale = 3;
__u32 seed = 17;
__u64 runs;

SEC("syscall")
int syscall_calc(struct req *r)
{
	runs++;
	seed = seed * 1103515245 + 12345;
	switch (r->op) {
	case 0: r->result = r->a + r->b; break;
	case 1: r->result = r->a * r->b * scale; break;
	case 2: r->result = r->b ? r->a / r->b : 0; break;
	case 3: r->result = seed; break;
	default: return -22;
	}
	r->calls = runs;
	return 0;
}
