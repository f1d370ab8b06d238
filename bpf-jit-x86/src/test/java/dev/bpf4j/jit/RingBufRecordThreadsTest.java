package dev.bpf4j.jit;

import dev.bpf4j.maps.BpfMapException;
import dev.bpf4j.maps.MapTable;
import dev.bpf4j.maps.RingBufMap;
import dev.bpf4j.maps.RingBufferReader;
import dev.bpf4j.program.Program;
import dev.bpf4j.runtime.Executable;
import dev.bpf4j.runtime.LoadOptions;
import dev.bpf4j.runtime.NativeMemory;
import dev.bpf4j.runtime.RunContext;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.bpf4j.isa.Opcodes.*;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_DISCARD;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_RESERVE;
import static dev.bpf4j.runtime.HelperIds.RINGBUF_SUBMIT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Native {@code bpf_ringbuf_reserve}/{@code _submit}/{@code _discard} sharing one ring with the Java bodies and
 * Java producers: several threads run the JIT program (native forms), one the JIT with the Java bodies, one the
 * interpreter, one {@code RingBufMap.output}, while a Java reader consumes; every record is seen once, intact, in
 * each producer's order, and discarded ones never. Then a reservation made by one side is committed by the other.
 */
class RingBufRecordThreadsTest {

    /** Reserves 40 bytes, writes r1 (a producer's id and sequence) and words derived from it, submits; a sequence divisible by 7 is discarded. r0: 0, or 1 when full. */
    static Program tagged(long handle) {
        return I.prog("ringbuf_reserve_tagged",
                I.mov64r(6, 1),
                I.lddw(1, handle), I.mov64(2, 40), I.mov64(3, 0),
                I.call(RINGBUF_RESERVE),
                I.jmp(JNE, 0, 0, 2),
                I.mov64(0, 1),
                I.exit(),
                I.stx(DW, 0, 6, 0),
                I.mov64r(7, 6), I.alu64(XOR, 7, -1), I.stx(DW, 0, 7, 8),
                I.mov64r(7, 6), I.alu64(MUL, 7, 0x9e3779b9), I.stx(DW, 0, 7, 16),
                I.mov64r(7, 6), I.alu64(ADD, 7, 12345), I.stx(DW, 0, 7, 24),
                I.mov64r(7, 6), I.alu64(RSH, 7, 3), I.stx(DW, 0, 7, 32),
                I.mov64r(1, 0), I.mov64(2, 0),
                I.mov64r(8, 6), I.alu32(MOD, 8, 7),
                I.jmp(JEQ, 8, 0, 3),
                I.call(RINGBUF_SUBMIT),
                I.mov64(0, 0),
                I.exit(),
                I.call(RINGBUF_DISCARD),
                I.mov64(0, 0),
                I.exit());
    }

    static long[] expected(long v) { return RingBufOutputDifferentialTest.expected(v); }

    static boolean discarded(long v) { return ((int) v) % 7 == 0; } // alu32 MOD on the low half: (u32) seq % 7

