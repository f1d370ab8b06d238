/* Global data: arrays in .data, .bss and .rodata, a static (non-global) counter, and a string table. */
#include "common.h"

static const char names[4][8] = { "zero", "one", "two", "three" };
const volatile __u64 limit = 10;
__u32 hist[8] = { 1, 2, 3 };
__u64 bss_sum;
static __u32 hidden;

SEC("xdp")
int xdp_globals(struct xdp_md *ctx)
{
	__u32 len = ctx->data_end - ctx->data;
	hist[len & 7]++;
	bss_sum += len;
	hidden++;
	if (bss_sum > limit * 100)
		return XDP_DROP;
	return names[len & 3][0] == 't' ? XDP_TX : XDP_PASS;
}
