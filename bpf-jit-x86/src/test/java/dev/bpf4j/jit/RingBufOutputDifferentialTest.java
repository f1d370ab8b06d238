package dev.bpf4j.jit;

import dev.bpf4j.engine.Bpf;
import dev.bpf4j.engine.Engine;
import dev.bpf4j.helpers.BpfHelpers;
import dev.bpf4j.isa.Insn;
import dev.bpf4j.maps.MapDefinition;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.MapType;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.maps.RingBufferReader;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.BpfRuntimeException;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.HelperRegistry;
import dev.bpf4j.runtime.HelperSpec;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.MemoryRegion;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_OUTPUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf_ringbuf_output} on the interpreter, on the JIT with its native form ({@code RingBufOutputEmitter},
 * called where r1 is a constant ring and the data lies in the frame) and on the JIT with the Java body forced
 * ({@code -Dbpf4j.jit.nativeHelpers=false}): the same r0 run after run, the same records as the Java consumer
 * reads them and the same positions, over sizes 0 to 512, every flag, a ring filled until {@code -EAGAIN} and
 * drained so records cross its end, records too large for the ring, data outside the frame, a closed map and a
 * bad handle (errors: kind and pc). Then several threads produce at once through native code, the Java body
 * and Java's {@code RingBufMap.output} while a Java consumer drains: no record lost, torn or out of order.
 */
class RingBufOutputDifferentialTest {
    static final int RING = 4096;

    enum Way { INTERP, JIT_NATIVE, JIT_JAVA }

    static MapTable table() { return MapTable.create(List.of(new MapDefinition("rb", MapType.RINGBUF, 0, 0, RING, 0))); }

    /** The standard registry over {@code maps}, bpf_ringbuf_output's body counting its calls (its native form kept). */
    static HelperRegistry counting(MapTable maps, AtomicInteger calls) {
        HelperRegistry standard = BpfHelpers.registry(maps);
        HelperSpec real = standard.lookup(RINGBUF_OUTPUT).orElseThrow();
        return standard.toBuilder().addNative(RINGBUF_OUTPUT, real.name(), (c, r1, r2, r3, r4, r5) -> {
            calls.incrementAndGet();
            return real.body().call(c, r1, r2, r3, r4, r5);
        }, real.nativeForm()).build();
    }

    /** Fills the frame with distinct words, then bpf_ringbuf_output(r1, data, size, flags); returns its r0. */
    static Program program(long handle, Insn[] data, long size, long flags) {
        List<Object> parts = new ArrayList<>();
        for (int k = 0; k < 64; k++) parts.add(I.st(DW, 10, -512 + 8 * k, 0x01020304 * (k + 1)));
        parts.add(I.lddw(1, handle));
        parts.add(data);
        parts.add(I.lddw(3, size));
        parts.add(I.lddw(4, flags));
        parts.add(I.call(RINGBUF_OUTPUT));
        parts.add(I.exit());
        return I.prog("ringbuf_output", parts.toArray());
    }

    static final int CALL_PC = 64 + 2 + 2 + 2 + 2;

    static Insn[] frame(int below) { return new Insn[] {I.mov64r(2, 10), I.alu64(ADD, 2, -below)}; }

