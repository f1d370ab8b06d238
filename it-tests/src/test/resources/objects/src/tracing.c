// Section names of the tracing program types, mapped to program types as libbpf does.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("kprobe/do_unlinkat")
int on_unlink(void *ctx) { return 0; }

SEC("kretprobe/do_unlinkat")
int on_unlink_ret(void *ctx) { return 1; }

SEC("uprobe//bin/bash:readline")
int on_readline(void *ctx) { return 2; }

SEC("tracepoint/syscalls/sys_enter_openat")
int on_openat(void *ctx) { return 3; }

SEC("tp/sched/sched_switch")
int on_switch(void *ctx) { return 4; }

SEC("raw_tp/sys_enter")
int on_raw(void *ctx) { return 5; }

SEC("raw_tracepoint/sys_exit")
int on_raw_exit(void *ctx) { return 6; }

SEC("perf_event")
int on_sample(void *ctx) { return 7; }

SEC("fentry/do_unlinkat")
int on_fentry(void *ctx) { return 0; }

SEC("fexit/do_unlinkat")
int on_fexit(void *ctx) { return 0; }

SEC("classifier")
int old_tc(void *ctx) { return 0; }

SEC("cgroup_skb/ingress")
int on_cgroup(void *ctx) { return 1; }

char LICENSE[] SEC("license") = "GPL";
