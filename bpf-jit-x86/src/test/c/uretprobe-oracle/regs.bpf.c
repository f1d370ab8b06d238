/* bpf4j return-probe oracle: uprobe and uretprobe on mid record their registers (run.sh). */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
char LICENSE[] SEC("license") = "GPL";
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 8); __type(key, __u32); __type(value, __u64); } out SEC(".maps");
static void put(__u32 k, __u64 v) { __u64 *p = bpf_map_lookup_elem(&out, &k); if (p) *p = v; }
SEC("uprobe") int at_entry(struct pt_regs *ctx) { put(0, PT_REGS_SP(ctx)); put(1, PT_REGS_IP(ctx)); return 0; }
SEC("uretprobe") int at_return(struct pt_regs *ctx) { put(2, PT_REGS_SP(ctx)); put(3, PT_REGS_IP(ctx)); put(4, PT_REGS_RC(ctx)); return 0; }