    /**
     * {@code rounds} times: {@code runs} runs of the program {@code make} builds for the ring's handle, then a
     * drain of {@code drainUpTo} records (all when negative). Returns every r0 (or error), every record read,
     * the final positions and the Java body's calls.
     */
    static String scenario(Way way, Function<Long, Program> make, int rounds, int runs, int drainUpTo, boolean verified) {
        AtomicInteger calls = new AtomicInteger();
        StringBuilder s = new StringBuilder();
        try (MapTable maps = table()) {
            RingBufMap rb = (RingBufMap) maps.maps().get(0);
            RingBufferReader reader = rb.reader();
            Engine engine = way == Way.INTERP ? Both.INTERP : Jit.ENGINE;
            LoadOptions o = LoadOptions.defaults().withHelpers(counting(maps, calls));
            Program p = make.apply(maps.handle(0));
            if (way == Way.JIT_JAVA) System.setProperty("bpf4j.jit.nativeHelpers", "false");
            try (Executable x = verified ? Bpf.load(p, engine, o) : engine.load(p, o)) {
                System.clearProperty("bpf4j.jit.nativeHelpers");
                RunContext ctx = RunContext.builder().build();
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < runs; i++) {
                        try {
                            s.append(x.run(ctx)).append(',');
                        } catch (BpfRuntimeException e) {
                            s.append(e.kind()).append('@').append(e.pc()).append(',');
                        }
                    }
                    int[] left = {drainUpTo < 0 ? Integer.MAX_VALUE : drainUpTo};
                    List<byte[]> got = new ArrayList<>();
                    while (left[0] > 0 && reader.consume(rec -> got.add(rec)) > 0) left[0] -= got.size();
                    for (byte[] rec : got) s.append("\n rec ").append(HexFormat.of().formatHex(rec));
                    s.append("\n cons=").append(rb.consumerPos()).append(" prod=").append(rb.producerPos()).append('\n');
                }
            } finally {
                System.clearProperty("bpf4j.jit.nativeHelpers");
            }
        }
        return s + "javaCalls=" + calls.get();
    }

    /** The three ways agree (body calls aside); returns the JIT-native way's body calls. */
    static int agree(Function<Long, Program> make, int rounds, int runs, int drainUpTo, boolean verified, String what) {
        String strip = "javaCalls=\\d+$";
        String interp = scenario(Way.INTERP, make, rounds, runs, drainUpTo, verified);
        String nat = scenario(Way.JIT_NATIVE, make, rounds, runs, drainUpTo, verified);
        String java = scenario(Way.JIT_JAVA, make, rounds, runs, drainUpTo, verified);
        assertThat(nat.replaceAll(strip, "")).as("JIT native vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java.replaceAll(strip, "")).as("JIT Java body vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java).as("the JIT with Java helpers calls the body: %s", what).doesNotEndWith("javaCalls=0");
        return Integer.parseInt(nat.substring(nat.lastIndexOf('=') + 1));
    }

    @Test void frameDataGoesNativeWithTheBodysRecords() {
        for (int size : new int[] {0, 1, 7, 8, 13, 100, 255, 512}) {
            for (long flags : new long[] {0, 1, 2, 3}) {
                // 3 rounds of 40 outputs, draining 25 records between: the ring fills (-EAGAIN) and records cross its end
                int calls = agree(h -> program(h, frame(512), size, flags), 3, 40, 25, false, "size " + size + " flags " + flags);
                assertThat(calls).as("native: no body call, size %d", size).isZero();
            }
        }
    }

    @Test void badFlagsAndRecordsThatNeverFit() {
        for (long flags : new long[] {4, 8, -1, 1L << 40}) {
            assertThat(agree(h -> program(h, frame(64), 8, flags), 1, 3, -1, false, "flags " + flags)).isZero();
        }
        // larger than the frame: the body's check (data not readable) on every engine; then sizes the ring never holds
        agree(h -> program(h, frame(64), 513, 0), 1, 2, -1, false, "513 bytes");
        agree(h -> program(h, frame(64), -1, 0), 1, 2, -1, false, "size -1");
    }

    @Test void verifiedPrograms() {
        for (int size : new int[] {1, 16, 100}) {
            assertThat(agree(h -> program(h, frame(128), size, 0), 2, 50, 30, true, "verified " + size)).isZero();
        }
    }

    @Test void dataOutsideTheFrameAndOddHandlesCallTheBody() {
        long buf = NativeMemory.allocate(64);
        try {
            for (int i = 0; i < 64; i++) NativeMemory.putByte(buf + i, (byte) i);
            // outside every region: BAD_HELPER_ARGUMENT at the call on every engine
            Insn[] outside = I.lddw(2, buf);
            String interp = scenario(Way.INTERP, h -> program(h, outside, 16, 0), 1, 2, -1, false);
            assertThat(interp).contains("BAD_HELPER_ARGUMENT@" + CALL_PC);
            assertThat(agree(h -> program(h, outside, 16, 0), 1, 2, -1, false, "data outside the frame")).isEqualTo(2);
            // a handle that is no map
            assertThat(agree(h -> program(h + 8, frame(64), 16, 0), 1, 2, -1, false, "bad handle")).isEqualTo(2);
            // the frame's edge: the last 8 bytes go native, one past r10 does not
            assertThat(agree(h -> program(h, frame(8), 8, 0), 1, 2, -1, false, "frame top")).isZero();
            agree(h -> program(h, frame(8), 9, 0), 1, 2, -1, false, "one past r10");
        } finally {
            NativeMemory.free(buf);
        }
    }

    @Test void aClosedRingCallsTheBodyWhichRefusesIt() {
        for (Way way : new Way[] {Way.INTERP, Way.JIT_NATIVE}) {
            AtomicInteger calls = new AtomicInteger();
            MapTable maps = table();
            Engine engine = way == Way.INTERP ? Both.INTERP : Jit.ENGINE;
            try (Executable x = engine.load(program(maps.handle(0), frame(64), 8, 0), LoadOptions.defaults().withHelpers(counting(maps, calls)))) {
                assertThat(x.run(RunContext.builder().build())).isZero();
                maps.maps().get(0).close();
                String out;
                try {
                    out = "r0=" + x.run(RunContext.builder().build());
                } catch (BpfRuntimeException e) {
                    out = e.kind() + "@" + e.pc();
                }
                assertThat(out).as(way.name()).endsWith("@" + CALL_PC);
                assertThat(calls.get()).isEqualTo(way == Way.INTERP ? 2 : 1);
            } finally {
                maps.close();
            }
        }
    }

    /** Writes r1 (a producer's id and sequence) and words derived from it to r10-40, then outputs those 40 bytes. */
    static Program tagged(long handle) {
        return I.prog("ringbuf_tagged",
                I.mov64r(6, 1),
                I.stx(DW, 10, 6, -40),
                I.mov64r(7, 6), I.alu64(XOR, 7, -1), I.stx(DW, 10, 7, -32),
                I.mov64r(7, 6), I.alu64(MUL, 7, 0x9e3779b9), I.stx(DW, 10, 7, -24),
                I.mov64r(7, 6), I.alu64(ADD, 7, 12345), I.stx(DW, 10, 7, -16),
                I.mov64r(7, 6), I.alu64(RSH, 7, 3), I.stx(DW, 10, 7, -8),
                I.lddw(1, handle), I.mov64r(2, 10), I.alu64(ADD, 2, -40), I.mov64(3, 40), I.mov64(4, 0),
                I.call(RINGBUF_OUTPUT), I.exit());
    }

    static long[] expected(long v) { return new long[] {v, ~v, v * (long) 0x9e3779b9, v + 12345, v >>> 3}; } // imm32 sign-extended, as BPF

    @Test void threadsProduceAtOnceWhileJavaConsumes() throws Exception {
        int perThread = 20_000;
        AtomicInteger calls = new AtomicInteger();
        try (MapTable maps = table()) {
            RingBufMap rb = (RingBufMap) maps.maps().get(0);
            LoadOptions o = LoadOptions.defaults().withHelpers(counting(maps, calls));
            Executable nativeJit = Jit.ENGINE.load(tagged(maps.handle(0)), o);
            System.setProperty("bpf4j.jit.nativeHelpers", "false");
            Executable javaJit;
            try {
                javaJit = Jit.ENGINE.load(tagged(maps.handle(0)), o);
            } finally {
                System.clearProperty("bpf4j.jit.nativeHelpers");
            }
            Executable interp = Both.INTERP.load(tagged(maps.handle(0)), o);
            // producers 0-2: JIT native, 3: JIT with the Java body, 4: interpreter, 5: RingBufMap.output from Java
            int producers = 6;
            AtomicBoolean failed = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < producers; t++) {
                int id = t;
                threads.add(new Thread(() -> {
                    try {
                        for (int seq = 0; seq < perThread && !failed.get(); seq++) {
                            long v = (long) id << 32 | seq;
                            while (!produce(id, v, nativeJit, javaJit, interp, rb)) { // full: retry
                                if (failed.get()) return;
                                Thread.onSpinWait();
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                        failed.set(true);
                    }
                }));
            }
            threads.forEach(Thread::start);
            int[] next = new int[producers];
            RingBufferReader reader = rb.reader();
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            int total = 0;
            try {
            while (total < producers * perThread && !failed.get() && System.nanoTime() < deadline) {
                total += reader.poll(rec -> {
                    assertThat(rec).hasSize(40);
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(rec).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    long tag = b.getLong(0);
                    long[] want = expected(tag);
                    for (int k = 0; k < 5; k++) assertThat(b.getLong(8 * k)).as("word %d of record %x", k, tag).isEqualTo(want[k]);
                    int who = (int) (tag >>> 32), seq = (int) tag;
                    assertThat(seq).as("producer %d in order", who).isEqualTo(next[who]);
                    next[who]++;
                }, Duration.ofMillis(100));
            }
            } finally {
                if (total < producers * perThread) failed.set(true); // a failed check or the deadline: stop the producers
                for (Thread t : threads) t.join(10_000);
            }
            assertThat(errors).isEmpty();
            total += reader.consume(rec -> {});
            assertThat(next).containsOnly(perThread);
            assertThat(rb.consumerPos()).isEqualTo(rb.producerPos());
            assertThat(calls.get()).as("only producers 3 and 4 call the body").isGreaterThanOrEqualTo(2 * perThread);
            nativeJit.close();
            javaJit.close();
            interp.close();
        }
    }

    private static boolean produce(int id, long v, Executable nativeJit, Executable javaJit, Executable interp, RingBufMap rb) {
        RunContext ctx = RunContext.builder().arg(1, v).build();
        if (id <= 2) return nativeJit.run(ctx) == 0;
        if (id == 3) return javaJit.run(ctx) == 0;
        if (id == 4) return interp.run(ctx) == 0;
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(40).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (long w : expected(v)) b.putLong(w);
        try {
            rb.output(b.array(), 0);
            return true;
        } catch (dev.bpf4j.maps.BpfMapException e) {
            return false; // EAGAIN: full
        }
    }
}
