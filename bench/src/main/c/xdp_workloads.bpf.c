/* The XDP workloads as XDP programs: ctx->data and ctx->data_end, one section per program.
 * Built twice by build-xdp-workloads.sh: clang's default CPU and -mcpu=v3. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdp_workloads.h"

#define XDP_ARGS(ctx) (const u8 *)(long)(ctx)->data, (const u8 *)(long)(ctx)->data_end

SEC("xdp") int xdp_pass(struct xdp_md *ctx) { return XDP_PASS; }
SEC("xdp") int xdp_fnv1a(struct xdp_md *ctx) { return xw_fnv1a(XDP_ARGS(ctx)); }
SEC("xdp") int xdp_xorshift(struct xdp_md *ctx) { return xw_xorshift(XDP_ARGS(ctx)); }
SEC("xdp") int xdp_sort(struct xdp_md *ctx) { return xw_sort(XDP_ARGS(ctx)); }
SEC("xdp") int xdp_parse(struct xdp_md *ctx) { return xw_parse(XDP_ARGS(ctx)); }

char LICENSE[] SEC("license") = "GPL";
