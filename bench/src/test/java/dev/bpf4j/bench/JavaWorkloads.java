package dev.bpf4j.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A straight Java port of workloads.h: an oracle that needs neither gcc nor a BPF engine. */
final class JavaWorkloads {
    private JavaWorkloads() {}

    static long of(Workload w, byte[] data) {
        switch (w) {
            case FNV1A: return fnv1a(data);
            case PARSE: return parse(data);
            case XORSHIFT: return xorshift(data);
            default: return sort(data);
        }
    }

    static long fnv1a(byte[] d) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < d.length && i < 4096; i++) {
            h ^= d[i] & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    static long parse(byte[] d) {
        int len = d.length;
        if (len < 14) return 0;
        if (((u8(d, 12) << 8) | u8(d, 13)) != 0x0800) return 0;
        int ip = 14;
        if (ip + 20 > len) return 0;
        if ((u8(d, ip) >> 4) != 4) return 0;
        int ihl = (u8(d, ip) & 0x0f) * 4;
        if (ihl < 20) return 0;
        if (u8(d, ip + 9) != 6) return 0;
        int tot = (u8(d, ip + 2) << 8) | u8(d, ip + 3);
        if (tot < ihl + 20) return 0;
        long saddr = be32(d, ip + 12), daddr = be32(d, ip + 16);
        int tcp = ip + ihl;
        if (tcp + 20 > len) return 0;
        long sport = (u8(d, tcp) << 8) | u8(d, tcp + 1);
        long dport = (u8(d, tcp + 2) << 8) | u8(d, tcp + 3);
        int doff = (u8(d, tcp + 12) >> 4) * 4;
        if (doff < 20 || tcp + doff > len) return 0;
        long flags = u8(d, tcp + 13);
        long h = (saddr << 32) | daddr;
        h ^= (sport << 16 | dport) * 0x9e3779b97f4a7c15L;
        h ^= flags;
        return h ^ (h >>> 29);
    }

    static long xorshift(byte[] d) {
        long x = d.length > 8 ? ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN).getLong(0) : 88172645463325252L;
        if (x == 0) x = 1;
        long acc = 0;
        for (int i = 0; i < 10000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            acc += x * 31;
            acc ^= Long.divideUnsigned(x, (i & 7) + 1);
            acc += Long.remainderUnsigned(x, 1000003);
        }
        return acc;
    }

    static long sort(byte[] d) {
        if (d.length < 256) return 0;
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
        int[] a = new int[64];
        for (int i = 0; i < 64; i++) a[i] = b.getInt(i * 4);
        for (int i = 0; i < 63; i++) {
            for (int j = 0; j < 63 - i; j++) {
                if (Integer.compareUnsigned(a[j], a[j + 1]) > 0) {
                    int t = a[j];
                    a[j] = a[j + 1];
                    a[j + 1] = t;
                }
            }
        }
        long sum = 0;
        for (int i = 0; i < 64; i++) sum = sum * 31 + (a[i] & 0xffffffffL);
        return sum;
    }

    private static int u8(byte[] d, int i) { return d[i] & 0xff; }

    private static long be32(byte[] d, int i) {
        return ((long) u8(d, i) << 24) | (u8(d, i + 1) << 16) | (u8(d, i + 2) << 8) | u8(d, i + 3);
    }
}
