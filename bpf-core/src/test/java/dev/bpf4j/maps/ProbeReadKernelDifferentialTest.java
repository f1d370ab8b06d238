package dev.bpf4j.maps;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.helpers.ProbeMemory;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_probe_read_kernel(_str) results against the kernel: a source string on the stack, a destination on
 * the stack, every size from 0 to 12; and reads of the low address 8, which both refuse with -ERANGE
 * (copy_from_kernel_nofault_allowed; the _str form returns 0 for size 0 first) and zero-fill. The program
 * returns r0, or the first 4 destination bytes.
 */
class ProbeReadKernelDifferentialTest {
    @Test void probeReadResultsAgreeWithTheKernel() {
        Assumptions.assumeTrue(KernelMap.createResult(new MapDefinition("probe", MapType.ARRAY, 4, 4, 1, 0)) == 0,
                "bpf() is not allowed here");
        HelperRegistry reg = BpfHelpers.registry(MapTable.of(List.of()), BpfHelpers.Options.defaults().withProbeMode(ProbeMemory.Mode.REGIONS_ONLY));
        long stack = NativeMemory.allocate(64), fp = stack + 64;
        HelperCall call = new HelperCall() {
            @Override public String programName() { return "probe"; }
            @Override public int pc() { return 0; }
            @Override public void exit(long r0) { }
            @Override public boolean accessible(long a, long size, boolean write) {
                return size > 0 && new MemoryRegion("stack", stack, 64, true).allows(a, (int) Math.min(size, 1 << 20), write);
            }
        };
        try {
            for (int id : new int[] {HelperIds.PROBE_READ_KERNEL, HelperIds.PROBE_READ_KERNEL_STR}) {
                for (long src : new long[] {0, 8}) { // a source on the stack (0) or the unmapped address 8
                    for (int size = 0; size <= 12; size++) {
                        for (boolean returnBytes : new boolean[] {false, true}) {
                            // src "hello\0" at r10-32 (padded with 'Z'), dst at r10-16 (pre-filled with 'x')
                            KernelProgram p = new KernelProgram()
                                    .insn(0x18, 1, 0, 0, 0x6c6c6568).insn(0, 0, 0, 0, 0x5a5a006f).insn(0x7b, 10, 1, -32, 0)
                                    .insn(0x18, 1, 0, 0, 0x5a5a5a5a).insn(0, 0, 0, 0, 0x5a5a5a5a).insn(0x7b, 10, 1, -24, 0)
                                    .insn(0x18, 1, 0, 0, 0x78787878).insn(0, 0, 0, 0, 0x78787878).insn(0x7b, 10, 1, -16, 0).insn(0x7b, 10, 1, -8, 0)
                                    .movr(1, 10).add(1, -16).mov(2, size);
                            if (src == 0) p.movr(3, 10).add(3, -32); else p.mov(3, (int) src);
                            p.call(id);
                            if (returnBytes) p.ldxW(0, 10, -16);
                            p.exit();
                            NativeMemory.putLong(fp - 32, 0x5a5a006f6c6c6568L);
                            NativeMemory.putLong(fp - 24, 0x5a5a5a5a5a5a5a5aL);
                            NativeMemory.putLong(fp - 16, 0x7878787878787878L);
                            NativeMemory.putLong(fp - 8, 0x7878787878787878L);
                            long r0 = reg.lookup(id).orElseThrow().body().call(call, fp - 16, size, src == 0 ? fp - 32 : src, 0, 0);
                            int ours = returnBytes ? NativeMemory.getInt(fp - 16) : (int) r0;
                            int theirs = p.run();
                            String what = String.format("helper %d src %s size %d %s", id, src == 0 ? "stack" : "0x8", size,
                                    returnBytes ? "dst bytes" : "r0");
                            assertThat(ours).as(what).isEqualTo(theirs);
                        }
                    }
                }
            }
        } finally {
            NativeMemory.free(stack);
        }
    }
}
