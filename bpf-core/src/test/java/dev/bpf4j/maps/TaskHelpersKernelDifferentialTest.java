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
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * BPF_PROG_TEST_RUN runs a program in the calling thread's task, so the kernel's
 * bpf_get_current_pid_tgid and bpf_get_current_comm answer for the very Java thread that calls bpf4j's.
 */
class TaskHelpersKernelDifferentialTest {
    @Test void pidTgidAndCommAgreeWithTheKernelForTheCallingThread() throws Exception {
        Assumptions.assumeTrue(KernelMap.createResult(new MapDefinition("probe", MapType.ARRAY, 4, 4, 1, 0)) == 0,
                "bpf() is not allowed here");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                check();
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "bpf4j-kdiff");
        t.start();
        t.join();
        if (failure.get() instanceof org.opentest4j.TestAbortedException) throw (org.opentest4j.TestAbortedException) failure.get();
        if (failure.get() != null) throw new AssertionError(failure.get());
    }

    private static void check() {
        HelperRegistry reg = BpfHelpers.registry(MapTable.of(List.of()));
        long buf = NativeMemory.allocate(16);
        HelperCall call = new HelperCall() {
            @Override public String programName() { return "task"; }
            @Override public int pc() { return 0; }
            @Override public void exit(long r0) { }
            @Override public boolean accessible(long a, long size, boolean write) {
                return size > 0 && new MemoryRegion("buf", buf, 16, true).allows(a, (int) Math.min(size, 1 << 20), write);
            }
        };
        try (KernelMap out = KernelMap.create(new MapDefinition("out", MapType.ARRAY, 4, 16, 1, 0)).orElseThrow()) {
            long ours = reg.lookup(HelperIds.GET_CURRENT_PID_TGID).orElseThrow().body().call(call, 0, 0, 0, 0, 0);
            int tid = run(new KernelProgram().call(HelperIds.GET_CURRENT_PID_TGID).exit());
            int tgid = run(new KernelProgram().call(HelperIds.GET_CURRENT_PID_TGID).insn(0x77, 0, 0, 0, 32).exit());
            assertThat((int) ours).as("tid").isEqualTo(tid);
            assertThat((int) (ours >>> 32)).as("tgid").isEqualTo(tgid);

            run(new KernelProgram().stW(-4, 0).ldMap(1, out.fd()).movr(2, 10).add(2, -4).call(HelperIds.MAP_LOOKUP_ELEM)
                    .jne(0, 0, 1).exit().movr(1, 0).mov(2, 16).call(HelperIds.GET_CURRENT_COMM).exit());
            byte[] kernelComm = out.lookup(Bytes.u32(0), new int[1]);
            assertThat(reg.lookup(HelperIds.GET_CURRENT_COMM).orElseThrow().body().call(call, buf, 16, 0, 0, 0)).isZero();
            assertThat(NativeMemory.read(buf, 16)).as("comm").isEqualTo(kernelComm);
        } finally {
            NativeMemory.free(buf);
        }
    }

    private static int run(KernelProgram p) {
        try {
            return p.run();
        } catch (IllegalStateException e) {
            Assumptions.assumeTrue(!e.getMessage().contains("unknown func"), "helper not available to socket filters here");
            throw e;
        }
    }
}
