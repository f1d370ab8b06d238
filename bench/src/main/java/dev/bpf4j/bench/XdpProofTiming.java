package dev.bpf4j.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import dev.bpf4j.api.BpfObject;
import dev.bpf4j.api.BpfProgram;
import dev.bpf4j.api.ObjectLoadOptions;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.program.Program;
import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A/B timing of a clang-compiled XDP program on the JIT with and without the ctx-form packet proofs,
 * in one JVM, in alternating chunks: the program loaded with its packet context ({@code xdp_md}: the
 * entry guard takes the guarded copy) and without (no copy: every packet access checked), next to an
 * empty program (the cost of entering a run). The ctx and a 64-byte IPv4/UDP frame are laid out as
 * BPF_PROG_TEST_RUN lays them out, below 4 GiB. ns per call: fastest, 25th percentile and median chunk.
 * {@code java -cp bench/target/benchmarks.jar dev.bpf4j.bench.XdpProofTiming [object.o [program]]}.
 */
public final class XdpProofTiming {
    private XdpProofTiming() {}

    private static final int CHUNK = 200_000, ROUNDS = 100, WARMUP = 20, PAGE = 4096, CTX_SIZE = 24, PACKET = 320;

    public static void main(String[] args) {
        Path object = Path.of(args.length > 0 ? args[0] : "it-tests/src/test/resources/objects/corpus/xdp_swap_mac.o");
        String name = args.length > 1 ? args[1] : "xdp_swap_mac";
        Engine jit = EngineParams.require("jit");
        Program empty = new Program("empty", List.of(new Insn(0xb7, 0, 0, 0, 2), new Insn(0x95, 0, 0, 0, 0)));
        long mem = lowPage();
        try (BpfObject obj = BpfObject.open(object).load(ObjectLoadOptions.engine("interp"))) {
            BpfProgram p = obj.program(name);
            LoadOptions with = p.loadOptions(), without = with.withPacketContext(null);
            byte[] frame = new byte[64];
            for (int i = 0; i < frame.length; i++) frame[i] = (byte) (i * 7 + 1);
            frame[12] = 0x08; frame[13] = 0x00; frame[14] = 0x45; frame[23] = 17; // IPv4, UDP
            NativeMemory.write(mem + PACKET, frame, 0, frame.length);
            NativeMemory.putInt(mem, (int) (mem + PACKET));
            NativeMemory.putInt(mem + 4, (int) (mem + PACKET + frame.length));
            NativeMemory.putInt(mem + 8, (int) (mem + PACKET));
            NativeMemory.putInt(mem + 12, 1);
            RunContext.Builder b = RunContext.builder().arg(1, mem).region(new MemoryRegion("xdp_md", mem, CTX_SIZE, false))
                    .region(new MemoryRegion("packet", mem + PACKET, frame.length, true));
            obj.mapTable().regions().forEach(b::region);
            RunContext ctx = b.build();
            try (Executable proven = Bpf.load(p.program(), jit, with); Executable checked = Bpf.load(p.program(), jit, without);
                 Executable nothing = Bpf.load(empty, jit, with)) {
                long a = proven.run(ctx), c = checked.run(ctx);
                if (a != c) throw new IllegalStateException(name + ": " + a + " with the packet context, " + c + " without");
                String[] names = {"jit, guarded copy", "jit, checked", "jit, empty program"};
                Executable[] exes = {proven, checked, nothing};
                List<List<Double>> times = new ArrayList<>();
                for (int k = 0; k < names.length; k++) times.add(new ArrayList<>());
                long sink = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    for (int k = 0; k < names.length; k++) {
                        Executable x = exes[k];
                        long t0 = System.nanoTime();
                        for (int i = 0; i < CHUNK; i++) sink += x.run(ctx);
                        if (round >= WARMUP) times.get(k).add((System.nanoTime() - t0) / (double) CHUNK);
                    }
                }
                System.out.println(name + " (" + object.getFileName() + "), r0 " + a);
                for (int k = 0; k < names.length; k++) {
                    List<Double> t = times.get(k);
                    Collections.sort(t);
                    System.out.printf("%-20s fastest %6.1f  p25 %6.1f  median %6.1f ns/call%n", names[k], t.get(0), t.get(t.size() / 4), t.get(t.size() / 2));
                }
                if (sink == 0x5eed) System.out.println();
            }
        } finally {
            INVOKER.invokeN2(CTX2, MUNMAP, mem, PAGE);
        }
    }

    private static final Invoker INVOKER = Invoker.getInstance();
    private static final long MMAP = Library.getDefault().getSymbolAddress("mmap"), MUNMAP = Library.getDefault().getSymbolAddress("munmap");
    private static final CallContext CTX6 = CallContext.getCallContext(Type.SINT64, six(), CallingConvention.DEFAULT, true);
    private static final CallContext CTX2 = CallContext.getCallContext(Type.SINT, new Type[] {Type.SINT64, Type.SINT64},
            CallingConvention.DEFAULT, true);

    private static Type[] six() {
        Type[] t = new Type[6];
        Arrays.fill(t, Type.SINT64);
        return t;
    }

    /** One zeroed page below 4 GiB (mmap MAP_32BIT): xdp_md's u32 data/data_end hold real addresses. */
    private static long lowPage() {
        long a = INVOKER.invokeN6(CTX6, MMAP, 0, PAGE, 3, 0x02 | 0x20 | 0x40, -1, 0);
        if (a == -1 || a == 0 || (a + PAGE) >>> 32 != 0) throw new IllegalStateException("mmap(MAP_32BIT) gave 0x" + Long.toHexString(a));
        return a;
    }
}
