/* Native side of the benchmark workloads, built by gcc -O2 -fno-tree-vectorize into a shared
 * library at benchmark time and called through jffi with the same (data, len). */
#include "workloads.h"

u64 native_fnv1a(const u8 *data, u64 len) { return wl_fnv1a(data, len); }
u64 native_parse(const u8 *data, u64 len) { return wl_parse(data, len); }
u64 native_xorshift(const u8 *data, u64 len) { return wl_xorshift(data, len); }
u64 native_sort(const u8 *data, u64 len) { return wl_sort(data, len); }
