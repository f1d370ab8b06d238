package dev.bpf4j.maps;

import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.runtime.HelperIds;
import dev.bpf4j.runtime.HelperCall;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bpf_snprintf against the kernel: the format sits in a frozen read-only array (as .rodata), the
 * arguments on the stack, the output in an array value read back with BPF_MAP_LOOKUP_ELEM. Return value
 * and output bytes must match bpf4j's helper. The argument STR_ARG stands for "pointer to STR" (after the
 * format in the same value).
 */
class SnprintfKernelDifferentialTest {
    static final String STR = "abc\n";
    static final long STR_ARG = 0x5354_5200_0000_0001L; // marker, never a real argument here

    record Case(String fmt, int size, long... args) {
        @Override public String toString() { return "\"" + fmt.replace("\n", "\\n") + "\" size " + size + " " + Arrays.toString(args); }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("%d %i %u %x %X", 64, -1, -2, -3, 255, 255),
                new Case("%ld %lu %lx %lld %llu %llx", 64, -1, -1, -1, Long.MIN_VALUE, -2, 0x1234_5678_9abcL),
                new Case("%d|%u|%x", 64, 0x1_0000_0005L, 0x1_0000_0005L, 0x1_0000_0005L),
                new Case("%5d|%-5d|%05d|%+d|% d|%-05d|", 64, 42, 42, -42, 7, 7, 3),
                new Case("%+u|% x|%08x|%-8X|%3x", 64, 5, 5, 0xabc, 0xabc, 0xabcdef),
                new Case("%c%c%5c|%-3c|", 64, 'o', 'k', 'x', 'y'),
                new Case("%s|%8s|%-6s|", 64, STR_ARG, STR_ARG, STR_ARG),
                new Case("%pI4 %pi4", 64, STR_ARG, STR_ARG),
                new Case("100%% %d%%", 64, 5),
                new Case("%px", 64, 0xdeadbeefL),
                new Case("%d %d %d", 8, 123456, 7, 8),
                new Case("truncated %s", 5, STR_ARG),
                new Case("%z", 64, 1),
                new Case("%d %d", 64, 1),
                new Case("%lf", 64, 1),
                new Case("%5.2d", 64, 1),
                new Case("%#x", 64, 1),
                new Case("%sx", 64, STR_ARG),
                new Case("%pQ", 64, 1),
                new Case("tab\there", 64),
                new Case("%hd", 64, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void snprintfAgreesWithTheKernel(Case c) {
        byte[] fmtValue = Arrays.copyOf((c.fmt + "\0" + STR + "\0").getBytes(StandardCharsets.ISO_8859_1), 128);
        int strOff = c.fmt.length() + 1;
        MapDefinition rodata = new MapDefinition("rodata", MapType.ARRAY, 4, 128, 1, MapFlags.BPF_F_RDONLY_PROG);
        MapDefinition out = new MapDefinition("out", MapType.ARRAY, 4, 64, 1, 0);
        Optional<KernelMap> kr = KernelMap.create(rodata);
        Assumptions.assumeTrue(kr.isPresent(), "bpf(BPF_MAP_CREATE) is not allowed here");
        try (KernelMap fmtMap = kr.get(); KernelMap outMap = KernelMap.create(out).orElseThrow()) {
            assertThat(fmtMap.update(Bytes.u32(0), fmtValue, 0)).isZero();
            assertThat(fmtMap.freeze()).isZero();
            int n = c.args.length;
            KernelProgram p = new KernelProgram();
            p.stW(-4, 0).ldMap(1, outMap.fd()).movr(2, 10).add(2, -4).call(HelperIds.MAP_LOOKUP_ELEM)
                    .jne(0, 0, 2).mov(0, -1).exit().movr(6, 0);
            p.insn(0x18, 7, 2, 0, fmtMap.fd()).insn(0, 0, 0, 0, 0); // r7 = &rodata value (BPF_PSEUDO_MAP_VALUE)
            int base = -8 - 8 * n;
            for (int i = 0; i < n; i++) {
                if (c.args[i] == STR_ARG) {
                    p.movr(1, 7).add(1, strOff);
                } else {
                    p.insn(0x18, 1, 0, 0, (int) c.args[i]).insn(0, 0, 0, 0, (int) (c.args[i] >>> 32));
                }
                p.insn(0x7b, 10, 1, base + 8 * i, 0); // *(u64 *)(r10 + off) = r1
            }
            p.movr(1, 6).mov(2, c.size).movr(3, 7);
            if (n == 0) p.mov(4, 0); else p.movr(4, 10).add(4, base);
            p.mov(5, 8 * n).call(HelperIds.SNPRINTF).exit();
            int kernelRet;
            try {
                kernelRet = p.run();
            } catch (IllegalStateException e) {
                // the verifier checks a constant format at load time; bpf4j returns -EINVAL at run time instead
                assertThat(e.getMessage()).contains("Invalid format string");
                kernelRet = -Errno.EINVAL;
            }
            int[] err = new int[1];
            byte[] kernelOut = outMap.lookup(Bytes.u32(0), err);

            // bpf4j: the same memory picture
            long fmtBuf = NativeMemory.allocate(128), data = NativeMemory.allocate(Math.max(8, 8 * n)), outBuf = NativeMemory.allocate(64);
            try {
                NativeMemory.write(fmtBuf, fmtValue, 0, 128);
                for (int i = 0; i < n; i++) NativeMemory.putLong(data + 8L * i, c.args[i] == STR_ARG ? fmtBuf + strOff : c.args[i]);
                HelperCall call = call(List.of(new MemoryRegion("fmt", fmtBuf, 128, false),
                        new MemoryRegion("data", data, Math.max(8, 8 * n), false), new MemoryRegion("out", outBuf, 64, true)));
                long ours = BpfHelpers.registry(MapTable.of(List.of())).lookup(HelperIds.SNPRINTF).orElseThrow().body()
                        .call(call, outBuf, c.size, fmtBuf, n == 0 ? 0 : data, 8L * n);
                assertThat((int) ours).as("return value; kernel wrote \"%s\", bpf4j \"%s\"",
                        kernelOut == null ? "" : new String(kernelOut, StandardCharsets.ISO_8859_1).replace("\0", ""),
                        new String(NativeMemory.read(outBuf, 64), StandardCharsets.ISO_8859_1).replace("\0", "")).isEqualTo(kernelRet);
                if (kernelRet > 0) {
                    int shown = Math.min(kernelRet, c.size);
                    assertThat(new String(NativeMemory.read(outBuf, shown), StandardCharsets.ISO_8859_1))
                            .isEqualTo(new String(kernelOut, 0, shown, StandardCharsets.ISO_8859_1));
                }
            } finally {
                NativeMemory.free(fmtBuf);
                NativeMemory.free(data);
                NativeMemory.free(outBuf);
            }
        }
    }

    private static HelperCall call(List<MemoryRegion> regions) {
        return new HelperCall() {
            @Override public String programName() { return "snprintf"; }
            @Override public int pc() { return 0; }
            @Override public void exit(long r0) { }
            @Override public boolean accessible(long a, long size, boolean write) {
                for (MemoryRegion m : regions) if (size > 0 && size < 1 << 20 && m.allows(a, (int) size, write)) return true;
                return false;
            }
        };
    }
}
