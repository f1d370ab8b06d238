/* BPF side of the benchmark workloads: one function per workload, each in its own section so
 * build-workloads.sh can extract it as raw bytecode. Entry: r1 = data, r2 = len. */
#include "workloads.h"

#define SEC(name) __attribute__((section(name), used))

SEC("bench/fnv1a") u64 fnv1a(const u8 *data, u64 len) { return wl_fnv1a(data, len); }
SEC("bench/parse") u64 parse(const u8 *data, u64 len) { return wl_parse(data, len); }
SEC("bench/xorshift") u64 xorshift(const u8 *data, u64 len) { return wl_xorshift(data, len); }
SEC("bench/sort") u64 sort(const u8 *data, u64 len) { return wl_sort(data, len); }

char LICENSE[] SEC("license") = "GPL";
