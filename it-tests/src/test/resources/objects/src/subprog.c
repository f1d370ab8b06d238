// Subprograms in .text shared by two programs in different sections: each program gets its
// own appended copy and its bpf-to-bpf calls relocated to it.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __noinline int square(int x)
{
	return x * x;
}

static __noinline int sum_squares(int a, int b)
{
	return square(a) + square(b);
}

__noinline int global_helper(int x)
{
	return x + 7;
}

SEC("socket")
int sock_prog(struct __sk_buff *skb)
{
	return sum_squares(skb->len, 3);
}

SEC("xdp")
int xdp_prog(struct xdp_md *ctx)
{
	return square(2) + global_helper(1) > 10 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
