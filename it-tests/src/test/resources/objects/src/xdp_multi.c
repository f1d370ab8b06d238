// Several programs in one section, plus a tc program: the loader must split sections by
// global STT_FUNC symbols.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("xdp")
int xdp_drop_short(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;

	if (data + 14 > data_end)
		return XDP_DROP;
	return XDP_PASS;
}

SEC("tc")
int tc_ingress(struct __sk_buff *skb)
{
	return skb->len > 100 ? 2 : 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
