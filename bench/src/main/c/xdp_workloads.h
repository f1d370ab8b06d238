/* XDP workloads written the way XDP programs are written: the packet read between data and
 * data_end with the bounds check the verifier wants before each access. Compiled three times:
 * by clang -target bpf with its default CPU (v1) and with -mcpu=v3 (xdp_workloads.bpf.c), and by
 * gcc -O2 -fno-tree-vectorize (xdp_native.c). Each returns a u32 the three can be compared on. */
#ifndef BPF4J_XDP_WORKLOADS_H
#define BPF4J_XDP_WORKLOADS_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef XW_INLINE
#define XW_INLINE static inline __attribute__((always_inline))
#endif

#define XW_PASS 2

XW_INLINE u32 xw_fold(u64 h) { return (u32)(h ^ (h >> 32)); }

/* FNV-1a 64 over every byte of the packet (up to 1,500), one data_end check per byte. */
XW_INLINE u32 xw_fnv1a(const u8 *data, const u8 *end)
{
    u64 h = 0xcbf29ce484222325ULL;
    for (u32 i = 0; i < 1500; i++) {
        const u8 *p = data + i;
        if (p + 1 > end) break;
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    return xw_fold(h);
}

/* 10,000 rounds of xorshift64 with a 64-bit multiply and an unsigned modulo by a divisor read
 * from the packet. */
XW_INLINE u32 xw_xorshift(const u8 *data, const u8 *end)
{
    if (data + 16 > end) return 0;
    u64 x = *(const u64 *)data;
    u64 d = (*(const u64 *)(data + 8) & 0xffffff) | 1;
    if (x == 0) x = 1;
    u64 acc = 0;
    for (u32 i = 0; i < 10000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        acc += x * 31;
        acc += x % d;
    }
    return xw_fold(acc);
}

/* A branchless bubble sort of 64 u32 copied from the packet into a stack array. */
XW_INLINE u32 xw_sort(const u8 *data, const u8 *end)
{
    u32 a[64];
    if (data + 256 > end) return 0;
    for (int i = 0; i < 64; i++)
        a[i] = ((const u32 *)data)[i];
    for (int i = 0; i < 63; i++) {
        for (int j = 0; j < 63 - i; j++) {
            u32 x = a[j], y = a[j + 1];
            u32 lt = -(u32)(y < x);
            a[j] = (x & ~lt) | (y & lt);
            a[j + 1] = (y & ~lt) | (x & lt);
        }
    }
    u64 sum = 0;
    for (int i = 0; i < 64; i++)
        sum = sum * 31 + a[i];
    return xw_fold(sum);
}

/* Ethernet + IPv4 + TCP: headers checked against data_end, the IPv4 header checksum verified,
 * a flow hash of addresses, ports and flags returned (0: not IPv4/TCP, IP options, truncated,
 * bad sum). */
XW_INLINE u32 xw_parse(const u8 *data, const u8 *end)
{
    if (data + 14 > end) return 0;
    if (data[12] != 0x08 || data[13] != 0x00) return 0;
    const u8 *ip = data + 14;
    if (ip + 20 > end) return 0;
    if ((ip[0] >> 4) != 4) return 0;
    u32 ihl = (ip[0] & 0x0f) * 4;
    if (ihl != 20 || ip[9] != 6) return 0; /* no IP options: the checksum loop below unrolls */
    u32 sum = 0;
#pragma unroll
    for (int i = 0; i < 20; i += 2)
        sum += ((u32)ip[i] << 8) | ip[i + 1];
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    if (sum != 0xffff) return 0;
    const u8 *tcp = ip + ihl;
    if (tcp + 20 > end) return 0;
    u32 saddr = ((u32)ip[12] << 24) | ((u32)ip[13] << 16) | ((u32)ip[14] << 8) | ip[15];
    u32 daddr = ((u32)ip[16] << 24) | ((u32)ip[17] << 16) | ((u32)ip[18] << 8) | ip[19];
    u32 ports = ((u32)tcp[0] << 24) | ((u32)tcp[1] << 16) | ((u32)tcp[2] << 8) | tcp[3];
    u64 h = ((u64)saddr << 32) | daddr;
    h ^= (u64)ports * 0x9e3779b97f4a7c15ULL;
    h ^= tcp[13];
    return xw_fold(h ^ (h >> 29));
}

#endif