    @Test void threadsReserveAndSubmitAtOnceWhileJavaConsumes() throws Exception {
        int perThread = 20_000;
        AtomicInteger calls = new AtomicInteger();
        try (MapTable maps = RingBufRecordDifferentialTest.table()) {
            RingBufMap rb = (RingBufMap) maps.maps().get(0);
            LoadOptions o = LoadOptions.defaults().withHelpers(RingBufRecordDifferentialTest.counting(maps, calls));
            Executable nativeJit = Jit.ENGINE.load(tagged(maps.handle(0)), o);
            Executable javaJit;
            System.setProperty("bpf4j.jit.nativeHelpers", "false");
            try {
                javaJit = Jit.ENGINE.load(tagged(maps.handle(0)), o);
            } finally {
                System.clearProperty("bpf4j.jit.nativeHelpers");
            }
            Executable interp = Both.INTERP.load(tagged(maps.handle(0)), o);
            // producers 0-2: JIT native, 3: JIT with the Java bodies, 4: interpreter, 5: RingBufMap.output from Java
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
                            while (!produce(id, v, maps, nativeJit, javaJit, interp, rb)) { // full: retry
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
            try {
                while (!allSeen(next, perThread) && !failed.get() && System.nanoTime() < deadline) {
                    reader.poll(rec -> check(rec, next), Duration.ofMillis(100));
                }
            } finally {
                if (!allSeen(next, perThread)) failed.set(true); // a failed check or the deadline: stop the producers
                for (Thread t : threads) t.join(10_000);
            }
            assertThat(errors).isEmpty();
            reader.consume(rec -> check(rec, next));
            for (int p = 0; p < producers; p++) assertThat(next[p]).as("producer %d", p).isEqualTo(lastKept(p, perThread) + 1);
            assertThat(rb.consumerPos()).isEqualTo(rb.producerPos());
            assertThat(calls.get()).as("only producers 3 and 4 call the bodies").isGreaterThanOrEqualTo(2 * 2 * perThread - 2 * (perThread / 7 + 1));
            nativeJit.close();
            javaJit.close();
            interp.close();
        }
    }

    /** next[p] is the sequence after the last record of p seen; all seen when each is past its last kept record. */
    private static boolean allSeen(int[] next, int perThread) {
        for (int p = 0; p < next.length; p++) if (next[p] < lastKept(p, perThread) + 1) return false;
        return true;
    }

    private static int lastKept(int producer, int perThread) {
        int last = perThread - 1;
        if (producer == 5) return last; // Java's output discards nothing
        while (discarded(last)) last--;
        return last;
    }

    private static void check(byte[] rec, int[] next) {
        assertThat(rec).hasSize(40);
        ByteBuffer b = ByteBuffer.wrap(rec).order(ByteOrder.LITTLE_ENDIAN);
        long tag = b.getLong(0);
        long[] want = expected(tag);
        for (int k = 0; k < 5; k++) assertThat(b.getLong(8 * k)).as("word %d of record %x", k, tag).isEqualTo(want[k]);
        int who = (int) (tag >>> 32), seq = (int) tag;
        int expect = next[who];
        if (who != 5) while (discarded(expect)) expect++; // discarded records never reach the reader
        assertThat(seq).as("producer %d in order, once", who).isEqualTo(expect);
        next[who] = seq + 1;
    }

    private static boolean produce(int id, long v, MapTable maps, Executable nativeJit, Executable javaJit, Executable interp, RingBufMap rb) {
        RunContext.Builder b = RunContext.builder().arg(1, v);
        maps.regions().forEach(b::region);
        RunContext ctx = b.build();
        if (id <= 2) return nativeJit.run(ctx) == 0;
        if (id == 3) return javaJit.run(ctx) == 0;
        if (id == 4) return interp.run(ctx) == 0;
        ByteBuffer out = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        for (long w : expected(v)) out.putLong(w);
        try {
            rb.output(out.array(), 0);
            return true;
        } catch (BpfMapException e) {
            return false; // EAGAIN: full
        }
    }

    /** submit(r1) then returns 0 (unverified: r1 is whatever the caller passes). */
    static Program submitArg() {
        return I.prog("ringbuf_submit_arg", I.mov64(2, 0), I.call(RINGBUF_SUBMIT), I.mov64(0, 0), I.exit());
    }

    /** Reserves r1 bytes, fills them with 0x5a and returns the sample (unverified: a pointer leak, on purpose). */
    static Program reserveOnly(long handle) {
        return I.prog("ringbuf_reserve_only",
                I.mov64r(2, 1), I.lddw(1, handle), I.mov64(3, 0), I.call(RINGBUF_RESERVE),
                I.jmp(JEQ, 0, 0, 4),
                I.st(W, 0, 0, 0x5a5a5a5a), I.st(W, 0, 4, 0x5a5a5a5a), I.st(W, 0, 8, 0x5a5a5a5a), I.st(W, 0, 12, 0x5a5a5a5a),
                I.exit());
    }

    @Test void aReservationFromOneSideIsCommittedByTheOther() {
        AtomicInteger calls = new AtomicInteger();
        try (MapTable maps = RingBufRecordDifferentialTest.table()) {
            RingBufMap rb = (RingBufMap) maps.maps().get(0);
            LoadOptions o = LoadOptions.defaults().withHelpers(RingBufRecordDifferentialTest.counting(maps, calls));
            try (Executable submit = Jit.ENGINE.load(submitArg(), o); Executable reserve = Jit.ENGINE.load(reserveOnly(maps.handle(0)), o)) {
                // Java reserves, native code submits
                long s = rb.reserve(16);
                NativeMemory.putLong(s, 0x1122334455667788L);
                NativeMemory.putLong(s + 8, -1L);
                assertThat(rb.isPending(s)).isTrue();
                RunContext.Builder b = RunContext.builder().arg(1, s);
                maps.regions().forEach(b::region);
                assertThat(submit.run(b.build())).isZero();
                assertThat(rb.isPending(s)).isFalse();
                // native code reserves, Java submits
                RunContext.Builder b2 = RunContext.builder().arg(1, 16);
                maps.regions().forEach(b2::region);
                long t = reserve.run(b2.build());
                assertThat(t).isNotZero();
                assertThat(rb.isPending(t)).isTrue();
                assertThat(rb.commit(t, 0, false)).isTrue();
                assertThat(rb.commit(t, 0, false)).as("committed once").isFalse();
                assertThat(calls.get()).as("native code both ways").isZero();
                List<byte[]> got = rb.reader().drain();
                assertThat(got).hasSize(2);
                assertThat(ByteBuffer.wrap(got.get(0)).order(ByteOrder.LITTLE_ENDIAN).getLong(0)).isEqualTo(0x1122334455667788L);
                assertThat(got.get(1)).containsOnly((byte) 0x5a);
            }
        }
    }
}
