// Invalid for libbpf and bpf4j: a static (STB_LOCAL) function as a program.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
static __attribute__((used)) int hidden(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
