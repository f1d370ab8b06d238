/* The four benchmark workloads, written once as plain C and compiled twice:
 * by clang -target bpf (workloads.bpf.c) and by gcc -O2 -fno-tree-vectorize (native.c).
 * Each takes (data, len) and returns a u64 so both sides can be checked for equal results. */
#ifndef BPF4J_WORKLOADS_H
#define BPF4J_WORKLOADS_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef WL_INLINE
#define WL_INLINE static inline __attribute__((always_inline))
#endif

/* FNV-1a 64 over len bytes (the benchmark passes 1500). */
WL_INLINE u64 wl_fnv1a(const u8 *data, u64 len)
{
    u64 h = 0xcbf29ce484222325ULL;
    for (u64 i = 0; i < len && i < 4096; i++) {
        h ^= data[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Ethernet + IPv4 + TCP header parser with a bounds check before every access, as an XDP
 * program must do. Returns a flow hash of the addresses, ports and flags, or 0 when the
 * packet is not IPv4/TCP or is truncated. */
WL_INLINE u64 wl_parse(const u8 *data, u64 len)
{
    const u8 *end = data + len;
    if (data + 14 > end) return 0;
    u16 proto = (u16)((data[12] << 8) | data[13]);
    if (proto != 0x0800) return 0;
    const u8 *ip = data + 14;
    if (ip + 20 > end) return 0;
    if ((ip[0] >> 4) != 4) return 0;
    u32 ihl = (ip[0] & 0x0f) * 4;
    if (ihl < 20) return 0;
    if (ip[9] != 6) return 0;
    u32 tot = (u32)((ip[2] << 8) | ip[3]);
    if (tot < ihl + 20) return 0;
    u32 saddr = ((u32)ip[12] << 24) | ((u32)ip[13] << 16) | ((u32)ip[14] << 8) | ip[15];
    u32 daddr = ((u32)ip[16] << 24) | ((u32)ip[17] << 16) | ((u32)ip[18] << 8) | ip[19];
    const u8 *tcp = ip + ihl;
    if (tcp + 20 > end) return 0;
    u32 sport = (u32)((tcp[0] << 8) | tcp[1]);
    u32 dport = (u32)((tcp[2] << 8) | tcp[3]);
    u32 doff = (tcp[12] >> 4) * 4;
    if (doff < 20 || tcp + doff > end) return 0;
    u32 flags = tcp[13];
    u64 h = ((u64)saddr << 32) | daddr;
    h ^= ((u64)sport << 16 | dport) * 0x9e3779b97f4a7c15ULL;
    h ^= flags;
    return h ^ (h >> 29);
}

/* 10,000 rounds of xorshift64 mixed with multiply, divide and modulo. */
WL_INLINE u64 wl_xorshift(const u8 *data, u64 len)
{
    u64 x = len > 8 ? *(const u64 *)data : 88172645463325252ULL;
    if (x == 0) x = 1;
    u64 acc = 0;
    for (u32 i = 0; i < 10000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        acc += x * 31;
        acc ^= x / ((i & 7) + 1);
        acc += x % 1000003;
    }
    return acc;
}

/* Bubble sort of 64 u32 values copied onto the stack; returns a position-weighted checksum. */
WL_INLINE u64 wl_sort(const u8 *data, u64 len)
{
    u32 a[64];
    if (len < 256) return 0;
    for (int i = 0; i < 64; i++)
        a[i] = ((const u32 *)data)[i];
    for (int i = 0; i < 63; i++) {
        for (int j = 0; j < 63 - i; j++) {
            if (a[j] > a[j + 1]) {
                u32 t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
            }
        }
    }
    u64 sum = 0;
    for (int i = 0; i < 64; i++)
        sum = sum * 31 + a[i];
    return sum;
}

#endif
