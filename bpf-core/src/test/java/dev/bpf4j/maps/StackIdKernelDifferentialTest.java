package dev.bpf4j.maps;

import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.stack.Jhash;
import dev.bpf4j.stack.StackIds;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static dev.bpf4j.stack.StackFlags.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_get_stackid in the kernel as the oracle: a raw_tp program run with BPF_PROG_TEST_RUN stores
 * the kernel stack of the test-run syscall. Every key the kernel returns must be bpf4j's jhash2 of
 * the stored ips masked to the buckets, and bpf4j's bucket rules fed the kernel's own trace must
 * give the kernel's results (ids and errnos) for the same sequence of calls.
 */
class StackIdKernelDifferentialTest {
    private static final int RAW_TRACEPOINT = 17, PROG_LOAD = 5, PROG_TEST_RUN = 10;

    @Test
    void kernelIdsAreJhash2OfTheStoredIpsAndTheRulesAgree() throws Exception {
        Assumptions.assumeTrue(Files.readAllLines(Path.of("/proc/sys/kernel/perf_event_max_stack")).get(0).trim().equals("127"),
                "kernel.perf_event_max_stack is not the default 127");
        MapDefinition deepDef = new MapDefinition("deep", MapType.STACK_TRACE, 4, 127 * 8, 1000, 0);
        Optional<KernelMap> maybe = KernelMap.create(deepDef);
        Assumptions.assumeTrue(maybe.isPresent(), "bpf() refused to create a stack trace map: skipping the kernel oracle");
        try (KernelMap deep = maybe.get(); RawTpStackId onDeep = new RawTpStackId(deep)) {
            long id0 = onDeep.run(0);
            assertThat(id0).as("kernel id").isGreaterThanOrEqualTo(0);
            long[] full = stored(deep, (int) id0);
            assertThat(full.length).as("a kernel stack of the test-run syscall").isGreaterThanOrEqualTo(3);
            assertThat(id0).isEqualTo(Jhash.hashIps(full, 0, full.length) & 1023);
            long id1 = onDeep.run(1);
            long[] skipped = stored(deep, (int) id1);
            assertThat(id1).isEqualTo(Jhash.hashIps(skipped, 0, skipped.length) & 1023);
            assertThat(skipped).as("the same call site, one frame skipped").containsExactly(Arrays.copyOfRange(full, 1, full.length));
            assertThat(onDeep.run(1L << 11)).isEqualTo(-Errno.EINVAL);
            assertThat(onDeep.run(255)).isEqualTo(-Errno.EFAULT);

            // The same calls, kernel vs bpf4j fed the kernel's trace, on maps where rules matter. Another
            // program has another address, which only the innermost ip shows: every call here skips it.
            for (int[] shape : new int[][] {{2, 8}, {16, 1}, {16, 2}, {4, 3}}) {
                MapDefinition def = new MapDefinition("m", MapType.STACK_TRACE, 4, shape[0] * 8, shape[1], 0);
                long[] flagsSeq = {1, 2, 2 | BPF_F_REUSE_STACKID, 1, 3, 3 | BPF_F_FAST_STACK_CMP, 1 | BPF_F_REUSE_STACKID,
                        2 | BPF_F_REUSE_STACKID, 4, 4 | BPF_F_REUSE_STACKID, 2, 1};
                StackTraceMap ours = new StackTraceMap(def);
                try (KernelMap theirs = KernelMap.create(def).orElseThrow(); RawTpStackId prog = new RawTpStackId(theirs)) {
                    List<Long> k = new ArrayList<>(), o = new ArrayList<>();
                    for (long f : flagsSeq) {
                        k.add(prog.run(f));
                        o.add(StackIds.getStackId(ours, full, f));
                    }
                    assertThat(o).as("value_size %d, max_entries %d, flags %s", shape[0] * 8, shape[1], Arrays.toString(flagsSeq))
                            .isEqualTo(k);
                    for (int id = 0; id < ours.buckets(); id++) {
                        long[] mine = ours.ips(id).orElse(new long[0]);
                        assertThat(mine).as("bucket %d", id).containsExactly(stored(theirs, id));
                    }
                } finally {
                    ours.close();
                }
            }
        }
    }

