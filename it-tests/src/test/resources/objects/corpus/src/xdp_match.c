/* XDP: compares the UDP payload with a .rodata pattern in a subprogram (pointer arguments into two regions). */
#include "common.h"

static const char pattern[8] = "\x01\x08\x0f\x16\x1d\x24\x2b\x32";

static __attribute__((noinline)) int prefix_len(const unsigned char *a, const char *b, int n)
{
	int i;
	for (i = 0; i < 8; i++) {
		if (i >= n || a[i] != (unsigned char)b[i])
			break;
	}
	return i;
}

SEC("xdp")
int xdp_match(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	unsigned char *payload = data + 14 + 20 + 8;
	if ((void *)(payload + 8) > data_end)
		return XDP_PASS;
	unsigned char copy[8];
	__builtin_memcpy(copy, payload, 8);
	return prefix_len(copy, pattern, 8) == 8 ? XDP_DROP : XDP_PASS;
}
