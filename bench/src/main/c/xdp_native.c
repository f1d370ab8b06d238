/* gcc's build of the XDP workloads (xdp_workloads.h), each with a test-run loop like the kernel's
 * bpf_test_run and bpf4j's: times calls of the function, the last result returned. */
#include "xdp_workloads.h"

#define NATIVE(name)                                                                   \
    __attribute__((noinline)) u32 native_xdp_##name(const u8 *data, const u8 *end)     \
    { return xw_##name(data, end); }                                                   \
    u32 native_xdp_##name##_repeat(const u8 *data, const u8 *end, u64 times)           \
    {                                                                                  \
        u32 r = 0;                                                                     \
        for (u64 i = 0; i < times; i++) {                                              \
            __asm__ volatile("" : : : "memory");                                       \
            r = native_xdp_##name(data, end);                                          \
        }                                                                              \
        return r;                                                                      \
    }

XW_INLINE u32 xw_pass(const u8 *data, const u8 *end) { (void)data; (void)end; return XW_PASS; }

NATIVE(pass)
NATIVE(fnv1a)
NATIVE(xorshift)
NATIVE(sort)
NATIVE(parse)
