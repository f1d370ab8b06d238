/* Subprograms: noinline functions with arguments, nesting and a pointer to the caller's stack. */
#include "common.h"

static __attribute__((noinline)) __u32 fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	return (sum & 0xffff) + (sum >> 16);
}

static __attribute__((noinline)) int csum_words(const __u16 *w, int n, __u32 *out)
{
	__u32 sum = 0;
	for (int i = 0; i < 10; i++) {
		if (i >= n) break;
		sum += w[i];
	}
	*out = fold(sum);
	return n;
}

/* Verifies an IPv4 header checksum: XDP_PASS when it is right, XDP_DROP otherwise. */
SEC("xdp")
int xdp_ip_csum(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	__u16 words[10];
	if ((void *)eth + sizeof(*eth) + sizeof(words) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(words, (void *)(eth + 1), sizeof(words));
	__u32 sum;
	csum_words(words, 10, &sum);
	return sum == 0xffff ? XDP_PASS : XDP_DROP;
}
