package dev.bpf4j.unwind;

import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where walks stop: views, frame pointers, return addresses that are not code, depth. The libc
 * addresses here stand for code without CFI ({@link #framePointersOnly}): the fake frames are
 * frame-pointer chains ({@code CfiUnwindTest} covers the CFI steps).
 */
class UnwinderTest {
    private static Unwinder framePointersOnly() {
        ProcessCode code = ProcessCode.global();
        return new Unwinder(code.jit(), code::isCode, CfiLookup.NONE);
    }

    private static final long STACK = 0x7fff0000L;
    private static final MemoryIO IO = MemoryIO.getInstance();

    /** Stack words from STACK upwards. */
    private static SnapshotMemoryView stack(long... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long w : words) b.putLong(w);
        return new SnapshotMemoryView(STACK, b.array());
    }

    /** A view that records every address read and fails on reads it does not contain. */
    private static final class Recording implements MemoryView {
        final MemoryView inner;
        final List<Long> reads = new ArrayList<>();
        Recording(MemoryView inner) { this.inner = inner; }
        @Override public boolean contains(long a) { return inner.contains(a); }
        @Override public long readLong(long a) {
            if (!inner.contains(a)) throw new AssertionError(String.format("read outside the view at 0x%x", a));
            reads.add(a);
            return inner.readLong(a);
        }
    }

    @Test
    void aGarbageFramePointerIntoTheHeapEndsTheWalk() {
        long getpid = Library.getDefault().getSymbolAddress("getpid");
        // A plausible frame in malloc'd memory: saved bp above it, a real return address.
        long heap = IO.allocateMemory(64, true);
        try {
            IO.putLong(heap, heap + 16);
            IO.putLong(heap + 8, getpid + 1);
            IO.putLong(heap + 16, 0);
            IO.putLong(heap + 24, getpid + 2);
            ThreadStack stack = ThreadStack.current();
            long sp = stack.high() - 512;
            Unwinder unwinder = framePointersOnly();
            for (long bp : new long[] {heap, stack.high() + 4096, stack.low() - 64, -16L, 8}) {
                Recording view = new Recording(stack.viewFrom(sp).orElseThrow());
                StackTrace t = unwinder.unwind(getpid, sp, bp, view);
                assertThat(t.ips()).as("bp 0x%x", bp).containsExactly(getpid);
                assertThat(view.reads).isEmpty();
            }
            // The current thread's live walk refuses a start off its stack.
            assertThat(unwinder.unwindCurrentThread(getpid, heap, heap).ips()).containsExactly(getpid);
        } finally {
            IO.freeMemory(heap);
        }
    }

    @Test
    void readsStayInsideTheView() {
        // A chain whose third frame lies past the end of the snapshot.
        SnapshotMemoryView s = stack(STACK + 16, 0x500010, STACK + 32, 0x500020);
        Recording view = new Recording(s);
        StackTrace t = new Unwinder(new CodeMap(), ra -> true).unwind(0x500000, STACK, STACK, view);
        assertThat(t.ips()).containsExactly(0x500000L, 0x500010L, 0x500020L);
        assertThat(view.reads).allSatisfy(a -> assertThat(a).isBetween(STACK, STACK + 24));
    }

    @Test
    void stopsBeforeAReturnAddressThatIsNotCode() {
        long getpid = Library.getDefault().getSymbolAddress("getpid");
        SnapshotMemoryView s = stack(STACK + 16, getpid + 1, STACK + 32, 0x1234, 0, getpid + 3);
        StackTrace t = framePointersOnly().unwind(getpid, STACK, STACK, s);
        assertThat(t.ips()).containsExactly(getpid, getpid + 1);
        assertThat(t.reliable()).isFalse();
    }

    @Test
    void nullAndNonIncreasingFramePointersStop() {
        Unwinder u = new Unwinder(new CodeMap(), ra -> true);
        // The saved bp points at this frame again: keep its return address, then stop.
        assertThat(u.unwind(0x500000, STACK, STACK, stack(STACK, 0x500010, STACK, 0x500020)).ips()).containsExactly(0x500000L, 0x500010L);
        // The saved bp is below this frame.
        assertThat(u.unwind(0x500000, STACK + 16, STACK + 16, stack(0, 0, STACK, 0x500010)).ips()).containsExactly(0x500000L, 0x500010L);
        // bp is null, or below sp.
        assertThat(u.unwind(0x500000, STACK, 0, stack(STACK, 0x500010)).ips()).containsExactly(0x500000L);
        assertThat(u.unwind(0x500000, STACK + 8, STACK, stack(STACK, 0x500010, 0, 0)).ips()).containsExactly(0x500000L);
        // A null return address ends the walk.
        assertThat(u.unwind(0x500000, STACK, STACK, stack(STACK + 16, 0)).ips()).containsExactly(0x500000L);
        assertThat(u.unwind(0, STACK, STACK, stack(STACK + 16, 0)).ips()).isEmpty();
    }

    @Test
    void depthIsCappedAt127() {
        long[] words = new long[2 * 300];
        for (int i = 0; i < 300; i++) {
            words[2 * i] = STACK + 16L * (i + 1);
            words[2 * i + 1] = 0x500000 + i;
        }
        StackTrace t = new Unwinder(new CodeMap(), ra -> true).unwind(0x400000, STACK, STACK, stack(words));
        assertThat(t.ips()).hasSize(Unwinder.MAX_DEPTH);
        assertThat(t.ips().get(Unwinder.MAX_DEPTH - 1)).isEqualTo(0x500000L + Unwinder.MAX_DEPTH - 2);
        // A self-referencing chain stops at once instead of filling the trace.
        assertThat(new Unwinder(new CodeMap(), ra -> true).unwind(0x400000, STACK, STACK, stack(STACK, 0x500000)).ips()).hasSize(2);
    }

    @Test
    void aTraceThroughRowsOnlyIsReliable() {
        CodeMap map = new CodeMap();
        long f = 0x400000, g = 0x410000;
        map.register(new CodeRegion(f, 0x40, "f", "test", List.of(new UnwindRow(0, 0x40, CfaRule.FRAME_POINTER))));
        map.register(new CodeRegion(g, 0x40, "g", "test", List.of(new UnwindRow(0, 1, CfaRule.RETURN_AT_SP),
                new UnwindRow(1, 4, CfaRule.RETURN_AT_SP_PLUS_8), new UnwindRow(4, 0x40, CfaRule.FRAME_POINTER))));
        Unwinder u = new Unwinder(map, ip -> map.find(ip).isPresent() || map.find(ip - 1).isPresent());
        // g at entry, called from f (ra f+0x10), whose frame at STACK+8 returns to g's end (a call as g's last instruction).
        SnapshotMemoryView s = stack(f + 0x10, 0, g + 0x40, 0, 0);
        StackTrace t = u.unwind(g, STACK, STACK + 8, s);
        assertThat(t.ips()).containsExactly(g, f + 0x10, g + 0x40);
        assertThat(t.reliable()).isTrue();
        // The same start outside any region falls back to the frame pointer and says so.
        assertThat(new Unwinder(new CodeMap(), ra -> true).unwind(0x900000, STACK, STACK + 8, s).reliable()).isFalse();
    }

    @Test
    void aReturnTrampolineInASlotIsTheRealReturnAddressWhenItsThreadKnowsIt() {
        CodeMap map = new CodeMap();
        long f = 0x400000, g = 0x410000, trampoline = 0x420001;
        map.register(new CodeRegion(f, 0x40, "f", "test", List.of(new UnwindRow(0, 0x40, CfaRule.FRAME_POINTER))));
        map.register(new CodeRegion(g, 0x40, "g", "test", List.of(new UnwindRow(0, 0x40, CfaRule.FRAME_POINTER))));
        Unwinder u = new Unwinder(map, ip -> true);
        // g's frame at STACK: its return address slot (STACK + 8) holds the trampoline instead of f + 0x10.
        SnapshotMemoryView s = stack(STACK + 16, trampoline, 0, g + 0x20);
        map.registerReturnTrampoline(trampoline, slot -> slot == STACK + 8 ? f + 0x10 : 0);
        StackTrace t = u.unwind(g, STACK, STACK, s);
        assertThat(t.ips()).containsExactly(g, f + 0x10, g + 0x20);
        assertThat(t.reliable()).isTrue();
        // Another thread's slot (its shadow stack is not this thread's): the trampoline stays, the walk goes on by rbp.
        map.registerReturnTrampoline(trampoline, slot -> 0);
        StackTrace other = u.unwind(g, STACK, STACK, s);
        assertThat(other.ips()).containsExactly(g, trampoline, g + 0x20);
        assertThat(other.reliable()).isFalse();
        // ... unless the trampoline can guess from that thread's shadow stack: the address, not reliable.
        map.registerReturnTrampoline(trampoline, new CodeMap.ReturnTrampoline() {
            @Override public long ownThread(long slot) { return 0; }
            @Override public long anyThread(long slot) { return slot == STACK + 8 ? f + 0x10 : 0; }
        });
        StackTrace guessed = u.unwind(g, STACK, STACK, s);
        assertThat(guessed.ips()).containsExactly(g, f + 0x10, g + 0x20);
        assertThat(guessed.reliable()).isFalse();
    }
}
