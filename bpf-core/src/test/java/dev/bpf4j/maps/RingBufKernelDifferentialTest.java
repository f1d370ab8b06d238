package dev.bpf4j.maps;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ring buffer accounting against the kernel: the same programs (output of n bytes, reserve + submit or
 * discard, query) run in the kernel and in bpf4j with no consumer, so the ring fills up; every r0 (0,
 * -EAGAIN, NULL-ness, positions, available data) must agree.
 */
class RingBufKernelDifferentialTest {
    @Test void outputsReservationsAndQueriesAgreeWithTheKernel() {
        MapDefinition d = new MapDefinition("rb", MapType.RINGBUF, 0, 0, 4096, 0);
        Optional<KernelMap> km = KernelMap.create(d);
        Assumptions.assumeTrue(km.isPresent(), "bpf(BPF_MAP_CREATE) is not allowed here");
        Random r = new Random(4096);
        long stack = NativeMemory.allocate(512), fp = stack + 512;
        try (KernelMap k = km.get(); MapTable table = MapTable.create(List.of(d))) {
            HelperRegistry reg = BpfHelpers.registry(table);
            long handle = table.handle(0);
            HelperCall call = new HelperCall() {
                final List<MemoryRegion> regions = new java.util.ArrayList<>(List.of(new MemoryRegion("stack", stack, 512, true)));
                { regions.addAll(table.regions()); }
                @Override public String programName() { return "rb"; }
                @Override public int pc() { return 0; }
                @Override public void exit(long r0) { }
                @Override public boolean accessible(long a, long size, boolean write) {
                    for (MemoryRegion m : regions) if (size > 0 && size < 1 << 20 && m.allows(a, (int) size, write)) return true;
                    return false;
                }
            };
            int eagain = 0;
            for (int step = 0; step < 150; step++) {
                KernelProgram p = new KernelProgram();
                int op = r.nextInt(4), ours;
                String what;
                if (op == 0) {
                    int n = 8 * (1 + r.nextInt(32));
                    what = "output " + n;
                    for (int off = -n; off < 0; off += 8) p.stDw(off, 0);
                    p.ldMap(1, k.fd()).movr(2, 10).add(2, -n).mov(3, n).mov(4, 0).call(HelperIds.RINGBUF_OUTPUT).exit();
                    ours = (int) call(reg, call, HelperIds.RINGBUF_OUTPUT, handle, fp - n, n, 0);
                    if (ours == -Errno.EAGAIN) eagain++;
                } else if (op == 1) {
                    int n = 1 + r.nextInt(300);
                    boolean discard = r.nextBoolean();
                    int commit = discard ? HelperIds.RINGBUF_DISCARD : HelperIds.RINGBUF_SUBMIT;
                    what = (discard ? "reserve+discard " : "reserve+submit ") + n;
                    p.ldMap(1, k.fd()).mov(2, n).mov(3, 0).call(HelperIds.RINGBUF_RESERVE).jne(0, 0, 2).mov(0, -1).exit()
                            .movr(1, 0).mov(2, 0).call(commit).mov(0, 0).exit();
                    long s = call(reg, call, HelperIds.RINGBUF_RESERVE, handle, n, 0, 0);
                    if (s == 0) ours = -1;
                    else {
                        call(reg, call, commit, s, 0, 0, 0);
                        ours = 0;
                    }
                } else {
                    int flags = r.nextInt(5);
                    what = "query " + flags;
                    p.ldMap(1, k.fd()).mov(2, flags).call(HelperIds.RINGBUF_QUERY).exit();
                    ours = (int) call(reg, call, HelperIds.RINGBUF_QUERY, handle, flags, 0, 0);
                }
                assertThat(ours).as("step %d: %s", step, what).isEqualTo(p.run());
            }
            assertThat(eagain).as("the ring filled up").isPositive();
        } finally {
            NativeMemory.free(stack);
        }
    }

    private static long call(HelperRegistry reg, HelperCall call, int id, long r1, long r2, long r3, long r4) {
        return reg.lookup(id).orElseThrow().body().call(call, r1, r2, r3, r4, 0);
    }
}