    /** The ips under {@code id} (zero padding removed), or an empty array. */
    private static long[] stored(KernelMap m, int id) {
        int[] err = new int[1];
        byte[] v = m.lookup(new byte[] {(byte) id, (byte) (id >>> 8), (byte) (id >>> 16), (byte) (id >>> 24)}, err);
        if (v == null) return new long[0];
        ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> ips = new ArrayList<>();
        while (b.remaining() >= 8) {
            long ip = b.getLong();
            if (ip == 0) break;
            ips.add(ip);
        }
        return ips.stream().mapToLong(Long::longValue).toArray();
    }

    /** {@code r0 = bpf_get_stackid(ctx, map, *(u64 *)ctx)} loaded once as a raw_tp program, run with BPF_PROG_TEST_RUN. */
    private static final class RawTpStackId implements AutoCloseable {
        private final int fd;

        RawTpStackId(KernelMap map) {
            long[][] insns = {
                    {0x79, 3, 1, 0, 0},                           // r3 = *(u64 *)(r1 + 0): the flags
                    {0x18, 2, 1, 0, map.fd()}, {0, 0, 0, 0, 0},   // lddw r2, map (BPF_PSEUDO_MAP_FD)
                    {0x85, 0, 0, 0, 27},                          // call bpf_get_stackid
                    {0x95, 0, 0, 0, 0}};                          // exit
            ByteBuffer code = ByteBuffer.allocate(insns.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            for (long[] i : insns) code.put((byte) i[0]).put((byte) (i[1] | i[2] << 4)).putShort((short) i[3]).putInt((int) i[4]);
            long prog = NativeMemory.allocate(code.capacity()), license = NativeMemory.allocate(4), log = NativeMemory.allocate(65536);
            long attr = NativeMemory.allocate(128);
            try {
                NativeMemory.write(prog, code.array(), 0, code.capacity());
                NativeMemory.write(license, "GPL\0".getBytes(), 0, 4);
                NativeMemory.setMemory(attr, 128, (byte) 0);
                NativeMemory.putInt(attr, RAW_TRACEPOINT);
                NativeMemory.putInt(attr + 4, insns.length);
                NativeMemory.putLong(attr + 8, prog);
                NativeMemory.putLong(attr + 16, license);
                NativeMemory.putInt(attr + 24, 1);
                NativeMemory.putInt(attr + 28, 65536);
                NativeMemory.putLong(attr + 32, log);
                long r = KernelMap.bpf(PROG_LOAD, attr);
                if (r < 0) {
                    byte[] l = NativeMemory.read(log, 4096);
                    int n = 0;
                    while (n < l.length && l[n] != 0) n++;
                    Assumptions.abort("kernel refused the raw_tp program: " + Errno.name((int) r) + "\n" + new String(l, 0, n));
                }
                fd = (int) r;
            } finally {
                for (long a : new long[] {prog, license, log, attr}) NativeMemory.free(a);
            }
        }

        long run(long flags) {
            long attr = NativeMemory.allocate(128), ctx = NativeMemory.allocate(8);
            try {
                NativeMemory.putLong(ctx, flags);
                NativeMemory.setMemory(attr, 128, (byte) 0);
                NativeMemory.putInt(attr, fd);
                NativeMemory.putInt(attr + 40, 8);      // ctx_size_in
                NativeMemory.putLong(attr + 48, ctx);   // ctx_in
                long r = KernelMap.bpf(PROG_TEST_RUN, attr);
                if (r < 0) Assumptions.abort("BPF_PROG_TEST_RUN of a raw_tp program failed: " + Errno.name((int) r));
                return NativeMemory.getInt(attr + 4);
            } finally {
                NativeMemory.free(attr);
                NativeMemory.free(ctx);
            }
        }

        @Override public void close() { KernelMap.close(fd); }
    }
}
