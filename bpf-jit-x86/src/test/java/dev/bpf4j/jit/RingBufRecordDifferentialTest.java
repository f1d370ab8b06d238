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

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_DISCARD;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_QUERY;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_RESERVE;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_SUBMIT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bpf_ringbuf_reserve}, {@code _submit}, {@code _discard} and {@code _query} on the interpreter, on the
 * JIT with their native forms ({@code RingBufReserveEmitter}, {@code RingBufCommitEmitter}, {@code
 * RingBufQueryEmitter}) and on the JIT with the Java bodies ({@code -Dbpf4j.jit.nativeHelpers=false}): the same
 * r0 (or error kind and pc) run after run, the same records as the Java consumer reads them, the same
 * positions and the same bytes in the ring (headers included), over sizes around the ring's end, a full ring (reserve answers NULL), bad reserve flags, any commit
 * flags, every query flag, pointers that are no pending sample (the body's error), a header the program
 * overwrote, and a closed ring. The native way must call no body where it applies.
 */
class RingBufRecordDifferentialTest {
    static final int RING = 4096;
    static final int[] IDS = {RINGBUF_RESERVE, RINGBUF_SUBMIT, RINGBUF_DISCARD, RINGBUF_QUERY};

    enum Way { INTERP, JIT_NATIVE, JIT_JAVA }

    /** What the program hands to submit/discard. */
    enum Ptr { SAMPLE, TWICE, PLUS_8, PLUS_4, COPY_AREA, STACK, SCRIBBLED_HEADER }

    record Shape(long size, long reserveFlags, boolean discard, long commitFlags, long queryFlags, Ptr ptr) {
        Shape with(Ptr p) { return new Shape(size, reserveFlags, discard, commitFlags, queryFlags, p); }
    }

    static Shape shape(long size) { return new Shape(size, 0, false, 0, 0, Ptr.SAMPLE); }

    static MapTable table() { return MapTable.create(List.of(new MapDefinition("rb", MapType.RINGBUF, 0, 0, RING, 0))); }

    /** The standard registry over {@code maps}, the four helpers' bodies counting their calls (native forms kept). */
    static HelperRegistry counting(MapTable maps, AtomicInteger calls) {
        HelperRegistry standard = BpfHelpers.registry(maps);
        HelperRegistry.Builder b = standard.toBuilder();
        for (int id : IDS) {
            HelperSpec real = standard.lookup(id).orElseThrow();
            assertThat(real.nativeForm()).as(real.name()).isNotNull();
            b.addNative(id, real.name(), (c, r1, r2, r3, r4, r5) -> {
                calls.incrementAndGet();
                return real.body().call(c, r1, r2, r3, r4, r5);
            }, real.nativeForm());
        }
        return b.build();
    }

    /**
     * reserve(ring, size, flags); NULL: r0 = -2. Else writes every byte of the sample (words, then bytes),
     * commits what {@link Shape#ptr} says, and answers query(ring, queryFlags).
     */
    static Program program(long handle, Shape s) {
        List<Object> parts = new ArrayList<>();
        parts.add(I.lddw(1, handle));
        parts.add(I.lddw(2, s.size()));
        parts.add(I.lddw(3, s.reserveFlags()));
        parts.add(I.call(RINGBUF_RESERVE));
        parts.add(I.jmp(JNE, 0, 0, 2));
        parts.add(I.mov64(0, -2));
        parts.add(I.exit());
        parts.add(I.mov64r(6, 0));
        long n = Math.max(0, Math.min(s.size(), 4096));
        for (int k = 0; k < n / 8; k++) parts.add(I.st(DW, 6, 8 * k, 0x01020304 * (k + 1)));
        for (int j = 0; j < n % 8; j++) parts.add(I.st(B, 6, (int) (n / 8 * 8 + j), 0x40 + j));
        if (s.ptr() == Ptr.SCRIBBLED_HEADER) parts.add(I.st(DW, 6, -8, -1)); // len and pg_off both garbage
        switch (s.ptr()) {
            case STACK -> { parts.add(I.mov64r(1, 10)); parts.add(I.alu64(ADD, 1, -16)); }
            case PLUS_8 -> { parts.add(I.mov64r(1, 6)); parts.add(I.alu64(ADD, 1, 8)); }
            case PLUS_4 -> { parts.add(I.mov64r(1, 6)); parts.add(I.alu64(ADD, 1, 4)); }
            case COPY_AREA -> { parts.add(I.mov64r(1, 6)); parts.add(I.alu64(ADD, 1, RING)); }
            default -> parts.add(I.mov64r(1, 6));
        }
        parts.add(I.lddw(2, s.commitFlags()));
        parts.add(I.call(s.discard() ? RINGBUF_DISCARD : RINGBUF_SUBMIT));
        if (s.ptr() == Ptr.TWICE) {
            parts.add(I.mov64r(1, 6));
            parts.add(I.mov64(2, 0));
            parts.add(I.call(RINGBUF_SUBMIT));
        }
        parts.add(I.lddw(1, handle));
        parts.add(I.lddw(2, s.queryFlags()));
        parts.add(I.call(RINGBUF_QUERY));
        parts.add(I.exit());
        return I.prog("ringbuf_record", parts.toArray());
    }

    /**
     * {@code rounds} times: {@code runs} runs, then a drain of up to {@code drainUpTo} records (all when
     * negative). Returns every r0 (or error), every record read, the positions and the bodies' calls.
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
                RunContext ctx = context(maps);
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < runs; i++) {
                        long before = rb.producerPos();
                        try {
                            s.append(x.run(ctx));
                        } catch (BpfRuntimeException e) {
                            s.append(e.kind()).append('@').append(e.pc());
                        }
                        if ((before & (RING - 1)) + rb.producerPos() - before > RING) s.append('X'); // a record crossed the end
                        s.append(',');
                    }
                    List<byte[]> got = drain(reader, drainUpTo < 0 ? Integer.MAX_VALUE : drainUpTo);
                    for (byte[] rec : got) s.append("\n rec ").append(HexFormat.of().formatHex(rec));
                    s.append("\n cons=").append(rb.consumerPos()).append(" prod=").append(rb.producerPos())
                            .append(" ring=").append(digest(rb)).append('\n');
                }
            } finally {
                System.clearProperty("bpf4j.jit.nativeHelpers");
            }
        }
        return s + "javaCalls=" + calls.get();
    }

    /**
     * The ring's data area and copy-area, headers ({@code len}, {@code pg_off}) included, and the reservation
     * table after them ({@code max_entries / 2} bytes): what every engine must leave alike.
     */
    static String digest(RingBufMap rb) {
        byte[] bytes = new byte[(int) (2 * rb.capacity() + rb.capacity() / 2)];
        NativeMemory.read(rb.dataAddress(), bytes, 0, bytes.length);
        try {
            return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Thrown by the handler to stop a consume after the records it wants: the reader publishes each record's position after its handler returns. */
    private static final class Enough extends RuntimeException {
        Enough() { super(null, null, false, false); }
    }

    /** Up to {@code n} records, the consumer position moved past them only. */
    static List<byte[]> drain(RingBufferReader reader, int n) {
        List<byte[]> got = new ArrayList<>();
        if (n == 0) return got;
        try {
            reader.consume(rec -> {
                if (got.size() == n) throw new Enough(); // the (n+1)-th: its position is not published, it comes again
                got.add(rec);
            });
        } catch (Enough stop) {
            // n records taken
        }
        return got;
    }

    /** A run that may write the ring's data area (a reserved sample), as a loaded object's runs may. */
    static RunContext context(MapTable maps) {
        RunContext.Builder b = RunContext.builder();
        for (MemoryRegion r : maps.regions()) b.region(r);
        return b.build();
    }

    /** The three ways agree (body calls aside); returns the interpreter's outcome and the native way's body calls. */
    static Result agree(Function<Long, Program> make, int rounds, int runs, int drainUpTo, boolean verified, String what) {
        String strip = "javaCalls=\\d+$";
        String interp = scenario(Way.INTERP, make, rounds, runs, drainUpTo, verified);
        String nat = scenario(Way.JIT_NATIVE, make, rounds, runs, drainUpTo, verified);
        String java = scenario(Way.JIT_JAVA, make, rounds, runs, drainUpTo, verified);
        assertThat(nat.replaceAll(strip, "")).as("JIT native vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java.replaceAll(strip, "")).as("JIT Java bodies vs interpreter: %s", what).isEqualTo(interp.replaceAll(strip, ""));
        assertThat(java).as("the JIT with Java helpers calls the bodies: %s", what).doesNotEndWith("javaCalls=0");
        return new Result(interp, Integer.parseInt(nat.substring(nat.lastIndexOf('=') + 1)));
    }

    record Result(String interp, int nativeBodyCalls) {}

    @Test void recordsAroundTheEndGoNativeWithTheBodysRecords() {
        for (int size : new int[] {0, 1, 7, 8, 13, 100, 255, 512, 1000, 2040, 4080}) {
            for (boolean discard : new boolean[] {false, true}) {
                Shape s = new Shape(size, 0, discard, 0, 0, Ptr.SAMPLE);
                // 3 rounds of 12 runs, draining 5 records between: the ring fills (reserve NULL) and records cross its end
                Result r = agree(h -> program(h, s), 3, 12, 5, false, s.toString());
                assertThat(r.nativeBodyCalls()).as("native: no body call, %s", s).isZero();
                assertThat(r.interp()).as("records read, no error: %s", s).contains(discard ? "\n cons=" : "\n rec ").doesNotContain("@");
                if (size >= 1000) assertThat(r.interp()).as("a full ring: reserve NULL").contains("-2,");
            }
        }
    }

    @Test void recordsCrossTheEnd() {
        // 48 bytes a record, which 4096 is no multiple of: draining 3 of every 5 runs, records cross the end, then the ring fills
        Result r = agree(h -> program(h, shape(36)), 60, 5, 3, false, "36-byte records");
        assertThat(r.nativeBodyCalls()).isZero();
        assertThat(r.interp()).contains("\n rec ").contains("-2,").contains("X,").doesNotContain("@");
        // 1000-byte records never start on the same offset twice in a row: some cross the end
        Result big = agree(h -> program(h, shape(1000)), 8, 3, 2, false, "1000-byte records");
        assertThat(big.nativeBodyCalls()).isZero();
        assertThat(big.interp()).contains("\n rec ").contains("X,").doesNotContain("@");
    }

    @Test void everyQueryAndCommitFlag() {
        for (long q : new long[] {0, 1, 2, 3, 4, -1, 1L << 33}) {
            for (long f : new long[] {0, 1, 2, 3, 4, -1}) {
                Shape s = new Shape(16, 0, f == 4, f, q, Ptr.SAMPLE);
                Result r = agree(h -> program(h, s), 2, 5, 3, false, s.toString());
                assertThat(r.nativeBodyCalls()).as("%s", s).isZero();
                assertThat(r.interp()).doesNotContain("@");
            }
        }
    }

    @Test void badReserveFlagsAndSizesAnswerNull() {
        for (long flags : new long[] {1, 2, -1, 1L << 40}) {
            Shape s = new Shape(16, flags, false, 0, 0, Ptr.SAMPLE);
            Result r = agree(h -> program(h, s), 1, 3, -1, false, s.toString());
            assertThat(r.interp()).startsWith("-2,-2,-2,");
            assertThat(r.nativeBodyCalls()).isZero();
        }
        for (long size : new long[] {4089, 1L << 30, -1}) {
            Result r = agree(h -> program(h, shape(size)), 1, 2, -1, false, "size " + size);
            assertThat(r.interp()).startsWith("-2,-2,");
        }
    }

    @Test void verifiedPrograms() {
        for (int size : new int[] {1, 16, 100, 1000}) {
            for (boolean discard : new boolean[] {false, true}) {
                Shape s = new Shape(size, 0, discard, 0, 3, Ptr.SAMPLE);
                Result r = agree(h -> program(h, s), 3, 10, 6, true, "verified " + s);
                assertThat(r.nativeBodyCalls()).isZero();
                assertThat(r.interp()).contains(discard ? "\n cons=" : "\n rec ").doesNotContain("@");
            }
        }
    }

    @Test void pointersThatAreNoPendingSampleGetTheBodysError() {
        for (Ptr p : new Ptr[] {Ptr.TWICE, Ptr.PLUS_8, Ptr.PLUS_4, Ptr.COPY_AREA, Ptr.STACK}) {
            for (boolean discard : new boolean[] {false, true}) {
                Shape s = new Shape(24, 0, discard, 0, 0, p);
                Result r = agree(h -> program(h, s), 2, 3, -1, false, s.toString());
                assertThat(r.interp()).as("%s", s).contains("BAD_HELPER_ARGUMENT@");
                assertThat(r.nativeBodyCalls()).as("the body refuses it: %s", s).isPositive();
            }
        }
    }

    @Test void aHeaderTheProgramOverwroteIsWrittenAgainOnCommit() {
        for (boolean discard : new boolean[] {false, true}) {
            Shape s = new Shape(24, 0, discard, 0, 0, Ptr.SCRIBBLED_HEADER);
            Result r = agree(h -> program(h, s), 3, 6, 4, false, s.toString());
            assertThat(r.interp()).doesNotContain("BAD_HELPER_ARGUMENT");
            if (!discard) assertThat(r.interp()).contains("rec 040302010000000008060402");
            assertThat(r.nativeBodyCalls()).isZero();
        }
    }

    @Test void aClosedRingCallsTheBodiesWhichRefuseIt() {
        for (Way way : new Way[] {Way.INTERP, Way.JIT_NATIVE}) {
            AtomicInteger calls = new AtomicInteger();
            MapTable maps = table();
            Engine engine = way == Way.INTERP ? Both.INTERP : Jit.ENGINE;
            try (Executable x = engine.load(program(maps.handle(0), shape(8)), LoadOptions.defaults().withHelpers(counting(maps, calls)))) {
                assertThat(x.run(context(maps))).isEqualTo(16);
                maps.maps().get(0).close();
                String out;
                try {
                    out = "r0=" + x.run(context(maps));
                } catch (BpfRuntimeException e) {
                    out = e.kind() + "@" + e.pc();
                }
                assertThat(out).as(way.name()).endsWith("@6"); // the reserve call
                assertThat(calls.get()).isEqualTo(way == Way.INTERP ? 4 : 1);
            } finally {
                maps.close();
            }
        }
    }
}
